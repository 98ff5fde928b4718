// Forget reaches the flash (issue 12 §7): a tombstone hides a record at once,
// and idle steps rewrite its sealed segment without it. A power cut at any
// write of that rewrite neither brings the forgotten record back nor loses or
// duplicates another one (absolute oracle: the exact set of contents): the
// sweep in archive-recode.scn.ts ("archive rewrite: a power cut at any write
// of a forget's rewrite and the upkeep after it"), which checks the flash with
// onFlash below.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { appendFacts, factContents } from "./archive-cuts";
import { compactDecode } from "../../src/text/compact";
import { decode } from "../../src/text/utf8";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = Date.UTC(2026, 1, 5, 5, 0);
const SECRET = "秘密日记";

const fill = (a: Archive, n: number): string[] => appendFacts(a, n, (k) => `第${k}条：主人说的事${k === 77 ? SECRET : ""}`);
const contents = factContents;

// Is `text` on the flash: in its UTF-8 bytes, or in a line's compact text
// (format 3: a field under a capital key, decoded; docs/FORMAT.md §3.16; a
// packed fact line's "A", §3.19)?
export function onFlash(dev: SimDevice, text: string): boolean {
  const needle = new TextEncoder().encode(text);
  for (const e of dev.spiffs.list()) {
    const b = dev.spiffs.content(e.name);
    outer: for (let i = 0; i + needle.length <= b.length; i++) {
      for (let k = 0; k < needle.length; k++) if (b[i + k] !== needle[k]) continue outer;
      return true;
    }
    for (const line of decode(b).split("\n")) {
      let o: any;
      try {
        o = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof o !== "object" || o === null) continue;
      for (const k of ["C", "P", "K", "A"]) {
        const v = o[k];
        for (const x of Array.isArray(v) ? v : [v]) if (typeof x === "string" && (compactDecode(x) ?? "").indexOf(text) >= 0) return true;
      }
    }
  }
  return false;
}

export const scenarios: Scenario[] = [
  {
    name: "archive v2: forget hides at once, survives a reboot, and its bytes leave the flash by steps",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      let a = new Archive(root);
      a.check();
      const all = fill(a, 2500); // two segments of packed lines (FORMAT.md §3.19)
      a.settle();
      ok(onFlash(dev, SECRET), "on flash before");
      const ids = a.recallByKeyword("fact", SECRET).map((x) => x.id);
      equal(ids.length, 1, "found");
      equal(a.forget("fact", ids), 1, "hidden");
      equal(a.recallByKeyword("fact", SECRET).length, 0, "hidden at once");
      dev.reboot();
      a = new Archive(root);
      equal(a.check().forgotten, 1, "the tombstone survives a reboot");
      equal(a.recallByKeyword("fact", SECRET).length, 0, "still hidden");
      a.settle();
      ok(!onFlash(dev, SECRET), "gone from the flash");
      equal(a.report().forgotten, 0, "the tombstone dropped once nothing is left");
      deepEqual(contents(a), all.filter((c) => c.indexOf(SECRET) < 0).sort(), "every other fact, once");
    },
  },
];

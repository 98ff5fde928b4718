// Rewrites of sealed segments keep their index (docs/design/recode.md): a
// forget's rewrite builds the new segment's sidecar while it copies
// (`.scx`) and swaps it in with the segment, so a recall right after the swap
// reads only the matching blocks (within its 32 KB flash budget) instead of
// having to scan the whole unindexed segment, which it cannot afford. A power
// cut at any write of the rewrite (segment, sidecar, swap) loses nothing, never
// brings a forgotten record back, and leaves the segment indexed.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, type Budget } from "../../src/archive/archive";
import { fromLocal } from "../../src/time/local";
import { cutUpkeep, type Image } from "./archive-cuts";
import { deviceMs, STEP_BUDGET_MS } from "./archive-steps.scn";
import { PAD } from "./archive.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = Date.UTC(2026, 1, 5, 5, 0);
const SECRET = "秘密日记";
const WORD = "萤火虫"; // in one fact of the first (sealed, rewritten) segment
const budget = (): Budget => ({ left: 32 * 1024, cut: false });

// Facts, five an append: the first segment sealed, the second open at 1100.
function fill(a: Archive, n: number): string[] {
  const t0 = Math.floor(fromLocal(2024, 1, 1, 8, 0) / 1000);
  const all: string[] = [];
  for (let i = 0; i < n; i += 5) {
    const b = [];
    for (let k = i; k < i + 5; k++) b.push({ timestamp: t0 + k * 3600, content: k === 77 ? `第${k}条：${SECRET}` : k === 300 ? `第${k}条：主人说起了${WORD}` : `第${k}条：主人今天说了学校的小事${PAD.slice(0, 12)}` });
    a.append("fact", b);
    for (const x of b) all.push(x.content);
  }
  return all;
}

function contents(a: Archive): string[] {
  const out: string[] = [];
  a.forEach("fact", (it) => out.push(it.content));
  return out.sort();
}

function image(dev: SimDevice): Image[] {
  return dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name) }));
}

// The word, recalled within a recall's flash budget.
function recallWord(a: Archive): { n: number; cut: boolean; read: number } {
  const q = budget();
  const got = a.recall("fact", { keyword: WORD, limit: 5, budget: q });
  return { n: got.filter((x) => x.content.indexOf(WORD) >= 0).length, cut: q.cut, read: 32 * 1024 - q.left };
}

// A device with the forget waiting: segment f000001 (sealed) holds the secret and the word.
function forgetting(): { base: SimDevice; kept: string[] } {
  const base = new SimDevice({ now: T0 }).install();
  const a = new Archive(root);
  a.check();
  const all = fill(a, 1100);
  a.settle();
  a.forget("fact", a.recallByKeyword("fact", SECRET).map((x) => x.id));
  return { base, kept: all.filter((c) => c.indexOf(SECRET) < 0).sort() };
}

export const scenarios: Scenario[] = [
  {
    name: "archive rewrite: a recall right after a forget's swap finds a word in the rewritten segment within its 32 KB budget, and the new sidecar is the one a seal builds",
    run() {
      const { base } = forgetting();
      const img = image(base);
      const dev = new SimDevice({ now: T0 }).install();
      for (const f of img) dev.spiffs.load(f.name, f.bytes.slice());
      const a = new Archive(root);
      a.check();
      const before = recallWord(a);
      equal(before.n, 1, `found before the rewrite (${before.read} bytes read)`);
      let swapped = false;
      for (let n = 0; n < 200 && !swapped; n++) {
        dev.flash.resetTraffic();
        const r = a.step();
        ok(!!r, "steps until the swap");
        const t = dev.flash.partition("storage");
        ok(deviceMs(t) <= STEP_BUDGET_MS, `step "${r!.did}": ${Math.round(deviceMs(t))} ms at the device's speed`);
        ok(!/failed/.test(r!.did), r!.did);
        swapped = /rewritten$/.test(r!.did);
        if (swapped) equal(r!.did, "scrub: fact 1 rewritten", "the first segment rewritten");
        else {
          // during the copy, the segment as it was (with its sidecar) serves
          const w = recallWord(a);
          equal(w.n, 1, `found during the rewrite, after "${r!.did}"`);
        }
      }
      ok(swapped, "the rewrite swapped");
      const after = recallWord(a);
      equal(after.n, 1, `found right after the swap, within the budget (${after.read} bytes read, cut ${after.cut})`);
      equal(after.cut, false, "the recall was not cut short");
      ok(dev.spiffs.exists("/f000001.six") && !dev.spiffs.exists("/f000001.scx") && !dev.spiffs.exists("/f000001.scr") && !dev.spiffs.exists("/f000001.old"), "the new sidecar in place, no rewrite file left");
      equal(a.recallByKeyword("fact", SECRET).length, 0, "the forgotten fact stays hidden");
      // the sidecar the rewrite built is byte for byte the one a seal builds from the segment
      a.settle();
      const built = dev.spiffs.content("/f000001.six");
      dev.reboot();
      dev.spiffs.remove("/f000001.six");
      const b = new Archive(root);
      b.check();
      recallWord(b); // finds the sidecar missing: a step indexes the segment again
      b.settle();
      deepEqual(Array.from(dev.spiffs.content("/f000001.six")), Array.from(built), "the rewrite's sidecar equals one indexed from the segment");
    },
  },
  {
    name: "archive rewrite: a power cut at any write of a forget's rewrite (segment, its new sidecar, the swap) loses nothing, never brings it back, and leaves the segment indexed",
    run() {
      const { base, kept } = forgetting();
      const img = image(base);
      // the writes up to and including the swap's step (the seal after it is
      // covered by the other cut tests)
      const dry = new SimDevice({ now: T0 }).install();
      for (const f of img) dry.spiffs.load(f.name, f.bytes.slice());
      const ad = new Archive(root);
      ad.check();
      const w0 = dry.flash.writes;
      for (let n = 0; n < 200; n++) {
        const r = ad.step();
        if (!r || /rewritten$/.test(r.did)) break;
      }
      const total = dry.flash.writes - w0;
      ok(total > 20, `the rewrite takes ${total} writes`);
      let cuts = 0;
      cutUpkeep({ image: img, now: T0, total }, (a, dev, what, settled) => {
        if (!settled) cuts++;
        equal(a.recallByKeyword("fact", SECRET).length, 0, `${what}: the forgotten fact stays hidden`);
        deepEqual(contents(a), kept, `${what}: every other fact exactly once`);
        const w = recallWord(a);
        // after the reboot the segment is the old one with its sidecar, or
        // the rewrite with its new one: never without an index
        equal(w.n, 1, `${what}: the word within the recall's budget (${w.read} bytes read)`);
        if (!settled) return;
        for (const x of ["scr", "scx", "old"]) ok(!dev.spiffs.exists(`/f000001.${x}`), `${what}: no .${x} left`);
        ok(dev.spiffs.exists("/f000001.six"), `${what}: indexed`);
      });
      ok(cuts === total, `every write cut: ${cuts} of ${total}`);
    },
  },
];

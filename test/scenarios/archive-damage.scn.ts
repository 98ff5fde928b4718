// Damage at rest in archive format 2 (docs/FORMAT.md §3.4, §3.5, §3.11): a
// flipped bit in a sealed block is repaired in RAM; a damaged sidecar entry
// sends the query to scan the segment; a damaged catalog entry or summary
// sends it to the sidecar, and a step summarizes the segment again; whatever
// bit flips, no wrong or damaged record is ever served.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { repairBit } from "../../src/archive/repair";
import { crc32 } from "../../src/nvs/crc32";
import { encode } from "../../src/text/utf8";
import type { ArchivedItem } from "../../src/archive/line";
import { fresh, fillFacts, image, moment, imageOnce, bootImage } from "./archive.scn";
import { sidecar } from "./archive-segments.scn";
import { ok, equal, deepEqual } from "./assert";
import { compactEncode } from "../../src/text/compact";
import type { Scenario } from "./types";

const root = config.file.root;

// Is src/archive/repair.ts the real one yet (main has a placeholder until the repair branch lands)?
export function repairIsReal(): boolean {
  const b = encode("主人今天去公园玩了，很开心。".repeat(20));
  const crc = crc32(b);
  b[17] ^= 8;
  return repairBit(b, 0, b.length, crc) >= 0;
}

function flip(dev: SimDevice, name: string, at: number, bit: number): void {
  const b = dev.spiffs.content(name);
  b[at] ^= 1 << bit;
  dev.spiffs.load(name, b);
}

function offsetOf(dev: SimDevice, name: string, text: string): number {
  const hay = dev.spiffs.content(name), needle = encode(text);
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let k = 0;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

// Sealed fact segments, an open one, and moments; settled. Built once; each
// scenario boots a device of its own loaded with a copy of its files.
function build(): { dev: SimDevice; a: Archive } {
  return bootImage(
    imageOnce("archive-damage", () => {
      const a = new Archive(root);
      fillFacts(a, 1800); // two segments of packed lines (FORMAT.md §3.19)
      for (let i = 0; i < 40; i += 4) a.append("moment", [0, 1, 2, 3].map((k) => moment(i + k, "日常", `第${i + k}个时刻：和主人一起看书`)));
      a.settle();
      ok(a.report().fact.segments >= 2, "a sealed segment and the open one");
    }),
  );
}

const ids = (xs: ArchivedItem[]) => xs.map((x) => x.id);

export const scenarios: Scenario[] = [
  {
    name: `archive v2 damage: one flipped bit in a sealed block is repaired in RAM and every record served${repairIsReal() ? "" : " [PENDING: src/archive/repair.ts is a placeholder on this branch; until it lands the damaged line is left out and counted]"}`,
    run() {
      const { dev, a } = build();
      const all = a.recallByTimeRange("fact", undefined, undefined, 1000).concat(a.recallByTimeRange("fact", undefined, "2024-02-10", 1000));
      const want = a.recallByKeyword("fact", "第55条", 10);
      equal(want.length, 1);
      dev.reboot();
      const at = offsetOf(dev, "/f000001.jsonl", compactEncode("第55条")); // as it is on flash (format 3: compact text)
      ok(at > 0);
      flip(dev, "/f000001.jsonl", at + 1, 2); // in a sealed, indexed block
      const b = new Archive(root);
      b.check();
      const got = b.recallByKeyword("fact", "学校", 1000);
      const range = b.recallByTimeRange("fact", undefined, "2024-02-10", 1000);
      if (repairIsReal()) {
        deepEqual(ids(b.recallByKeyword("fact", "第55条", 10)), ids(want), "the record is served, repaired");
        ok(b.lastRecall.repaired >= 1, `repaired: ${JSON.stringify(b.lastRecall)}`);
        equal(b.lastRecall.damaged, 0);
        equal(got.length, 1000);
        deepEqual(ids(range), ids(all.slice(1000)), "the range is whole");
      } else {
        // pending: the damaged line is left out, counted, and nothing else is lost
        equal(b.recallByKeyword("fact", "第55条", 10).length, 0, "a damaged line is never served");
        ok(b.lastRecall.damaged >= 1, `counted: ${JSON.stringify(b.lastRecall)}`);
        equal(range.length, all.length - 1000 - 1, "only the damaged line is missing");
      }
      for (const x of range) ok(x.content.indexOf("第") === 0 && x.content.endsWith("小事"), `never a damaged text: ${x.content}`);
    },
  },
  {
    name: "archive v2 damage: a damaged sidecar entry or signature sends the query to scan the segment; the answer is the same",
    run() {
      const { dev, a } = build();
      const kw = ids(a.recallByKeyword("fact", "第33条", 10));
      const range = ids(a.recallByTimeRange("fact", "2024-01-02", "2024-01-03", 1000));
      equal(kw.length, 1);
      equal(range.length, 48);
      const side = sidecar(dev, "f", 1);
      ok(side.records.length >= 8);
      for (const [what, at] of [
        ["entry 0's offset", 32 + 0],
        ["entry 1's max", 32 + 288 + 16],
        ["block 0's signature", 32 + 32 + 40],
        ["the header", 12],
      ] as const) {
        const d = fresh();
        for (const [n, b] of image(dev)) d.spiffs.load(n, b);
        flip(d, "/f000001.six", at, 5);
        const b = new Archive(root);
        b.check();
        deepEqual(ids(b.recallByKeyword("fact", "第33条", 10)), kw, `${what}: keyword`);
        deepEqual(ids(b.recallByTimeRange("fact", "2024-01-02", "2024-01-03", 1000)), range, `${what}: range`);
        equal(b.lastRecall.damaged, 0);
      }
    },
  },
  {
    name: "archive v2 damage: a damaged catalog entry sends queries to the sidecar and a step summarizes the segment again",
    run() {
      const { dev, a } = build();
      const kw = ids(a.recallByKeyword("fact", "第33条", 10));
      const range = ids(a.recallByTimeRange("fact", "2024-01-02", "2024-01-03", 1000));
      dev.reboot();
      flip(dev, "/f.cat", 16 + 8, 1); // entry 0's max
      let b = new Archive(root);
      const r = b.check();
      equal(r.fact.unsealed, 1, "the segment is no longer summarized");
      ok((r.fact.catalog ?? "").indexOf("entry") >= 0, `reported: ${r.fact.catalog}`);
      deepEqual(ids(b.recallByKeyword("fact", "第33条", 10)), kw);
      deepEqual(ids(b.recallByTimeRange("fact", "2024-01-02", "2024-01-03", 1000)), range);
      const s = b.step();
      ok(s !== undefined && s.did.indexOf("seal") === 0, `a step seals it again: ${s?.did}`);
      equal(b.report().fact.unsealed, 0);
      deepEqual(ids(b.recallByKeyword("fact", "第33条", 10)), kw);
      dev.reboot();
      b = new Archive(root);
      equal(b.check().fact.unsealed, 0, "the new entry is on flash");
      deepEqual(ids(b.recallByKeyword("fact", "第33条", 10)), kw);
    },
  },
  {
    name: "archive v2 damage: a damaged summary sends the query to the segment's sidecar, and a step summarizes the segment again",
    run() {
      const { dev, a } = build();
      const kw = ids(a.recallByKeyword("fact", "第33条", 10));
      const absent = a.recallByKeyword("fact", "独角兽", 10);
      equal(absent.length, 0);
      const sealed = a.report().fact.segments - 1;
      dev.reboot();
      flip(dev, "/f.sum", 16 + 100, 3); // slot 0's summary
      const b = new Archive(root);
      b.check();
      deepEqual(ids(b.recallByKeyword("fact", "第33条", 10)), kw, "found through the sidecar");
      deepEqual(b.recallByKeyword("fact", "独角兽", 10), []);
      ok(b.lastRecall.summaries < sealed, "the damaged summary was not trusted");
      const s = b.step();
      ok(s !== undefined && s.did.indexOf("seal") === 0, `a step summarizes it again: ${s?.did}`);
      b.settle();
      deepEqual(b.recallByKeyword("fact", "独角兽", 10), []);
      equal(b.lastRecall.summaries, sealed, "every summary checks out again");
      ok(b.lastRecall.segments <= 2, `only candidates are read again (${b.lastRecall.segments})`);
      deepEqual(ids(b.recallByKeyword("fact", "第33条", 10)), kw);
    },
  },
  {
    name: "archive v2 damage: whatever single bit flips at rest, recall never serves a wrong or damaged record",
    run() {
      const { dev, a } = build();
      const known = new Map<string, string>();
      const facts = a.recallByTimeRange("fact", undefined, undefined, 1000).concat(a.recallByTimeRange("fact", undefined, "2024-02-10", 1000));
      const moments = a.recallByTimeRange("moment", undefined, undefined, 1000);
      for (const x of facts.concat(moments)) known.set(x.id, JSON.stringify(x));
      const total = known.size;
      equal(total, 1840);
      const base = image(dev);
      const real = repairIsReal();
      let lost = 0;
      for (let seed = 1; seed <= 20; seed++) {
        const d = fresh();
        for (const [n, b] of base) d.spiffs.load(n, b.slice());
        const where = d.inject("bit_flip", { partition: "storage", seed });
        const b = new Archive(root);
        b.check();
        const got = b
          .recallByTimeRange("fact", undefined, undefined, 1000)
          .concat(b.recallByTimeRange("fact", undefined, "2024-02-10", 1000))
          .concat(b.recallByTimeRange("moment", undefined, undefined, 1000))
          .concat(b.recallByKeyword("fact", "第1", 1000))
          .concat(b.recallRecent("moment", 50));
        const seen = new Set<string>();
        for (const x of got) {
          equal(JSON.stringify(x), known.get(x.id), `${where}: a served record is exactly as archived`);
          seen.add(x.id);
        }
        const missing = total - new Set([...seen].filter((x) => known.has(x))).size;
        ok(missing <= (real ? 0 : 1), `${where}: ${missing} records missing`);
        lost += missing;
      }
      ok(real || lost >= 1, "the sweep hit records");
    },
  },
];

// Archive format 2, on flash (docs/FORMAT.md §3.2–3.6, §3.8): the lines of
// every segment, the segments and their rollover, the sidecars' block
// records, sealing by a step into the catalog, and keyword queries that read
// the catalog's summaries and then only the segments that may match.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { SEGMENT_BYTES } from "../../src/archive/stream";
import { PACK_MAX } from "../../src/archive/codec";
import { BlockBuilder } from "../../src/archive/segment";
import { crc32 } from "../../src/nvs/crc32";
import { newEvent, type Fact } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { decode, encode } from "../../src/text/utf8";
import { compactDecode } from "../../src/text/compact";
import { fresh, fillFacts, moment, linesOf, crcHolds, reads, image, sec, PAD } from "./archive.scn";
export { PAD };
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const u32 = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const u16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);

// A parsed line's time, unix seconds: "t", or format 4's "T" from 2020-01-01T00:00:00Z.
export const unixT = (o: { t?: number; T?: number }): number => (typeof o.T === "number" ? o.T + 1577836800 : (o.t as number));
// The times of a record line's records: its own, and a packed fact line's
// others (FORMAT.md §3.19: "a"/"A", seconds after the first and a text, in turn).
export function lineTimes(o: { t?: number; T?: number; a?: unknown[]; A?: unknown[] }): number[] {
  const t = unixT(o);
  const more = (o.A ?? o.a ?? []) as number[];
  const out = [t];
  for (let i = 0; i < more.length; i += 2) out.push(t + more[i]);
  return out;
}

export const KEYS: Record<string, string[]> = {
  f: ["t", "T", "c", "C", "a", "A", "x", "z"],
  m: ["t", "T", "p", "P", "c", "C", "e", "i", "m", "x", "z"],
  e: ["t", "T", "d", "h", "y", "c", "C", "e", "i", "g", "r", "f", "x", "z"],
  d: ["t", "T", "u", "o", "n", "w", "q", "k", "K", "c", "C", "z"],
};

// The segment files of a stream, by sequence number.
export function segments(dev: SimDevice, s: string): number[] {
  const out: number[] = [];
  for (const e of dev.spiffs.list()) {
    const m = /^\/([fmed])(\d{6})\.jsonl$/.exec(e.name);
    if (m && m[1] === s) out.push(Number(m[2]));
  }
  return out.sort((a, b) => a - b);
}

export const segName = (s: string, seq: number, ext = "jsonl") => `/${s}${String(seq).padStart(6, "0")}.${ext}`;

export interface SideRecord {
  offset: number;
  length: number;
  records: number;
  bad: number;
  min: number;
  max: number;
  crc: number;
}

// Decodes a sidecar as FORMAT.md §3.4 says, independently of src/archive.
export function sidecar(dev: SimDevice, s: string, seq: number): { header: boolean; records: SideRecord[]; whole: boolean } {
  const b = dev.spiffs.content(segName(s, seq, "six"));
  const code = { f: 1, m: 2, e: 3, d: 4 }[s];
  const header = b.length >= 32 && u32(b, 0) === 0x32534d50 && b[4] === 2 && b[5] === code && u16(b, 6) === 4096 && u16(b, 8) === 256 && b[10] === 2 && u32(b, 12) === seq && u32(b, 28) === crc32(b, 0, 28);
  const records: SideRecord[] = [];
  let whole = header && (b.length - 32) % 288 === 0;
  for (let at = 32; at + 288 <= b.length; at += 288) {
    if (u32(b, at + 28) !== crc32(b, at, at + 28) || u32(b, at + 24) !== crc32(b, at + 32, at + 288)) {
      whole = false;
      break;
    }
    records.push({ offset: u32(b, at), length: u16(b, at + 4), records: u16(b, at + 6), bad: u16(b, at + 8), min: u32(b, at + 12), max: u32(b, at + 16), crc: u32(b, at + 20) });
  }
  return { header, records, whole };
}

// Content from a small vocabulary (natural text repeats its words) and a
// filler: about 240 bytes in a line of format 3, as the whole text took in format 2.
export const longFact = (i: number) => `第${i}条：主人今天放学以后和朋友们一起去公园玩，${PAD.slice(0, 66)}`;

// Facts of longFact in batches of 25, one a minute from 2024-01-01 08:00 local.
export function fillLong(a: Archive, n: number, from = 0, text = longFact): Fact[] {
  const t0 = sec(fromLocal(2024, 1, 1, 8, 0));
  const all: Fact[] = [];
  for (let i = from; i < from + n; i += 25) {
    const batch: Fact[] = [];
    for (let k = i; k < Math.min(from + n, i + 25); k++) batch.push({ timestamp: t0 + k * 60, content: text(k) });
    a.append("fact", batch);
    all.push(...batch);
  }
  return all;
}

export const scenarios: Scenario[] = [
  {
    name: "archive v2 segments: every segment starts with its header line and every line ends with the CRC of its bytes; short keys only",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      fillLong(a, 400);
      for (let i = 0; i < 30; i += 3) a.append("moment", [moment(i, "日常", `第${i}个时刻`), moment(i + 1, "日常", `第${i + 1}个时刻`), moment(i + 2, "运动", "打球")]);
      a.append("event", [newEvent({ date: "2025-05-01", content: "第一次去海边", duration: 60 }), newEvent({ date: "2025-06-01", time: "09:30", content: "儿童节", duration: 60, schedule: true, completed: true })]);
      a.settle();
      let files = 0, lines = 0, records = 0, compacts = 0, Ts = 0, packed = 0;
      for (const s of ["f", "m", "e"]) {
        const seqs = segments(dev, s);
        ok(seqs.length >= 1, `stream ${s} has segments`);
        deepEqual(seqs, seqs.map((_x, i) => seqs[0] + i), `stream ${s}: consecutive numbers`);
        for (const seq of seqs) {
          files++;
          const ls = linesOf(dev, segName(s, seq));
          const head = JSON.parse(ls[0]);
          deepEqual([head.v, head.s, head.n, head.k], [4, s, seq, 1], `${s}${seq}: the header line (format 4, text table 1)`);
          ok(crcHolds(ls[0], 4), "the header's CRC holds (format 4's frame)");
          for (const l of ls.slice(1)) {
            lines++;
            ok(crcHolds(l, 4), `${s}${seq}: a line without its CRC in format 4's frame: ${l}`);
            const o = JSON.parse(l);
            records += lineTimes(o).length;
            if (o.A || o.a) {
              packed++;
              ok(Array.isArray(o.A) && !("a" in o), `${s}${seq}: a packed part of Chinese facts is compact: ${l}`);
            }
            for (const k of Object.keys(o)) ok(KEYS[s].indexOf(k) >= 0, `${s}${seq}: key ${k}`);
            ok(!(("c" in o) && ("C" in o)), "content plain or compact, never both");
            if (typeof o.C === "string") {
              compacts++;
              ok(compactDecode(o.C) !== undefined, `${s}${seq}: compact content decodes`);
            }
            // t first, as digits: unix seconds, or (format 4) from 2020-01-01 under "T" (FORMAT.md §3.18)
            ok("T" in o ? o.T >= 0 && !("t" in o) && l.startsWith(`{"T":${o.T},`) : l.startsWith(`{"t":${o.t},`), "t first, as digits");
            if ("T" in o) Ts++;
            ok(Object.keys(o)[Object.keys(o).length - 1] === "z", "z last");
          }
        }
      }
      ok(files >= 4 && records === 400 + 30 + 2, `${files} segments, ${records} records`);
      ok(packed >= 400 / PACK_MAX && lines < records, `facts share lines: ${lines} lines, ${packed} packed`);
      ok(compacts >= lines - 2, `Chinese content is written compact: ${compacts} of ${lines} lines`);
      equal(Ts, lines, "every line from 2020 on has its time under T");
      const big = segments(dev, "f");
      ok(big.length >= 2, `facts in ${big.length} segments`);
    },
  },
  {
    name: "archive v2 segments: a segment holds at most SEGMENT_BYTES; the next starts only when an append would not fit",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      fillLong(a, 900);
      const seqs = segments(dev, "f");
      ok(seqs.length >= 4, `${seqs.length} segments`);
      for (let i = 0; i < seqs.length; i++) {
        const len = dev.spiffs.length(segName("f", seqs[i]));
        ok(len <= SEGMENT_BYTES, `segment ${seqs[i]}: ${len} bytes`);
        if (i === seqs.length - 1) break;
        // the first append of the next segment did not fit in this one
        // the lines of the next segment's first append: its first 25 facts (packed, FORMAT.md §3.19)
        const next = linesOf(dev, segName("f", seqs[i + 1]));
        let batch = 0;
        for (let j = 1, facts = 0; j < next.length && facts < 25; j++) {
          batch += encode(next[j]).length + 1;
          facts += lineTimes(JSON.parse(next[j])).length;
        }
        ok(len + batch > SEGMENT_BYTES - 2, `segment ${seqs[i]} (${len} bytes) was not left early (next append ${batch} bytes)`);
      }
      equal(a.count("fact"), 900);
    },
  },
  {
    name: "archive v2 sidecars: one CRC-checked record per closed block, contiguous, each block at most 4 KB whose CRC and counts match the segment",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      fillFacts(a, 1600); // batches of 5, a packed line each (FORMAT.md §3.19): many blocks, two segments
      const seqs = segments(dev, "f");
      ok(seqs.length >= 2);
      const check = (sealedToo: boolean) => {
        for (const seq of seqs) {
          const open = seq === seqs[seqs.length - 1];
          if (!open && !sealedToo) continue;
          const seg = dev.spiffs.content(segName("f", seq));
          const side = sidecar(dev, "f", seq);
          ok(side.header && side.whole, `f${seq}: a valid sidecar`);
          let at = 0, recs = 0;
          for (const r of side.records) {
            equal(r.offset, at, `f${seq}: contiguous`);
            ok(r.length >= 1 && r.length <= 4096, `f${seq}: block of ${r.length}`);
            equal(r.crc, crc32(seg, r.offset, r.offset + r.length), `f${seq}: the block's CRC`);
            equal(seg[r.offset + r.length - 1], 10, "a block ends with a line");
            const text = decode(seg.subarray(r.offset, r.offset + r.length)).split("\n").slice(0, -1);
            const ts = text.filter((l) => /^\{"[tT]":/.test(l)).flatMap((l) => lineTimes(JSON.parse(l)));
            equal(r.records, ts.length, `f${seq}: records of the block at ${r.offset}`);
            equal(r.min, Math.min(...ts));
            equal(r.max, Math.max(...ts));
            recs += r.records;
            at += r.length;
            // a block is closed when the next line would not fit
            if (at < seg.length) {
              const nl = seg.indexOf(10, at);
              ok(r.length + (nl + 1 - at) > 4096, `f${seq}: the block at ${r.offset} was closed early`);
            }
          }
          if (open) ok(seg.length - at <= 4096, `f${seq}: only the last block is not indexed (${seg.length - at} bytes)`);
          else equal(at, seg.length, `f${seq}: a sealed segment is indexed to its end`);
          if (!open || seg.length > 4096) ok(recs > 0, `f${seq}: its closed blocks are indexed`);
        }
      };
      check(false);
      a.settle();
      check(true);
    },
  },
  {
    name: "archive v2 sealing: a step puts a full segment in the catalog; its group's parity is its newest member's .par (FORMAT.md §3.15); a sealed segment is never written again",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillLong(a, 600);
      const seqs = segments(dev, "f");
      const open = seqs[seqs.length - 1];
      ok(seqs.length >= 3);
      // what protects the segments: the group's parity (the newest full one's
      // .par) and the open segment's twin, from the rollover on, sealed or not
      const prot = () => dev.spiffs.list().map((e) => e.name).filter((n) => /^\/f\d+\.(par|twn)$/.test(n)).sort();
      const want = [segName("f", seqs[seqs.length - 2], "par"), segName("f", open, "par")];
      deepEqual(prot(), want, "before sealing");
      equal(a.report().fact.unsealed, seqs.length - 1);
      ok(!dev.spiffs.exists("/f.cat"));
      const r = a.step();
      ok(r !== undefined && r.did.indexOf("seal") === 0, `first step: ${r?.did}`);
      ok(dev.spiffs.exists("/f.cat") && dev.spiffs.exists("/f.sum"), "the catalog exists");
      deepEqual(prot(), want, "sealing writes no copy");
      equal(a.report().fact.unsealed, seqs.length - 2);
      ok(a.streams.fact.cat.entries.has(seqs[0]));
      a.settle();
      equal(a.report().fact.unsealed, 0);
      deepEqual(prot(), want, "after every step");
      // the catalog as FORMAT.md §3.5 says
      const cat = dev.spiffs.content("/f.cat"), sum = dev.spiffs.content("/f.sum");
      equal(u32(cat, 0), 0x32434d50);
      equal(u32(sum, 0), 0x32554d50);
      equal((cat.length - 16) / 32, seqs.length - 1, "one entry per sealed segment");
      for (let i = 0; i < seqs.length - 1; i++) {
        const at = 16 + 32 * i;
        equal(u32(cat, at + 28), crc32(cat, at, at + 28), `entry ${i} CRC`);
        equal(u32(cat, at), seqs[i]);
        equal(u32(cat, at + 16), dev.spiffs.length(segName("f", seqs[i])), "its length");
        equal(u32(cat, at + 24), crc32(sum, 16 + 2048 * i, 16 + 2048 * (i + 1)), "its summary's CRC");
      }
      const sealed = image(dev).get(segName("f", seqs[0]))!;
      // after a reboot the catalog is known, there is nothing to seal, appends go to the open segment
      dev.reboot();
      a = new Archive(root);
      const c = a.check();
      equal(c.fact.unsealed, 0);
      equal(c.fact.segments, seqs.length);
      equal(a.step(), undefined, "nothing to do");
      fillLong(a, 300, 600);
      a.settle();
      deepEqual(dev.spiffs.content(segName("f", seqs[0])), sealed, "a sealed segment is never written again");
      equal(a.count("fact"), 900);
      equal(a.recallByKeyword("fact", "第3条", 5).length, 1);
    },
  },
  {
    name: "archive v2 keyword: the catalog's summaries pick the segments; a word that never occurs reads under 64 KB of 20+ segments, a rare one its own segment",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const n = 4300;
      // steps between the appends, as the device runs them between conversations
      for (let k = 0; k < n; k += 500) {
        fillLong(a, Math.min(500, n - k), k, (i) => (i === 1234 ? `第${i}条：主人在夏天的晚上第一次看到了萤火虫，很兴奋。` : longFact(i)));
        a.settle();
      }
      const segs = a.report().fact.segments;
      ok(segs >= 20, `${segs} segments`);
      let got = 0;
      const absent = reads(dev, () => (got = a.recallByKeyword("fact", "独角兽", 10).length));
      equal(got, 0);
      ok(absent.bytes < 65536, `an absent word read ${absent.bytes} bytes`);
      // every sealed segment was ruled out by the catalog: bit-sliced groups of 8, then the summaries after them
      ok(a.lastRecall.groups >= 2, `the sliced groups were read (${a.lastRecall.groups})`);
      ok(a.lastRecall.summaries + a.lastRecall.groups * 8 >= segs - 1, `the catalog covered them (${a.lastRecall.summaries} summaries, ${a.lastRecall.groups} groups)`);
      ok(absent.bytes < 32768, `with the sliced groups an absent word reads little: ${absent.bytes} bytes`);
      ok(a.lastRecall.segments <= 3, `segments looked into: ${a.lastRecall.segments}`);
      const rare = reads(dev, () => (got = a.recallByKeyword("fact", "萤火虫", 10).length));
      equal(got, 1);
      ok(rare.bytes < 65536 + 4096, `a rare word read ${rare.bytes} bytes`);
      ok(a.lastRecall.segments <= 3, `segments looked into: ${a.lastRecall.segments}`);
      ok(a.lastRecall.blocksRead <= 3, `blocks read: ${a.lastRecall.blocksRead}`);
      // the same after a reboot (catalog from flash)
      dev.reboot();
      const b = new Archive(root);
      b.check();
      const again = reads(dev, () => (got = b.recallByKeyword("fact", "萤火虫", 10).length));
      equal(got, 1);
      ok(again.bytes < 65536 + 4096, `after a reboot: ${again.bytes}`);
      // a common word reads as much as it needs, newest first
      const common = b.recallByKeyword("fact", "萤火虫", 10).concat(b.recallByKeyword("fact", "公园", 3));
      deepEqual(common.slice(1).map((x) => x.content), [longFact(n - 1), longFact(n - 2), longFact(n - 3)]);
    },
  },
  {
    name: "archive v2 sidecars: appends of one record at a time (each going on from the open block the last one kept) index what a full pass over the segment's bytes indexes, also after a byte of the tail changed at rest",
    run() {
      // what the sidecar must hold: the closed blocks of one pass over the segment's lines
      const expected = (seg: Uint8Array): Uint8Array => {
        const b = new BlockBuilder("fact", 0, 16);
        for (let s = 0; ; ) {
          const i = seg.indexOf(10, s);
          if (i < 0) break;
          b.add(seg, s, i, i + 1 - s);
          s = i + 1;
        }
        return b.flush(false);
      };
      const check = (dev: SimDevice, what: string) => {
        const seqs = segments(dev, "f");
        const seq = seqs[seqs.length - 1];
        const side = dev.spiffs.content(segName("f", seq, "six")).subarray(32);
        const want = expected(dev.spiffs.content(segName("f", seq)));
        ok(want.length >= 3 * 288, `${what}: blocks closed: ${want.length / 288}`);
        equal(side.length, want.length, `${what}: records`);
        let same = true;
        for (let i = 0; i < want.length && same; i++) same = side[i] === want[i];
        ok(same, `${what}: the sidecar's records are those of a full pass`);
      };
      const t0 = sec(fromLocal(2024, 1, 1, 8, 0));
      const fact = (k: number): Fact => ({ timestamp: t0 + k * 600, content: `第${k}条：主人今天说了一件关于学校和朋友的小事，${k % 3 ? "还有公园" : "Alice 和 Bob"}` });
      const dev = fresh();
      const a = new Archive(root);
      for (let k = 0; k < 200; k++) a.append("fact", [fact(k)]);
      check(dev, "one at a time");
      // a byte of the tail (after the last closed block) changes at rest; the appends go on
      const seqs = segments(dev, "f");
      const name = segName("f", seqs[seqs.length - 1]);
      const seg = dev.spiffs.content(name).slice();
      const side = sidecar(dev, "f", seqs[seqs.length - 1]);
      const last = side.records[side.records.length - 1];
      const at = last.offset + last.length + 12;
      ok(at < seg.length - 20, "a tail to change");
      seg[at] ^= 0x04;
      dev.spiffs.load(name, seg);
      for (let k = 200; k < 400; k++) a.append("fact", [fact(k)]);
      check(dev, "after a changed tail");
      equal(segments(dev, "f")[segments(dev, "f").length - 1], seqs[seqs.length - 1], "the same open segment");
    },
  },
];

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
import { setWriteFormat, VERSION } from "../../src/archive/codec";
import type { Fact, Moment, Event } from "../../src/memory/types";
import { newEvent } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { Life, START, RARE } from "../../tools/bench/data";
import { cutUpkeep, appendFacts, factContents, type Image } from "./archive-cuts";
import { deviceMs, STEP_BUDGET_MS } from "./archive-steps.scn";
import { onFlash } from "./archive-forget.scn";
import { PAD, linesOf, frameOfLine, crcHolds } from "./archive.scn";
import { lineTimes } from "./archive-segments.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = Date.UTC(2026, 1, 5, 5, 0);
const SECRET = "秘密日记";
const WORD = "萤火虫"; // in one fact of the first (sealed, rewritten) segment
const budget = (): Budget => ({ left: 32 * 1024, cut: false });

// Facts, five an append, an hour apart from 2024-01-01 08:00: the first
// segment sealed, the second open at 1100; January's are 0 to JANUARY_LAST.
const JANUARY_LAST = 31 * 24 - 8 - 1;
const fill = (a: Archive, n: number): string[] =>
  appendFacts(a, n, (k) => (k === 77 ? `第${k}条：${SECRET}` : k === 300 ? `第${k}条：主人说起了${WORD}` : `第${k}条：主人今天说了学校的小事${PAD.slice(0, 12)}`));
const contents = factContents;

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
    // (one sweep for what three took: this one up to the swap, archive-forget's
    // over the whole upkeep with the flash checked, archive-scrub-retire's
    // reading by block, each cutting every write)
    name: "archive rewrite: a power cut at any write of a forget's rewrite and the upkeep after it (segment, its new sidecar, the swap, the seal and parity) loses or repeats nothing, never brings it back, leaves the segment indexed and read by block, and ends with its bytes gone from the flash",
    run() {
      const { base, kept } = forgetting();
      const img = image(base);
      const dry = new SimDevice({ now: T0 }).install();
      for (const f of img) dry.spiffs.load(f.name, f.bytes.slice());
      const ad = new Archive(root);
      ad.check();
      const w0 = dry.flash.writes;
      let swap = 0;
      for (let n = 0; n < 200; n++) {
        const r = ad.step();
        if (!r) break;
        if (!swap && /rewritten$/.test(r.did)) swap = dry.flash.writes - w0;
      }
      const total = dry.flash.writes - w0;
      ok(swap > 20 && total > swap, `the rewrite takes ${swap} writes, the upkeep after it ${total - swap}`);
      ok(!onFlash(dry, SECRET), "the uncut run removes it");
      // by block: January's facts (most of the rewritten segment), a time range
      // read through the sidecar's blocks; a stale sidecar loses the lines
      // across its blocks' boundaries
      const january = kept.filter((c) => Number(/^第(\d+)条/.exec(c)![1]) <= JANUARY_LAST).sort();
      const byBlock = (a: Archive, what: string) => {
        const got = a
          .recallByTimeRange("fact", "2024-01-01", "2024-01-31", 1000)
          .map((x) => x.content)
          .sort();
        if (got.length === january.length && got.every((c, i) => c === january[i])) return;
        const have = new Set(got);
        ok(false, `${what}: January's facts by block: ${got.length} of ${january.length}, missing ${january.filter((c) => !have.has(c)).slice(0, 3).join(", ")}`);
      };
      byBlock(ad, "the uncut run");
      let cuts = 0;
      cutUpkeep({ image: img, now: T0, total }, (a, dev, what, settled) => {
        if (!settled) cuts++;
        equal(a.recallByKeyword("fact", SECRET).length, 0, `${what}: the forgotten fact stays hidden`);
        deepEqual(contents(a), kept, `${what}: every other fact exactly once`);
        byBlock(a, what);
        const w = recallWord(a);
        // after the reboot the segment is the old one with its sidecar, or
        // the rewrite with its new one: never without an index
        equal(w.n, 1, `${what}: the word within the recall's budget (${w.read} bytes read)`);
        if (!settled) return;
        for (const x of ["scr", "scx", "old"]) ok(!dev.spiffs.exists(`/f000001.${x}`), `${what}: no .${x} left`);
        ok(dev.spiffs.exists("/f000001.six"), `${what}: indexed`);
        ok(!onFlash(dev, SECRET), `${what}: gone from the flash in the end`);
      });
      ok(cuts === total, `every write cut: ${cuts} of ${total}`);
    },
  },
];

// ---- format 2 to format 3 ------------------------------------------------------------

const STREAMS = ["fact", "moment", "event", "digest"] as const;

// Every record of every stream, as a reader gets it, sorted.
function everything(a: Archive): string[] {
  const out: string[] = [];
  for (const s of STREAMS) a.scan(s, (it) => void out.push(`${s} ${JSON.stringify(it)}`));
  return out.sort();
}

// The segments' header versions and their bytes.
function segFiles(dev: SimDevice): { name: string; v: number; bytes: number }[] {
  return dev.spiffs
    .list()
    .filter((e) => /^\/[fmed]\d{6}\.jsonl$/.test(e.name))
    .map((e) => {
      const b = dev.spiffs.content(e.name);
      return { name: e.name, v: JSON.parse(new TextDecoder().decode(b.subarray(0, b.indexOf(10)))).v as number, bytes: e.length };
    });
}

// Facts (long: about 115 a segment), a moment every tenth, an event every 50th, from `from`;
// facts 7 and 407 hold WORD.
function pet3(a: Archive, from: number, n: number): number {
  let records = 0;
  const t0 = Math.floor(fromLocal(2025, 1, 1, 8, 0) / 1000);
  for (let i = from; i < from + n; i += 5) {
    const b: Fact[] = [];
    for (let k = i; k < i + 5; k++) b.push({ timestamp: t0 + k * 3600, content: k === 7 || k === 407 ? `第${k}条：主人说起了${WORD}` : `第${k}条：主人今天说了学校的小事${PAD.repeat(2).slice(0, 150)}` });
    records += a.append("fact", b).appended;
    if (i % 10 === 0) records += a.append("moment", [{ timestamp: t0 + i * 3600 + 60, topic: "日常", content: `第${i}个时刻：和主人散步${PAD.slice(0, 40)}`, emotion: "happy", intensity: 3, importance: 3 } as Moment]).appended;
    if (i % 50 === 0) records += a.append("event", [newEvent({ date: "2025-06-01", content: `第${i}个纪念日`, eventType: "anniversary", emotion: "touched", intensity: 3, significance: 4, priority: 3, duration: 60 } as Partial<Event> & { date: string; content: string })]).appended;
  }
  return records;
}

const encodeLen = (ls: string[]) => ls.reduce((n, l) => n + new TextEncoder().encode(l).length + 1, 0);

// The segments taking appends (never written again while they do).
function openSegments(a: Archive): Set<string> {
  const st = (a as unknown as { streams: Record<string, { open?: { seq: number } }> }).streams;
  const out = new Set<string>();
  for (const s of STREAMS) {
    const o = st[s].open;
    if (o) out.add(`/${s[0]}${String(o.seq).padStart(6, "0")}.jsonl`);
  }
  return out;
}

// A pet of `days` days of the bench's life (tools/bench/data.ts) made in format 2
// (or `fmt`) on a small partition, so that moments retire into digests too.
function format2Pet(days: number, storageBytes: number, fmt: 2 | 3 = 2): SimDevice {
  const dev = new SimDevice({ now: START, storageBytes }).install();
  setWriteFormat(fmt);
  try {
    const a = new Archive(root);
    a.check();
    const pend: { fact: Fact[]; moment: Moment[] } = { fact: [], moment: [] };
    for (const day of new Life().days(days)) {
      dev.clock.now = day.start + 22 * 3600000;
      for (const f of day.facts) if (pend.fact.push(f) === 5) a.append("fact", pend.fact.splice(0));
      for (const m of day.moments) if (pend.moment.push(m) === 3) a.append("moment", pend.moment.splice(0));
      if (day.events.length) a.append("event", day.events);
      a.settle();
    }
  } finally {
    setWriteFormat(VERSION as 4);
  }
  return dev;
}

scenarios.push(
  {
    name: "archive recode: a format-2 pet's sealed segments are written again as format 3 (now 4) by idle steps (oldest first, each within 300 ms), every record kept, bytes saved, indexed at every step, and it ends",
    run() {
      const PART = 1024 * 1024;
      const pet = format2Pet(240, PART);
      const img = image(pet);
      const segs0 = segFiles(pet);
      ok(segs0.every((x) => x.v === 2), "a format-2 pet");
      ok(segs0.some((x) => /^\/d/.test(x.name)), `with digests: ${segs0.map((x) => x.name).join(" ")}`);
      const dev = new SimDevice({ now: pet.clock.now, storageBytes: PART }).install();
      for (const f of img) dev.spiffs.load(f.name, f.bytes.slice());
      let a = new Archive(root);
      a.check();
      const all = everything(a);
      const cats = () => ["f", "m", "e", "d"].map((c) => [`/${c}.cat`, `/${c}.sum`].map((n) => (dev.spiffs.exists(n) ? dev.spiffs.length(n) : 0)).join("/")).join(" ");
      const cats0 = cats();
      const rare = a.recall("fact", { keyword: RARE, limit: 5, budget: budget() }).length;
      equal(rare, 1, "the rare word found before");
      const order: string[] = [];
      let steps = 0;
      for (; steps < 5000; steps++) {
        dev.flash.resetTraffic();
        const r = a.step();
        if (!r) break;
        const t = dev.flash.partition("storage");
        ok(!/failed/.test(r.did), r.did);
        ok(deviceMs(t) <= STEP_BUDGET_MS, `step "${r.did}": ${Math.round(deviceMs(t))} ms at the device's speed`);
        ok(!/^index/.test(r.did), `no segment left to be indexed again: ${r.did}`);
        const m = /^recode: (\w+) (\d+) rewritten$/.exec(r.did);
        if (m) {
          order.push(`${m[1]} ${m[2]}`);
          // right after each swap: the rare word (the oldest fact segment) within a recall's budget
          const q = budget();
          equal(a.recall("fact", { keyword: RARE, limit: 5, budget: q }).length, 1, `the rare word after "${r.did}" (${32 * 1024 - q.left} bytes read)`);
        }
      }
      ok(steps < 5000, `the upkeep ends (${steps} steps)`);
      const segs1 = segFiles(dev);
      const open = openSegments(a);
      // written again in the format this code writes (4: compact text and the shorter frame)
      for (const x of segs1) if (!open.has(x.name)) equal(x.v, VERSION, `${x.name} is format ${VERSION}`);
      const recoded = segs0.filter((x) => !open.has(x.name));
      equal(order.length, recoded.length, `every sealed format-2 segment written again once: ${order.join(", ")}`);
      for (const s of STREAMS) {
        const mine = order.filter((x) => x.indexOf(s) === 0).map((x) => Number(x.split(" ")[1]));
        deepEqual(mine, mine.slice().sort((p, q) => p - q), `${s}: oldest first`);
      }
      const sum = (l: { bytes: number }[]) => l.reduce((p, x) => p + x.bytes, 0);
      const before = sum(segs0), after = sum(segs1);
      ok(after < before * 0.8, `bytes saved: ${before} -> ${after}`);
      // its facts packed as format 4 writes them (FORMAT.md §3.17, §3.19): several a line
      let lines = 0, facts = 0;
      for (const x of segs1)
        if (/^\/f/.test(x.name) && !open.has(x.name))
          for (const l of linesOf(dev, x.name).slice(1)) {
            lines++;
            facts += lineTimes(JSON.parse(l)).length;
          }
      ok(lines > 0 && facts >= 3 * lines, `the recoded facts share lines: ${facts} facts in ${lines} lines`);
      deepEqual(everything(a), all, "every record, as it was");
      equal(cats(), cats0, "each recoded segment kept its catalog slot (entry written again in place, no new summary)");
      dev.reboot();
      a = new Archive(root);
      a.check();
      deepEqual(everything(a), all, "every record after a reboot");
      // it ends: after a boot, the headers are looked at again (8 a step), nothing is written again
      let more = 0;
      for (let r = a.step(); r; r = a.step()) {
        more++;
        ok(/^recode: looked at \d+$/.test(r.did), `only headers looked at after the recode: ${r.did}`);
      }
      ok(more <= Math.ceil(segs1.length / 8), `${more} steps after a reboot`);
    },
  },
  {
    name: "archive recode: a power cut at any write of a format-2 segment's recode (its bytes, its sidecar, the swap, the seal and parity after) loses nothing and leaves it format 2 or 3 (now 4), indexed",
    run() {
      const pet = format2Pet(50, 3 * 1024 * 1024);
      const img = image(pet);
      const now = pet.clock.now;
      const dry = new SimDevice({ now }).install();
      for (const f of img) dry.spiffs.load(f.name, f.bytes.slice());
      const ad = new Archive(root);
      ad.check();
      const all = everything(ad);
      const w0 = dry.flash.writes;
      // the first recode (the oldest fact segment) and everything the steps do until the next one starts
      let started = 0;
      for (let n = 0; n < 500; n++) {
        const w = dry.flash.writes;
        const r = ad.step();
        if (!r) break;
        if (/ format 2$/.test(r.did) && ++started === 2) {
          dry.flash.writes = w; // not counted: the second recode's start
          break;
        }
      }
      const total = dry.flash.writes - w0;
      ok(total > 20, `the first recode takes ${total} writes`);
      cutUpkeep({ image: img, now, total }, (a, dev, what, settled) => {
        deepEqual(everything(a), all, `${what}: every record once`);
        const w = a.recall("fact", { keyword: RARE, limit: 5, budget: budget() });
        equal(w.length, 1, `${what}: the rare word within the recall's budget`);
        const f1 = segFiles(dev).find((x) => x.name === "/f000001.jsonl");
        ok(!!f1 && (f1.v === 2 || f1.v === VERSION), `${what}: the first segment, format ${f1?.v}`);
        ok(dev.spiffs.exists("/f000001.six"), `${what}: indexed`);
        if (!settled) return;
        equal(f1!.v, VERSION, `${what}: format ${VERSION} in the end`);
        for (const x of ["scr", "scx", "old"]) ok(!dev.spiffs.exists(`/f000001.${x}`), `${what}: no .${x} left`);
      });
    },
  },
  {
    name: "archive format 4: a format-3 pet continued by format-4 code: its open segments take format-4 lines, new segments are format 4, format-3 segments are never written again, every record read in both frames, a flipped bit repaired in either",
    run() {
      // a format-3 pet: long facts (about 3 sealed segments), moments, events
      const pet = new SimDevice({ now: T0 }).install();
      setWriteFormat(3);
      try {
        const a3 = new Archive(root);
        a3.check();
        pet3(a3, 0, 260);
        a3.settle();
      } finally {
        setWriteFormat(VERSION as 4);
      }
      const img = image(pet);
      const segs0 = segFiles(pet);
      ok(segs0.every((x) => x.v === 3), `a format-3 pet: ${segs0.map((x) => x.name + " v" + x.v).join(" ")}`);
      const dev = new SimDevice({ now: pet.clock.now }).install();
      for (const f of img) dev.spiffs.load(f.name, f.bytes.slice());
      const frames = (name: string) => linesOf(dev, name).map((l) => frameOfLine(l)?.format ?? 0);
      for (const x of segs0) ok(frames(x.name).every((f) => f === 3), `${x.name}: every line in format 3's frame`);
      let a = new Archive(root);
      a.check();
      const open0 = openSegments(a);
      const sealed0 = segs0.filter((x) => !open0.has(x.name)).map((x) => ({ name: x.name, bytes: dev.spiffs.content(x.name).slice() }));
      ok(sealed0.length >= 2, "sealed format-3 segments");
      const old = everything(a);
      equal(a.recall("fact", { keyword: WORD, limit: 5, budget: budget() }).length, 1, "the word (format 3) found");
      // the life goes on with format-4 code
      const added = pet3(a, 260, 260);
      a.settle();
      const segs1 = segFiles(dev);
      // the format-3 segments open at the update: their old lines as they were, then format-4 lines
      let mixed = 0;
      for (const name of open0) {
        if (!dev.spiffs.exists(name)) continue; // retired meanwhile
        const fs = frames(name);
        const first4 = fs.indexOf(4);
        if (first4 > 0) mixed++;
        ok(first4 < 0 || fs.slice(first4).every((f) => f === 4), `${name}: format-3 lines, then format-4 ones: ${fs.join("")}`);
        ok(fs.slice(0, first4 < 0 ? fs.length : first4).every((f) => f === 3), `${name}: its old lines kept`);
      }
      ok(mixed >= 1, "a format-3 segment took format-4 lines");
      const new4 = segs1.filter((x) => !segs0.some((y) => y.name === x.name));
      ok(new4.length >= 2 && new4.every((x) => x.v === 4), `new segments are format 4: ${new4.map((x) => x.name + " v" + x.v).join(" ")}`);
      for (const x of new4) ok(frames(x.name).every((f) => f === 4), `${x.name}: every line in format 4's frame`);
      for (const x of new4) for (const l of linesOf(dev, x.name)) ok(crcHolds(l, 4), `${x.name}: ${l}`);
      // sealed format-3 segments still there are byte for byte what they were (not written again)
      let kept = 0;
      for (const x of sealed0)
        if (dev.spiffs.exists(x.name)) {
          kept++;
          const b = dev.spiffs.content(x.name);
          ok(b.length === x.bytes.length && b.every((v, i) => v === x.bytes[i]), `${x.name}: not written again`);
        }
      ok(kept >= 1, `format-3 segments kept: ${kept}`);
      const now = everything(a);
      for (const r of old) ok(now.indexOf(r) >= 0, `kept: ${r.slice(0, 80)}`);
      equal(now.length, old.length + added, `and the ${added} records appended in format 4`);
      deepEqual(a.recallByKeyword("fact", WORD, 10).map((x) => x.content).sort(), [`第407条：主人说起了${WORD}`, `第7条：主人说起了${WORD}`], "the word found in both formats");
      // one flipped bit at rest in a format-4 line and in a format-3 line of sealed segments: repaired
      const f3 = sealed0.find((x) => x.name.startsWith("/f") && dev.spiffs.exists(x.name))?.name as string;
      const f4 = new4.filter((x) => x.name.startsWith("/f"))[0].name;
      for (const name of [f3, f4]) {
        const b = dev.spiffs.content(name);
        const ls = linesOf(dev, name);
        const at = encodeLen(ls.slice(0, 5)) + 9; // a byte in the 6th line's time
        b[at] ^= 0x01;
        dev.spiffs.load(name, b);
      }
      dev.reboot();
      a = new Archive(root);
      a.check();
      deepEqual(everything(a), now, "every record after a flip in each frame and a reboot");
    },
  },
);

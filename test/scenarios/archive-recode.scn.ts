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
import type { Fact, Moment } from "../../src/memory/types";
import { Life, START, RARE } from "../../tools/bench/data";
import { cutUpkeep, appendFacts, factContents, type Image } from "./archive-cuts";
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
// on a small partition, so that moments retire into (format-2) digests too.
function format2Pet(days: number, storageBytes: number): SimDevice {
  const dev = new SimDevice({ now: START, storageBytes }).install();
  setWriteFormat(2);
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
    setWriteFormat(VERSION as 3);
  }
  return dev;
}

scenarios.push(
  {
    name: "archive recode: a format-2 pet's sealed segments are written again as format 3 by idle steps (oldest first, each within 300 ms), every record kept, bytes saved, indexed at every step, and it ends",
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
      for (const x of segs1) if (!open.has(x.name)) equal(x.v, 3, `${x.name} is format 3`);
      const recoded = segs0.filter((x) => !open.has(x.name));
      equal(order.length, recoded.length, `every sealed format-2 segment written again once: ${order.join(", ")}`);
      for (const s of STREAMS) {
        const mine = order.filter((x) => x.indexOf(s) === 0).map((x) => Number(x.split(" ")[1]));
        deepEqual(mine, mine.slice().sort((p, q) => p - q), `${s}: oldest first`);
      }
      const sum = (l: { bytes: number }[]) => l.reduce((p, x) => p + x.bytes, 0);
      const before = sum(segs0), after = sum(segs1);
      ok(after < before * 0.8, `bytes saved: ${before} -> ${after}`);
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
    name: "archive recode: a power cut at any write of a format-2 segment's recode (its bytes, its sidecar, the swap, the seal and parity after) loses nothing and leaves it format 2 or 3, indexed",
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
        ok(!!f1 && (f1.v === 2 || f1.v === 3), `${what}: the first segment, format ${f1?.v}`);
        ok(dev.spiffs.exists("/f000001.six"), `${what}: indexed`);
        if (!settled) return;
        equal(f1!.v, 3, `${what}: format 3 in the end`);
        for (const x of ["scr", "scx", "old"]) ok(!dev.spiffs.exists(`/f000001.${x}`), `${what}: no .${x} left`);
      });
    },
  },
);

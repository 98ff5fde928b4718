// A sealed segment's 2 KB summary is kept once (docs/design/summaries.md):
// in `.sum` until its group of 8 slots is bit-sliced in `.bsc` and checked
// against the entries' summary CRCs, then only there (`.sum` keeps the slots
// from its base on). A damaged `.bsc` group is not used (queries and recall
// read its segments' sidecars) and is built again in place, below the base
// from its segments' lines. A device from before (a full `.sum`) gets there by
// steps; a power cut at any write of them loses nothing.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, type Budget } from "../../src/archive/archive";
import { Service } from "../../src/app/service";
import type { Fact } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { crc32 } from "../../src/nvs/crc32";
import { foldString, probeOf, probePositions } from "../../src/archive/fold";
import { SUMMARY_MASK } from "../../src/archive/catalog";
import { cutUpkeep, type Image } from "./archive-cuts";
import { deviceMs, STEP_BUDGET_MS } from "./archive-steps.scn";
import { both } from "./query-scan.scn";
import { PAD } from "./archive.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = fromLocal(2026, 2, 5, 13, 0);
const budget = (): Budget => ({ left: 32 * 1024, cut: false });
// one in a fact of each of the first 9 segments (lines of about 450 bytes: 125 a segment)
const RARE = ["萤火虫", "独木舟", "蒲公英", "向日葵", "千岛湖", "长颈鹿", "火烈鸟", "熊猫馆", "小海豚"];
const WORDS = ["篮球", "游泳", "画画", "唱歌"];
const SOME = [RARE[0], RARE[3], RARE[7], RARE[8]]; // the first group's first and last segments, and after it
const N = 1150; // 9 sealed segments and an open one: one group of 8 sliced, one slot after it

const u16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u32 = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

function pet(): { dev: SimDevice; a: Archive } {
  const dev = new SimDevice({ now: T0 }).install();
  const a = new Archive(root);
  a.check();
  const t0 = Math.floor(fromLocal(2024, 1, 1, 8, 0) / 1000);
  for (let i = 0; i < N; i += 25) {
    const batch: Fact[] = [];
    for (let k = i; k < i + 25; k++) {
      const r = (k - 60) % 125 === 0 ? RARE[(k - 60) / 125] : undefined;
      batch.push({ timestamp: t0 + k * 3600, content: `第${k}条：主人今天${r ?? WORDS[k % WORDS.length]}${PAD}${PAD.slice(0, 50)}` });
    }
    a.append("fact", batch);
  }
  return { dev, a };
}

const image = (dev: SimDevice): Image[] => dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name) }));

// The pet with its upkeep done (one group sliced, checked, out of .sum), made
// once for every scenario here (the XS lane is slow to append), booted anew.
let settled: Image[] | undefined;
let settledSteps: string[] = [];
function settledPet(): { dev: SimDevice; a: Archive } {
  if (!settled) {
    const { dev, a } = pet();
    settledSteps = [];
    for (let r = a.step(), n = 0; r && n < 500; r = a.step(), n++) settledSteps.push(r.did);
    settled = image(dev);
  }
  const dev = new SimDevice({ now: T0 }).install();
  for (const f of settled) dev.spiffs.load(f.name, f.bytes.slice());
  const a = new Archive(root);
  a.check();
  return { dev, a };
}

const ALL = 1000; // every record of every group (.bsc lost)
// The records of a .bsc group (128 bit positions each) that a word's bits are in.
const recordsOf = (w: string) => Array.from(probePositions(probeOf([foldString(w)], SUMMARY_MASK))).map((p) => p >> 7);

// Every rare word found by recall within its budget and by a query (the full
// scan's answer). A word whose bits are in record `damaged` of a .bsc group
// that failed its check is looked up in that group's 8 sidecars (about 32 KB):
// recall finds it or says its budget ran out (partial), never misses it silently.
function findsAll(a: Archive, dev: SimDevice, what: string, query = true, damaged = -1, words = RARE): void {
  for (const w of words) {
    const q = budget();
    const got = a.recall("fact", { keyword: w, limit: 5, budget: q });
    const n = got.filter((x) => x.content.indexOf(w) >= 0).length;
    if ((damaged === ALL || recordsOf(w).indexOf(damaged) >= 0) && q.cut) continue;
    equal(n, 1, `${what}: recall finds ${w} (${32768 - q.left} bytes read)`);
  }
  if (!query) return;
  const svc = new Service({ sink: { remind() {} }, archive: a });
  for (const w of [RARE[0], RARE[8]]) equal(both(svc, a, undefined, dev, { from: "fact", where: `content CONTAINS '${w}'`, limit: 10 }).got.count, 1, `${what}: a query finds ${w}`);
}

// `.sum` as it was before (slots from 0): every live slot's summary, made again from its segment.
function fullSum(a: Archive, dev: SimDevice): Uint8Array {
  const cat = a.streams.fact.cat;
  const out = new Uint8Array(16 + 2048 * cat.slots);
  out.set(dev.spiffs.content("/f.sum").subarray(0, 16));
  out[10] = out[11] = 0;
  const h = crc32(out, 0, 12);
  for (let i = 0; i < 4; i++) out[12 + i] = (h >>> (8 * i)) & 0xff;
  for (const e of cat.entries.values()) {
    const s = new Uint8Array(2048);
    ok(a.streams.fact.summarize(e.seq, s, e.set), "summarized");
    equal(crc32(s, 0, 2048), e.sumCrc, `slot ${e.slot}: the same summary`);
    out.set(s, 16 + 2048 * e.slot);
  }
  return out;
}

export const scenarios: Scenario[] = [
  {
    name: "archive summaries: a checked group's summaries leave .sum (its base in the header); recall and queries find every word, and boot reads no .sum",
    run() {
      const { dev, a } = settledPet();
      const seen = settledSteps;
      const cat = a.streams.fact.cat;
      ok(cat.sliced === 1 && cat.slots >= 9, `one group sliced of ${cat.slots} slots`);
      ok(seen.indexOf("slice fact group 0 checked") >= 0 && seen.indexOf("trim fact") >= 0, `checked, then trimmed: ${seen.filter((d) => /slice|trim/.test(d)).join(", ")}`);
      const sum = dev.spiffs.content("/f.sum");
      equal(u32(sum, 0), 0x32554d50, "PMU2");
      equal(u16(sum, 10), 8, "base 8 in the header");
      equal(u32(sum, 12), crc32(sum, 0, 12), "the header's CRC");
      equal(sum.length, 16 + 2048 * (cat.slots - 8), "only the slots from 8 on");
      for (const e of cat.entries.values()) if (e.slot >= 8) equal(crc32(sum, 16 + 2048 * (e.slot - 8), 16 + 2048 * (e.slot - 7)), e.sumCrc, `slot ${e.slot} at its place`);
      ok(!dev.spiffs.exists("/f.sun") && !dev.spiffs.exists("/f.bsr"), "no temporary file left");
      findsAll(a, dev, "trimmed");
      // a boot reads no more than before: not .sum
      dev.reboot();
      let sumReads = 0;
      const sp = dev.spiffs;
      const orig = sp.read;
      sp.read = function (name: string, offset: number, count: number) {
        if (name === "/f.sum") sumReads++;
        return orig.call(sp, name, offset, count);
      };
      const b = new Archive(root);
      try {
        b.check();
      } finally {
        sp.read = orig;
      }
      equal(sumReads, 0, "boot reads no .sum");
      findsAll(b, dev, "after a reboot");
      // a flipped bit in .sum's header (its base): the base from its length
      dev.reboot();
      const hdr = dev.spiffs.content("/f.sum");
      hdr[10] ^= 0x10;
      dev.spiffs.load("/f.sum", hdr);
      const h = new Archive(root);
      h.check();
      equal(h.streams.fact.cat.base(), 8, "the base from .sum's length");
      findsAll(h, dev, "a damaged .sum header", false, -1, SOME);
      const steps: string[] = [];
      for (let r = h.step(), n = 0; r && n < 50; r = h.step(), n++) steps.push(r.did);
      ok(!steps.some((d) => /slice|trim|seal/.test(d)), `nothing to do for the catalog: ${steps.join(", ")}`);
    },
  },
  {
    name: "archive summaries: a damaged .bsc group is served by its segments' sidecars and built again from their lines by steps within 300 ms; a lost .bsc too",
    run() {
      const { dev, a } = settledPet();
      const cat = a.streams.fact.cat;
      equal(cat.base(), 8);
      const good = dev.spiffs.content("/f.bsc");
      // every byte of group 0 with slot 0's bit cleared (hides the first
      // segment) in one record, its CRC as it was: the record of one of the
      // first segment's word's bits, and of no other rare word's
      const rec = recordsOf(RARE[0]).find((r) => RARE.every((w, i) => i === 0 || recordsOf(w).indexOf(r) < 0)) as number;
      ok(rec !== undefined, "a record for the first word alone");
      const bad = good.slice();
      for (let p = 0; p < 128; p++) bad[16 + 132 * rec + p] &= 0xfe;
      dev.reboot();
      dev.spiffs.load("/f.bsc", bad);
      const b = new Archive(root);
      b.check();
      // queries check the records they read: the group goes to its sidecars at once
      const svc = new Service({ sink: { remind() {} }, archive: b });
      for (const w of [RARE[0], RARE[5]]) equal(both(svc, b, undefined, dev, { from: "fact", where: `content CONTAINS '${w}'`, limit: 10 }).got.count, 1, `a query finds ${w}`);
      // the hourly check finds it, recall stops using it, steps build it again
      const seen: string[] = [];
      let worst = 0;
      for (let n = 0; n < 200; n++) {
        dev.flash.resetTraffic();
        const r = b.step();
        if (!r) break;
        seen.push(r.did);
        worst = Math.max(worst, deviceMs(dev.flash.partition("storage")));
        if (r.did === "slice fact group 0 failed its check: built again") findsAll(b, dev, "group 0 failed its check", false, rec);
        if (/^slice fact$/.test(r.did)) findsAll(b, dev, `while it is built again (step ${n})`, false, rec, SOME);
      }
      ok(seen.indexOf("slice fact group 0 failed its check: built again") >= 0, `the check failed: ${seen.join(", ")}`);
      equal(seen.filter((d) => d === "slice fact").length, 8 + 4 + 1, "8 segments summarized, 4 steps of 4 KB, the CRC");
      ok(worst <= STEP_BUDGET_MS, `the longest step: ${worst.toFixed(0)} ms at the device's flash speed`);
      deepEqual(dev.spiffs.content("/f.bsc"), good, "built again byte for byte");
      ok(!dev.spiffs.exists("/f.bsr"), "its scratch is gone");
      findsAll(b, dev, "built again");
      // the whole file lost: built again from the segments (below the base) and .sum
      dev.reboot();
      dev.spiffs.remove("/f.bsc");
      const c = new Archive(root);
      c.check();
      findsAll(c, dev, ".bsc lost", true, ALL);
      c.settle();
      deepEqual(dev.spiffs.content("/f.bsc"), good, "built again whole");
      equal(c.streams.fact.cat.base(), 8);
      findsAll(c, dev, ".bsc built again", false, -1, SOME);
    },
  },
  {
    name: "archive summaries: a device from before (a full .sum) gets there by steps, every word found at every step and after a power cut at any of its writes",
    run() {
      const { dev, a } = settledPet();
      const full = fullSum(a, dev);
      dev.reboot();
      dev.spiffs.load("/f.sum", full);
      const before = image(dev);
      const b = new Archive(root);
      b.check();
      equal(b.streams.fact.cat.base(), 0, "a full .sum: base 0");
      let writes = dev.flash.writes;
      const w0 = writes;
      for (let n = 0; n < 50; n++) {
        const r = b.step();
        if (!r) break;
        findsAll(b, dev, `migration step ${n}: ${r.did}`, false, -1, SOME);
        writes = dev.flash.writes;
      }
      equal(b.streams.fact.cat.base(), 8, "migrated");
      equal(dev.spiffs.length("/f.sum"), 16 + 2048 * (b.streams.fact.cat.slots - 8));
      const total = writes - w0;
      ok(total >= 3, `the migration takes ${total} writes`);
      cutUpkeep({ image: before, now: dev.clock.now, total }, (x, d, what, settled) => {
        findsAll(x, d, what, false, -1, SOME);
        if (!settled) return;
        equal(x.streams.fact.cat.base(), 8, `${what}: migrated`);
        ok(!d.spiffs.exists("/f.sun"), `${what}: no .sun left`);
        equal(d.spiffs.length("/f.sum"), 16 + 2048 * (x.streams.fact.cat.slots - 8), `${what}: .sum trimmed`);
      });
      // the rename of .sun to .sum torn (both names on one object): boot settles .sum, then drops .sun
      const t = new SimDevice({ now: dev.clock.now }).install();
      for (const f of before) t.spiffs.load(f.name, f.bytes.slice());
      let y = new Archive(root);
      y.check();
      t.inject("spiffs_rename_tear");
      ok(SimDevice.survive(() => y.settle()), "cut inside the rename");
      ok(t.spiffs.exists("/f.sun") && t.spiffs.exists("/f.sum"), "both names listed");
      t.reboot();
      y = new Archive(root);
      y.check();
      ok(!t.spiffs.exists("/f.sun"), ".sun dropped at boot");
      equal(y.streams.fact.cat.base(), 8, "the trimmed .sum kept");
      findsAll(y, t, "after a torn rename", false, -1, SOME);
      y.settle();
      const sum = t.spiffs.content("/f.sum");
      equal(sum.length, 16 + 2048 * (y.streams.fact.cat.slots - 8), ".sum reads whole");
    },
  },
  {
    name: "archive summaries: a power cut at any write of a group built again from its segments loses nothing and ends with the group whole",
    run() {
      const { dev, a } = settledPet();
      const good = dev.spiffs.content("/f.bsc");
      const bad = good.slice();
      bad[16 + 132 * 5 + 7] ^= 0x10;
      dev.reboot();
      dev.spiffs.load("/f.bsc", bad);
      const img = image(dev);
      const b = new Archive(root);
      b.check();
      const w0 = dev.flash.writes;
      b.settle();
      const total = dev.flash.writes - w0;
      deepEqual(dev.spiffs.content("/f.bsc"), good, "built again");
      ok(total >= 14, `the rebuild takes ${total} writes`);
      cutUpkeep({ image: img, now: dev.clock.now, total, at: (n) => n === 1 || n === 8 || n === 10 || n === total - 2 || n === total }, (x, d, what, settled) => {
        findsAll(x, d, what, false, -1, SOME);
        if (!settled) return;
        // the next hourly check finds what a cut left half built
        x.step(dev.clock.now + 2 * 3600000);
        x.settle();
        deepEqual(d.spiffs.content("/f.bsc"), good, `${what}: whole again`);
        ok(!d.spiffs.exists("/f.bsr"), `${what}: no scratch left`);
      });
    },
  },
];

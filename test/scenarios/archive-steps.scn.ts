// Idle steps within the device's step budget (issue 29 item 5, docs/design/steps.md):
// every piece of a retire reads and writes at most the bytes that 300 ms of
// the device's slowest flash speed allows (counted by the simulated flash,
// not timed), and the pieces together append exactly the digest lines a
// one-shot digest of the retired segments gives. A power cut at any write of
// a retire loses nothing: after the reboot the retire starts again and every
// month is held verbatim or digested, once per answer.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, RETIRE_PIECE_BYTES } from "../../src/archive/archive";
import { parseRecord, lineT, encodeDigest } from "../../src/archive/codec";
import { lineKind, KIND_RECORD } from "../../src/archive/segment";
import { SEGMENT_BYTES } from "../../src/archive/stream";
import { CHUNK } from "../../src/archive/file";
import { DigestBuilder } from "../../src/archive/digest";
import { newEvent, type Moment, type Event } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { writeV1 } from "./archive-migrate.scn";
import { cutUpkeep } from "./archive-cuts";
import { ok, equal } from "./assert";
import { PAD } from "./archive.scn";
import type { Scenario } from "./types";

const root = config.file.root;

// The device's flash speed, the slow end (PLATFORM.md §1; tools/bench/run.ts DEVICE)
const READ_BYTES_PER_MS = 450, WRITE_BYTES_PER_MS = 35, MS_PER_READ_CALL = 0.1;
export const STEP_BUDGET_MS = 300;
// The byte bounds of one retire piece, derived from the budget. A piece either
// reads one segment and writes nothing (at most the segment and the chunks its
// reads cross: 65,536 B, 146 ms), or writes: digest lines, written twice (the
// digest stream's open segment and its twin or parity), with the sidecar's
// block records, a new segment's header and SPIFFS's page headers (at most
// twice the piece's bytes and 2 KB: 6,144 B, 176 ms), reading the tail and at
// most one block and the start of another (12,288 B, 27 ms); or the pair's
// deletion (page headers only). 40 read calls add 4 ms. The worst piece within
// the bounds: 207 ms, a third under the budget.
export const PIECE_READ_MAX = SEGMENT_BYTES + 2 * CHUNK;
export const PIECE_WRITE_MAX = 2 * RETIRE_PIECE_BYTES + 2048;
export const PIECE_WRITER_READ_MAX = 3 * CHUNK;
export const PIECE_READ_CALLS_MAX = 40;

interface Traffic {
  bytesRead: number;
  readCalls: number;
  bytesWritten: number;
}
export function deviceMs(t: Traffic): number {
  return t.bytesRead / READ_BYTES_PER_MS + t.bytesWritten / WRITE_BYTES_PER_MS + t.readCalls * MS_PER_READ_CALL;
}

// PAD: characters compact text leaves as they are, so that lines are as long as in format 2
const FILL = "和主人一起去公园散步，看见了很多小狗和小猫，还在湖边喂了鸭子，回家的路上唱了歌" + PAD.slice(0, 27); // 27 (26 in format 3, whose CRC took 2 bytes more): segments fill about as they did, and a group of 8 moment slots completes (a "slice moment" step) within the 80 months

// A month of moments (`n`, one every third day from the 1st): many months fit in
// one segment, so its digest lines take several pieces.
function monthOf(m: number, n: number): Moment[] {
  const y = 2000 + Math.floor(m / 12), mo = (m % 12) + 1;
  const out: Moment[] = [];
  for (let i = 0; i < n; i++)
    out.push({
      timestamp: Math.floor(fromLocal(y, mo, 1 + 3 * i, 20, i) / 1000),
      topic: `第${m}月的第${i}件事`,
      content: `第${m}月第${i}个时刻（${i % 2 ? "晴天" : "下雨"}）：${FILL}`,
      emotion: i % 3 ? "happy" : "neutral",
      intensity: 1 + (i % 5),
      importance: 1 + (i % 5),
    });
  return out;
}

// The record lines of a file, in order (header lines and torn pieces left out).
function recordLines(bytes: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  for (let s = 0, i = 0; i < bytes.length; i++)
    if (bytes[i] === 10) {
      if (i > s && lineKind(bytes, s, i + 1) === KIND_RECORD) out.push([s, i + 1]);
      s = i + 1;
    }
  return out;
}

// The digest stream's record lines, as text, oldest first.
function digestLines(dev: SimDevice): string[] {
  const names = dev.spiffs
    .list()
    .map((e) => e.name)
    .filter((n) => /^\/d\d+\.jsonl$/.test(n))
    .sort();
  const out: string[] = [];
  const dec = new TextDecoder();
  for (const n of names) {
    const b = dev.spiffs.content(n);
    for (const [s, e] of recordLines(b)) out.push(dec.decode(b.subarray(s, e)));
  }
  return out;
}

// What a one-shot digest of a moment segment's records gives (the order and
// the bytes retire must produce), from the file's bytes.
function oneShot(bytes: Uint8Array, seq: number): string[] {
  const b = new DigestBuilder();
  for (const [s, e] of recordLines(bytes)) {
    const it = parseRecord(bytes, s, e, "moment");
    if (!it) continue;
    b.add({ t: lineT(bytes, s, e), type: "moment", topic: it.topic, content: it.content, importance: it.importance, significance: it.significance, emotion_type: it.emotion_type, emotion_intensity: it.emotion_intensity });
  }
  const dec = new TextDecoder();
  return b.take().map((d) => dec.decode(encodeDigest({ from: d.from, to: d.to, month: d.month, count: d.moments + d.events, keywords: d.keywords, points: d.points.join("；"), source: seq, events: false }).line));
}

function momentSegs(dev: SimDevice): number[] {
  return dev.spiffs
    .list()
    .map((e) => /^\/m(\d+)\.jsonl$/.exec(e.name))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => Number(m[1]))
    .sort((x, y) => x - y);
}

type Retiring = { retiring?: unknown };
const under = (a: Archive) => (a as unknown as Retiring).retiring !== undefined;

// Fills a small partition month by month with the idle steps after each month
// until `retires` retires have ended; `onStep` sees every step and its traffic.
function fill(dev: SimDevice, a: Archive, retires: number, onStep: (did: string, t: Traffic, before: Map<string, Uint8Array>) => void): number {
  let done = 0, m = 0;
  for (; m < 600 && done < retires; m++) {
    a.append("moment", monthOf(m, 9));
    for (let n = 0; n < 500; n++) {
      const wasRetiring = under(a);
      const before = new Map<string, Uint8Array>();
      if (!wasRetiring) for (const s of momentSegs(dev)) before.set(`/m${String(s).padStart(6, "0")}.jsonl`, dev.spiffs.content(`/m${String(s).padStart(6, "0")}.jsonl`));
      dev.flash.resetTraffic();
      const r = a.step();
      if (!r) break;
      const t = dev.flash.partition("storage");
      onStep(r.did, { bytesRead: t.bytesRead, readCalls: t.readCalls, bytesWritten: t.bytesWritten }, before);
      if (r.did === "retire" && !under(a)) done++;
    }
  }
  return m;
}

// "seal moment 12" -> "seal moment", "scrub: fact 1 copied 8192" -> "scrub: fact"
function kindOf(did: string): string {
  return did
    .split(" ")
    .filter((w) => !/^[a-z]?\d+:?$/.test(w))
    .slice(0, 2)
    .join(" ");
}

export const scenarios: Scenario[] = [
  {
    name: "archive v2 steps within budget: every retire piece reads and writes at most its bound (300 ms at the device's flash speed) and the digests are a one-shot digest's",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0), storageBytes: 512 * 1024 }).install();
      const a = new Archive(root);
      a.check();
      let pieces = 0, reads = 0, appends = 0, drops = 0, worst = 0, worstDid = "";
      let digestBefore: string[] = [];
      let segsBefore = new Map<string, Uint8Array>();
      const months = fill(dev, a, 3, (did, t, before) => {
        const ms = deviceMs(t);
        if (ms > worst) {
          worst = ms;
          worstDid = did;
        }
        // every idle step, not only a retire's, fits the budget
        ok(ms <= STEP_BUDGET_MS, `step "${did}": ${Math.round(ms)} ms at the device's speed (${JSON.stringify(t)})`);
        if (did !== "retire") return;
        pieces++;
        if (before.size) {
          // the retire's first piece: what it will digest, as the files held it
          segsBefore = before;
          digestBefore = digestLines(dev); // nothing appended by the first piece
        }
        ok(t.bytesRead <= (t.bytesWritten ? PIECE_WRITER_READ_MAX : PIECE_READ_MAX), `a retire piece read ${t.bytesRead} bytes and wrote ${t.bytesWritten} (a reader at most ${PIECE_READ_MAX}, a writer ${PIECE_WRITER_READ_MAX})`);
        ok(t.bytesWritten <= PIECE_WRITE_MAX, `a retire piece wrote ${t.bytesWritten} bytes (at most ${PIECE_WRITE_MAX})`);
        ok(t.readCalls <= PIECE_READ_CALLS_MAX, `a retire piece made ${t.readCalls} read calls (at most ${PIECE_READ_CALLS_MAX})`);
        if (!under(a)) drops++;
        else if (t.bytesWritten === 0) reads++;
        else appends++;
        if (!under(a)) {
          // the retire ended: the segments that went, oldest first, give the lines appended
          const gone = [...segsBefore.keys()].filter((n) => !dev.spiffs.exists(n)).sort();
          ok(gone.length >= 1 && gone.length <= 2, `a retire takes one segment or a pair: ${gone.join(", ")}`);
          const want: string[] = [];
          for (const n of gone) for (const l of oneShot(segsBefore.get(n)!, Number(/\d+/.exec(n)![0]))) want.push(l);
          const now = digestLines(dev);
          equal(now.slice(0, digestBefore.length).join(""), digestBefore.join(""), "the digest lines before the retire stay");
          const added = now.slice(digestBefore.length);
          equal(added.length, want.length, `digest lines appended for ${gone.join(", ")}`);
          equal(added.join(""), want.join(""), `the appended digest lines are the one-shot digest of ${gone.join(", ")}, byte for byte`);
        }
      });
      ok(pieces >= 9 && reads >= 3 && drops === 3, `three retires, in pieces: ${pieces} pieces, ${reads} segment reads, ${appends} appends, ${drops} deletions in ${months} months`);
      ok(appends > 3, `digest lines took more than one piece in some retire: ${appends} appends for 3 retires`);
      ok(worst > 0, `the slowest step: ${worstDid}, ${Math.round(worst)} ms`);
    },
  },
  {
    name: "archive v2 steps within budget: every idle step (seal, index, twin, parity, slice, retire, a forget's rewrite) within 300 ms at the device's flash speed, by its bytes, and none fails for room while a retire is under way, nor a forget's rewrite once facts fill the partition (it waits for room)",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0), storageBytes: 640 * 1024 }).install();
      const a = new Archive(root);
      a.check();
      const worst = new Map<string, number>();
      const seen = new Set<string>();
      const hist: string[] = [];
      const t0 = Math.floor(fromLocal(2000, 1, 1, 9, 0) / 1000);
      let k = 0;
      for (let m = 0; m < 110; m++) {
        const ms = monthOf(m, 9);
        a.append("moment", ms);
        const facts = [];
        for (let i = 0; i < 6; i++, k++) facts.push({ timestamp: t0 + k * 7200, content: `第${k}件事：${FILL}` });
        a.append("fact", facts);
        a.append("event", [newEvent({ date: `${2000 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, "0")}-02`, content: `第${m}个月的纪念日：${FILL}`, eventType: "anniversary", emotion: "touched", intensity: 3, significance: 4, priority: 3, duration: 60 } as Partial<Event> & { date: string; content: string })]);
        // the owner forgets a moment and a fact now and then: rewrites of sealed segments
        if (m % 7 === 6) {
          a.forget("moment", [a.recallByTimeRange("moment", undefined, undefined, 1000).filter((x) => !x.digest).slice(-3)[0].id]);
          a.forget("fact", [a.recallRecent("fact", 1000).slice(-5)[0].id]);
        }
        for (let n = 0; n < 500; n++) {
          dev.flash.resetTraffic();
          const r = a.step();
          if (!r) break;
          const t = dev.flash.partition("storage");
          const ms = deviceMs(t);
          const kind = kindOf(r.did);
          hist.push(r.did);
          seen.add(kind);
          worst.set(kind, Math.max(worst.get(kind) ?? 0, ms));
          ok(r.did.indexOf("failed") !== 0, `a step failed in month ${m}: ${r.did}, after ${hist.slice(-5).join(" / ")}; ${JSON.stringify(dev.spiffs.stats())}`);
          ok(ms <= STEP_BUDGET_MS, `step "${r.did}": ${Math.round(ms)} ms at the device's speed (${t.bytesRead} B read in ${t.readCalls} calls, ${t.bytesWritten} B written)`);
        }
      }
      const all = [...worst].map(([kk, v]) => `${kk} ${Math.round(v)}`).join(", ");
      for (const want of ["retire", "twin moment", "twin fact", "seal fact", "seal moment", "protect f", "slice moment", "scrub: moment", "scrub: fact"]) ok(seen.has(want), `a "${want}" step ran: ${all}`);
      // a rewrite builds its segment's sidecar as it copies (docs/design/recode.md): none is left to be indexed again
      for (const no of ["index moment", "index fact"]) ok(!seen.has(no), `no "${no}" step: ${all}`);
    },
  },
  {
    name: "archive v2 steps within budget: every step of a version-1 archive's migration within 300 ms at the device's flash speed, by its bytes",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0) }).install();
      const v1 = writeV1(2000);
      const a = new Archive(root);
      ok(a.check().migrating, "a migration");
      const kinds = new Set<string>();
      let steps = 0, indexed = 0;
      for (; steps < 3000; steps++) {
        dev.flash.resetTraffic();
        const r = a.step();
        if (!r) break;
        const t = dev.flash.partition("storage");
        kinds.add(kindOf(r.did));
        if (/^migrate: fact segment \d+ indexed$/.test(r.did)) indexed++;
        ok(r.did.indexOf("failed") !== 0, `a step failed: ${r.did}`);
        ok(deviceMs(t) <= STEP_BUDGET_MS, `step "${r.did}": ${Math.round(deviceMs(t))} ms at the device's speed (${t.bytesRead} B read in ${t.readCalls} calls, ${t.bytesWritten} B written)`);
      }
      ok(steps < 3000, "the migration ends");
      ok(indexed >= 2, `migrated segments indexed in steps: ${indexed} (${[...kinds].join(", ")})`);
      let n = 0;
      a.forEach("fact", () => {
        n++;
      });
      equal(n, v1.facts.length, "every fact migrated");
    },
  },
  {
    name: "archive v2 steps within budget: a power cut at any write of a retire: after the reboot the retire starts again, every month held verbatim or digested, once per answer",
    run() {
      const T = fromLocal(2026, 3, 1, 12, 0);
      const base = new SimDevice({ now: T, storageBytes: 512 * 1024 }).install();
      const a0 = new Archive(root);
      a0.check();
      // just before a retire: fill until a step would begin one, then keep that image
      let m = 0;
      let image: { name: string; bytes: Uint8Array }[] = [];
      for (let started = false; m < 600 && !started; m++) {
        a0.append("moment", monthOf(m, 9));
        for (let n = 0; n < 500; n++) {
          const img = base.spiffs.list().map((e) => ({ name: e.name, bytes: base.spiffs.content(e.name) }));
          const r = a0.step();
          if (!r) break;
          if (r.did === "retire") {
            started = true;
            image = img; // the files before this step
            break;
          }
        }
      }
      ok(image.length > 0, "a retire began");
      const months = m;
      const monthKey = (k: number) => `${2000 + Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, "0")}`;
      // every month of moments: verbatim (all 9) or one digest, never two of one segment's month
      const check = (a: Archive, what: string) => {
        const items = a.recallByTimeRange("moment", "2000-01-01", "2099-12-31", 1000);
        const ids = new Set(items.map((x) => x.id));
        equal(ids.size, items.length, `${what}: each moment and digest once`);
        const verbatim = new Map<string, number>(), digests = new Map<string, number>();
        for (const x of items) {
          const mk = x.timestamp.slice(0, 7);
          const to = x.digest ? digests : verbatim;
          to.set(mk, (to.get(mk) ?? 0) + 1);
        }
        for (let k = 0; k < months; k++) {
          const mk = monthKey(k);
          const v = verbatim.get(mk) ?? 0, d = digests.get(mk) ?? 0;
          ok(v === 9 || d >= 1, `${what}: ${mk}: ${v} moments verbatim and ${d} digests`);
        }
      };
      // the uncut run: how many writes the retire takes, and its digest lines
      const dry = new SimDevice({ now: T, storageBytes: 512 * 1024 }).install();
      for (const f of image) dry.spiffs.load(f.name, f.bytes.slice());
      const ad = new Archive(root);
      ad.check();
      const w0 = dry.flash.writes;
      for (let n = 0; n < 200; n++) {
        const r = ad.step();
        if (!r || (r.did === "retire" && !under(ad))) break;
      }
      const total = dry.flash.writes - w0;
      ad.settle();
      const uncut = digestLines(dry);
      check(ad, "uncut");
      ok(total > 3, `the retire takes ${total} writes`);
      // every write of the deletion at the end and of the first pieces, and
      // every third between (the XS lane's time)
      cutUpkeep({ image, now: T, storageBytes: 512 * 1024, total, at: (n) => n <= 6 || n >= total - 8 || n % 3 === 0 }, (a, dev, what, settled) => {
        check(a, what);
        if (!settled) return;
        // the same digest lines as the uncut run (a line the cut tore is
        // written again after it; a line already whole is not repeated)
        const got = digestLines(dev);
        const set = new Set(got);
        for (const l of uncut) ok(set.has(l), `${what}: a digest line of the uncut run is missing`);
        equal(set.size, new Set(uncut).size, `${what}: the same digest lines as the uncut run`);
      });
    },
  },
];

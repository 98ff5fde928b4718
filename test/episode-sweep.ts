// Fault sweeps of the episode store (src/episode/store.ts) under the absolute
// oracle: a deterministic workload of batches (new episodes, uses, content
// changes, frees, reuse, trash), tombstones and upkeep steps runs on a fresh
// device with one fault of one kind (host-sim/faults.ts) injected; then the
// device reboots, a new store opens the files, and every slot is checked
// against a ledger of what was acknowledged:
//   - every acknowledged episode reads back exactly (read, scan with text,
//     scan of headers), every free slot reads as free;
//   - the batch in flight when the fault hit reads back, per slot, wholly as
//     before or wholly as after; a batch that threw reads back as before;
//   - tombstones: the acknowledged ones in order, then at most some of the
//     ones in flight; nextId() is above every id written;
//   - after steps, both copies hold the same bytes for every slot;
//   - the device goes on (more batches, a reboot) and the check holds again.
// No Node APIs: the same sweep can run in the XS lane.
import { SimDevice, PowerCut } from "../host-sim/device";
import { tearHalf, tearNone, tearSeeded } from "../host-sim/flash";
import { ALL_TEAR_MODES } from "../host-sim/spiffs";
import { FAULT_KINDS, type FaultKind, type FaultOptions } from "../host-sim/faults";
import { EpisodeStore, EpisodeError } from "../src/episode/store";
import { signature } from "../src/episode/sig";
import { EPISODE_SIG_BYTES, type Episode, type Tombstone } from "../src/episode/types";
import { copiesEqual } from "./scenarios/episode-store.scn";

const T0 = 1767225600;

function ep(slot: number, id: number, content: string, more: Partial<Episode> = {}): Episode {
  return {
    slot,
    id,
    state: "active",
    content,
    keywords: [],
    emotion: "happy",
    e: 30,
    i: 40,
    p: 50,
    j: 60,
    useCount: 0,
    createdAt: T0 + id * 60,
    lastActiveAt: T0 + id * 60,
    purgeAt: 0,
    source: "ai",
    sig: new Uint8Array(EPISODE_SIG_BYTES),
    ...more,
  };
}

const TOPICS = ["篮球", "钢琴", "小猫", "下雨", "生日", "恐龙", "游泳", "画画"];
const long = (k: number) => `第${k}段回忆：${TOPICS[k % 8]}。今天我们聊了很久，说到了学校里的朋友、周末想去的地方和一本新买的书😀`;

// The in-flight operation, and what is acknowledged.
export class Ledger {
  slots = new Map<number, Episode>(); // acknowledged, not free
  tombs: Tombstone[] = [];
  maxId = 0;
  flight: { batch?: Episode[]; tombs?: Tombstone[] } | undefined;
  threw: string[] = []; // batches that threw and were checked at once
}

export interface Ctx {
  dev: SimDevice;
  st: EpisodeStore;
  led: Ledger;
  failures: string[];
  midway?: (c: Ctx) => void; // after the second batch and the first tombstone (a copy damaged, so that steps rebuild it)
}

function batch(c: Ctx, b: Episode[]): void {
  c.led.flight = { batch: b };
  const before = new Map<number, Episode | undefined>();
  for (const e of b) before.set(e.slot, c.led.slots.get(e.slot));
  try {
    c.st.write(b);
  } catch (e) {
    if (isCut(e)) throw e;
    c.led.flight = undefined;
    // a batch that throws changed nothing that reads back
    for (const x of b) {
      const got = c.st.read(x.slot);
      const want = before.get(x.slot);
      if (!same(got, want)) c.failures.push(`a batch that threw (${(e as Error).message}) changed slot ${x.slot}: ${show(got)} instead of ${show(want)}`);
    }
    return;
  }
  for (const e of b) {
    if (e.state !== "free" && e.id > c.led.maxId) c.led.maxId = e.id;
    if (e.state === "free") c.led.slots.delete(e.slot);
    else c.led.slots.set(e.slot, { ...e, useCount: Math.min(e.useCount, 65535), sig: signature(e.content, e.keywords) });
  }
  c.led.flight = undefined;
}

function tombs(c: Ctx, t: Tombstone[]): void {
  c.led.flight = { tombs: t };
  try {
    c.st.addTombs(t);
  } catch (e) {
    if (isCut(e)) throw e;
    c.led.flight = undefined;
    return;
  }
  for (const x of t) {
    c.led.tombs.push(x);
    if (x.id > c.led.maxId) c.led.maxId = x.id;
  }
  c.led.flight = undefined;
}

function steps(c: Ctx, n: number): void {
  for (let i = 0; i < n; i++) {
    try {
      c.st.step();
    } catch (e) {
      if (isCut(e)) throw e;
    }
  }
}

function id(c: Ctx): number {
  try {
    return c.st.nextId();
  } catch (e) {
    if (isCut(e)) throw e;
    return c.led.maxId + 1000;
  }
}

function get(c: Ctx, slot: number): Episode | undefined {
  const e = c.led.slots.get(slot);
  return e ? { ...e, keywords: e.keywords.slice() } : undefined;
}

// The workload: about 20 batches over 24 slots, tombstones, steps.
export function workload(c: Ctx): void {
  const first: Episode[] = [];
  for (let s = 0; s < 8; s++) first.push(ep(s, id(c), long(s), { keywords: [TOPICS[s % 8], "朋友"] }));
  batch(c, first);
  const second: Episode[] = [];
  for (let s = 8; s < 14; s++) second.push(ep(s, id(c), `短的第${s}件`, { keywords: s % 2 ? [] : ["短"], source: "listener", emotion: "sad" }));
  batch(c, second);
  tombs(c, [{ id: 500, reason: "evicted", cause: "cap", at: T0, payloadHash: 1, strength: 12 }]);
  if (c.midway) c.midway(c);
  // recall: three uses, headers alone
  const used: Episode[] = [];
  for (const s of [1, 3, 9]) {
    const e = get(c, s);
    if (e) used.push({ ...e, useCount: e.useCount + 1, lastActiveAt: T0 + 86400 });
  }
  if (used.length) batch(c, used);
  steps(c, 3);
  // a free and its tombstone
  const gone = get(c, 4);
  if (gone) {
    batch(c, [{ ...gone, state: "free" }]);
    tombs(c, [{ id: gone.id, reason: "user_delete", cause: "none", at: T0 + 100, payloadHash: 77, strength: 0 }]);
  }
  // reuse, growth, a content change, a trash move
  const mix: Episode[] = [ep(4, id(c), "重新用了第四个位置", { keywords: ["位置"] }), ep(14, id(c), long(14)), ep(15, id(c), "第十五件")];
  const two = get(c, 2);
  if (two) mix.push({ ...two, content: two.content + "（补充：后来又去了一次）", keywords: ["补充"], j: 90 });
  const five = get(c, 5);
  if (five) mix.push({ ...five, state: "trash", purgeAt: T0 + 7 * 86400 });
  batch(c, mix);
  steps(c, 4);
  tombs(c, [
    { id: 501, reason: "replaced", cause: "none", at: T0 + 200, payloadHash: 5, strength: 40 },
    { id: 502, reason: "conflict_patch", cause: "none", at: T0 + 201, payloadHash: 6, strength: 100 },
  ]);
  // a full batch of 8: uses, frees, new slots
  const big: Episode[] = [];
  for (const s of [0, 7]) {
    const e = get(c, s);
    if (e) big.push({ ...e, useCount: e.useCount + 3 });
  }
  for (const s of [10, 11]) {
    const e = get(c, s);
    if (e) big.push({ ...e, state: "free" });
  }
  for (let s = 16; s < 20; s++) big.push(ep(s, id(c), long(s), { keywords: ["新", TOPICS[s % 8]], emotion: "excited" }));
  batch(c, big);
  steps(c, 20);
  batch(c, [ep(10, id(c), "第十个位置的新事"), ep(20, id(c), long(20))]);
}

// After the check: the device goes on.
export function afterwards(c: Ctx): void {
  const n = c.st.slots;
  batch(c, [ep(n, id(c), "重启之后的第一件事", { keywords: ["重启"] }), ep(n + 1, id(c), long(n + 1))]);
  const e = get(c, 1);
  if (e) batch(c, [{ ...e, useCount: e.useCount + 1 }]);
  tombs(c, [{ id: 600, reason: "evicted", cause: "decay", at: T0 + 999, payloadHash: 9, strength: 15 }]);
  steps(c, 10);
}

// ---- the oracle ---------------------------------------------------------------------------

function isCut(e: unknown): boolean {
  return e instanceof PowerCut || (e instanceof Error && e.name === "PowerCut");
}

function show(e: Episode | undefined): string {
  return e ? `${e.state} #${e.id} "${e.content.slice(0, 12)}" use ${e.useCount}` : "free";
}

function sameSig(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function same(a: Episode | undefined, b: Episode | undefined, headerOnly = false): boolean {
  if (!a || !b) return !a && !b;
  if (a.slot !== b.slot || a.id !== b.id || a.state !== b.state || a.emotion !== b.emotion || a.source !== b.source) return false;
  if (a.e !== b.e || a.i !== b.i || a.p !== b.p || a.j !== b.j || a.useCount !== b.useCount) return false;
  if (a.createdAt !== b.createdAt || a.lastActiveAt !== b.lastActiveAt || a.purgeAt !== b.purgeAt) return false;
  if (!sameSig(a.sig, b.sig)) return false;
  if (headerOnly) return true;
  return a.content === b.content && a.keywords.join("\u0000") === b.keywords.join("\u0000");
}

export interface Verdict {
  checked: number;
  ackedLost: number;
  wrong: number;
  failures: string[];
}

// Checks the store against the ledger; what the in-flight batch wrote is taken
// into the ledger as it reads back (before or after, per slot).
export function check(c: Ctx, v: Verdict): void {
  const { st, led } = c;
  const fl = led.flight;
  const flight = new Map<number, Episode>();
  if (fl && fl.batch) for (const e of fl.batch) flight.set(e.slot, e);
  let top = st.slots;
  led.slots.forEach((_e, s) => (top = Math.max(top, s + 1)));
  const seen = new Map<number, Episode>();
  for (let s = 0; s < top; s++) {
    v.checked++;
    const got = st.read(s);
    const want = led.slots.get(s);
    if (same(got, want)) {
      if (got) seen.set(s, got);
      continue;
    }
    const f = flight.get(s);
    if (f) {
      const after = f.state === "free" ? undefined : { ...f, useCount: Math.min(f.useCount, 65535), sig: signature(f.content, f.keywords) };
      if (same(got, after)) {
        if (after) {
          led.slots.set(s, after);
          if (after.id > led.maxId) led.maxId = after.id;
        } else led.slots.delete(s);
        if (got) seen.set(s, got);
        continue;
      }
    }
    if (want) v.ackedLost++;
    else v.wrong++;
    v.failures.push(`slot ${s}: ${show(got)}, expected ${show(want)}${f ? ` or ${show(f)}` : ""}`);
  }
  // scans agree with reads
  const scanned: Episode[] = [];
  st.scan((e) => void scanned.push(e), true);
  const heads: Episode[] = [];
  st.scan((e) => void heads.push(e), false);
  if (scanned.length !== seen.size || heads.length !== seen.size) {
    v.wrong++;
    v.failures.push(`scan gives ${scanned.length} with text, ${heads.length} headers; reads ${seen.size}`);
  } else
    for (let i = 0; i < scanned.length; i++) {
      const r = seen.get(scanned[i].slot);
      if (!same(scanned[i], r) || !same(heads[i], r, true) || heads[i].content !== "") {
        v.wrong++;
        v.failures.push(`scan of slot ${scanned[i].slot} differs from its read`);
        break;
      }
    }
  // tombstones: the acknowledged in order, then some of those in flight
  const got: Tombstone[] = [];
  st.tombs((t) => void got.push(t));
  const key = (t: Tombstone) => `${t.id}/${t.reason}/${t.cause}/${t.at}/${t.payloadHash}/${t.strength}`;
  let i = 0;
  for (; i < led.tombs.length; i++) {
    v.checked++;
    if (i >= got.length || key(got[i]) !== key(led.tombs[i])) {
      v.ackedLost++;
      v.failures.push(`tombstone ${i}: ${i < got.length ? key(got[i]) : "missing"}, expected ${key(led.tombs[i])}`);
      break;
    }
  }
  const extra = got.slice(led.tombs.length);
  const inFlight = fl && fl.tombs ? fl.tombs.map(key) : [];
  for (const t of extra) {
    if (inFlight.indexOf(key(t)) < 0) {
      v.wrong++;
      v.failures.push(`tombstone ${key(t)} was never written`);
    } else {
      led.tombs.push(t);
      if (t.id > led.maxId) led.maxId = t.id;
    }
  }
  if (st.tombCount() !== got.length) {
    v.wrong++;
    v.failures.push(`tombCount ${st.tombCount()}, tombs gives ${got.length}`);
  }
  led.flight = undefined;
  const next = st.nextId();
  if (next <= led.maxId) {
    v.wrong++;
    v.failures.push(`nextId ${next} was used (${led.maxId})`);
  }
  // upkeep puts both copies in step
  let n = 0;
  while (st.step() && n < 2000) n++;
  if (!copiesEqual(c.dev, st)) {
    v.wrong++;
    v.failures.push("the copies differ after steps");
  }
}

// ---- the sweep ---------------------------------------------------------------------------------

export type Plan =
  | { mode: "none" }
  | { mode: "cut"; n: number; tear: number; spiffsSeed: number; damage?: string } // damage: a copy file made unreadable midway, the cut counted from there (it can land in the rebuild)
  | { mode: "rest"; opts: FaultOptions }
  | { mode: "op"; opts: FaultOptions; damage?: string } // damage: a copy file made unreadable midway (a reboot follows)
  | { mode: "boot" };

export interface KindResult {
  kind: string;
  cases: number;
  injected: number;
  acked_lost: number;
  wrong_replies: number;
  boot_failures: number;
  crashes: number;
  checked: number;
  not_applicable?: true;
  failures: string[];
}

function fresh(): Ctx {
  const dev = new SimDevice({ now: T0 * 1000 }).install();
  dev.spiffs.tearModes = ALL_TEAR_MODES;
  return { dev, st: new EpisodeStore(), led: new Ledger(), failures: [] };
}

function damageMidway(c: Ctx, name: string, then?: (x: Ctx) => void): void {
  c.midway = (x) => {
    x.dev.spiffs.notFinalized.add(name);
    x.dev.reboot();
    x.st = new EpisodeStore();
    if (then) then(x);
  };
}

// Storage writes a clean run makes (programs; SPIFFS counts each write call as one), from midway with `damage`.
export function countWrites(damage?: string): number {
  const c = fresh();
  let w0 = c.dev.flash.writes;
  if (damage) damageMidway(c, damage, (x) => (w0 = x.dev.flash.writes));
  workload(c);
  return c.dev.flash.writes - w0;
}

// Storage operations of a clean run that an operation fault can hit: opens, reads, writes.
function countOps(): number {
  const c = fresh();
  workload(c);
  return c.st.stats.reads + c.st.stats.writes;
}

export function plans(kind: FaultKind | "none", o: { stride?: number; seeds?: number; ops?: number } = {}): Plan[] {
  const out: Plan[] = [];
  const seeds = o.seeds ?? 24, ops = o.ops ?? 40, stride = o.stride ?? 1;
  switch (kind) {
    case "none":
      out.push({ mode: "none" });
      break;
    case "power_cut": {
      let i = 0;
      // a header copy made unreadable midway (the cut can land in its rebuild), and the
      // passages' open segment left not finalized (its twin takes its place at open)
      for (const damage of [undefined, "/ep.h1", "/p000001.jsonl"]) {
        const writes = countWrites(damage);
        for (let n = 1; n <= writes; n += stride, i++) out.push({ mode: "cut", n, tear: i % 3, spiffsSeed: n, damage });
      }
      break;
    }
    case "bit_flip":
      for (let s = 0; s < seeds; s++) out.push({ mode: "rest", opts: { seed: s * 7919 + 5, partition: "storage" } });
      break;
    case "spiffs_not_finalized":
      for (let s = 0; s < seeds; s++) out.push({ mode: "rest", opts: { seed: s, partition: "storage" } });
      break;
    case "mount_failure":
      out.push({ mode: "boot" });
      break;
    case "rename_false":
    case "delete_false":
    case "spiffs_rename_tear":
      // they hit the rebuild of a copy made unreadable midway (its swap renames and deletes)
      for (const damage of ["/ep.h1", "/ep.h0", "/ep.x1"]) for (let at = 1; at <= 3; at++) out.push({ mode: "op", opts: { at, partition: "storage" }, damage });
      break;
    case "spiffs_read_error":
    case "open_limit":
    case "spiffs_header_tear":
    case "spiffs_rewrite_tear":
    case "full": {
      const total = countOps();
      const step = Math.max(1, total / ops);
      for (let a = 1; a <= total; a += step) out.push({ mode: "op", opts: { at: Math.floor(a), seed: Math.floor(a), partition: "storage" } });
      break;
    }
    default:
      break; // NVS kinds: the episode files live on the storage partition only
  }
  return out;
}

export function runCase(kind: FaultKind | "none", plan: Plan): { injected: boolean; v: Verdict; bootFailed: boolean; crashed: boolean } {
  const v: Verdict = { checked: 0, ackedLost: 0, wrong: 0, failures: [] };
  const c = fresh();
  let injected = false;
  if (plan.mode === "cut") {
    c.dev.spiffs.tearSeed = plan.spiffsSeed;
    const arm = (x: Ctx) => x.dev.cutAfter(plan.n, plan.tear === 0 ? tearHalf : plan.tear === 1 ? tearNone : tearSeeded(plan.n, "word"));
    if (plan.damage) damageMidway(c, plan.damage, arm);
    else arm(c);
  }
  if (plan.mode === "op" && plan.damage) {
    damageMidway(c, plan.damage, (x) => x.dev.inject(kind as FaultKind, plan.opts));
    injected = true;
  } else if (plan.mode === "op") {
    c.dev.inject(kind as FaultKind, plan.opts);
    injected = true;
  }
  let crashed = false;
  try {
    workload(c);
  } catch (e) {
    if (isCut(e)) injected = true;
    else {
      crashed = true;
      v.failures.push(`crash: ${(e as Error).message}`);
    }
  }
  c.dev.flash.disarm();
  if (plan.mode === "cut" && !injected) throw new Error(`cut at ${plan.n} was not reached`);
  if (plan.mode === "op" && c.dev.spiffs.isArmed(kind as never)) {
    injected = false;
    // a tear that did not happen in the run never happens (it would cut the check)
    if (kind.indexOf("_tear") > 0) c.dev.spiffs.disarm(kind as never);
  }
  if (plan.mode === "rest") {
    const what = c.dev.inject(kind as FaultKind, plan.opts);
    injected = what.indexOf("no file") < 0;
  }
  let excused = false;
  if (plan.mode === "boot") {
    c.dev.inject("mount_failure");
    injected = true;
    excused = true; // Moddable formats the partition: every file goes (docs/DESIGN.md, "Faults")
  }
  for (const f of c.failures) v.failures.push(f);
  v.wrong += c.failures.length;
  c.failures = [];
  c.dev.reboot();
  if (excused) c.led = new Ledger();
  try {
    c.st = new EpisodeStore();
    c.st.open();
  } catch (e) {
    v.failures.push(`open failed: ${(e as Error).message}`);
    return { injected, v, bootFailed: true, crashed };
  }
  try {
    check(c, v);
    afterwards(c);
    c.dev.reboot();
    c.st = new EpisodeStore();
    check(c, v);
  } catch (e) {
    if (e instanceof EpisodeError || !isCut(e)) {
      crashed = true;
      v.failures.push(`after the reboot: ${(e as Error).message}`);
    } else throw e;
  }
  for (const f of c.failures) v.failures.push(f);
  v.wrong += c.failures.length;
  return { injected, v, bootFailed: false, crashed };
}

export function sweepKind(kind: FaultKind | "none", o: { stride?: number; seeds?: number; ops?: number } = {}): KindResult {
  const r: KindResult = { kind, cases: 0, injected: 0, acked_lost: 0, wrong_replies: 0, boot_failures: 0, crashes: 0, checked: 0, failures: [] };
  const ps = plans(kind, o);
  if (!ps.length) r.not_applicable = true;
  for (const p of ps) {
    const x = runCase(kind, p);
    r.cases++;
    if (x.injected) r.injected++;
    r.acked_lost += x.v.ackedLost;
    r.wrong_replies += x.v.wrong;
    r.checked += x.v.checked;
    if (x.bootFailed) r.boot_failures++;
    if (x.crashed) r.crashes++;
    if ((x.v.failures.length || x.bootFailed || x.crashed) && r.failures.length < 8) r.failures.push(`${JSON.stringify(p)}: ${x.v.failures.slice(0, 3).join("; ")}`);
  }
  return r;
}

export { FAULT_KINDS };

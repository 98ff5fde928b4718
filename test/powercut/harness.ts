// Fault sweeps under the absolute oracle. A workload is a deterministic
// script that drives a booted device the way the AI and the companion do
// (test/powercut/device.ts). For each fault kind of the device
// (host-sim/faults.ts) the sweep runs the workload with one fault of that
// kind injected (at every write for power_cut, at every position for the
// at-rest kinds, at the k-th operation for the operation kinds, at boot for
// the boot kinds), reboots, boots the device as src/main.ts does and checks
// it against the ledger (test/powercut/oracle.ts). No Node APIs: the same
// sweep runs in the XS lane.
import { SimDevice, PowerCut, type DeviceOptions } from "../../host-sim/device";
import { tearHalf, tearNone, tearSeeded, type Tear } from "../../host-sim/flash";
import { FAULT_KINDS, type FaultKind, type FaultOptions, type SpiffsFault } from "../../host-sim/faults";
import { Ai, callTool, type BootOptions, type Booted } from "./device";
import { check, blankVerdict, type Verdict, type CheckOptions } from "./oracle";
import type { Kind } from "./ledger";

export interface Workload {
  name: string;
  start: number; // wall time at the first boot
  boot?: BootOptions;
  device?: Omit<DeviceOptions, "now">; // partition sizes (a small storage partition: retire happens within the run)
  // files on flash before the first boot, loaded without writes; returns the
  // records they hold (the ledger's background)
  prefill?(dev: SimDevice): { kind: Kind; key: string; value: string; ts: number }[];
  run(ai: Ai): void;
  // checks of the workload's own beyond the oracle's, through the tool only
  // (after every check of the oracle, with its options: what a format excused)
  verify?(ai: Ai, b: Booted, v: Verdict, opts: CheckOptions): void;
  // the workload's own bounds for a kind (a long workload: fewer cases); a
  // maxCases of the sweep's own still bounds them
  sweep?(kind: FaultKind | "none"): SweepOptions;
  // After the fault, the reboot and the check: the device keeps being used
  // (a torn line or a leftover of the fault must not hurt the next writes);
  // then one more reboot and check.
  after?(ai: Ai): void;
}

export { FAULT_KINDS, type FaultKind };

// The kinds that cut power inside a SPIFFS operation, leaving what the real library leaves.
const TEAR_KINDS: string[] = ["spiffs_rename_tear", "spiffs_header_tear", "spiffs_rewrite_tear"];

// How a kind is injected.
export type Plan =
  | { mode: "none" }
  | { mode: "cut"; n: number; tear: Tear; tearName: string }
  | { mode: "rest"; opts: FaultOptions } // after the workload, before the reboot
  | { mode: "op"; opts: FaultOptions } // before the first boot: fires at the at-th matching operation
  | { mode: "write"; partition: string; k: number; opts: FaultOptions } // when the k-th write of `partition` reached flash
  // before the reboot; after a power cut at write cutAt (of cutPartition only, if given)
  | { mode: "boot"; opts: FaultOptions; cutAt?: number; cutPartition?: string }
  // clock_jump: the RTC unset at the first boot (1970 or stale) and at the
  // reboot; the network sets it at flash write `at[0]`, corrects it by
  // `shifts[1]` at `at[1]` and by `shifts[2]` at `at[2]` (ms, forward or back);
  // after the reboot it is set to the true time before the check
  | { mode: "clock"; seed: number; at: number[]; shifts: number[] };

export interface CaseResult {
  injected: boolean; // the fault was injected (for a cut: it happened)
  notModelled: boolean;
  bootFailed: boolean;
  crashed: boolean; // an exception escaped the device's entry points during the workload
  verdict: Verdict;
}

const isCut = (e: unknown) => e instanceof PowerCut || (e instanceof Error && e.name === "PowerCut");
const msg = (e: unknown) => (e instanceof Error ? e.message : String(e));
export const notModelledError = (e: unknown) => /not modelled/i.test(msg(e));

// Records the device showed through `read` before an archive-wiping fault:
// what it did not show lived only in the archive.
function archiveOnly(ai: Ai): Set<string> {
  const out = new Set<string>();
  const r = callTool(ai.service, { action: "read" });
  const j = (r.json ?? {}) as Record<string, any>;
  const facts = new Set<string>(j.facts ?? []);
  const moments = new Set<string>((j.moments ?? []).map((m: any) => m.content));
  const sched = new Set<string>((j.schedules ?? []).map((s: any) => s.content));
  for (const e of ai.ledger.all()) {
    if (e.kind === "fact" && !facts.has(e.key)) out.add("fact\u0000" + e.key);
    if (e.kind === "moment" && !moments.has(e.key)) out.add("moment\u0000" + e.key);
    // episodes live only on the storage partition, which the mount formats
    if (e.kind === "episode") out.add("episode\u0000" + e.key);
    if (e.kind === "schedule" && !sched.has(e.key)) {
      // archived: search finds it among the archive's events, not among the schedules
      const f = callTool(ai.service, { action: "search", keyword: e.key, limit: 50 });
      const sj = (f.json ?? {}) as Record<string, any>;
      const inNvs = (sj.items ?? []).some((h: any) => h.where === "schedule" && String(h.text).indexOf(e.key + " at ") === 0);
      if (!inNvs && ((sj.archived ?? {}).event ?? []).some((it: any) => it.content === e.key)) out.add("schedule\u0000" + e.key);
    }
  }
  return out;
}

// One run of a workload with one fault, the reboot, and the check.
export function runCase(w: Workload, kind: FaultKind | "none", plan: Plan): CaseResult {
  const res: CaseResult = { injected: false, notModelled: false, bootFailed: false, crashed: false, verdict: blankVerdict() };
  const dev = new SimDevice({ ...w.device, now: w.start }).install();
  const background = w.prefill ? w.prefill(dev) : [];
  const inject = (opts: FaultOptions): boolean => {
    try {
      const what = dev.inject(kind as FaultKind, opts);
      res.injected = !/: no file/.test(what); // nothing to damage
      return true;
    } catch (e) {
      if (notModelledError(e)) {
        res.notModelled = true;
        return false;
      }
      throw e;
    }
  };
  if (plan.mode === "cut") {
    dev.inject("power_cut", { at: plan.n, seed: plan.n }); // seeds SPIFFS's tear
    dev.cutAfter(plan.n, plan.tear);
  }
  const onWrite = (partition: string, k: number, fn: () => void) => {
    let n = 0;
    const prev = dev.flash.onChange;
    dev.flash.onChange = (p) => {
      prev?.(p);
      if (p === partition && ++n === k) {
        dev.flash.onChange = prev;
        fn();
      }
    };
  };
  if (plan.mode === "boot" && plan.cutAt !== undefined) {
    if (plan.cutPartition) onWrite(plan.cutPartition, plan.cutAt, () => dev.inject("power_cut", { at: 1, seed: plan.cutAt }));
    else dev.cutAfter(plan.cutAt, tearHalf);
  }
  if (plan.mode === "op" && !inject(plan.opts)) return res;
  if (plan.mode === "clock") {
    inject({ seed: plan.seed });
    let n = 0;
    dev.flash.onChange = () => {
      n++;
      const i = plan.at.indexOf(n);
      if (i === 0) dev.setWall(dev.clock.now);
      else if (i > 0) dev.setWall(dev.clock.wall + plan.shifts[i]);
    };
  }
  let notModelledLate = false;
  if (plan.mode === "write")
    onWrite(plan.partition, plan.k, () => {
      try {
        dev.inject(kind as FaultKind, plan.opts);
        res.injected = true;
      } catch (e) {
        if (!notModelledError(e)) throw e;
        notModelledLate = true;
      }
    });
  let ai: Ai | undefined;
  let stopped = false;
  // a clean run: the writes it makes, for the sweeps of the other kinds (countWrites)
  const count = plan.mode === "none" && !writeCounts.has(w) ? counting(dev) : undefined;
  try {
    ai = new Ai(dev, w.boot);
    for (const b of background) ai.ledger.background(b.kind, b.key, b.value, b.ts);
    w.run(ai);
    if (count) writeCounts.set(w, count());
  } catch (e) {
    if (isCut(e)) stopped = true;
    else {
      res.crashed = true;
      res.verdict.failures.push(`${ai ? "crash" : "first boot failed"}: ${msg(e)}`);
    }
  }
  if (plan.mode === "cut") {
    res.injected = stopped;
    if (!stopped) throw new Error(`${w.name}: write ${plan.n} was not reached: the workload is not deterministic`);
  }
  dev.flash.onChange = undefined;
  // a tear (a cut inside a SPIFFS operation) that did not happen during the
  // run never happens: it would cut the device's later use, not the run
  let tearUnfired = false;
  if (TEAR_KINDS.indexOf(kind) >= 0 && dev.spiffs.isArmed(kind as SpiffsFault)) {
    dev.spiffs.disarm(kind as SpiffsFault);
    tearUnfired = true;
  }
  if (notModelledLate) {
    res.notModelled = true;
    return res;
  }
  if (plan.mode === "write" && !res.injected) return res; // the run had fewer writes
  // the first boot itself was cut: nothing was acknowledged
  let fresh = !ai;
  if (!ai && !stopped) res.bootFailed = true;
  let excused: Set<string> | undefined;
  if (plan.mode === "rest" && !inject(plan.opts)) return res;
  // a format at the reboot takes what lived only in the archive: ask the device what that was
  if (kind === "mount_failure" && !stopped && ai && !res.crashed) excused = archiveOnly(ai);
  if (plan.mode === "boot" && !inject(plan.opts)) return res;
  if (plan.mode === "clock") inject({ seed: plan.seed + 1 });
  dev.flash.disarm();
  // power comes back; a cut inside NVS's own recovery (nvs_init_cut) means it comes back again
  for (let tries = 0; ; tries++) {
    try {
      dev.reboot();
      break;
    } catch (e) {
      if (!isCut(e) || tries > 3) {
        res.bootFailed = true;
        res.verdict.failures.push(`reboot failed: ${msg(e)}`);
        return res;
      }
      dev.flash.powerOn();
    }
  }
  let b;
  const clockSet = () => {
    if (plan.mode === "clock") dev.setWall(dev.clock.now); // the network, after the boot
  };
  try {
    if (!ai || fresh) {
      ai = new Ai(dev, w.boot);
      for (const x of background) ai.ledger.background(x.kind, x.key, x.value, x.ts);
      fresh = false;
      b = ai.booted;
    } else b = ai.boot();
    clockSet();
  } catch (e) {
    res.bootFailed = true;
    res.verdict.failures.push(`boot failed: ${msg(e)}`);
    return res;
  }
  try {
    check(ai, b, res.verdict, { excused });
    w.verify?.(ai, b, res.verdict, { excused });
  } catch (e) {
    res.verdict.wrongReplies++;
    res.verdict.failures.push(`the check could not run: ${msg(e)}`);
  }
  if (!w.after || res.verdict.failures.length) return res;
  // the device goes on: more of the same, a reboot, the check again
  try {
    w.after(ai);
  } catch (e) {
    res.crashed = true;
    res.verdict.failures.push(`crash after the reboot: ${msg(e)}`);
    return res;
  }
  dev.reboot();
  try {
    b = ai.boot();
  } catch (e) {
    res.bootFailed = true;
    res.verdict.failures.push(`second boot failed: ${msg(e)}`);
    return res;
  }
  const v2 = blankVerdict();
  try {
    check(ai, b, v2, { excused });
    w.verify?.(ai, b, v2, { excused });
  } catch (e) {
    v2.wrongReplies++;
    v2.failures.push(`the check could not run: ${msg(e)}`);
  }
  res.verdict.ackedLost += v2.ackedLost;
  res.verdict.wrongReplies += v2.wrongReplies;
  res.verdict.checked += v2.checked;
  for (const f of v2.failures) res.verdict.failures.push("after more use: " + f);
  if (res.injected && (tearUnfired || stillArmed(dev, kind, plan))) res.injected = false; // it never fired
  return res;
}

// An operation fault that is still armed at the end never happened.
function stillArmed(dev: SimDevice, kind: FaultKind | "none", plan: Plan): boolean {
  if (kind === "none" || kind === "power_cut" || plan.mode === "rest") return false;
  const onNvs = kind === "nvs_crc" || kind === "nvs_init_cut" || ((kind === "bit_flip" || kind === "full") && (("opts" in plan ? plan.opts.partition : undefined) ?? "nvs") === "nvs");
  const m = (onNvs ? dev.nvs : dev.spiffs) as unknown as { isArmed?: (k: string) => boolean };
  return typeof m.isArmed === "function" ? m.isArmed(kind) : false;
}

export interface KindResult {
  kind: string;
  injected: number;
  acked_lost: number;
  boot_failures: number;
  wrong_replies: number;
  crashes: number;
  cases: number;
  checked: number; // ledger records checked in all
  not_modelled?: true;
  not_modelled_cases?: number; // cases skipped because inject does not model them (one partition of a kind)
  by_workload: Record<string, { cases: number; injected: number; acked_lost: number; boot_failures: number; wrong_replies: number; crashes: number }>;
  failures: string[];
}

export interface SweepOptions {
  stride?: number; // power_cut: every stride-th write
  tears?: "rotate" | "half"; // power_cut: half, none and seeded in turn (default), or half only
  seeds?: number; // at-rest kinds: positions per partition
  ops?: number; // operation kinds: the first `ops` operations
  maxCases?: number; // per workload and kind
}

// Writes a clean run makes (boot included): flash program operations, or,
// for one partition, its programs and erases (as Flash.onChange reports them).
// A workload is deterministic (a cut at a write it no longer reaches fails the
// sweep), so one clean run counts them for every kind and partition: the first
// call for a workload, or its sweep's no-fault case, runs it; later calls read
// the counts.
export function countWrites(w: Workload, partition?: string): number {
  let c = writeCounts.get(w);
  if (!c) {
    const dev = new SimDevice({ ...w.device, now: w.start }).install();
    if (w.prefill) w.prefill(dev);
    const count = counting(dev);
    w.run(new Ai(dev, w.boot));
    writeCounts.set(w, (c = count()));
  }
  return partition ? c.parts[partition] ?? 0 : c.total;
}

interface WriteCounts {
  total: number;
  parts: Record<string, number>;
}
const writeCounts = new Map<Workload, WriteCounts>();

// Counts the writes from now on; the returned function stops counting and gives them.
function counting(dev: SimDevice): () => WriteCounts {
  const first = dev.flash.writes;
  const parts: Record<string, number> = {};
  dev.flash.onChange = (p) => void (parts[p] = (parts[p] ?? 0) + 1);
  return () => {
    dev.flash.onChange = undefined;
    return { total: dev.flash.writes - first, parts };
  };
}

// The cases of one kind for one workload.
export function plans(kind: FaultKind | "none", w: Workload, o: SweepOptions): Plan[] {
  const out: Plan[] = [];
  const seeds = o.seeds ?? 24;
  const ops = o.ops ?? 12;
  const stride = o.stride ?? 1;
  // positions spread over the whole image: seed i of n
  const spread = (n: number, salt: number) => {
    const l: number[] = [];
    for (let i = 0; i < n; i++) l.push(i * 7919 + salt);
    return l;
  };
  switch (kind) {
    case "none":
      out.push({ mode: "none" });
      break;
    case "power_cut": {
      // each cut point gets one tear, in turn: a prefix (half), nothing, or a
      // seeded choice of the written words anywhere inside the operation
      const writes = countWrites(w);
      let i = 0;
      for (let n = 1; n <= writes; n += stride, i++) {
        const t = o.tears === "half" ? 0 : i % 3;
        out.push(t === 0 ? { mode: "cut", n, tear: tearHalf, tearName: "half" } : t === 1 ? { mode: "cut", n, tear: tearNone, tearName: "none" } : { mode: "cut", n, tear: tearSeeded(n, "word"), tearName: `seeded ${n}` });
      }
      break;
    }
    case "nvs_crc":
      for (const s of spread(seeds, 1)) out.push({ mode: "rest", opts: { seed: s } });
      break;
    case "bit_flip":
      for (const s of spread(seeds, 3)) out.push({ mode: "rest", opts: { seed: s, partition: "nvs" } });
      for (const s of spread(seeds, 5)) out.push({ mode: "rest", opts: { seed: s, partition: "storage" } });
      break;
    case "full":
      for (const partition of ["nvs", "storage"] as const) {
        for (let at = 1; at <= 2; at++) out.push({ mode: "op", opts: { at, partition } });
        for (const k of spreadWrites(w, partition, ops)) out.push({ mode: "write", partition, k, opts: { at: 1, seed: k, partition } });
      }
      break;
    case "spiffs_not_finalized":
      for (let s = 0; s < seeds; s++) out.push({ mode: "rest", opts: { seed: s, partition: "storage" } });
      break;
    case "nvs_init_cut": {
      const writes = countWrites(w);
      const step = Math.max(1, Math.floor(writes / seeds));
      for (let n = 1; n <= writes; n += step) for (let at = 1; at <= 2; at++) out.push({ mode: "boot", cutAt: n, opts: { at } });
      break;
    }
    case "mount_failure":
      out.push({ mode: "boot", opts: {} });
      break;
    case "clock_jump": {
      // set, corrected forward and back by minutes or hours, at seeded writes
      const writes = countWrites(w);
      const n = Math.max(2, Math.floor(seeds / 8));
      let x = 0x9e3779b9;
      const rnd = (m: number) => {
        x = (Math.imul(x ^ (x >>> 15), 0x85ebca6b) + 0x6b43a9b5) >>> 0;
        return x % m;
      };
      for (let s = 0; s < n; s++) {
        const at = [1 + rnd(writes), 1 + rnd(writes), 1 + rnd(writes)].sort((a, b) => a - b);
        const big = s % 2 === 1; // hours, else minutes
        const fwd = (1 + rnd(big ? 12 : 50)) * (big ? 3600000 : 60000);
        const back = -(1 + rnd(big ? 12 : 50)) * (big ? 3600000 : 60000);
        out.push({ mode: "clock", seed: s, at: [at[0], at[1] === at[0] ? at[0] + 1 : at[1], at[2] <= at[1] ? at[1] + 2 : at[2]], shifts: [0, s % 4 < 2 ? fwd : back, s % 4 < 2 ? back : fwd] });
      }
      break;
    }
    default:
      // spiffs_read_error, rename_false, delete_false, open_limit: at the first
      // operations of the first boot, then after storage writes spread over the run
      for (let at = 1; at <= 3; at++) out.push({ mode: "op", opts: { at, seed: at, partition: "storage" } });
      for (const k of spreadWrites(w, "storage", ops)) out.push({ mode: "write", partition: "storage", k, opts: { at: 1, seed: k, partition: "storage" } });
  }
  if (o.maxCases !== undefined && out.length > o.maxCases) {
    // keep the cases spread over the whole range
    const kept: Plan[] = [];
    const step = out.length / o.maxCases;
    for (let i = 0; i < o.maxCases; i++) kept.push(out[Math.floor(i * step)]);
    return kept;
  }
  return out;
}

// `n` write positions of a partition spread over a clean run (1-based).
function spreadWrites(w: Workload, partition: string, n: number): number[] {
  const total = countWrites(w, partition);
  const out: number[] = [];
  if (!total) return out;
  const step = total / n;
  for (let i = 0; i < n; i++) {
    const k = 1 + Math.floor(i * step);
    if (out.indexOf(k) < 0 && k <= total) out.push(k);
  }
  return out;
}

// Whether SimDevice.inject models `kind` today.
export function modelled(kind: FaultKind): boolean {
  if (kind === "power_cut") return true;
  for (const partition of ["nvs", "storage"] as const) {
    const dev = new SimDevice();
    try {
      dev.inject(kind, { at: 1, seed: 1, partition });
      return true;
    } catch (e) {
      if (!notModelledError(e)) return true; // it exists, it just refused these options
    }
  }
  return false;
}

// A workload's own bounds over the sweep's.
function bounds(w: Workload, kind: FaultKind | "none", o: SweepOptions): SweepOptions {
  if (!w.sweep) return o;
  const b = w.sweep(kind);
  const max = Math.min(o.maxCases ?? Infinity, b.maxCases ?? Infinity);
  const out: SweepOptions = { ...o, ...b };
  if (max !== Infinity) out.maxCases = max;
  return out;
}

export function sweepKind(kind: FaultKind | "none", workloads: readonly Workload[], o: SweepOptions = {}): KindResult {
  const r: KindResult = { kind, injected: 0, acked_lost: 0, boot_failures: 0, wrong_replies: 0, crashes: 0, cases: 0, checked: 0, by_workload: {}, failures: [] };
  if (kind !== "none" && !modelled(kind)) {
    r.not_modelled = true;
    return r;
  }
  for (const w of workloads) {
    const bw = (r.by_workload[w.name] = { cases: 0, injected: 0, acked_lost: 0, boot_failures: 0, wrong_replies: 0, crashes: 0 });
    for (const p of plans(kind, w, bounds(w, kind, o))) {
      const c = runCase(w, kind, p);
      if (c.notModelled) {
        r.not_modelled = true;
        r.not_modelled_cases = (r.not_modelled_cases ?? 0) + 1; // e.g. the NVS half of bit_flip
        continue;
      }
      bw.cases++;
      if (c.injected) bw.injected++;
      bw.acked_lost += c.verdict.ackedLost;
      bw.wrong_replies += c.verdict.wrongReplies;
      if (c.bootFailed) bw.boot_failures++;
      if (c.crashed) bw.crashes++;
      r.checked += c.verdict.checked;
      const bad = c.verdict.ackedLost + c.verdict.wrongReplies > 0 || c.bootFailed || c.crashed;
      if (bad && r.failures.length < 8) r.failures.push(`${w.name} ${describe(p)}: ${c.verdict.failures.slice(0, 3).join("; ") || "boot failed"}`);
    }
    r.cases += bw.cases;
    r.injected += bw.injected;
    r.acked_lost += bw.acked_lost;
    r.boot_failures += bw.boot_failures;
    r.wrong_replies += bw.wrong_replies;
    r.crashes += bw.crashes;
  }
  if (r.not_modelled && r.cases) delete r.not_modelled;
  return r;
}

export function describe(p: Plan): string {
  switch (p.mode) {
    case "none":
      return "(no fault)";
    case "cut":
      return `cut at write ${p.n} (tear ${p.tearName})`;
    case "boot":
      return `${p.cutAt !== undefined ? `cut at ${p.cutPartition ?? "flash"} write ${p.cutAt}, then ` : ""}at boot ${JSON.stringify(p.opts)}`;
    case "write":
      return `after ${p.partition} write ${p.k} ${JSON.stringify(p.opts)}`;
    case "clock":
      return `clock ${p.seed % 2 === 0 ? "stale" : "1970"} at boot, set at write ${p.at[0]}, moved ${p.shifts[1] / 60000} min at ${p.at[1]} and ${p.shifts[2] / 60000} min at ${p.at[2]}`;
    default:
      return JSON.stringify(p.opts);
  }
}

export function failed(r: KindResult): boolean {
  return r.acked_lost + r.boot_failures + r.wrong_replies + r.crashes > 0;
}

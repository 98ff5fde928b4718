// npm run spiffs-faults: the archive's power-cut workload (test/powercut/
// archive.workload.ts) run again with each SPIFFS fault of host-sim/faults.ts
// injected once, after the k-th flash write of the run, for k across the run;
// then a reboot and the absolute oracle's check (test/powercut/oracle.ts: boot,
// nothing acknowledged lost, no reply serving damage, the device still usable).
// With --boot, the faults hit the boot instead: a power cut after the k-th
// storage write (leaving, say, a compaction half done), then the reboot with
// the fault armed for the at-th matching operation of the boot (at = 1..3).
// One JSON line per fault kind, then the total. It reports, it does not judge:
// the exit status is 0 unless the tool itself fails.
//
// --all-tears lets a power cut also leave the written file not finalized
// (host-sim/spiffs.ts ALL_TEAR_MODES; the default tears are old length, page
// prefix and 0xFF holes).
//
// Usage: npx tsx tools/spiffs-faults.ts [--stride N] [--kind KIND] [--boot] [--all-tears]
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { ALL_TEAR_MODES } from "../host-sim/spiffs";
import { SPIFFS_FAULTS, type FaultKind } from "../host-sim/faults";
import { archiveWorkload as w } from "../test/powercut/archive.workload";
import { runCase, countWrites, type Plan } from "../test/powercut/harness";

setTraceSink(() => {});

function args(): { stride: number; kinds: FaultKind[]; boot: boolean; allTears: boolean } {
  const a = process.argv.slice(2);
  let stride = 1;
  let boot = false;
  let allTears = false;
  let kinds: FaultKind[] | undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === "--stride") stride = Number(a[++i]);
    else if (a[i] === "--kind") kinds = [a[++i] as FaultKind];
    else if (a[i] === "--boot") boot = true;
    else if (a[i] === "--all-tears") allTears = true;
    else throw new Error(`unknown argument ${a[i]} (usage: spiffs-faults.ts [--stride N] [--kind KIND] [--boot] [--all-tears])`);
  }
  if (!(stride >= 1)) throw new Error("--stride must be >= 1");
  kinds ??= boot ? ["spiffs_read_error", "rename_false", "delete_false", "open_limit", "full"] : [...SPIFFS_FAULTS, "power_cut"];
  return { stride, kinds, boot, allTears };
}

interface Row {
  fault: string;
  runs: number;
  fired: number; // runs in which the fault took effect
  ok: number; // fired and everything checked out
  crashes: number; // device code threw out of the workload (not a power cut)
  boot_failures: number;
  acked_lost: number;
  wrong_replies: number;
  examples: { crash: string[]; boot: string[]; loss: string[] };
}

const { stride, kinds, boot, allTears } = args();
if (allTears) {
  // every device of the run tears SPIFFS writes in all modes
  const install = SimDevice.prototype.install;
  SimDevice.prototype.install = function (this: SimDevice) {
    this.spiffs.tearModes = ALL_TEAR_MODES;
    return install.call(this) as never;
  };
}

function one(kind: FaultKind, plan: Plan, k: number, row: Row): void {
  const c = runCase(w, kind, plan);
  if (plan.mode === "write" && !c.injected && !c.crashed && !c.bootFailed && !c.verdict.failures.length) return; // fewer writes, or never fired
  row.runs++;
  if (c.injected) row.fired++;
  const where = plan.mode === "boot" ? `cut after storage write ${k}, boot with ${kind} ${JSON.stringify(plan.opts)}` : `after storage write ${k} (${kind})`;
  const note = (which: "crash" | "boot" | "loss") => {
    if (row.examples[which].length < 2) row.examples[which].push(`${where}: ${c.verdict.failures.slice(0, 2).join("; ")}`);
  };
  if (c.crashed) {
    row.crashes++;
    note("crash");
  }
  if (c.bootFailed) {
    row.boot_failures++;
    note("boot");
  }
  row.acked_lost += c.verdict.ackedLost;
  row.wrong_replies += c.verdict.wrongReplies;
  if (c.verdict.ackedLost + c.verdict.wrongReplies > 0) note("loss");
  else if (!c.crashed && !c.bootFailed && c.injected) row.ok++;
}

// how many storage writes a clean run makes
const total = countWrites(w, "storage");
const t0 = Date.now();
const sum: Omit<Row, "fault" | "examples"> = { runs: 0, fired: 0, ok: 0, crashes: 0, boot_failures: 0, acked_lost: 0, wrong_replies: 0 };
for (const kind of kinds) {
  const row: Row = { fault: kind, runs: 0, fired: 0, ok: 0, crashes: 0, boot_failures: 0, acked_lost: 0, wrong_replies: 0, examples: { crash: [], boot: [], loss: [] } };
  for (let k = 1; k <= total; k += stride)
    if (boot) for (let at = 1; at <= 3; at++) one(kind, { mode: "boot", cutAt: k, cutPartition: "storage", opts: { at, seed: k, partition: "storage" } }, k, row);
    else one(kind, { mode: "write", partition: "storage", k, opts: { at: 1, seed: k, partition: "storage" } }, k, row);
  process.stdout.write(JSON.stringify({ workload: w.name, phase: boot ? "boot" : "run", tears: allTears ? "all" : "default", storage_writes: total, stride, ...row }) + "\n");
  for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += row[key];
}
process.stderr.write(`spiffs-faults: ${kinds.length} kinds in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
process.stdout.write(JSON.stringify({ total: sum }) + "\n");

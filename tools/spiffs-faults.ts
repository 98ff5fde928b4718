// npm run spiffs-faults: the archive's power-cut workload (test/powercut/
// archive.workload.ts) run again with each SPIFFS fault of host-sim/faults.ts
// injected once, after the k-th flash write of the run, for k across the run;
// then a reboot and the workload's own check (boot, nothing acknowledged lost,
// nothing torn or duplicated, recall consistent, the next append found).
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
import { PowerCut } from "../host-sim/flash";
import { ALL_TEAR_MODES } from "../host-sim/spiffs";
import { SPIFFS_FAULTS, type FaultKind } from "../host-sim/faults";
import { archiveWorkload as w, type ArchiveModel } from "../test/powercut/archive.workload";

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
  fired: number; // runs in which the fault took effect (it was consumed or applied)
  ok: number; // fired and everything checked out
  crashes: number; // device code threw out of the workload (not a power cut)
  boot_failures: number; // the check after the reboot threw
  acked_lost: number;
  torn_records: number;
  duplicates: number;
  examples: { crash: string[]; boot: string[]; loss: string[] };
}

function run(kind: FaultKind, k: number, row: Row): void {
  const dev = new SimDevice({ now: w.start }).install();
  if (allTears) dev.spiffs.tearModes = ALL_TEAR_MODES;
  // the workload replays (ack/inflight from the clean run) when the flash is armed
  // at its start: a cut far past the end marks the run as a replay
  dev.flash.cutAfter(1e9);
  let acked: ArchiveModel | undefined, inflight: ArchiveModel | undefined;
  let writes = 0;
  let injected = "";
  dev.flash.onChange = (partition) => {
    if (partition !== "storage" || ++writes !== k) return;
    injected = dev.inject(kind, { at: 1, seed: k, partition: "storage" });
  };
  const note = (kind: "crash" | "boot" | "loss", s: string) => {
    const list = row.examples[kind];
    if (list.length < 2) list.push(`after storage write ${k} (${injected}): ${s}`);
  };
  let crashed = false;
  try {
    w.script(dev, (m) => (acked = m), (m) => (inflight = m));
  } catch (e) {
    if (!(e instanceof PowerCut)) {
      crashed = true;
      row.crashes++;
      note("crash", `workload threw ${(e as Error).name}: ${(e as Error).message}`);
    }
  }
  dev.flash.onChange = undefined;
  if (!injected) return; // the run had fewer writes
  row.runs++;
  const pending = kind !== "power_cut" && dev.spiffs.isArmed(kind as never);
  if (!pending || kind === "mount_failure") row.fired++;
  dev.flash.disarm();
  dev.reboot();
  try {
    const v = w.verify(dev, acked, inflight);
    row.acked_lost += v.ackedLost;
    row.torn_records += v.torn;
    row.duplicates += v.duplicates;
    if (v.ackedLost + v.torn + v.duplicates > 0) note("loss", `lost ${v.ackedLost}, torn ${v.torn}, duplicates ${v.duplicates}`);
    else if (!crashed) row.ok++;
  } catch (e) {
    row.boot_failures++;
    note("boot", `boot/check threw ${(e as Error).name}: ${(e as Error).message}`);
  }
}

// A power cut after storage write k, then a boot with `kind` armed at its at-th operation.
function runBoot(kind: FaultKind, k: number, at: number, row: Row): void {
  const dev = new SimDevice({ now: w.start }).install();
  if (allTears) dev.spiffs.tearModes = ALL_TEAR_MODES;
  dev.flash.cutAfter(1e9);
  let acked: ArchiveModel | undefined, inflight: ArchiveModel | undefined;
  let writes = 0;
  dev.flash.onChange = (partition) => {
    if (partition === "storage" && ++writes === k) dev.inject("power_cut", { at: 1, seed: k });
  };
  try {
    w.script(dev, (m) => (acked = m), (m) => (inflight = m));
  } catch (e) {
    if (!(e instanceof PowerCut)) throw e;
  }
  dev.flash.onChange = undefined;
  if (writes < k) return;
  row.runs++;
  dev.flash.disarm();
  dev.reboot();
  const injected = dev.inject(kind, { at, seed: k, partition: "storage" });
  const note = (which: "boot" | "loss", s: string) => {
    if (row.examples[which].length < 2) row.examples[which].push(`cut after storage write ${k}, boot with ${injected}: ${s}`);
  };
  try {
    const v = w.verify(dev, acked, inflight);
    if (!dev.spiffs.isArmed(kind as never)) row.fired++;
    row.acked_lost += v.ackedLost;
    row.torn_records += v.torn;
    row.duplicates += v.duplicates;
    if (v.ackedLost + v.torn + v.duplicates > 0) note("loss", `lost ${v.ackedLost}, torn ${v.torn}, duplicates ${v.duplicates}`);
    else row.ok++;
  } catch (e) {
    row.fired++;
    row.boot_failures++;
    note("boot", `boot/check threw ${(e as Error).name}: ${(e as Error).message}`);
  }
}

const { stride, kinds, boot, allTears } = args();
// how many storage writes a clean run makes
let total = 0;
{
  const dev = new SimDevice({ now: w.start }).install();
  dev.flash.onChange = (p) => {
    if (p === "storage") total++;
  };
  w.script(dev, () => {}, () => {});
}
const t0 = Date.now();
const sum: Omit<Row, "fault" | "examples"> = { runs: 0, fired: 0, ok: 0, crashes: 0, boot_failures: 0, acked_lost: 0, torn_records: 0, duplicates: 0 };
for (const kind of kinds) {
  const row: Row = { fault: kind, runs: 0, fired: 0, ok: 0, crashes: 0, boot_failures: 0, acked_lost: 0, torn_records: 0, duplicates: 0, examples: { crash: [], boot: [], loss: [] } };
  for (let k = 1; k <= total; k += stride)
    if (boot) for (let at = 1; at <= 3; at++) runBoot(kind, k, at, row);
    else run(kind, k, row);
  process.stdout.write(JSON.stringify({ workload: w.name, phase: boot ? "boot" : "run", tears: allTears ? "all" : "default", storage_writes: total, stride, ...row }) + "\n");
  for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += row[key];
}
process.stderr.write(`spiffs-faults: ${kinds.length} kinds in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
process.stdout.write(JSON.stringify({ total: sum }) + "\n");

// npm run powercut: every fault kind of the device (host-sim/faults.ts),
// injected into every workload (test/powercut/), each case checked by the
// absolute oracle after a reboot. One JSON line per kind, after a first line
// for the workloads run without a fault ("kind":"none"), then a last line
// with "fault_kinds" and the totals. Exits 1 on any loss, boot failure,
// wrong reply or crash (expected-to-fail kinds included).
//
//   npx tsx tools/powercut.ts [--quick] [--kind K[,K]] [--workload W[,W]]
//   --quick: every 13th write for power_cut (every 4th without it) and fewer positions (for tools/mutate.ts);
//            without the long workloads (--workload update: about 15 minutes on its own)
import { sweepKind, failed, FAULT_KINDS, type KindResult, type SweepOptions } from "../test/powercut/harness";
import { workloads, longWorkloads } from "../test/powercut/index";
import { EXPECTED_TO_FAIL } from "../test/powercut/expected";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";

setTraceSink(() => {});
const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes("--quick");
const kinds = (opt("--kind")?.split(",") ?? ["none", ...FAULT_KINDS]) as ("none" | (typeof FAULT_KINDS)[number])[];
const only = opt("--workload")?.split(",");
// the long workloads (a 2-year pet updated: test/powercut/update.workload.ts)
// run in the full sweep and by name, not in --quick
const all = [...workloads, ...longWorkloads];
const ws = only ? all.filter((w) => only.includes(w.name)) : quick ? workloads : all;
// byte-level NVS (two copies, a mirror file) and the archive workloads: about 14,600 flash writes in all
const o: SweepOptions = quick ? { stride: 13, seeds: 8, ops: 6 } : { stride: 4, seeds: 64, ops: 16 };

const t0 = Date.now();
const total = { injected: 0, acked_lost: 0, boot_failures: 0, wrong_replies: 0, crashes: 0, cases: 0, checked: 0 };
const notModelled: string[] = [];
const failing: string[] = [];
for (const k of kinds) {
  const r: KindResult = sweepKind(k, ws, o);
  process.stdout.write(JSON.stringify(r) + "\n");
  for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += r[key];
  if (r.not_modelled) notModelled.push(k);
  if (failed(r)) failing.push(k);
}
const seconds = Math.round((Date.now() - t0) / 100) / 10;
process.stdout.write(
  JSON.stringify({ fault_kinds: FAULT_KINDS, ...total, not_modelled: notModelled, failing, expected_to_fail: Object.keys(EXPECTED_TO_FAIL), workloads: ws.map((w) => w.name), seconds }) + "\n",
);
process.exit(total.acked_lost + total.boot_failures + total.wrong_replies + total.crashes > 0 ? 1 : 0);

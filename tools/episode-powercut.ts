// npm run powercut:episodes: the fault sweeps of the episode store
// (test/episode-sweep.ts) for every fault kind of the device, each case
// checked by the absolute oracle after a reboot. One JSON line per kind, then
// a last line with the totals. Exits 1 on any loss, wrong reply, boot failure
// or crash. The episodes are not in the MCP tool's workloads yet (the
// integrator folds them into `npm run powercut`).
//
//   npx tsx tools/episode-powercut.ts [--kind K[,K]] [--stride N] [--seeds N] [--ops N]
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { sweepKind, FAULT_KINDS } from "../test/episode-sweep";

setTraceSink(() => {});
const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const kinds = (opt("--kind")?.split(",") ?? ["none", ...FAULT_KINDS]) as ("none" | (typeof FAULT_KINDS)[number])[];
const o = { stride: Number(opt("--stride") ?? 1), seeds: Number(opt("--seeds") ?? 64), ops: Number(opt("--ops") ?? 60) };
const t0 = Date.now();
const total = { cases: 0, injected: 0, acked_lost: 0, wrong_replies: 0, boot_failures: 0, crashes: 0, checked: 0 };
const failing: string[] = [];
for (const k of kinds) {
  const r = sweepKind(k, o);
  process.stdout.write(JSON.stringify(r) + "\n");
  for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += r[key];
  if (r.acked_lost + r.wrong_replies + r.boot_failures + r.crashes) failing.push(k);
}
process.stdout.write(JSON.stringify({ workload: "episode", fault_kinds: kinds, ...total, failing, seconds: Math.round((Date.now() - t0) / 100) / 10 }) + "\n");
process.exit(failing.length ? 1 : 0);

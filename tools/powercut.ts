// npm run powercut: cut power at every flash write of every workload, reboot,
// check. One JSON line per workload, then the total as the last line.
import { sweep, type SweepResult } from "../test/powercut/harness";
import { workloads } from "../test/powercut/index";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";

setTraceSink(() => {});
const t0 = Date.now();
const total = { cut_points: 0, recovered: 0, acked_lost: 0, torn_records: 0, duplicates: 0, boot_failures: 0 };
const results: SweepResult[] = [];
for (const w of workloads) {
  const r = sweep(w);
  results.push(r);
  process.stdout.write(JSON.stringify(r) + "\n");
  for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += r[k];
}
process.stderr.write(`powercut: ${workloads.length} workloads in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
process.stdout.write(JSON.stringify(total) + "\n");
const bad = total.acked_lost + total.torn_records + total.duplicates + total.boot_failures;
process.exit(bad || total.recovered !== total.cut_points ? 1 : 0);

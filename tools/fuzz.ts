// npm run fuzz -- [--n 100000] [--seed S]: random and malformed messages to the
// MCP server of a simulated device (test/fuzz/fuzzer.ts). Failures, then a
// statistics line, go to stderr; the last line on stdout is the verdict:
//   {"inputs":N,"bad_responses":0,"crashes":0,"state_changed_on_reject":0}
// Exits non-zero if any counter is not zero.
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { fuzz, summary } from "../test/fuzz/fuzzer";

function usage(message: string): never {
  process.stderr.write(`fuzz: ${message}\nusage: npm run fuzz -- [--n N] [--seed S]\n`);
  process.exit(2);
}

let n = 100000;
let seed = (Date.now() ^ (process.pid << 16)) >>> 0;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const v = () => argv[++i] ?? usage(`${a} needs a value`);
  if (a === "--n") n = Number(v());
  else if (a === "--seed") seed = Number(v()) >>> 0;
  else usage(`unknown option ${a}`);
  if (!(Number.isInteger(n) && n >= 0)) usage("--n must be a whole number");
}

setTraceSink(() => {});
process.stderr.write(`fuzz: seed ${seed} (replay: npm run fuzz -- --n ${n} --seed ${seed})\n`);
const r = fuzz({ n, seed });
for (const x of r.reports) process.stderr.write(JSON.stringify(x) + "\n");
const { reports, ...stats } = r;
process.stderr.write(`fuzz: ${(r.ms / 1000).toFixed(1)} s, ${Math.round(r.inputs / Math.max(r.ms / 1000, 0.001))} inputs/s\n`);
process.stdout.write(JSON.stringify(stats) + "\n");
process.stdout.write(summary(r) + "\n");
process.exit(r.bad_responses || r.crashes || r.state_changed_on_reject ? 1 : 0);

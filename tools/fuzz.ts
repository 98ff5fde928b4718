// npm run fuzz -- [--n 100000] [--seed S] [--xs] [--reset K]: random and malformed messages
// to the MCP server of a simulated device (test/fuzz/fuzzer.ts), on Node, or
// with --xs inside the device-like XS engine of the test lane (test/xs/fuzz.ts:
// generator, device, service and checker all in XS; an abort of the engine
// itself counts as a crash). Failures, then a statistics line, go to stderr;
// stdout gets the statistics as JSON (with what the inputs held: over_16k,
// too_deep, too_many_items, deepest, surrogates, huge_numbers), then the
// verdict as the last line:
//   {"engine":"node"|"xs","inputs":N,"bad_responses":0,"crashes":0,"state_changed_on_reject":0}
// --reset K (default 2000): a fresh simulated device every K inputs (0: one
// device for the whole run). The inputs are the seed's either way; a finding
// replays with the same K (the replay line gives it). Why: a device that has
// lived through tens of thousands of inputs spends most of each advance of
// its clock on upkeep steps (archive, episodes), and its answers slow down;
// see docs/design/fuzz.md.
// Exits non-zero if any counter is not zero.
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { fuzz, summary, type FuzzResult, type Report } from "../test/fuzz/fuzzer";
import { fuzzXs } from "../test/xs/fuzz";

function usage(message: string): never {
  process.stderr.write(`fuzz: ${message}\nusage: npm run fuzz -- [--n N] [--seed S] [--xs] [--reset K]\n`);
  process.exit(2);
}

let n = 100000;
let seed = (Date.now() ^ (process.pid << 16)) >>> 0;
let xs = false;
let reset = 2000;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const v = () => argv[++i] ?? usage(`${a} needs a value`);
  if (a === "--n") n = Number(v());
  else if (a === "--seed") seed = Number(v()) >>> 0;
  else if (a === "--xs") xs = true;
  else if (a === "--reset") reset = Number(v());
  else usage(`unknown option ${a}`);
  if (!(Number.isInteger(n) && n >= 0)) usage("--n must be a whole number");
  if (!(Number.isInteger(reset) && reset >= 0)) usage("--reset must be a whole number");
}

setTraceSink(() => {});
const engine = xs ? "xs" : "node";
const again = `--seed ${seed} --reset ${reset}${xs ? " --xs" : ""}`;
process.stderr.write(`fuzz: ${engine}, seed ${seed}, a fresh device every ${reset || "(never)"} inputs (replay: npm run fuzz -- --n ${n} ${again})\n`);
// every finding goes out as it is found, with its seed and index, so a run
// that dies later (or is killed by a timeout) still leaves what it found
const onReport = (x: Report) =>
  process.stderr.write(
    `fuzz: finding, seed ${seed}, input ${x.at} (replay: npm run fuzz -- --n ${(x.at ?? n - 1) + 1} ${again}): ${JSON.stringify(x)}\n`,
  );
const r: FuzzResult & { stopped_early?: string } = xs ? await fuzzXs({ n, seed, onReport, reset }) : fuzz({ n, seed, onReport, reset });
const { reports, ...stats } = r;
process.stderr.write(`fuzz: ${engine}: ${(r.ms / 1000).toFixed(1)} s, ${Math.round(r.inputs / Math.max(r.ms / 1000, 0.001))} inputs/s${r.stopped_early ? `; ${r.stopped_early}` : ""}\n`);
process.stdout.write(JSON.stringify({ engine, ...stats }) + "\n");
process.stdout.write(summary(r, engine) + "\n");
process.stderr.write(`fuzz: ${engine}, seed ${seed}: ${r.inputs} inputs, ${r.bad_responses + r.crashes + r.state_changed_on_reject} findings\n`);
process.exit(r.bad_responses || r.crashes || r.state_changed_on_reject || r.inputs !== n ? 1 : 0);

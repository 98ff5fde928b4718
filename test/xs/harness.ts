// Entry of the XS bundle (built by test/xs/run.ts). Runs the shared scenario
// list inside XS and reports through issueCommand as UTF-8 JSON (print()
// mangles characters outside the BMP). The runner calls
//   __petmem.main({grep, start, shard})
// which returns a promise; the worker drains the job queue after each command.
// Messages (each answered with an empty reply):
//   {t:"plan", tests:[{file,name}]}   the filtered list
//   {t:"start", i}                    scenario i begins (so a crash or a stall is attributed)
//   {t:"result", i, ok, message?, stack?}  stack: raw XS frames ("at fn (bundle:line)")
//   {t:"done"}
//   {t:"trace", text}                 trace() output, written to stderr
// If the job queue empties while a scenario still awaits, "done" never comes:
// the runner marks scenario i as stalled and calls main again with start = i + 1.
import "../../host-sim/trace.js"; // the device's `trace` global, as test/scenarios.test.ts installs it for mocha
import { setTraceSink } from "../../host-sim/trace-sink.js";
import { allScenarios } from "../scenarios/index.js";
import { freezeIntrinsics } from "./intrinsics.js";
import { COSTS, DEFAULT } from "./costs.js";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

// xsnap's global TextEncoder is the same C code as the device's text/encoder module.
const encoder = new (globalThis as unknown as { TextEncoder: typeof TextEncoder }).TextEncoder();

function send(msg: object): void {
  const bytes = encoder.encode(JSON.stringify(msg));
  issueCommand(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

function describe(e: unknown): { message: string; stack?: string[] } {
  if (e instanceof Error) {
    const stack = typeof e.stack === "string" ? e.stack.split("\n").slice(1).map((l) => l.trim()).filter(Boolean) : undefined;
    return { message: `${e.name}: ${e.message}`, stack };
  }
  try {
    return { message: `thrown ${typeof e}: ${JSON.stringify(e) ?? String(e)}` };
  } catch {
    return { message: `thrown ${String(e)}` };
  }
}

// trace() output goes to the runner (stderr) as UTF-8, not through print().
setTraceSink((text) => send({ t: "trace", text }));

freezeIntrinsics();

const tests = allScenarios.flatMap((f) => f.scenarios.map((s) => ({ file: f.file, scenario: s })));

// The k-th of n parts of `list`, split by the scenarios' measured seconds
// (test/xs/costs.ts): the slowest first, each to the part with the least so
// far. The n parts together are the list, each scenario in one; each part
// keeps the list's order. Every run of the same list splits it the same way.
function shardOf<T extends { file: string; scenario: { name: string } }>(list: T[], k: number, n: number): T[] {
  const load: number[] = [];
  for (let s = 0; s < n; s++) load.push(0);
  const order = list.map((t, i) => ({ i, cost: COSTS[`${t.file}: ${t.scenario.name}`] ?? DEFAULT }));
  order.sort((a, b) => b.cost - a.cost || a.i - b.i);
  const mine = new Set<number>();
  for (const o of order) {
    let best = 0;
    for (let s = 1; s < n; s++) if (load[s] < load[best]) best = s;
    load[best] += o.cost;
    if (best === k) mine.add(o.i);
  }
  return list.filter((_t, i) => mine.has(i));
}

async function main(opts: { grep?: string; start?: number; shard?: [number, number] }): Promise<void> {
  const matched = opts.grep ? tests.filter((t) => `${t.file}: ${t.scenario.name}`.includes(opts.grep!)) : tests;
  // shard [k, n]: the k-th of n parts of about equal time (two workers share a machine's cores)
  const sh = opts.shard;
  const list = sh ? shardOf(matched, sh[0], sh[1]) : matched;
  const start = opts.start ?? 0;
  if (start === 0) send({ t: "plan", files: allScenarios.map((f) => f.file), tests: list.map((t) => ({ file: t.file, name: t.scenario.name })) });
  for (let i = start; i < list.length; i++) {
    send({ t: "start", i });
    try {
      await list[i].scenario.run();
      send({ t: "result", i, ok: true });
    } catch (e) {
      send({ t: "result", i, ok: false, ...describe(e) });
    }
  }
  send({ t: "done" });
}

(globalThis as unknown as { __petmem: unknown }).__petmem = { main };

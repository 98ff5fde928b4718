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

async function main(opts: { grep?: string; start?: number; shard?: [number, number] }): Promise<void> {
  const matched = opts.grep ? tests.filter((t) => `${t.file}: ${t.scenario.name}`.includes(opts.grep!)) : tests;
  // shard [k, n]: every n-th scenario from the k-th (two workers share a machine's cores)
  const sh = opts.shard;
  const list = sh ? matched.filter((_t, i) => i % sh[1] === sh[0]) : matched;
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

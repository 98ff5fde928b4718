// The MCP fuzzer inside XS (issue 11 §8): `npm run fuzz -- --xs` and
// test/fuzz.test.ts. Bundles test/xs/fuzz-entry.ts like the XS lane does
// (test/xs/bundle.ts: no Node APIs) and runs it in the lane's device-like
// xsnap worker (test/xs/build-worker.ts: UTF-8 strings, no normalize or \p,
// the manifest's XS stack), so the generator, the simulated device, the
// service and the checker all run on the device's engine.
//
// A crash of the engine itself (an abort such as a stack overflow, "memory
// full", a hang) kills the worker: it counts as a crash of the input that was
// being handled, whose text is regenerated in a fresh worker for the report,
// and the run resumes with the next input in a new worker (a fresh device,
// seeded again). The counters of the inputs before the crash are kept: the
// worker reports them before every input.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleForXs, splitBundle } from "./bundle";
import { cacheRoot, ensureWorker } from "./build-worker";
import { Xsnap, XsException } from "./xsnap";
import type { FuzzResult, Report } from "../fuzz/fuzzer";
import type { XsFuzzOptions } from "./fuzz-entry"; // types only: its top level freezes the built-ins
import { COUNTERS } from "./fuzz-counters";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface XsFuzzResult extends FuzzResult {
  engine: "xs";
  workers: number; // workers started: 1 + one per engine crash
  stopped_early?: string; // set when the run gave up (too many engine crashes)
}

export interface XsFuzzRunOptions {
  n: number;
  seed: number;
  maxReports?: number;
  mutant?: XsFuzzOptions["mutant"];
  // an engine crash restarts the worker; after this many the run stops
  maxEngineCrashes?: number;
  // a worker silent this long (no new input) is killed and counted as a crash
  stallMs?: number;
  // every finding as it is found (also past maxReports)
  onReport?(r: Report): void;
  // every 1,000th input, before it is sent
  onProgress?(i: number): void;
  // a fresh device every `reset` inputs (test/fuzz/fuzzer.ts FuzzOptions; 0: one device)
  reset?: number;
}

export async function fuzzXs(opts: XsFuzzRunOptions): Promise<XsFuzzResult> {
  const t0 = Date.now();
  const maxReports = opts.maxReports ?? 20;
  const bin = await ensureWorker();
  fs.mkdirSync(cacheRoot(), { recursive: true });
  const bundle = path.join(cacheRoot(), `fuzz-${process.pid}.js`);
  await bundleForXs(path.join(here, "fuzz-entry.ts"), bundle);
  const parts = splitBundle(bundle); // a whole device's bundle is more top-level declarations than one script's stack holds
  const res: XsFuzzResult = {
    engine: "xs", inputs: 0, bad_responses: 0, crashes: 0, state_changed_on_reject: 0, seed: opts.seed,
    valid_calls: 0, accepted: 0, rejected: 0, no_reply: 0, flash_writes: 0,
    over_16k: 0, too_deep: 0, too_many_items: 0, deepest: 0, surrogates: 0, huge_numbers: 0, ms: 0, reports: [], workers: 0,
  };
  const add = (c: number[]) => COUNTERS.forEach((k, j) => (res[k] = k === "deepest" ? Math.max(res[k], c[j]) : res[k] + c[j]));
  const dec = new TextDecoder();
  const report = (r: Report) => {
    if (res.reports.length < maxReports) res.reports.push(r);
    opts.onReport?.(r);
  };
  const stallMs = opts.stallMs ?? 60_000;
  try {
    let from = 0;
    while (from < opts.n) {
      let last: { i: number; c: number[] } | undefined;
      let done: Omit<FuzzResult, "reports"> | undefined;
      let stalled = false;
      let watchdog: NodeJS.Timeout | undefined;
      const worker = new Xsnap({
        bin,
        onCommand(bytes) {
          const msg = JSON.parse(dec.decode(bytes));
          if (msg.t === "i") {
            last = { i: msg.i, c: msg.c };
            watchdog?.refresh();
            if (opts.onProgress && msg.i % 1000 === 0) opts.onProgress(msg.i);
          } else if (msg.t === "report") report(msg.r);
          else if (msg.t === "done") done = msg.res;
          return new Uint8Array(0);
        },
      });
      res.workers++;
      watchdog = setTimeout(() => {
        stalled = true;
        worker.kill();
      }, stallMs);
      try {
        for (const p of parts) await worker.script(p);
        const o: XsFuzzOptions = { n: opts.n, seed: opts.seed, from, maxReports, mutant: opts.mutant, reset: opts.reset };
        await worker.evaluate(`__fuzz.main(${JSON.stringify(o)})`);
        if (!done) throw new Error("the XS fuzzer returned without a result");
        clearTimeout(watchdog);
        const exit = await worker.close();
        if (exit.code !== 0) throw new Error(`xsnap-worker exited with code ${exit.code} after the run`);
        add(COUNTERS.map((k) => done![k]));
        break;
      } catch (e) {
        clearTimeout(watchdog);
        worker.kill();
        await worker.exited;
        const why = stalled ? `no progress for ${stallMs / 1000} s` : (e as Error).message;
        if (done) throw new Error(`the XS worker failed after the run: ${why}`);
        if (!last || last.i < from) throw new Error(`the XS worker failed before its first input (${from}): ${why}`);
        add(last.c); // inputs from..last.i-1
        res.inputs++;
        res.crashes++;
        const where = e instanceof XsException ? "uncaught in XS" : "XS engine";
        report({ kind: "crash", at: last.i, input: await inputText(bin, parts, opts.seed, last.i), detail: `input ${last.i}: ${where}: ${why}` });
        from = last.i + 1;
        if (res.crashes >= (opts.maxEngineCrashes ?? 50)) {
          res.stopped_early = `stopped after ${res.crashes} engine crashes, at input ${from} of ${opts.n}`;
          break;
        }
      }
    }
  } finally {
    fs.rmSync(bundle, { force: true });
    for (const p of parts) fs.rmSync(p, { force: true });
  }
  res.ms = Date.now() - t0;
  return res;
}

// The text of input i, regenerated in a fresh worker.
async function inputText(bin: string, parts: string[], seed: number, i: number): Promise<string> {
  const xs = new Xsnap({ bin });
  try {
    for (const p of parts) await xs.script(p);
    const bytes = await xs.evaluate(`__fuzz.input(${seed}, ${i})`);
    return (JSON.parse(new TextDecoder().decode(bytes)) as { text: string }).text;
  } catch (e) {
    return `(input ${i} could not be regenerated: ${(e as Error).message})`;
  } finally {
    await xs.close().catch(() => undefined);
  }
}

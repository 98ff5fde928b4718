// The XS test lane (`npm run test:xs`): runs the shared scenarios
// (test/scenarios/index.ts) inside a device-like XS engine.
//
//   1. ensureWorker(): builds/caches an xsnap-worker without mxCESU8,
//      mxStringNormalize, mxRegExpUnicodePropertyEscapes (test/xs/build-worker.ts).
//   2. esbuild bundles test/xs/harness.ts as one IIFE script (target es2022).
//      Moddable module names (preference, file, timer, time, mc/config,
//      text/encoder, text/decoder) resolve through ONE mechanism: esbuild's own
//      support for tsconfig.json `compilerOptions.paths`, i.e. the same mapping
//      tsc and tsx use. A plugin refuses Node built-ins and desktop/.
//   3. The worker runs the bundle (`s`), then `__petmem.main(...)` (`e`); results
//      come back through issueCommand as UTF-8 JSON.
//
// Usage: tsx test/xs/run.ts [--grep STR] [--shard K/N] [--keep-bundle]
// --shard K/N runs the K-th (0-based) of N parts of about equal time (by the
// measured seconds in test/xs/costs.ts; test/xs/update-costs.ts writes them
// again from a run's output): N runs with K = 0..N-1 together cover the lane,
// one worker each (npm test runs two).
// Env: XS_TEST_TIMEOUT = seconds per scenario (default 900: a watchdog for a hung scenario, not a speed target; the archive power-cut sweep takes about 210 s beside one other process on 2 cores, and over 360 s beside npm test's two others);
//      XS_SCENARIO_INDEX = another module to use instead of test/scenarios/index.ts
//      (same export; for testing this runner itself).
// Output: one `ok - file: name` / `not ok - file: name: message` line per scenario,
// last line `N passed, N failed`; exit 1 on any failure, crash, or zero scenarios.

import fs from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot, ensureWorker } from "./build-worker";
import { Xsnap, XsException } from "./xsnap";
import { bundleForXs, splitBundle } from "./bundle";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const rel = (p: string) => path.relative(repoRoot, p) || p;

function parseArgs(argv: string[]): { grep?: string; keep: boolean; shard?: [number, number] } {
  let grep: string | undefined;
  let keep = false;
  let shard: [number, number] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--grep") grep = argv[++i];
    else if (a.startsWith("--grep=")) grep = a.slice(7);
    else if (a === "--keep-bundle") keep = true;
    else if (a === "--shard") {
      const m = /^(\d+)\/(\d+)$/.exec(argv[++i] ?? "");
      if (!m || Number(m[1]) >= Number(m[2])) throw new Error(`--shard takes K/N with K < N, not ${argv[i]}`);
      shard = [Number(m[1]), Number(m[2])];
    } else throw new Error(`unknown argument ${a} (usage: run.ts [--grep STR] [--shard K/N] [--keep-bundle])`);
  }
  if (grep === "") grep = undefined;
  return { grep, keep, shard };
}

function bundle(out: string): Promise<void> {
  return bundleForXs(path.join(here, "harness.ts"), out, { sourcemap: true, harness: true });
}

// XS reports locations as `<bundle>:<line>`; rewrite them to `<source>.ts:<line>`.
function locationMapper(bundlePath: string): (text: string) => string {
  let map: SourceMap | undefined;
  try {
    map = new SourceMap(JSON.parse(fs.readFileSync(`${bundlePath}.map`, "utf8")));
  } catch {
    return (t) => t;
  }
  const escaped = bundlePath.replace(/\.js$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return (text) =>
    // the bundle or one of its parts (splitBundle: same line numbers)
    text.replace(new RegExp(`${escaped}(?:\\.p\\d+)?\\.js:(\\d+)`, "g"), (whole, line: string) => {
      const e = map!.findEntry(Number(line) - 1, 1e6) as { generatedLine?: number; originalSource?: string; originalLine?: number };
      if (e?.generatedLine !== Number(line) - 1 || !e.originalSource) return whole;
      const src = e.originalSource.startsWith("file:") ? fileURLToPath(e.originalSource) : path.resolve(path.dirname(bundlePath), e.originalSource);
      return `${rel(src)}:${(e.originalLine ?? 0) + 1}`;
    });
}

// XS (built with mxNoConsole) reports a parse error as a bare "SyntaxError". Point at the
// usual device-incompatible syntax: regex property escapes \p{…}/\P{…} (not built into
// device builds; one literal anywhere fails the whole script).
function parseHints(bundlePath: string, mapLocations: (t: string) => string): string {
  const lines = fs.readFileSync(bundlePath, "utf8").split("\n");
  const hits: string[] = [];
  lines.forEach((l, i) => {
    if (/\\[pP]\{/.test(l) && hits.length < 5) hits.push(mapLocations(`${bundlePath}:${i + 1}`));
  });
  return hits.length ? `; \\p{…} regex escapes (unsupported on the device) at ${hits.join(", ")}` : "";
}

interface Test { file: string; name: string }

async function main(): Promise<number> {
  const { grep, keep, shard } = parseArgs(process.argv.slice(2));
  const timeoutMs = Number(process.env.XS_TEST_TIMEOUT ?? 900) * 1000;
  const t0 = Date.now();
  const bin = await ensureWorker();
  const t1 = Date.now();
  // Bundles of failed runs are kept for debugging; drop those older than an hour.
  for (const n of fs.readdirSync(cacheRoot()))
    if (n.startsWith("harness-") && Date.now() - fs.statSync(path.join(cacheRoot(), n)).mtimeMs > 3600_000)
      fs.rmSync(path.join(cacheRoot(), n), { force: true });
  const bundlePath = path.join(cacheRoot(), `harness-${process.pid}.js`);
  await bundle(bundlePath);
  const mapLocations = locationMapper(bundlePath);
  const parts = splitBundle(bundlePath);
  const t2 = Date.now();

  let tests: Test[] | null = null;
  let files: string[] = [];
  const results: ({ ok: boolean; message?: string } | undefined)[] = [];
  let current = -1;
  let startedAt = 0;
  let done = false;
  let timedOut = false;
  let worker: Xsnap | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  const decoder = new TextDecoder();

  const record = (i: number, ok: boolean, message?: string, stack?: string[]) => {
    if (!tests || results[i]) return;
    // Keep the first two frames outside the assert library, mapped to the .ts sources.
    const frames = (stack ?? []).map(mapLocations).filter((f) => /:\d+\)?$/.test(f) && !f.includes("test/scenarios/assert.ts"));
    if (frames.length) message += ` (${frames.slice(0, 2).join(" ← ")})`;
    results[i] = { ok, message };
    const label = `${tests[i].file}: ${tests[i].name}`;
    // the scenario's wall time (the runner's clock, from its "start" message), for finding slow ones
    const took = startedAt ? ` # ${((Date.now() - startedAt) / 1000).toFixed(1)} s` : "";
    console.log(ok ? `ok - ${label}${took}` : `not ok - ${label}: ${String(message).replace(/\s*\n\s*/g, " ")}${took}`);
  };
  const arm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      timedOut = true;
      worker?.kill();
    }, timeoutMs);
  };
  const onCommand = (bytes: Uint8Array): Uint8Array => {
    const msg = JSON.parse(decoder.decode(bytes));
    if (msg.t === "plan") {
      tests = msg.tests;
      files = msg.files;
    } else if (msg.t === "start") {
      current = msg.i;
      startedAt = Date.now();
      arm();
    } else if (msg.t === "result") {
      record(msg.i, msg.ok, msg.message, msg.stack);
      current = -1;
      startedAt = 0;
    } else if (msg.t === "done") done = true;
    else if (msg.t === "trace") process.stderr.write(String(msg.text).endsWith("\n") ? msg.text : `${msg.text}\n`);
    return new Uint8Array(0);
  };

  let fatal: string | undefined;
  let start = 0;
  for (;;) {
    // One worker per pass; a new pass only after a crash or timeout inside a scenario.
    worker = new Xsnap({ bin, onCommand });
    try {
      arm();
      for (const p of parts) await worker.script(p);
      for (;;) {
        done = false;
        current = -1;
        await worker.evaluate(`__petmem.main(${JSON.stringify({ grep, start, shard })})`);
        if (done) break;
        if (current < 0) throw new Error("the harness stopped without reporting done");
        // The worker went idle with the scenario's promise unsettled: nothing can resolve it.
        record(current, false, "never settled: the job queue ran dry while it was still awaiting");
        start = current + 1;
      }
      clearTimeout(watchdog);
      const exit = await worker.close();
      if (exit.code !== 0) fatal = `xsnap-worker exited with code ${exit.code} after the run`;
      break;
    } catch (e) {
      clearTimeout(watchdog);
      worker.kill();
      await worker.exited;
      const why = timedOut
        ? `timed out after ${timeoutMs / 1000} s (XS_TEST_TIMEOUT)`
        : e instanceof XsException
          ? `XS threw: ${e.message}`
          : `worker crashed: ${(e as Error).message}`;
      timedOut = false;
      if (tests && current >= 0) {
        record(current, false, why);
        start = current + 1;
        continue;
      }
      fatal = tests ? why : `${why} (while loading ${rel(bundlePath)}${parseHints(bundlePath, mapLocations)})`;
      break;
    }
  }
  const t3 = Date.now();

  const list: Test[] = tests ?? [];
  let passed = 0;
  let failed = 0;
  list.forEach((t, i) => {
    if (!results[i]) record(i, false, "not run");
    if (results[i]?.ok) passed++;
    else failed++;
  });
  if (!grep && (!shard || shard[0] === 0) && tests && !process.env.XS_SCENARIO_INDEX) {
    for (const f of fs.readdirSync(path.join(repoRoot, "test/scenarios")).filter((n) => n.endsWith(".scn.ts")).sort()) {
      if (!files.some((x) => x.includes(f.replace(/\.scn\.ts$/, "")))) {
        console.log(`not ok - test/scenarios/index.ts: does not list ${f}`);
        failed++;
      }
    }
  }
  if (fatal) {
    console.log(`not ok - xs lane: ${fatal.replace(/\s*\n\s*/g, " ")}`);
    failed++;
  }
  if (tests && list.length === 0) console.log(`# no scenarios${grep ? ` match --grep ${JSON.stringify(grep)}` : ""}`);
  const bad = !!fatal || failed > 0 || list.length === 0;
  if (bad || keep) process.stderr.write(`# bundle kept: ${rel(bundlePath)}\n`);
  else for (const f of [bundlePath, `${bundlePath}.map`, ...parts]) fs.rmSync(f, { force: true });
  console.log(`# xs lane: worker ${((t1 - t0) / 1000).toFixed(1)} s, bundle ${((t2 - t1) / 1000).toFixed(1)} s, run ${((t3 - t2) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  return bad ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.log(`# FATAL: ${(e as Error)?.message ?? e}`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  },
);

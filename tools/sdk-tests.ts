// Runs the Moddable SDK's own tests of the `preference` and `file` modules
// against host-sim: "if the SDK's own tests of a module fail on host-sim,
// host-sim is wrong". The tests are read from the SDK folder at run time;
// nothing of the SDK is copied into this repository.
//
// Usage: npx tsx tools/sdk-tests.ts --moddable DIR   (or MODDABLE=DIR)
//        [--only SUBSTRING] [--xs]
// --xs runs each test inside XS instead (the XS lane's device-like xsnap
// worker, test/xs): the test and host-sim bundled into one script.
// Output: one JSON line per test, {"test", "result": "pass" | "fail" | "n/a", ...},
// then {"summary": {...}}. Exit status 1 if any applicable test fails or none ran,
// 2 on a usage error.
//
// The harness is a small shim of what testmc gives a test (tools/sdk-harness.ts).
// Module specifiers map to host-sim: preference, file, mc/config, timer (in XS,
// through tsconfig.json's paths, as in the XS lane). Each test runs on a fresh
// simulated device.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { install, describeError } from "./sdk-harness";
import { bundleForXs } from "../test/xs/bundle";
import { ensureWorker } from "../test/xs/build-worker";
import { Xsnap } from "../test/xs/xsnap";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");

// The SDK's test folders this tool knows, and the host-sim module for each specifier.
const SUITES = ["tests/modules/files/preference", "tests/modules/files/file"];
const MODULES: Record<string, string> = {
  preference: "host-sim/preference.ts",
  file: "host-sim/file.ts",
  "mc/config": "host-sim/mc/config.ts",
  timer: "host-sim/timer.ts",
};

// Tests judged not to apply to the ESP32 SPIFFS/NVS port, with the reason.
// (None of the tests in the SDK 8.2.3 folders above is excluded.)
const NOT_APPLICABLE: Record<string, string> = {};

interface Meta {
  flags: string[];
  includes: string[];
}

function usage(msg: string): never {
  process.stderr.write(`${msg}\nusage: npx tsx tools/sdk-tests.ts --moddable DIR [--only SUBSTRING] [--xs]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): { dir: string; only?: string; xs: boolean } {
  let dir = process.env.MODDABLE;
  let only: string | undefined;
  let xs = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--moddable") dir = argv[++i];
    else if (a.startsWith("--moddable=")) dir = a.slice(11);
    else if (a === "--only") only = argv[++i];
    else if (a === "--xs") xs = true;
    else usage(`unknown argument ${a}`);
  }
  if (!dir) usage("no SDK folder: pass --moddable DIR or set MODDABLE");
  if (!fs.existsSync(path.join(dir, SUITES[0]))) usage(`${dir} has no ${SUITES[0]}: not a Moddable SDK folder`);
  return { dir, only, xs };
}

// The YAML-ish front matter between /*--- and ---*/: flags and includes.
function meta(src: string): Meta {
  const m = /\/\*---([\s\S]*?)---\*\//.exec(src);
  const list = (key: string): string[] => {
    const r = m && new RegExp(`^\\s*${key}:\\s*\\[([^\\]]*)\\]`, "m").exec(m[1]);
    return r ? r[1].split(",").map((s) => s.trim()).filter(Boolean) : [];
  };
  return { flags: list("flags"), includes: list("includes") };
}

// Rewrites `from "preference"` (and the others) to host-sim's modules.
function rewrite(src: string): string {
  return src.replace(/(\bfrom\s*|\bimport\s*)(["'])([^"']+)\2/g, (whole, kw: string, q: string, spec: string) => {
    const target = MODULES[spec];
    if (!target) {
      if (spec.startsWith(".") || spec.startsWith("/")) return whole;
      throw new Error(`module "${spec}" is not provided by host-sim`);
    }
    return `${kw}${q}${pathToFileURL(path.join(repo, target)).href}${q}`;
  });
}

interface Outcome {
  result: "pass" | "fail";
  error?: string;
}

async function runOne(file: string, src: string, tmp: string): Promise<Outcome> {
  const m = meta(src);
  let done: (err?: unknown) => void = () => {};
  const finished = new Promise<unknown>((resolve) => (done = resolve));
  install((err) => done(err));
  const out = path.join(tmp, path.basename(path.dirname(file)) + "-" + path.basename(file).replace(/\.js$/, ".mjs"));
  fs.writeFileSync(out, rewrite(src));
  try {
    await import(pathToFileURL(out).href + `?t=${Date.now()}`);
    if (m.flags.includes("async")) {
      const err = await Promise.race([finished, new Promise((r) => setTimeout(() => r("timeout: $DONE never called"), 10000))]);
      if (err !== undefined) return { result: "fail", error: describeError(err) };
    }
    return { result: "pass" };
  } catch (e) {
    return { result: "fail", error: describeError(e) };
  }
}

// The same test inside XS (the device-like xsnap worker of the XS lane): the
// test and host-sim bundled as one script, the result sent back through
// issueCommand.
async function runOneXs(file: string, src: string, tmp: string, bin: string): Promise<Outcome> {
  const m = meta(src);
  const base = path.basename(path.dirname(file)) + "-" + path.basename(file, ".js");
  const testPath = path.join(tmp, `${base}.test.js`);
  fs.writeFileSync(testPath, src);
  const entry = path.join(tmp, `${base}.entry.ts`);
  const harness = path.join(repo, "tools/sdk-harness.ts");
  const trace = path.join(repo, "host-sim/trace.ts");
  fs.writeFileSync(
    entry,
    [
      `import ${JSON.stringify(trace)};`,
      `import { install, describeError } from ${JSON.stringify(harness)};`,
      `declare function issueCommand(b: ArrayBuffer): ArrayBuffer;`,
      `let reported = false;`,
      `function report(err?: unknown): void {`,
      `  if (reported) return;`,
      `  reported = true;`,
      `  const b = new TextEncoder().encode(JSON.stringify(err === undefined ? { ok: true } : { ok: false, error: describeError(err) }));`,
      `  issueCommand(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);`,
      `}`,
      `install((err) => report(err));`,
      `import(${JSON.stringify("./" + path.basename(testPath))}).then(() => { ${m.flags.includes("async") ? "" : "report();"} }, (e) => report(e));`,
    ].join("\n"),
  );
  const bundlePath = path.join(tmp, `${base}.bundle.js`);
  await bundleForXs(entry, bundlePath);
  let got: { ok: boolean; error?: string } | undefined;
  const dec = new TextDecoder();
  const worker = new Xsnap({
    bin,
    onCommand: (bytes) => {
      got = JSON.parse(dec.decode(bytes));
      return new Uint8Array(0);
    },
  });
  try {
    await worker.script(bundlePath);
  } catch (e) {
    got ??= { ok: false, error: `XS threw: ${(e as Error).message}` };
  } finally {
    try {
      await worker.close();
    } catch {
      worker.kill();
    }
  }
  if (!got) return { result: "fail", error: "no result: $DONE never called" };
  return got.ok ? { result: "pass" } : { result: "fail", error: got.error };
}

async function main(): Promise<void> {
  const { dir, only, xs } = parseArgs(process.argv.slice(2));
  const bin = xs ? await ensureWorker({ quiet: true }) : "";
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-sdk-tests-"));
  const counts = { pass: 0, fail: 0, na: 0 };
  try {
    for (const suite of SUITES) {
      const folder = path.join(dir, suite);
      if (!fs.existsSync(folder)) continue;
      for (const f of fs.readdirSync(folder).filter((n) => n.endsWith(".js")).sort()) {
        const rel = `${suite}/${f}`;
        if (only && !rel.includes(only)) continue;
        const why = NOT_APPLICABLE[rel];
        if (why) {
          counts.na++;
          process.stdout.write(JSON.stringify({ test: rel, result: "n/a", reason: why }) + "\n");
          continue;
        }
        const src = fs.readFileSync(path.join(folder, f), "utf8");
        const r = xs ? await runOneXs(rel, src, tmp, bin) : await runOne(rel, src, tmp);
        counts[r.result]++;
        process.stdout.write(JSON.stringify({ test: rel, engine: xs ? "xs" : "node", ...r }) + "\n");
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ summary: { sdk: path.resolve(dir), engine: xs ? "xs" : "node", suites: SUITES, ...counts } }) + "\n");
  if (counts.fail > 0 || counts.pass === 0) process.exit(1);
}

await main();

// Runs the Moddable SDK's own tests of the `preference` and `file` modules
// against host-sim: "if the SDK's own tests of a module fail on host-sim,
// host-sim is wrong". The tests are read from the SDK folder at run time;
// nothing of the SDK is copied into this repository.
//
// Usage: npx tsx tools/sdk-tests.ts --moddable DIR   (or MODDABLE=DIR)
//        [--only SUBSTRING]
// Output: one JSON line per test, {"test", "result": "pass" | "fail" | "n/a", ...},
// then {"summary": {...}}. Exit status 1 if any applicable test fails or none ran,
// 2 on a usage error.
//
// The harness is a small shim of what testmc gives a test (tools/testmc and
// tools/test262/harness.js in the SDK): assert, assert.sameValue,
// assert.notSameValue, assert.throws (the thrown value's constructor must be
// the expected one, exactly), assert.compareArray, Test262Error, $DONE, $DO and
// $TESTMC. Module specifiers map to host-sim: preference, file, mc/config, timer.
// Each test runs on a fresh simulated device.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SimDevice } from "../host-sim/device";

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
  process.stderr.write(`${msg}\nusage: npx tsx tools/sdk-tests.ts --moddable DIR [--only SUBSTRING]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): { dir: string; only?: string } {
  let dir = process.env.MODDABLE;
  let only: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--moddable") dir = argv[++i];
    else if (a.startsWith("--moddable=")) dir = a.slice(11);
    else if (a === "--only") only = argv[++i];
    else usage(`unknown argument ${a}`);
  }
  if (!dir) usage("no SDK folder: pass --moddable DIR or set MODDABLE");
  if (!fs.existsSync(path.join(dir, SUITES[0]))) usage(`${dir} has no ${SUITES[0]}: not a Moddable SDK folder`);
  return { dir, only };
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

class Test262Error extends Error {
  constructor(message?: string) {
    super(message ?? "");
    Object.defineProperty(this, "name", { value: "Test262Error", configurable: true, writable: true });
  }
}

function show(v: unknown): string {
  try {
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "bigint") return `${v}n`;
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

function same(a: unknown, b: unknown): boolean {
  return Object.is(a, b);
}

type AssertFn = ((cond: unknown, message?: string) => void) & Record<string, unknown>;

function makeAssert(): AssertFn {
  const assert = ((cond: unknown, message?: string) => {
    if (cond === true) return;
    throw new Test262Error(message ?? `Expected true but got ${show(cond)}`);
  }) as AssertFn;
  assert.sameValue = (actual: unknown, expected: unknown, message?: string) => {
    if (same(actual, expected)) return;
    throw new Test262Error(`${message ? message + " " : ""}Expected SameValue(«${show(actual)}», «${show(expected)}») to be true`);
  };
  assert.notSameValue = (actual: unknown, unexpected: unknown, message?: string) => {
    if (!same(actual, unexpected)) return;
    throw new Test262Error(`${message ? message + " " : ""}Expected SameValue(«${show(actual)}», «${show(unexpected)}») to be false`);
  };
  assert.throws = (expected: { name: string }, fn: () => unknown, message?: string) => {
    const prefix = message ? message + " " : "";
    if (typeof fn !== "function") throw new Test262Error("assert.throws requires two arguments: the error constructor and a function to run");
    try {
      fn();
    } catch (thrown) {
      if (typeof thrown !== "object" || thrown === null) throw new Test262Error(`${prefix}Thrown value was not an object!`);
      const ctor = (thrown as { constructor?: { name?: string } }).constructor;
      if (ctor !== expected)
        throw new Test262Error(`${prefix}Expected a ${expected.name} but got a ${ctor?.name} (${(thrown as Error).message})`);
      return;
    }
    throw new Test262Error(`${prefix}Expected a ${expected.name} to be thrown but no exception was thrown at all`);
  };
  assert.compareArray = (actual: ArrayLike<unknown>, expected: ArrayLike<unknown>, message?: string) => {
    let eq = actual.length === expected.length;
    for (let i = 0; eq && i < actual.length; i++) eq = same(actual[i], expected[i]);
    if (!eq) throw new Test262Error(`Actual [${Array.from(actual).map(String).join(", ")}] and expected [${Array.from(expected).map(String).join(", ")}] should have the same contents. ${message ?? ""}`);
  };
  return assert;
}

interface Outcome {
  result: "pass" | "fail";
  error?: string;
}

async function runOne(file: string, src: string, tmp: string): Promise<Outcome> {
  const m = meta(src);
  const g = globalThis as Record<string, unknown>;
  let done: (err?: unknown) => void = () => {};
  const finished = new Promise<unknown>((resolve) => (done = resolve));
  g.assert = makeAssert();
  g.Test262Error = Test262Error;
  g.$DONE = (err?: unknown) => done(err);
  g.$DO = (f: (...a: unknown[]) => void) => (...args: unknown[]) => {
    try {
      f(...args);
      done();
    } catch (e) {
      done(e);
    }
  };
  g.$TESTMC = Object.freeze({ timeout: (ms: number, message = "timeout") => setTimeout(() => done(message), ms), config: {}, wifiConnectionTimeout: 5000 });
  new SimDevice().install();
  const out = path.join(tmp, path.basename(path.dirname(file)) + "-" + path.basename(file).replace(/\.js$/, ".mjs"));
  fs.writeFileSync(out, rewrite(src));
  try {
    await import(pathToFileURL(out).href + `?t=${Date.now()}`);
    if (m.flags.includes("async")) {
      const err = await Promise.race([finished, new Promise((r) => setTimeout(() => r("timeout: $DONE never called"), 10000))]);
      if (err !== undefined) return { result: "fail", error: String(err instanceof Error ? `${err.name}: ${err.message}` : err) };
    }
    return { result: "pass" };
  } catch (e) {
    return { result: "fail", error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

async function main(): Promise<void> {
  const { dir, only } = parseArgs(process.argv.slice(2));
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
        const r = await runOne(rel, fs.readFileSync(path.join(folder, f), "utf8"), tmp);
        counts[r.result]++;
        process.stdout.write(JSON.stringify({ test: rel, ...r }) + "\n");
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ summary: { sdk: path.resolve(dir), suites: SUITES, ...counts } }) + "\n");
  if (counts.fail > 0 || counts.pass === 0) process.exit(1);
}

await main();

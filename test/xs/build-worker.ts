// Builds a "device-like" xsnap-worker from the XS sources shipped inside the
// @agoric/xsnap npm package, and caches it under node_modules/.cache.
//
// xsnap's own build (node_modules/@agoric/xsnap/src/build.js) runs
//   make -f xsnap-worker.mk MODDABLE=<pkg>/moddable GOAL=release XSNAP_VERSION=… CC=…
// in <pkg>/xsnap-native/xsnap/makefiles/lin, in place. The makefile finds its
// build dir and the xsnap sources relative to itself ($(CURDIR)/../../build,
// $(CURDIR)/../../sources), so we copy `makefiles/lin/xsnap-worker.mk` and
// `sources/` into <cache>/<key>.tmp/ with the same layout, patch the copies, run
// the same make against the package's (unmodified) Moddable/XS sources, and
// rename the directory into place. Nothing is ever written inside the repo tree
// or inside node_modules/@agoric/xsnap.
//
// Removed from the stock worker, so the engine behaves like a Moddable device build:
//   -DmxStringNormalize=1               (makefile)  -> no String.prototype.normalize
//   -DmxRegExpUnicodePropertyEscapes=1  (makefile)  -> a /\p{…}/u literal is a SyntaxError
//   #define mxCESU8 1                   (sources/xsnapPlatform.h) -> strings are UTF-8 and
//                                        length/indexing count code points ("😀".length === 1)
//
// The cache key covers the xsnap version, the patch recipe and the patched files'
// contents, so a new xsnap version or a change here triggers a rebuild.
//
// Usage: `tsx test/xs/build-worker.ts [--force]` prints the binary's path.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { verifyDeviceLike } from "./xsnap";

const RECIPE = 2; // bump when the build recipe below changes
const REMOVED_DEFINES = ["mxStringNormalize", "mxRegExpUnicodePropertyEscapes"] as const;
const REMOVED_PLATFORM_DEFINES = ["mxCESU8"] as const;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

// The XS stack in slots, as the device gets it from manifest.json
// ("creation.stack"): a scenario that recurses deeper fails here as it would there.
export function deviceStackSlots(): number {
  const m = JSON.parse(fs.readFileSync(path.join(repoRoot, "manifest.json"), "utf8"));
  const n = m.creation?.stack;
  if (!Number.isInteger(n) || n < 128) throw new Error("manifest.json: creation.stack must give the device's XS stack in slots");
  return n;
}

// xsnap-worker.c creates its machine with a 4096-slot stack; use the device's.
export function patchWorker(text: string, slots: number): string {
  const re = /^([ \t]*)4096,([ \t]*\/\* stackCount \*\/)/m;
  if (!re.test(text)) throw new Error("xsnap-worker.c: expected a 4096 stackCount; the xsnap sources changed");
  return text.replace(re, `$1${slots},$2`);
}

export function xsnapPackageDir(): string {
  const dir = path.join(repoRoot, "node_modules", "@agoric", "xsnap");
  if (!fs.existsSync(path.join(dir, "package.json")))
    throw new Error(`@agoric/xsnap is not installed at ${dir}; run npm ci`);
  return dir;
}

export function cacheRoot(): string {
  return path.join(repoRoot, "node_modules", ".cache", "petmem-xsnap");
}

export function platformDir(): string {
  if (process.platform === "linux") return "lin";
  if (process.platform === "darwin") return "mac";
  throw new Error(`the XS test lane supports Linux and macOS, not ${process.platform}`);
}

// Remove `-D<name>=1 \` lines from the makefile; fail if any is not there.
export function patchMakefile(text: string): string {
  let out = text;
  for (const name of REMOVED_DEFINES) {
    const re = new RegExp(`^[ \\t]*-D${name}=1[ \\t]*\\\\\\n`, "m");
    if (!re.test(out)) throw new Error(`xsnap-worker.mk: expected a -D${name}=1 line; the xsnap sources changed`);
    out = out.replace(re, "");
  }
  return out;
}

export function patchPlatformHeader(text: string): string {
  let out = text;
  for (const name of REMOVED_PLATFORM_DEFINES) {
    const re = new RegExp(`^#define ${name} 1[ \\t]*$`, "m");
    if (!re.test(out)) throw new Error(`xsnapPlatform.h: expected "#define ${name} 1"; the xsnap sources changed`);
    out = out.replace(re, `/* ${name} removed by petmem test/xs/build-worker.ts */`);
  }
  return out;
}

interface Plan {
  version: string;
  key: string;
  dir: string; // final cache directory
  bin: string; // final binary path
  makefile: string;
  header: string;
  worker: string;
  stack: number;
}

function plan(): Plan {
  const pkg = xsnapPackageDir();
  const version = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).version as string;
  const plat = platformDir();
  const makefile = patchMakefile(
    fs.readFileSync(path.join(pkg, "xsnap-native/xsnap/makefiles", plat, "xsnap-worker.mk"), "utf8"),
  );
  const header = patchPlatformHeader(
    fs.readFileSync(path.join(pkg, "xsnap-native/xsnap/sources/xsnapPlatform.h"), "utf8"),
  );
  const stack = deviceStackSlots();
  const worker = patchWorker(fs.readFileSync(path.join(pkg, "xsnap-native/xsnap/sources/xsnap-worker.c"), "utf8"), stack);
  const hash = createHash("sha256")
    .update(JSON.stringify({ RECIPE, version, REMOVED_DEFINES, REMOVED_PLATFORM_DEFINES, plat, arch: process.arch, stack }))
    .update(makefile)
    .update(header)
    .update(worker)
    .digest("hex")
    .slice(0, 12);
  const key = `xsnap-${version}-device-${hash}`;
  const dir = path.join(cacheRoot(), key);
  return { version, key, dir, makefile, header, worker, stack, bin: path.join(dir, "build/bin", plat, "release/xsnap-worker") };
}

/** Path of the device-like worker; builds (and verifies) it first when missing or stale. */
export async function ensureWorker(opts: { force?: boolean; quiet?: boolean } = {}): Promise<string> {
  const p = plan();
  if (!opts.force && fs.existsSync(p.bin) && fs.existsSync(path.join(p.dir, "ok"))) return p.bin;

  const pkg = xsnapPackageDir();
  const plat = platformDir();
  const started = Date.now();
  if (!opts.quiet) process.stderr.write(`# building device-like xsnap-worker (${p.key}) …\n`);

  fs.mkdirSync(cacheRoot(), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cacheRoot(), `${p.key}.tmp-`));
  try {
    const srcOut = path.join(tmp, "sources");
    fs.cpSync(path.join(pkg, "xsnap-native/xsnap/sources"), srcOut, { recursive: true });
    fs.writeFileSync(path.join(srcOut, "xsnapPlatform.h"), p.header);
    fs.writeFileSync(path.join(srcOut, "xsnap-worker.c"), p.worker);
    const mkDir = path.join(tmp, "makefiles", plat);
    fs.mkdirSync(mkDir, { recursive: true });
    fs.writeFileSync(path.join(mkDir, "xsnap-worker.mk"), p.makefile);

    const jobs = String(Math.max(1, (os.availableParallelism?.() ?? os.cpus().length) || 1));
    const args = [
      `-j${jobs}`,
      `MODDABLE=${path.join(pkg, "moddable")}`,
      "GOAL=release",
      `XSNAP_VERSION=${p.version}`,
      // same compiler setting as xsnap's build.js
      'CC=cc "-D__has_builtin(x)=1"',
      "-f",
      "xsnap-worker.mk",
    ];
    const r = spawnSync("make", args, { cwd: mkDir, stdio: ["ignore", opts.quiet ? "ignore" : 2, opts.quiet ? "pipe" : 2] });
    if (r.error) throw new Error(`cannot run make (are make and a C compiler installed?): ${r.error.message}`);
    if (r.status !== 0) throw new Error(`building xsnap-worker failed (make exit ${r.status})`);
    const tmpBin = path.join(tmp, "build/bin", plat, "release/xsnap-worker");
    if (!fs.existsSync(tmpBin)) throw new Error(`make succeeded but ${tmpBin} is missing`);
    // Check that the flags took effect before the binary is cached.
    const facts = await verifyDeviceLike(tmpBin);
    // Drop object files; keep only the binary (and the patched sources for reference).
    fs.rmSync(path.join(tmp, "build/tmp"), { recursive: true, force: true });
    fs.writeFileSync(
      path.join(tmp, "ok"),
      JSON.stringify({ key: p.key, xsnap: p.version, removed: [...REMOVED_DEFINES, ...REMOVED_PLATFORM_DEFINES], stack: p.stack, facts }, null, 1) + "\n",
    );
    fs.rmSync(p.dir, { recursive: true, force: true });
    try {
      fs.renameSync(tmp, p.dir);
    } catch (e) {
      // Another process finished the same build first: use theirs.
      if (!fs.existsSync(path.join(p.dir, "ok"))) throw e;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // Remove builds for other keys (older xsnap versions / recipes).
  for (const name of fs.readdirSync(cacheRoot())) {
    if (name.startsWith("xsnap-") && name !== p.key && !name.includes(".tmp-")) fs.rmSync(path.join(cacheRoot(), name), { recursive: true, force: true });
  }
  if (!opts.quiet) process.stderr.write(`# built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${p.bin}\n`);
  return p.bin;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const bin = await ensureWorker({ force: process.argv.includes("--force") });
    const facts = await verifyDeviceLike(bin);
    console.log(bin);
    console.log(JSON.stringify(facts));
  } catch (e) {
    console.error(String((e as Error)?.message ?? e));
    process.exit(1);
  }
}

// Builds the "heap" variant of the device-like xsnap-worker for `npm run heap`
// (tools/heap.ts): the same device-like patches as test/xs/build-worker.ts, plus
// what it takes to measure the XS heap the way the device would feel it:
//
//   - a global `heapStats(buffer, op, arg)` (native, allocates nothing) that writes
//     into an Int32Array-sized ArrayBuffer of 8 entries:
//       [0] slots in use          (the->currentHeapCount)
//       [1] peak slots in use     (the->peakHeapCount)
//       [2] chunk bytes in use    (the->currentChunksSize)
//       [3] peak chunk bytes      (the->peakChunksSize)
//       [4] peak stack, slots     (at function ends, as mxInstrument keeps it)
//       [5] collections so far    (counted by the patched allocator)
//     op 1 first resets the peaks to the current values; op 2 sets the
//     collection period (below) to `arg` allocations (0: XS's own policy).
//   - xsMemory.c compiled with mxStress and a periodic fxShouldStress(): every
//     `period` slot or chunk allocations XS runs a full, compacting collection.
//     XS counts a slot or a chunk as in use from its allocation until the next
//     collection, so with a period of P allocations the peaks are the largest
//     live set plus at most P allocations of garbage: an upper bound of what
//     must fit in the device's heap at that moment, and a tight one.
//   - a smaller heap to start with (32 K slots, 4 MB of chunks, both growing),
//     so a collection sweeps little.
//   - the stack peak that mxInstrument would keep, in a global (xsRun.c).
//
// Like build-worker.ts it copies what it patches (the XS sources too, here)
// into node_modules/.cache/petmem-xsnap/<key>/ and never writes in the repo
// tree or in node_modules/@agoric/xsnap.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cacheRoot, deviceStackSlots, patchMakefile, patchPlatformHeader, patchWorker, platformDir, xsnapPackageDir } from "./build-worker";

const RECIPE = 1;

function replaceOnce(text: string, re: RegExp, by: string, what: string): string {
  if (!re.test(text)) throw new Error(`heap worker: ${what} not found; the xsnap sources changed`);
  return text.replace(re, by);
}

const STATS_C = `
extern int gxStress;
extern int gxStressCollections;
extern txSlot* gxStackPeak;
void xs_heapStats(txMachine* the)
{
	int32_t* out = (int32_t*)fxToArrayBuffer(the, mxArgv(0));
	int op = (mxArgc > 1) ? fxToInteger(the, mxArgv(1)) : 0;
	if (op == 1) {
		the->peakHeapCount = the->currentHeapCount;
		the->peakChunksSize = the->currentChunksSize;
		gxStackPeak = the->stack;
	}
	else if (op == 2)
		gxStress = (mxArgc > 2) ? fxToInteger(the, mxArgv(2)) : 0;
	out[0] = (int32_t)the->currentHeapCount;
	out[1] = (int32_t)the->peakHeapCount;
	out[2] = (int32_t)the->currentChunksSize;
	out[3] = (int32_t)the->peakChunksSize;
	out[4] = gxStackPeak ? (int32_t)(the->stackTop - gxStackPeak) : -1;
	out[5] = (int32_t)gxStressCollections;
}
`;

const STRESS_C = `txSlot* gxStackPeak = NULL;
#if mxStress
int gxStress = 0;
int gxStressCollections = 0;
static int gxStressCount = 0;

static int fxShouldStress()
{
	if (gxStress <= 0)
		return 0;
	if (++gxStressCount < gxStress)
		return 0;
	gxStressCount = 0;
	gxStressCollections++;
	return 1;
}
#endif`;

function patchHeapWorker(text: string): string {
  let out = replaceOnce(text, /^static void xs_gc\(xsMachine\* the\);$/m, "static void xs_gc(xsMachine* the);\nextern void xs_heapStats(xsMachine* the);", "xs_gc prototype");
  out = replaceOnce(
    out,
    /^([ \t]*)xsDefine\(xsGlobal, xsID\("gc"\), xsResult, xsDontEnum\);$/m,
    '$1xsDefine(xsGlobal, xsID("gc"), xsResult, xsDontEnum);\n$1xsResult = xsNewHostFunction(xs_heapStats, 3);\n$1xsDefine(xsGlobal, xsID("heapStats"), xsResult, xsDontEnum);',
    'xsDefine "gc"',
  );
  out = replaceOnce(out, /^([ \t]*)32 \* 1024 \* 1024,(\t*\/\* initialChunkSize \*\/)/m, "$14 * 1024 * 1024,$2", "initialChunkSize");
  out = replaceOnce(out, /^([ \t]*)256 \* 1024,(\t*\/\* initialHeapCount \*\/)/m, "$132 * 1024,$2", "initialHeapCount");
  out = replaceOnce(out, /^([ \t]*)128 \* 1024,(\t*\/\* incrementalHeapCount \*\/)/m, "$116 * 1024,$2", "incrementalHeapCount");
  return out;
}

// xs_heapStats reads txMachine fields: it goes where xsAll.h is included.
function patchPlatform(text: string): string {
  return text + STATS_C;
}

function patchMemory(text: string): string {
  return replaceOnce(text, /#if mxStress\nint gxStress = 0;\n\nstatic int fxShouldStress\(\)\n\{[\s\S]*?\n\}\n#endif/, STRESS_C, "fxShouldStress");
}

function patchHeapMakefile(text: string): string {
  return replaceOnce(text, /^([ \t]*)-DmxMetering=1 \\$/m, "$1-DmxMetering=1 \\\n$1-DmxStress=1 \\", "-DmxMetering=1");
}

// The stack peak as mxInstrument keeps it (at each function's end), in a global
// instead of a machine field, so the machine's layout does not change.
function patchRun(text: string): string {
  return replaceOnce(
    text,
    /^#ifdef mxInstrument\n(\t+)if \(the->stackPeak > mxStack\)\n/m,
    "{ extern txSlot* gxStackPeak; if (gxStackPeak > mxStack) gxStackPeak = mxStack; }\n$&",
    "the stackPeak update in fxRunID",
  );
}

/** Path of the heap-measuring worker; builds it when missing or stale (about 15 s). */
export function ensureHeapWorker(opts: { quiet?: boolean } = {}): string {
  const pkg = xsnapPackageDir();
  const plat = platformDir();
  const version = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).version as string;
  const nativeDir = path.join(pkg, "xsnap-native/xsnap");
  const makefile = patchHeapMakefile(patchMakefile(fs.readFileSync(path.join(nativeDir, "makefiles", plat, "xsnap-worker.mk"), "utf8")));
  const header = patchPlatformHeader(fs.readFileSync(path.join(nativeDir, "sources/xsnapPlatform.h"), "utf8"));
  const stack = deviceStackSlots();
  const worker = patchHeapWorker(patchWorker(fs.readFileSync(path.join(nativeDir, "sources/xsnap-worker.c"), "utf8"), stack));
  const platformC = patchPlatform(fs.readFileSync(path.join(nativeDir, "sources/xsnapPlatform.c"), "utf8"));
  const memory = patchMemory(fs.readFileSync(path.join(pkg, "moddable/xs/sources/xsMemory.c"), "utf8"));
  const run = patchRun(fs.readFileSync(path.join(pkg, "moddable/xs/sources/xsRun.c"), "utf8"));
  const key =
    `heapworker-xsnap-${version}-` +
    createHash("sha256").update(JSON.stringify({ RECIPE, version, plat, arch: process.arch, stack })).update(makefile).update(header).update(worker).update(platformC).update(memory).update(run).digest("hex").slice(0, 12);
  const dir = path.join(cacheRoot(), key);
  const bin = path.join(dir, "build/bin", plat, "release/xsnap-worker");
  if (fs.existsSync(bin) && fs.existsSync(path.join(dir, "ok"))) return bin;

  const started = Date.now();
  if (!opts.quiet) process.stderr.write(`# building the heap-measuring xsnap-worker (${key}) …\n`);
  fs.mkdirSync(cacheRoot(), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cacheRoot(), `${key}.tmp-`));
  try {
    fs.cpSync(path.join(nativeDir, "sources"), path.join(tmp, "sources"), { recursive: true });
    fs.writeFileSync(path.join(tmp, "sources/xsnapPlatform.h"), header);
    fs.writeFileSync(path.join(tmp, "sources/xsnap-worker.c"), worker);
    fs.writeFileSync(path.join(tmp, "sources/xsnapPlatform.c"), platformC);
    fs.cpSync(path.join(pkg, "moddable"), path.join(tmp, "moddable"), { recursive: true });
    fs.writeFileSync(path.join(tmp, "moddable/xs/sources/xsMemory.c"), memory);
    fs.writeFileSync(path.join(tmp, "moddable/xs/sources/xsRun.c"), run);
    const mkDir = path.join(tmp, "makefiles", plat);
    fs.mkdirSync(mkDir, { recursive: true });
    fs.writeFileSync(path.join(mkDir, "xsnap-worker.mk"), makefile);
    const jobs = String(Math.max(1, (os.availableParallelism?.() ?? os.cpus().length) || 1));
    const r = spawnSync(
      "make",
      [`-j${jobs}`, `MODDABLE=${path.join(tmp, "moddable")}`, "GOAL=release", `XSNAP_VERSION=${version}`, 'CC=cc "-D__has_builtin(x)=1"', "-f", "xsnap-worker.mk"],
      { cwd: mkDir, stdio: ["ignore", opts.quiet ? "ignore" : 2, opts.quiet ? "pipe" : 2] },
    );
    if (r.error) throw new Error(`cannot run make (are make and a C compiler installed?): ${r.error.message}`);
    if (r.status !== 0) throw new Error(`building the heap xsnap-worker failed (make exit ${r.status})${r.stderr ? `: ${String(r.stderr).slice(-2000)}` : ""}`);
    fs.rmSync(path.join(tmp, "build/tmp"), { recursive: true, force: true });
    fs.rmSync(path.join(tmp, "moddable"), { recursive: true, force: true });
    fs.writeFileSync(path.join(tmp, "ok"), JSON.stringify({ key, xsnap: version, stack }) + "\n");
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(tmp, dir);
    } catch (e) {
      if (!fs.existsSync(path.join(dir, "ok"))) throw e;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const name of fs.readdirSync(cacheRoot()))
    if (name.startsWith("heapworker-") && name !== key && !name.includes(".tmp-"))
      fs.rmSync(path.join(cacheRoot(), name), { recursive: true, force: true });
  if (!opts.quiet) process.stderr.write(`# built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${bin}\n`);
  return bin;
}

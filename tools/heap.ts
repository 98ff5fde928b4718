// `npm run heap`: how much of the XS heap petmem needs, measured inside XS,
// against the ESP32-S3's default creation (manifest.json sets it explicitly).
//
// It builds the heap-measuring xsnap-worker (test/xs/heap-worker.ts: XS's slot
// and chunk counters, a full collection every `--period` allocations so the
// counters follow the live set, the stack peak), bundles
// test/xs/heap/workload.ts with `preference`, `file` and `timer` replaced by
// shims whose state lives here in Node (host-sim, ESP32 semantics) as the
// native modules' state lives in C on the device, and runs the workload
// (boot, 100 MCP calls, two conversations heard, archiving and a compaction,
// 26 hours of reminders and maintenance, the final flush). DESIGN.md, "The heap", explains the method.
//
// Output: one JSON line
//   {"boot_slots","boot_chunk_bytes","peak_slots","peak_chunk_bytes","stack_peak",
//    "creation":{"heap","chunk","stack"},"use":{...shares of the creation},
//    "goal","fits","sync","preloaded_slots","preloaded_chunk_bytes","phases","workload",...}
// peak_* and fits: every phase but the sync ones (the device at work); "sync":
// the sync phases' peaks, whether they are within the goal and within the creation.
// Usage: tsx tools/heap.ts [--period N] [--check]   (--check: exit 1 above the goal)
//        tsx tools/heap.ts --messages   prints the workload's MCP messages (100, then the episodes'), one a
//        line, then its conversation (user:/assistant: lines), for the x-cli-lin build

import * as esbuild from "esbuild";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHeapWorker } from "../test/xs/heap-worker";
import { mcpMessages, conversation, episodeMessages } from "../test/xs/heap/messages";
import { Xsnap } from "../test/xs/xsnap";
import { splitBundle } from "../test/xs/bundle";
import { SimDevice } from "../host-sim/device";
import { MiniCouch } from "../test/sync/mini-couch";
import { crc32 } from "../src/nvs/crc32";
import { setTimeSource } from "../src/time/clock";
import Preference from "../host-sim/preference";
import { File as HostFile, Iterator as HostIterator, Directory as HostDirectory, System as HostSystem } from "../host-sim/file";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const heapDir = path.join(repoRoot, "test/xs/heap");

export const GOAL = 0.75; // of the ESP32-S3 default creation
export const DEFAULT_PERIOD = 32;

export interface HeapResult {
  boot_slots: number;
  boot_chunk_bytes: number;
  peak_slots: number;
  peak_chunk_bytes: number;
  stack_peak: number;
  creation: { heap: number; chunk: number; stack: number };
  use: { peak_slots: number; peak_chunk_bytes: number; stack_peak: number };
  goal: number;
  fits: boolean;
  // the sync phases (DESIGN.md "Sync"): measured apart, against the same goal
  sync: { peak_slots: number; peak_chunk_bytes: number; use: { peak_slots: number; peak_chunk_bytes: number }; within_goal: boolean; fits_creation: boolean };
  preloaded_slots: number;
  preloaded_chunk_bytes: number;
  period: number;
  phases: Record<string, Record<string, number>>;
  workload: Record<string, unknown>;
}

/** The ESP32-S3's creation as manifest.json sets it. */
export function deviceCreation(): { heap: number; chunk: number; stack: number } {
  const m = JSON.parse(fs.readFileSync(path.join(repoRoot, "manifest.json"), "utf8"));
  const c = m.platforms?.["esp32/esp32s3"]?.creation;
  if (!c?.heap?.initial || !c?.chunk?.initial || !c?.stack) throw new Error('manifest.json: platforms["esp32/esp32s3"].creation must set heap, chunk and stack');
  return { heap: c.heap.initial, chunk: c.chunk.initial, stack: c.stack };
}

const SHIMS: Record<string, string> = {
  preference: path.join(heapDir, "preference.ts"),
  file: path.join(heapDir, "file.ts"),
  timer: path.join(heapDir, "timer.ts"),
};

async function bundle(out: string): Promise<void> {
  await esbuild.build({
    entryPoints: [path.join(heapDir, "workload.ts")],
    outfile: out,
    bundle: true,
    // esm run as plain scripts (test/xs/bundle.ts): an IIFE would make every
    // top-level binding a local of one function, a slot each of the 1,024-slot
    // stack, which the whole device with its episodes overflows
    format: "esm",
    target: "es2022",
    platform: "neutral",
    tsconfig: path.join(repoRoot, "tsconfig.json"), // mc/config, text/* as in the XS lane
    charset: "utf8",
    legalComments: "none",
    logLevel: "silent",
    plugins: [
      {
        name: "petmem-heap-shims",
        setup(build) {
          build.onResolve({ filter: /^(preference|file|timer)$/ }, (a) => ({ path: SHIMS[a.path] }));
          build.onResolve({ filter: /^node:/ }, (a) => ({ errors: [{ text: `Node built-in ${a.path} in the XS heap bundle` }] }));
          build.onLoad({ filter: /[\\/]host-sim[\\/](device|flash|nvs|spiffs|preference|file|timer|clock)\.ts$/ }, (a) => ({
            errors: [{ text: `${path.relative(repoRoot, a.path)} would put the simulated flash in the measured heap` }],
          }));
        },
      },
    ],
  });
}

// Another pet's day, as the documents it pushed: facts, likes and episodes.
function otherPet(n: number): unknown[] {
  const docs: unknown[] = [];
  const t = Math.floor(new SimDevice().clock.now / 1000);
  const hex8 = (x: number) => (x >>> 0).toString(16).padStart(8, "0");
  const crc = (s: string) => crc32(new TextEncoder().encode(s));
  for (let i = 0; i < n; i++) {
    const k = i % 3;
    const body: Record<string, unknown> =
      k === 0 ? { timestamp: t - i * 60, content: `另一只宠物记下的第${i}件事：主人今天去游泳了，游了${i}米` } : k === 1 ? { content: `爱好${i}` } : { content: `另一只宠物记下的第${i}段经历：主人和朋友去公园放风筝，风筝飞得很高`, keywords: ["风筝"], emotion: "happy", e: 50, i: 50, p: 30, j: 50, createdAt: t - i * 60 };
    const id = k === 0 ? `fact:${hex8(crc(`fact\n${body.timestamp}\n${body.content}`))}` : k === 1 ? `like:${hex8(crc(`like\n${body.content}`))}` : `episode:0badcafe-${i}`;
    const rev = `1-${hex8(i + 1)}${hex8(i)}`;
    docs.push({ _id: id, _rev: rev, _revisions: { start: 1, ids: [rev.slice(2)] }, type: k === 0 ? "fact" : k === 1 ? "like" : "episode", ...body, at: t, by: "0badcafe" });
  }
  return docs;
}

// The Node side of test/xs/heap/bridge.ts: the native modules' state.
function bridge(onResult: (r: unknown) => void): (bytes: Uint8Array) => Uint8Array {
  const couch = new MiniCouch();
  const files = new Map<number, HostFile>();
  const iterators = new Map<number, HostIterator>();
  let handles = 0;
  const dec = new TextDecoder();
  const enc = new TextEncoder();
  const reply = (header: unknown[], payload?: ArrayBuffer): Uint8Array => {
    const h = enc.encode(JSON.stringify(header));
    const out = new Uint8Array(4 + h.length + (payload?.byteLength ?? 0));
    new DataView(out.buffer).setUint32(0, h.length, true);
    out.set(h, 4);
    if (payload) out.set(new Uint8Array(payload), 4 + h.length);
    return out;
  };
  const file = (h: unknown): HostFile => {
    const f = files.get(h as number);
    if (!f) throw new Error("bad file handle");
    return f;
  };
  return (bytes) => {
    const len = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
    const h = JSON.parse(dec.decode(bytes.subarray(4, 4 + len))) as any[];
    const payload = bytes.byteLength > 4 + len ? (bytes.slice(4 + len).buffer as ArrayBuffer) : undefined;
    try {
      let value: unknown = null;
      let out: ArrayBuffer | undefined;
      switch (h[0]) {
        case "pset":
          Preference.set(h[1], h[2], h[3] === "ab" ? payload! : h[3] === "undef" ? (undefined as unknown as string) : h[4]);
          break;
        case "pget": {
          const r = Preference.get(h[1], h[2]);
          if (r instanceof ArrayBuffer) out = r;
          else value = r ?? null;
          break;
        }
        case "pdel":
          Preference.delete(h[1], h[2]);
          break;
        case "pkeys":
          value = Preference.keys(h[1]);
          break;
        case "fopen":
          files.set(++handles, new HostFile(h[1], h[2]));
          value = handles;
          break;
        case "fread": {
          const f = file(h[1]);
          if (h[2] === "s") value = f.read(String, h[3] ?? undefined);
          else out = f.read(ArrayBuffer, h[3] ?? undefined);
          break;
        }
        case "fwrite":
          file(h[1]).write(h[2] === "ab" ? payload! : h[3]);
          break;
        case "fclose":
          file(h[1]).close(); // kept: a later call throws "closed", as on the device
          break;
        case "flength":
          value = file(h[1]).length;
          break;
        case "fgetpos":
          value = file(h[1]).position;
          break;
        case "fsetpos":
          file(h[1]).position = h[2];
          break;
        case "fdelete":
          value = HostFile.delete(h[1]);
          break;
        case "fexists":
          value = HostFile.exists(h[1]);
          break;
        case "frename":
          value = HostFile.rename(h[1], h[2]);
          break;
        case "iopen":
          iterators.set(++handles, new HostIterator(h[1]));
          value = handles;
          break;
        case "inext": {
          const e = iterators.get(h[1])?.next();
          value = e ? [e.name, e.length] : null;
          break;
        }
        case "dcreate":
          HostDirectory.create(h[1]);
          break;
        case "ddelete":
          HostDirectory.delete(h[1]);
          break;
        case "sconfig":
          value = HostSystem.config();
          break;
        case "sinfo":
          value = HostSystem.info();
          break;
        case "result":
          onResult(h[1]);
          break;
        case "couch": {
          // the server of the sync phase lives here, as a real one lives off the device
          const r = couch.handle(h[1], h[2], payload ? dec.decode(new Uint8Array(payload)) : undefined);
          value = r.status;
          out = enc.encode(r.body).buffer as ArrayBuffer;
          break;
        }
        case "couch-seed":
          // another pet's changes, for the pull: docs as that pet would push them
          couch.handle("POST", "/heap-owner/_bulk_docs", JSON.stringify({ docs: otherPet(h[1] as number), new_edits: false }));
          break;
        default:
          throw new Error(`heap bridge: unknown call ${JSON.stringify(h[0])}`);
      }
      return reply(["ok", value], out);
    } catch (e) {
      const err = e as Error;
      return reply(["err", err?.name ?? "Error", err?.message ?? String(e)]);
    }
  };
}

const PROBE = "(() => { gc(); const b = new ArrayBuffer(32); heapStats(b, 0); return b; })()";
const stats = (bytes: Uint8Array) => new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 32));

/** Runs the workload in XS and returns the measurement. */
export async function measureHeap(opts: { period?: number } = {}): Promise<HeapResult> {
  const period = opts.period ?? DEFAULT_PERIOD;
  const bin = ensureHeapWorker();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-heap-"));
  const out = path.join(dir, "heap.js");
  try {
    await bundle(out);
    new SimDevice().install();
    let result: any;
    const xs = new Xsnap({ bin, onCommand: bridge((r) => (result = r)) });
    try {
      const before = stats(await xs.evaluate(PROBE));
      for (const part of splitBundle(out)) await xs.script(part);
      const after = stats(await xs.evaluate(PROBE));
      await xs.evaluate(`__heap.main(${JSON.stringify({ period })})`);
      if (!result) throw new Error("the heap workload reported nothing");
      const creation = deviceCreation();
      const share = (n: number, of: number) => Math.round((n / of) * 1000) / 1000;
      // the device at work (conversations, MCP, archiving, reminders) and the
      // sync phases apart: a sync runs only when the pet is quiet
      const peaks = (sync: boolean) => {
        let slots = 0, chunk = 0, stack = 0;
        for (const [name, p] of Object.entries(result.phases as Record<string, { peak_slots: number; peak_chunk_bytes: number; stack_peak: number }>))
          if (name.startsWith("sync") === sync) {
            slots = Math.max(slots, p.peak_slots);
            chunk = Math.max(chunk, p.peak_chunk_bytes);
            stack = Math.max(stack, p.stack_peak);
          }
        return { slots, chunk, stack };
      };
      const work = peaks(false), syncing = peaks(true);
      result.peak_slots = work.slots;
      result.peak_chunk_bytes = work.chunk;
      result.stack_peak = Math.max(work.stack, syncing.stack);
      const use = {
        peak_slots: share(result.peak_slots, creation.heap),
        peak_chunk_bytes: share(result.peak_chunk_bytes, creation.chunk),
        stack_peak: share(result.stack_peak, creation.stack),
      };
      const sync = {
        peak_slots: syncing.slots,
        peak_chunk_bytes: syncing.chunk,
        use: { peak_slots: share(syncing.slots, creation.heap), peak_chunk_bytes: share(syncing.chunk, creation.chunk) },
        within_goal: syncing.slots <= GOAL * creation.heap && syncing.chunk <= GOAL * creation.chunk,
        fits_creation: syncing.slots < creation.heap && syncing.chunk < creation.chunk,
      };
      return {
        boot_slots: result.boot_slots,
        boot_chunk_bytes: result.boot_chunk_bytes,
        peak_slots: result.peak_slots,
        peak_chunk_bytes: result.peak_chunk_bytes,
        stack_peak: result.stack_peak,
        creation,
        use,
        goal: GOAL,
        fits: use.peak_slots <= GOAL && use.peak_chunk_bytes <= GOAL && result.stack_peak < creation.stack,
        sync,
        preloaded_slots: after[0] - before[0],
        preloaded_chunk_bytes: after[2] - before[2],
        period,
        phases: result.phases,
        workload: result.workload,
      };
    } finally {
      await xs.close().catch(() => {});
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    setTimeSource(() => Date.now()); // SimDevice.install() pointed Node's clock at its own
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes("--messages")) {
    const talk = conversation().map(([role, text]) => (role ? `${role}: ${text}` : ""));
    process.stdout.write([...mcpMessages(), ...episodeMessages(), ...talk].join("\n") + "\n");
    process.exit(0);
  }
  const i = args.indexOf("--period");
  const period = i >= 0 ? Number(args[i + 1]) : DEFAULT_PERIOD;
  if (!Number.isInteger(period) || period < 1) {
    console.error("usage: tsx tools/heap.ts [--period N] [--check]");
    process.exit(2);
  }
  measureHeap({ period }).then(
    (r) => {
      console.log(JSON.stringify(r));
      if (args.includes("--check") && !r.fits) process.exit(1);
    },
    (e) => {
      console.error(String((e as Error)?.stack ?? e));
      process.exit(1);
    },
  );
}

// The compact-text table on the device's engine: what the table costs and how
// fast encoding and decoding run, inside XS (the test lane's xsnap workers).
//
//   module_bytes      the table module's source (src/text/table1.ts) in bytes
//   table_bytes       its typed arrays (chars, offsets, order): what the preloaded module keeps in flash
//   load_slots, load_chunk_bytes   the heap taken by loading src/text/compact.ts and its table when
//                     NOT preloaded (the heap worker's counters, loaded like the heap lane loads modules)
//   encode_ms, decode_ms   `rounds` passes over the held-out texts (tools/text-table-eval.ts's sets),
//                     device-like worker on this machine; chars, and per-char microseconds;
//   encode_plain_ms, decode_plain_ms   the same passes with the plain forms (encodeSlow,
//                     decodeSlow: the definition, and the code table 1 shipped with), timed in the same run
//   json_parse_ms     for scale: JSON.parse of the same texts as {"c":…} lines, the same rounds
//   decode_peak_*, encode_peak_*   heap above the live set for one call on the longest text
// Output: one JSON line. Usage: tsx tools/text-table-bench.ts [--rounds 20]

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHeapWorker } from "../test/xs/heap-worker";
import { ensureWorker } from "../test/xs/build-worker";
import { Xsnap } from "../test/xs/xsnap";
import { bundleForXs } from "../test/xs/bundle";
import { TABLE1 } from "../src/text/compact";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const i = process.argv.indexOf("--rounds");
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 20;

function runs(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const m = line.match(/[\u0800-\uffff][^`"'|]*[\u0800-\uffff]/g);
    if (m) out.push(...m);
  }
  return out;
}
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");
const texts = read("test/text/heldout-speech.txt").split("\n").filter((l) => l && !l.startsWith("#"))
  .concat(runs(read("test/extract/heldout-speech.ts")), runs(read("tools/recall-eval/heldout.ts")));

async function run(bin: string, script: string, args: object, measureLoad: boolean): Promise<Record<string, number>> {
  let result: Record<string, number> | undefined;
  const xs = new Xsnap({ bin, onCommand: (bytes) => ((result = JSON.parse(new TextDecoder().decode(bytes))), new Uint8Array(0)) });
  const PROBE = "(() => { gc(); const b = new ArrayBuffer(32); heapStats(b, 0); return b; })()";
  const stats = (b: Uint8Array) => new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + 32));
  try {
    const before = measureLoad ? stats(await xs.evaluate(PROBE)) : undefined;
    await xs.script(script);
    const after = measureLoad ? stats(await xs.evaluate(PROBE)) : undefined;
    await xs.evaluate(`__ct.main(${JSON.stringify(args)})`);
    if (!result) throw new Error("the workload reported nothing");
    if (before && after) {
      result.load_slots = after[0] - before[0];
      result.load_chunk_bytes = after[2] - before[2];
    }
    return result;
  } finally {
    await xs.close().catch(() => {});
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-text-table-"));
try {
  const script = path.join(dir, "ct.js");
  await bundleForXs(path.join(here, "text-table/xs-workload.ts"), script);
  const heap = await run(ensureHeapWorker(), script, { texts, rounds: 1, period: 32 }, true);
  const time = await run(await ensureWorker(), script, { texts, rounds, period: 0 }, false);
  const chars = time.chars * rounds;
  const tableBytes = TABLE1.chars.byteLength + TABLE1.off.byteLength + TABLE1.sorted.byteLength;
  console.log(JSON.stringify({
    table: TABLE1.version, entries: TABLE1.n1 + TABLE1.n2 + TABLE1.np, module_bytes: fs.statSync(path.join(root, "src/text/table1.ts")).size, table_bytes: tableBytes,
    load_slots: heap.load_slots, load_chunk_bytes: heap.load_chunk_bytes,
    texts: time.texts, chars: time.chars, rounds,
    encode_ms: time.encode_ms, decode_ms: time.decode_ms, encode_plain_ms: time.encode_plain_ms, decode_plain_ms: time.decode_plain_ms,
    encode_us_per_char: Math.round((time.encode_ms * 1000 / chars) * 100) / 100, decode_us_per_char: Math.round((time.decode_ms * 1000 / chars) * 100) / 100,
    json_parse_ms: time.json_parse_ms, round_trip_failures: time.round_trip_failures,
    longest_chars: heap.longest_chars, decode_peak_slots: heap.decode_peak_slots, decode_peak_chunk_bytes: heap.decode_peak_chunk_bytes,
    encode_peak_slots: heap.encode_peak_slots, encode_peak_chunk_bytes: heap.encode_peak_chunk_bytes,
  }));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

// `tsx tools/text-table-bench.ts` inside XS: encodes and decodes held-out texts
// with compact text (src/text/compact.ts), timing it in the device-like worker
// and measuring the heap a decode takes in the heap worker.
import { compactEncode, compactDecode, encodeSlow, decodeSlow, TABLE1 } from "../../src/text/compact";

declare function heapStats(out: ArrayBuffer, op?: number, arg?: number): void;
declare function gc(): void;
declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

function main(o: { texts: string[]; rounds: number; period: number }): void {
  const S = new ArrayBuffer(32);
  const v = new Int32Array(S);
  let chars = 0;
  for (const s of o.texts) for (const _c of s) chars++;
  const coded = o.texts.map((s) => compactEncode(s));
  const out: Record<string, number> = { texts: o.texts.length, chars, rounds: o.rounds, entries: TABLE1.n1 + TABLE1.n2 + TABLE1.np };
  if (o.period) {
    // the heap one decode and one encode of the longest text take, above what is live
    let longest = 0;
    for (let i = 1; i < o.texts.length; i++) if (o.texts[i].length > o.texts[longest].length) longest = i;
    gc();
    heapStats(S, 1);
    const base = [v[0], v[2]];
    heapStats(S, 2, o.period);
    compactDecode(coded[longest]);
    heapStats(S, 0);
    out.decode_peak_slots = v[1] - base[0];
    out.decode_peak_chunk_bytes = v[3] - base[1];
    gc();
    heapStats(S, 1);
    const base2 = [v[0], v[2]];
    compactEncode(o.texts[longest]);
    heapStats(S, 0);
    out.encode_peak_slots = v[1] - base2[0];
    out.encode_peak_chunk_bytes = v[3] - base2[1];
    heapStats(S, 2, 0);
    out.longest_chars = o.texts[longest].length;
  } else {
    let t0 = Date.now();
    for (let r = 0; r < o.rounds; r++) for (const s of o.texts) compactEncode(s);
    out.encode_ms = Date.now() - t0;
    t0 = Date.now();
    let bad = 0;
    for (let r = 0; r < o.rounds; r++) for (let i = 0; i < coded.length; i++) if (compactDecode(coded[i]) !== o.texts[i]) bad++;
    out.decode_ms = Date.now() - t0;
    out.round_trip_failures = bad;
    // the plain forms (the definition, and the code table 1 shipped with), timed in the same run
    t0 = Date.now();
    for (let r = 0; r < o.rounds; r++) for (const s of o.texts) encodeSlow(s);
    out.encode_plain_ms = Date.now() - t0;
    t0 = Date.now();
    for (let r = 0; r < o.rounds; r++) for (let i = 0; i < coded.length; i++) decodeSlow(coded[i]);
    out.decode_plain_ms = Date.now() - t0;
    // for scale: JSON.parse of each text as a line's string field, as a reader parses every line
    const lines = o.texts.map((s) => JSON.stringify({ c: s }));
    t0 = Date.now();
    for (let r = 0; r < o.rounds; r++) for (const l of lines) JSON.parse(l);
    out.json_parse_ms = Date.now() - t0;
  }
  const bytes = new TextEncoder().encode(JSON.stringify(out));
  issueCommand(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

(globalThis as unknown as { __ct: unknown }).__ct = { main };

// Segment files and their sidecars (docs/FORMAT.md §3.3, §3.4).
//
// A segment is a JSONL file of at most SEGMENT_BYTES, cut into blocks of whole
// lines of at most 4 KB. Its sidecar holds, per closed block, a 32-byte entry
// (offset, length, counts, time range, CRC of the block) and the block's
// 256-byte keyword signature, each protected by a CRC. Sidecars are derived
// data: a damaged one is read up to its first bad record and rebuilt.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { CHUNK, readInto, writeAt, openWrite, remove, rethrowFatal } from "./file";
import { lineOk, lineT, parseRecords, textsOf, STREAM_CHAR, STREAM_CODE, type Rec, type Stream } from "./codec";
import { sigAdd, SIG_BYTES, ELEMENTS } from "./fold";
import { repairLine } from "./repair";

export const SEGMENT_BYTES = 57344; // as stream.ts (FORMAT.md §3.3)
export const SEGMENT_BLOCKS = 16;
export const SIDE_HEADER = 32;
export const ENTRY = 32;
export const RECORD = ENTRY + SIG_BYTES; // 288
export const SIDE_MAX = SIDE_HEADER + SEGMENT_BLOCKS * RECORD; // 4640
export const SIDE_MAGIC = 0x32534d50; // "PMS2"

export interface BlockInfo {
  offset: number;
  length: number;
  records: number;
  bad: number;
  min: number; // smallest record time (0xFFFFFFFF when none)
  max: number; // largest (0 when none)
  crc: number; // of the block's bytes
  set?: number; // its signature's element set (fold.ts; undefined: 0)
}

export const NO_MIN = 0xffffffff;

// ---- names ---------------------------------------------------------------------------

function pad6(n: number): string {
  let s = String(n);
  while (s.length < 6) s = "0" + s;
  return s;
}

export function segName(root: string, stream: Stream, seq: number, ext: "jsonl" | "six" | "twn" | "ret" | "scr" | "scx" | "par" | "rst"): string {
  return `${root}${STREAM_CHAR[stream]}${pad6(seq)}.${ext}`;
}

const CHAR_STREAM: Record<string, Stream> = { f: "fact", m: "moment", e: "event", d: "digest", p: "passage" };

// Parses a name of the root's listing: "f000012.jsonl" → {stream, seq, ext}.
export function parseName(name: string): { stream: Stream; seq: number; ext: string } | undefined {
  const m = /^([fmedp])(\d{6})\.([a-z]{3,5})$/.exec(name);
  if (!m) return undefined;
  return { stream: CHAR_STREAM[m[1]], seq: Number(m[2]), ext: m[3] };
}

// ---- little-endian helpers ---------------------------------------------------------------

export function u32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}
export function u16(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8);
}
export function put32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 255;
  b[at + 1] = (v >>> 8) & 255;
  b[at + 2] = (v >>> 16) & 255;
  b[at + 3] = (v >>> 24) & 255;
}
export function put16(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 255;
  b[at + 1] = (v >>> 8) & 255;
}

// ---- the sidecar -------------------------------------------------------------------------

export function sideHeader(stream: Stream, seq: number): Uint8Array {
  const h = new Uint8Array(SIDE_HEADER);
  put32(h, 0, SIDE_MAGIC);
  h[4] = 2;
  h[5] = STREAM_CODE[stream];
  put16(h, 6, CHUNK);
  put16(h, 8, SIG_BYTES);
  h[10] = 2;
  put32(h, 12, seq);
  put32(h, 28, crc32(h, 0, 28));
  return h;
}

export function encodeRecordEntry(b: BlockInfo, sig: Uint8Array, sigAt: number, out: Uint8Array, at: number): void {
  out.fill(0, at, at + ENTRY);
  put32(out, at, b.offset);
  put16(out, at + 4, b.length);
  put16(out, at + 6, Math.min(b.records, 0xffff));
  put16(out, at + 8, Math.min(b.bad, 0xffff));
  put16(out, at + 10, ELEMENTS); // every signature is made by sigAdd (BlockBuilder)
  put32(out, at + 12, b.min);
  put32(out, at + 16, b.max);
  put32(out, at + 20, b.crc);
  put32(out, at + 24, crc32(sig, sigAt, sigAt + SIG_BYTES));
  put32(out, at + 28, crc32(out, at, at + 28));
  out.set(sig.subarray(sigAt, sigAt + SIG_BYTES), at + ENTRY);
}

export interface Side {
  blocks: BlockInfo[];
  sigs: Uint8Array; // SIG_BYTES per block, in block order (a view of the buffer read into)
  indexedEnd: number; // where the indexed blocks end in the segment
  why?: string; // why the sidecar stopped early or is missing (rebuilt when sealing)
  // after a record that fails a check: the valid records that follow it,
  // contiguous among themselves and starting past indexedEnd (their
  // signatures follow `sigs` in the buffer); the bytes between indexedEnd and
  // the first of them are the damaged record's block (a query scans only those)
  after?: BlockInfo[];
  afterSigs?: Uint8Array;
}

// Reads a sidecar whole (at most SIDE_MAX bytes, in chunks of at most 4 KB) into
// `buf` and keeps its valid records: contiguous from offset 0, each entry and
// signature matching its CRC, within `segLength`. Never throws for damage.
export function readSide(path: string, stream: Stream, seq: number, segLength: number, buf: Uint8Array): Side {
  const out: Side = { blocks: [], sigs: buf.subarray(0, 0), indexedEnd: 0 };
  let f: File;
  try {
    f = new File(path);
  } catch (e) {
    rethrowFatal(e);
    out.why = "no sidecar";
    return out;
  }
  let n = 0;
  try {
    const len = Math.min(f.length, SIDE_MAX);
    while (n < len) n += readInto(f, n, Math.min(CHUNK, len - n), buf, n);
  } catch (e) {
    rethrowFatal(e);
    out.why = "sidecar unreadable";
    return out;
  } finally {
    f.close();
  }
  if (n < SIDE_HEADER || u32(buf, 0) !== SIDE_MAGIC || buf[4] !== 2 || buf[5] !== STREAM_CODE[stream] || u32(buf, 12) !== seq || u32(buf, 28) !== crc32(buf, 0, 28)) {
    out.why = "sidecar header";
    return out;
  }
  // signatures are moved down to sit together after the header, in block order
  const sigs = buf.subarray(SIDE_HEADER);
  let end = 0;
  for (let i = 0; SIDE_HEADER + (i + 1) * RECORD <= n && i < SEGMENT_BLOCKS; i++) {
    const at = SIDE_HEADER + i * RECORD;
    if (u32(buf, at + 28) !== crc32(buf, at, at + 28)) {
      out.why = `sidecar entry ${i}`;
      break;
    }
    const b: BlockInfo = { offset: u32(buf, at), length: u16(buf, at + 4), records: u16(buf, at + 6), bad: u16(buf, at + 8), min: u32(buf, at + 12), max: u32(buf, at + 16), crc: u32(buf, at + 20), set: u16(buf, at + 10) };
    if (b.offset !== end || b.length < 1 || b.length > CHUNK || b.offset + b.length > segLength || crc32(buf, at + ENTRY, at + RECORD) !== u32(buf, at + 24)) {
      out.why = `sidecar entry ${i}`;
      break;
    }
    sigs.copyWithin(i * SIG_BYTES, at + ENTRY - SIDE_HEADER, at + RECORD - SIDE_HEADER);
    out.blocks.push(b);
    end = b.offset + b.length;
  }
  out.sigs = sigs.subarray(0, out.blocks.length * SIG_BYTES);
  out.indexedEnd = end;
  if (out.why && out.why.indexOf("entry") > 0) afterBad(buf, n, out, segLength);
  return out;
}

// The records after the first bad one that still check out (one flipped bit
// spoils one record): each entry and signature matching its CRC, contiguous
// from the first of them, past the valid prefix and within the segment.
function afterBad(buf: Uint8Array, n: number, out: Side, segLength: number): void {
  const k = out.blocks.length;
  const after: BlockInfo[] = [];
  let end = -1;
  for (let i = k + 1; SIDE_HEADER + (i + 1) * RECORD <= n && i < SEGMENT_BLOCKS; i++) {
    const at = SIDE_HEADER + i * RECORD;
    const b: BlockInfo = { offset: u32(buf, at), length: u16(buf, at + 4), records: u16(buf, at + 6), bad: u16(buf, at + 8), min: u32(buf, at + 12), max: u32(buf, at + 16), crc: u32(buf, at + 20), set: u16(buf, at + 10) };
    const good = u32(buf, at + 28) === crc32(buf, at, at + 28) && b.length >= 1 && b.length <= CHUNK && b.offset + b.length <= segLength && crc32(buf, at + ENTRY, at + RECORD) === u32(buf, at + 24);
    if (!good || (end < 0 ? b.offset <= out.indexedEnd : b.offset !== end)) {
      if (end < 0) continue; // a second bad record: the next good one starts the run
      break;
    }
    // below the prefix's signatures (never over a record not read yet)
    buf.copyWithin(SIDE_HEADER + (k + after.length) * SIG_BYTES, at + ENTRY, at + RECORD);
    after.push(b);
    end = b.offset + b.length;
  }
  if (!after.length) return;
  out.after = after;
  out.afterSigs = buf.subarray(SIDE_HEADER + k * SIG_BYTES, SIDE_HEADER + (k + after.length) * SIG_BYTES);
}

// Creates (or replaces) a sidecar holding only its header.
export function createSide(path: string, stream: Stream, seq: number): void {
  remove(path);
  const f = openWrite(path);
  try {
    writeAt(f, sideHeader(stream, seq), 0);
  } finally {
    f.close();
  }
}

// Writes block records at record index `first` (overwriting a torn record left there).
export function writeSideRecords(path: string, first: number, records: Uint8Array): void {
  const f = openWrite(path);
  try {
    writeAt(f, records, SIDE_HEADER + first * RECORD);
  } finally {
    f.close();
  }
}

// ---- lines and blocks --------------------------------------------------------------------

// What a line of a segment is. A line whose CRC fails is repaired in place when
// one flipped bit explains it (repairLine); otherwise it is bad.
export const KIND_RECORD = 0;
export const KIND_HEADER = 1;
export const KIND_BAD = 2;

export function lineKind(buf: Uint8Array, s: number, e: number): number {
  if (!lineOk(buf, s, e) && repairLine(buf, s, e) < 0) return KIND_BAD;
  // a header line: {"v":
  if (buf[s + 2] === 118 && buf[s + 1] === 34 && buf[s + 3] === 34) return KIND_HEADER;
  return lineT(buf, s, e) >= 0 ? KIND_RECORD : KIND_BAD;
}

// The state of a builder's open block: where it starts, what its lines hold
// (records, times, signature) and the CRC of its bytes so far.
export interface OpenBlock {
  info: BlockInfo;
  sig: Uint8Array;
  crc: number;
}

// Builds block records (entry + signature) from the lines of a segment, in
// order. `flush(true)` closes the last, partial block too (a segment being sealed).
export class BlockBuilder {
  out: Uint8Array; // finished records, RECORD bytes each
  count = 0; // records finished
  private cur: BlockInfo;
  private sig = new Uint8Array(SIG_BYTES);
  private crc = 0;
  private open = false;
  private recs: Rec[] = [];
  tailRecords = 0; // records in the block still open
  tailBad = 0;

  constructor(
    readonly stream: Stream,
    start: number,
    room: number, // block records that may still be written
  ) {
    this.out = new Uint8Array(Math.max(0, room) * RECORD);
    this.cur = { offset: start, length: 0, records: 0, bad: 0, min: NO_MIN, max: 0, crc: 0 };
  }

  get full(): boolean {
    return this.count * RECORD >= this.out.length;
  }

  // Where the finished blocks end.
  get end(): number {
    return this.cur.offset;
  }

  add(buf: Uint8Array, s: number, e: number, size: number): void {
    if (this.open && this.cur.length + size > CHUNK) this.close();
    if (this.full) return;
    this.open = true;
    const c = this.cur;
    c.length += size;
    this.crc = crc32(buf, s, s + size, this.crc);
    const k = size > e - s ? lineKind(buf, s, e) : KIND_BAD;
    if (k === KIND_RECORD) {
      // every record of the line: a packed fact line holds several (FORMAT.md §3.19)
      if (parseRecords(buf, s, e, this.stream, this.recs))
        for (const { it, t } of this.recs) {
          c.records++;
          if (t < c.min) c.min = t;
          if (t > c.max) c.max = t;
          for (const x of textsOf(it)) sigAdd(this.sig, 0, x);
        }
      else c.bad++;
    } else if (k === KIND_BAD) c.bad++;
    // a damaged run of 4 KB without a newline closes its block at once
    if (c.length >= CHUNK) this.close();
    this.tailRecords = c.records;
    this.tailBad = c.bad;
  }

  private close(): void {
    if (!this.open || this.full) return;
    const c = this.cur;
    c.crc = this.crc;
    encodeRecordEntry(c, this.sig, 0, this.out, this.count * RECORD);
    this.count++;
    this.cur = { offset: c.offset + c.length, length: 0, records: 0, bad: 0, min: NO_MIN, max: 0, crc: 0 };
    this.sig.fill(0);
    this.crc = 0;
    this.open = false;
    this.tailRecords = this.tailBad = 0;
  }

  flush(final: boolean): Uint8Array {
    if (final) this.close();
    return this.out.subarray(0, this.count * RECORD);
  }

  // The open block (the lines added since the last one closed), kept in `into`
  // (made when undefined); undefined when no block is open. An append keeps it
  // to go on from at the next one (stream.ts: OpenBlock).
  keepOpen(into: OpenBlock | undefined): OpenBlock | undefined {
    if (!this.open) return undefined;
    const k = into ?? { info: { ...this.cur }, sig: new Uint8Array(SIG_BYTES), crc: 0 };
    Object.assign(k.info, this.cur);
    k.sig.set(this.sig);
    k.crc = this.crc;
    return k;
  }

  // Goes on from an open block kept by keepOpen: as if its lines had been added.
  resume(k: OpenBlock): void {
    this.cur = { ...k.info };
    this.sig.set(k.sig);
    this.crc = k.crc;
    this.open = true;
    this.tailRecords = k.info.records;
    this.tailBad = k.info.bad;
  }

  // The records finished so far (a copy), and room for as many again: a
  // builder kept across steps (a rewrite building its segment's sidecar as it
  // copies, scrub.ts) holds only the open block and a few records in RAM.
  drain(final: boolean): Uint8Array {
    const r = this.flush(final).slice();
    this.count = 0;
    return r;
  }
}

// Decodes the block records a builder finished (for the in-RAM view of the open segment).
export function decodeRecords(out: Uint8Array, count: number): BlockInfo[] {
  const r: BlockInfo[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * RECORD;
    r.push({ offset: u32(out, at), length: u16(out, at + 4), records: u16(out, at + 6), bad: u16(out, at + 8), min: u32(out, at + 12), max: u32(out, at + 16), crc: u32(out, at + 20), set: u16(out, at + 10) });
  }
  return r;
}

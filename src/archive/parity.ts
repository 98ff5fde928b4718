// Damage at rest on sealed segments (docs/FORMAT.md §3.15, docs/design/rest.md).
//
// Sealed segments of a stream are grouped by number: group g holds the
// segments numbered g*GROUP+1 … (g+1)*GROUP. Once every number of a group is
// below the open segment (the group is closed) and its segments are sealed,
// one parity file `<c><first>.par` is written by steps: the XOR of its members,
// each padded with zeros to the longest, followed by a trailer that names the
// members (number, length, CRC-32). Until then a sealed segment keeps its twin
// (a whole copy). A member that cannot be read is served from the parity and
// the other members (XOR, chunk by chunk, never a whole file in RAM) and
// rebuilt by steps.
//
// Layout of `.par` (little-endian):
//   body     L bytes: XOR of the members, each padded with zeros to L
//   members  12 bytes each: seq u32, length u32, CRC-32 of the member u32
//   n        u8 (1..16), stream char u8, 0 u16
//   L        u32
//   bodyCRC  u32 (CRC-32 of the body)
//   "PPAR"   4 bytes
//   CRC      u32: CRC-32 of the trailer before it (members … "PPAR")
// A file whose length is not L + 12n + 20, or whose trailer CRC fails, is not
// a parity file (a cut build): it is deleted and built again.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { CHUNK, readInto, writeAt, openAppend, openWrite, rethrowFatal } from "./file";

export const PARITY = { group: 16 }; // members per group (tests may lower it)
export const TAIL = 20; // n .. CRC
const MAGIC = [0x50, 0x50, 0x41, 0x52]; // "PPAR"

export interface Member {
  seq: number;
  length: number;
  crc: number;
}

export interface ParityInfo {
  path: string;
  body: number; // L
  members: Member[];
  bodyCrc: number;
}

export function groupOf(seq: number): number {
  return Math.floor((seq - 1) / PARITY.group);
}
export function firstOf(g: number): number {
  return g * PARITY.group + 1;
}

// XORs src[0..n) into dst[at..at+n).
export function xorInto(dst: Uint8Array, src: Uint8Array, n: number, at = 0): void {
  for (let i = 0; i < n; i++) dst[at + i] ^= src[i];
}

function put32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
}
function get32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}

export function encodeTrailer(members: Member[], body: number, bodyCrc: number, streamChar: string): Uint8Array {
  const n = members.length;
  const t = new Uint8Array(12 * n + TAIL);
  members.forEach((m, i) => {
    put32(t, 12 * i, m.seq);
    put32(t, 12 * i + 4, m.length);
    put32(t, 12 * i + 8, m.crc);
  });
  const a = 12 * n;
  t[a] = n;
  t[a + 1] = streamChar.charCodeAt(0);
  put32(t, a + 4, body);
  put32(t, a + 8, bodyCrc);
  for (let i = 0; i < 4; i++) t[a + 12 + i] = MAGIC[i];
  put32(t, a + 16, crc32(t, 0, a + 16));
  return t;
}

// The trailer from the file's last bytes (`tail`, at most 12*16+20 of them) and
// the file's length; undefined when it is not a whole parity file.
export function decodeTrailer(tail: Uint8Array, fileLength: number, path: string): ParityInfo | undefined {
  const e = tail.length;
  if (e < TAIL) return undefined;
  for (let i = 0; i < 4; i++) if (tail[e - 8 + i] !== MAGIC[i]) return undefined;
  const n = tail[e - TAIL];
  if (n < 1 || n > 16 || e < 12 * n + TAIL) return undefined;
  const s = e - TAIL - 12 * n;
  if (crc32(tail, s, e - 4) !== get32(tail, e - 4)) return undefined;
  const body = get32(tail, e - 16);
  if (body + 12 * n + TAIL !== fileLength) return undefined;
  const members: Member[] = [];
  for (let i = 0; i < n; i++) members.push({ seq: get32(tail, s + 12 * i), length: get32(tail, s + 12 * i + 4), crc: get32(tail, s + 12 * i + 8) });
  return { path, body, members, bodyCrc: get32(tail, e - 12) };
}

// Reads a parity file's trailer (one open, one read of at most 212 bytes).
export function readParity(path: string): ParityInfo | undefined {
  let f: File;
  try {
    f = new File(path);
  } catch (e) {
    rethrowFatal(e);
    return undefined;
  }
  try {
    const len = f.length;
    const k = Math.min(len, 12 * 16 + TAIL);
    const buf = new Uint8Array(k);
    if (readInto(f, len - k, k, buf) !== k) return undefined;
    return decodeTrailer(buf, len, path);
  } catch (e) {
    rethrowFatal(e);
    return undefined;
  } finally {
    f.close();
  }
}

// Reads [pos, pos+n) of `path` (n <= CHUNK) XORed into out[0..), bytes past
// the file's `length` count as zeros. Returns false when it cannot be read.
function xorFrom(path: string, length: number, pos: number, n: number, out: Uint8Array, scratch: Uint8Array): boolean {
  const k = Math.min(n, length - pos);
  if (k <= 0) return true;
  let f: File;
  try {
    f = new File(path);
  } catch (e) {
    rethrowFatal(e);
    return false;
  }
  try {
    if (readInto(f, pos, k, scratch) !== k) return false;
    xorInto(out, scratch, k);
    return true;
  } catch (e) {
    rethrowFatal(e);
    return false;
  } finally {
    f.close();
  }
}

// A member rebuilt on the fly: reads as a File (position, read, length,
// close), each read the XOR of the parity body and every other member at the
// same offset (one chunk of each at a time).
export class XorReader {
  position = 0;
  constructor(
    readonly parity: ParityInfo,
    readonly member: Member,
    readonly pathOf: (seq: number) => string,
  ) {}
  get length(): number {
    return this.member.length;
  }
  read(_t: typeof ArrayBuffer, n: number): ArrayBuffer {
    const out = new Uint8Array(Math.max(0, Math.min(n, this.member.length - this.position)));
    const scratch = new Uint8Array(Math.min(CHUNK, out.length));
    for (let at = 0; at < out.length; ) {
      const k = Math.min(CHUNK, out.length - at);
      const part = new Uint8Array(k);
      const pos = this.position + at;
      if (!xorFrom(this.parity.path, this.parity.body, pos, k, part, scratch)) throw new Error(`parity ${this.parity.path} unreadable`);
      for (const m of this.parity.members) {
        if (m.seq === this.member.seq) continue;
        if (!xorFrom(this.pathOf(m.seq), m.length, pos, k, part, scratch)) throw new Error(`member ${m.seq} unreadable too`);
      }
      out.set(part, at);
      at += k;
    }
    this.position += out.length;
    return out.buffer as ArrayBuffer;
  }
  close(): void {}
}

// Building a parity file by steps: one chunk of the body per step (reads a
// chunk of every member, writes one chunk), the trailer last.
export interface Build {
  path: string;
  streamChar: string;
  members: Member[]; // crc: running CRC of what was read so far
  body: number;
  pos: number;
  bodyCrc: number;
}

export function startBuild(path: string, streamChar: string, members: { seq: number; length: number }[]): Build {
  let body = 0;
  for (const m of members) body = Math.max(body, m.length);
  File.delete(path); // a cut build's leftover
  return { path, streamChar, members: members.map((m) => ({ seq: m.seq, length: m.length, crc: 0 })), body, pos: 0, bodyCrc: 0 };
}

// One step; `open` opens a member for reading (its twin when the segment
// itself cannot be). Returns true when the file is whole.
export function buildStep(b: Build, open: (seq: number) => { position: number; read(t: typeof ArrayBuffer, n: number): ArrayBuffer; close(): void }): boolean {
  if (b.pos < b.body) {
    const k = Math.min(CHUNK, b.body - b.pos);
    const out = new Uint8Array(k);
    for (const m of b.members) {
      const n = Math.min(k, m.length - b.pos);
      if (n <= 0) continue;
      const f = open(m.seq);
      try {
        f.position = b.pos;
        const got = new Uint8Array(f.read(ArrayBuffer, n));
        if (got.length !== n) throw new Error(`member ${m.seq}: short read`);
        m.crc = crc32(got, 0, n, m.crc);
        xorInto(out, got, n);
      } finally {
        f.close();
      }
    }
    const w = b.pos === 0 ? openWrite(b.path) : openAppend(b.path, b.pos);
    try {
      writeAt(w, out, b.pos);
    } finally {
      w.close();
    }
    b.bodyCrc = crc32(out, 0, k, b.bodyCrc);
    b.pos += k;
    return false;
  }
  const w = b.body === 0 ? openWrite(b.path) : openAppend(b.path, b.body);
  try {
    writeAt(w, encodeTrailer(b.members, b.body, b.bodyCrc, b.streamChar), b.body);
  } finally {
    w.close();
  }
  return true;
}

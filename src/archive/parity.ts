// XOR parity of a group of archive segments (docs/FORMAT.md §3.15,
// docs/design/rest.md).
//
// The segments of a stream are grouped by number: group g holds g*n+1 …
// (g+1)*n. The group's parity is the XOR of its
// members (segments no longer taking appends), each padded with zeros to the
// longest; it lives in `<c><newest member>.par` with no header or trailer. A
// member that cannot be read is the XOR of the parity and every other member,
// read chunk by chunk (never a whole file in RAM).

import { File } from "file";
import { CHUNK, readInto, rethrowFatal } from "./file";

// members per group: facts and digests (never retired) 16; moments and events
// 2 (retired oldest first: a pair goes together, so no retire changes a
// parity that stays). Tests may lower `group`.
export const PARITY = { group: 16, pair: 2 };

export interface Member {
  seq: number;
  length: number;
}

export interface ParityInfo {
  path: string; // the parity file
  body: number; // its length: the longest member's
  members: Member[];
}

export function groupOf(seq: number, n = PARITY.group): number {
  return Math.floor((seq - 1) / n);
}
export function firstOf(g: number, n = PARITY.group): number {
  return g * n + 1;
}

// XORs src[0..n) into dst[at..at+n).
export function xorInto(dst: Uint8Array, src: Uint8Array, n: number, at = 0): void {
  for (let i = 0; i < n; i++) dst[at + i] ^= src[i];
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

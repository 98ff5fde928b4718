// The slot index `/ep.i` (docs/FORMAT.md §4.9, docs/design/episode-queries.md):
// per slot the few header fields a recall or a text query asks first (state,
// createdAt, whether the text is one passage line, the signature folded to
// 128 bits), 24 bytes instead of the header's 128, so that the first such
// question after boot reads about a fifth of what a header scan reads.
//
// It is derived data and never trusted beyond its checks: a base written by
// steps from the headers, then one record appended per batch the store
// commits. It is used only when its records run without a gap from the base
// to the store's last batch (`seq`), or to the one before it: then that
// batch's record is missing or damaged (a cut or a failure after /ep.w named
// it, a torn append, a flipped bit in it) and the headers of the slots /ep.w
// names stand in for it. Anything else (damage before the last record, two
// batches missing) makes it stale, and the header scan answers until steps
// write it again. A slot it wrongly called a candidate
// costs a header read; it can never call a header that changed after it was
// written a non-candidate, since that change is a batch and its record.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { MAX_LINE } from "../archive/codec";
import { HEADER_BYTES, H_SIG, headerLean, headerRef, headerState, u32, put32 } from "./record";
import { EPISODE_SIG_BYTES, EPISODE_SLOTS, type SlotTable } from "./types";
import { fatal } from "./store-files";

export type { SlotTable };

export const IDX_SIG = 16; // bytes of a folded signature
export const IX_HEAD = 16; // "EPI", version, n, reserved, stamp, CRC
export const IX_ENTRY = 24; // flags, reserved, createdAt, folded signature
export const IX_TRAIL = 8; // "EPIE", CRC of the entries
export const IX_REC = 12; // a record's seq, count, reserved, and its CRC
export const IX_REC_ENTRY = 2 + IX_ENTRY; // slot, entry
export const IX_VERSION = 1;
const CHUNK = 4096;

// A 512-bit signature OR-ed down to 128 bits at `off` of `out`.
export function foldSig(sig: Uint8Array, out: Uint8Array, off: number, sigAt = 0, sigLen = sig.length - sigAt): void {
  for (let i = 0; i < IDX_SIG; i++) out[off + i] = 0;
  for (let i = 0; i < sigLen; i++) out[off + (i & (IDX_SIG - 1))] |= sig[sigAt + i];
}

export function newTable(n: number): SlotTable {
  return { n, active: new Uint8Array(n), created: new Uint32Array(n), sig: new Uint8Array(n * IDX_SIG), short: new Uint8Array(n) };
}

// Whether a text of `len` bytes of passage lines is one line (a version-1
// header's text, len undefined or -1, is taken as long).
export function oneLine(len: number | undefined): boolean {
  return len !== undefined && len > 0 && len <= MAX_LINE;
}

// The entry of a header that checks out (h[at..at+128)), into out[o..o+24).
export function entryOf(h: Uint8Array, at: number, out: Uint8Array, o: number): void {
  const state = headerState(h, at);
  out[o] = (state & 3) | (state !== 0 && headerLean(h, at) && oneLine(headerRef(h, at).len) ? 0x80 : 0);
  out[o + 1] = 0;
  out[o + 2] = 0;
  out[o + 3] = 0;
  put32(out, o + 4, state === 0 ? 0 : u32(h, at + 12));
  if (state === 0) for (let i = 0; i < IDX_SIG; i++) out[o + 8 + i] = 0;
  else foldSig(h, out, o + 8, at + H_SIG, EPISODE_SIG_BYTES);
}

// An entry into the table (false: its bytes are not an entry).
function take(t: SlotTable, slot: number, b: Uint8Array, o: number): boolean {
  const st = b[o] & 0x7f;
  if (st > 2 || b[o + 1] || b[o + 2] || b[o + 3]) return false;
  if (slot >= t.n) return true;
  t.active[slot] = st;
  t.short[slot] = b[o] & 0x80 ? 1 : 0;
  t.created[slot] = u32(b, o + 4);
  t.sig.set(b.subarray(o + 8, o + 8 + IDX_SIG), slot * IDX_SIG);
  return true;
}

// "EPI" and a fourth byte (the version in the head, "E" in the trailer) at b[o..o+4)
function tag(b: Uint8Array, o: number, fourth: number): void {
  b[o] = 0x45;
  b[o + 1] = 0x50;
  b[o + 2] = 0x49;
  b[o + 3] = fourth;
}

function tagged(b: Uint8Array, o: number, fourth: number): boolean {
  return b[o] === 0x45 && b[o + 1] === 0x50 && b[o + 2] === 0x49 && b[o + 3] === fourth;
}

export function headOf(n: number, stamp: number): Uint8Array {
  const b = new Uint8Array(IX_HEAD);
  tag(b, 0, IX_VERSION);
  b[4] = n & 0xff;
  b[5] = n >> 8;
  put32(b, 8, stamp);
  put32(b, 12, crc32(b, 0, 12));
  return b;
}

export function trailOf(crc: number): Uint8Array {
  const b = new Uint8Array(IX_TRAIL);
  tag(b, 0, 0x45);
  put32(b, 4, crc);
  return b;
}

// Whether the entry at e[eo..eo+24) is what the header at h[ho..ho+128) gives.
export function sameEntry(e: Uint8Array, eo: number, h: Uint8Array, ho: number): boolean {
  const x = new Uint8Array(IX_ENTRY);
  entryOf(h, ho, x, 0);
  for (let i = 0; i < IX_ENTRY; i++) if (x[i] !== e[eo + i]) return false;
  return true;
}

// The record of a batch `seq`: the entries of `slots`, whose headers are
// recs[at[i]·128..) (none: a batch that changed no entry, as use counts).
export function recordOf(seq: number, slots: readonly number[], recs: Uint8Array, at: readonly number[]): Uint8Array {
  const e = new Uint8Array(slots.length * IX_ENTRY);
  for (let i = 0; i < slots.length; i++) entryOf(recs, at[i] * HEADER_BYTES, e, i * IX_ENTRY);
  return recordOfEntries(seq, slots, e);
}

// The record of a batch `seq`: slot slots[i]'s entry is e[i·24..).
export function recordOfEntries(seq: number, slots: readonly number[], e: Uint8Array): Uint8Array {
  const k = slots.length;
  const b = new Uint8Array(IX_REC + k * IX_REC_ENTRY);
  put32(b, 0, seq);
  b[4] = k;
  for (let i = 0; i < k; i++) {
    const o = 8 + i * IX_REC_ENTRY;
    b[o] = slots[i] & 0xff;
    b[o + 1] = slots[i] >> 8;
    b.set(e.subarray(i * IX_ENTRY, (i + 1) * IX_ENTRY), o + 2);
  }
  put32(b, b.length - 4, crc32(b, 0, b.length - 4));
  return b;
}

// Reads `path` (4 KB reads) into a table of at least `slots` slots when it
// runs without a gap to batch `seq`, or to seq - 1 when `lag` gives batch
// seq's entries (the slots /ep.w names, read from their headers: called only
// then; what follows record seq - 1 is then not needed, whatever it is);
// undefined when it does not (stale) or cannot be read. `behind`: the record
// of batch seq the file lacks, to append; `torn`: bytes that are not a record
// follow, so nothing can be appended (steps write it again). `stats` counts
// the reads. `keep` false: checked only, no table kept (its n is 0), for a
// caller that needs the verdict and not the RAM (a step, a batch).
export function loadIndex(
  path: string,
  seq: number,
  slots: number,
  stats: { bytesRead: number; reads: number },
  lag?: () => { slots: readonly number[]; entries: Uint8Array } | undefined,
  keep = true,
): { t: SlotTable; behind?: Uint8Array; torn?: boolean } | undefined {
  let f: File | undefined;
  try {
    f = new File(path);
    const len = f.length;
    if (len < IX_HEAD + IX_TRAIL) return undefined;
    const buf = new Uint8Array(CHUNK);
    let have = 0, pos = 0, base = 0; // buf[0..have) holds the file's bytes from `base`
    const need = (n: number): number => {
      // buf[off..off+n) holds bytes pos..pos+n; -1 past the end
      if (pos + n > len) return -1;
      if (pos + n > base + have) {
        const left = base + have - pos;
        buf.copyWithin(0, pos - base, pos - base + left);
        base = pos;
        have = left;
        const m = Math.min(CHUNK - have, len - (base + have));
        (f as File).position = base + have;
        const got = new Uint8Array((f as File).read(ArrayBuffer, m) as ArrayBuffer);
        stats.reads++;
        stats.bytesRead += got.length;
        if (got.length !== m) return -1;
        buf.set(got, have);
        have += m;
      }
      return pos - base;
    };
    let o = need(IX_HEAD);
    if (o < 0 || !tagged(buf, o, IX_VERSION) || crc32(buf, o, o + 12) !== u32(buf, o + 12)) return undefined;
    const n = buf[o + 4] | (buf[o + 5] << 8);
    let last = u32(buf, o + 8);
    pos += IX_HEAD;
    const room = Math.max(n, slots) + 16; // the slots a table holds
    const t = newTable(keep ? room : 0);
    let top = n;
    // slot's entry at b[o..o+24) into the table (false: not an entry)
    const put = (slot: number, b: Uint8Array, o: number): boolean => {
      if (slot >= EPISODE_SLOTS || !take(t, slot, b, o)) return false;
      if (slot + 1 > top) top = slot + 1;
      return true;
    };
    let crc = 0;
    for (let s = 0; s < n; s++) {
      o = need(IX_ENTRY);
      if (o < 0) return undefined;
      crc = crc32(buf, o, o + IX_ENTRY, crc);
      if (!take(t, s, buf, o)) return undefined;
      pos += IX_ENTRY;
    }
    o = need(IX_TRAIL);
    if (o < 0 || !tagged(buf, o, 0x45) || u32(buf, o + 4) !== crc) return undefined;
    pos += IX_TRAIL;
    // the records, each the batch after the last: anything else is stale,
    // unless it comes after record seq - 1 (the last batch's stands in)
    let torn = false;
    const bad = () => (torn = last + 1 === seq && !!lag);
    while (pos < len) {
      o = need(8);
      if (o < 0) {
        if (bad()) break;
        return undefined;
      }
      const rs = u32(buf, o), k = buf[o + 4];
      const size = IX_REC + k * IX_REC_ENTRY;
      if (rs !== last + 1 || k > 8 || buf[o + 5] || buf[o + 6] || buf[o + 7] || (o = need(size)) < 0 || crc32(buf, o, o + size - 4) !== u32(buf, o + size - 4)) {
        if (bad()) break;
        return undefined;
      }
      // (its entries are taken only once the whole record checks out)
      for (let i = 0; i < k; i++) {
        const e = o + 8 + i * IX_REC_ENTRY;
        if (!put(buf[e] | (buf[e + 1] << 8), buf, e + 2)) return undefined;
      }
      last = rs;
      pos += size;
    }
    let behind: Uint8Array | undefined;
    if (last + 1 === seq && lag) {
      const l = lag();
      if (!l || !l.slots.length) return undefined;
      for (let i = 0; i < l.slots.length; i++) if (!put(l.slots[i], l.entries, i * IX_ENTRY)) return undefined;
      if (!torn) behind = recordOfEntries(seq, l.slots, l.entries);
      last = seq;
    }
    if (last !== seq || top < slots || top > room) return undefined;
    return { t, behind, torn };
  } catch (e) {
    if (fatal(e)) throw e;
    return undefined;
  } finally {
    try {
      f?.close();
    } catch (e) {
      if (fatal(e)) throw e;
    }
  }
}

// The sidecar index of one archive file (docs/FORMAT.md §3.3): `<name>.idx`
// holds one 28-byte entry per block of the file (offset, length, record and bad
// line counts, min and max timestamp key, CRC-32 of the block), `<name>.sig` the
// block's 256-byte keyword signature. Both only grow by appending, signature
// first, so an entry never exists without its signature.
//
// A block is a run of whole lines of at most 4 KB: one read returns it whole.
// The last, unfinished block of the file (the tail) is not indexed; it is
// indexed once the next line would not fit. The index is derived data: it is
// checked at boot and rebuilt from the file when it does not match, and losing
// it never loses a record.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { ArchiveError, CHUNK, IndexDamage, readInto, writeAt, openWrite, remove, fileLength, messageOf, rethrowFatal } from "./file";
import { SIG_BYTES, SIG_HASHES, sigAdd } from "./fold";
import { NL, parseLine, lineKey, type ArchiveType, type ArchivedItem } from "./line";

// 2: entries carry a check of their signature (bytes 10-11); a version 1
// index is rebuilt at boot.
export const IDX_VERSION = 2;
export const IDX_HEADER = 32;
export const ENTRY_BYTES = 28;
export const SIG_HEADER = 16;
export const IDX_MAGIC = 0x58414d50; // "PMAX" little-endian
export const SIG_MAGIC = 0x53414d50; // "PMAS"
export const NO_KEY_MIN = 0xffffffff; // min key of a block without records
const ENTRIES_PER_READ = Math.floor(CHUNK / ENTRY_BYTES); // 146
const SIGS_PER_READ = CHUNK / SIG_BYTES; // 16
const BATCH = 8; // entries written per index write

export interface BlockInfo {
  offset: number;
  length: number;
  records: number;
  bad: number;
  min: number;
  max: number;
  crc: number;
  sck: number; // low 16 bits of the CRC-32 of the block's signature
}

// The check of a signature kept in its index entry.
export function sigCheck(sig: Uint8Array, off: number): number {
  return crc32(sig, off, off + SIG_BYTES) & 0xffff;
}

function idxHeader(code: number, dropped: number, compactions: number): Uint8Array {
  const b = new Uint8Array(IDX_HEADER);
  const v = new DataView(b.buffer);
  v.setUint32(0, IDX_MAGIC, true);
  b[4] = IDX_VERSION;
  b[5] = code;
  v.setUint16(6, CHUNK, true);
  v.setUint16(8, ENTRY_BYTES, true);
  v.setUint16(10, SIG_BYTES, true);
  b[12] = SIG_HASHES;
  v.setUint32(16, dropped >>> 0, true);
  v.setUint32(20, compactions >>> 0, true);
  v.setUint32(28, crc32(b, 0, 28), true);
  return b;
}

function sigHeader(code: number): Uint8Array {
  const b = new Uint8Array(SIG_HEADER);
  const v = new DataView(b.buffer);
  v.setUint32(0, SIG_MAGIC, true);
  b[4] = IDX_VERSION;
  b[5] = code;
  v.setUint16(6, SIG_BYTES, true);
  b[8] = SIG_HASHES;
  v.setUint32(12, crc32(b, 0, 12), true);
  return b;
}

export function encodeEntry(e: BlockInfo, out: Uint8Array, at: number): void {
  const v = new DataView(out.buffer, out.byteOffset + at, ENTRY_BYTES);
  v.setUint32(0, e.offset, true);
  v.setUint16(4, e.length, true);
  v.setUint16(6, Math.min(e.records, 0xffff), true);
  v.setUint16(8, Math.min(e.bad, 0xffff), true);
  v.setUint16(10, e.sck & 0xffff, true);
  v.setUint32(12, e.min >>> 0, true);
  v.setUint32(16, e.max >>> 0, true);
  v.setUint32(20, e.crc >>> 0, true);
  v.setUint32(24, crc32(out, at, at + 24), true);
}

// Decodes the entry at b[at..] into e; false when its CRC fails (checked
// unless `trusted`: the index was checked at boot and only this code writes it).
export function decodeEntry(b: Uint8Array, at: number, e: BlockInfo, trusted = false): boolean {
  const u32 = (o: number) => (b[at + o] | (b[at + o + 1] << 8) | (b[at + o + 2] << 16) | (b[at + o + 3] << 24)) >>> 0;
  if (!trusted && u32(24) !== crc32(b, at, at + 24)) return false;
  e.offset = u32(0);
  e.length = b[at + 4] | (b[at + 5] << 8);
  e.records = b[at + 6] | (b[at + 7] << 8);
  e.bad = b[at + 8] | (b[at + 9] << 8);
  e.sck = b[at + 10] | (b[at + 11] << 8);
  e.min = u32(12);
  e.max = u32(16);
  e.crc = u32(20);
  return true;
}

export const blankBlock = (): BlockInfo => ({ offset: 0, length: 0, records: 0, bad: 0, min: NO_KEY_MIN, max: 0, crc: 0, sck: 0 });

export class Sidecar {
  entries = 0; // valid entries
  indexedEnd = 0; // end of the last indexed block in the data file
  records = 0; // records in indexed blocks
  bad = 0; // bad lines in indexed blocks
  dropped = 0; // records dropped by compactions (kept in the header)
  compactions = 0;
  idxLength = 0;
  sigLength = 0;
  present = false; // the index files exist (an empty archive has none)
  damaged = 0; // indexed blocks whose bytes no longer match their CRC, found at load
  // Signatures found to match their check since the index was loaded, one bit
  // per entry: each is checked once, the first time a query needs it.
  private sigOk = new Uint8Array(0);

  constructor(
    readonly idxPath: string,
    readonly sigPath: string,
    readonly code: number,
    readonly type: ArchiveType,
  ) {}

  // Reads and checks the index against the data file. Returns undefined when
  // it is good, else why not (the caller rebuilds it). An index file that
  // cannot be read is a reason to rebuild; a data file that cannot be read
  // throws ArchiveError("io") (nothing may be rebuilt from it).
  load(data: File | undefined, validEnd: number, buf: Uint8Array, files?: Map<string, number>): string | undefined {
    this.entries = this.indexedEnd = this.records = this.bad = this.damaged = 0;
    this.sigOk.fill(0);
    try {
      return this.check(data, validEnd, buf, files);
    } catch (e) {
      rethrowFatal(e);
      if (e instanceof ArchiveError) throw e;
      this.entries = this.indexedEnd = this.records = this.bad = this.damaged = 0;
      return `index unreadable (${messageOf(e)})`;
    }
  }

  private check(data: File | undefined, validEnd: number, buf: Uint8Array, files?: Map<string, number>): string | undefined {
    this.idxLength = files ? files.get(this.idxPath) ?? 0 : fileLength(this.idxPath);
    this.sigLength = files ? files.get(this.sigPath) ?? 0 : fileLength(this.sigPath);
    this.present = this.idxLength > 0 || this.sigLength > 0;
    if (!this.present && validEnd <= CHUNK) return undefined; // nothing to index yet
    if (this.idxLength < IDX_HEADER) return "missing";
    const idx = new File(this.idxPath);
    try {
      readInto(idx, 0, IDX_HEADER, buf);
      const h = new DataView(buf.buffer, buf.byteOffset, IDX_HEADER);
      if (h.getUint32(28, true) !== crc32(buf, 0, 28) || h.getUint32(0, true) !== IDX_MAGIC) return "header";
      // counters survive a rebuild when the header is readable
      this.dropped = h.getUint32(16, true);
      this.compactions = h.getUint32(20, true);
      if (buf[4] !== IDX_VERSION || buf[5] !== this.code || h.getUint16(6, true) !== CHUNK || h.getUint16(8, true) !== ENTRY_BYTES || h.getUint16(10, true) !== SIG_BYTES || buf[12] !== SIG_HASHES)
        return "version";
      if (this.sigLength < SIG_HEADER) return "signatures missing";
      const sig = new File(this.sigPath);
      try {
        readInto(sig, 0, SIG_HEADER, buf);
        const s = new DataView(buf.buffer, buf.byteOffset, SIG_HEADER);
        if (s.getUint32(0, true) !== SIG_MAGIC || s.getUint32(12, true) !== crc32(buf, 0, 12) || buf[5] !== this.code || s.getUint16(6, true) !== SIG_BYTES || buf[8] !== SIG_HASHES)
          return "signature header";
      } finally {
        sig.close();
      }
      const n = Math.floor((this.idxLength - IDX_HEADER) / ENTRY_BYTES);
      if (this.sigLength < SIG_HEADER + n * SIG_BYTES) return "signatures short";
      const e = blankBlock();
      const first = blankBlock(), last = blankBlock();
      let end = 0, records = 0, bad = 0;
      for (let i = 0; i < n; ) {
        const k = Math.min(ENTRIES_PER_READ, n - i);
        readInto(idx, IDX_HEADER + i * ENTRY_BYTES, k * ENTRY_BYTES, buf);
        for (let j = 0; j < k; j++, i++) {
          if (!decodeEntry(buf, j * ENTRY_BYTES, e)) return `entry ${i} crc`;
          if (e.offset !== end || e.length < 1 || e.length > CHUNK) return `entry ${i} offset`;
          end += e.length;
          records += e.records;
          bad += e.bad;
          if (i === 0) Object.assign(first, e);
          Object.assign(last, e);
        }
      }
      if (end > validEnd) return "ahead of the file";
      let damaged = 0;
      if (n > 0) {
        if (!data) return "no data";
        for (const b of n > 1 ? [first, last] : [first]) {
          try {
            readInto(data, b.offset, b.length, buf);
          } catch (e) {
            rethrowFatal(e);
            throw new ArchiveError("io", `archive: cannot read ${this.type} data (${messageOf(e)})`);
          }
          if (buf[b.length - 1] === NL && crc32(buf, 0, b.length) === b.crc) continue;
          // Another file's index (a compaction's swap cut), or this file's
          // block with a damaged byte? Damage leaves the block's records, and
          // so its keys, as they were: keep the index then, so that the
          // block's CRC keeps telling its damage (a rebuild would bless it).
          if (!sameRecords(buf, b, this.type)) return `block at ${b.offset} changed`;
          damaged++;
        }
      }
      this.damaged = damaged;
      this.entries = n;
      this.indexedEnd = end;
      this.records = records;
      this.bad = bad;
      return undefined;
    } finally {
      idx.close();
    }
  }

  // Does the signature of entry i (at sig[off..]) match its check? Remembered
  // once it does.
  sigTrusted(i: number, sig: Uint8Array, off: number, sck: number): boolean {
    const byte = i >> 3, bit = 1 << (i & 7);
    if (byte < this.sigOk.length && this.sigOk[byte] & bit) return true;
    if (sigCheck(sig, off) !== sck) return false;
    if (byte >= this.sigOk.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.sigOk.length * 2, 16));
      grown.set(this.sigOk);
      this.sigOk = grown;
    }
    this.sigOk[byte] |= bit;
    return true;
  }

  // Forgets the index (it could not be read or written): everything is tail.
  reset(): void {
    this.sigOk.fill(0);
    this.entries = this.indexedEnd = this.records = this.bad = this.damaged = 0;
    this.present = false;
  }

  // Starts an empty index (both files replaced).
  create(dropped = this.dropped, compactions = this.compactions): void {
    writeHeaders(this.idxPath, this.sigPath, this.code, dropped, compactions);
    this.entries = this.indexedEnd = this.records = this.bad = 0;
    this.dropped = dropped;
    this.compactions = compactions;
    this.idxLength = IDX_HEADER;
    this.sigLength = SIG_HEADER;
    this.present = true;
  }

  // Writes n entries (and their signatures) after the current ones: signatures first.
  write(entries: Uint8Array, sigs: Uint8Array, n: number, blocks: { end: number; records: number; bad: number }): void {
    if (n === 0) return;
    if (!this.present) this.create();
    let f = openIndex(this.sigPath, SIG_HEADER + this.entries * SIG_BYTES);
    try {
      writeAt(f, sigs.subarray(0, n * SIG_BYTES), SIG_HEADER + this.entries * SIG_BYTES);
      this.sigLength = Math.max(this.sigLength, SIG_HEADER + (this.entries + n) * SIG_BYTES);
    } finally {
      f.close();
    }
    f = openIndex(this.idxPath, IDX_HEADER + this.entries * ENTRY_BYTES);
    try {
      writeAt(f, entries.subarray(0, n * ENTRY_BYTES), IDX_HEADER + this.entries * ENTRY_BYTES);
      this.idxLength = Math.max(this.idxLength, IDX_HEADER + (this.entries + n) * ENTRY_BYTES);
    } finally {
      f.close();
    }
    this.entries += n;
    this.indexedEnd = blocks.end;
    this.records += blocks.records;
    this.bad += blocks.bad;
  }

  // Calls fn for entries [from, to) in order, reading the index in chunks.
  // An entry whose CRC fails (damaged after boot) throws IndexDamage.
  forEach(buf: Uint8Array, fn: (i: number, e: BlockInfo) => boolean | void, from = 0, to = this.entries): void {
    if (to <= from) return;
    const idx = new File(this.idxPath);
    try {
      const e = blankBlock();
      for (let i = from; i < to; ) {
        const k = Math.min(ENTRIES_PER_READ, to - i);
        readInto(idx, IDX_HEADER + i * ENTRY_BYTES, k * ENTRY_BYTES, buf);
        for (let j = 0; j < k; j++, i++) {
          if (!decodeEntry(buf, j * ENTRY_BYTES, e)) throw new IndexDamage(`archive index: ${this.idxPath} entry ${i} damaged`);
          if (fn(i, e) === false) return;
        }
      }
    } finally {
      idx.close();
    }
  }

  // Calls fn for the signatures of entries [0, entries), in chunks.
  forEachSig(buf: Uint8Array, fn: (i: number, sig: Uint8Array, off: number) => void): void {
    if (!this.entries) return;
    const f = new File(this.sigPath);
    try {
      for (let i = 0; i < this.entries; ) {
        const k = Math.min(SIGS_PER_READ, this.entries - i);
        readInto(f, SIG_HEADER + i * SIG_BYTES, k * SIG_BYTES, buf);
        for (let j = 0; j < k; j++, i++) fn(i, buf, j * SIG_BYTES);
      }
    } finally {
      f.close();
    }
  }
}

// Opens an index file to write at `at`: a file shorter than that (emptied by
// the "wb+" fallback of a failed open) is not written; the caller's reload
// rebuilds the index.
function openIndex(path: string, at: number): File {
  const f = openWrite(path);
  if (f.length < at) {
    const len = f.length;
    f.close();
    throw new ArchiveError("io", `archive: ${path} is ${len} bytes, at least ${at} expected`);
  }
  return f;
}

// Do the records of a block read into buf[0..b.length) have the keys and the
// count its entry says?
function sameRecords(buf: Uint8Array, b: BlockInfo, type: ArchiveType): boolean {
  let s = 0, records = 0, min = NO_KEY_MIN, max = 0;
  const sig = new Uint8Array(SIG_BYTES);
  for (;;) {
    const i = buf.indexOf(NL, s);
    if (i < 0 || i >= b.length) break;
    const rec = parseLine(buf, s, i, type);
    if (rec) {
      const k = lineKey(buf, s, i);
      records++;
      if (k < min) min = k;
      if (k > max) max = k;
      if (rec.topic) sigAdd(sig, 0, rec.topic);
      sigAdd(sig, 0, rec.content);
    }
    s = i + 1;
  }
  if (!(records > 0 && min >= b.min && max <= b.max && (min === b.min || max === b.max))) return false;
  // Damage costs the line it hits (one record fewer), or flips a byte the
  // record's id does not cover: its words, and so its signature, are as they
  // were. Whole records with other words were written behind the index's back
  // (another file's index after a cut swap): not damage, rebuild.
  if (records + 1 === b.records) return true;
  return records === b.records && sigCheck(sig, 0) === b.sck;
}

export function writeHeaders(idxPath: string, sigPath: string, code: number, dropped: number, compactions: number): void {
  remove(idxPath);
  remove(sigPath);
  let f = openWrite(idxPath);
  try {
    writeAt(f, idxHeader(code, dropped, compactions), 0);
  } finally {
    f.close();
  }
  f = openWrite(sigPath);
  try {
    writeAt(f, sigHeader(code), 0);
  } finally {
    f.close();
  }
}

// Groups the lines of the unindexed part of a file into blocks and writes the
// finished ones to the index. What is left open at the end is the tail.
export class BlockBuilder {
  private cur = blankBlock();
  private sig = new Uint8Array(SIG_BYTES);
  private entries = new Uint8Array(ENTRY_BYTES * BATCH);
  private sigs = new Uint8Array(SIG_BYTES * BATCH);
  private pending = 0;
  private pendingEnd = 0;
  private pendingRecords = 0;
  private pendingBad = 0;
  failed: unknown; // why the index could not be written (then it is not written further)
  unindexedRecords = 0; // records of finished blocks that could not be indexed
  unindexedBad = 0;

  constructor(
    readonly side: Sidecar,
    start: number,
  ) {
    this.cur.offset = start;
  }

  // the open block: the file's tail
  get tail(): BlockInfo {
    return this.cur;
  }

  add(buf: Uint8Array, s: number, size: number, rec: ArchivedItem | undefined, key: number): void {
    if (this.cur.length + size > CHUNK && this.cur.length > 0) this.close();
    const c = this.cur;
    c.crc = crc32(buf, s, s + size, c.crc);
    c.length += size;
    if (rec) {
      c.records++;
      if (key < c.min) c.min = key;
      if (key > c.max) c.max = key;
      if (rec.topic) sigAdd(this.sig, 0, rec.topic);
      sigAdd(this.sig, 0, rec.content);
    } else c.bad++;
  }

  private close(): void {
    const c = this.cur;
    c.sck = sigCheck(this.sig, 0);
    encodeEntry(c, this.entries, this.pending * ENTRY_BYTES);
    this.sigs.set(this.sig, this.pending * SIG_BYTES);
    this.pending++;
    this.pendingEnd = c.offset + c.length;
    this.pendingRecords += c.records;
    this.pendingBad += c.bad;
    const next = c.offset + c.length;
    this.cur = blankBlock();
    this.cur.offset = next;
    this.sig.fill(0);
    if (this.pending === BATCH) this.flush();
  }

  // Writes the finished blocks. An index write that fails (a full file
  // system) stops the indexing, not the caller: the blocks stay part of the
  // unindexed tail, which every query scans, and the next check indexes them.
  flush(): void {
    if (!this.pending) return;
    if (!this.failed)
      try {
        this.side.write(this.entries, this.sigs, this.pending, { end: this.pendingEnd, records: this.pendingRecords, bad: this.pendingBad });
      } catch (e) {
        rethrowFatal(e);
        this.failed = e ?? "failed";
      }
    if (this.failed) {
      this.unindexedRecords += this.pendingRecords;
      this.unindexedBad += this.pendingBad;
    }
    this.pending = this.pendingRecords = this.pendingBad = 0;
  }
}

// A stream's catalog (docs/FORMAT.md §3.5): one 32-byte entry per summarized
// segment in `/<s>.cat` (its time range, counts, length) and its 2 KB keyword
// summary at the same slot in `/<s>.sum` until its group of 8 slots is
// bit-sliced in `/<s>.bsc` and checked there: `.sum` then keeps only the
// slots from its base on (docs/design/summaries.md). A keyword query reads the summaries of
// the live segments in one pass of one file instead of opening every sidecar
// (each SPIFFS open walks the file system). Derived data: a damaged entry or
// summary only sends the query to that segment's sidecar, and the segment is
// summarized again.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { CHUNK, ArchiveError, readInto, writeAt, openWrite, remove, rethrowFatal } from "./file";
import { STREAM_CHAR, STREAM_CODE, type Stream } from "./codec";
import { u32, u16, put32, put16 } from "./segment";
import { probeSlots } from "./fold";
import { beforeDropping, copyInto, removeAll } from "./settle";

export const SUMMARY_BYTES = 2048;
export const SUMMARY_MASK = SUMMARY_BYTES * 8 - 1;
export const CAT_HEADER = 16;
export const CAT_ENTRY = 32;
const CAT_MAGIC = 0x32434d50; // "PMC2"
const SUM_MAGIC = 0x32554d50; // "PMU2"
export const MAX_SLOTS = 256;
// Bit-sliced groups (`/<s>.bsc`): the summaries of 8 consecutive slots
// transposed, so that a keyword's few bit positions cost one byte each per
// group instead of 2 KB per segment: keyword recall stays flat with age. The
// bytes are in records of 128 with their CRC, so that a query can check the
// few it reads (a flipped bit must not hide a segment from it); recall reads
// single bytes and relies on the hourly check of whole groups.
export const GROUP = 8;
export const GROUP_BYTES = SUMMARY_BYTES * 8; // one byte per summary bit position
export const SLICE_CHUNK = 128; // bit positions a record
const SLICE_REC = SLICE_CHUNK + 4; // and the CRC-32 of its bytes
const GROUP_BODY = (GROUP_BYTES / SLICE_CHUNK) * SLICE_REC; // 16,896
export const GROUP_STRIDE = GROUP_BODY + 4; // and the CRC-32 of the body
const BSL_MAGIC = 0x33424d50; // "PMB3" (format 2's `.bsl`, "PMB2", had no records: deleted at boot)
const SLICE_STEP = 4096; // bit positions of a group written per step

// Where bit position p of group g is in the file.
const slicePos = (g: number, p: number) => CAT_HEADER + g * GROUP_STRIDE + Math.floor(p / SLICE_CHUNK) * SLICE_REC + (p % SLICE_CHUNK);

export interface CatEntry {
  slot: number;
  seq: number;
  min: number;
  max: number;
  records: number;
  bytes: number; // the segment's length when summarized
  blocks: number;
  sumCrc: number;
  set: number; // the summary's element set (flags bit 0; fold.ts)
}

// `base`: in `.sum` only, its first slot (bytes 10–11; 0 in `.cat` and `.bsc`).
function header(magic: number, stream: Stream, base = 0): Uint8Array {
  const h = new Uint8Array(CAT_HEADER);
  put32(h, 0, magic);
  h[4] = 2;
  h[5] = STREAM_CODE[stream];
  put16(h, 6, SUMMARY_BYTES);
  h[8] = 2;
  put16(h, 10, base);
  put32(h, 12, crc32(h, 0, 12));
  return h;
}

function headerOk(b: Uint8Array, magic: number, stream: Stream): boolean {
  return u32(b, 0) === magic && b[4] === 2 && b[5] === STREAM_CODE[stream] && u16(b, 6) === SUMMARY_BYTES && u32(b, 12) === crc32(b, 0, 12);
}

// The CRC-32 of group body at base, read in chunks.
function bodyCrc(f: File, base: number, buf: Uint8Array): number {
  let c = 0;
  for (let at = 0; at < GROUP_BODY; at += CHUNK) {
    const n = Math.min(CHUNK, GROUP_BODY - at);
    readInto(f, base + at, n, buf);
    c = crc32(buf, 0, n, c);
  }
  return c;
}

// A summary made again from its segment's lines (a group of slots below
// `.sum`'s base being sliced again): false when the segment cannot be read.
export type Summarize = (e: CatEntry, out: Uint8Array) => boolean;

export class Catalog {
  readonly catPath: string;
  readonly sumPath: string;
  readonly bslPath: string;
  readonly sunPath: string; // `.sum` being written again from a higher base
  readonly bsrPath: string; // the summaries of a group below the base, made again from its segments
  sliced = 0; // complete groups in .bsc (their CRC written)
  slicing = 0; // bytes of the group being built already written
  // `.sum` holds the summaries of slots base … slots-1 (-1: its header not read yet)
  private base_ = -1;
  // groups 0 … checked-1 of .bsc are checked against their entries' summary CRCs
  checked = 0;
  rebuild: number[] = []; // groups of .bsc that failed a check: built again in place
  // of those, groups whose bits disagree with their entries (not just a CRC):
  // not used at all meanwhile; the others are read record by record, each checked
  private wrong: number[] = [];
  private scratchG = -1; // the group whose summaries `.bsr` holds …
  private scratchAt = 0; // … up to this slot of it
  private sunBase = -1; // the base `.sun` is written for (-1: none under way)
  private sunAt = 0; // summary bytes copied into `.sun`
  private trimHeld = -1; // slots when a trim failed: none until a new slot
  entries = new Map<number, CatEntry>(); // by segment seq: the last valid entry
  slots = 0; // slots used (valid or not)
  why: string | undefined; // why the catalog was found damaged or missing

  constructor(
    root: string,
    readonly stream: Stream,
  ) {
    this.catPath = `${root}${STREAM_CHAR[stream]}.cat`;
    this.sumPath = `${root}${STREAM_CHAR[stream]}.sum`;
    this.bslPath = `${root}${STREAM_CHAR[stream]}.bsc`;
    this.sunPath = `${root}${STREAM_CHAR[stream]}.sun`;
    this.bsrPath = `${root}${STREAM_CHAR[stream]}.bsr`;
  }

  // Boot, before load (names from the listing): a scratch `.bsr` goes (its
  // group is made again from the start); a `.sun` next to `.sum` was being
  // written, or a torn rename left both names on one object: `.sum` is settled
  // first, then `.sun` goes; a `.sun` alone is the cut between `.sum`'s delete
  // and the rename: renamed.
  recover(files: Map<string, number>): void {
    const c = STREAM_CHAR[this.stream];
    if (files.has(`${c}.bsr`)) removeAll(this.bsrPath);
    if (!files.has(`${c}.sun`)) return;
    if (files.has(`${c}.sum`)) {
      beforeDropping(this.sunPath, this.sumPath);
      removeAll(this.sunPath);
    } else File.rename(this.sunPath, this.sumPath);
  }

  // `.sum`'s base, from its header (read once, 16 bytes). A header that fails
  // its CRC: from the file's length, which holds the summaries of slots base …
  // slots-1 (and maybe one more a cut left before its entry), rounded up to a
  // group; no file: 0 (summaries that do not check out are summarized again).
  base(f?: File): number {
    if (this.base_ >= 0) return this.base_;
    let b = 0;
    let g: File | undefined = f;
    try {
      if (!g) g = new File(this.sumPath);
      const h = new Uint8Array(CAT_HEADER);
      if (readInto(g, 0, CAT_HEADER, h) === CAT_HEADER && headerOk(h, SUM_MAGIC, this.stream)) b = u16(h, 10);
      else b = Math.max(0, Math.ceil((this.slots - Math.floor(Math.max(0, g.length - CAT_HEADER) / SUMMARY_BYTES)) / GROUP) * GROUP);
    } catch (e) {
      rethrowFatal(e);
    } finally {
      if (g && !f) g.close();
    }
    if (b % GROUP) b = 0;
    this.base_ = b;
    // groups below the base were checked before it moved past them
    this.checked = Math.max(this.checked, Math.min(b / GROUP, this.sliced));
    return b;
  }

  // Where slot i's summary is in `.sum` (i at or above the base).
  private sumPos(slot: number): number {
    return CAT_HEADER + (slot - this.base()) * SUMMARY_BYTES;
  }

  private groupBad(g: number): boolean {
    return this.rebuild.indexOf(g) >= 0;
  }

  private failGroup(g: number, wrong: boolean): void {
    if (!this.groupBad(g)) this.rebuild.push(g);
    if (wrong && this.wrong.indexOf(g) < 0) this.wrong.push(g);
  }

  // How far the sliced groups go (from the file's length alone: no read).
  loadSliced(length: number | undefined): void {
    const body = length === undefined ? -1 : length - CAT_HEADER;
    this.sliced = body < 0 ? 0 : Math.floor(body / GROUP_STRIDE);
    // a group being built resumes at its last whole step
    const recs = body < 0 ? 0 : Math.floor((body % GROUP_STRIDE) / SLICE_REC);
    this.slicing = Math.floor((recs * SLICE_CHUNK) / SLICE_STEP) * SLICE_STEP;
    this.checked = 0;
    this.rebuild = [];
    this.wrong = [];
    this.scratchG = -1;
    this.sunBase = -1;
    if (this.sliced * GROUP > this.slots) {
      // the catalog was started again: the groups no longer match its slots
      this.sliced = this.slicing = 0;
      this.dropSliced();
    }
  }

  // The whole file goes (it cannot be opened, or the catalog started again):
  // every group is built again, those below `.sum`'s base from their segments.
  dropSliced(): void {
    File.delete(this.bslPath);
    this.sliced = this.slicing = this.checked = 0;
    this.rebuild = [];
    this.wrong = [];
    this.abortTrim();
  }

  // Is there a group to build: one that failed a check, or a complete group of slots not sliced yet?
  get sliceDue(): boolean {
    return this.rebuild.length > 0 || (this.sliced + 1) * GROUP <= this.slots;
  }

  // Is there a sliced group not checked yet against its entries?
  get checkDue(): boolean {
    if (this.rebuild.length || this.slicing !== 0 || this.checked >= this.sliced) return false;
    this.base(); // the groups below it were checked before
    return this.checked < this.sliced;
  }

  // Are there summaries in `.sum` of checked groups (they leave it)?
  get trimDue(): boolean {
    return !this.rebuild.length && this.trimHeld !== this.slots && this.base() < this.checked * GROUP;
  }

  // One step of building a group (the next complete one, or one that failed
  // a check, in place): 4 KB of its bytes (each from 512 bytes of its 8
  // summaries) in 32 records with their CRCs, or, at the end, the CRC of the
  // whole body. A summary that fails its CRC gives all ones: that segment is
  // always a candidate (its sidecar decides). The summaries of a group below
  // `.sum`'s base are first made again from their segments into `.bsr`, one
  // segment a step (a read of at most 56 KB, as a seal).
  sliceStep(buf: Uint8Array, summarize: Summarize): void {
    const fresh = !this.rebuild.length;
    const g = fresh ? this.sliced : this.rebuild[0];
    const bySlot = new Map<number, CatEntry>();
    this.entries.forEach((e) => bySlot.set(e.slot, e));
    const low = g * GROUP < this.base();
    if (low && this.scratchG !== g) {
      if (this.scratchG !== -2 - g) {
        removeAll(this.bsrPath);
        this.scratchG = -2 - g; // being made
        this.scratchAt = 0;
      }
      const out = new Uint8Array(SUMMARY_BYTES);
      const e = bySlot.get(g * GROUP + this.scratchAt);
      if (e) {
        let good = false;
        try {
          good = summarize(e, out) && crc32(out, 0, SUMMARY_BYTES) === e.sumCrc;
        } catch (x) {
          rethrowFatal(x);
        }
        if (!good) out.fill(0xff); // fails the entry's CRC: all ones
      }
      const f = openWrite(this.bsrPath);
      try {
        writeAt(f, out, this.scratchAt * SUMMARY_BYTES);
      } finally {
        f.close();
      }
      if (++this.scratchAt === GROUP) this.scratchG = g;
      return;
    }
    if (fresh && g === 0 && this.slicing === 0) {
      File.delete(this.bslPath);
      const f = openWrite(this.bslPath);
      try {
        writeAt(f, header(BSL_MAGIC, this.stream), 0);
      } finally {
        f.close();
      }
    }
    const base = CAT_HEADER + g * GROUP_STRIDE;
    const f = openWrite(this.bslPath);
    try {
      if (this.slicing < GROUP_BYTES) {
        const out = new Uint8Array(SLICE_STEP);
        const sf = new File(low ? this.bsrPath : this.sumPath);
        try {
          for (let j = 0; j < GROUP; j++) {
            const e = bySlot.get(g * GROUP + j);
            // the whole summary is read to check it (2 KB), then 512 bytes used
            let okSum = false;
            if (e) {
              const n = readInto(sf, low ? j * SUMMARY_BYTES : this.sumPos(e.slot), SUMMARY_BYTES, buf);
              okSum = n === SUMMARY_BYTES && crc32(buf, 0, SUMMARY_BYTES) === e.sumCrc;
            }
            const bit = 1 << j;
            for (let i = 0; i < SLICE_STEP; i++) {
              const p = this.slicing + i;
              if (!e) continue; // a dead or missing slot: never a candidate
              if (!okSum || buf[p >> 3] & (1 << (p & 7))) out[i] |= bit;
            }
          }
        } finally {
          sf.close();
        }
        const recs = new Uint8Array((SLICE_STEP / SLICE_CHUNK) * SLICE_REC);
        for (let r = 0; r < SLICE_STEP / SLICE_CHUNK; r++) {
          recs.set(out.subarray(r * SLICE_CHUNK, (r + 1) * SLICE_CHUNK), r * SLICE_REC);
          put32(recs, r * SLICE_REC + SLICE_CHUNK, crc32(out, r * SLICE_CHUNK, (r + 1) * SLICE_CHUNK));
        }
        writeAt(f, recs, slicePos(g, this.slicing));
        this.slicing += SLICE_STEP;
        return;
      }
      // the group's CRC, from what is on flash
      const c = bodyCrc(f, base, buf);
      const b = new Uint8Array(4);
      put32(b, 0, c);
      writeAt(f, b, base + GROUP_BODY);
      if (fresh) this.sliced++;
      else {
        this.rebuild.shift();
        const w = this.wrong.indexOf(g);
        if (w >= 0) this.wrong.splice(w, 1);
      }
      this.slicing = 0;
    } finally {
      f.close();
    }
    if (low) {
      this.scratchG = -1;
      removeAll(this.bsrPath);
    }
  }

  // One step: group `checked` of .bsc read whole (16,900 bytes) and checked:
  // every record's CRC, the group's CRC, and the column of each live slot
  // (the bits of its summary) against the CRC of its summary in the entry. A
  // column of all ones (its summary failed when the group was built) takes
  // its entry out of the catalog in RAM (the segment is sealed again into a
  // new slot). A group that fails is built again in place. True when it checks.
  checkStep(buf: Uint8Array): boolean {
    const g = this.checked;
    const cols = new Array<number>(GROUP).fill(0);
    const ones = new Array<boolean>(GROUP).fill(true);
    const col = new Uint8Array(SLICE_CHUNK / 8);
    let good = true;
    let f: File | undefined;
    try {
      f = new File(this.bslPath);
      const base = CAT_HEADER + g * GROUP_STRIDE;
      let c = 0;
      for (let r = 0; r < GROUP_BODY / SLICE_REC && good; r++) {
        if (readInto(f, base + r * SLICE_REC, SLICE_REC, buf) !== SLICE_REC || u32(buf, SLICE_CHUNK) !== crc32(buf, 0, SLICE_CHUNK)) good = false;
        c = crc32(buf, 0, SLICE_REC, c);
        for (let j = 0; j < GROUP && good; j++) {
          const bit = 1 << j;
          for (let k = 0; k < col.length; k++) {
            let v = 0;
            for (let b = 0; b < 8; b++) if (buf[8 * k + b] & bit) v |= 1 << b;
            col[k] = v;
            if (v !== 0xff) ones[j] = false;
          }
          cols[j] = crc32(col, 0, col.length, cols[j]);
        }
      }
      if (good) good = readInto(f, base + GROUP_BODY, 4, buf) === 4 && u32(buf, 0) === c;
    } catch (e) {
      rethrowFatal(e);
      good = false;
    } finally {
      f?.close();
    }
    if (!good) {
      this.failGroup(g, false);
      return false;
    }
    this.entries.forEach((e) => {
      if (Math.floor(e.slot / GROUP) !== g || cols[e.slot % GROUP] === e.sumCrc) return;
      if (ones[e.slot % GROUP]) this.entries.delete(e.seq);
      else good = false;
    });
    if (good) this.checked++;
    else this.failGroup(g, true);
    return good;
  }

  // One step of taking the checked groups' summaries out of `.sum`: `.sun` is
  // written with the new base in its header and the summaries from it on
  // (4 KB a step, as they are in `.sum`), then `.sum` is deleted and `.sun`
  // renamed in. A cut leaves `.sum` (and a `.sun` boot deletes) or `.sun`
  // alone (boot renames it): both whole.
  trimStep(buf: Uint8Array): void {
    try {
      const base = this.base();
      if (this.sunBase < 0) {
        removeAll(this.sunPath);
        this.sunBase = this.checked * GROUP;
        this.sunAt = 0;
        const f = openWrite(this.sunPath);
        try {
          writeAt(f, header(SUM_MAGIC, this.stream, this.sunBase), 0);
        } finally {
          f.close();
        }
        return;
      }
      const from = CAT_HEADER + (this.sunBase - base) * SUMMARY_BYTES + this.sunAt;
      const sf = new File(this.sumPath);
      let n = 0;
      try {
        n = Math.min(CHUNK, sf.length - from);
        if (n > 0) n = readInto(sf, from, n, buf);
      } finally {
        sf.close();
      }
      if (n > 0) {
        const f = openWrite(this.sunPath);
        try {
          writeAt(f, buf.subarray(0, n), CAT_HEADER + this.sunAt);
        } finally {
          f.close();
        }
        this.sunAt += n;
        return;
      }
      if (!removeAll(this.sumPath)) throw new ArchiveError("io", `archive: cannot delete ${this.sumPath}`);
      // .sum is gone, .sun whole: a rename that fails is a copy (boot renames a .sun alone)
      if (!File.rename(this.sunPath, this.sumPath) && !(copyInto(this.sunPath, this.sumPath) && removeAll(this.sunPath))) throw new ArchiveError("io", `archive: cannot rename ${this.sunPath}`);
      this.base_ = this.sunBase;
      this.sunBase = -1;
    } catch (e) {
      rethrowFatal(e);
      this.abortTrim();
      this.trimHeld = this.slots;
      throw e;
    }
  }

  private abortTrim(): void {
    if (this.sunBase >= 0 || File.exists(this.sunPath)) {
      if (File.exists(this.sumPath)) removeAll(this.sunPath);
    }
    this.sunBase = -1;
  }

  // Checks one sliced group against its CRC (16 KB read); a group that fails
  // is built again in place by steps and not used meanwhile (its segments'
  // summaries in `.sum`, or below its base their sidecars, serve); a file that
  // cannot be opened is built again whole.
  verifyGroup(g: number, buf: Uint8Array): boolean {
    if (g >= this.sliced) return true;
    let f: File;
    try {
      f = new File(this.bslPath);
    } catch (e) {
      rethrowFatal(e);
      this.dropSliced();
      return false;
    }
    let good = false;
    try {
      const base = CAT_HEADER + g * GROUP_STRIDE;
      const c = bodyCrc(f, base, buf);
      readInto(f, base + GROUP_BODY, 4, buf);
      good = u32(buf, 0) === c;
    } catch (e) {
      rethrowFatal(e);
    } finally {
      f.close();
    }
    if (!good) this.failGroup(g, false);
    return good;
  }

  // The slots of group g whose summaries may hold the words of `probe`
  // (fold.ts probeOf with SUMMARY_MASK): one byte read per bit position
  // (`pos`, probePositions(probe), made once by the caller for every group).
  // Returns fold.ts probeSlots's masks (bits 0–7: the slots as summaries of
  // element set 0 answer, 8–15: as set 1), or -1 when the file cannot be read.
  // A group that failed its check is read as a query reads it, record by
  // record with their CRCs (only a record that fails sends the group to its
  // segments), or not at all when its bits disagree with its entries.
  sliceCandidates(f: File, g: number, probe: Uint16Array, pos: Uint16Array, buf: Uint8Array): number {
    if (this.groupBad(g)) return this.sliceCandidatesChecked(f, g, probe, pos, buf);
    const bytes = new Uint8Array(pos.length);
    for (let i = 0; i < pos.length; i++) {
      if (readInto(f, slicePos(g, pos[i]), 1, buf) !== 1) return -1;
      bytes[i] = buf[0];
    }
    return probeSlots(probe, (p) => bytes[pos.indexOf(p)]);
  }

  // The same, each byte read with its record and its record's CRC checked
  // (one read a record). -1 when a record fails or cannot be read.
  sliceCandidatesChecked(f: File, g: number, probe: Uint16Array, pos: Uint16Array, buf: Uint8Array): number {
    if (this.wrong.indexOf(g) >= 0) return -1;
    const bytes = new Uint8Array(pos.length);
    let rec = -1;
    for (let i = 0; i < pos.length; i++) {
      const r = Math.floor(pos[i] / SLICE_CHUNK);
      if (r !== rec) {
        rec = r;
        if (readInto(f, slicePos(g, r * SLICE_CHUNK), SLICE_REC, buf) !== SLICE_REC) return -1;
        if (u32(buf, SLICE_CHUNK) !== crc32(buf, 0, SLICE_CHUNK)) return -1;
      }
      bytes[i] = buf[pos[i] % SLICE_CHUNK];
    }
    return probeSlots(probe, (p) => bytes[pos.indexOf(p)]);
  }

  // Reads the entries (a few KB). Never throws for damage: what does not check
  // out is left out, and its segments are summarized again.
  load(buf: Uint8Array, present: boolean): void {
    this.entries.clear();
    this.slots = 0;
    this.why = undefined;
    this.base_ = -1;
    this.trimHeld = -1;
    if (!present) return;
    let f: File;
    try {
      f = new File(this.catPath);
    } catch (e) {
      rethrowFatal(e);
      this.why = "catalog unreadable";
      return;
    }
    try {
      const len = Math.min(f.length, CAT_HEADER + MAX_SLOTS * CAT_ENTRY);
      if (len < CAT_HEADER) {
        this.why = "catalog header";
        return;
      }
      readInto(f, 0, CAT_HEADER, buf);
      if (!headerOk(buf, CAT_MAGIC, this.stream)) {
        this.why = "catalog header";
        return;
      }
      const slots = Math.floor((len - CAT_HEADER) / CAT_ENTRY);
      for (let first = 0; first < slots; ) {
        const n = Math.min(slots - first, Math.floor(CHUNK / CAT_ENTRY));
        readInto(f, CAT_HEADER + first * CAT_ENTRY, n * CAT_ENTRY, buf);
        for (let i = 0; i < n; i++) {
          const at = i * CAT_ENTRY;
          if (u32(buf, at + 28) !== crc32(buf, at, at + 28)) {
            this.why = `catalog entry ${first + i}`;
            continue;
          }
          const e: CatEntry = { slot: first + i, seq: u32(buf, at), min: u32(buf, at + 4), max: u32(buf, at + 8), records: u32(buf, at + 12), bytes: u32(buf, at + 16), blocks: u16(buf, at + 20), sumCrc: u32(buf, at + 24), set: u16(buf, at + 22) & 1 };
          this.entries.set(e.seq, e);
        }
        first += n;
      }
      this.slots = slots;
    } catch (e) {
      rethrowFatal(e);
      this.entries.clear();
      this.slots = 0;
      this.why = "catalog unreadable";
    } finally {
      f.close();
    }
  }

  // Adds a segment's entry and summary: the summary first, so that an entry
  // never exists without it. Throws (ArchiveError) when flash refuses.
  add(e: Omit<CatEntry, "slot" | "sumCrc">, summary: Uint8Array): CatEntry {
    if (this.slots === 0 || this.why === "catalog header" || this.why === "catalog unreadable") this.reset();
    try {
      return this.put(e, summary);
    } catch (err) {
      rethrowFatal(err);
      if (err instanceof ArchiveError && err.code === "full") throw err;
      // a catalog file that cannot be written now (one a cut left not
      // finalized opens again only once deleted) is started again: sealing
      // must not fail at every step for ever (retire waits behind it)
      this.reset();
      return this.put(e, summary);
    }
  }

  // A segment written again with the same records (format 2 to format 3,
  // docs/design/recode.md): its summary, time range and count are the same,
  // so its entry is written again in place, at its slot, with the new length
  // and blocks; no new slot, no new summary, its sliced group still right. A
  // cut inside this 32-byte write leaves an entry that fails its CRC: the
  // segment is sealed again (a new slot), as any segment without an entry.
  restate(e: CatEntry, bytes: number, blocks: number): void {
    const entry: CatEntry = { ...e, bytes, blocks };
    this.writeEntry(entry);
    this.entries.set(entry.seq, entry);
  }

  // The 32 bytes of an entry (§3.5), written at its slot.
  private writeEntry(entry: CatEntry): void {
    const b = new Uint8Array(CAT_ENTRY);
    put32(b, 0, entry.seq);
    put32(b, 4, entry.min);
    put32(b, 8, entry.max);
    put32(b, 12, entry.records);
    put32(b, 16, entry.bytes);
    put16(b, 20, entry.blocks);
    put16(b, 22, entry.set & 1);
    put32(b, 24, entry.sumCrc);
    put32(b, 28, crc32(b, 0, 28));
    const f = openWrite(this.catPath);
    try {
      writeAt(f, b, CAT_HEADER + entry.slot * CAT_ENTRY);
    } finally {
      f.close();
    }
  }

  private put(e: Omit<CatEntry, "slot" | "sumCrc">, summary: Uint8Array): CatEntry {
    const slot = this.slots;
    const entry: CatEntry = { ...e, slot, sumCrc: crc32(summary, 0, SUMMARY_BYTES) };
    const f = openWrite(this.sumPath);
    try {
      writeAt(f, summary.subarray(0, SUMMARY_BYTES), this.sumPos(slot));
    } finally {
      f.close();
    }
    this.writeEntry(entry);
    this.slots = slot + 1;
    this.entries.set(entry.seq, entry);
    return entry;
  }

  // Starts both files again, empty (their segments are summarized again, one a step).
  reset(): void {
    this.sunBase = -1;
    removeAll(this.sunPath);
    removeAll(this.bsrPath);
    this.scratchG = -1;
    remove(this.catPath);
    remove(this.sumPath);
    for (const [path, magic] of [
      [this.sumPath, SUM_MAGIC],
      [this.catPath, CAT_MAGIC],
    ] as const) {
      const f = openWrite(path);
      try {
        writeAt(f, header(magic, this.stream), 0);
      } finally {
        f.close();
      }
    }
    this.entries.clear();
    this.slots = 0;
    this.why = undefined;
    this.base_ = 0;
    this.trimHeld = -1;
    this.dropSliced();
  }

  // Slots no live segment uses.
  dead(live: (seq: number) => boolean): number {
    let n = this.slots;
    for (const e of this.entries.values()) if (live(e.seq)) n--;
    return n;
  }

  // Reads the summaries of `want` (entries sorted by slot) in one pass of the
  // file, in chunks of at most 4 KB, and calls on(entry, buf, off) for each
  // whose CRC holds; returns the entries whose summary could not be used.
  // `damaged` hears of each summary that was read whole but fails its CRC.
  // Slots below `.sum`'s base are no longer there: returned (not damaged),
  // their segments' sidecars decide.
  summaries(want: CatEntry[], buf: Uint8Array, on: (e: CatEntry, buf: Uint8Array, off: number) => void, damaged?: (e: CatEntry) => void): CatEntry[] {
    const failed: CatEntry[] = [];
    if (!want.length) return failed;
    let f: File;
    try {
      f = new File(this.sumPath);
    } catch (e) {
      rethrowFatal(e);
      return want.slice();
    }
    try {
      const b = this.base(f);
      if (want[0].slot < b) {
        const above: CatEntry[] = [];
        for (const e of want) (e.slot < b ? failed : above).push(e);
        want = above;
      }
      const per = Math.floor(CHUNK / SUMMARY_BYTES);
      for (let i = 0; i < want.length; ) {
        // a run of consecutive slots, at most one chunk
        let j = i + 1;
        while (j < want.length && j - i < per && want[j].slot === want[j - 1].slot + 1) j++;
        let n = 0;
        try {
          n = readInto(f, this.sumPos(want[i].slot), (j - i) * SUMMARY_BYTES, buf);
        } catch (e) {
          rethrowFatal(e);
        }
        for (let k = i; k < j; k++) {
          const off = (k - i) * SUMMARY_BYTES;
          if (off + SUMMARY_BYTES <= n && crc32(buf, off, off + SUMMARY_BYTES) === want[k].sumCrc) on(want[k], buf, off);
          else {
            if (off + SUMMARY_BYTES <= n) damaged?.(want[k]);
            failed.push(want[k]);
          }
        }
        i = j;
      }
    } finally {
      f.close();
    }
    return failed;
  }
}

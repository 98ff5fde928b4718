// The episode files on the storage partition (docs/FORMAT.md §4; the why in
// docs/DESIGN.md, "Episodes on flash").
//
// Slot i of an episode is a 128-byte header at i·128 of `/ep.h<k>` and a
// 672-byte text record at i·672 of `/ep.t<k>`, in two copies k = 0 and 1.
// Every change is a batch written by one mechanism: `/ep.w` names the batch
// (its seq and slots), then copy 0 and then copy 1 get, per slot, the text
// record (when it changed) and then the header, which commits the text by its
// CRC. A slot is read from copy 0 when its header and text check out, else
// from copy 1. open() puts the slots `/ep.w` names in step (the valid copy with
// the highest seq wins); a copy that cannot be read is served from the other
// and rebuilt by step() into `.n` files renamed into place; step() also
// compares a few slots of both copies per call (the scrub) and repairs a
// difference. Tombstones are 20-byte records appended to `/ep.x0` then `/ep.x1`.
// Reads are at most 4 KB each, at most 3 files are open at once, nothing
// whole-file is held in RAM.

import { File, Iterator, System } from "file";
import config from "mc/config";
import { crc32 } from "../nvs/crc32";
import { beforeDropping, settleNames, TEMP } from "../archive/settle";
import {
  EPISODE_SLOTS,
  EPISODE_SIG_BYTES,
  TOMB_REASONS,
  EVICT_CAUSES,
  type Episode,
  type EpisodeStoreApi,
  type Tombstone,
} from "./types";
import {
  EpisodeError,
  HEADER_BYTES,
  TEXT_BYTES,
  TOMB_BYTES,
  checkEpisode,
  encodeText,
  encodeHeader,
  headerValid,
  headerSeq,
  headerState,
  headerId,
  headerTextCrc,
  headerTextSeq,
  textValid,
  textCrcOf,
  decodeHeader,
  decodeText,
  tombValid,
  u32,
  put32,
  H_SIG,
  type Checked,
} from "./record";
import { signature } from "./sig";

export { EpisodeError };

export const CHUNK = 4096;
export const MAX_BATCH = 8;
export const W_BYTES = 32;
const SLOT_BYTES = HEADER_BYTES + TEXT_BYTES; // a slot's records in /ep.w's redo form
const W_MAGIC = 0xe6;
const SCRUB_SLOTS = 5; // per step: 5 headers and 5 texts of each copy (3,360 B of text per read)
const SCRUB_TOMBS = 100; // per step: 2,000 B of each tomb copy
const REBUILD_SLOTS = 5; // slots copied per rebuild step (640 B of headers, 3,360 B of texts)
const TEXTS_PER_READ = Math.floor(CHUNK / TEXT_BYTES); // 6
const USABLE = 0.75; // SPIFFS fills reliably to about 75% (docs/FORMAT.md §1)

type Part = "h" | "t";

function fatal(e: unknown): boolean {
  return e instanceof Error && e.name === "PowerCut";
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// A write open that found the file shorter than it was: Moddable's fallback to
// fopen("wb+") emptied it (its read open failed). The copy is rebuilt.
class Emptied extends Error {
  constructor(readonly path: string) {
    super(`episodes: ${path} was emptied by its write open`);
    Object.defineProperty(this, "name", { value: "Emptied", configurable: true, writable: true });
  }
}

// A file longer than the store knows it (another writer, a listing that
// missed bytes): nothing is written, the files are learnt again.
class Stale extends EpisodeError {
  constructor(message: string) {
    super("io", message);
  }
}

// The first open of a scan failed and its copy is now marked unreadable: the scan starts over from the other.
class Opening extends Error {
  constructor() {
    super("episodes: a copy could not be opened");
    Object.defineProperty(this, "name", { value: "Opening", configurable: true, writable: true });
  }
}

interface Rebuild {
  k: number; // the copy being written again from the other
  at: number; // slots copied into the `.n` files
  phase: number; // 0 copying, 1 deleting the old files, 2 renaming the text file, 3 the header file
}

function sameHeader(a: Uint8Array, b: Uint8Array, i: number): boolean {
  for (let x = i * HEADER_BYTES, e = x + HEADER_BYTES; x < e; x++) if (a[x] !== b[x]) return false;
  return true;
}

export class EpisodeStore implements EpisodeStoreApi {
  readonly stats = { bytesRead: 0, reads: 0, bytesWritten: 0, writes: 0 };
  private readonly root: string;
  private readonly name: string; // "ep": files are root + name + ".h0" ...
  private opened = false;
  private hLen = [0, 0];
  private tLen = [0, 0];
  private xLen = [0, 0];
  private nLen = { h: 0, t: 0 }; // the rebuild's `.n` files
  private bad = [false, false]; // slot copy k cannot be read: served from the other, rebuilt
  private xbad = [false, false];
  private nSlots = 0;
  private nTombs = -1; // -1: not learnt yet
  private seq = 0; // the last batch's seq (every record's seq is at most this)
  private maxId = 0; // the highest id written (episodes and tombstones)
  private given = 0; // the highest id nextId() gave
  private lastSlots: number[] = []; // the slots /ep.w names
  private redoLater: { seq: number; maxId: number; slots: number[] } | undefined; // /ep.w holds a batch not finished yet
  private known = false; // seq and maxId known (from /ep.w or a census)
  private free: Uint8Array | undefined; // bit per slot: free (a census)
  private pending: number[] = []; // slots a failed batch left out of step
  private rebuild: Rebuild | undefined;
  private xrebuild: { k: number; at: number } | undefined;
  private scrubAt = -1; // -1: no scrub pass running
  private scrubTomb = 0;
  private hadWork = false;
  readonly notes: string[] = []; // what open() and step() found and did (for traces and tests)
  // a batch or tombstone that finds a copy unreadable finishes its rebuild first
  // (false: tests of the fallback, where the batch goes whole through /ep.w)
  rebuildBeforeWrite = true;

  // prefix: the files' name before ".h0" etc., from the file root ("/ep": /data/ep.h0 on the device)
  constructor(prefix = "/ep", root: string = config.file.root) {
    this.root = root.endsWith("/") ? root : root + "/";
    this.name = prefix.charAt(0) === "/" ? prefix.slice(1) : prefix;
  }

  path(part: "h" | "t" | "x", k: number): string {
    return `${this.root}${this.name}.${part}${k}`;
  }

  private wPath(): string {
    return `${this.root}${this.name}.w`;
  }

  private tmp(part: "h" | "t" | "x", k: number): string {
    return this.path(part, k) + ".n";
  }

  get slots(): number {
    this.open();
    return this.nSlots;
  }

  // ---- files ------------------------------------------------------------------------------

  private openRead(path: string): File {
    try {
      return new File(path);
    } catch (e) {
      if (fatal(e)) throw e;
    }
    try {
      return new File(path); // a read error of SPIFFS is mostly transient: once more
    } catch (e) {
      if (fatal(e)) throw e;
      throw new EpisodeError("io", `episodes: cannot open ${path} (${messageOf(e)})`);
    }
  }

  // Opens copy k's file for reading; a copy whose file cannot be opened (twice)
  // is marked unreadable: served from the other copy, rebuilt by steps.
  private openCopy(part: "h" | "t" | "x", k: number): File {
    try {
      return this.openRead(this.path(part, k));
    } catch (e) {
      if (fatal(e)) throw e;
      if (part === "x") this.markXBad(k, "unreadable");
      else this.markBad(k, `${part}${k} unreadable`);
      throw e;
    }
  }

  // Opens for writing a file whose length should be `expected`.
  private openWrite(path: string, expected: number): File {
    let f: File;
    try {
      f = new File(path, true);
    } catch (e) {
      if (fatal(e)) throw e;
      throw this.failure(e, 256, `cannot open ${path}`);
    }
    if (f.length < expected) {
      f.close();
      throw new Emptied(path);
    }
    if (f.length > expected) {
      // longer than this store knows it: never written over blindly; learnt again at the next call
      const n = f.length;
      f.close();
      this.opened = false;
      this.bad = [false, false];
      this.xbad = [false, false];
      this.rebuild = undefined;
      this.xrebuild = undefined;
      this.nTombs = -1;
      this.free = undefined;
      throw new Stale(`episodes: ${path} is ${n} bytes, ${expected} expected; not written`);
    }
    return f;
  }

  // Reads f[pos..pos+n) into buf[at..), n <= CHUNK, all of it or EpisodeError("io").
  private rd(f: File, pos: number, n: number, buf: Uint8Array, at = 0): void {
    if (n <= 0) return;
    for (let tries = 0; ; tries++) {
      try {
        // an ArrayBuffer, then copied: reading into a view is ESP32's C alone
        // (not the lin port's, nor the SDK's typings of `file`)
        f.position = pos;
        const got = new Uint8Array(f.read(ArrayBuffer, n));
        this.stats.reads++;
        this.stats.bytesRead += got.length;
        if (got.length !== n) throw new Error("short read");
        buf.set(got, at);
        return;
      } catch (e) {
        if (fatal(e)) throw e;
        if (tries) throw new EpisodeError("io", `episodes: read failed (${messageOf(e)})`);
      }
    }
  }

  // Writes bytes[s..e) at pos; a file shorter than pos is first padded with
  // zeros (records that check out nowhere). Returns the file's new length.
  private wr(f: File, len: number, pos: number, bytes: Uint8Array, s = 0, e = bytes.length): number {
    while (len < pos) {
      const n = Math.min(CHUNK, pos - len);
      this.put(f, len, new Uint8Array(n), 0, n);
      len += n;
    }
    this.put(f, pos, bytes, s, e);
    return Math.max(len, pos + e - s);
  }

  private put(f: File, pos: number, bytes: Uint8Array, s: number, e: number): void {
    try {
      f.position = pos;
      // an ArrayBuffer (the SDK's typings of `file` take no view)
      f.write(s === 0 && e === bytes.length && bytes.byteOffset === 0 && bytes.buffer.byteLength === e ? (bytes.buffer as ArrayBuffer) : (bytes.slice(s, e).buffer as ArrayBuffer));
    } catch (err) {
      if (fatal(err)) throw err;
      throw this.failure(err, e - s, "write failed");
    }
    this.stats.writes++;
    this.stats.bytesWritten += e - s;
  }

  // The ESP32 port says only "file write failed": the space left tells whether the file system is full.
  private failure(e: unknown, needed: number, what: string): EpisodeError {
    const m = messageOf(e);
    let full = m.indexOf("full") >= 0;
    try {
      const info = System.info();
      if (info.used + needed + 512 > info.total * USABLE) full = true;
    } catch (x) {
      if (fatal(x)) throw x;
    }
    return full ? new EpisodeError("full", `episodes: the file system is full (${m})`) : new EpisodeError("io", `episodes: ${what}: ${m}`);
  }

  private close(f: File | undefined): void {
    if (!f) return;
    try {
      f.close();
    } catch (e) {
      if (fatal(e)) throw e;
    }
  }

  private remove(path: string): boolean {
    if (File.delete(path)) return true;
    return !File.exists(path);
  }

  // ---- open ---------------------------------------------------------------------------------

  // Learns the files (one listing of the file system), finishes the batch
  // `/ep.w` names. Never throws for the file system: what cannot be read is
  // noted and served from the other copy.
  open(): void {
    if (this.opened) return;
    this.opened = true;
    const names = new Map<string, number>();
    let listed = true;
    try {
      const it = new Iterator(this.root);
      const pre = this.name + ".";
      let twice = false;
      for (let e = it.next(); e; e = it.next()) {
        if (e.length === undefined) continue;
        if (e.name.indexOf(pre) === 0) {
          if (names.has(this.root + e.name)) twice = true;
          names.set(this.root + e.name, e.length);
        } else if (e.name.indexOf(TEMP + pre) === 0) twice = true;
      }
      // a name listed twice, or a settle a cut interrupted (src/archive/settle.ts;
      // on the device the archive's check has done it already at boot)
      if (twice) {
        for (const d of settleNames(this.root, pre)) this.notes.push(d);
        names.clear();
        const again = new Iterator(this.root);
        for (let e = again.next(); e; e = again.next()) if (e.name.indexOf(pre) === 0 && e.length !== undefined) names.set(this.root + e.name, e.length);
      }
    } catch (e) {
      if (fatal(e)) throw e;
      listed = false; // never taken for "no files": each file is asked on its own
    }
    const len = (p: string) => (listed ? names.get(p) : this.probe(p));
    // a rebuild a reboot interrupted starts again
    for (const part of ["h", "t", "x"] as const)
      for (let k = 0; k < 2; k++)
        if (len(this.tmp(part, k)) !== undefined) {
          // a cut inside the rename into place leaves both names on one object
          if (len(this.tmp(part, k)) === len(this.path(part, k))) beforeDropping(this.tmp(part, k), this.path(part, k));
          if (this.remove(this.tmp(part, k))) this.notes.push(`deleted ${this.tmp(part, k)}`);
        }
    for (let k = 0; k < 2; k++) {
      this.hLen[k] = len(this.path("h", k)) ?? -1;
      this.tLen[k] = len(this.path("t", k)) ?? -1;
      this.xLen[k] = len(this.path("x", k)) ?? -1;
    }
    for (let k = 0; k < 2; k++) {
      const o = 1 - k;
      // a copy with a file missing (or far shorter than the other's) while the other has slots
      const missing = this.hLen[k] < 0 || this.tLen[k] < 0;
      const short = this.hLen[k] + MAX_BATCH * HEADER_BYTES < this.hLen[o] || this.tLen[k] + MAX_BATCH * TEXT_BYTES < this.tLen[o];
      if ((missing || short) && this.hLen[o] >= HEADER_BYTES && this.tLen[o] >= TEXT_BYTES && !this.bad[o]) this.markBad(k, missing ? "missing" : "short");
      if (this.xLen[k] < 0 && this.xLen[o] >= TOMB_BYTES) this.markXBad(k, "missing");
    }
    // a copy file that exists but cannot be opened (not finalized)
    for (let k = 0; k < 2; k++) {
      for (const part of ["h", "t"] as const) {
        if (this.bad[k] || (part === "h" ? this.hLen[k] : this.tLen[k]) < 0) continue;
        if (!this.canOpen(this.path(part, k))) this.markBad(k, `${part}${k} unreadable`);
      }
      if (!this.xbad[k] && this.xLen[k] >= 0 && !this.canOpen(this.path("x", k))) this.markXBad(k, "unreadable");
    }
    for (let k = 0; k < 2; k++) {
      if (this.hLen[k] < 0) this.hLen[k] = 0;
      if (this.tLen[k] < 0) this.tLen[k] = 0;
      if (this.xLen[k] < 0) this.xLen[k] = 0;
    }
    this.countSlots();
    // the batch in flight
    const w = this.readW(len(this.wPath()) !== undefined);
    if (w) {
      this.lastSlots = w.slots;
      this.seq = w.seq;
      this.maxId = w.maxId;
      this.given = Math.max(this.given, w.maxId);
      this.known = true;
      if (w.redo) {
        try {
          this.redo(w.seq, w.maxId, w.slots);
        } catch (e) {
          if (fatal(e)) throw e;
          this.notes.push(`the batch file could not be finished yet: ${messageOf(e)}`);
          this.redoLater = { seq: w.seq, maxId: w.maxId, slots: w.slots };
        }
      } else if (!this.bad[0] && !this.bad[1]) {
        try {
          this.settle(w.slots);
        } catch (e) {
          if (fatal(e)) throw e;
          for (const s of w.slots) this.pending.push(s);
          this.notes.push(`the batch could not be put in step yet: ${messageOf(e)}`);
        }
      }
    }
  }

  // A file's length without a listing: undefined when missing, 0 when it cannot be opened.
  private probe(path: string): number | undefined {
    if (!File.exists(path)) return undefined;
    try {
      const f = this.openRead(path);
      try {
        return f.length;
      } finally {
        this.close(f);
      }
    } catch (e) {
      if (fatal(e)) throw e;
      return 0;
    }
  }

  private canOpen(path: string): boolean {
    try {
      this.close(this.openRead(path));
      return true;
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    }
  }

  private markBad(k: number, why: string): void {
    if (this.bad[k] || this.bad[1 - k]) return; // never both: the other copy is all there is
    this.bad[k] = true;
    this.rebuild = undefined;
    this.free = undefined;
    this.notes.push(`slot copy ${k} ${why}: served from copy ${1 - k}, rebuilt by steps`);
  }

  private markXBad(k: number, why: string): void {
    if (this.xbad[k] || this.xbad[1 - k]) return;
    this.xbad[k] = true;
    this.xrebuild = undefined;
    this.notes.push(`tomb copy ${k} ${why}: served from copy ${1 - k}, rebuilt by steps`);
  }

  private countSlots(): void {
    let n = 0;
    for (let k = 0; k < 2; k++) if (!this.bad[k]) n = Math.max(n, Math.floor(this.hLen[k] / HEADER_BYTES));
    this.nSlots = Math.min(n, EPISODE_SLOTS);
  }

  // /ep.w: its head, and whether it holds the batch's records whole (the redo
  // form a batch writes while one copy is being rebuilt).
  private readW(present: boolean): { seq: number; maxId: number; slots: number[]; redo: boolean } | undefined {
    if (!present) return undefined;
    const b = new Uint8Array(W_BYTES);
    let f: File | undefined;
    let redo = false;
    try {
      f = this.openRead(this.wPath());
      if (f.length < W_BYTES) return undefined;
      this.rd(f, 0, W_BYTES, b);
      if (b[3] & 1 && b[2] <= MAX_BATCH && f.length >= W_BYTES + b[2] * SLOT_BYTES + 4) {
        // the records' CRC, streamed in pieces of at most 4 KB
        const end = W_BYTES + b[2] * SLOT_BYTES;
        const piece = new Uint8Array(CHUNK);
        let c = 0;
        for (let at = W_BYTES; at < end; ) {
          const n = Math.min(CHUNK, end - at);
          this.rd(f, at, n, piece);
          c = crc32(piece, 0, n, c);
          at += n;
        }
        this.rd(f, end, 4, piece);
        redo = u32(piece, 0) === c;
      }
    } catch (e) {
      if (fatal(e)) throw e;
      this.close(f);
      f = undefined;
      // not finalized: deleted, so that the next batch can write it
      if (this.remove(this.wPath())) this.notes.push("deleted an unreadable batch file");
      return undefined;
    } finally {
      this.close(f);
    }
    if (b[0] !== W_MAGIC || b[1] !== 1 || b[2] > MAX_BATCH || u32(b, 28) !== crc32(b, 0, 28)) return undefined;
    const slots: number[] = [];
    for (let i = 0; i < b[2]; i++) slots.push(b[12 + 2 * i] | (b[13 + 2 * i] << 8));
    return { seq: u32(b, 4), maxId: u32(b, 8), slots, redo };
  }

  // Writes /ep.w: the batch's seq, the highest id and the slots; with `recs`
  // (a copy is being rebuilt: one copy alone is on flash) the batch's records
  // too, and their CRC, so that open() can finish a batch a cut interrupted.
  private writeW(seq: number, maxId: number, slots: number[], recs?: Uint8Array): void {
    const b = new Uint8Array(W_BYTES + (recs ? recs.length + 4 : 0));
    if (recs) {
      b[3] = 1;
      b.set(recs, W_BYTES);
      put32(b, W_BYTES + recs.length, crc32(recs));
    }
    b[0] = W_MAGIC;
    b[1] = 1;
    b[2] = slots.length;
    put32(b, 4, seq);
    put32(b, 8, maxId);
    for (let i = 0; i < MAX_BATCH; i++) {
      const s = i < slots.length ? slots[i] : 0xffff;
      b[12 + 2 * i] = s & 0xff;
      b[13 + 2 * i] = s >> 8;
    }
    put32(b, 28, crc32(b, 0, 28));
    let f: File | undefined;
    try {
      f = new File(this.wPath(), true);
    } catch (e) {
      if (fatal(e)) throw e;
      // not finalized by a cut: deleted and written anew
      this.remove(this.wPath());
      try {
        f = new File(this.wPath(), true);
      } catch (e2) {
        if (fatal(e2)) throw e2;
        throw this.failure(e2, 256, "cannot open the batch file");
      }
    }
    try {
      this.put(f, 0, b, 0, b.length);
    } finally {
      this.close(f);
    }
  }

  // Finishes a batch /ep.w holds whole: its records written into every copy
  // that can be read (again: a copy may have them already), then /ep.w keeps
  // the slots alone.
  private redo(seq: number, maxId: number, slots: number[]): void {
    const n = slots.length;
    const hb = new Uint8Array(n * HEADER_BYTES);
    const t = new Uint8Array(TEXT_BYTES);
    for (let k = 0; k < 2; k++) {
      if (this.bad[k]) continue;
      let w: File | undefined, f: File | undefined;
      try {
        w = this.openRead(this.wPath());
        f = this.openWrite(this.path("t", k), this.tLen[k]);
        for (let i = 0; i < n; i++) {
          this.rd(w, W_BYTES + i * SLOT_BYTES, HEADER_BYTES, hb, i * HEADER_BYTES);
          this.rd(w, W_BYTES + i * SLOT_BYTES + HEADER_BYTES, TEXT_BYTES, t);
          this.tLen[k] = this.wr(f, this.tLen[k], slots[i] * TEXT_BYTES, t);
        }
        this.close(f);
        f = undefined;
        this.close(w);
        w = undefined;
        f = this.openWrite(this.path("h", k), this.hLen[k]);
        for (let i = 0; i < n; i++) this.hLen[k] = this.wr(f, this.hLen[k], slots[i] * HEADER_BYTES, hb, i * HEADER_BYTES, (i + 1) * HEADER_BYTES);
      } catch (e) {
        if (e instanceof Emptied) this.markBad(k, "emptied by a write open");
        throw e;
      } finally {
        this.close(f);
        this.close(w);
      }
    }
    this.countSlots();
    this.writeW(seq, maxId, slots);
    this.notes.push(`finished a batch of ${n} from the batch file`);
  }

  // ---- ids, free slots: a census of the headers when needed -------------------------------

  nextId(): number {
    this.open();
    this.ensureKnown();
    if (this.given < this.maxId) this.given = this.maxId;
    return ++this.given;
  }

  freeSlot(): number {
    this.open();
    if (!this.free) this.census();
    const fm = this.free as Uint8Array;
    for (let s = 0; s < this.nSlots; s++) if (fm[s >> 3] & (1 << (s & 7))) return s;
    return this.nSlots;
  }

  private ensureKnown(): void {
    if (!this.known) this.census();
  }

  // One pass over the headers: which slots are free; and, when /ep.w could not
  // tell them, the highest seq and id (both copies and the tombstones are read).
  private census(): void {
    const both = !this.known;
    const fm = new Uint8Array(EPISODE_SLOTS >> 3);
    let maxSeq = 0, maxId = 0;
    const p = this.bad[0] ? 1 : 0;
    const q = 1 - p;
    const per = CHUNK / HEADER_BYTES;
    const b0 = new Uint8Array(CHUNK);
    let b1: Uint8Array | undefined;
    let f0: File | undefined, f1: File | undefined;
    try {
      if (this.hLen[p] > 0) f0 = this.openCopy("h", p);
      for (let first = 0; first < this.nSlots; first += per) {
        const n = Math.min(per, this.nSlots - first);
        const have0 = f0 ? Math.max(0, Math.min(n, Math.floor(this.hLen[p] / HEADER_BYTES) - first)) : 0;
        this.rd(f0 as File, first * HEADER_BYTES, have0 * HEADER_BYTES, b0);
        let need = both && !this.bad[q];
        for (let i = 0; i < n && !need; i++) if (i >= have0 || !headerValid(b0, i * HEADER_BYTES)) need = !this.bad[q];
        let have1 = 0;
        if (need) {
          b1 ??= new Uint8Array(CHUNK);
          if (!f1 && this.hLen[q] > 0) f1 = this.openCopy("h", q);
          have1 = f1 ? Math.max(0, Math.min(n, Math.floor(this.hLen[q] / HEADER_BYTES) - first)) : 0;
          this.rd(f1 as File, first * HEADER_BYTES, have1 * HEADER_BYTES, b1);
        }
        for (let i = 0; i < n; i++) {
          const at = i * HEADER_BYTES;
          const v0 = i < have0 && headerValid(b0, at);
          const v1 = need && i < have1 && headerValid(b1 as Uint8Array, at);
          if (v0) {
            maxSeq = Math.max(maxSeq, headerSeq(b0, at));
            maxId = Math.max(maxId, headerId(b0, at));
          }
          if (v1) {
            maxSeq = Math.max(maxSeq, headerSeq(b1 as Uint8Array, at));
            maxId = Math.max(maxId, headerId(b1 as Uint8Array, at));
          }
          const state = v0 ? headerState(b0, at) : v1 ? headerState(b1 as Uint8Array, at) : 0;
          const s = first + i;
          if (state === 0) fm[s >> 3] |= 1 << (s & 7);
        }
      }
    } finally {
      this.close(f0);
      this.close(f1);
    }
    this.free = fm;
    if (both) {
      this.tombs((t) => {
        if (t.id > maxId) maxId = t.id;
      });
      this.seq = Math.max(this.seq, maxSeq);
      this.maxId = Math.max(this.maxId, maxId);
      this.known = true;
      this.notes.push(`census: seq ${this.seq}, highest id ${this.maxId}`);
    }
  }

  private setFree(slot: number, isFree: boolean): void {
    if (!this.free) return;
    if (isFree) this.free[slot >> 3] |= 1 << (slot & 7);
    else this.free[slot >> 3] &= ~(1 << (slot & 7));
  }

  // ---- reading ------------------------------------------------------------------------------

  private primary(): number {
    if (this.bad[0] && this.bad[1]) throw new EpisodeError("io", "episodes: neither copy can be read");
    return this.bad[0] ? 1 : 0;
  }

  // n records of `size` bytes of copy p at pos, or none (0) when they cannot be
  // read and the other copy can serve them (copy p is then marked unreadable).
  private rdOr(f: File, p: number, part: "h" | "t", pos: number, n: number, size: number, buf: Uint8Array): number {
    if (this.bad[p] && !this.bad[1 - p]) return 0;
    try {
      this.rd(f, pos, n * size, buf);
      return n;
    } catch (e) {
      if (fatal(e) || this.bad[1 - p]) throw e;
      this.markBad(p, `${part}${p} unreadable`);
      return 0;
    }
  }

  // One slot's header and text from copy k into h[0..128) and t[0..672); false when not whole there.
  private readSlot(k: number, slot: number, h: Uint8Array, t: Uint8Array): boolean {
    if (this.bad[k] || (slot + 1) * HEADER_BYTES > this.hLen[k] || (slot + 1) * TEXT_BYTES > this.tLen[k]) return false;
    let f: File | undefined;
    try {
      f = this.openCopy("h", k);
      this.rd(f, slot * HEADER_BYTES, HEADER_BYTES, h);
      if (!headerValid(h, 0)) return false;
      this.close(f);
      f = this.openCopy("t", k);
      this.rd(f, slot * TEXT_BYTES, TEXT_BYTES, t);
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    } finally {
      this.close(f);
    }
    return textValid(t, 0) && textCrcOf(t, 0) === headerTextCrc(h, 0);
  }

  read(slot: number): Episode | undefined {
    this.open();
    if (typeof slot !== "number" || !Number.isInteger(slot) || slot < 0 || slot >= this.nSlots) return undefined;
    const h = new Uint8Array(HEADER_BYTES), t = new Uint8Array(TEXT_BYTES);
    const p = this.primary();
    if (!this.readSlot(p, slot, h, t) && !this.readSlot(1 - p, slot, h, t)) return undefined;
    if (headerState(h, 0) === 0) return undefined;
    const ep = decodeHeader(h, 0, slot);
    decodeText(t, 0, ep);
    return ep;
  }

  // Every episode that is not free, in slot order: the header file streamed in
  // 4 KB reads (with text, the text file alongside, 6 slots a read); a slot
  // whose copy does not check out is read from the other copy.
  scan(fn: (ep: Episode) => boolean | void, text?: boolean): void {
    this.open();
    if (!this.nSlots) return;
    try {
      this.scanFrom(this.primary(), fn, text);
    } catch (e) {
      // a copy that could not be opened (now marked so) before anything was served: the other one
      if (!(e instanceof Opening)) throw e;
      this.scanFrom(this.primary(), fn, text);
    }
  }

  private scanFrom(p: number, fn: (ep: Episode) => boolean | void, text?: boolean): void {
    const per = text ? TEXTS_PER_READ : CHUNK / HEADER_BYTES;
    const hb = new Uint8Array(per * HEADER_BYTES);
    const tb = text ? new Uint8Array(per * TEXT_BYTES) : undefined;
    const oh = new Uint8Array(HEADER_BYTES), ot = new Uint8Array(TEXT_BYTES);
    const fm = new Uint8Array(EPISODE_SLOTS >> 3);
    let fh: File | undefined, ft: File | undefined;
    const n = this.nSlots;
    try {
      const hs = Math.floor(this.hLen[p] / HEADER_BYTES), ts = Math.floor(this.tLen[p] / TEXT_BYTES);
      try {
        if (hs > 0) fh = this.openCopy("h", p);
        if (text && ts > 0) ft = this.openCopy("t", p);
      } catch (e) {
        if (e instanceof EpisodeError && this.bad[p] && !this.bad[1 - p]) throw new Opening();
        throw e;
      }
      for (let first = 0; first < n; first += per) {
        const c = Math.min(per, n - first);
        let hc = Math.max(0, Math.min(c, hs - first));
        // a copy listed and opened whose reads fail (the real SPIFFS, cut while
        // a slot was written in place, leaves its index on deleted pages): its
        // slots come from the other copy, and it is rebuilt by steps
        hc = this.rdOr(fh as File, p, "h", first * HEADER_BYTES, hc, HEADER_BYTES, hb);
        let tc = 0;
        if (tb) {
          tc = Math.max(0, Math.min(c, ts - first));
          tc = this.rdOr(ft as File, p, "t", first * TEXT_BYTES, tc, TEXT_BYTES, tb);
        }
        for (let i = 0; i < c; i++) {
          const s = first + i;
          const ha = i * HEADER_BYTES, ta = i * TEXT_BYTES;
          let h = hb, t = tb, hAt = ha, tAt = ta;
          let ok = i < hc && headerValid(hb, ha);
          if (ok && tb) ok = i < tc && textValid(tb, ta) && textCrcOf(tb, ta) === headerTextCrc(hb, ha);
          if (!ok) {
            // the other copy (opened for this slot alone: at most 3 files open)
            ok = tb ? this.readSlot(1 - p, s, oh, ot) : this.readHeader(1 - p, s, oh);
            h = oh;
            t = ot;
            hAt = 0;
            tAt = 0;
          }
          if (!ok || headerState(h, hAt) === 0) {
            fm[s >> 3] |= 1 << (s & 7);
            continue;
          }
          const ep = decodeHeader(h, hAt, s);
          if (t) decodeText(t, tAt, ep);
          if (fn(ep) === true) return;
        }
      }
      this.free = fm; // a whole scan is a census of the free slots
    } finally {
      this.close(fh);
      this.close(ft);
    }
  }

  private readHeader(k: number, slot: number, h: Uint8Array): boolean {
    if (this.bad[k] || (slot + 1) * HEADER_BYTES > this.hLen[k]) return false;
    let f: File | undefined;
    try {
      f = this.openCopy("h", k);
      this.rd(f, slot * HEADER_BYTES, HEADER_BYTES, h);
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    } finally {
      this.close(f);
    }
    return headerValid(h, 0);
  }

  // ---- writing ------------------------------------------------------------------------------

  write(batch: Episode[]): void {
    this.open();
    if (!Array.isArray(batch)) throw new EpisodeError("bad", "batch must be a list of episodes");
    if (!batch.length) return;
    if (batch.length > MAX_BATCH) throw new EpisodeError("bad", `at most ${MAX_BATCH} episodes per batch`);
    const checked: Checked[] = [];
    const slots: number[] = [];
    let top = -1;
    for (const ep of batch) {
      if (ep && ep.slot === EPISODE_SLOTS) throw new EpisodeError("full", `episodes: all ${EPISODE_SLOTS} slots are in use`);
      checked.push(checkEpisode(ep));
      if (slots.indexOf(ep.slot) >= 0) throw new EpisodeError("bad", `slot ${ep.slot} twice in one batch`);
      slots.push(ep.slot);
      if (ep.slot > top) top = ep.slot;
    }
    // new slots extend the files one after the other
    let grow = 0;
    for (const s of slots) if (s >= this.nSlots) grow++;
    if (top >= this.nSlots + grow) throw new EpisodeError("bad", `slot ${top} is past the end (${this.nSlots} slots)`);
    if (this.bad[0] && this.bad[1]) throw new EpisodeError("io", "episodes: neither copy can be written");
    this.ensureKnown();
    if (grow) this.roomFor(grow * (HEADER_BYTES + TEXT_BYTES) * 2);
    if (this.pending.length) this.settlePending();
    if (this.redoLater) {
      // a batch /ep.w holds whole goes first: this one would write over it
      const r = this.redoLater;
      this.redo(r.seq, r.maxId, r.slots);
      this.redoLater = undefined;
    }
    const seq = this.seq + 1;
    let maxId = this.maxId;
    for (const ep of batch) if (ep.state !== "free" && ep.id > maxId) maxId = ep.id;
    if ((this.bad[0] || this.bad[1]) && !this.finishRebuild(false)) {
      // the rebuild cannot finish now (no room, a rename refused): the batch goes whole through /ep.w
      this.writeAlone(batch, checked, seq, maxId, slots);
      this.learnt(batch);
      return;
    }
    this.writeW(seq, maxId, slots); // throws: nothing written
    this.lastSlots = slots;
    this.seq = seq;
    this.maxId = maxId;
    let done = 0; // copies that hold the batch whole
    let err: unknown;
    for (let k = 0; k < 2; k++) {
      const rebuilding = this.bad[k];
      if (rebuilding && !(this.rebuild && this.rebuild.k === k)) continue;
      try {
        this.writeCopy(k, batch, checked, seq);
        if (!rebuilding) done++;
      } catch (e) {
        if (fatal(e)) throw e;
        if (rebuilding) {
          this.rebuild = undefined; // its files failed: the rebuild starts again
          continue;
        }
        if (e instanceof Emptied) {
          // nothing of the batch reached copy k, which lost its bytes: the
          // other copy takes the batch, copy k is rebuilt from it
          this.markBad(k, "emptied by a write open");
          err = e;
          continue;
        }
        if (done === 0) {
          // the first copy failed part way: it gets the other copy's slots back
          if (!this.bad[1 - k] && !(e instanceof Stale)) this.rollBack(k, slots);
          throw e instanceof EpisodeError ? e : new EpisodeError("io", `episodes: the batch was not written (${messageOf(e)})`);
        }
        // copy 0 holds the batch whole: copy 1 is put in step by steps
        for (const s of slots) if (this.pending.indexOf(s) < 0) this.pending.push(s);
        this.notes.push(`copy ${k} missed a batch (${messageOf(e)}): put in step by steps`);
      }
    }
    if (!done) throw err instanceof EpisodeError ? err : new EpisodeError("io", `episodes: the batch was not written (${messageOf(err)})`);
    this.learnt(batch);
  }

  // While one copy is being rebuilt, a batch goes whole into /ep.w first (the
  // copy that stands is then written in place: a cut there is finished by the
  // next open from /ep.w), then into that copy, and into the part of the
  // rebuild already copied.
  private writeAlone(batch: Episode[], checked: Checked[], seq: number, maxId: number, slots: number[]): void {
    const o = this.bad[0] ? 1 : 0, k = 1 - o;
    // a read open first: a write open whose read open fails empties the file (Moddable's "wb+")
    this.close(this.openCopy("h", o));
    this.close(this.openCopy("t", o));
    const recs = this.prepare(o, batch, checked, seq);
    this.writeW(seq, maxId, slots, recs); // throws: nothing written
    this.lastSlots = slots;
    this.seq = seq;
    this.maxId = maxId;
    for (let c = 0; c < 2; c++) {
      if (c === k) {
        if (!this.rebuild || this.rebuild.k !== k) continue;
        try {
          this.writeCopy(k, batch, checked, seq, recs);
        } catch (e) {
          if (fatal(e)) throw e;
          this.rebuild = undefined; // its files failed: the rebuild starts again
        }
        continue;
      }
      try {
        this.writeCopy(o, batch, checked, seq, recs);
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.notes.push("the only readable copy was emptied by a write open");
        try {
          this.writeCopy(o, batch, checked, seq, recs); // the batch is in /ep.w: forwards, once more
        } catch (e2) {
          if (fatal(e2)) throw e2;
          this.redoLater = { seq, maxId, slots };
          throw e2 instanceof EpisodeError ? e2 : new EpisodeError("io", `episodes: the batch was not written (${messageOf(e2)})`);
        }
      }
    }
  }

  // After a batch: the free map and the slot count.
  private learnt(batch: Episode[]): void {
    for (let i = 0; i < batch.length; i++) {
      this.setFree(batch[i].slot, batch[i].state === "free");
      if (batch[i].slot >= this.nSlots) this.nSlots = batch[i].slot + 1;
    }
    if (this.nSlots > EPISODE_SLOTS) this.nSlots = EPISODE_SLOTS;
  }

  // A batch that would grow the files past what SPIFFS fills reliably is refused before anything is written.
  private roomFor(bytes: number): void {
    let info: { used: number; total: number } | undefined;
    try {
      info = System.info();
    } catch (e) {
      if (fatal(e)) throw e;
      return;
    }
    const pages = Math.ceil(bytes / 240) * 256 + 4 * 256; // data pages, index pages, the batch file
    if (info.used + pages > info.total * USABLE) throw new EpisodeError("full", `episodes: the file system is full (${info.used} of ${info.total} bytes used)`);
  }

  // The records of one batch slot into out[at..at+800): its header, then its
  // text record. `old`: the slot's header as it is in the copy (or undefined):
  // when its text is already the one to write, the text keeps its seq (and the
  // header its signature) and need not be written. Returns true when the text
  // is to be written.
  private record(old: Uint8Array | undefined, ep: Episode, c: Checked, seq: number, out: Uint8Array, at: number): boolean {
    const id = ep.state === "free" ? 0 : ep.id;
    const ta = at + HEADER_BYTES;
    let textSeq = seq;
    let tc = 0;
    let sig: Uint8Array | undefined;
    if (old && headerValid(old, 0)) {
      const keep = headerTextSeq(old, 0);
      const same = encodeText(out, ta, id, keep, c);
      if (same === headerTextCrc(old, 0)) {
        textSeq = keep;
        tc = same;
        sig = old.subarray(H_SIG, H_SIG + EPISODE_SIG_BYTES);
      }
    }
    if (textSeq === seq) tc = encodeText(out, ta, id, seq, c);
    if (ep.state !== "free" && !sig) sig = signature(ep.content, ep.keywords);
    encodeHeader(out, at, ep, seq, tc, textSeq, sig);
    return textSeq === seq;
  }

  // The records of a whole batch as copy k's headers make them (for /ep.w's redo form).
  private prepare(k: number, batch: Episode[], checked: Checked[], seq: number): Uint8Array {
    const recs = new Uint8Array(batch.length * SLOT_BYTES);
    const old = new Uint8Array(HEADER_BYTES);
    let f: File | undefined;
    try {
      if (this.hLen[k] > 0) f = this.openCopy("h", k);
      for (let i = 0; i < batch.length; i++) {
        const s = batch[i].slot;
        const has = f && (s + 1) * HEADER_BYTES <= this.hLen[k] && (s + 1) * TEXT_BYTES <= this.tLen[k];
        if (has) this.rd(f as File, s * HEADER_BYTES, HEADER_BYTES, old);
        this.record(has ? old : undefined, batch[i], checked[i], seq, recs, i * SLOT_BYTES);
      }
    } finally {
      this.close(f);
    }
    return recs;
  }

  // Writes the batch into copy k (its `.n` files while a rebuild writes them:
  // only the slots the rebuild has passed). Per slot the text when it changed,
  // then the header. `recs`: the records already made (every text is written).
  private writeCopy(k: number, batch: Episode[], checked: Checked[], seq: number, recs?: Uint8Array): void {
    const rb = this.bad[k] ? this.rebuild : undefined;
    const hp = rb ? this.tmp("h", k) : this.path("h", k);
    const tp = rb && rb.phase < 3 ? this.tmp("t", k) : this.path("t", k);
    let hl = rb ? this.nLen.h : this.hLen[k];
    let tl = rb ? this.nLen.t : this.tLen[k];
    const idx: number[] = [];
    // a rebuild takes the slots it has copied (all of them once it has copied every slot)
    for (let i = 0; i < batch.length; i++) if (!rb || rb.phase > 0 || batch[i].slot < rb.at) idx.push(i);
    if (!idx.length) return;
    const old = new Uint8Array(HEADER_BYTES);
    const mine = recs ?? new Uint8Array(batch.length * SLOT_BYTES);
    let fh: File | undefined, ft: File | undefined;
    try {
      fh = this.openWrite(hp, hl);
      for (const i of idx) {
        const s = batch[i].slot;
        let fresh = true;
        if (!recs) {
          // the slot's header as it is: is its text already the one to write?
          const has = (s + 1) * HEADER_BYTES <= hl && (s + 1) * TEXT_BYTES <= tl;
          if (has) this.rd(fh, s * HEADER_BYTES, HEADER_BYTES, old);
          fresh = this.record(has ? old : undefined, batch[i], checked[i], seq, mine, i * SLOT_BYTES);
        }
        if (fresh) {
          ft ??= this.openWrite(tp, tl);
          tl = this.wr(ft, tl, s * TEXT_BYTES, mine, i * SLOT_BYTES + HEADER_BYTES, (i + 1) * SLOT_BYTES);
        }
      }
      this.close(ft);
      ft = undefined;
      if (rb) this.nLen.t = tl;
      else this.tLen[k] = tl;
      for (const i of idx) hl = this.wr(fh, hl, batch[i].slot * HEADER_BYTES, mine, i * SLOT_BYTES, i * SLOT_BYTES + HEADER_BYTES);
      if (rb) this.nLen.h = hl;
      else this.hLen[k] = hl;
    } finally {
      if (rb) {
        this.nLen.t = Math.max(this.nLen.t, tl);
        this.nLen.h = Math.max(this.nLen.h, hl);
      } else {
        this.tLen[k] = Math.max(this.tLen[k], tl);
        this.hLen[k] = Math.max(this.hLen[k], hl);
      }
      this.close(ft);
      this.close(fh);
    }
  }

  // A batch that failed part way through copy k (nothing of it in the other
  // copy yet): copy k's slots of the batch are put back as the other copy has
  // them, so that nothing the batch did reads back. If that fails too, copy k's
  // header file goes (the copy is rebuilt from the other).
  private rollBack(k: number, slots: number[]): void {
    try {
      this.settle(slots, 1 - k);
      this.notes.push(`copy ${k}: a failed batch rolled back`);
    } catch (e) {
      if (fatal(e)) throw e;
      // the other copy is whole (the caller checked): copy k goes and is rebuilt from it
      this.remove(this.path("h", k));
      this.markBad(k, `could not be rolled back (${messageOf(e)})`);
    }
  }

  private settlePending(): void {
    const list = this.pending.splice(0, MAX_BATCH);
    if (this.bad[0] || this.bad[1]) return; // the rebuild covers them
    try {
      this.settle(list);
    } catch (e) {
      if (fatal(e)) throw e;
      for (const s of list) this.pending.push(s);
    }
  }

  // ---- putting slots in step -------------------------------------------------------------------

  // Compares the slots in both copies and writes the winner over the other:
  // the copy that checks out, the higher seq when both do (copy 0 on a tie);
  // `prefer`: that copy wins whenever it checks out (a rollback). A slot whose
  // copies both fail is left as it is (it reads as free). Returns the slots repaired.
  private settle(list: number[], prefer = -1): number {
    if (!list.length) return 0;
    const n = list.length;
    const h = [new Uint8Array(n * HEADER_BYTES), new Uint8Array(n * HEADER_BYTES)];
    const ok = [new Uint8Array(n), new Uint8Array(n)];
    const tcrc = [new Uint32Array(n), new Uint32Array(n)];
    const tb = new Uint8Array(TEXTS_PER_READ * TEXT_BYTES);
    for (let k = 0; k < 2; k++) {
      const hs = Math.floor(this.hLen[k] / HEADER_BYTES), tsl = Math.floor(this.tLen[k] / TEXT_BYTES);
      let f: File | undefined;
      try {
        if (hs > 0) {
          f = this.openCopy("h", k);
          this.readRuns(f, list, HEADER_BYTES, hs, h[k], 0);
        }
        this.close(f);
        f = undefined;
        if (tsl > 0) {
          f = this.openCopy("t", k);
          for (let i = 0; i < n; ) {
            // up to 6 consecutive slots per read
            let m = 1;
            while (i + m < n && m < TEXTS_PER_READ && list[i + m] === list[i] + m) m++;
            const have = Math.max(0, Math.min(m, tsl - list[i]));
            this.rd(f, list[i] * TEXT_BYTES, have * TEXT_BYTES, tb);
            for (let j = 0; j < m; j++) {
              const at = j * TEXT_BYTES;
              const hv = list[i + j] < hs && headerValid(h[k], (i + j) * HEADER_BYTES);
              if (j < have && hv && textValid(tb, at) && textCrcOf(tb, at) === headerTextCrc(h[k], (i + j) * HEADER_BYTES)) {
                ok[k][i + j] = 1;
                tcrc[k][i + j] = textCrcOf(tb, at);
              }
            }
            i += m;
          }
        }
      } catch (e) {
        // a copy listed and opened whose reads fail (a cut while a slot was
        // written in place, on the real SPIFFS): rebuilt from the other by steps
        if (fatal(e) || this.bad[1 - k]) throw e;
        this.markBad(k, `copy ${k} unreadable`);
        return 0;
      } finally {
        this.close(f);
      }
    }
    // per copy and slot: 0 as it is, 1 takes the other copy's records, 2 a blank free slot
    const act = [new Uint8Array(n), new Uint8Array(n)];
    const top = Math.max(this.hLen[0], this.hLen[1]);
    let fixed = 0;
    for (let i = 0; i < n; i++) {
      const a = ok[0][i], b = ok[1][i];
      const s = list[i];
      if (prefer >= 0) {
        // a rollback: the preferred copy stands; the other gets its slot, or a free one
        const k = 1 - prefer;
        if (ok[prefer][i]) {
          if (ok[k][i] && sameHeader(h[0], h[1], i)) continue;
          act[k][i] = 1;
        } else if ((s + 1) * HEADER_BYTES <= this.hLen[k]) act[k][i] = 2;
        else continue;
      } else if (a && b) {
        if (sameHeader(h[0], h[1], i)) continue;
        const w = headerSeq(h[1], i * HEADER_BYTES) > headerSeq(h[0], i * HEADER_BYTES) ? 1 : 0;
        act[1 - w][i] = 1;
      } else if (a || b) act[a ? 1 : 0][i] = 1;
      else if ((s + 1) * HEADER_BYTES <= top) {
        // whole in neither copy: a slot whose growth a cut tore (never
        // acknowledged), or damaged beyond repair in both: it reads as free,
        // and both copies say so
        act[0][i] = 2;
        act[1][i] = 2;
      } else continue;
      fixed++;
    }
    if (!fixed) return 0;
    this.free = undefined; // a slot may change state: the next census learns them again
    const blankText = new Uint8Array(TEXT_BYTES);
    const blankCrc = encodeText(blankText, 0, 0, this.seq, { content: new Uint8Array(0), keywords: new Uint8Array(0) });
    const blank = new Uint8Array(HEADER_BYTES);
    encodeHeader(blank, 0, { state: "free" } as Episode, this.seq, blankCrc, this.seq, undefined);
    for (let k = 0; k < 2; k++) {
      // texts first (read from the other copy), then headers
      const todo: number[] = [];
      for (let i = 0; i < n; i++) if (act[k][i]) todo.push(i);
      if (!todo.length) continue;
      let fr: File | undefined, fw: File | undefined;
      const t = new Uint8Array(TEXT_BYTES);
      try {
        fw = this.openWrite(this.path("t", k), this.tLen[k]);
        for (const i of todo) {
          const s = list[i];
          if (act[k][i] === 2) this.tLen[k] = this.wr(fw, this.tLen[k], s * TEXT_BYTES, blankText);
          else {
            fr ??= this.openCopy("t", 1 - k);
            this.rd(fr, s * TEXT_BYTES, TEXT_BYTES, t);
            this.tLen[k] = this.wr(fw, this.tLen[k], s * TEXT_BYTES, t);
          }
        }
        this.close(fw);
        fw = undefined;
        this.close(fr);
        fr = undefined;
        fw = this.openWrite(this.path("h", k), this.hLen[k]);
        for (const i of todo) {
          const s = list[i];
          if (act[k][i] === 2) this.hLen[k] = this.wr(fw, this.hLen[k], s * HEADER_BYTES, blank);
          else this.hLen[k] = this.wr(fw, this.hLen[k], s * HEADER_BYTES, h[1 - k], i * HEADER_BYTES, (i + 1) * HEADER_BYTES);
        }
      } catch (e) {
        if (e instanceof Emptied) this.markBad(k, "emptied by a write open");
        throw e;
      } finally {
        this.close(fw);
        this.close(fr);
      }
    }
    this.countSlots();
    return fixed;
  }

  // Reads the records of `list` (slot numbers, ascending) into out, consecutive ones in one read of at most 4 KB.
  private readRuns(f: File, list: number[], size: number, have: number, out: Uint8Array, _at: number): void {
    const per = Math.floor(CHUNK / size);
    for (let i = 0; i < list.length; ) {
      let m = 1;
      while (i + m < list.length && m < per && list[i + m] === list[i] + m) m++;
      const c = Math.max(0, Math.min(m, have - list[i]));
      if (c > 0) {
        const tmp = new Uint8Array(c * size);
        this.rd(f, list[i] * size, c * size, tmp);
        out.set(tmp, i * size);
      }
      i += m;
    }
  }

  // ---- tombstones -------------------------------------------------------------------------------

  private learnTombs(): void {
    if (this.nTombs >= 0) return;
    let n = 0;
    for (let k = 0; k < 2; k++) if (!this.xbad[k]) n = Math.max(n, Math.floor(this.xLen[k] / TOMB_BYTES));
    const r = new Uint8Array(TOMB_BYTES);
    // a record torn in both copies at the end was never acknowledged
    while (n > 0) {
      let valid = false;
      for (let k = 0; k < 2 && !valid; k++) {
        if (this.xbad[k] || this.xLen[k] < n * TOMB_BYTES) continue;
        let f: File | undefined;
        try {
          f = this.openCopy("x", k);
          this.rd(f, (n - 1) * TOMB_BYTES, TOMB_BYTES, r);
          valid = tombValid(r, 0);
        } catch (e) {
          if (fatal(e)) throw e;
        } finally {
          this.close(f);
        }
      }
      if (valid) break;
      n--;
    }
    this.nTombs = n;
  }

  tombCount(): number {
    this.open();
    this.learnTombs();
    return this.nTombs;
  }

  addTombs(list: Tombstone[]): void {
    this.open();
    this.learnTombs();
    if (!Array.isArray(list)) throw new EpisodeError("bad", "tombstones must be a list");
    if (!list.length) return;
    if (list.length > 64) throw new EpisodeError("bad", "at most 64 tombstones at once");
    const out = new Uint8Array(list.length * TOMB_BYTES);
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      const bad = (m: string) => new EpisodeError("bad", `tombstone ${m}`);
      if (!t || typeof t !== "object") throw bad("must be an object");
      if (!Number.isInteger(t.id) || t.id <= 0 || t.id > 0xffffffff) throw bad("id must be an integer 1..4294967295");
      const reason = TOMB_REASONS.indexOf(t.reason), cause = EVICT_CAUSES.indexOf(t.cause);
      if (reason < 0) throw bad(`reason must be one of ${TOMB_REASONS.join(", ")}`);
      if (cause < 0) throw bad(`cause must be one of ${EVICT_CAUSES.join(", ")}`);
      if (!Number.isInteger(t.strength) || t.strength < 0 || t.strength > 100) throw bad("strength must be an integer 0..100 (hundredths)");
      if (!Number.isInteger(t.at) || t.at < 0 || t.at > 0xffffffff) throw bad("at must be unix seconds");
      if (!Number.isInteger(t.payloadHash) || t.payloadHash < 0 || t.payloadHash > 0xffffffff) throw bad("payloadHash must be a u32");
      const a = i * TOMB_BYTES;
      put32(out, a, t.id);
      out[a + 4] = reason;
      out[a + 5] = cause;
      out[a + 6] = t.strength;
      put32(out, a + 8, t.at);
      put32(out, a + 12, t.payloadHash);
      put32(out, a + 16, crc32(out, a, a + 16));
    }
    if (this.xbad[0] && this.xbad[1]) throw new EpisodeError("io", "episodes: neither tombstone copy can be written");
    this.roomFor(out.length * 2);
    // never appended to the only readable copy while the other can be rebuilt first
    if (this.xbad[0] || this.xbad[1]) this.finishRebuild(true);
    // an id above every id written (a tombstone of an episode from elsewhere) goes into /ep.w first
    this.ensureKnown();
    let top = this.maxId;
    for (const t of list) if (t.id > top) top = t.id;
    if (top > this.maxId) {
      this.writeW(this.seq, top, this.lastSlots);
      this.maxId = top;
    }
    const at = this.nTombs * TOMB_BYTES;
    let wrote = 0;
    let err: unknown;
    for (let k = 0; k < 2; k++) {
      if (this.xbad[k]) continue;
      let f: File | undefined;
      try {
        f = this.openWrite(this.path("x", k), this.xLen[k]);
        if (this.xLen[k] < at) this.xLen[k] = this.levelTombs(f, k, at);
        this.xLen[k] = this.wr(f, this.xLen[k], at, out);
        wrote++;
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.markXBad(k, "emptied by a write open");
        err = e;
      } finally {
        this.close(f);
      }
    }
    if (!wrote) throw err instanceof EpisodeError ? err : new EpisodeError("io", `episodes: the tombstones were not written (${messageOf(err)})`);
    this.nTombs += list.length;
    for (const t of list) if (t.id > this.maxId) this.maxId = t.id;
  }

  // Brings copy k (open in f) up to `at` bytes with the other copy's records (zeros where it has none).
  private levelTombs(f: File, k: number, at: number): number {
    let len = Math.floor(this.xLen[k] / TOMB_BYTES) * TOMB_BYTES;
    const o = 1 - k;
    const buf = new Uint8Array(CHUNK - (CHUNK % TOMB_BYTES));
    let src: File | undefined;
    try {
      while (len < at) {
        const n = Math.min(buf.length, at - len);
        buf.fill(0);
        const have = this.xbad[o] ? 0 : Math.max(0, Math.min(n, this.xLen[o] - len));
        if (have > 0) {
          src ??= this.openCopy("x", o);
          this.rd(src, len, have, buf);
        }
        len = this.wr(f, len, len, buf, 0, n);
      }
    } finally {
      this.close(src);
    }
    return len;
  }

  tombs(fn: (t: Tombstone) => boolean | void): void {
    this.open();
    this.learnTombs();
    if (!this.nTombs) return;
    try {
      this.tombsFrom(fn);
    } catch (e) {
      if (!(e instanceof Opening)) throw e;
      this.tombsFrom(fn);
    }
  }

  private tombsFrom(fn: (t: Tombstone) => boolean | void): void {
    const n = this.nTombs;
    if (this.xbad[0] && this.xbad[1]) throw new EpisodeError("io", "episodes: neither tombstone copy can be read");
    const p = this.xbad[0] ? 1 : 0, q = 1 - p;
    const per = Math.floor(CHUNK / TOMB_BYTES);
    const b = new Uint8Array(per * TOMB_BYTES);
    let ob: Uint8Array | undefined;
    let f: File | undefined, g: File | undefined;
    try {
      const have0 = Math.floor(this.xLen[p] / TOMB_BYTES), have1 = this.xbad[q] ? 0 : Math.floor(this.xLen[q] / TOMB_BYTES);
      try {
        if (have0 > 0) f = this.openCopy("x", p);
      } catch (e) {
        if (e instanceof EpisodeError && this.xbad[p] && !this.xbad[q]) throw new Opening();
        throw e;
      }
      for (let first = 0; first < n; first += per) {
        const c = Math.min(per, n - first);
        const c0 = Math.max(0, Math.min(c, have0 - first));
        this.rd(f as File, first * TOMB_BYTES, c0 * TOMB_BYTES, b);
        let otherRead = false;
        for (let i = 0; i < c; i++) {
          let src: Uint8Array = b;
          const at = i * TOMB_BYTES;
          if (i >= c0 || !tombValid(b, at)) {
            if (!otherRead) {
              otherRead = true;
              ob ??= new Uint8Array(per * TOMB_BYTES);
              const c1 = Math.max(0, Math.min(c, have1 - first));
              if (c1 > 0) {
                g ??= this.openCopy("x", q);
                this.rd(g, first * TOMB_BYTES, c1 * TOMB_BYTES, ob);
              }
              if (c1 < c) ob.fill(0, c1 * TOMB_BYTES);
            }
            src = ob as Uint8Array;
            if (!tombValid(src, at)) continue;
          }
          const t: Tombstone = {
            id: u32(src, at),
            reason: TOMB_REASONS[src[at + 4]] ?? "evicted",
            cause: EVICT_CAUSES[src[at + 5]] ?? "none",
            strength: src[at + 6],
            at: u32(src, at + 8),
            payloadHash: u32(src, at + 12),
          };
          if (fn(t) === true) return;
        }
      }
    } finally {
      this.close(f);
      this.close(g);
    }
  }

  // ---- upkeep -----------------------------------------------------------------------------------

  step(): boolean {
    this.open();
    if (this.redoLater) {
      const r = this.redoLater;
      this.redo(r.seq, r.maxId, r.slots);
      this.redoLater = undefined;
      return true;
    }
    if (this.pending.length && !this.bad[0] && !this.bad[1]) {
      this.settlePending();
      return true;
    }
    if (this.bad[0] || this.bad[1]) return this.rebuildStep();
    if (this.xbad[0] || this.xbad[1]) return this.rebuildTombStep();
    return this.scrubStep();
  }

  // Writes copy k again from the other, REBUILD_SLOTS slots per step, into
  // `.h<k>.n` and `.t<k>.n`, then renames them into place. Copy k's old files
  // go first (they cannot be read, or are stale: the other copy holds every
  // slot), which also frees their room. A reboot before the last rename finds
  // the header file missing and starts again. Batches meanwhile also go to the
  // part already copied.
  private rebuildStep(): boolean {
    const k = this.bad[0] ? 0 : 1, o = 1 - k;
    const hN = this.tmp("h", k), tN = this.tmp("t", k);
    let rb = this.rebuild;
    if (!rb) {
      for (const p of [this.path("h", k), this.path("t", k), hN, tN]) if (!this.remove(p)) return true; // a delete that failed: the next step tries again
      this.hLen[k] = 0;
      this.tLen[k] = 0;
      for (const p of [hN, tN]) this.close(this.openWrite(p, 0));
      this.nLen = { h: 0, t: 0 };
      rb = this.rebuild = { k, at: 0, phase: 0 };
      return true;
    }
    const total = Math.min(Math.floor(this.hLen[o] / HEADER_BYTES), EPISODE_SLOTS);
    if (rb.phase === 0 && rb.at < total) {
      const n = Math.min(REBUILD_SLOTS, total - rb.at);
      const tl = Math.max(0, Math.min(n, Math.floor(this.tLen[o] / TEXT_BYTES) - rb.at));
      const hb = new Uint8Array(n * HEADER_BYTES), tb = new Uint8Array(n * TEXT_BYTES);
      let f: File | undefined;
      try {
        f = this.openCopy("h", o);
        this.rd(f, rb.at * HEADER_BYTES, n * HEADER_BYTES, hb);
        this.close(f);
        f = undefined;
        if (tl > 0) {
          f = this.openCopy("t", o);
          this.rd(f, rb.at * TEXT_BYTES, tl * TEXT_BYTES, tb);
          this.close(f);
          f = undefined;
        }
        f = this.openWrite(tN, this.nLen.t);
        this.nLen.t = this.wr(f, this.nLen.t, rb.at * TEXT_BYTES, tb);
        this.close(f);
        f = undefined;
        f = this.openWrite(hN, this.nLen.h);
        this.nLen.h = this.wr(f, this.nLen.h, rb.at * HEADER_BYTES, hb);
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.rebuild = undefined;
        throw e;
      } finally {
        this.close(f);
      }
      rb.at += n;
      return true;
    }
    if (rb.phase === 0) rb.phase = 2;
    if (rb.phase === 2) {
      if (!File.rename(tN, this.path("t", k))) return true; // false: the next step tries again
      rb.phase = 3;
    }
    if (!File.rename(hN, this.path("h", k))) return true;
    this.hLen[k] = this.nLen.h;
    this.tLen[k] = this.nLen.t;
    this.bad[k] = false;
    this.rebuild = undefined;
    this.countSlots();
    this.notes.push(`slot copy ${k} rebuilt`);
    return true;
  }

  // Runs the rebuild of an unreadable copy to its end (a batch never writes the
  // only readable copy in place while it can help it: a cut could leave that
  // file not finalized too). False when it cannot finish now.
  private finishRebuild(xs: boolean): boolean {
    if (!this.rebuildBeforeWrite) return false;
    this.learnTombs();
    const most = xs ? Math.ceil((this.nTombs * TOMB_BYTES) / CHUNK) + 8 : Math.ceil(EPISODE_SLOTS / REBUILD_SLOTS) + 8;
    for (let i = 0; i < most; i++) {
      if (xs ? !(this.xbad[0] || this.xbad[1]) : !(this.bad[0] || this.bad[1])) return true;
      try {
        if (xs) this.rebuildTombStep();
        else this.rebuildStep();
      } catch (e) {
        if (fatal(e)) throw e;
        return false;
      }
    }
    return xs ? !(this.xbad[0] || this.xbad[1]) : !(this.bad[0] || this.bad[1]);
  }

  private rebuildTombStep(): boolean {
    this.learnTombs();
    const k = this.xbad[0] ? 0 : 1, o = 1 - k;
    const xN = this.tmp("x", k);
    let rb = this.xrebuild;
    if (!rb) {
      if (!this.remove(this.path("x", k)) || !this.remove(xN)) return true;
      this.xLen[k] = 0;
      this.close(this.openWrite(xN, 0));
      rb = this.xrebuild = { k, at: 0 };
      return true;
    }
    const end = this.nTombs * TOMB_BYTES;
    if (rb.at < end) {
      const n = Math.min(CHUNK - (CHUNK % TOMB_BYTES), end - rb.at);
      const b = new Uint8Array(n);
      const have = Math.max(0, Math.min(n, this.xLen[o] - rb.at));
      let f: File | undefined;
      try {
        if (have > 0) {
          f = this.openCopy("x", o);
          this.rd(f, rb.at, have, b);
          this.close(f);
          f = undefined;
        }
        f = this.openWrite(xN, rb.at);
        this.wr(f, rb.at, rb.at, b);
      } finally {
        this.close(f);
      }
      rb.at += n;
      return true;
    }
    if (!File.rename(xN, this.path("x", k))) return true;
    this.xLen[k] = rb.at;
    this.xbad[k] = false;
    this.xrebuild = undefined;
    this.notes.push(`tomb copy ${k} rebuilt`);
    return true;
  }

  // One piece of a scrub pass: SCRUB_SLOTS slots of both copies compared (and
  // repaired), then, after the last slot, the tombstones SCRUB_TOMBS at a time.
  // Returns false when a pass has just ended (the next call starts another).
  private scrubStep(): boolean {
    if (this.scrubAt < 0) {
      this.scrubAt = 0;
      this.scrubTomb = 0;
      this.hadWork = false;
    }
    const maxSlots = Math.min(EPISODE_SLOTS, Math.max(Math.floor(this.hLen[0] / HEADER_BYTES), Math.floor(this.hLen[1] / HEADER_BYTES)));
    if (this.scrubAt < maxSlots) {
      const list: number[] = [];
      for (let s = this.scrubAt; s < Math.min(maxSlots, this.scrubAt + SCRUB_SLOTS); s++) list.push(s);
      const fixed = this.settle(list);
      if (fixed) {
        this.hadWork = true;
        this.notes.push(`scrub: ${fixed} slot(s) repaired from ${list[0]}`);
      }
      this.scrubAt += list.length;
      return true;
    }
    this.learnTombs();
    if (this.scrubTomb < this.nTombs) {
      const fixed = this.scrubTombs(this.scrubTomb, Math.min(SCRUB_TOMBS, this.nTombs - this.scrubTomb));
      if (fixed) {
        this.hadWork = true;
        this.notes.push(`scrub: ${fixed} tombstone(s) repaired from ${this.scrubTomb}`);
      }
      this.scrubTomb += SCRUB_TOMBS;
      return true;
    }
    this.scrubAt = -1;
    return false;
  }

  private scrubTombs(first: number, n: number): number {
    const b = [new Uint8Array(n * TOMB_BYTES), new Uint8Array(n * TOMB_BYTES)];
    const have = [0, 0];
    for (let k = 0; k < 2; k++) {
      have[k] = Math.max(0, Math.min(n, Math.floor(this.xLen[k] / TOMB_BYTES) - first));
      if (!have[k]) continue;
      let f: File | undefined;
      try {
        f = this.openCopy("x", k);
        this.rd(f, first * TOMB_BYTES, have[k] * TOMB_BYTES, b[k]);
      } finally {
        this.close(f);
      }
    }
    let fixed = 0;
    for (let k = 0; k < 2; k++) {
      let f: File | undefined;
      try {
        for (let i = 0; i < n; i++) {
          const at = i * TOMB_BYTES;
          const mine = i < have[k] && tombValid(b[k], at);
          const theirs = i < have[1 - k] && tombValid(b[1 - k], at);
          if (!theirs) continue;
          if (mine) {
            let same = true;
            for (let x = at; x < at + TOMB_BYTES && same; x++) same = b[k][x] === b[1 - k][x];
            if (same || k === 1) continue; // two valid, different records (never written so): copy 0 stands
          }
          f ??= this.openWrite(this.path("x", k), this.xLen[k]);
          this.xLen[k] = this.wr(f, this.xLen[k], (first + i) * TOMB_BYTES, b[1 - k], at, at + TOMB_BYTES);
          b[k].set(b[1 - k].subarray(at, at + TOMB_BYTES), at);
          if (i >= have[k]) have[k] = i + 1;
          fixed++;
        }
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.markXBad(k, "emptied by a write open");
        else throw e;
      } finally {
        this.close(f);
      }
    }
    return fixed;
  }

  footprint(): number {
    this.open();
    let n = this.seq > 0 ? W_BYTES : 0;
    for (let k = 0; k < 2; k++) n += this.hLen[k] + this.tLen[k] + this.xLen[k];
    if (this.rebuild) n += this.nLen.h + this.nLen.t;
    return n;
  }
}

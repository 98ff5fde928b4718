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
//
// This file: the files, opening them and the batch file /ep.w (the layout and
// the recovery at open). store-batch.ts: ids, reading and writing batches;
// store.ts: putting slots in step, tombstones and the upkeep (rebuild, scrub).

import { File, Iterator, System } from "file";
import config from "mc/config";
import { crc32 } from "../nvs/crc32";
import { beforeDropping, settleNames, TEMP } from "../archive/settle";
import { EPISODE_SLOTS, type Tombstone } from "./types";
import { Passages } from "./passages";
import {
  EpisodeError,
  HEADER_BYTES,
  TEXT_BYTES,
  TOMB_BYTES,
  u32,
  put32,
} from "./record";

export { EpisodeError };

export const CHUNK = 4096;
export const MAX_BATCH = 8;
export const W_BYTES = 32;
export const SLOT_BYTES = HEADER_BYTES + TEXT_BYTES; // a slot's records in /ep.w's redo form
export const W_MAGIC = 0xe6;
export const SCRUB_SLOTS = 5; // per step: 5 headers and 5 texts of each copy (3,360 B of text per read)
export const SCRUB_TOMBS = 100; // per step: 2,000 B of each tomb copy
// a scrub pass starts at boot, then a day after the last one ended: damage at
// rest is rare and a pass reads both copies whole (about 900 KB at 400 slots)
export const SCRUB_EVERY_MS = 24 * 3600 * 1000;
export const REBUILD_SLOTS = 5; // slots copied per rebuild step (640 B of headers, 3,360 B of texts)
export const TEXTS_PER_READ = Math.floor(CHUNK / TEXT_BYTES); // 6
export const USABLE = 0.75; // SPIFFS fills reliably to about 75% (docs/FORMAT.md §1)

type Part = "h" | "t";

export function fatal(e: unknown): boolean {
  return e instanceof Error && e.name === "PowerCut";
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// A write open that found the file shorter than it was: Moddable's fallback to
// fopen("wb+") emptied it (its read open failed). The copy is rebuilt.
export class Emptied extends Error {
  constructor(readonly path: string) {
    super(`episodes: ${path} was emptied by its write open`);
    Object.defineProperty(this, "name", { value: "Emptied", configurable: true, writable: true });
  }
}

// A file longer than the store knows it (another writer, a listing that
// missed bytes): nothing is written, the files are learnt again.
export class Stale extends EpisodeError {
  constructor(message: string) {
    super("io", message);
  }
}

// The first open of a scan failed and its copy is now marked unreadable: the scan starts over from the other.
export class Opening extends Error {
  constructor() {
    super("episodes: a copy could not be opened");
    Object.defineProperty(this, "name", { value: "Opening", configurable: true, writable: true });
  }
}

export interface Rebuild {
  k: number; // the copy being written again from the other
  at: number; // slots copied into the `.n` files
  phase: number; // 0 copying, 1 deleting the old files, 2 renaming the text file, 3 the header file
}

export function sameHeader(a: Uint8Array, b: Uint8Array, i: number): boolean {
  for (let x = i * HEADER_BYTES, e = x + HEADER_BYTES; x < e; x++) if (a[x] !== b[x]) return false;
  return true;
}

export abstract class EpisodeFiles {
  readonly stats = { bytesRead: 0, reads: 0, bytesWritten: 0, writes: 0 };
  protected readonly root: string;
  protected readonly name: string; // "ep": files are root + name + ".h0" ...
  protected opened = false;
  protected hLen = [0, 0];
  protected tLen = [0, 0];
  protected xLen = [0, 0];
  protected nLen = { h: 0, t: 0 }; // the rebuild's `.n` files
  protected bad = [false, false]; // slot copy k cannot be read: served from the other, rebuilt
  protected xbad = [false, false];
  protected nSlots = 0;
  protected nTombs = -1; // -1: not learnt yet
  protected seq = 0; // the last batch's seq (every record's seq is at most this)
  protected maxId = 0; // the highest id written (episodes and tombstones)
  protected given = 0; // the highest id nextId() gave
  protected lastSlots: number[] = []; // the slots /ep.w names
  protected redoLater: { seq: number; maxId: number; slots: number[] } | undefined; // /ep.w holds a batch not finished yet
  protected known = false; // seq and maxId known (from /ep.w or a census)
  protected free: Uint8Array | undefined; // bit per slot: free (a census)
  protected pending: number[] = []; // slots a failed batch left out of step
  protected rebuild: Rebuild | undefined;
  protected xrebuild: { k: number; at: number } | undefined;
  protected scrubAt = -1; // -1: no scrub pass running
  protected scrubDue = 0; // wall time (ms) the next pass may start; 0: at once
  protected scrubTomb = 0;
  protected hadWork = false;
  readonly notes: string[] = []; // what open() and step() found and did (for traces and tests)
  // a batch or tombstone that finds a copy unreadable finishes its rebuild first
  // (false: tests of the fallback, where the batch goes whole through /ep.w)
  rebuildBeforeWrite = true;
  // the texts of version-2 headers (passages.ts); `lean`: no slot text files
  // (/ep.t0, /ep.t1) are left, every header is version 2
  readonly texts: Passages;
  protected lean = true;
  protected migAt = 0; // the migration from version 1: slots looked at this pass
  // the migration's single-text mode (FORMAT.md §4.8, docs/design/update.md):
  // /ep.t1 dropped (/ep.t0 there, /ep.t1 not, a header file of copy 1 there);
  // both header copies' version-1 texts are read from /ep.t0
  protected single = false;
  protected singleAt = 0; // the check of /ep.t0 before /ep.t1 goes: slots checked this pass
  protected singleNo = false; // a slot whose texts fail in both copies: both files kept (until the next open)
  protected singleFails = 0; // failed checks of this pass's 32 slots in a row
  protected migFull = false; // a migration batch failed for room
  // the passages' collection (store.ts): a census of live bytes per segment, then moving one's live texts
  protected gc: { phase: number; at: number; live: Map<number, number>; victim: number; found: number; wipe: number[]; waits: number; own: boolean } | undefined;
  protected moving: number[] = []; // slots a batch writes with their texts appended anew (the collection)
  // a batch freed an owner-deleted episode's slot: a census looks for the segments to collect now (FORMAT.md §4.3.1)
  protected wipeDue = false;
  // the slot index /ep.i (slot-index.ts, store.ts): "unknown" until read or
  // written this open; "ok" when it runs to the last batch; "behind" when it
  // lacks only the last batch's record (`behind`, appended by the next step
  // or batch); "torn" when that record is damaged (usable, written again by
  // steps); "stale" or "absent" until steps write it again. len: its bytes.
  // ixBuild: the new one being written (/ep.i.n).
  protected ix: { state: "unknown" | "ok" | "behind" | "torn" | "stale" | "absent"; len: number; behind?: Uint8Array } = { state: "absent", len: 0 };
  protected ixBuild: { seq: number; n: number; at: number; crc: number; len: number } | undefined;

  // prefix: the files' name before ".h0" etc., from the file root ("/ep": /data/ep.h0 on the device)
  constructor(prefix = "/ep", root: string = config.file.root) {
    this.root = root.endsWith("/") ? root : root + "/";
    this.name = prefix.charAt(0) === "/" ? prefix.slice(1) : prefix;
    this.texts = new Passages(this.root);
  }

  // The marker of a migration's end (§4.1): written before /ep.t0 and /ep.t1 are deleted.
  protected mPath(): string {
    return `${this.root}${this.name}.m`;
  }

  // /ep.t1 renamed before it is deleted (§4.8: a rename needs no room; a
  // cut before the delete ends leaves this name, which open() deletes).
  protected dPath(): string {
    return this.path("t", 1) + ".d";
  }

  // Copy k's version-1 text file is its own (not /ep.t0 read for copy 1 in single-text mode).
  protected tOwn(k: number): boolean {
    return !this.single || k === 0;
  }

  // The passages' stream learnt from a listing of the root (once; again after a listing that failed).
  protected ensureTexts(): void {
    if (this.texts.loaded) return;
    const all = new Map<string, number>();
    try {
      const it = new Iterator(this.root);
      for (let e = it.next(); e; e = it.next()) if (e.length !== undefined) all.set(e.name, e.length);
    } catch (e) {
      if (fatal(e)) throw e;
      throw new EpisodeError("io", `episodes: the file system cannot be listed now (${messageOf(e)})`);
    }
    try {
      this.texts.load(all);
    } catch (e) {
      if (fatal(e)) throw e;
      throw new EpisodeError("io", `episodes: the texts cannot be loaded (${messageOf(e)})`);
    }
    for (const r of this.texts.stream.repaired) this.notes.push(`texts: ${r}`);
    for (const r of this.texts.stream.unreadable) this.notes.push(`texts: ${r} unreadable`);
  }

  path(part: "h" | "t" | "x", k: number): string {
    return `${this.root}${this.name}.${part}${k}`;
  }

  // the slot index (§4.9) and the one being written
  protected ixPath(): string {
    return `${this.root}${this.name}.i`;
  }

  protected wPath(): string {
    return `${this.root}${this.name}.w`;
  }

  protected tmp(part: "h" | "t" | "x", k: number): string {
    return this.path(part, k) + ".n";
  }

  get slots(): number {
    this.open();
    return this.nSlots;
  }

  // ---- files ------------------------------------------------------------------------------

  protected openRead(path: string): File {
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
  protected openCopy(part: "h" | "t" | "x", k: number): File {
    try {
      return this.openRead(this.path(part, part === "t" && !this.tOwn(k) ? 0 : k));
    } catch (e) {
      if (fatal(e)) throw e;
      if (part === "x") this.markXBad(k, "unreadable");
      else this.markBad(k, `${part}${k} unreadable`);
      throw e;
    }
  }

  // Opens for writing a file whose length should be `expected`.
  protected openWrite(path: string, expected: number): File {
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
      this.relearn();
      throw new Stale(`episodes: ${path} is ${n} bytes, ${expected} expected; not written`);
    }
    return f;
  }

  // The files are learnt again at the next call (another writer, a stale view).
  protected relearn(): void {
    this.opened = false;
    this.bad = [false, false];
    this.xbad = [false, false];
    this.rebuild = undefined;
    this.xrebuild = undefined;
    this.nTombs = -1;
    this.free = undefined;
    this.texts.loaded = false;
  }

  // Reads f[pos..pos+n) into buf[at..), n <= CHUNK, all of it or EpisodeError("io").
  protected rd(f: File, pos: number, n: number, buf: Uint8Array, at = 0): void {
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
  protected wr(f: File, len: number, pos: number, bytes: Uint8Array, s = 0, e = bytes.length): number {
    while (len < pos) {
      const n = Math.min(CHUNK, pos - len);
      this.put(f, len, new Uint8Array(n), 0, n);
      len += n;
    }
    this.put(f, pos, bytes, s, e);
    return Math.max(len, pos + e - s);
  }

  protected put(f: File, pos: number, bytes: Uint8Array, s: number, e: number): void {
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
  protected failure(e: unknown, needed: number, what: string): EpisodeError {
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

  protected close(f: File | undefined): void {
    if (!f) return;
    try {
      f.close();
    } catch (e) {
      if (fatal(e)) throw e;
    }
  }

  protected remove(path: string): boolean {
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
    const all = new Map<string, number>();
    let listed = true;
    try {
      const pre = this.name + ".";
      // the passages' files (passages.ts): p<seq>.<ext>, p.cat, p.sum, p.bsl
      const PRE = [pre, "p0", "p1", "p."];
      const ours = (n: string) => {
        for (const x of PRE) if (n.indexOf(x) === 0) return true;
        return false;
      };
      const learn = (): boolean => {
        let twice = false;
        names.clear();
        all.clear();
        const it = new Iterator(this.root);
        for (let e = it.next(); e; e = it.next()) {
          if (e.length === undefined) continue;
          if (ours(e.name) && all.has(e.name)) twice = true;
          all.set(e.name, e.length);
          if (e.name.indexOf(pre) === 0) names.set(this.root + e.name, e.length);
          else if (e.name.indexOf(TEMP) === 0 && ours(e.name.slice(TEMP.length))) twice = true;
        }
        return twice;
      };
      // a name listed twice, or a settle a cut interrupted (src/archive/settle.ts;
      // on the device the archive's check has done it already at boot)
      if (learn()) {
        for (const x of PRE) for (const d of settleNames(this.root, x)) this.notes.push(d);
        learn();
      }
    } catch (e) {
      if (fatal(e)) throw e;
      listed = false; // never taken for "no files": each file is asked on its own
    }
    const len = (p: string) => (listed ? names.get(p) : this.probe(p));
    this.texts.loaded = false;
    if (listed) {
      try {
        this.texts.load(all);
        for (const r of this.texts.stream.repaired) this.notes.push(`texts: ${r}`);
        for (const r of this.texts.stream.unreadable) this.notes.push(`texts: ${r} unreadable`);
      } catch (e) {
        if (fatal(e)) throw e;
        this.texts.loaded = false; // learnt again at the first use
      }
    }
    // a migration that ended (its marker) deletes the text files, then the marker
    if (len(this.mPath()) !== undefined) {
      for (let k = 0; k < 2; k++) {
        for (const p of [this.tmp("t", k), this.path("t", k)]) {
          if (len(p) !== undefined && this.remove(p)) names.delete(p);
        }
      }
      if (this.remove(this.mPath())) this.notes.push("the migration to version 2 ended: text files deleted");
    }
    // single-text mode (§4.8): /ep.t1 renamed /ep.t1.d (deleted again after a
    // cut), then gone: /ep.t0 there, /ep.t1 and /ep.t1.n not. A two-copy
    // store is left so only by a rebuild of copy 1 cut after it deleted both
    // its files (it deletes the header file first), which would copy /ep.t0's
    // texts anyway: taken as single-text mode, its headers are rebuilt alone.
    // (The migration's end writes /ep.m first.)
    this.single = false;
    this.singleAt = 0;
    this.singleNo = false;
    this.singleFails = 0;
    if (len(this.dPath()) !== undefined && this.remove(this.dPath())) {
      names.delete(this.dPath());
      this.notes.push("single-text: /ep.t1 deleted (its delete was cut)");
    }
    if (len(this.path("t", 0)) !== undefined && len(this.path("t", 1)) === undefined && len(this.tmp("t", 1)) === undefined) this.single = true;
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
    // version 1 text files (a store from before, being migrated) or none (lean)
    if (this.single) this.tLen[1] = this.tLen[0];
    const lean = this.tLen[0] < 0 && this.tLen[1] < 0;
    this.lean = lean;
    this.migAt = 0;
    this.gc = undefined;
    for (let k = 0; k < 2; k++) {
      const o = 1 - k;
      // a copy with a file missing (or far shorter than the other's) while the other has slots
      const missing = this.hLen[k] < 0 || (!lean && this.tLen[k] < 0);
      const short = this.hLen[k] + MAX_BATCH * HEADER_BYTES < this.hLen[o] || (!lean && this.tLen[k] + MAX_BATCH * TEXT_BYTES < this.tLen[o]);
      if ((missing || short) && this.hLen[o] >= HEADER_BYTES && (lean || this.tLen[o] >= TEXT_BYTES) && !this.bad[o]) this.markBad(k, missing ? "missing" : "short");
      if (this.xLen[k] < 0 && this.xLen[o] >= TOMB_BYTES) this.markXBad(k, "missing");
    }
    // a copy file that exists but cannot be opened (not finalized)
    for (let k = 0; k < 2; k++) {
      for (const part of ["h", "t"] as const) {
        if (part === "t" && !this.tOwn(k)) continue;
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
    // the slot index: a new one a cut left unfinished is deleted
    this.ixBuild = undefined;
    if (len(this.ixPath() + ".n") !== undefined) this.remove(this.ixPath() + ".n");
    const ixLen = len(this.ixPath());
    this.ix = ixLen === undefined ? { state: "absent", len: 0 } : { state: "unknown", len: ixLen };
    // the batch in flight
    const w = this.readW(len(this.wPath()) !== undefined);
    this.lastSlots = [];
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
  protected probe(path: string): number | undefined {
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

  protected canOpen(path: string): boolean {
    try {
      this.close(this.openRead(path));
      return true;
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    }
  }

  protected markBad(k: number, why: string): void {
    if (this.bad[k] || this.bad[1 - k]) return; // never both: the other copy is all there is
    this.bad[k] = true;
    this.rebuild = undefined;
    this.free = undefined;
    this.notes.push(`slot copy ${k} ${why}: served from copy ${1 - k}, rebuilt by steps`);
  }

  protected markXBad(k: number, why: string): void {
    if (this.xbad[k] || this.xbad[1 - k]) return;
    this.xbad[k] = true;
    this.xrebuild = undefined;
    this.notes.push(`tomb copy ${k} ${why}: served from copy ${1 - k}, rebuilt by steps`);
  }

  protected countSlots(): void {
    let n = 0;
    for (let k = 0; k < 2; k++) if (!this.bad[k]) n = Math.max(n, Math.floor(this.hLen[k] / HEADER_BYTES));
    this.nSlots = Math.min(n, EPISODE_SLOTS);
  }

  // /ep.w: its head, and whether it holds the batch's records whole (the redo
  // form a batch writes while one copy is being rebuilt).
  protected readW(present: boolean): { seq: number; maxId: number; slots: number[]; redo: boolean } | undefined {
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
  protected writeW(seq: number, maxId: number, slots: number[], recs?: Uint8Array): void {
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
  protected redo(seq: number, maxId: number, slots: number[]): void {
    const n = slots.length;
    const hb = new Uint8Array(n * HEADER_BYTES);
    const t = new Uint8Array(TEXT_BYTES);
    for (let k = 0; k < 2; k++) {
      if (this.bad[k]) continue;
      let w: File | undefined, f: File | undefined;
      try {
        w = this.openRead(this.wPath());
        // a version-2 header's text is a passage (its text record in /ep.w is
        // zeros, never written); a version-1 one's (a device from before) is written first
        for (let i = 0; i < n; i++) {
          this.rd(w, W_BYTES + i * SLOT_BYTES, HEADER_BYTES, hb, i * HEADER_BYTES);
          if (hb[i * HEADER_BYTES + 1] !== 1 || this.lean || !this.tOwn(k)) continue;
          this.rd(w, W_BYTES + i * SLOT_BYTES + HEADER_BYTES, TEXT_BYTES, t);
          f ??= this.openWrite(this.path("t", k), this.tLen[k]);
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

  // the upkeep's, in store.ts: open() and a batch put slots in step, a
  // batch learns the tombstones and finishes a rebuild first
  protected abstract settle(list: number[], prefer?: number): number;
  protected abstract ixCheck(): void;
  protected abstract finishRebuild(xs: boolean): boolean;
  abstract tombs(fn: (t: Tombstone) => boolean | void): void;
}

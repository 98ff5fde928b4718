// A model of SPIFFS on a 3 MB partition: flat object names, page-granular space
// accounting, the ~75% of the partition that SPIFFS can reliably fill, the five
// file descriptors of Moddable's mount, torn writes on power loss and the faults
// of host-sim/faults.ts. File bytes live in RAM; host-sim/node persists them.

import { Flash, prng } from "./flash.js";
import { FaultArm, type FaultOptions, type SpiffsFault } from "./faults.js";

export const BLOCK_BYTES = 4096;
export const PAGE_BYTES = 256;
export const PAGE_HEADER_BYTES = 5; // object id, span index, flags
export const DATA_PER_PAGE = PAGE_BYTES - PAGE_HEADER_BYTES;
export const OBJ_NAME_MAX_BYTES = 31; // SPIFFS_OBJ_NAME_LEN 32, with its NUL
// pages an object index page maps: the header page also holds name and size
const IX_HEADER_ENTRIES = (PAGE_BYTES - 64) >> 1;
const IX_ENTRIES = (PAGE_BYTES - 8) >> 1;
export const USABLE_FRACTION = 0.75;
// esp_vfs_spiffs_conf_t.max_files: MODDEF_FILE_MAXOPEN, 5 unless defines.file.maxopen says otherwise
export const MAX_OPEN = 5;

export class SpiffsError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "SpiffsError", configurable: true, writable: true });
  }
}

export interface SpiffsStats {
  total: number; // partition bytes
  used: number; // bytes of pages in use
  usable: number; // what SPIFFS can reliably fill
  files: number;
  percent: number; // used of total
}

export interface SpiffsListener {
  write?(name: string, offset: number, bytes: Uint8Array): void;
  remove?(name: string): void;
  rename?(from: string, to: string): void;
  create?(name: string): void;
  truncate?(name: string, length: number): void;
}

const enc = new TextEncoder();

export function pagesFor(length: number): number {
  const data = Math.ceil(length / DATA_PER_PAGE);
  const extraIndex = data > IX_HEADER_ENTRIES ? Math.ceil((data - IX_HEADER_ENTRIES) / IX_ENTRIES) : 0;
  return 1 + extraIndex + data;
}

// How a SPIFFS write cut by power loss is left (docs/DESIGN.md, "Faults"):
//   unchanged  the data pages were programmed but the object index was not
//              updated: the file reads as before (SPIFFS's usual outcome);
//   prefix     the pages up to some page boundary made it and the index with them;
//   holes      the index (length) was updated but only some of the data pages
//              reached flash, not in order: the others read as erased flash, 0xFF;
//   not_finalized  the bytes are as in `unchanged` but the object is left not
//              finalized (spiffs_not_finalized): open, read and write fail until
//              it is deleted. Not in the default set: opt in with tearModes.
export type TearMode = "unchanged" | "prefix" | "holes" | "not_finalized";
export const TEAR_MODES: readonly TearMode[] = ["unchanged", "prefix", "holes"];
export const ALL_TEAR_MODES: readonly TearMode[] = ["unchanged", "prefix", "holes", "not_finalized"];


export class Spiffs {
  readonly files = new Map<string, Uint8Array>(); // name (with leading "/") -> content
  private lengths = new Map<string, number>(); // content may be over-allocated
  readonly totalPages: number;
  readonly usablePages: number;
  listener: SpiffsListener = {};
  // file descriptors in use (open File objects); SPIFFS_remove and SPIFFS_rename need one too
  openFiles = 0;
  // objects a cut left not finalized: open, read and write fail until deleted
  readonly notFinalized = new Set<string>();
  // power cuts inside a write: which outcomes may happen, and the seed choosing among them
  tearModes: readonly TearMode[] = TEAR_MODES;
  tearSeed: number | undefined;
  lastTear: { name: string; mode: TearMode; pages: number; reached: number } | undefined;
  // What a cut inside a rename or an index header rewrite leaves in the real
  // library (docs/DESIGN.md, "What the real SPIFFS leaves at a cut"):
  // two names on one object (a torn rename): name -> the other name
  readonly sharedWith = new Map<string, string>();
  // a second index header of the same name (a torn header rewrite), with its length
  readonly shadow = new Map<string, number>();
  // names whose object was freed through another name, or whose index points at
  // pages a torn rewrite deleted: listed with their length, open works, reads fail
  readonly dangling = new Set<string>();
  private faults = new FaultArm<SpiffsFault>();
  private mountFailure = false;

  constructor(readonly flash: Flash, readonly bytes = 3 * 1024 * 1024, readonly partition = "storage") {
    const blocks = Math.floor(bytes / BLOCK_BYTES);
    const perBlock = BLOCK_BYTES / PAGE_BYTES;
    this.totalPages = blocks * perBlock;
    this.usablePages = Math.floor(this.totalPages * USABLE_FRACTION);
  }

  // ---- faults (host-sim/faults.ts, SimDevice.inject) ----------------------------------

  // At-rest faults (bit_flip, spiffs_not_finalized) apply now; mount_failure at the
  // next mount (SimDevice.reboot); the others arm for the at-th matching operation.
  inject(kind: SpiffsFault, opts: FaultOptions = {}): string {
    const seed = opts.seed ?? 0;
    switch (kind) {
      case "bit_flip": {
        const names = this.sortedNames().filter((n) => this.length(n) > 0);
        if (!names.length) return "bit_flip: no file with data";
        const r = prng(seed);
        const name = names[Math.floor(r() * names.length)];
        const len = this.length(name);
        const at = Math.floor(r() * len);
        const bit = Math.floor(r() * 8);
        const buf = this.files.get(name)!;
        buf[at] ^= 1 << bit;
        this.listener.write?.(name, at, buf.slice(at, at + 1));
        return `bit_flip: ${name} byte ${at} bit ${bit}`;
      }
      case "spiffs_not_finalized": {
        const names = this.sortedNames();
        if (!names.length) return "spiffs_not_finalized: no file";
        const name = names[seed % names.length];
        this.notFinalized.add(name);
        return `spiffs_not_finalized: ${name}`;
      }
      case "mount_failure":
        this.mountFailure = true;
        return "mount_failure: at the next mount SPIFFS is formatted";
      default:
        this.faults.arm(kind, opts);
        return `${kind} at operation ${opts.at ?? 1}`;
    }
  }

  disarm(kind: SpiffsFault): void {
    if (kind === "mount_failure") this.mountFailure = false;
    else this.faults.disarm(kind);
  }

  isArmed(kind: SpiffsFault): boolean {
    return kind === "mount_failure" ? this.mountFailure : this.faults.isArmed(kind);
  }

  // An operation asks whether an armed fault fires now.
  due(kind: "spiffs_read_error" | "rename_false" | "delete_false" | "open_limit" | "full" | "spiffs_rename_tear" | "spiffs_header_tear" | "spiffs_rewrite_tear"): boolean {
    return this.faults.due(kind) !== undefined;
  }

  // Power on: Moddable mounts SPIFFS (esp_vfs_spiffs_register, format_if_mount_failed):
  // no descriptor is open; a mount that fails formats the partition, every file gone.
  mount(): void {
    this.openFiles = 0;
    if (!this.mountFailure) return;
    this.mountFailure = false;
    this.format();
  }

  private format(): void {
    for (const name of [...this.lengths.keys()]) {
      this.files.delete(name);
      this.lengths.delete(name);
      this.listener.remove?.(name);
    }
    this.notFinalized.clear();
    this.sharedWith.clear();
    this.shadow.clear();
    this.dangling.clear();
    this.flash.erase(this.partition, Math.floor(this.bytes / BLOCK_BYTES));
  }

  private sortedNames(): string[] {
    return [...this.lengths.keys()].sort();
  }

  // ---- names and space ---------------------------------------------------------------

  static checkName(name: string): void {
    if (!name.startsWith("/") || name.length < 2) throw new SpiffsError("SPIFFS_ERR_NAME", "bad name");
    if (enc.encode(name).length > OBJ_NAME_MAX_BYTES) throw new SpiffsError("SPIFFS_ERR_NAME_TOO_LONG", "name too long");
  }

  exists(name: string): boolean {
    return this.lengths.has(name);
  }

  length(name: string): number {
    const n = this.lengths.get(name);
    if (n === undefined) throw new SpiffsError("SPIFFS_ERR_NOT_FOUND", "file not found");
    return n;
  }

  usedPages(): number {
    let n = 0;
    for (const len of this.lengths.values()) n += pagesFor(len);
    return n;
  }

  stats(): SpiffsStats {
    const used = this.usedPages() * PAGE_BYTES;
    const total = this.totalPages * PAGE_BYTES;
    return {
      total,
      used,
      usable: this.usablePages * PAGE_BYTES,
      files: this.lengths.size,
      percent: Math.round((used / total) * 1000) / 10,
    };
  }

  // A name with a second index header is listed twice (as readdir shows it).
  list(): { name: string; length: number }[] {
    const out: { name: string; length: number }[] = [];
    for (const [name, length] of this.lengths) {
      out.push({ name, length });
      const s = this.shadow.get(name);
      if (s !== undefined) out.push({ name, length: s });
    }
    return out;
  }

  // ---- descriptors ---------------------------------------------------------------------

  // SPIFFS_open: a free descriptor, then the object (created when `create`).
  // Throws SpiffsError; on success the caller owns one descriptor until release().
  open(name: string, create: boolean): void {
    Spiffs.checkName(name);
    if (this.due("open_limit") || this.openFiles >= MAX_OPEN) throw new SpiffsError("SPIFFS_ERR_OUT_OF_FILE_DESCS", "out of file descriptors");
    if (this.notFinalized.has(name)) throw new SpiffsError("SPIFFS_ERR_NOT_FINALIZED", "not finalized");
    if (!this.exists(name)) {
      if (!create) throw new SpiffsError("SPIFFS_ERR_NOT_FOUND", "file not found");
      this.create(name);
    }
    this.openFiles++;
  }

  release(): void {
    if (this.openFiles > 0) this.openFiles--;
  }

  // A read call on an open object; a failed one is SpiffsError.
  checkRead(name: string): void {
    this.flash.assertPowered();
    if (this.notFinalized.has(name)) throw new SpiffsError("SPIFFS_ERR_NOT_FINALIZED", "not finalized");
    if (this.dangling.has(name)) throw new SpiffsError("SPIFFS_ERR_DELETED", "deleted");
    if (this.due("spiffs_read_error")) throw new SpiffsError("SPIFFS_ERR_READ", "read error");
  }

  // ESP-IDF opens for writing with an mtime update (SPIFFS_fupdate_meta): the
  // object's index header is written anew and the old one deleted. A cut
  // between the two leaves the name listed twice (spiffs_header_tear).
  touch(name: string): void {
    if (!this.exists(name) || !this.due("spiffs_header_tear")) return;
    this.tearHeader(name);
  }

  private tearHeader(name: string): never {
    this.flash.program(this.partition, PAGE_BYTES, () => this.shadow.set(name, this.length(name)));
    this.flash.powerCutNow();
  }

  // ---- objects -------------------------------------------------------------------------

  // Creating an object writes its index header page.
  create(name: string): void {
    Spiffs.checkName(name);
    if (this.exists(name)) return;
    if (this.usedPages() + 1 > this.usablePages) throw new SpiffsError("SPIFFS_ERR_FULL", "file system full");
    this.flash.program(this.partition, PAGE_BYTES, (kept) => {
      if (kept < PAGE_BYTES) return;
      this.files.set(name, new Uint8Array(0));
      this.lengths.set(name, 0);
      this.listener.create?.(name);
    });
    // the create's mtime update rewrites the new header
    if (this.due("spiffs_header_tear")) this.tearHeader(name);
  }

  read(name: string, offset: number, count: number): Uint8Array {
    const len = this.length(name);
    const n = Math.max(0, Math.min(count, len - offset));
    this.flash.read(this.partition, n);
    return this.files.get(name)!.slice(offset, offset + n);
  }

  // A write that does not fit fails before anything is written (SPIFFS's
  // spiffs_gc_check runs first); so does an armed `full` fault. A power cut tears
  // it as tearModes allow (see TearMode).
  write(name: string, offset: number, data: Uint8Array): void {
    const len = this.length(name);
    if (this.notFinalized.has(name)) throw new SpiffsError("SPIFFS_ERR_NOT_FINALIZED", "not finalized");
    if (this.dangling.has(name)) throw new SpiffsError("SPIFFS_ERR_DELETED", "deleted");
    const newLen = Math.max(len, offset + data.length);
    if (this.due("full") || this.usedPages() - pagesFor(len) + pagesFor(newLen) > this.usablePages)
      throw new SpiffsError("SPIFFS_ERR_FULL", "file system full");
    // bytes replaced inside the file: SPIFFS writes new data pages, deletes the
    // old ones, then the index; a cut between leaves the index on deleted pages
    if (offset < len && this.due("spiffs_rewrite_tear")) {
      this.flash.program(this.partition, Math.min(data.length, DATA_PER_PAGE), () => this.dangling.add(name));
      this.flash.powerCutNow();
    }
    this.flash.program(this.partition, data.length, (kept) => {
      if (kept >= data.length) {
        this.put(name, len, offset, data);
        this.afterWrite(name, offset, data.length);
        return;
      }
      this.tear(name, len, offset, data, kept);
    });
  }

  // A write through one of two names on one object: the other name's header
  // still maps the object's old pages up to its own length. Bytes past that
  // length leave it as it was; bytes inside it delete pages it maps (reads of
  // it fail). A name with a second header: the rewritten header is found after
  // the stale one from now on, so the name shows the stale length again.
  private afterWrite(name: string, offset: number, n: number): void {
    const other = this.sharedWith.get(name);
    if (other !== undefined && offset < this.lengths.get(other)!) {
      this.dangling.add(other);
      this.sharedWith.delete(name);
      this.sharedWith.delete(other);
    }
    const s = this.shadow.get(name);
    if (s !== undefined) {
      const now = this.length(name);
      this.shadow.set(name, now);
      this.lengths.set(name, Math.min(s, now));
      void n;
    }
  }

  private put(name: string, len: number, offset: number, part: Uint8Array): void {
    const end = Math.max(len, offset + part.length);
    let buf = this.files.get(name)!;
    if (end > buf.length) {
      const grown = new Uint8Array(Math.max(end, buf.length * 2, 64));
      grown.set(buf.subarray(0, len));
      buf = grown;
      this.files.set(name, buf);
    }
    buf.set(part, offset);
    this.lengths.set(name, end);
    this.listener.write?.(name, offset, part);
  }

  // The data pages a write covers, by file offset: SPIFFS data pages hold
  // DATA_PER_PAGE bytes each, at offsets that are multiples of DATA_PER_PAGE.
  private tear(name: string, len: number, offset: number, data: Uint8Array, kept: number): void {
    const cuts: number[] = [0];
    for (let p = (Math.floor(offset / DATA_PER_PAGE) + 1) * DATA_PER_PAGE; p < offset + data.length; p += DATA_PER_PAGE) cuts.push(p - offset);
    cuts.push(data.length);
    const pages = cuts.length - 1;
    const r = prng((this.tearSeed ?? 0) * 7919 + this.flash.writes);
    const modes = this.tearModes.length ? this.tearModes : TEAR_MODES;
    const mode = kept <= 0 ? "unchanged" : modes[Math.floor(r() * modes.length)];
    // pages that reached flash: as many as `kept` bytes cover
    let reached = 0;
    while (reached < pages && cuts[reached + 1] <= kept) reached++;
    this.lastTear = { name, mode, pages, reached };
    if (mode === "not_finalized") this.notFinalized.add(name);
    if (mode === "unchanged" || mode === "not_finalized") return;
    if (mode === "prefix") {
      if (reached > 0) this.put(name, len, offset, data.subarray(0, cuts[reached]));
      return;
    }
    // holes: a seeded choice of `reached` pages keeps its data, the rest read 0xFF
    const keep = new Set<number>();
    while (keep.size < reached) keep.add(Math.floor(r() * pages));
    const out = data.slice();
    for (let i = 0; i < pages; i++) if (!keep.has(i)) out.fill(0xff, cuts[i], cuts[i + 1]);
    this.put(name, len, offset, out);
  }

  // SPIFFS deletes from the end of an object backwards: a cut part way leaves a
  // shorter file under the same name. SPIFFS_remove needs a free descriptor.
  // SPIFFS_remove first marks the index header deleted (one flag write), then
  // deletes the pages: the real library, cut anywhere inside it, leaves the
  // name as it was (a cut at that first write) or gone, never a shorter file.
  // Removing one of two names on one object frees the pages the other maps
  // (it stays listed; its reads fail). A name with a second header: the first
  // remove leaves the stale header (listed, reads fail), the next removes it.
  remove(name: string): boolean {
    if (this.due("delete_false") || !this.exists(name) || this.openFiles >= MAX_OPEN) return false;
    const len = this.length(name);
    this.flash.program(this.partition, pagesFor(len) * PAGE_HEADER_BYTES, (kept) => {
      if (kept <= 0) return;
      const other = this.sharedWith.get(name);
      if (other !== undefined) {
        this.dangling.add(other);
        this.sharedWith.delete(other);
        this.sharedWith.delete(name);
      }
      const s = this.shadow.get(name);
      if (s !== undefined) {
        this.shadow.delete(name);
        this.lengths.set(name, s);
        this.dangling.add(name);
        this.listener.truncate?.(name, s);
        return;
      }
      this.files.delete(name);
      this.lengths.delete(name);
      this.notFinalized.delete(name);
      this.dangling.delete(name);
      this.listener.remove?.(name);
    });
    return true;
  }

  // Renaming rewrites the index header page in one program: atomic. SPIFFS refuses
  // a name too long, a missing source, an existing target, and needs a descriptor.
  // Returns false on failure, as rename(2) does.
  rename(from: string, to: string): boolean {
    if (this.due("rename_false")) return false;
    try {
      Spiffs.checkName(to);
      Spiffs.checkName(from);
    } catch {
      return false;
    }
    if (!this.exists(from) || this.exists(to) || this.notFinalized.has(from) || this.openFiles >= MAX_OPEN) return false;
    if (this.due("spiffs_rename_tear")) {
      // the new header is written, the old one not yet deleted: both names
      // listed, one object (the real library, cut at that write)
      this.flash.program(this.partition, PAGE_BYTES, () => {
        this.files.set(to, this.files.get(from)!.slice());
        this.lengths.set(to, this.lengths.get(from)!);
        this.sharedWith.set(from, to);
        this.sharedWith.set(to, from);
        if (this.dangling.has(from)) this.dangling.add(to);
        this.listener.create?.(to);
        this.listener.write?.(to, 0, this.content(to));
      });
      this.flash.powerCutNow();
    }
    this.flash.program(this.partition, PAGE_BYTES, (kept) => {
      if (kept < PAGE_BYTES) return;
      this.files.set(to, this.files.get(from)!);
      this.lengths.set(to, this.lengths.get(from)!);
      this.files.delete(from);
      this.lengths.delete(from);
      const other = this.sharedWith.get(from);
      if (other !== undefined) {
        this.sharedWith.delete(from);
        this.sharedWith.set(to, other);
        this.sharedWith.set(other, to);
      }
      for (const set of [this.dangling, this.notFinalized]) if (set.delete(from)) set.add(to);
      const s = this.shadow.get(from);
      if (s !== undefined) {
        this.shadow.delete(from);
        this.shadow.set(to, s);
      }
      this.listener.rename?.(from, to);
    });
    return true;
  }

  // host only: load a file's bytes without counting traffic
  load(name: string, bytes: Uint8Array): void {
    this.files.set(name, bytes);
    this.lengths.set(name, bytes.length);
  }

  // "wb+" on an existing object (O_TRUNC): SPIFFS deletes its pages from the
  // end and keeps the name. The real library, cut inside, mostly leaves the
  // name with its length and pages deleted (reads fail): spiffs_rewrite_tear.
  truncate(name: string): void {
    if (this.length(name) > 0 && this.due("spiffs_rewrite_tear")) {
      this.flash.program(this.partition, 8, () => this.dangling.add(name));
      this.flash.powerCutNow();
    }
    this.flash.program(this.partition, 8, (kept) => {
      if (kept < 8) return;
      this.load(name, new Uint8Array(0));
      this.dangling.delete(name);
      this.shadow.delete(name);
      this.listener.truncate?.(name, 0);
    });
  }

  content(name: string): Uint8Array {
    return this.files.get(name)!.slice(0, this.length(name));
  }
}

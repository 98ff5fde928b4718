// A model of SPIFFS on a 3 MB partition: flat object names, page-granular space
// accounting, the ~75% of the partition that SPIFFS can reliably fill, and torn
// writes on power loss. File bytes live in RAM; host-sim/node persists them.

import { Flash } from "./flash.js";
import type { FaultOptions, SpiffsFault } from "./faults.js";

export const BLOCK_BYTES = 4096;
export const PAGE_BYTES = 256;
export const PAGE_HEADER_BYTES = 5; // object id, span index, flags
export const DATA_PER_PAGE = PAGE_BYTES - PAGE_HEADER_BYTES;
export const OBJ_NAME_MAX_BYTES = 31; // SPIFFS_OBJ_NAME_LEN 32, with its NUL
// pages an object index page maps: the header page also holds name and size
const IX_HEADER_ENTRIES = (PAGE_BYTES - 64) >> 1;
const IX_ENTRIES = (PAGE_BYTES - 8) >> 1;
export const USABLE_FRACTION = 0.75;

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

export class Spiffs {
  readonly files = new Map<string, Uint8Array>(); // name (with leading "/") -> content
  private lengths = new Map<string, number>(); // content may be over-allocated
  readonly totalPages: number;
  readonly usablePages: number;
  listener: SpiffsListener = {};

  // Fault injection (host-sim/faults.ts, SimDevice.inject).
  inject(kind: SpiffsFault, _opts: FaultOptions = {}): string {
    throw new Error(`${kind} is not modelled yet`);
  }

  constructor(readonly flash: Flash, readonly bytes = 3 * 1024 * 1024, readonly partition = "storage") {
    const blocks = Math.floor(bytes / BLOCK_BYTES);
    const perBlock = BLOCK_BYTES / PAGE_BYTES;
    this.totalPages = blocks * perBlock;
    this.usablePages = Math.floor(this.totalPages * USABLE_FRACTION);
  }

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

  list(): { name: string; length: number }[] {
    return [...this.lengths].map(([name, length]) => ({ name, length }));
  }

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
  }

  read(name: string, offset: number, count: number): Uint8Array {
    const len = this.length(name);
    const n = Math.max(0, Math.min(count, len - offset));
    this.flash.read(this.partition, n);
    return this.files.get(name)!.slice(offset, offset + n);
  }

  // A write that does not fit fails before anything is written (SPIFFS checks free
  // pages first). A power cut tears it: only a prefix reaches the file.
  write(name: string, offset: number, data: Uint8Array): void {
    const len = this.length(name);
    const newLen = Math.max(len, offset + data.length);
    if (this.usedPages() - pagesFor(len) + pagesFor(newLen) > this.usablePages)
      throw new SpiffsError("SPIFFS_ERR_FULL", "file system full");
    this.flash.program(this.partition, data.length, (kept) => {
      if (kept <= 0) return;
      const part = kept === data.length ? data : data.subarray(0, kept);
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
    });
  }

  // SPIFFS deletes from the end of an object backwards: a cut part way leaves a
  // shorter file under the same name.
  remove(name: string): boolean {
    if (!this.exists(name)) return false;
    const len = this.length(name);
    this.flash.program(this.partition, pagesFor(len) * PAGE_HEADER_BYTES, (kept) => {
      const total = pagesFor(len) * PAGE_HEADER_BYTES;
      if (kept >= total) {
        this.files.delete(name);
        this.lengths.delete(name);
        this.listener.remove?.(name);
      } else {
        const keep = Math.floor((len * (total - kept)) / total);
        this.lengths.set(name, keep);
        this.listener.truncate?.(name, keep);
      }
    });
    return true;
  }

  // Renaming rewrites the index header page in one program: atomic. SPIFFS refuses
  // to rename onto an existing name.
  rename(from: string, to: string): void {
    Spiffs.checkName(to);
    if (!this.exists(from)) throw new SpiffsError("SPIFFS_ERR_NOT_FOUND", "file not found");
    if (this.exists(to)) throw new SpiffsError("SPIFFS_ERR_CONFLICTING_NAME", "file exists");
    this.flash.program(this.partition, PAGE_BYTES, (kept) => {
      if (kept < PAGE_BYTES) return;
      this.files.set(to, this.files.get(from)!);
      this.lengths.set(to, this.lengths.get(from)!);
      this.files.delete(from);
      this.lengths.delete(from);
      this.listener.rename?.(from, to);
    });
  }

  // host only: load a file's bytes without counting traffic
  load(name: string, bytes: Uint8Array): void {
    this.files.set(name, bytes);
    this.lengths.set(name, bytes.length);
  }

  content(name: string): Uint8Array {
    return this.files.get(name)!.slice(0, this.length(name));
  }
}

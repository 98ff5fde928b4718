// Flash access for the archive: whole-file helpers and line scanning in chunks
// of at most 4 KB, forwards and backwards. A scan holds one chunk; lines never
// come from flash one by one.
//
// A scan hands on complete lines (their bytes end with "\n", which the
// callback does not see), or, in a damaged file, 4 KB pieces of a run of bytes
// with no newline; such pieces are never records.

import { File, Iterator, System } from "file";
import { NL } from "./line";

export const CHUNK = 4096;

export class ArchiveError extends Error {
  emptied = 0; // bytes of the file the device emptied (the "wb+" fallback of a failed write open)
  constructor(readonly code: "full" | "invalid" | "io", message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "ArchiveError", configurable: true, writable: true });
  }
}

// An index entry or signature that no longer checks out while the archive
// runs (a bit flipped at rest after boot): the index is reloaded (and so
// rebuilt) and the operation tried once more.
export class IndexDamage extends Error {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, "name", { value: "IndexDamage", configurable: true, writable: true });
  }
}

// Power cuts (host simulator) must not be caught by archive code.
export function rethrowFatal(e: unknown): void {
  if (e instanceof Error && e.name === "PowerCut") throw e;
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function exists(path: string): boolean {
  return File.exists(path);
}

// On SPIFFS every open and stat walks the file system: these open once.
export function openRead(path: string): File | undefined {
  try {
    return new File(path);
  } catch (e) {
    rethrowFatal(e);
    return undefined;
  }
}

export function fileLength(path: string): number {
  const f = openRead(path);
  if (!f) return 0;
  try {
    return f.length;
  } finally {
    f.close();
  }
}

// File.delete and File.rename return false on the device when they fail; the
// compaction steps that follow must not run then.
export function remove(path: string): void {
  if (!File.delete(path) && File.exists(path)) throw new ArchiveError("io", `archive: cannot delete ${path}`);
}

export function rename(from: string, to: string): void {
  if (!File.rename(from, to)) throw new ArchiveError("io", `archive: cannot rename ${from} to ${to}`);
}

// The files under the root, by full path, with their lengths: one walk of the
// file system instead of one per file.
export function listing(root: string): Map<string, number> | undefined {
  try {
    const it = new Iterator(root);
    const out = new Map<string, number>();
    for (let e = it.next(); e; e = it.next()) if (e.length !== undefined) out.set(root + e.name, e.length);
    return out;
  } catch (e) {
    rethrowFatal(e);
    return undefined;
  }
}

// Reads f[pos..pos+n) (n <= CHUNK) into buf[at..), returning the bytes read.
export function readInto(f: File, pos: number, n: number, buf: Uint8Array, at = 0): number {
  if (n <= 0) return 0;
  f.position = pos;
  const ab = f.read(ArrayBuffer, n) as ArrayBuffer;
  const got = new Uint8Array(ab);
  buf.set(got, at);
  return got.length;
}

// Writes bytes at pos (the end of the file when pos is undefined). Maps a full
// file system to ArchiveError("full").
export function writeAt(f: File, bytes: Uint8Array, pos?: number): void {
  f.position = pos === undefined ? f.length : pos;
  try {
    f.write(bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? (bytes.buffer as ArrayBuffer) : (bytes.slice().buffer as ArrayBuffer));
  } catch (e) {
    rethrowFatal(e);
    throw failure(e, bytes.length, "write failed");
  }
}

// SPIFFS is reliable up to about 75% of its partition (docs/FORMAT.md §1).
export const USABLE_FRACTION = 0.75;

// The ESP32 port reports a full file system only as "file write failed": the
// space left tells whether that is what happened.
function failure(e: unknown, needed: number, what: string): ArchiveError {
  const m = e instanceof Error ? e.message : String(e);
  let full = m.indexOf("full") >= 0;
  try {
    const info = System.info();
    if (info.used + needed + 2 * 256 > info.total * USABLE_FRACTION) full = true;
  } catch {
    // no information: keep the message's word
  }
  if (full) return new ArchiveError("full", `archive: the file system is full (${m})`);
  return new ArchiveError("io", `archive: ${what}: ${m}`);
}

// Opens a file that may already exist for appending at `expected`, its
// length as the archive knows it. Moddable's `new File(path, true)` falls back
// to fopen("wb+") when fopen("rb+") fails, and "wb+" empties an existing file:
// so an existing file is first opened for reading (a file that cannot be read
// now is never opened for writing), the write open follows at once, and a
// length other than `expected` stops the write before anything is written.
export function openAppend(path: string, expected: number): File {
  if (expected > 0 || File.exists(path)) {
    let r: File;
    try {
      r = new File(path);
    } catch (e) {
      rethrowFatal(e);
      throw new ArchiveError("io", `archive: cannot read ${path} (${messageOf(e)}); not written`);
    }
    let len: number;
    try {
      len = r.length;
    } finally {
      r.close();
    }
    if (len !== expected) throw new ArchiveError("io", `archive: ${path} is ${len} bytes, ${expected} expected; not written`);
  }
  const f = openWrite(path);
  if (f.length !== expected) {
    const len = f.length;
    f.close();
    const err = new ArchiveError("io", `archive: ${path} is ${len} bytes after its write open, ${expected} expected; not written`);
    if (len < expected) err.emptied = expected - len;
    throw err;
  }
  return f;
}

export function openWrite(path: string): File {
  try {
    return new File(path, true);
  } catch (e) {
    rethrowFatal(e);
    throw failure(e, 256, `cannot open ${path}`);
  }
}

// The end of the last complete line: bytes after it are a torn append.
export function validEnd(f: File, length: number, buf: Uint8Array): number {
  let end = length;
  while (end > 0) {
    const s = Math.max(0, end - CHUNK);
    const n = readInto(f, s, end - s, buf);
    const i = n > 0 ? buf.lastIndexOf(NL, n - 1) : -1;
    if (i >= 0) return s + i + 1;
    end = s;
  }
  return 0;
}

// Line callback: buf[s..e) is the line without its "\n", pos its offset in
// the file, size its bytes on flash (with the "\n"). Return false to stop.
export type OnSegment = (buf: Uint8Array, s: number, e: number, pos: number, size: number) => boolean | void;

// Calls on(buf, s, e, size, pos) for each line of f[start..end) (end: a line
// boundary); a run of 4 KB without a newline comes as one piece (size = e - s).
// `on` returning false stops the scan.
export function scanRange(f: File, start: number, end: number, buf: Uint8Array, on: (buf: Uint8Array, s: number, e: number, size: number, pos: number) => boolean | void): void {
  let pos = start, have = 0;
  while (pos < end) {
    const n = Math.min(CHUNK - have, end - pos - have);
    if (n > 0) {
      const k = readInto(f, pos + have, n, buf, have);
      if (k <= 0) throw new ArchiveError("io", "archive: short read");
      have += k;
    }
    let s = 0;
    for (;;) {
      const i = buf.indexOf(NL, s);
      if (i < 0 || i >= have) break;
      if (on(buf, s, i, i + 1 - s, pos + s) === false) return;
      s = i + 1;
    }
    if (s === 0) {
      // no newline in a full chunk (damage), or the last bytes before `end`
      if (on(buf, 0, have, have, pos) === false) return;
      s = have;
    }
    buf.copyWithin(0, s, have);
    pos += s;
    have -= s;
  }
}

// Scans f[start..end) backwards, newest line first. `start` must be a line
// boundary. Returns false if stopped.
export function scanBackward(f: File, end: number, buf: Uint8Array, on: OnSegment, start = 0): boolean {
  let skipLast = false; // the chunk's last segment continues a damaged run already passed on
  while (end > start) {
    const s0 = Math.max(start, end - CHUNK);
    const n = readInto(f, s0, end - s0, buf);
    let lineEnd = n; // exclusive, after the "\n"
    let consumed = false;
    for (;;) {
      const from = lineEnd - 2;
      const j = from >= 0 ? buf.lastIndexOf(NL, from) : -1;
      if (j < 0 && s0 > start) break; // this line starts before the chunk
      const ls = j + 1;
      const hasNl = lineEnd > 0 && buf[lineEnd - 1] === NL;
      if (skipLast) skipLast = false;
      else if (on(buf, ls, hasNl ? lineEnd - 1 : lineEnd, s0 + ls, lineEnd - ls) === false) return false;
      consumed = true;
      lineEnd = ls;
      if (ls === 0) break;
    }
    if (!consumed) {
      // a whole chunk inside one run without newline: damage
      if (!skipLast && on(buf, 0, n, s0, n) === false) return false;
      skipLast = true;
      end = s0;
      continue;
    }
    end = s0 + lineEnd;
  }
  return true;
}

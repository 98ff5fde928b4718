// Names that a power cut inside the real SPIFFS library left on one object
// (docs/DESIGN.md, "What the real SPIFFS leaves at a cut"; FORMAT.md §3.9).
//
// SPIFFS renames, and rewrites an index header (ESP-IDF's mtime update at
// every write open, a create, an append's new size), by writing a new header
// page and then deleting the old one. A cut between the two leaves two headers
// on ONE object: after a rename both names are listed; after a header rewrite
// the same name is listed twice. Deleting either name frees the pages the
// other still maps (it stays listed; its reads fail), and a name listed twice
// shows its stale header again once it is written through. So a name listed
// twice, or a name that may share its object with another, is never deleted
// while the other is needed: it is SETTLED first, by copies, never by rename:
//   1. its bytes are copied to `~<name>` with a footer (FORMAT.md §3.9);
//   2. the name is deleted until it is gone (every header of it);
//   3. its bytes are copied back from `~<name>` into a new object;
//   4. `~<name>` is deleted until it is gone.
// A cut anywhere leaves either the name whole (the temp without a valid
// footer is dropped at boot) or a temp with a valid footer, which boot copies
// back (steps 2 to 4 again). No step renames, so settling makes no new pair.
import { File, Iterator } from "file";
import { crc32 } from "../nvs/crc32";
import { rethrowFatal } from "./file";

const CHUNK = 4096;
const FOOT = 12; // "\n#cp", length (u32 LE), CRC-32 of the bytes (u32 LE)
const MARK = [0x0a, 0x23, 0x63, 0x70];
export const TEMP = "~";

function split(path: string): { dir: string; base: string } {
  const i = path.lastIndexOf("/");
  return { dir: path.slice(0, i + 1), base: path.slice(i + 1) };
}

export function tempOf(path: string): string {
  const { dir, base } = split(path);
  return dir + TEMP + base;
}

// Deletes every header of a name (a name listed twice needs two deletes).
export function removeAll(path: string): boolean {
  for (let i = 0; i < 4; i++) {
    if (!File.exists(path)) return true;
    File.delete(path);
  }
  return !File.exists(path);
}

function readAt(f: File, pos: number, n: number): Uint8Array {
  f.position = pos;
  const got = new Uint8Array(f.read(ArrayBuffer, n) as ArrayBuffer);
  if (got.length !== n) throw new Error("short read");
  return got;
}

// Copies `from`'s first `len` bytes to a new `to` (which must not exist), with
// the footer when `foot`. Returns the CRC of the bytes; throws on failure.
function copy(from: string, to: string, len: number, foot: boolean): number {
  let crc = 0;
  const src = new File(from);
  try {
    const dst = new File(to, true);
    try {
      for (let at = 0; at < len; at += CHUNK) {
        const b = readAt(src, at, Math.min(CHUNK, len - at));
        crc = crc32(b, 0, b.length, crc);
        dst.write(b.buffer as ArrayBuffer);
      }
      if (foot) {
        const t = new Uint8Array(FOOT);
        t.set(MARK, 0);
        new DataView(t.buffer).setUint32(4, len, true);
        new DataView(t.buffer).setUint32(8, crc, true);
        dst.write(t.buffer as ArrayBuffer);
      }
    } finally {
      dst.close();
    }
  } finally {
    src.close();
  }
  return crc;
}

// Opens a file, runs `fn` on it and closes it; undefined when it cannot be
// opened or read (a power cut still ends the world).
export function withFile(path: string, fn: (f: File, len: number) => number | undefined): number | undefined {
  let f: File | undefined;
  try {
    f = new File(path);
    return fn(f, f.length);
  } catch (e) {
    rethrowFatal(e);
    return undefined;
  } finally {
    try {
      f?.close();
    } catch {
      // closed
    }
  }
}

// The bytes a temp holds when its footer checks out, else undefined.
function tempLength(temp: string): number | undefined {
  return withFile(temp, (f, total) => {
    if (total < FOOT) return undefined;
    const len = total - FOOT;
    const t = readAt(f, len, FOOT);
    for (let i = 0; i < 4; i++) if (t[i] !== MARK[i]) return undefined;
    const dv = new DataView(t.buffer);
    if (dv.getUint32(4, true) !== len) return undefined;
    let crc = 0;
    for (let at = 0; at < len; at += CHUNK) {
      const b = readAt(f, at, Math.min(CHUNK, len - at));
      crc = crc32(b, 0, b.length, crc);
    }
    return crc === dv.getUint32(8, true) ? len : undefined;
  });
}

function readable(path: string): number | undefined {
  return withFile(path, (f, len) => {
    for (let at = 0; at < len; at += CHUNK) readAt(f, at, Math.min(CHUNK, len - at));
    return len;
  });
}

// Steps 2 to 4 from a temp whose footer checks out.
function restore(path: string, temp: string, len: number): boolean {
  if (!removeAll(path)) return false;
  copy(temp, path, len, false);
  return removeAll(temp);
}

// Settles `path` (steps 1 to 4). True when it is one name on its own object.
export function settle(path: string): boolean {
  try {
    const temp = tempOf(path);
    if (File.exists(temp)) {
      const have = tempLength(temp);
      if (have !== undefined) return restore(path, temp, have);
      if (!removeAll(temp)) return false;
    }
    const len = readable(path);
    if (len === undefined) return false; // nothing whole to keep: left as it is
    copy(path, temp, len, true);
    return restore(path, temp, len);
  } catch (e) {
    rethrowFatal(e);
    return false;
  }
}

// A copy of `from` made `to` (which must not exist), instead of a rename: no
// pair of names on one object can come of it. A cut leaves `to` shorter than
// `from` or not finalized; `from` is whole until the caller deletes it.
export function copyInto(from: string, to: string): boolean {
  try {
    const len = readable(from);
    if (len === undefined || !removeAll(to)) return false;
    copy(from, to, len, false);
    return readable(to) === len;
  } catch (e) {
    rethrowFatal(e);
    return false;
  }
}

// Whether two names hold the same bytes (a torn rename leaves them so: they may
// be one object). Cheap when the lengths differ.
export function sameBytes(a: string, b: string): boolean {
  let fa: File | undefined, fb: File | undefined;
  try {
    fa = new File(a);
    fb = new File(b);
    const len = fa.length;
    if (fb.length !== len) return false;
    for (let at = 0; at < len; at += CHUNK) {
      const n = Math.min(CHUNK, len - at);
      const x = readAt(fa, at, n), y = readAt(fb, at, n);
      for (let i = 0; i < n; i++) if (x[i] !== y[i]) return false;
    }
    return true;
  } catch (e) {
    rethrowFatal(e);
    return false;
  } finally {
    for (const f of [fa, fb])
      try {
        f?.close();
      } catch {
        // closed
      }
  }
}

// Before `stale` is deleted while `keep` is kept: when the two hold the same
// bytes they may be one object (a torn rename), so `keep` is settled first and
// `stale` is left on pages nobody else maps.
export function beforeDropping(stale: string, keep: string): void {
  if (File.exists(stale) && File.exists(keep) && sameBytes(stale, keep)) settle(keep);
}

// Boot, before anything reads or writes a file: finishes settles a cut
// interrupted, and settles every name listed twice. Returns what it did.
export function settleNames(root: string, prefix = ""): string[] {
  const done: string[] = [];
  const seen = new Map<string, number>();
  try {
    const it = new Iterator(root);
    for (let e = it.next(); e; e = it.next())
      if (e.length !== undefined && (e.name.indexOf(prefix) === 0 || e.name.indexOf(TEMP + prefix) === 0)) seen.set(e.name, (seen.get(e.name) ?? 0) + 1);
  } catch (e) {
    rethrowFatal(e);
    return done;
  }
  const dir = root.endsWith("/") ? root : root + "/";
  seen.forEach((n, name) => {
    if (name.indexOf(TEMP) !== 0) return;
    const path = dir + name.slice(TEMP.length), temp = dir + name;
    try {
      const have = tempLength(temp);
      if (have !== undefined) {
        if (restore(path, temp, have)) done.push(`${path}: copied back from ${name}`);
      } else if (readable(path) !== undefined && removeAll(temp)) done.push(`${name}: an unfinished copy dropped`);
    } catch (e) {
      rethrowFatal(e);
    }
    seen.delete(name.slice(TEMP.length));
  });
  seen.forEach((n, name) => {
    if (n < 2 || name.indexOf(TEMP) === 0) return;
    if (settle(dir + name)) done.push(`${dir + name}: listed twice, settled`);
  });
  return done;
}

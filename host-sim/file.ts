// The Moddable `file` module with the ESP32 SPIFFS port's behaviour
// (modules/files/file/esp32/modFile.c over ESP-IDF's esp_spiffs VFS): the same
// order of argument conversions and the same errors, statics that return false
// instead of throwing, five open files at most, and space, power loss and faults
// from the SPIFFS model (host-sim/spiffs.ts).

import { arg, toStr } from "./xs-args.js";
import { SimDevice } from "./device.js";
import { Spiffs, SpiffsError } from "./spiffs.js";
import config from "./mc/config.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

// SPIFFS_OBJ_NAME_LEN: the rename buffer is char toPath[MAX_FILENAME_LENGTH + 1]
const MAX_FILENAME_LENGTH = 32;


// xsmcToStringBuffer: toStr, then the bytes and a NUL must fit `size`
function toBuffer(v: unknown, size: number): string {
  const s = toStr(v);
  if (enc.encode(s).length + 1 > size) throw new RangeError("cannot buffer string");
  return s;
}

// xsmcToInteger: ToInt32 (NaN and infinities are 0); Symbol and BigInt throw TypeError
function toInt(v: unknown): number {
  if (typeof v === "symbol") throw new TypeError("cannot coerce symbol to integer");
  if (typeof v === "bigint") throw new TypeError("cannot coerce to integer");
  return +(v as number) | 0;
}

// xsmcGetBufferReadable/Writable: an ArrayBuffer, a byte-sized typed array or a DataView
function bufferOf(v: unknown): Uint8Array {
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (v instanceof DataView) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (ArrayBuffer.isView(v) && (v as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT === 1)
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new TypeError("invalid buffer");
}

// "/data/" -> "/data": the VFS mount point, with no trailing slash
function mountPoint(): string {
  const root = config.file.root;
  return root.endsWith("/") ? root.slice(0, -1) : root;
}

// The SPIFFS object name of a path ("/data/facts.jsonl" -> "/facts.jsonl"), or
// undefined when the VFS would not route the path to SPIFFS or SPIFFS cannot
// hold the name (every call then fails as the C call does).
function objectName(path: string): string | undefined {
  const mount = mountPoint();
  if (!path.startsWith(mount + "/") || path.length <= mount.length + 1) return undefined;
  const name = path.slice(mount.length);
  try {
    Spiffs.checkName(name);
  } catch {
    return undefined;
  }
  return name;
}

function spiffs(): Spiffs {
  const fs = SimDevice.current.spiffs;
  fs.flash.assertPowered();
  return fs;
}

// Anything else than a SpiffsError (a power cut) goes through unchanged.
function fsError(e: unknown, message: string): never {
  if (e instanceof SpiffsError) throw new Error(message);
  throw e;
}

export class File {
  #name: string;
  #position = 0;
  #open = true;
  #boot: number;
  #write: boolean;

  // xs_File: write = argc < 2 ? 0 : ToBoolean(arg 1), then ToString(arg 0); fopen
  // "rb+" (write) or "rb"; if that fails in write mode, fopen "wb+", which creates
  // the file, or truncates it when it exists but "rb+" failed (a read error).
  constructor(path: string, write?: boolean) {
    const w = arguments.length < 2 ? false : !!arguments[1];
    const p = toStr(arg(arguments, 0));
    const fs = spiffs();
    const name = objectName(p);
    if (name === undefined) throw new Error("file not found");
    let first: SpiffsError | undefined;
    try {
      if (fs.due("spiffs_read_error")) throw new SpiffsError("SPIFFS_ERR_READ", "read error");
      fs.open(name, false);
    } catch (e) {
      if (!(e instanceof SpiffsError)) throw e;
      first = e;
    }
    if (first) {
      // no descriptor or an object not finalized: "wb+" fails the same way
      if (!w || (first.code !== "SPIFFS_ERR_NOT_FOUND" && first.code !== "SPIFFS_ERR_READ")) throw new Error("file not found");
      try {
        fs.open(name, true);
      } catch (e) {
        fsError(e, "file not found");
      }
      if (first.code === "SPIFFS_ERR_READ" && fs.length(name) > 0) {
        try {
          truncate(fs, name);
        } catch (e) {
          fs.release();
          throw e;
        }
      }
    }
    // esp_spiffs: a write open updates the object's mtime (its index header is written anew)
    if (w && !first) {
      try {
        fs.touch(name);
      } catch (e) {
        fs.release();
        throw e;
      }
    }
    this.#name = name;
    this.#write = w;
    this.#boot = SimDevice.current.boots;
    void path;
    void write;
  }

  #fs(): Spiffs {
    if (!this.#open || this.#boot !== SimDevice.current.boots) throw new Error("closed");
    return spiffs();
  }

  get length(): number {
    return this.#fs().length(this.#name);
  }

  get position(): number {
    this.#fs();
    return this.#position;
  }

  // fseek(SEEK_SET): SPIFFS_lseek refuses a negative offset (the position stays)
  // and one past the end (the position becomes the end).
  set position(p: number) {
    const fs = this.#fs();
    const n = toInt(arg(arguments, 0));
    if (n < 0) return;
    this.#position = Math.min(n, fs.length(this.#name));
  }

  // xs_file_read: count = argc < 2 ? -1 : ToInteger(arg 1); at or past the end
  // throws before the type is looked at; the type is String, ArrayBuffer, or a
  // buffer to read into (the count clamped to it), which is returned.
  read(type: typeof String, count?: number): string;
  read(type: typeof ArrayBuffer, count?: number): ArrayBuffer;
  read<T extends ArrayBuffer | ArrayBufferView>(into: T, count?: number): T;
  read(type: typeof String | typeof ArrayBuffer | ArrayBuffer | ArrayBufferView, count?: number): string | ArrayBuffer | ArrayBufferView {
    const fs = this.#fs();
    const t = arg(arguments, 0);
    let n = arguments.length < 2 ? -1 : toInt(arguments[1]);
    const size = fs.length(this.#name);
    const pos = this.#position;
    if (n === -1 || size < pos + n) {
      if (pos >= size) throw new Error("read past end of file");
      n = size - pos;
    }
    if (n < 0) throw new RangeError("invalid count");
    let into: Uint8Array | undefined;
    if (t !== String && t !== ArrayBuffer) {
      into = bufferOf(t);
      if (n > into.length) n = into.length;
    }
    try {
      fs.checkRead(this.#name);
    } catch (e) {
      fsError(e, "file read failed");
    }
    const bytes = fs.read(this.#name, pos, n);
    this.#position = pos + bytes.length;
    if (t === String) return dec.decode(bytes);
    if (t === ArrayBuffer) return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    into!.set(bytes);
    return t as ArrayBuffer | ArrayBufferView;
  }

  // xs_file_write: each item in turn (string: its bytes; number: one byte; else
  // a buffer), then one flush. A read-only file fails at the first byte.
  write(...items: (string | number | ArrayBuffer | ArrayBufferView)[]): void {
    const fs = this.#fs();
    for (const item of items) {
      let bytes: Uint8Array;
      if (typeof item === "string") bytes = enc.encode(item);
      else if (typeof item === "number") bytes = Uint8Array.of(toInt(item) & 0xff);
      else bytes = bufferOf(item);
      if (!bytes.length) continue;
      if (!this.#write) throw new Error("file write failed");
      try {
        fs.write(this.#name, this.#position, bytes);
      } catch (e) {
        fsError(e, "file write failed");
      }
      this.#position += bytes.length;
    }
  }

  close(): void {
    const fs = this.#fs();
    this.#open = false;
    fs.release();
  }

  static exists(path: string): boolean {
    const p = toStr(arg(arguments, 0));
    const fs = spiffs();
    const name = objectName(p);
    return name !== undefined && fs.exists(name);
  }

  // unlink(): false when the file is missing, the name cannot be held, no
  // descriptor is free, or SPIFFS fails.
  static delete(path: string): boolean {
    const p = toStr(arg(arguments, 0));
    const fs = spiffs();
    const name = objectName(p);
    return name !== undefined && fs.remove(name);
  }

  // xs_file_rename: `to` into a 33-byte buffer first, then `from`. A `to` that is
  // not a full path is put after the last "/" of `from` in that buffer. Then
  // rename(): false when it fails (missing source, existing target, a name
  // SPIFFS cannot hold, no free descriptor).
  static rename(from: string, to: string): boolean {
    const t = toBuffer(arg(arguments, 1), MAX_FILENAME_LENGTH + 1);
    const f = toStr(arg(arguments, 0));
    let full = t;
    if (!t.startsWith("/")) {
      if (t.indexOf("/", 1) >= 0) throw new Error("invalid to");
      const slash = f.lastIndexOf("/");
      if (slash < 0) throw new Error("invalid from");
      const dir = f.slice(0, slash + 1);
      // the device strcpy()s `from` into the buffer first: past 32 bytes that overflows it
      if (enc.encode(f).length > MAX_FILENAME_LENGTH) throw new RangeError("cannot buffer string");
      full = dir + toBuffer(t, MAX_FILENAME_LENGTH + 1 - enc.encode(dir).length);
    }
    const fs = spiffs();
    const src = objectName(f), dst = objectName(full);
    if (src === undefined || dst === undefined) return false;
    return fs.rename(src, dst);
  }
}

// O_TRUNC on an existing object: SPIFFS deletes its pages and keeps the name.
function truncate(fs: Spiffs, name: string): void {
  fs.truncate(name);
}

// Lists the objects under a path. SPIFFS is flat: the VFS emulates folders by
// name prefix, so the mount point lists every object with its leading "/" cut
// and "ROOT/sub/" those named "/sub/…" (esp_spiffs.c vfs_spiffs_readdir_r).
export class Iterator {
  #entries: { name: string; length: number }[] | undefined;
  #at = 0;

  constructor(path: string) {
    const p = toStr(arg(arguments, 0));
    if (p.length === 0) throw new Error("bad path");
    const dirPath = p.endsWith("/") ? p : p + "/";
    const fs = spiffs();
    const mount = mountPoint();
    if (!dirPath.startsWith(mount + "/")) throw new Error("failed to open directory");
    const dir = dirPath.slice(mount.length); // "/" or "/sub/"
    const plen = enc.encode(dir).length;
    const entries: { name: string; length: number }[] = [];
    for (const e of fs.list()) {
      let name = e.name;
      if (plen > 1) {
        if (name.slice(0, dir.length).toLowerCase() !== dir.toLowerCase() || name[dir.length] !== "/" || name.length <= dir.length + 1) continue;
        name = name.slice(dir.length + 1);
      } else name = name.slice(1);
      entries.push({ name, length: e.length });
    }
    this.#entries = entries;
    void path;
  }

  next(): { name: string; length: number } | undefined {
    if (!this.#entries) return undefined;
    const e = this.#entries[this.#at++];
    if (!e) this.#entries = undefined;
    return e;
  }

  [Symbol.iterator](): { next(): IteratorResult<{ name: string; length: number }> } {
    return {
      next: () => {
        const v = this.next();
        return v ? { value: v, done: false } : { value: undefined, done: true };
      },
    };
  }
}

// SPIFFS has no directories: mkdir and rmdir fail (ENOTSUP) and Moddable says "failed".
export class Directory {
  static create(path: string): void {
    toStr(arg(arguments, 0));
    spiffs();
    throw new Error("failed");
  }
  static delete(path: string): void {
    toStr(arg(arguments, 0));
    spiffs();
    throw new Error("failed");
  }
}

export class System {
  static config(): { maxPathLength: number } {
    return { maxPathLength: MAX_FILENAME_LENGTH };
  }
  static info(): { used: number; total: number } {
    const s = spiffs().stats();
    return { used: s.used, total: s.total };
  }
}

const file = Object.freeze({ File, Iterator, Directory, System });
export default file;

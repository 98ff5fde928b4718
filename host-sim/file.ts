// The Moddable `file` module with the ESP32 SPIFFS port's behaviour
// (modules/files/file/esp32): flat names under the mount point, the device's
// short error strings, and space and power loss from the SPIFFS model.

import { SimDevice } from "./device.js";
import { Spiffs, SpiffsError } from "./spiffs.js";
import config from "./mc/config.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

// "/data/" -> "/data": the mount point, with no trailing slash
function mountPoint(): string {
  const root = config.file.root;
  return root.endsWith("/") ? root.slice(0, -1) : root;
}

// A full path to the SPIFFS object name ("/data/facts.jsonl" -> "/facts.jsonl").
function objectName(path: unknown, missing = "file not found"): string {
  const p = String(path);
  const mount = mountPoint();
  if (!p.startsWith(mount + "/") || p.length <= mount.length + 1) throw new Error(missing);
  const name = p.slice(mount.length);
  try {
    Spiffs.checkName(name);
  } catch {
    // fopen fails on a name SPIFFS cannot hold, and Moddable reports just that
    throw new Error(missing);
  }
  return name;
}

function spiffs(): Spiffs {
  return SimDevice.current.spiffs;
}

function fsError(e: unknown, fallback: string): never {
  if (e instanceof SpiffsError) {
    if (e.code === "SPIFFS_ERR_FULL") throw new Error("file write failed");
    if (e.code === "SPIFFS_ERR_NOT_FOUND") throw new Error("file not found");
    throw new Error(fallback);
  }
  throw e;
}

export class File {
  #name: string;
  #write: boolean;
  #position = 0;
  #open = true;
  #boot: number;

  constructor(path: string, write = false) {
    if (arguments.length < 1) throw new SyntaxError("C: xsArg(0): invalid index");
    const name = objectName(path);
    const fs = spiffs();
    fs.flash.assertPowered();
    if (!fs.exists(name)) {
      if (!write) throw new Error("file not found");
      try {
        fs.create(name);
      } catch (e) {
        fsError(e, "file open failed");
      }
    }
    this.#name = name;
    this.#write = !!write;
    this.#boot = SimDevice.current.boots;
  }

  #check(): Spiffs {
    if (!this.#open || this.#boot !== SimDevice.current.boots) throw new Error("closed");
    return spiffs();
  }

  get length(): number {
    return this.#check().length(this.#name);
  }

  get position(): number {
    this.#check();
    return this.#position;
  }

  set position(p: number) {
    this.#check();
    const n = Number(p);
    if (!Number.isInteger(n) || n < 0) throw new RangeError("invalid position");
    this.#position = n;
  }

  read(type: typeof String | typeof ArrayBuffer, count?: number): string | ArrayBuffer {
    const fs = this.#check();
    const len = fs.length(this.#name);
    if (this.#position >= len) throw new Error("read past end of file");
    let n = count === undefined ? len - this.#position : Number(count);
    if (!Number.isInteger(n) || n < 0) throw new RangeError("invalid count");
    n = Math.min(n, len - this.#position);
    const bytes = fs.read(this.#name, this.#position, n);
    this.#position += bytes.length;
    if (type === String) return dec.decode(bytes);
    if (type === ArrayBuffer) return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    throw new TypeError("invalid type");
  }

  write(...items: (string | number | ArrayBuffer | ArrayBufferView)[]): void {
    const fs = this.#check();
    if (!this.#write) throw new Error("file opened read-only");
    for (const item of items) {
      let bytes: Uint8Array;
      if (typeof item === "string") bytes = enc.encode(item);
      else if (typeof item === "number") bytes = Uint8Array.of(item & 0xff);
      else if (item instanceof ArrayBuffer) bytes = new Uint8Array(item);
      else if (item instanceof DataView || (ArrayBuffer.isView(item) && (item as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT === 1))
        bytes = new Uint8Array(item.buffer, item.byteOffset, item.byteLength);
      else throw new TypeError("invalid buffer");
      if (!bytes.length) continue;
      try {
        fs.write(this.#name, this.#position, bytes);
      } catch (e) {
        fsError(e, "file write failed");
      }
      this.#position += bytes.length;
    }
  }

  close(): void {
    this.#check();
    this.#open = false;
  }

  static exists(path: string): boolean {
    if (arguments.length < 1) throw new SyntaxError("C: xsArg(0): invalid index");
    const fs = spiffs();
    fs.flash.assertPowered();
    let name: string;
    try {
      name = objectName(path);
    } catch {
      return false;
    }
    return fs.exists(name);
  }

  static delete(path: string): boolean {
    if (arguments.length < 1) throw new SyntaxError("C: xsArg(0): invalid index");
    const name = objectName(path);
    const fs = spiffs();
    fs.flash.assertPowered();
    return fs.remove(name);
  }

  // `to` is a bare name (renamed in place) or a full path. The ESP32 port builds
  // the target path in a 32-byte buffer: the whole path, mount point included,
  // must fit in 31 bytes (and so must `from`, which it copies there first).
  static rename(from: string, to: string): void {
    if (arguments.length < 2) throw new SyntaxError("C: xsArg(1): invalid index");
    const f = String(from), t = String(to);
    if (enc.encode(f).length > 31) throw new RangeError("cannot buffer string");
    const src = objectName(f);
    let full: string;
    if (t.startsWith("/")) full = t;
    else {
      if (t.includes("/")) throw new Error("invalid to");
      full = mountPoint() + "/" + t;
    }
    if (enc.encode(full).length > 31) throw new RangeError("cannot buffer string");
    const dst = objectName(full);
    const fs = spiffs();
    fs.flash.assertPowered();
    try {
      fs.rename(src, dst);
    } catch (e) {
      fsError(e, "file rename failed");
    }
  }
}

// Lists the objects under the mount point. SPIFFS has no directories, so the
// path must be the root itself.
export class Iterator {
  #entries: { name: string; length: number }[];
  #at = 0;

  constructor(path: string) {
    if (arguments.length < 1) throw new SyntaxError("C: xsArg(0): invalid index");
    const p = String(path);
    const mount = mountPoint();
    if (p !== mount && p !== mount + "/") throw new Error("directory not found");
    const fs = spiffs();
    fs.flash.assertPowered();
    this.#entries = fs.list().map((e) => ({ name: e.name.slice(1), length: e.length }));
  }

  next(): { name: string; length: number } | undefined {
    return this.#entries[this.#at++];
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

// SPIFFS cannot make directories.
export class Directory {
  static create(path: string): void {
    void path;
    throw new Error("directories unsupported");
  }
  static delete(path: string): void {
    void path;
    throw new Error("directories unsupported");
  }
}

export class System {
  static config(): { maxPathLength: number } {
    return { maxPathLength: 32 };
  }
  static info(): { used: number; total: number } {
    const s = spiffs().stats();
    return { used: s.used, total: s.total };
  }
}

const file = Object.freeze({ File, Iterator, Directory, System });
export default file;

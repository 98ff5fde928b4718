// Fixed-size binary records described by a field list: encode and decode both
// come from the one description, so the bytes on flash and docs/FORMAT.md can
// be checked against a single table. Integers are little-endian (the ESP32's
// order). Strings are UTF-8, zero-padded to their field size, cut at a
// character boundary when longer, and end at the first zero byte.

import { encode, decode, boundary } from "../text/utf8";

export type Field =
  | { name: string; kind: "str"; bytes: number }
  | { name: string; kind: "strs"; bytes: number; count: number } // a list of up to `count` strings; empty slots unused
  | { name: string; kind: "u8" | "u16" | "u32" | "i8" | "i16" | "i32" }
  | { name: string; kind: "enum"; values: readonly string[] } // one byte: index into values
  | { name: string; kind: "bits"; parts: readonly BitPart[] }; // one byte, split into named parts

// A named part of a bit-field byte: a boolean when it has one bit and no values,
// otherwise one of `values` by the masked value shifted down.
export interface BitPart {
  name: string;
  mask: number;
  values?: readonly string[];
}

const INT_SIZE = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4 } as const;
const INT_RANGE = { u8: [0, 0xff], i8: [-0x80, 0x7f], u16: [0, 0xffff], i16: [-0x8000, 0x7fff], u32: [0, 0xffffffff], i32: [-0x80000000, 0x7fffffff] } as const;

export function fieldSize(f: Field): number {
  switch (f.kind) {
    case "str":
      return f.bytes;
    case "strs":
      return f.bytes * f.count;
    case "enum":
    case "bits":
      return 1;
    default:
      return INT_SIZE[f.kind];
  }
}

function shiftOf(mask: number): number {
  let s = 0;
  while (((mask >> s) & 1) === 0 && s < 8) s++;
  return s;
}

export type Rec = Record<string, unknown>;

export class Layout<T extends object = Rec> {
  readonly size: number;
  readonly offsets: number[] = [];

  constructor(readonly name: string, readonly fields: readonly Field[]) {
    let at = 0;
    for (const f of fields) {
      this.offsets.push(at);
      at += fieldSize(f);
    }
    this.size = at;
  }

  encode(rec: T, out: Uint8Array, at = 0): void {
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const r = rec as unknown as Rec;
    out.fill(0, at, at + this.size);
    this.fields.forEach((f, i) => {
      const o = at + this.offsets[i];
      const v = r[f.name];
      switch (f.kind) {
        case "str":
          writeStr(out, o, f.bytes, (v as string | undefined) ?? "");
          break;
        case "strs": {
          const list = (v as string[] | undefined) ?? [];
          if (list.length > f.count) throw new RangeError(`${this.name}.${f.name}: more than ${f.count}`);
          list.forEach((s, k) => writeStr(out, o + k * f.bytes, f.bytes, s));
          break;
        }
        case "enum": {
          const idx = f.values.indexOf((v as string | undefined) ?? f.values[0]);
          if (idx < 0) throw new RangeError(`${this.name}.${f.name}: not one of ${f.values.join("|")}: ${String(v)}`);
          out[o] = idx;
          break;
        }
        case "bits": {
          let byte = 0;
          for (const p of f.parts) {
            const pv = r[p.name];
            const shift = shiftOf(p.mask);
            let n: number;
            if (p.values) {
              n = p.values.indexOf((pv as string | undefined) ?? p.values[0]);
              if (n < 0) throw new RangeError(`${this.name}.${p.name}: not one of ${p.values.join("|")}: ${String(pv)}`);
            } else n = pv ? 1 : 0;
            byte |= (n << shift) & p.mask;
          }
          out[o] = byte;
          break;
        }
        default: {
          const n = (v as number | undefined) ?? 0;
          const [lo, hi] = INT_RANGE[f.kind];
          if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`${this.name}.${f.name}: ${String(n)} out of ${f.kind} range`);
          if (f.kind === "u8") view.setUint8(o, n);
          else if (f.kind === "i8") view.setInt8(o, n);
          else if (f.kind === "u16") view.setUint16(o, n, true);
          else if (f.kind === "i16") view.setInt16(o, n, true);
          else if (f.kind === "u32") view.setUint32(o, n, true);
          else view.setInt32(o, n, true);
        }
      }
    });
  }

  decode(bytes: Uint8Array, at = 0): T {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const r: Rec = {};
    this.fields.forEach((f, i) => {
      const o = at + this.offsets[i];
      switch (f.kind) {
        case "str":
          r[f.name] = readStr(bytes, o, f.bytes);
          break;
        case "strs": {
          const list: string[] = [];
          for (let k = 0; k < f.count; k++) {
            const s = readStr(bytes, o + k * f.bytes, f.bytes);
            if (s) list.push(s);
          }
          r[f.name] = list;
          break;
        }
        case "enum":
          // an index past the table (a newer firmware's value) reads as the first value
          r[f.name] = f.values[bytes[o]] ?? f.values[0];
          break;
        case "bits":
          for (const p of f.parts) {
            const n = (bytes[o] & p.mask) >> shiftOf(p.mask);
            r[p.name] = p.values ? p.values[n] ?? p.values[0] : n !== 0;
          }
          break;
        case "u8":
          r[f.name] = view.getUint8(o);
          break;
        case "i8":
          r[f.name] = view.getInt8(o);
          break;
        case "u16":
          r[f.name] = view.getUint16(o, true);
          break;
        case "i16":
          r[f.name] = view.getInt16(o, true);
          break;
        case "u32":
          r[f.name] = view.getUint32(o, true);
          break;
        case "i32":
          r[f.name] = view.getInt32(o, true);
          break;
      }
    });
    return r as T;
  }

  // A record as it reads back after a round-trip through flash: strings cut to
  // their field, missing fields at their zero value.
  normalize(rec: T): T {
    const b = new Uint8Array(this.size);
    this.encode(rec, b);
    return this.decode(b);
  }
}

function writeStr(out: Uint8Array, at: number, size: number, s: string): void {
  const b = encode(s);
  const n = boundary(b, size);
  out.set(n === b.length ? b : b.subarray(0, n), at);
}

function readStr(bytes: Uint8Array, at: number, size: number): string {
  let end = at;
  while (end < at + size && bytes[end] !== 0) end++;
  return end === at ? "" : decode(bytes.subarray(at, end));
}

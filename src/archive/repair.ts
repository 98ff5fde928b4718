// Single-bit repair with CRC-32 (docs/FORMAT.md "Single-bit repair", docs/DESIGN.md
// "Repairing a flipped bit"). The archive keeps one copy of a record, but every
// sealed block has a CRC-32 in its sidecar and every line of format 2 ends with
// its own: a single flipped bit is located from the CRC's syndrome and flipped
// back; two flipped bits are never taken for one.
//
// CRC-32 is affine: for two messages of the same length, crc(x ^ e) = crc(x) ^
// crc0(e), where crc0 is the CRC without its initial value and final xor. So the
// syndrome crc(received) ^ crc(sent) = crc0(e) depends only on the error. For a
// single bit at distance d from the end of the message (d = 0: the last bit the
// CRC takes in, the top bit of the last byte, bits being taken in from the least
// significant one), crc0 is the register after one 1 bit (the polynomial itself)
// followed by d zero bits: one shift and xor per bit, walked from d = 0 until it
// equals the syndrome. O(bits) time, nothing allocated.
//
// A bit index is absolute: byte * 8 + bit, bit 0 being the least significant
// (flip it back with buf[i >> 3] ^= 1 << (i & 7)).

import { crc32 } from "../nvs/crc32";

const POLY = 0xedb88320 | 0; // reflected IEEE polynomial, as an int32 so XS keeps every step an integer

// CRC-32 (IEEE) has Hamming distance 4 for messages up to 91,607 bits
// (Koopman, "32-Bit Cyclic Redundancy Codes for Internet Applications", 2002):
// within it every single-bit error is located, and two flipped bits never look
// like one (three rarely can: about 1 pattern in 130,000 for 4 KB). Above it two
// flips could be "repaired" into wrong data, so longer spans are not repaired.
export const REPAIR_MAX_BYTES = 11450; // floor(91,607 / 8)

// A line whose body is longer than this is not repaired (-1): up to here a body
// flip together with a hex digit flipped into another hex digit never looks like
// a single body flip (the first such pair is 22,407 bits from the end of the
// body, test/repair.test.ts). Lines are at most MAX_LINE_BYTES (512) anyway.
export const LINE_REPAIR_MAX_BYTES = 2048;

// The end of a format 2 line: `,"z":"` + 8 lowercase hex digits + `"}` (no "\n").
export const LINE_CRC_SUFFIX = 16;
const PRE = ',"z":"';
const POST = '"}';

function checkRange(buf: Uint8Array, s: number, e: number): void {
  if (!(buf instanceof Uint8Array)) throw new TypeError("repair: buf must be a Uint8Array");
  if (!Number.isInteger(s) || !Number.isInteger(e) || s < 0 || e < s || e > buf.length)
    throw new RangeError(`repair: bad range [${s}, ${e}) of ${buf.length} bytes`);
}

// The bit whose flip turns crc32(buf[s, e)) = c into crc, or -1; -2 if c === crc.
function locate(s: number, e: number, c: number, crc: number): number {
  const syndrome = (c ^ crc) | 0;
  if (syndrome === 0) return -2;
  const bits = (e - s) * 8;
  const p = POLY; // a local: the loop below is the whole cost of a repair
  let r = p;
  for (let d = 0; d < bits; d++) {
    if (r === syndrome) return e * 8 - 1 - d;
    r = r & 1 ? (r >>> 1) ^ p : r >>> 1;
  }
  return -1;
}

// If crc32(buf, s, e) !== crc: finds the single bit whose flip makes it match,
// flips it in place and returns its absolute bit index; -1 (buf untouched) if no
// single bit does (or [s, e) is longer than REPAIR_MAX_BYTES); -2 if it matched.
// Throws RangeError on a range outside buf.
export function repairBit(buf: Uint8Array, s: number, e: number, crc: number): number {
  checkRange(buf, s, e);
  const c = crc32(buf, s, e);
  if (c === crc >>> 0) return -2;
  if (e - s > REPAIR_MAX_BYTES) return -1;
  const at = locate(s, e, c, crc);
  if (at >= 0) buf[at >> 3] ^= 1 << (at & 7);
  return at;
}

// The bit (0-31) in which two CRC values differ if they differ in exactly one,
// else -1: when repairBit gives -1 and crcOneBitOff(crc32(buf, s, e), stored) >= 0,
// the data is whole and the flip is in the stored CRC itself.
export function crcOneBitOff(a: number, b: number): number {
  const x = (a ^ b) | 0;
  if (x === 0 || (x & (x - 1)) !== 0) return -1;
  return 31 - Math.clz32(x);
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

const hexDigit = (v: number) => (v < 10 ? 0x30 + v : 0x57 + v);
const oneBit = (x: number) => x !== 0 && (x & (x - 1)) === 0;
const bitOf = (x: number) => 31 - Math.clz32(x); // x has one bit set

// The byte the constant suffix must hold at position i (0-15) of `,"z":"hhhhhhhh"}`, or -1 for a hex digit.
function suffixByte(i: number): number {
  if (i < 6) return PRE.charCodeAt(i);
  if (i >= 14) return POST.charCodeAt(i - 14);
  return -1;
}

// The value of the 8 hex digits at buf[at, at + 8), or -1 if one is not a lowercase hex digit.
function hexAt(buf: Uint8Array, at: number): number {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const h = hexValue(buf[at + i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// Which constant byte of the suffix at b is off: -1 none, 0-15 that one, -2 more than one.
function suffixOff(buf: Uint8Array, b: number): number {
  let off = -1;
  for (let i = 0; i < LINE_CRC_SUFFIX; i++) {
    const k = suffixByte(i);
    if (k < 0 || buf[b + i] === k) continue;
    if (off >= 0) return -2;
    off = i;
  }
  return off;
}

// True when bytes [s, e) (without "\n") are a format 2 line whose CRC checks.
export function lineCrcOk(buf: Uint8Array, s: number, e: number): boolean {
  checkRange(buf, s, e);
  if (e - s < LINE_CRC_SUFFIX) return false;
  const b = e - LINE_CRC_SUFFIX;
  return suffixOff(buf, b) === -1 && crc32(buf, s, b) === hexAt(buf, b + 6);
}

// One format 2 line, bytes [s, e) without its "\n": -2 if it checks; else the
// absolute bit index of the one flipped bit, fixed in place (in the body, in a
// hex digit of its CRC, or in the constant `,"z":"` / `"}`); else -1, buf untouched.
export function repairLine(buf: Uint8Array, s: number, e: number): number {
  checkRange(buf, s, e);
  if (e - s < LINE_CRC_SUFFIX) return -1;
  const b = e - LINE_CRC_SUFFIX;
  const off = suffixOff(buf, b);
  if (off === -2) return -1;
  const c = crc32(buf, s, b);
  const stored = hexAt(buf, b + 6);
  if (off === -1 && stored === c) return -2;
  if (b - s > LINE_REPAIR_MAX_BYTES) return -1;
  if (off >= 0) {
    // one constant byte is off: it took the flip if one bit turns it back and the rest agrees
    const x = buf[b + off] ^ suffixByte(off);
    if (!oneBit(x) || stored !== c) return -1;
    buf[b + off] ^= x;
    return (b + off) * 8 + bitOf(x);
  }
  // the digits against those of the body's CRC
  let diff = -1;
  for (let i = 0; i < 8 && diff !== -2; i++)
    if (buf[b + 6 + i] !== hexDigit((c >>> (28 - 4 * i)) & 15)) diff = diff === -1 ? i : -2;
  if (diff >= 0) {
    // one digit differs: it took the flip if one bit turns it back (a body flip changes the
    // CRC in at least 6 bits this short, never in one digit alone)
    const at = b + 6 + diff;
    const x = buf[at] ^ hexDigit((c >>> (28 - 4 * diff)) & 15);
    if (!oneBit(x)) return -1;
    buf[at] ^= x;
    return at * 8 + bitOf(x);
  }
  // several digits differ: the flip can only be in the body, and the digits must be whole
  if (stored < 0) return -1;
  const at = locate(s, b, c, stored);
  if (at >= 0) buf[at >> 3] ^= 1 << (at & 7);
  return at;
}

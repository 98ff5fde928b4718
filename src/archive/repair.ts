// Single-bit repair with CRC-32 (docs/FORMAT.md "Single-bit repair", docs/DESIGN.md
// "Repairing a flipped bit"). The archive keeps one copy of a record, but every
// sealed block has a CRC-32 in its sidecar and every line (formats 2 to 4) ends with
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
import { Z_KEY, SUFFIX3, SUFFIX4, hexAt, hexDigit, b64At, b64Digit } from "./frame";

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

// The end of a format 2 or 3 line: `,"z":"` + 8 lowercase hex digits + `"}` (no "\n");
// of a format 4 line: `,"z":"` + 6 base64url characters + `"}` (src/archive/frame.ts).
export const LINE_CRC_SUFFIX = SUFFIX3;
export const LINE_CRC_SUFFIX4 = SUFFIX4;

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

const oneBit = (x: number) => x !== 0 && (x & (x - 1)) === 0;
const bitOf = (x: number) => 31 - Math.clz32(x); // x has one bit set

// A frame: its length, where its digits start, how many, and how they read and write.
interface Frame {
  len: number;
  digits: number;
  at(buf: Uint8Array, at: number): number; // the CRC the digits hold, or -1
  digit(crc: number, i: number): number; // digit i of crc as written
}
const HEX: Frame = { len: SUFFIX3, digits: 8, at: hexAt, digit: hexDigit };
const B64: Frame = { len: SUFFIX4, digits: 6, at: b64At, digit: b64Digit };

// The byte the constant part of frame f must hold at position i, or -1 for a digit.
function suffixByte(f: Frame, i: number): number {
  if (i < 6) return Z_KEY[i];
  if (i === f.len - 2) return 34;
  if (i === f.len - 1) return 125;
  return -1;
}

// Which constant byte of frame f at b is off: -1 none, that one's position, -2 more than one.
function suffixOff(f: Frame, buf: Uint8Array, b: number): number {
  let off = -1;
  for (let i = 0; i < f.len; i++) {
    const k = suffixByte(f, i);
    if (k < 0 || buf[b + i] === k) continue;
    if (off >= 0) return -2;
    off = i;
  }
  return off;
}

// True when bytes [s, e) (without "\n") are a line of format 2, 3 or 4 whose CRC checks.
export function lineCrcOk(buf: Uint8Array, s: number, e: number): boolean {
  checkRange(buf, s, e);
  for (const f of [B64, HEX]) {
    if (e - s < f.len) continue;
    const b = e - f.len;
    if (suffixOff(f, buf, b) === -1) return crc32(buf, s, b) === f.at(buf, b + 6);
  }
  return false;
}

// One line of format 2, 3 or 4, bytes [s, e) without its "\n": -2 if it checks;
// else the absolute bit index of the one flipped bit, fixed in place (in the
// body, in a digit of its CRC, or in the constant `,"z":"` / `"}`); else -1,
// buf untouched. The frame is the one whose constant bytes are whole or one
// byte off; a line within one byte of both (which one flip of a line of either
// never makes: the frames differ in 2 bytes and the other's digits are not
// whole) is not repaired.
export function repairLine(buf: Uint8Array, s: number, e: number): number {
  checkRange(buf, s, e);
  const o4 = e - s < SUFFIX4 ? -2 : suffixOff(B64, buf, e - SUFFIX4);
  const o3 = e - s < SUFFIX3 ? -2 : suffixOff(HEX, buf, e - SUFFIX3);
  if ((o4 === -2) === (o3 === -2)) return -1;
  const f = o4 === -2 ? HEX : B64, off = o4 === -2 ? o3 : o4;
  const b = e - f.len;
  const c = crc32(buf, s, b);
  const stored = f.at(buf, b + 6);
  if (off === -1 && stored === c) return -2;
  if (b - s > LINE_REPAIR_MAX_BYTES) return -1;
  if (off >= 0) {
    // one constant byte is off: it took the flip if one bit turns it back and the rest agrees
    const x = buf[b + off] ^ suffixByte(f, off);
    if (!oneBit(x) || stored !== c) return -1;
    buf[b + off] ^= x;
    return (b + off) * 8 + bitOf(x);
  }
  // the digits against those of the body's CRC
  let diff = -1;
  for (let i = 0; i < f.digits && diff !== -2; i++) if (buf[b + 6 + i] !== f.digit(c, i)) diff = diff === -1 ? i : -2;
  if (diff >= 0) {
    // one digit differs: it took the flip if one bit turns it back (a body flip changes the
    // CRC in at least 6 bits this short, never within one hex digit, nor one base64
    // character's 6 bits: test/repair.test.ts)
    const at = b + 6 + diff;
    const x = buf[at] ^ f.digit(c, diff);
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

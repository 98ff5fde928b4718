// The CRC field at the end of an archive line (docs/FORMAT.md §3.2). Formats 2
// and 3 end a line with the 16 bytes `,"z":"hhhhhhhh"}`: the CRC-32 of every
// byte before `,"z":"` as 8 lowercase hex digits. Format 4 ends it with the 14
// bytes `,"z":"bbbbbb"}`: the same CRC-32 as 6 base64url characters (RFC 4648
// §5, `A`-`Z` `a`-`z` `0`-`9` `-` `_`), the base64url of its 4 bytes, most
// significant first, without `=` padding: the 32 bits followed by 4 zero bits,
// 6 bits a character; the last character holds the CRC's 2 lowest bits and 4
// zero bits (one of `A`, `Q`, `g`, `w`).
//
// Which frame a line has is said by its own bytes: format 4's `,"z":"` is at
// 14 bytes from the end, where format 3's has `z`, not `,` (and 12 bytes from
// the end, format 3 has `:`, format 4 `z`): no line ends in both, and one
// flipped bit never turns one frame's constant bytes into the other's.

import { ascii } from "../text/utf8";

export const Z_KEY = ascii(',"z":"');
export const SUFFIX3 = 16; // ,"z":"hhhhhhhh"}
export const SUFFIX4 = 14; // ,"z":"bbbbbb"}

const B64 = ascii("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");

// The value (0-63) of a base64url character, -1 for any other byte.
export function b64Value(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  if (c === 45) return 62;
  if (c === 95) return 63;
  return -1;
}

// Character i (0-5) of the base64url of crc.
export function b64Digit(crc: number, i: number): number {
  return B64[i < 5 ? (crc >>> (26 - 6 * i)) & 63 : (crc & 3) << 4];
}

export function putB64(b: Uint8Array, at: number, crc: number): void {
  for (let i = 0; i < 6; i++) b[at + i] = b64Digit(crc, i);
}

// The CRC in the 6 characters at b[at, at + 6), or -1 when one is not base64url
// or the last one's 4 padding bits are not zero.
export function b64At(b: Uint8Array, at: number): number {
  let v = 0;
  for (let i = 0; i < 5; i++) {
    const d = b64Value(b[at + i]);
    if (d < 0) return -1;
    v = v * 64 + d;
  }
  const d = b64Value(b[at + 5]);
  if (d < 0 || d & 15) return -1;
  return v * 4 + (d >> 4);
}

// Hex digit i (0-7) of crc, lowercase.
export function hexDigit(crc: number, i: number): number {
  const d = (crc >>> (28 - 4 * i)) & 15;
  return d < 10 ? 48 + d : 87 + d;
}

export function putHex(b: Uint8Array, at: number, crc: number): void {
  for (let i = 0; i < 8; i++) b[at + i] = hexDigit(crc, i);
}

// The value of the 8 lowercase hex digits at b[at, at + 8), or -1.
export function hexAt(b: Uint8Array, at: number): number {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = b[at + i];
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// The frame of the line b[s, e) (without "\n"): 4 when it ends with format 4's
// constant bytes, 3 with those of formats 2 and 3, 0 with neither.
export function frameOf(b: Uint8Array, s: number, e: number): number {
  if (e - s < SUFFIX4 || b[e - 1] !== 125 || b[e - 2] !== 34) return 0;
  let z = e - SUFFIX4, i = 0;
  while (i < 6 && b[z + i] === Z_KEY[i]) i++;
  if (i === 6) return 4;
  if (e - s < SUFFIX3) return 0;
  z = e - SUFFIX3;
  for (i = 0; i < 6; i++) if (b[z + i] !== Z_KEY[i]) return 0;
  return 3;
}

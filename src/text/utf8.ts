// UTF-8 helpers. On the device strings are indexed by code point and on Node by
// UTF-16 unit, so byte lengths are always measured on encoded bytes.

import TextEncoder from "text/encoder";
import TextDecoder from "text/decoder";

// Module top levels run at build time when preloaded (manifest.json), where no
// native function may be called: TextEncoder's constructor is plain JS (the
// instance then lives in flash), TextDecoder's is native, so the decoder is
// made at first use. Constants that need bytes at load time use ascii().
const encoder = new TextEncoder();
let decoder: InstanceType<typeof TextDecoder> | undefined;

// The bytes of an ASCII string, in plain JS (safe in a preloaded module's top level).
export function ascii(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 0x7f;
  return b;
}

export function encode(s: string): Uint8Array {
  return encoder.encode(s);
}

export function decode(bytes: Uint8Array): string {
  return (decoder ??= new TextDecoder()).decode(bytes);
}

export function byteLength(s: string): number {
  return encoder.encode(s).length;
}

// The largest prefix of `bytes` of at most `max` bytes that ends on a character
// boundary: never cuts inside a multi-byte sequence.
export function boundary(bytes: Uint8Array, max: number): number {
  if (bytes.length <= max) return bytes.length;
  let cut = max;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return cut;
}

// `s` cut to at most `max` UTF-8 bytes at a character boundary.
export function truncate(s: string, max: number): string {
  const b = encoder.encode(s);
  if (b.length <= max) return s;
  return (decoder ??= new TextDecoder()).decode(b.subarray(0, boundary(b, max)));
}

// Whether bytes are well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
export function isWellFormed(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    let n = 0, min = 0, cp = 0;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xe0) === 0xc0) (n = 1), (min = 0x80), (cp = c & 0x1f);
    else if ((c & 0xf0) === 0xe0) (n = 2), (min = 0x800), (cp = c & 0x0f);
    else if ((c & 0xf8) === 0xf0) (n = 3), (min = 0x10000), (cp = c & 0x07);
    else return false;
    if (i + n >= b.length) return false;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

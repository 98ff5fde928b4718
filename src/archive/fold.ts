// Keyword matching on raw UTF-8 bytes, and the block signatures of the sidecar
// index (docs/FORMAT.md §3.3).
//
// Folding makes a match case-insensitive for Latin letters (ASCII and Latin-1)
// and lets full-width ASCII (U+FF01–U+FF5E) match half-width; every other
// character, Chinese included, must match exactly. Folding never makes bytes
// longer, so it works in place into a buffer as long as its input.
//
// A signature is a small Bloom filter over the folded characters of a block's
// contents and topics: every bigram, and every non-ASCII character on its own.
// A keyword can only occur in a block whose signature holds all of its own
// bigrams and non-ASCII characters.

import { encode } from "../text/utf8";

export const SIG_BYTES = 256;
const SIG_MASK = SIG_BYTES * 8 - 1;
export const SIG_HASHES = 2;

// Folds src[s..e) into out[0..), returning the folded length.
export function foldBytes(src: Uint8Array, s: number, e: number, out: Uint8Array): number {
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = src[i];
    if (c < 0x80) {
      out[n++] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
    } else if (c === 0xef && i + 2 < e && (src[i + 1] === 0xbc || src[i + 1] === 0xbd)) {
      const c1 = src[i + 1], c2 = src[i + 2];
      // U+FF01–U+FF3F: EF BC 81–BF; U+FF40–U+FF5E: EF BD 80–9E
      const cp = c1 === 0xbc ? (c2 >= 0x81 && c2 <= 0xbf ? 0xff00 + (c2 - 0x80) : -1) : c2 >= 0x80 && c2 <= 0x9e ? 0xff40 + (c2 - 0x80) : -1;
      if (cp < 0) {
        out[n++] = c;
        continue;
      }
      const a = cp - 0xfee0;
      out[n++] = a >= 0x41 && a <= 0x5a ? a + 0x20 : a;
      i += 2;
    } else if (c === 0xc3 && i + 1 < e && src[i + 1] >= 0x80 && src[i + 1] <= 0x9e && src[i + 1] !== 0x97) {
      out[n++] = c;
      out[n++] = src[i + 1] + 0x20;
      i++;
    } else {
      out[n++] = c;
    }
  }
  return n;
}

export function foldString(s: string): Uint8Array {
  const b = encode(s);
  const n = foldBytes(b, 0, b.length, b);
  return b.subarray(0, n);
}

// Index of needle in hay[s..e), or -1.
export function findBytes(hay: Uint8Array, s: number, e: number, needle: Uint8Array): number {
  const n = needle.length;
  if (n === 0) return s;
  const first = needle[0];
  const last = e - n;
  let i = s;
  while (i <= last) {
    i = hay.indexOf(first, i);
    if (i < 0 || i > last) return -1;
    let k = 1;
    while (k < n && hay[i + k] === needle[k]) k++;
    if (k === n) return i;
    i++;
  }
  return -1;
}

// Does `text`, folded, contain the folded keyword?
export function containsFolded(text: string, folded: Uint8Array): boolean {
  const t = foldString(text);
  return findBytes(t, 0, t.length, folded) >= 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// The hash of an element: a bigram (a, b), or a character b alone (a = 0).
function elementHash(a: number, b: number): number {
  return fmix(Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 1, 0x85ebca77));
}

// Calls fn(hash) for every element of folded UTF-8 text.
function elements(folded: Uint8Array, n: number, fn: (h: number) => void): void {
  let prev = -1;
  for (let i = 0; i < n; ) {
    const c = folded[i];
    let cp: number, len: number;
    if (c < 0x80) (cp = c), (len = 1);
    else if (c >= 0xf0) (cp = ((c & 7) << 18) | ((folded[i + 1] & 63) << 12) | ((folded[i + 2] & 63) << 6) | (folded[i + 3] & 63)), (len = 4);
    else if (c >= 0xe0) (cp = ((c & 15) << 12) | ((folded[i + 1] & 63) << 6) | (folded[i + 2] & 63)), (len = 3);
    else if (c >= 0xc0) (cp = ((c & 31) << 6) | (folded[i + 1] & 63)), (len = 2);
    else (cp = c), (len = 1); // a stray continuation byte: taken as it is
    i += len;
    if (cp >= 0x80) fn(elementHash(0, cp));
    if (prev >= 0) fn(elementHash(prev, cp));
    prev = cp;
  }
}

// Adds the elements of one text (a content or a topic) to the signature at sig[off..off+SIG_BYTES).
// `mask`: the signature's bits less one (a power of two): a block signature
// has 2048 bits, a segment summary 16384 (docs/FORMAT.md §3).
// The same bits as elements() and elementHash() give, written out in one loop:
// it runs for every line indexed or read into a signature, and a call per
// element (a callback, the hash's helpers) is most of its time in XS.
export function sigAdd(sig: Uint8Array, off: number, text: string, mask = SIG_MASK): void {
  const f = foldString(text);
  const n = f.length;
  let prev = -1;
  for (let i = 0; i < n; ) {
    const c = f[i];
    let cp: number;
    if (c < 0x80) (cp = c), i++;
    else if (c >= 0xf0) (cp = ((c & 7) << 18) | ((f[i + 1] & 63) << 12) | ((f[i + 2] & 63) << 6) | (f[i + 3] & 63)), (i += 4);
    else if (c >= 0xe0) (cp = ((c & 15) << 12) | ((f[i + 1] & 63) << 6) | (f[i + 2] & 63)), (i += 3);
    else if (c >= 0xc0) (cp = ((c & 31) << 6) | (f[i + 1] & 63)), (i += 2);
    else (cp = c), i++; // a stray continuation byte: taken as it is
    const b1 = Math.imul(cp + 1, 0x85ebca77);
    let h: number, p1: number, p2: number;
    if (cp >= 0x80) {
      // the character alone: elementHash(0, cp)
      h = b1;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      p1 = h & mask;
      p2 = (h >>> 16) & mask;
      sig[off + (p1 >> 3)] |= 1 << (p1 & 7);
      sig[off + (p2 >> 3)] |= 1 << (p2 & 7);
    }
    if (prev >= 0) {
      // the bigram: elementHash(prev, cp)
      h = Math.imul(prev, 0x9e3779b1) ^ b1;
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      p1 = h & mask;
      p2 = (h >>> 16) & mask;
      sig[off + (p1 >> 3)] |= 1 << (p1 & 7);
      sig[off + (p2 >> 3)] |= 1 << (p2 & 7);
    }
    prev = cp;
  }
}

// The bits a keyword needs in a signature (an empty list: every block may match).
export function sigProbe(folded: Uint8Array, mask = SIG_MASK): Uint16Array {
  const bits: number[] = [];
  elements(folded, folded.length, (h) => {
    const p1 = h & mask, p2 = (h >>> 16) & mask;
    if (bits.indexOf(p1) < 0) bits.push(p1);
    if (bits.indexOf(p2) < 0) bits.push(p2);
  });
  return Uint16Array.from(bits);
}

export function sigHas(sig: Uint8Array, off: number, probe: Uint16Array): boolean {
  for (let i = 0; i < probe.length; i++) {
    const p = probe[i];
    if ((sig[off + (p >> 3)] & (1 << (p & 7))) === 0) return false;
  }
  return true;
}

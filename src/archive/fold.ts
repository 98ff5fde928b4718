// Keyword matching on raw UTF-8 bytes, and the block signatures of the sidecar
// index (docs/FORMAT.md §3.3).
//
// Folding makes a match case-insensitive for Latin letters (ASCII and Latin-1)
// and lets full-width ASCII (U+FF01–U+FF5E) match half-width; every other
// character, Chinese included, must match exactly. Folding never makes bytes
// longer, so it works in place into a buffer as long as its input.
//
// A signature is a small Bloom filter over the folded characters of a block's
// contents and topics: every bigram, and every non-ASCII character on its own
// (element set 0); element set 1 adds every printable ASCII character on its
// own and, for each run of ASCII digits, its first and last digit and the
// whole run (docs/FORMAT.md §3.4). Set 1 holds every element of set 0, so
// a signature written with set 1 answers a probe of set 0 as before.
// A keyword can only occur in a block whose signature holds all of its own
// elements of the signature's set.
//
// Words to look for (src/query/run.ts wordsOf) are folded UTF-8 with two
// bytes no UTF-8 text holds: 0xFF, one character not known (LIKE's `_`), and
// 0xFE, the start or end of the text (a LIKE pattern without `%` there).

import { encode } from "../text/utf8";

export const SIG_BYTES = 256;
const SIG_MASK = SIG_BYTES * 8 - 1;
export const SIG_HASHES = 2;
// the element set sigAdd writes
export const ELEMENTS = 1;
// bytes of a word to look for that no folded text holds
export const ANY_CHAR = 0xff;
export const TEXT_EDGE = 0xfe;
// a digit run gives elements of its own: its first and its last EDGE_DIGITS
// digits, and itself whole when of at most RUN_DIGITS (docs/design/query-scan.md
// says why not more)
const EDGE_DIGITS = 1;
const EDGE_MOD = 10; // 10 ** EDGE_DIGITS
const RUN_DIGITS = 8;
// probe layout (sigHas): set 0's bits, then SET1, set 1's further bits, then
// alternatives, each after ALT: one of them must be held whole
const SET1 = 0xffff;
const ALT = 0xfffe;

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

// The hash of a digit run's element: `kind` 1 its first digit, 2 its last
// digit, 3 the whole run (n digits); v their value.
function runHash(kind: number, n: number, v: number): number {
  return elementHash(0x110000 + kind * 16 + n, v);
}

// A digit run's element sets 3 bits (the third from the hash multiplied
// again): a block holds a run of digits in nearly every record when it holds
// one in any, and a `_` beside a digit is looked for as 11 alternatives.
function third(h: number, mask: number): number {
  return (Math.imul(h, 0x9e3779b1) >>> 11) & mask;
}

// Sets the 3 bits of runHash(kind, n, v), the hash written out (this runs
// under sigAdd, on the device's deepest call chains: no further calls).
function setRun(sig: Uint8Array, off: number, kind: number, n: number, v: number, mask: number): void {
  let h = Math.imul(0x110000 + kind * 16 + n, 0x9e3779b1) ^ Math.imul(v + 1, 0x85ebca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  const p1 = h & mask, p2 = (h >>> 16) & mask, p3 = (Math.imul(h, 0x9e3779b1) >>> 11) & mask;
  sig[off + (p1 >> 3)] |= 1 << (p1 & 7);
  sig[off + (p2 >> 3)] |= 1 << (p2 & 7);
  sig[off + (p3 >> 3)] |= 1 << (p3 & 7);
}

// The trailing and whole elements of a run of n digits that has ended: `lead`
// its first (up to RUN_DIGITS) digits' value, `tail` its last EDGE_DIGITS'.
function endRun(sig: Uint8Array, off: number, n: number, lead: number, tail: number, mask: number): void {
  let m = 10;
  for (let i = 1; i <= n && i <= EDGE_DIGITS; i++, m *= 10) setRun(sig, off, 2, i, tail % m, mask);
  if (n <= RUN_DIGITS) setRun(sig, off, 3, n, lead, mask);
}

// Adds the elements of one text (a content or a topic) to the signature at sig[off..off+SIG_BYTES).
// `mask`: the signature's bits less one (a power of two): a block signature
// has 2048 bits, a segment summary 16384 (docs/FORMAT.md §3). `set`: the
// element set (a summary made again for a catalog entry of set 0 is made with it).
// The same bits as elementHash() gives, written out in one loop: it runs for
// every line indexed or read into a signature, and a call per element (a
// callback, the hash's helpers) is most of its time in XS; digits, rarer,
// call out.
export function sigAdd(sig: Uint8Array, off: number, text: string, mask = SIG_MASK, set = ELEMENTS): void {
  const f = foldString(text);
  const n = f.length;
  let prev = -1;
  let run = 0, lead = 0, tail = 0; // the digit run going on
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
    if (cp >= 0x80 || (set > 0 && cp > 0x20 && cp < 0x7f)) {
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
    if (set > 0) {
      if (cp >= 0x30 && cp <= 0x39) {
        run++;
        tail = (tail * 10 + cp - 0x30) % EDGE_MOD;
        if (run <= RUN_DIGITS) lead = lead * 10 + cp - 0x30;
        if (run <= EDGE_DIGITS) setRun(sig, off, 1, run, lead, mask);
      } else if (run) {
        endRun(sig, off, run, lead, tail, mask);
        run = lead = tail = 0;
      }
    }
  }
  if (run) endRun(sig, off, run, lead, tail, mask);
}

// ---- probes ----------------------------------------------------------------------------------

const NOT_DIGIT = -3; // a character not known but for not being a digit (a probe's alternative)
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

// A word to look for as code points, -1 for ANY_CHAR, -2 for TEXT_EDGE;
// undefined when it is not whole characters (nothing is sure).
function codePoints(w: Uint8Array): number[] | undefined {
  const cps: number[] = [];
  for (let i = 0; i < w.length; ) {
    const c = w[i];
    if (c === ANY_CHAR || c === TEXT_EDGE) {
      cps.push(c === ANY_CHAR ? -1 : -2);
      i++;
    } else if (c < 0x80) cps.push(c), i++;
    else if (c >= 0xf0 && c < 0xf8 && i + 3 < w.length) cps.push(((c & 7) << 18) | ((w[i + 1] & 63) << 12) | ((w[i + 2] & 63) << 6) | (w[i + 3] & 63)), (i += 4);
    else if (c >= 0xe0 && c < 0xf0 && i + 2 < w.length) cps.push(((c & 15) << 12) | ((w[i + 1] & 63) << 6) | (w[i + 2] & 63)), (i += 3);
    else if (c >= 0xc0 && c < 0xe0 && i + 1 < w.length) cps.push(((c & 31) << 6) | (w[i + 1] & 63)), (i += 2);
    else return undefined;
  }
  return cps;
}

function put(bits: number[], h: number, mask: number): void {
  const p1 = h & mask, p2 = (h >>> 16) & mask;
  if (bits.indexOf(p1) < 0) bits.push(p1);
  if (bits.indexOf(p2) < 0) bits.push(p2);
}

function putRun(bits: number[], h: number, mask: number): void {
  put(bits, h, mask);
  const p3 = third(h, mask);
  if (bits.indexOf(p3) < 0) bits.push(p3);
}

// The elements of the digit runs of a word (code points as codePoints gives
// them) that every text holding it holds: a run's leading digits when what
// comes before it is known not to be a digit (a character, the text's start),
// its trailing digits when what follows is, the whole run when both are.
function runBits(cps: readonly number[], bits: number[], mask: number): void {
  const n = cps.length;
  const bound = (c: number) => c === -2 || c === NOT_DIGIT || (c >= 0 && !isDigit(c));
  for (let i = 0; i < n; ) {
    if (!isDigit(cps[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && isDigit(cps[j])) j++;
    const left = i > 0 && bound(cps[i - 1]), right = j < n && bound(cps[j]);
    const len = j - i;
    const r = len < EDGE_DIGITS ? len : EDGE_DIGITS;
    let lead = 0, whole = 0, tail = 0, m = 1;
    for (let k = i; k < i + r; k++) lead = lead * 10 + cps[k] - 0x30;
    for (let k = i; k < j && k < i + RUN_DIGITS; k++) whole = whole * 10 + cps[k] - 0x30;
    for (let k = j - 1; k >= j - r; k--, m *= 10) tail += (cps[k] - 0x30) * m;
    if (left && right && len <= RUN_DIGITS) putRun(bits, runHash(3, len, whole), mask);
    else {
      if (left) putRun(bits, runHash(1, r, lead), mask);
      if (right) putRun(bits, runHash(2, r, tail), mask);
    }
    i = j;
  }
}

// What a signature must hold for a text to hold every word: a probe for
// sigHas. Set 0's bits first (every non-ASCII character alone and every two
// neighbours known, as before), then SET1 and the further bits of set 1
// (printable ASCII alone; digit runs, runBits), then, when a word has a `_`
// beside a digit (the first such of all the words), one alternative per
// character it may be: each digit, and any other character. Empty when no
// word has an element (a single ASCII character, for set 0): nothing is ruled out.
export function probeOf(words: readonly Uint8Array[], mask = SIG_MASK): Uint16Array {
  const set0: number[] = [], set1: number[] = [];
  let alts: number[][] | undefined;
  for (const w of words) {
    const cps = codePoints(w);
    if (!cps) continue;
    let prev = -1;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (c < 0) {
        prev = -1;
        continue;
      }
      if (c >= 0x80) put(set0, elementHash(0, c), mask);
      else if (c > 0x20 && c < 0x7f) put(set1, elementHash(0, c), mask);
      if (prev >= 0) put(set0, elementHash(prev, c), mask);
      prev = c;
    }
    let k = -1;
    if (!alts) for (let i = 0; i < cps.length && k < 0; i++) if (cps[i] === -1 && ((i > 0 && isDigit(cps[i - 1])) || (i + 1 < cps.length && isDigit(cps[i + 1])))) k = i;
    if (k < 0) {
      runBits(cps, set1, mask);
      continue;
    }
    alts = [];
    for (let d = 0; d <= 10 && alts; d++) {
      cps[k] = d < 10 ? 0x30 + d : NOT_DIGIT;
      const a: number[] = [];
      runBits(cps, a, mask);
      if (a.length) alts.push(a);
      else alts = undefined; // one that holds nothing of its own: every text may be it
    }
    cps[k] = -1;
    if (!alts) runBits(cps, set1, mask);
  }
  const out = set0.slice();
  if (set1.length || alts) out.push(SET1);
  for (const b of set1) if (set0.indexOf(b) < 0) out.push(b);
  if (alts) for (const a of alts) out.push(ALT, ...a);
  return Uint16Array.from(out);
}

// The bits a probe reads, sorted, once each (a bit-sliced group reads a byte per bit).
export function probePositions(probe: Uint16Array): Uint16Array {
  const out: number[] = [];
  for (let i = 0; i < probe.length; i++) if (probe[i] < ALT && out.indexOf(probe[i]) < 0) out.push(probe[i]);
  return Uint16Array.from(out).sort();
}

// Whether the signature at sig[off..) may hold the words of `probe`: every
// bit of set 0, and for a signature of element set 1 (`set`) every further
// bit and every bit of one alternative.
export function sigHas(sig: Uint8Array, off: number, probe: Uint16Array, set = 0): boolean {
  const n = probe.length;
  let i = 0;
  for (; i < n; i++) {
    const p = probe[i];
    if (p >= ALT) break;
    if ((sig[off + (p >> 3)] & (1 << (p & 7))) === 0) return false;
  }
  if (i === n || set === 0) return true;
  for (i++; i < n && probe[i] !== ALT; i++) {
    const p = probe[i];
    if ((sig[off + (p >> 3)] & (1 << (p & 7))) === 0) return false;
  }
  if (i === n) return true;
  while (i < n) {
    let ok = true;
    for (i++; i < n && probe[i] !== ALT; i++) {
      const p = probe[i];
      if (ok && (sig[off + (p >> 3)] & (1 << (p & 7))) === 0) ok = false;
    }
    if (ok) return true;
  }
  return false;
}

// A probe over the 8 slots of a bit-sliced group: `byteOf(p)` gives, for bit
// position p, the byte whose bit j is bit p of slot j's summary. Returns the
// slots that may hold the words for summaries of set 0 (bits 0–7) and of set 1
// (bits 8–15).
export function probeSlots(probe: Uint16Array, byteOf: (p: number) => number): number {
  const n = probe.length;
  let m0 = 0xff, i = 0;
  for (; i < n && probe[i] < ALT; i++) m0 &= byteOf(probe[i]);
  let m1 = m0;
  if (i < n) for (i++; i < n && probe[i] !== ALT; i++) m1 &= byteOf(probe[i]);
  if (i < n) {
    let any = 0;
    while (i < n) {
      let all = 0xff;
      for (i++; i < n && probe[i] !== ALT; i++) all &= byteOf(probe[i]);
      any |= all;
    }
    m1 &= any;
  }
  return m0 | (m1 << 8);
}

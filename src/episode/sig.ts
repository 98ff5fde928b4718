// The model-free similarity of episodes (issue 16 item 4; docs/FORMAT.md §4.3):
// hashed character n-grams folded into a 512-bit signature (64 bytes) that
// lives in the episode's header, compared as the cosine of two bit vectors.
//
// Text (the content, then each keyword) is folded as the archive folds it
// (src/archive/fold.ts: ASCII case, full-width to half-width), then cut into
// runs: punctuation, spaces and symbols are dropped. A run of CJK (and other
// characters from U+2E80 on: kana, hangul, emoji) gives every character alone
// and every two neighbours (punctuation between them dropped, so 打 篮球 is
// 打篮球); a run of letters and digits below U+2E80 is a word, ended by anything
// else: the word itself and, when longer than 3, its 3-grams.
// Each element is hashed with FNV-1a 32 over a tag byte and its code points
// and sets 2 bits: h & 511 and (h >>> 16) & 511.

import { foldString, ANY_CHAR, TEXT_EDGE } from "../archive/fold";
import { EPISODE_SIG_BYTES } from "./types";

const BITS = EPISODE_SIG_BYTES * 8;
const MASK = BITS - 1;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TAG_CHAR = 1, TAG_PAIR = 2, TAG_WORD = 3, TAG_TRI = 4;

// bits set in each byte value (built at load: a preloaded module keeps it in flash)
const POP = makePop();
function makePop(): Uint8Array {
  const t = new Uint8Array(256);
  for (let i = 1; i < 256; i++) t[i] = (i & 1) + t[i >> 1];
  return t;
}

function fnvByte(h: number, b: number): number {
  return Math.imul(h ^ b, FNV_PRIME) >>> 0;
}

function fnvCode(h: number, cp: number): number {
  h = fnvByte(h, cp & 0xff);
  h = fnvByte(h, (cp >>> 8) & 0xff);
  return fnvByte(h, (cp >>> 16) & 0xff);
}

function setBits(sig: Uint8Array, h: number): void {
  const a = h & MASK, b = (h >>> 16) & MASK;
  sig[a >> 3] |= 1 << (a & 7);
  sig[b >> 3] |= 1 << (b & 7);
}

// 0: a separator (dropped), 1: a word character, 2: a CJK-like character
function classOf(cp: number): number {
  if (cp < 0x80) {
    if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) return 1;
    return 0;
  }
  if (cp < 0xc0) return 0; // Latin-1 punctuation and symbols
  if (cp === 0xd7 || cp === 0xf7) return 0;
  if (cp >= 0x2000 && cp <= 0x2bff) return 0; // general punctuation, arrows, math, shapes, dingbats
  if (cp >= 0x3000 && cp <= 0x303f) return 0; // CJK punctuation
  if (cp >= 0xfe00 && cp <= 0xfe6f) return 0; // variation selectors, vertical and small forms
  if (cp >= 0xff00 && cp <= 0xff65) return 0; // full-width punctuation left after folding
  if (cp >= 0xe0000) return 0; // tags, variation selectors supplement
  if (cp >= 0x1f3fb && cp <= 0x1f3ff) return 0; // skin tone modifiers
  return cp < 0x2e80 ? 1 : 2;
}

// The elements of one text into sig.
function addText(sig: Uint8Array, text: string, word: Uint32Array): void {
  if (!text) return;
  const f = foldString(text);
  let prev = -1; // the previous CJK-like character of the run
  let wordStart = -1; // where the current word's code points start in `word`
  let wn = 0;
  for (let i = 0; i <= f.length; ) {
    let cp = -1, len = 1;
    if (i < f.length) {
      const c = f[i];
      if (c < 0x80) cp = c;
      else if (c >= 0xf0) (cp = ((c & 7) << 18) | ((f[i + 1] & 63) << 12) | ((f[i + 2] & 63) << 6) | (f[i + 3] & 63)), (len = 4);
      else if (c >= 0xe0) (cp = ((c & 15) << 12) | ((f[i + 1] & 63) << 6) | (f[i + 2] & 63)), (len = 3);
      else if (c >= 0xc0) (cp = ((c & 31) << 6) | (f[i + 1] & 63)), (len = 2);
      else cp = 0; // a stray continuation byte: a separator
    }
    i += len;
    const k = cp < 0 ? 0 : classOf(cp);
    if (k !== 1 && wordStart >= 0) {
      endWord(sig, word, wn);
      wordStart = -1;
      wn = 0;
    }
    if (k === 1) prev = -1; // a word ends a CJK run; dropped punctuation and spaces do not
    if (k === 1) {
      if (wordStart < 0) wordStart = 0;
      if (wn < word.length) word[wn++] = cp;
    } else if (k === 2) {
      setBits(sig, fnvCode(fnvByte(FNV_OFFSET, TAG_CHAR), cp));
      if (prev >= 0) setBits(sig, fnvCode(fnvCode(fnvByte(FNV_OFFSET, TAG_PAIR), prev), cp));
      prev = cp;
    }
    if (cp < 0) break;
  }
}

function endWord(sig: Uint8Array, w: Uint32Array, n: number): void {
  let h = fnvByte(FNV_OFFSET, TAG_WORD);
  for (let i = 0; i < n; i++) h = fnvCode(h, w[i]);
  setBits(sig, h);
  if (n <= 3) return;
  for (let i = 0; i + 3 <= n; i++) setBits(sig, fnvCode(fnvCode(fnvCode(fnvByte(FNV_OFFSET, TAG_TRI), w[i]), w[i + 1]), w[i + 2]));
}

// The signature of an episode: its content and its keywords.
export function signature(text: string, keywords: string[]): Uint8Array {
  const sig = new Uint8Array(EPISODE_SIG_BYTES);
  // a word's code points (a longer word is cut: enough to tell words apart);
  // made per call: a preloaded module's top-level objects are read-only
  const word = new Uint32Array(32);
  addText(sig, text, word);
  if (keywords) for (let i = 0; i < keywords.length; i++) addText(sig, keywords[i], word);
  return sig;
}

export function popcount(a: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) n += POP[a[i]];
  return n;
}

// The cosine of two signatures as bit vectors: popcount(a & b) / sqrt(popcount(a) · popcount(b)); 0 for an empty one.
export function similarity(a: Uint8Array, b: Uint8Array): number {
  // the table through a local: a module binding costs XS a lookup per access
  // (60 ms against 8 ms for 800 similarities in the XS lane)
  const pop = POP;
  let na = 0, nb = 0, both = 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a[i], y = b[i];
    na += pop[x];
    nb += pop[y];
    both += pop[x & y];
  }
  for (let i = n; i < a.length; i++) na += pop[a[i]];
  for (let i = n; i < b.length; i++) nb += pop[b[i]];
  if (!na || !nb) return 0;
  return both / Math.sqrt(na * nb);
}

// The bits one CJK character or a pair of them sets in a signature (as
// addText sets them), or undefined for anything else: a probe of whether an
// episode's text may hold the term (a Bloom filter: no false "no").
export function termBits(term: string): number[] | undefined {
  const cps: number[] = [];
  for (const c of term) cps.push(c.codePointAt(0) as number);
  if (cps.length < 1 || cps.length > 2) return undefined;
  for (const cp of cps) if (classOf(cp) !== 2) return undefined;
  const h = cps.length === 1 ? fnvCode(fnvByte(FNV_OFFSET, TAG_CHAR), cps[0]) : fnvCode(fnvCode(fnvByte(FNV_OFFSET, TAG_PAIR), cps[0]), cps[1]);
  return [h & MASK, (h >>> 16) & MASK];
}

// Whether the signature at sig[off..] has every bit of `bits`.
export function hasBits(sig: Uint8Array, bits: readonly number[], off = 0): boolean {
  for (let i = 0; i < bits.length; i++) if (!(sig[off + (bits[i] >> 3)] & (1 << (bits[i] & 7)))) return false;
  return true;
}

// The same probe on a signature folded to 128 bits (src/episode/episodes.ts foldSig) at `off`.
export function hasFoldedBits(sig: Uint8Array, off: number, bits: readonly number[]): boolean {
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i] & 127;
    if (!(sig[off + (b >> 3)] & (1 << (b & 7)))) return false;
  }
  return true;
}

// The bits (as termBits) every signature of a text holding the folded UTF-8
// `w` has, by addText's rules; only what holds whatever surrounds w in the
// text: each CJK-like character alone and each two adjacent in w; a run of
// word characters with a character of another class before it in w starts a
// word of the text: its 3-grams (within its first 32 code points) when the
// run is longer than 3, and the word itself when a character of another
// class ends it in w too. A run at w's start may be the tail of a longer word
// (and a word's hash and 3-grams stop at its 32nd code point): none of its
// bits are taken. An empty list: anything may hold w.
export function wordBits(w: Uint8Array): number[] {
  const bits: number[] = [];
  // a word with `_` (ANY_CHAR): each part between them on its own, nothing across
  for (let s = 0; s <= w.length; ) {
    let e = w.indexOf(ANY_CHAR, s);
    if (e < 0) e = w.length;
    if (e > s && !partBits(w, s, e, bits)) return [];
    s = e + 1;
  }
  return bits;
}

function partBits(w: Uint8Array, s: number, e: number, bits: number[]): boolean {
  const cps: number[] = [];
  for (let i = s; i < e; ) {
    const c = w[i];
    let cp: number, len: number;
    if (c === TEXT_EDGE) (cp = 0x20), (len = 1); // the text's start or end: as a separator, a word ends there
    else if (c < 0x80) (cp = c), (len = 1);
    else if (c >= 0xf0) (cp = ((c & 7) << 18) | ((w[i + 1] & 63) << 12) | ((w[i + 2] & 63) << 6) | (w[i + 3] & 63)), (len = 4);
    else if (c >= 0xe0) (cp = ((c & 15) << 12) | ((w[i + 1] & 63) << 6) | (w[i + 2] & 63)), (len = 3);
    else if (c >= 0xc0) (cp = ((c & 31) << 6) | (w[i + 1] & 63)), (len = 2);
    else return false; // not whole characters: nothing is sure
    cps.push(cp);
    i += len;
  }
  const put = (h: number) => {
    const a = h & MASK, b = (h >>> 16) & MASK;
    if (bits.indexOf(a) < 0) bits.push(a);
    if (bits.indexOf(b) < 0) bits.push(b);
  };
  const n = cps.length;
  for (let i = 0; i < n; i++) {
    const k = classOf(cps[i]);
    if (k === 2) {
      put(fnvCode(fnvByte(FNV_OFFSET, TAG_CHAR), cps[i]));
      if (i + 1 < n && classOf(cps[i + 1]) === 2) put(fnvCode(fnvCode(fnvByte(FNV_OFFSET, TAG_PAIR), cps[i]), cps[i + 1]));
      continue;
    }
    if (k !== 1 || i === 0 || classOf(cps[i - 1]) === 1) continue;
    // a word starts at i (the character before it is of another class)
    let j = i;
    while (j < n && classOf(cps[j]) === 1) j++;
    const len = j - i, cut = len < 32 ? len : 32;
    if (len > 3) for (let a = i; a + 3 <= i + cut; a++) put(fnvCode(fnvCode(fnvCode(fnvByte(FNV_OFFSET, TAG_TRI), cps[a]), cps[a + 1]), cps[a + 2]));
    if (j < n) {
      let h = fnvByte(FNV_OFFSET, TAG_WORD);
      for (let a = i; a < i + cut; a++) h = fnvCode(h, cps[a]);
      put(h);
    }
  }
  return true;
}

// Compact text (docs/FORMAT.md §3.16, docs/design/compact-text.md): a string of
// Chinese in fewer UTF-8 bytes, still a string (it goes inside JSON lines).
//
// The table (src/text/table1.ts, built by `npm run build:text-table`) lists
// entries, each one to four characters, in code order: entry i < N1 is the
// ASCII character ONE[i] (1 byte: the commonest characters and words), entry
// N1 <= i < N1 + N2 is the code point U+0081 + i - N1 (2 bytes in UTF-8, a Han
// character takes 3), the rest are U+E000 + (i - N1 - N2), in the Private Use
// Area (3 bytes, for words of two or more characters). A character of the
// text that is in ONE, in U+0080..U+07FF or in U+E000..U+F8FF is written as
// U+0080 and then itself. Everything else is itself. Encoding takes, at each place, the longest entry that matches there
// (entries of up to four characters); decoding is a table lookup per code.
//
// Device: the table's data is typed arrays and the entries' strings, built at
// the top level from string literals (preloaded: they live in flash). Long
// strings are walked (for-of, replace), never indexed: XS reaches an index by
// walking the string from its start.

import * as T1 from "./table1";
import { ONE } from "./codes";
import { encode, decode } from "./utf8";

export { ONE };

export const ESC = 0x80;
const ONE_INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ONE.length; i++) ONE_INDEX[ONE.charCodeAt(i)] = i;
const BASE2 = 0x81;
const BASEP = 0xe000;
const END2 = 0x7ff;
const ENDP = 0xf8ff;

export interface Table {
  version: number;
  n1: number; // entries with 1-byte codes (ONE)
  n2: number; // entries with 2-byte codes
  np: number; // entries with Private Use Area codes
  chars: Uint16Array; // every entry's characters, in code order
  off: Uint16Array; // entry i is chars[off[i] .. off[i + 1])
  sorted: Uint16Array; // entry numbers in the order of their text (code unit order)
  first: Uint16Array; // the first character of each entry of `sorted`
  entries: string[]; // each entry's text, in code order (decoding)
}

// Builds a table from its module's strings: LENS one digit (1-4) per entry,
// CHARS the entries' characters, SORTED one character (U+0100 + entry number) per entry.
export function tableOf(version: number, n1: number, n2: number, np: number, lens: string, chars: string, sorted: string): Table {
  const n = n1 + n2 + np;
  const off = new Uint16Array(n + 1);
  let i = 0, at = 0;
  for (const d of lens) {
    at += d.charCodeAt(0) - 48;
    off[++i] = at;
  }
  const ch = new Uint16Array(at);
  let k = 0;
  for (const c of chars) ch[k++] = c.charCodeAt(0);
  const so = new Uint16Array(n);
  let m = 0;
  for (const c of sorted) so[m++] = c.charCodeAt(0) - 0x100;
  if (n1 > ONE.length || i !== n || k !== at || m !== n) throw new Error(`text table ${version}: damaged`);
  const first = new Uint16Array(n);
  for (let j = 0; j < n; j++) first[j] = ch[off[so[j]]];
  const entries: string[] = [];
  for (let e = 0; e < n; e++) {
    let s = "";
    for (let j = off[e]; j < off[e + 1]; j++) s += String.fromCharCode(ch[j]);
    entries.push(s);
  }
  return { version, n1, n2, np, chars: ch, off, sorted: so, first, entries };
}

export const TABLE1: Table = tableOf(T1.VERSION, T1.N1, T1.N2, T1.NP, T1.LENS, T1.CHARS, T1.SORTED);

// The longest entry that matches the window w[0..n) at its start: its number,
// its length in matchLen; -1 when none does.
let matchLen = 0;
function longest(t: Table, w: number[], n: number): number {
  const first = w[0];
  const so = t.sorted, f1 = t.first;
  // the first entry (in text order) whose first character is >= first
  let lo = 0, hi = so.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (f1[mid] < first) lo = mid + 1;
    else hi = mid;
  }
  let best = -1, bestLen = 0;
  for (let i = lo; i < so.length && f1[i] === first; i++) {
    const e = so[i];
    const s = t.off[e];
    const len = t.off[e + 1] - s;
    if (len <= bestLen || len > n) continue;
    let j = 1;
    while (j < len && t.chars[s + j] === w[j]) j++;
    if (j === len) (best = e), (bestLen = len);
  }
  matchLen = bestLen;
  return best;
}

function escaped(cp: number): boolean {
  return (cp < 0x80 && ONE_INDEX[cp] >= 0) || (cp >= ESC && cp <= END2) || (cp >= BASEP && cp <= ENDP);
}

// The code of entry e.
function codeOf(t: Table, e: number): number {
  if (e < t.n1) return ONE.charCodeAt(e);
  return e < t.n1 + t.n2 ? BASE2 + e - t.n1 : BASEP + e - t.n1 - t.n2;
}

// ---- the fast paths: one pass over the string's UTF-8 bytes -----------------------
//
// XS keeps strings in UTF-8 and reaches a character by index walking from the
// start, and every call of a JS function (a replace callback, a for-of step
// making a one-character string) costs more than a dozen byte operations. So
// both directions take the text's bytes at once (the native TextEncoder) and
// walk them in one loop with no call per character. Encoding writes the
// result's UTF-8 bytes into a small scratch array and makes the string with the
// native TextDecoder (one call per SCRATCH bytes written); decoding joins runs
// of the string's bytes and the entries' strings. They give exactly what the plain forms
// below give (encodeSlow, decodeSlow: the definition), which still handle
// the rare texts whose bytes do not say what the string holds: a lone surrogate
// (TextEncoder writes it as U+FFFD), or U+FFFD itself.

// The scratch: made at first use (a preloaded module's arrays live in flash,
// read-only), kept for the program (SCRATCH bytes of RAM, no allocation a call).
const SCRATCH = 256;
const ROOM = SCRATCH - 12; // an entry is at most 4 characters of 3 bytes
let scratch: Uint8Array | undefined;

// The string positions a character beyond the BMP takes: 2 UTF-16 code units on
// Node, 1 on the device (XS indexes its UTF-8 strings by code point).
const ASTRAL = "\u{10000}".length;

// A code point's UTF-8 at b[i]: lead byte c (>= 0xe0: 3 bytes).
function cp3(b: Uint8Array, i: number): number {
  return ((b[i] & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
}

// U+D800..U+DFFF (how XS writes a lone surrogate) or U+FFFD (how TextEncoder
// replaces one): the bytes may not be the string.
function unsure(b: Uint8Array, i: number): boolean {
  const c1 = b[i + 1];
  return (b[i] === 0xed && c1 >= 0xa0) || (b[i] === 0xef && c1 === 0xbf && b[i + 2] === 0xbd);
}

// The compact form of s. Any string has one, and decode gives s back.
export function compactEncode(s: string, t: Table = TABLE1): string {
  const b = encode(s);
  const n = b.length;
  const o = (scratch ??= new Uint8Array(SCRATCH));
  const so = t.sorted, f1 = t.first, off = t.off, ch = t.chars, n1 = t.n1, n12 = t.n1 + t.n2;
  const m = so.length;
  let res = "";
  let k = 0;
  for (let i = 0; i < n; ) {
    if (k > ROOM) {
      res += decode(o.subarray(0, k));
      k = 0;
    }
    const c = b[i];
    if (c < 0x80) {
      if (ONE_INDEX[c] >= 0) (o[k++] = 0xc2), (o[k++] = 0x80); // escaped
      o[k++] = c;
      i++;
      continue;
    }
    if (c < 0xe0) {
      // U+0080..U+07FF: escaped
      o[k++] = 0xc2;
      o[k++] = 0x80;
      o[k++] = c;
      o[k++] = b[i + 1];
      i += 2;
      continue;
    }
    if (c >= 0xf0) {
      // beyond the BMP: itself
      o[k++] = c;
      o[k++] = b[i + 1];
      o[k++] = b[i + 2];
      o[k++] = b[i + 3];
      i += 4;
      continue;
    }
    const cp = cp3(b, i);
    if (unsure(b, i)) return encodeSlow(s, t);
    if (cp >= BASEP && cp <= ENDP) {
      // the Private Use Area: escaped
      o[k++] = 0xc2;
      o[k++] = 0x80;
      o[k++] = c;
      o[k++] = b[i + 1];
      o[k++] = b[i + 2];
      i += 3;
      continue;
    }
    // the longest entry that starts here: the first (in text order) whose first character is cp ...
    let lo = 0, hi = m;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f1[mid] < cp) lo = mid + 1;
      else hi = mid;
    }
    let best = -1, bestLen = 0, bestBytes = 3;
    for (let x = lo; x < m && f1[x] === cp; x++) {
      const e = so[x];
      const s0 = off[e], len = off[e + 1] - s0;
      if (len <= bestLen) continue;
      // ... whose other characters are the next ones of the text (at most 4 in all)
      let j = 1, at = i + 3;
      for (; j < len && at < n; j++) {
        const u = ch[s0 + j];
        const d = b[at];
        if (u < 0x80) {
          if (d !== u) break;
          at++;
        } else if (u < 0x800) {
          if (d !== (0xc0 | (u >> 6)) || b[at + 1] !== (0x80 | (u & 0x3f))) break;
          at += 2;
        } else {
          if (d !== (0xe0 | (u >> 12)) || b[at + 1] !== (0x80 | ((u >> 6) & 0x3f)) || b[at + 2] !== (0x80 | (u & 0x3f))) break;
          at += 3;
        }
      }
      if (j === len) (best = e), (bestLen = len), (bestBytes = at - i);
    }
    if (best < 0) {
      o[k++] = c;
      o[k++] = b[i + 1];
      o[k++] = b[i + 2];
      i += 3;
      continue;
    }
    // its code
    if (best < n1) o[k++] = ONE.charCodeAt(best);
    else if (best < n12) {
      const v = BASE2 + best - n1;
      o[k++] = 0xc0 | (v >> 6);
      o[k++] = 0x80 | (v & 0x3f);
    } else {
      const v = BASEP + best - n12;
      o[k++] = 0xe0 | (v >> 12);
      o[k++] = 0x80 | ((v >> 6) & 0x3f);
      o[k++] = 0x80 | (v & 0x3f);
    }
    i += bestBytes;
  }
  return k || !res ? res + decode(o.subarray(0, k)) : res;
}

// The text of a compact string, or undefined when it is not one this table
// wrote: a code with no entry, an escape not followed by a character it escapes.
// The text is made of runs: the parts of the string between codes as they are
// (a substring a run, the string itself when it holds no code) and each code's
// entry, a string made when the table was (concatenation is native). In XS,
// writing each entry's UTF-8 byte by byte took about twice as long, and a
// TextDecoder call on a subarray a run about a third longer.
export function compactDecode(s: string, t: Table = TABLE1): string | undefined {
  const b = encode(s);
  const n = b.length;
  const ents = t.entries, n1 = t.n1, n2 = t.n2, np = t.np;
  let res = "";
  let lit = 0; // where the part of s not yet in res starts (a code unit)
  let u = 0; // the code unit of s at byte i
  for (let i = 0; i < n; ) {
    const c = b[i];
    let e: number, next: number;
    if (c < 0x80) {
      const x = ONE_INDEX[c];
      if (x < 0) {
        i++; // itself
        u++;
        continue;
      }
      if (x >= n1) return undefined; // a code this table does not use
      (e = x), (next = i + 1);
    } else if (c < 0xe0) {
      const cp = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
      if (cp === ESC) {
        // an escape: the character after it must be one it escapes; it is itself
        if (lit < u) res += s.substring(lit, u);
        i += 2;
        lit = ++u;
        if (i >= n) return undefined;
        const d = b[i];
        if (d < 0x80) {
          if (ONE_INDEX[d] < 0) return undefined;
          i++;
        } else if (d < 0xe0) i += 2;
        else if (d < 0xf0) {
          const v = cp3(b, i);
          if (v < BASEP || v > ENDP) return undefined;
          i += 3;
        } else return undefined;
        u++;
        continue;
      }
      if (cp - BASE2 >= n2) return undefined;
      (e = n1 + cp - BASE2), (next = i + 2);
    } else if (c < 0xf0) {
      const cp = cp3(b, i);
      if (cp < BASEP || cp > ENDP) {
        if (unsure(b, i)) return decodeSlow(s, t);
        i += 3; // itself
        u++;
        continue;
      }
      if (cp - BASEP >= np) return undefined;
      (e = n1 + n2 + cp - BASEP), (next = i + 3);
    } else {
      i += 4; // beyond the BMP: itself
      u += ASTRAL;
      continue;
    }
    if (lit < u) res += s.substring(lit, u);
    res += ents[e];
    i = next;
    lit = ++u;
  }
  if (lit === 0) return s; // no code, no escape: the text is the string
  return lit < u ? res + s.substring(lit, u) : res;
}

// ---- the plain forms (the definition; used for the texts above) ----------------------

// Output in chunks of code points: a bounded array whatever the text's length
// (an apply of hundreds of arguments would take as many stack slots).
const CHUNK = 64;
class Out {
  s = "";
  b: number[] = [];
  put(cp: number): void {
    this.b.push(cp);
    if (this.b.length >= CHUNK) this.flush();
  }
  flush(): string {
    if (this.b.length) {
      this.s += String.fromCodePoint.apply(null, this.b);
      this.b.length = 0;
    }
    return this.s;
  }
}

// Writes the code of w's first code point (and of the entry it starts), takes them off w.
function step(t: Table, w: number[], out: Out): void {
  const cp = w[0];
  let n = 1;
  if (escaped(cp)) {
    out.put(ESC);
    out.put(cp);
  } else if (cp >= 0x800 && cp <= 0xffff) {
    const e = longest(t, w, w.length);
    if (e >= 0) {
      out.put(codeOf(t, e));
      n = matchLen;
    } else out.put(cp);
  } else out.put(cp);
  w.splice(0, n);
}

// The compact form of s. Any string has one, and decode gives s back.
export function encodeSlow(s: string, t: Table = TABLE1): string {
  const out = new Out();
  const w: number[] = []; // the next (up to 4) code points not yet written
  for (const c of s) {
    w.push(c.codePointAt(0) as number);
    if (w.length === 4) step(t, w, out);
  }
  while (w.length) step(t, w, out);
  return out.flush();
}

// Codes and escapes; everything else is itself. (No `u` flag: every character
// matched is in the BMP, and no class here matches half of a surrogate pair.)
// Made at first use: a regular expression's lastIndex changes, and a preloaded
// module's objects live in flash.
let coded: RegExp | undefined;
let bad = false;
let cur: Table = TABLE1;
function expand(m: string, lit: string): string {
  if (m.length > 1 || lit !== undefined && m.charCodeAt(0) === ESC) {
    // an escape: the character after it must be one it escapes (none: at the end)
    if (!lit || !escaped(lit.charCodeAt(0))) bad = true;
    return lit;
  }
  const cp = m.charCodeAt(0);
  let e: number;
  if (cp < 0x80) e = ONE_INDEX[cp] < cur.n1 ? ONE_INDEX[cp] : -1;
  else if (cp <= END2) e = cp - BASE2 < cur.n2 ? cur.n1 + cp - BASE2 : -1;
  else e = cp - BASEP < cur.np ? cur.n1 + cur.n2 + cp - BASEP : -1;
  if (e < 0) {
    bad = true; // a code this table does not use
    return "";
  }
  return cur.entries[e];
}

// The text of a compact string, or undefined when it is not one this table
// wrote: a code with no entry, an escape not followed by a character it escapes.
export function decodeSlow(s: string, t: Table = TABLE1): string | undefined {
  bad = false;
  cur = t;
  const out = s.replace((coded ??= new RegExp("\\u0080([\\s\\S]?)|[" + ONE.replace(/[\\\]^-]/g, "\\$&") + "\\u0081-\\u07ff\\ue000-\\uf8ff]", "g")), expand);
  return bad ? undefined : out;
}



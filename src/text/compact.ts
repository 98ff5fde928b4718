// Compact text (docs/FORMAT.md §3.16, docs/design/compact-text.md): a string of
// Chinese in fewer UTF-8 bytes, still a string (it goes inside JSON lines).
//
// The table (src/text/table1.ts, built by `npm run build:text-table`) lists
// entries, each one to four characters, in code order: entry i < N2 is the
// code point U+0081 + i (2 bytes in UTF-8, a Han character takes 3), entry
// i >= N2 is U+E000 + (i - N2), in the Private Use Area (3 bytes, for words of
// two or more characters). A character of the text that lies in U+0080..U+07FF
// or U+E000..U+F8FF is written as U+0080 and then itself. Everything else is
// itself. Encoding takes, at each place, the longest entry that matches there
// (entries of up to four characters); decoding is a table lookup per code point.
//
// Device: the table's data is typed arrays built at the top level from string
// literals (preloaded: it lives in flash); strings are walked with for-of only
// (XS indexes a string by walking it from its start), never by index.

import * as T1 from "./table1";

export const ESC = 0x80;
const BASE2 = 0x81;
const BASEP = 0xe000;
const END2 = 0x7ff;
const ENDP = 0xf8ff;

export interface Table {
  version: number;
  n2: number; // entries with 2-byte codes
  np: number; // entries with Private Use Area codes
  chars: Uint16Array; // every entry's characters, in code order
  off: Uint16Array; // entry i is chars[off[i] .. off[i + 1])
  sorted: Uint16Array; // entry numbers in the order of their text (code unit order)
}

// Builds a table from its module's strings: LENS one digit (1-4) per entry,
// CHARS the entries' characters, SORTED one character (U+0100 + entry number) per entry.
export function tableOf(version: number, n2: number, np: number, lens: string, chars: string, sorted: string): Table {
  const n = n2 + np;
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
  if (i !== n || k !== at || m !== n) throw new Error(`text table ${version}: damaged`);
  return { version, n2, np, chars: ch, off, sorted: so };
}

export const TABLE1: Table = tableOf(T1.VERSION, T1.N2, T1.NP, T1.LENS, T1.CHARS, T1.SORTED);
export const TABLES: readonly Table[] = [TABLE1];

export function tableFor(version: number): Table | undefined {
  for (const t of TABLES) if (t.version === version) return t;
  return undefined;
}

// Compares entry e with the text's code units u[at..at+len(e)) (units past the
// text's end count as -1): <0 entry first, 0 equal, >0 entry after.
function cmpEntry(t: Table, e: number, u: number[], at: number): number {
  const s = t.off[e], n = t.off[e + 1] - s;
  for (let j = 0; j < n; j++) {
    const a = t.chars[s + j], b = at + j < u.length ? u[at + j] : -1;
    if (a !== b) return a - b;
  }
  return 0;
}

// The code point of the longest entry that matches u at `at`, and its length,
// or 0 when none does.
let matchLen = 0;
function longest(t: Table, u: number[], at: number): number {
  const first = u[at];
  const so = t.sorted;
  // the first entry (in text order) whose first character is >= first
  let lo = 0, hi = so.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t.chars[t.off[so[mid]]] < first) lo = mid + 1;
    else hi = mid;
  }
  let best = -1, bestLen = 0;
  for (let i = lo; i < so.length; i++) {
    const e = so[i];
    const s = t.off[e];
    if (t.chars[s] !== first) break;
    const n = t.off[e + 1] - s;
    if (n > bestLen && at + n <= u.length && cmpEntry(t, e, u, at) === 0) (best = e), (bestLen = n);
  }
  matchLen = bestLen;
  if (best < 0) return 0;
  return best < t.n2 ? BASE2 + best : BASEP + best - t.n2;
}

function escaped(cp: number): boolean {
  return (cp >= ESC && cp <= END2) || (cp >= BASEP && cp <= ENDP);
}

// The compact form of s. Any string has one, and decode gives s back.
export function compactEncode(s: string, t: Table = TABLE1): string {
  // code points, each as its code unit when in the BMP (surrogate pairs stay whole: -cp)
  const u: number[] = [];
  for (const c of s) {
    const cp = c.codePointAt(0) as number;
    u.push(cp > 0xffff ? -cp : cp);
  }
  let out = "";
  for (let i = 0; i < u.length; ) {
    const cp = u[i];
    if (cp < 0) {
      out += String.fromCodePoint(-cp);
      i++;
    } else if (escaped(cp)) {
      out += String.fromCharCode(ESC, cp);
      i++;
    } else if (cp >= 0x800) {
      const code = longest(t, u, i);
      if (code) {
        out += String.fromCharCode(code);
        i += matchLen;
      } else {
        out += String.fromCharCode(cp);
        i++;
      }
    } else {
      out += String.fromCharCode(cp);
      i++;
    }
  }
  return out;
}

function entryText(t: Table, e: number): string {
  let r = "";
  for (let j = t.off[e]; j < t.off[e + 1]; j++) r += String.fromCharCode(t.chars[j]);
  return r;
}

// The text of a compact string, or undefined when it is not one this table
// wrote: a code with no entry, an escape not followed by a character it escapes.
export function compactDecode(s: string, t: Table = TABLE1): string | undefined {
  let out = "";
  let esc = false;
  for (const c of s) {
    const cp = c.codePointAt(0) as number;
    if (esc) {
      if (!escaped(cp)) return undefined;
      out += c;
      esc = false;
    } else if (cp < ESC || (cp > END2 && cp < BASEP) || cp > ENDP) out += c;
    else if (cp === ESC) esc = true;
    else if (cp <= END2) {
      if (cp - BASE2 >= t.n2) return undefined;
      out += entryText(t, cp - BASE2);
    } else {
      if (cp - BASEP >= t.np) return undefined;
      out += entryText(t, t.n2 + cp - BASEP);
    }
  }
  return esc ? undefined : out;
}

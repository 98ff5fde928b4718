// Monthly digests of moments (and past events) before they leave the flash.
// The archive folds the records of a segment it retires into one digest per
// local calendar month, so that "what did we do last spring" still finds
// something years later (seed 003's snapshots: key points and keywords).
// docs/DESIGN.md, "Digests".
//
// Pure: no file access. DigestBuilder takes records one at a time in bounded
// memory: per month a few counters, the best MAX_POINTS points so far and a
// bounded table of keyword candidates; a shared doorkeeper of hashes lets a
// word into the table only when it recurs. At most OPEN_MAX months have a
// candidate table at once; a month left for another is sealed down to its
// chosen keywords (and reopened from them if it comes back).
//
// No locale or Unicode-property API, no RegExp at all, no locale comparison: characters are
// classified by code point, and strings are walked with for…of (code points on
// Node and on the device alike).

import { byteLength, truncate } from "../text/utf8";
import { toLocal, fromLocal, utcOffset } from "../time/local";

export interface DigestInput {
  t: number; // unix seconds
  type: "moment" | "event";
  topic?: string;
  content: string;
  importance?: number; // moments (petmem's moments: 1-5)
  significance?: number; // events (petmem's events: 1-5)
  emotion_type?: number; // 0..5, src/memory/types.ts EMOTIONS
  emotion_intensity?: number; // 0..5: ranks points of equal importance
}

export interface Digest {
  month: string; // YYYY-MM, local
  from: number; // unix s of the month's first record
  to: number; // unix s of its last
  moments: number;
  events: number;
  keywords: string[]; // <= MAX_KEYWORDS
  points: string[]; // <= MAX_POINTS, most important first
  emotions: number[]; // records per emotion 0..5
}

export const DIGEST_MAX_BYTES = 440; // JSON of a digest: its archive line adds its own fields and stays under 512
export const MAX_KEYWORDS = 8;
export const MAX_POINTS = 4;
export const EMOTION_COUNT = 6;
// Events become points only from this significance up. petmem's significance
// is 1-5 (seed 000: LOW … CRITICAL); 4 and 5 are HIGH and CRITICAL.
export const EVENT_POINT_SIGNIFICANCE = 4;

const POINT_MAX_BYTES = 160; // a point as held while the month is open
const MIN_POINT_BYTES = 30; // fitDigest shortens points down to this before it drops any
const TOPIC_MAX_BYTES = 24;
const WORD_MAX_CHARS = 24; // longer ASCII runs (URLs, ids) are not keywords
const GRAM_CAP = 48; // keyword candidates per open month
const TOPIC_CAP = 12; // topics per open month
const OPEN_MAX = 2; // months with candidate tables at once
export const MAX_MONTHS = 12; // months held at once by a builder given `emit`
const DOOR_SLOTS = 1024; // doorkeeper: hashes seen once (4 KB), cleared at 3/4 full
const DOOR_LIMIT = 768;
const REC_SLOTS = 256; // grams of one record, to count each once per record
const REC_LIMIT = 200;
const RUN_MAX = 64; // code points of one run of letters; a longer run is cut

// Function characters that never belong to a keyword: a run of CJK characters
// ends at one of them.
const STOP = "的了是在我你他她它们这那有和就都也很说";
// Function words of two characters: a gram that holds one is no keyword.
const STOP_WORDS = ["什么", "怎么", "一个", "没有", "可以", "因为", "所以", "但是", "然后", "知道", "觉得", "还是", "一下", "不是", "自己", "现在", "时候", "已经", "真的", "还有"];
// Numerals: a gram made only of them is a number.
const NUMERALS = "〇零一二三四五六七八九十百千万亿两";
// the two lists as sorted code points, made at load (plain JS: fine when preloaded)
function sortedCodePoints(s: string): number[] {
  const a: number[] = [];
  for (const ch of s) a.push(ch.codePointAt(0)!);
  return a.sort((x, y) => x - y);
}
const STOP_CPS = sortedCodePoints(STOP);
const NUMERAL_CPS = sortedCodePoints(NUMERALS);
function among(sorted: readonly number[], cp: number): boolean {
  let lo = 0, hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid];
    if (v === cp) return true;
    if (v < cp) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
const EN_STOP = "|the|and|for|with|was|were|are|you|your|that|this|have|has|had|but|not|from|they|them|then|than|our|out|all|its|it's|";

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) || // unified ideographs
    (cp >= 0x3400 && cp <= 0x4dbf) || // extension A
    (cp >= 0x3040 && cp <= 0x30ff) || // kana
    (cp >= 0xac00 && cp <= 0xd7af) || // hangul
    (cp >= 0xf900 && cp <= 0xfaff) || // compatibility ideographs
    (cp >= 0x20000 && cp <= 0x3134f) // extensions B…G
  );
}

function pad2(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

function hashCps(cps: Uint32Array, at: number, len: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + len; i++) h = Math.imul(h ^ cps[i], 0x01000193);
  h = Math.imul(h ^ len, 0x01000193) >>> 0;
  return h === 0 ? 1 : h;
}

// The same hash of a string's code points (a keyword brought back into a table).
function hashString(s: string): number {
  let h = 0x811c9dc5, len = 0;
  for (const ch of s) {
    h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193);
    len++;
  }
  h = Math.imul(h ^ len, 0x01000193) >>> 0;
  return h === 0 ? 1 : h;
}

function textOf(cps: Uint32Array, at: number, len: number): string {
  let s = "";
  for (let i = at; i < at + len; i++) s += String.fromCodePoint(cps[i]);
  return s;
}

// A set of 32-bit hashes in a fixed array (open addressing, 0 = empty).
// `seen(h)` says whether h was there, and adds it if not; full to `limit`, the
// set is emptied first (the oldest sightings are forgotten, never memory grown).
class HashSet {
  readonly slots: Uint32Array;
  readonly limit: number;
  n = 0;
  constructor(size: number, limit: number) {
    this.slots = new Uint32Array(size);
    this.limit = limit;
  }
  seen(h: number): boolean {
    const mask = this.slots.length - 1;
    let i = h & mask;
    for (;;) {
      const v = this.slots[i];
      if (v === h) return true;
      if (v === 0) break;
      i = (i + 1) & mask;
    }
    if (this.n >= this.limit) {
      this.clear();
      i = h & mask;
    }
    this.slots[i] = h;
    this.n++;
    return false;
  }
  clear(): void {
    if (this.n > 0) this.slots.fill(0);
    this.n = 0;
  }
}

// A keyword chosen for a month, with what ranks it.
interface Kw {
  text: string;
  count: number;
  first: number;
  topic: boolean;
}

// The keyword candidates of one open month: its topics, and the grams (CJK
// runs of 2-4 characters, ASCII words) that recurred. Fixed size; full, the
// rarest (then least recently seen) entry makes room.
class Table {
  readonly tText: string[] = new Array(TOPIC_CAP).fill("");
  readonly tCount = new Uint16Array(TOPIC_CAP);
  readonly tFirst = new Uint32Array(TOPIC_CAP);
  readonly tLast = new Uint32Array(TOPIC_CAP);
  tN = 0;
  readonly gText: string[] = new Array(GRAM_CAP).fill("");
  readonly gHash = new Uint32Array(GRAM_CAP);
  readonly gCount = new Uint16Array(GRAM_CAP);
  readonly gFirst = new Uint32Array(GRAM_CAP);
  readonly gLast = new Uint32Array(GRAM_CAP);
  readonly gNext = new Uint8Array(GRAM_CAP); // chain in a bucket: slot + 1, 0 ends
  readonly gBucket = new Uint8Array(64); // first slot + 1 of each bucket
  gN = 0;
  owner: MonthState | undefined;

  clear(): void {
    this.tText.fill("");
    this.gText.fill("");
    this.tN = this.gN = 0;
    this.gBucket.fill(0);
    this.owner = undefined;
  }

  topic(text: string, count: number, first: number, last: number): void {
    for (let i = 0; i < this.tN; i++)
      if (this.tText[i] === text) {
        this.tCount[i] = Math.min(0xffff, this.tCount[i] + count);
        this.tLast[i] = last;
        return;
      }
    let slot = this.tN;
    if (slot < TOPIC_CAP) this.tN++;
    else {
      slot = rarest(this.tCount, this.tLast, TOPIC_CAP);
      if (this.tCount[slot] > count) return; // the newcomer is the rarest
    }
    this.tText[slot] = text;
    this.tCount[slot] = count;
    this.tFirst[slot] = first;
    this.tLast[slot] = last;
  }

  find(h: number): number {
    for (let s = this.gBucket[h & 63]; s !== 0; s = this.gNext[s - 1]) if (this.gHash[s - 1] === h) return s - 1;
    return -1;
  }

  // Counts gram h again if it is a candidate; returns false when it is not.
  hit(h: number, seq: number): boolean {
    const slot = this.find(h);
    if (slot < 0) return false;
    this.gCount[slot] = Math.min(0xffff, this.gCount[slot] + 1);
    this.gLast[slot] = seq;
    return true;
  }

  // Makes gram h (text) a candidate seen `count` times; false when every
  // candidate is more frequent and the table is full.
  admit(h: number, text: string, count: number, first: number, last: number): boolean {
    let slot = this.gN;
    if (slot < GRAM_CAP) this.gN++;
    else {
      slot = rarest(this.gCount, this.gLast, GRAM_CAP);
      if (this.gCount[slot] > count) return false;
      this.unlink(slot);
    }
    this.gText[slot] = text;
    this.gHash[slot] = h;
    this.gCount[slot] = count;
    this.gFirst[slot] = first;
    this.gLast[slot] = last;
    const b = h & 63;
    this.gNext[slot] = this.gBucket[b];
    this.gBucket[b] = slot + 1;
    return true;
  }

  private unlink(slot: number): void {
    const b = this.gHash[slot] & 63;
    if (this.gBucket[b] === slot + 1) {
      this.gBucket[b] = this.gNext[slot];
      return;
    }
    for (let s = this.gBucket[b]; s !== 0; s = this.gNext[s - 1])
      if (this.gNext[s - 1] === slot + 1) {
        this.gNext[s - 1] = this.gNext[slot];
        return;
      }
  }
}

// The slot with the lowest count, the least recently seen among equals.
function rarest(count: Uint16Array, last: Uint32Array, n: number): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (count[i] < count[best] || (count[i] === count[best] && last[i] < last[best])) best = i;
  return best;
}

function cpsOf(s: string): string[] {
  return Array.from(s);
}

function isAsciiWord(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

// Whether gram g says nothing a chosen keyword k does not: one holds the
// other, or (CJK) they overlap at an end, as 京游 does 北京 in 北京游泳.
function redundant(g: string, k: string): boolean {
  if (k.includes(g) || g.includes(k)) return true;
  if (isAsciiWord(g) || isAsciiWord(k)) return false;
  const a = cpsOf(g), b = cpsOf(k);
  const most = Math.min(a.length, b.length) - 1;
  for (let l = 1; l <= most; l++) {
    let tail = true, head = true;
    for (let i = 0; i < l; i++) {
      if (a[a.length - l + i] !== b[i]) tail = false; // g ends as k starts
      if (a[i] !== b[b.length - l + i]) head = false; // g starts as k ends
    }
    if (tail || head) return true;
  }
  return false;
}

// The keywords of a table: topics seen at least twice, then grams that
// recurred, then topics seen once; each group by count, then first seen.
function chooseKeywords(t: Table): Kw[] {
  const out: Kw[] = [];
  const topics: number[] = new Array(t.tN).fill(0);
  for (let i = 0; i < t.tN; i++) topics[i] = i;
  topics.sort((a, b) => t.tCount[b] - t.tCount[a] || t.tFirst[a] - t.tFirst[b]);
  for (const i of topics) {
    if (out.length >= MAX_KEYWORDS || t.tCount[i] < 2) break;
    out.push({ text: t.tText[i], count: t.tCount[i], first: t.tFirst[i], topic: true });
  }
  // a longer gram first among equal counts: it holds the shorter ones as often
  const grams: number[] = new Array(t.gN).fill(0);
  for (let i = 0; i < t.gN; i++) grams[i] = i;
  grams.sort((a, b) => t.gCount[b] - t.gCount[a] || t.gText[b].length - t.gText[a].length || t.gFirst[a] - t.gFirst[b]);
  const chosen: Kw[] = [];
  for (const i of grams) {
    if (out.length + chosen.length >= MAX_KEYWORDS) break;
    if (t.gCount[i] < 2) continue;
    const g = t.gText[i];
    let skip = false;
    for (const k of out) if (redundant(g, k.text)) skip = true;
    for (const k of chosen) if (redundant(g, k.text)) skip = true;
    if (!skip) chosen.push({ text: g, count: t.gCount[i], first: t.gFirst[i], topic: false });
  }
  chosen.sort((a, b) => b.count - a.count || a.first - b.first);
  for (const k of chosen) out.push(k);
  for (const i of topics) {
    if (out.length >= MAX_KEYWORDS) break;
    if (t.tCount[i] === 1) out.push({ text: t.tText[i], count: 1, first: t.tFirst[i], topic: true });
  }
  return out;
}

// One month: its counters, its best points, and a candidate table while open
// (or, sealed, the keywords chosen from it).
class MonthState {
  readonly key: number; // year * 12 + month - 1
  moments = 0;
  events = 0;
  from = Infinity;
  to = -Infinity;
  readonly emotions = [0, 0, 0, 0, 0, 0];
  touched = 0;
  table: Table | undefined;
  sealed: Kw[] | undefined;
  readonly pText: string[] = new Array(MAX_POINTS).fill("");
  readonly pRank = new Float64Array(MAX_POINTS * 4); // per point: importance, intensity, t, seq
  pN = 0;
  constructor(key: number) {
    this.key = key;
  }
}

// Whether point a (importance, intensity, t, seq) ranks above point b:
// more important, then more intense, then newer, then added first.
function above(r: Float64Array, a: number, imp: number, int: number, t: number, seq: number): boolean {
  const o = a * 4;
  if (imp !== r[o]) return imp > r[o];
  if (int !== r[o + 1]) return int > r[o + 1];
  if (t !== r[o + 2]) return t > r[o + 2];
  return seq < r[o + 3];
}

function checkNumber(x: DigestInput, field: "importance" | "significance" | "emotion_intensity", max: number): number {
  const v = x[field];
  if (v === undefined) return 0;
  if (typeof v !== "number" || !(v >= 0 && v <= max)) throw new RangeError(`digest: ${field} must be a number from 0 to ${max}`);
  return v;
}

// Bounded memory: a month holds at most GRAM_CAP + TOPIC_CAP candidates while
// open (OPEN_MAX months at once) and its MAX_KEYWORDS keywords once sealed,
// MAX_POINTS points always. Given `emit`, the builder also holds at most
// MAX_MONTHS months: a new month beyond them finishes the month it saw least
// recently and hands its digest to `emit` (then that month, if its records come
// back, starts a second digest: two digests of one month count different
// records, as they do when a month straddles two segments). Without `emit`
// every month waits for take(), each costing about what its digest does.
export class DigestBuilder {
  private readonly emit: ((d: Digest) => void) | undefined;
  private months: MonthState[] = [];
  private readonly tables: Table[] = [];
  private readonly door = new HashSet(DOOR_SLOTS, DOOR_LIMIT);
  private readonly rec = new HashSet(REC_SLOTS, REC_SLOTS); // never cleared mid-record: REC_LIMIT stops first
  private readonly run = new Uint32Array(RUN_MAX);
  private readonly numeral = new Uint8Array(RUN_MAX); // run[i] is a numeral
  private seq = 0;
  private last: MonthState | undefined;
  // the local month last computed: [mStart, mEnd) in unix s, under offset mOff
  private mStart = 0;
  private mEnd = 0;
  private mKey = 0;
  private mOff = NaN;

  constructor(emit?: (d: Digest) => void) {
    if (emit !== undefined && typeof emit !== "function") throw new TypeError("digest: emit must be a function");
    this.emit = emit;
    for (let i = 0; i < OPEN_MAX; i++) {
      const t = new Table();
      t.clear();
      this.tables.push(t);
    }
  }

  // Adds one record. Bad input throws (TypeError, RangeError) and changes nothing.
  add(x: DigestInput): void {
    if (typeof x !== "object" || x === null) throw new TypeError("digest: not a record");
    if (x.type !== "moment" && x.type !== "event") throw new RangeError('digest: type must be "moment" or "event"');
    if (typeof x.t !== "number" || !(x.t >= 0 && x.t < 0x100000000)) throw new RangeError("digest: t must be unix seconds");
    if (typeof x.content !== "string") throw new TypeError("digest: content must be a string");
    if (x.topic !== undefined && typeof x.topic !== "string") throw new TypeError("digest: topic must be a string");
    const e = x.emotion_type;
    if (e !== undefined && (typeof e !== "number" || !Number.isInteger(e) || e < 0 || e >= EMOTION_COUNT)) throw new RangeError("digest: emotion_type must be 0 to 5");
    const importance = checkNumber(x, "importance", 10);
    const significance = checkNumber(x, "significance", 10);
    const intensity = checkNumber(x, "emotion_intensity", 10);
    const t = Math.floor(x.t);

    const m = this.month(t);
    const seq = ++this.seq;
    m.touched = seq;
    if (x.type === "moment") m.moments++;
    else m.events++;
    if (t < m.from) m.from = t;
    if (t > m.to) m.to = t;
    if (e !== undefined) m.emotions[e]++;
    const table = this.open(m);

    let topic = x.topic === undefined ? "" : x.topic.trim();
    if (topic !== "") {
      topic = truncate(topic, TOPIC_MAX_BYTES);
      table.topic(topic, 1, seq, seq);
    }
    this.scan(x.content, m, table);

    const rank = x.type === "moment" ? importance : significance;
    if (x.type === "moment" || significance >= EVENT_POINT_SIGNIFICANCE) this.offer(m, rank, intensity, t, seq, topic, x.content);
  }

  // One digest per month, oldest first, each cut to DIGEST_MAX_BYTES; the builder starts over.
  take(): Digest[] {
    const months = this.months;
    months.sort((a, b) => a.key - b.key);
    const out: Digest[] = new Array(months.length).fill(undefined);
    for (let i = 0; i < months.length; i++) out[i] = fitDigest(this.digestOf(months[i]));
    this.months = [];
    for (const t of this.tables) t.clear();
    this.door.clear();
    this.rec.clear();
    this.seq = 0;
    this.last = undefined;
    this.mOff = NaN;
    return out;
  }

  // How many strings the builder holds (candidates, topics, points, sealed
  // keywords): what its memory grows with. For tests of its bounds.
  held(): number {
    let n = 0;
    for (const t of this.tables) if (t.owner) n += t.tN + t.gN;
    for (const m of this.months) n += m.pN + (m.sealed ? m.sealed.length : 0);
    return n;
  }

  private month(t: number): MonthState {
    let key: number;
    if (this.mOff === utcOffset() && t >= this.mStart && t < this.mEnd) key = this.mKey;
    else {
      const l = toLocal(t * 1000);
      key = l.year * 12 + l.month - 1;
      this.mStart = fromLocal(l.year, l.month, 1) / 1000;
      this.mEnd = fromLocal(l.year, l.month + 1, 1) / 1000;
      this.mKey = key;
      this.mOff = utcOffset();
    }
    if (this.last && this.last.key === key) return this.last;
    let m: MonthState | undefined;
    for (const x of this.months) if (x.key === key) m = x;
    if (!m) {
      if (this.emit && this.months.length >= MAX_MONTHS) this.finish();
      m = new MonthState(key);
      this.months.push(m); // once per month, not per record
    }
    return (this.last = m);
  }

  // Hands the digest of the month seen least recently to emit, and forgets the
  // month. If emit throws, nothing has changed.
  private finish(): void {
    let old = this.months[0];
    for (const x of this.months) if (x.touched < old.touched) old = x;
    this.emit!(fitDigest(this.digestOf(old)));
    if (old.table) old.table.clear();
    old.table = undefined;
    const i = this.months.indexOf(old);
    this.months.splice(i, 1);
    if (this.last === old) this.last = undefined;
  }

  // The candidate table of month m, sealing the month left longest if none is free.
  private open(m: MonthState): Table {
    if (m.table) return m.table;
    let table: Table | undefined;
    for (const t of this.tables) if (!t.owner) table = t;
    if (!table) {
      table = this.tables[0];
      for (const t of this.tables) if (t.owner!.touched < table.owner!.touched) table = t;
      const old = table.owner!;
      old.sealed = chooseKeywords(table);
      old.table = undefined;
      table.clear();
    }
    table.owner = m;
    m.table = table;
    if (m.sealed) {
      for (const k of m.sealed) {
        if (k.topic) table.topic(k.text, k.count, k.first, k.first);
        else table.admit(hashString(k.text), k.text, k.count, k.first, k.first);
      }
      m.sealed = undefined;
    }
    return table;
  }

  // Counts the grams of one record's text, each once: CJK runs (split at
  // function characters and anything else) give their 2-4 character grams,
  // ASCII letters and digits give words of 3+ characters, lowercased.
  private scan(content: string, m: MonthState, table: Table): void {
    this.rec.clear();
    const run = this.run;
    let n = 0, kind = 0; // 1: CJK run, 2: ASCII word
    for (const ch of content) {
      let cp = ch.codePointAt(0)!;
      if (cp >= 0xff01 && cp <= 0xff5e) cp -= 0xfee0; // full-width ASCII
      let k = 0;
      if (cp < 0x80) {
        if (cp >= 0x41 && cp <= 0x5a) cp += 0x20;
        if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39)) k = 2;
      } else if (isCjk(cp) && !among(STOP_CPS, cp)) k = 1;
      if (k !== kind || n === RUN_MAX) {
        this.flush(kind, n, m, table);
        n = 0;
        kind = k;
      }
      if (k !== 0) {
        this.numeral[n] = k === 1 && among(NUMERAL_CPS, cp) ? 1 : 0;
        run[n++] = cp;
      }
    }
    this.flush(kind, n, m, table);
  }

  private flush(kind: number, n: number, m: MonthState, table: Table): void {
    const run = this.run;
    if (kind === 1) {
      for (let i = 0; i + 1 < n; i++)
        for (let len = 2; len <= 4 && i + len <= n; len++) {
          let numeral = true;
          for (let j = i; j < i + len && numeral; j++) if (this.numeral[j] === 0) numeral = false;
          if (!numeral) this.gram(i, len, m, table);
        }
    } else if (kind === 2 && n >= 3 && n <= WORD_MAX_CHARS) {
      let letter = false;
      for (let i = 0; i < n; i++) if (run[i] >= 0x61) letter = true;
      if (letter && EN_STOP.indexOf("|" + textOf(run, 0, n) + "|") < 0) this.gram(0, n, m, table);
    }
  }

  private gram(at: number, len: number, m: MonthState, table: Table): void {
    if (this.rec.n >= REC_LIMIT) return; // a record's grams beyond this are not counted
    const h = hashCps(this.run, at, len);
    if (this.rec.seen(h)) return; // once per record
    const seq = this.seq;
    if (table.hit(h, seq)) return;
    // the doorkeeper knows grams seen once, per month
    const d = Math.imul(h ^ (m.key + 1), 0x9e3779b1) >>> 0 || 1;
    if (!this.door.seen(d)) return;
    const text = textOf(this.run, at, len);
    for (const w of STOP_WORDS) if (text.includes(w)) return; // a function word: never a candidate
    table.admit(h, text, 2, seq, seq);
  }

  private offer(m: MonthState, imp: number, int: number, t: number, seq: number, topic: string, content: string): void {
    const r = m.pRank;
    let slot = m.pN;
    if (slot < MAX_POINTS) m.pN++;
    else {
      slot = 0; // the lowest-ranked point
      for (let i = 1; i < MAX_POINTS; i++) if (above(r, i, r[slot * 4], r[slot * 4 + 1], r[slot * 4 + 2], r[slot * 4 + 3])) slot = i;
      if (!above(r, slot, imp, int, t, seq)) return;
    }
    const o = slot * 4;
    r[o] = imp;
    r[o + 1] = int;
    r[o + 2] = t;
    r[o + 3] = seq;
    m.pText[slot] = truncate(topic === "" ? content : `${topic}: ${content}`, POINT_MAX_BYTES);
  }

  private digestOf(m: MonthState): Digest {
    const kws = m.table ? chooseKeywords(m.table) : m.sealed ?? [];
    const keywords: string[] = new Array(kws.length).fill("");
    for (let i = 0; i < kws.length; i++) keywords[i] = kws[i].text;
    // points best first
    const order: number[] = new Array(m.pN).fill(0);
    for (let i = 0; i < m.pN; i++) order[i] = i;
    const r = m.pRank;
    order.sort((a, b) => (above(r, b, r[a * 4], r[a * 4 + 1], r[a * 4 + 2], r[a * 4 + 3]) ? -1 : 1));
    const points: string[] = new Array(m.pN).fill("");
    for (let i = 0; i < m.pN; i++) points[i] = m.pText[order[i]];
    const year = Math.floor(m.key / 12), month = (m.key % 12) + 1;
    return {
      month: `${year}-${pad2(month)}`,
      from: m.from,
      to: m.to,
      moments: m.moments,
      events: m.events,
      keywords,
      points,
      emotions: m.emotions.slice(),
    };
  }
}

// The UTF-8 size of a digest's JSON.
export function digestBytes(d: Digest): number {
  return byteLength(JSON.stringify(d));
}

// A copy of d whose JSON is at most max bytes: points are shortened (the
// longest first, at a character boundary) down to MIN_POINT_BYTES, then the
// least important dropped down to one, then keywords dropped from the end,
// then the last point. A RangeError when even that does not fit.
export function fitDigest(d: Digest, max = DIGEST_MAX_BYTES): Digest {
  if (!Number.isInteger(max) || max < 0) throw new RangeError("digest: max must be a whole number of bytes");
  if (typeof d !== "object" || d === null || !Array.isArray(d.points) || !Array.isArray(d.keywords)) throw new TypeError("digest: not a digest");
  const out: Digest = {
    month: d.month,
    from: d.from,
    to: d.to,
    moments: d.moments,
    events: d.events,
    keywords: d.keywords.slice(0, MAX_KEYWORDS),
    points: d.points.slice(0, MAX_POINTS),
    emotions: d.emotions.slice(),
  };
  let over = digestBytes(out) - max;
  if (over <= 0) return out;
  const p = out.points;
  const sizes: number[] = new Array(p.length).fill(0);
  for (let i = 0; i < p.length; i++) sizes[i] = byteLength(p[i]);
  // shorten every point longer than a level L (>= MIN_POINT_BYTES) to L, the
  // highest L that saves enough; again if JSON escapes made it fall short
  for (let round = 0; round < 8 && over > 0; round++) {
    let hi = MIN_POINT_BYTES;
    for (const s of sizes) if (s > hi) hi = s;
    if (hi === MIN_POINT_BYTES) break;
    const saved = (l: number): number => {
      let n = 0;
      for (const s of sizes) if (s > l) n += s - l;
      return n;
    };
    let lo = MIN_POINT_BYTES; // saved(lo) is the most there is; find the highest level that saves `over`
    if (saved(lo) >= over) {
      let top = hi;
      while (lo < top) {
        const mid = Math.ceil((lo + top) / 2);
        if (saved(mid) >= over) lo = mid;
        else top = mid - 1;
      }
    }
    for (let i = 0; i < p.length; i++)
      if (sizes[i] > lo) {
        p[i] = truncate(p[i], lo);
        sizes[i] = byteLength(p[i]);
      }
    over = digestBytes(out) - max;
  }
  while (p.length > 1 && over > 0) {
    p.pop();
    over = digestBytes(out) - max;
  }
  while (out.keywords.length > 0 && over > 0) {
    out.keywords.pop();
    over = digestBytes(out) - max;
  }
  if (over > 0 && p.length === 1) {
    const b = byteLength(p[0]);
    if (b > over) p[0] = truncate(p[0], b - over);
    over = digestBytes(out) - max;
    if (over > 0) {
      p.pop();
      over = digestBytes(out) - max;
    }
  }
  if (over > 0) throw new RangeError(`digest: ${digestBytes(out)} bytes even without points and keywords, over ${max}`);
  return out;
}

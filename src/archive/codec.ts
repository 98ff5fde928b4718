// Archive lines, format 2 (docs/FORMAT.md §3.2): compact JSON with short keys,
// the record's time as unix seconds, and a CRC-32 of the line at its end.
//
//   {"t":1772330400,"c":"主人会游泳","z":"1a2b3c4d"}
//
// "t" comes first, so time tests read the digits raw; "z" last, the CRC of every
// byte before `,"z":"`, so any damaged line is found without trusting it. The
// record's id (recordId: the same for the record in NVS) is not stored: it is
// made from the fields, unless the text had to be cut to fit ("x" holds it).
//
// Format 3 (§3.16): a text field is written in compact text (src/text/compact.ts)
// under its key in capitals ("C", "P", "K") when that takes fewer bytes than its
// UTF-8 under the plain key; readers take either, and always hand out the text.
//
// Format 4 (§3.18): the same lines with a shorter frame, the CRC as 6 base64url
// characters (src/archive/frame.ts): `,"z":"AbCdEQ"}`. Readers take every
// format line by line: a line's frame is said by its own bytes.

import { encode, decode, truncate, byteLength } from "../text/utf8";
import { crc32 } from "../nvs/crc32";
import { formatIso, fromLocal } from "../time/local";
import { now } from "../time/clock";
import { EMOTIONS, REPEATS, type Fact, type Moment, type Event } from "../memory/types";
import { recordId, hex8, type ArchiveRecord, type ArchivedItem, type ArchiveType } from "./line";
import { compactEncode, compactDecode, TABLE1 } from "../text/compact";
import { Z_KEY, SUFFIX3, SUFFIX4, putB64, putHex, b64At, hexAt, frameOf } from "./frame";

// "passage": the episodes' texts (FORMAT.md §4.3), a stream the episode store
// keeps with this same code (not one of the Archive's STREAMS)
export type Stream = "fact" | "moment" | "event" | "digest" | "passage";
export type ArchiveStreamName = Exclude<Stream, "passage">;
export const STREAMS: readonly ArchiveStreamName[] = ["fact", "moment", "event", "digest"];
export const STREAM_CHAR: Record<Stream, string> = { fact: "f", moment: "m", event: "e", digest: "d", passage: "p" };
export const STREAM_CODE: Record<Stream, number> = { fact: 1, moment: 2, event: 3, digest: 4, passage: 5 };

export const VERSION = 4; // of the segments this code starts (3: an 8-hex-digit CRC; 2: lines without compact text)
export const TEXT_TABLE = TABLE1.version; // the compact-text table new lines are written with

// The format new lines and segment headers are written in: 4, or 3 or 2 as a
// device from before wrote them (for tests of a device that continues an archive).
let writeFormat = VERSION;
export function setWriteFormat(v: 2 | 3 | 4): void {
  writeFormat = v;
}
export function getWriteFormat(): number {
  return writeFormat;
}
export const MAX_LINE = 512; // bytes, with the "\n"
export const NL = 10;
// Format 4 writes a time from EPOCH4 on as its offset from it, under "T"
// (FORMAT.md §3.18): 9 digits instead of 10 until 2051. Still the first key,
// still digits read raw (lineT).
export const EPOCH4 = 1577836800; // 2020-01-01T00:00:00Z
function tKey(t: number, fmt = writeFormat): string {
  return fmt >= 4 && t >= EPOCH4 ? `"T":${t - EPOCH4}` : `"t":${t}`;
}
export const SUFFIX = SUFFIX3; // formats 2 and 3: ,"z":"hhhhhhhh"}
export { SUFFIX4 }; // format 4: ,"z":"bbbbbb"}

export interface Line {
  id: string;
  t: number; // unix seconds
  line: Uint8Array; // with its "\n"
  text?: string; // a fact's content, when its line may be packed with others' (FORMAT.md §3.19)
}

// Seals a line: appends ,"z":"<crc of body>"}\n to the body, the CRC in the
// frame of format `fmt` (4: 6 base64url characters; 2 and 3: 8 hex digits).
export function sealLine(body: string, fmt = writeFormat): Uint8Array {
  const b = encode(body);
  const k = fmt >= 4 ? SUFFIX4 : SUFFIX3;
  const out = new Uint8Array(b.length + k + 1);
  out.set(b, 0);
  out.set(Z_KEY, b.length);
  if (fmt >= 4) putB64(out, b.length + 6, crc32(b));
  else putHex(out, b.length + 6, crc32(b));
  out[b.length + k - 2] = 34;
  out[b.length + k - 1] = 125;
  out[b.length + k] = NL;
  return out;
}

// The event's unix seconds: its local date and time (00:00 without a time); an
// annual MM-DD event takes the current local year.
export function eventSeconds(e: Event, nowMs = now()): number {
  let date = e.date;
  if (date.length === 5) date = formatIso(nowMs).slice(0, 4) + "-" + date;
  const tm = /^(\d{2}):(\d{2})$/.exec(e.time);
  const ms = fromLocal(Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10)), tm ? Number(tm[1]) : 0, tm ? Number(tm[2]) : 0);
  return Math.floor(ms / 1000);
}

function flagsOf(e: Event): number {
  return (e.schedule ? 1 : 0) | (e.completed ? 2 : 0) | (Math.max(0, REPEATS.indexOf(e.repeat)) << 2);
}

const q = (s: string) => JSON.stringify(s);
// A text field: `"key":"<compact>"` with the key in capitals when shorter, else `"key":"<text>"`.
function tq(key: string, s: string, fmt = writeFormat): string {
  const plain = q(s);
  if (fmt < 3) return `"${key}":${plain}`;
  const c = compactEncode(s);
  if (c !== s) {
    const coded = q(c);
    if (byteLength(coded) < byteLength(plain)) return `"${key.toUpperCase()}":${coded}`;
  }
  return `"${key}":${plain}`;
}
const n = (v: unknown) => (typeof v === "number" && isFinite(v) ? Math.round(v) : 0);

function body(type: ArchiveType, r: ArchiveRecord, t: number, topic: string, content: string, x: string): string {
  const tail = x ? `,"x":"${x}"` : "";
  if (type === "fact") return `{${tKey(t)},${tq("c", content)}${tail}`;
  if (type === "moment") {
    const m = r as Moment;
    return `{${tKey(t)},${tq("p", topic)},${tq("c", content)},"e":${Math.max(0, EMOTIONS.indexOf(m.emotion))},"i":${n(m.intensity)},"m":${n(m.importance)}${tail}`;
  }
  const e = r as Event;
  return `{${tKey(t)},"d":${q(e.date)},"h":${q(e.time)},"y":${q(e.eventType)},${tq("c", content)},"e":${Math.max(0, EMOTIONS.indexOf(e.emotion))},"i":${n(e.intensity)},"g":${n(e.significance)},"r":${n(e.priority)},"f":${flagsOf(e)}${tail}`;
}

// The line of a record. Content (then topic) longer than a line allows is cut
// at a character boundary, and the line then carries the record's id. Throws a
// RangeError for something that is not a record it can store.
export function encodeRecord(type: ArchiveType, r: ArchiveRecord): Line {
  if (typeof r !== "object" || r === null || typeof (r as Fact).content !== "string") throw new RangeError("archive: not a record");
  let t: number;
  if (type === "event") {
    const e = r as Event;
    if (typeof e.date !== "string" || !/^(\d{4}-)?\d{2}-\d{2}$/.test(e.date)) throw new RangeError(`archive: bad event date ${String(e.date)}`);
    t = eventSeconds(e);
  } else t = (r as Fact).timestamp;
  if (typeof t !== "number" || !(t >= 0 && t <= 0xffffffff) || Math.floor(t) !== t) throw new RangeError(`archive: bad timestamp ${String(t)}`);
  const id = recordId(type, r);
  let content = (r as Fact).content;
  let topic = type === "moment" ? String((r as Moment).topic ?? "") : "";
  let x = "";
  for (;;) {
    const line = sealLine(body(type, r, t, topic, content, x));
    const over = line.length - MAX_LINE;
    if (over <= 0) return type === "fact" && !x && writeFormat >= 4 ? { id, t, line, text: content } : { id, t, line };
    x = id;
    const cb = byteLength(content);
    if (cb > 0) content = truncate(content, Math.max(0, cb - Math.max(over, 1) - 15));
    else if (topic) topic = truncate(topic, Math.max(0, byteLength(topic) - Math.max(over, 1) - 15));
    else throw new RangeError("archive: record too large");
  }
}

// The header line every segment starts with.
export function headerLine(stream: Stream, seq: number, fmt = writeFormat): Uint8Array {
  if (fmt < 3) return sealLine(`{"v":2,"s":"${STREAM_CHAR[stream]}","n":${seq}`, fmt);
  return sealLine(`{"v":${fmt >= 4 ? 4 : 3},"s":"${STREAM_CHAR[stream]}","n":${seq},"k":${TEXT_TABLE}`, fmt);
}

// ---- reading -----------------------------------------------------------------------

// Does the line b[s..e) (without "\n") end with a CRC that matches it? In
// either frame (format 4's or formats 2 and 3's), each line by its own bytes.
export function lineOk(b: Uint8Array, s: number, e: number): boolean {
  const f = e - s >= SUFFIX4 + 2 ? frameOf(b, s, e) : 0;
  if (f === 4) return b64At(b, e - 8) === crc32(b, s, e - SUFFIX4);
  if (f === 3 && e - s >= SUFFIX3 + 2) return hexAt(b, e - 10) === crc32(b, s, e - SUFFIX3);
  return false;
}

// The frame of a checked line: 4 (a format-4 line), 3 (format 2 or 3), 0 neither.
export { frameOf };

// The time of a line that starts like a record ({"t":digits,), or -1. Raw: no parse.
// `{"T":` (format 4) holds the seconds since EPOCH4.
export function lineT(b: Uint8Array, s: number, e: number): number {
  const k = b[s + 2];
  if (b[s] !== 123 || b[s + 1] !== 34 || (k !== 116 && k !== 84) || b[s + 3] !== 34 || b[s + 4] !== 58) return -1;
  let v = 0, i = s + 5;
  for (; i < e && i < s + 16; i++) {
    const c = b[i];
    if (c === 44) return i > s + 5 ? (k === 84 ? v + EPOCH4 : v) : -1;
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return -1;
}

function str(v: unknown): v is string {
  return typeof v === "string";
}

// Has a parsed line a time? Format 4's "T" (from EPOCH4) is made o.t, unix
// seconds, as every other format's "t"; a line with both has none.
function hasT(o: any): boolean {
  if (typeof o.T === "number") {
    if (o.t !== undefined) return false;
    o.t = o.T + EPOCH4;
  }
  return typeof o.t === "number";
}

// The text of field `key` of a parsed line: compact under the key in capitals
// (undefined when it does not decode), else plain; undefined when absent.
function textOf(o: any, key: string): string | undefined {
  const c = o[key.toUpperCase()];
  if (str(c)) return compactDecode(c);
  const p = o[key];
  return str(p) ? p : undefined;
}

// The record (or digest) in a checked line, as recall returns it; undefined for
// a line that is not one of this stream's (a header line, a foreign object).
// The caller checks the CRC first (lineOk). A packed fact line (§3.19) gives
// its first fact here: readers that serve records take parseRecords.
export function parseRecord(b: Uint8Array, s: number, e: number, stream: Stream): ArchivedItem | undefined {
  const out: Rec[] = [];
  return parseRecords(b, s, e, stream, out) ? out[0].it : undefined;
}

// A record of a line and its time (unix seconds).
export interface Rec {
  it: ArchivedItem;
  t: number;
}

// Every record a checked line holds, in the line's order, into `out` (emptied
// first): one, or a packed fact line's (FORMAT.md §3.19), the first fact and
// those after it. False, with `out` empty, for a line that is not one of this
// stream's records, or a packed line whose packed part does not read whole.
// (One function, not a parse and a builder: recall's calls are the deepest
// on the device's 1,024-slot stack, npm run heap.)
export function parseRecords(b: Uint8Array, s: number, e: number, stream: Stream, out: Rec[]): boolean {
  out.length = 0;
  let o: any;
  try {
    o = JSON.parse(decode(b.subarray(s, e)));
  } catch {
    return false;
  }
  if (typeof o !== "object" || o === null || Array.isArray(o) || !hasT(o)) return false;
  const c = textOf(o, "c");
  if (c === undefined) return false;
  o.c = c;
  const t = o.t;
  let it: ArchivedItem | undefined;
  if (stream === "passage") it = passageItem(o);
  else {
    if (stream === "moment") o.p = textOf(o, "p");
    if (Array.isArray(o.K)) {
      const kw: string[] = [];
      for (const k of o.K) {
        const d = str(k) ? compactDecode(k) : undefined;
        if (d === undefined) return false;
        kw.push(d);
      }
      o.k = kw;
    }
    const ts = formatIso(t * 1000);
    const x = str(o.x) && o.x.length === 8 ? o.x : "";
    if (stream === "fact") it = { timestamp: ts, type: "fact", id: x || hex8(crc32(encode(`fact\n${t}\n${o.c}`))), content: o.c };
    else if (stream === "moment") {
      if (str(o.p)) it = { timestamp: ts, type: "moment", id: x || hex8(crc32(encode(`moment\n${t}\n${o.p}\n${o.c}`))), content: o.c, topic: o.p, emotion_type: n(o.e), emotion_intensity: n(o.i), importance: n(o.m) };
    } else if (stream === "event") {
      if (str(o.d) && str(o.h) && str(o.y))
        it = { timestamp: ts, type: "event", id: x || hex8(crc32(encode(`event\n${o.d}\n${o.h}\n${o.c}`))), date: o.d, time: o.h, event_type: o.y, content: o.c, emotion_type: n(o.e), emotion_intensity: n(o.i), significance: n(o.g), priority: n(o.r), flags: n(o.f) };
    } else if (typeof o.u === "number" && str(o.o) && typeof o.q === "number") {
      const kw: string[] = Array.isArray(o.k) ? o.k.filter(str) : [];
      it = { timestamp: ts, type: o.w === 1 ? "event" : "moment", id: hex8(crc32(encode(`digest\n${o.w === 1 ? "e" : "m"}${o.q}\n${o.o}`))), content: o.c, digest: true, month: o.o, until: formatIso(o.u * 1000), count: n(o.n), keywords: kw };
    }
  }
  if (!it) return false;
  out.push({ it, t });
  if (stream !== "fact" || (o.a === undefined && o.A === undefined)) return true;
  const coded = o.A !== undefined;
  const a = coded ? o.A : o.a;
  if ((coded && o.a !== undefined) || !Array.isArray(a) || a.length < 2 || a.length % 2 || a.length > 2 * (PACK_MAX - 1)) {
    out.length = 0;
    return false;
  }
  for (let i = 0; i < a.length; i += 2) {
    const d = a[i], v = a[i + 1];
    const ti = t + d;
    const ci = str(v) ? (coded ? compactDecode(v) : v) : undefined;
    if (typeof d !== "number" || Math.floor(d) !== d || d < 0 || ti > 0xffffffff || ci === undefined) {
      out.length = 0;
      return false;
    }
    out.push({ it: { timestamp: formatIso(ti * 1000), type: "fact", id: hex8(crc32(encode(`fact\n${ti}\n${ci}`))), content: ci }, t: ti });
  }
  return true;
}

// Is the checked line b[s..e) a packed fact line (§3.19)? By its bytes: its
// packed part's key `,"a":[` or `,"A":[` stands after the first text. Cheap;
// a false answer is exact, a true one is confirmed by parsing.
export function mayBePacked(b: Uint8Array, s: number, e: number): boolean {
  for (let i = s + 8; i + 5 < e; i++)
    if (b[i] === 44 && b[i + 1] === 34 && (b[i + 2] === 97 || b[i + 2] === 65) && b[i + 3] === 34 && b[i + 4] === 58 && b[i + 5] === 91) return true;
  return false;
}

// May the line b[s..e) of `stream`, whose first time is `t`, hold a record
// timed in [lo, hi]? Its time tells, but for a packed fact line that starts
// before lo: its later facts are not before its first, and may be inside.
export function lineMayHold(b: Uint8Array, s: number, e: number, stream: Stream, t: number, lo: number, hi: number): boolean {
  return t <= hi && (t >= lo || (stream === "fact" && mayBePacked(b, s, e)));
}

// ---- packed fact lines (format 4, FORMAT.md §3.19) ---------------------------------

// At most this many facts to a line: a line that no repair can read loses no
// more (its segment's twin or parity brings it back, §3.15).
export const PACK_MAX = 8;

// The line of facts `recs` (in time order): the first as a
// fact line writes it, the others after it under "a" (plain) or "A" (compact
// text) as [seconds after the first, text, ...], whichever is shorter.
export function packLine(recs: readonly { t: number; text: string }[]): Uint8Array {
  const h = recs[0];
  let body = `{${tKey(h.t)},${tq("c", h.text)}`;
  if (recs.length > 1) {
    let plain = "", coded = "", codable = true;
    for (let k = 1; k < recs.length; k++) {
      const d = recs[k].t - h.t, x = recs[k].text;
      const c = compactEncode(x);
      if (c === x || compactDecode(c) !== x) codable = false;
      plain += `${k > 1 ? "," : ""}${d},${q(x)}`;
      if (codable) coded += `${k > 1 ? "," : ""}${d},${q(c)}`;
    }
    body += codable && byteLength(coded) < byteLength(plain) ? `,"A":[${coded}]` : `,"a":[${plain}]`;
  }
  return sealLine(body);
}

// The lines of one append of facts, packed: each run of facts (in the order
// given, each time not before the one before it, no "x") in as few lines as fit
// 512 bytes and PACK_MAX facts. A line holds the id and time of its first.
// Lines that cannot be packed (another stream, an older format) pass as they
// are, and so does a run whose line would not read back as exactly its facts
// (its first passes alone; the next run starts after it).
export function packFacts(lines: readonly Line[]): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < lines.length; ) {
    const head = lines[i];
    let best = head, j = i + 1;
    const run: { t: number; text: string }[] = [];
    if (head.text !== undefined) {
      run.push({ t: head.t, text: head.text });
      for (; j < lines.length && j - i < PACK_MAX; j++) {
        const l = lines[j];
        if (l.text === undefined || l.t < lines[j - 1].t) break;
        run.push({ t: l.t, text: l.text });
        const p = packLine(run);
        if (p.length > MAX_LINE) {
          run.pop();
          break;
        }
        best = { id: head.id, t: head.t, line: p };
      }
    }
    if (best !== head && !readsBack(best.line, run)) {
      out.push(head);
      i++;
      continue;
    }
    out.push(best);
    i = j;
  }
  return out;
}

// Does the packed line read back as exactly these facts (times and texts)?
function readsBack(line: Uint8Array, run: readonly { t: number; text: string }[]): boolean {
  const back: Rec[] = [];
  if (!parseRecords(line, 0, line.length - 1, "fact", back) || back.length !== run.length) return false;
  for (let i = 0; i < run.length; i++) if (back[i].t !== run[i].t || back[i].it.content !== run[i].text) return false;
  return true;
}

// The searchable texts of a record line (content, topic; a digest's keywords).
export function textsOf(it: ArchivedItem): string[] {
  const out = [it.content];
  if (it.topic) out.push(it.topic);
  if (it.keywords) for (const k of it.keywords) out.push(k);
  return out;
}

// ---- digests -----------------------------------------------------------------------

export interface DigestLine {
  from: number; // unix s of the first record folded in
  to: number; // of the last
  month: string; // YYYY-MM, local
  count: number;
  keywords: string[];
  points: string; // the key points, joined
  source: number; // the retired segment's sequence number (makes a repeated retire idempotent)
  events: boolean; // a digest of events rather than moments
}

// A digest's keywords: compact ("K") when that is shorter, else plain ("k").
function keywords(kw: string[], fmt = writeFormat): string {
  const plain = JSON.stringify(kw);
  if (fmt < 3) return `"k":${plain}`;
  const c = kw.map((k) => compactEncode(k));
  const coded = JSON.stringify(c);
  return byteLength(coded) < byteLength(plain) ? `"K":${coded}` : `"k":${plain}`;
}

export function encodeDigest(d: DigestLine): Line {
  let points = d.points;
  let kw = d.keywords.slice(0, 8);
  for (;;) {
    const b = `{${tKey(d.from)},"u":${d.to},"o":${q(d.month)},"n":${d.count},"w":${d.events ? 1 : 0},"q":${d.source},${keywords(kw)},${tq("c", points)}`;
    const line = sealLine(b);
    const over = line.length - MAX_LINE;
    const id = hex8(crc32(encode(`digest\n${d.events ? "e" : "m"}${d.source}\n${d.month}`)));
    if (over <= 0) return { id, t: d.from, line };
    const pb = byteLength(points);
    if (pb > 0) points = truncate(points, Math.max(0, pb - over));
    else if (kw.length) kw = kw.slice(0, kw.length - 1);
    else throw new RangeError("archive: digest too large");
  }
}

// ---- passages: the episodes' texts (FORMAT.md §4.3) ------------------------------------

// A passage line's fields: its episode's createdAt and id, a piece of the
// content, and (on the last line of a text) its keywords joined by ",".
export interface PassagePiece {
  t: number;
  q: number;
  c: string;
  k: string | undefined;
}

// The checked line [s, e) of a passage (with or without its "\n"), or undefined.
export function parsePassage(b: Uint8Array, s: number, e: number): PassagePiece | undefined {
  let o: any;
  try {
    o = JSON.parse(decode(b.subarray(s, e)));
  } catch {
    return undefined;
  }
  if (typeof o !== "object" || o === null || !hasT(o) || typeof o.q !== "number") return undefined;
  const c = textOf(o, "c");
  if (c === undefined) return undefined;
  let k: string | undefined;
  if (o.k !== undefined || o.K !== undefined) {
    k = textOf(o, "k");
    if (k === undefined) return undefined;
  }
  return { t: o.t, q: o.q, c, k };
}

function passageItem(o: any): ArchivedItem | undefined {
  if (typeof o.q !== "number" || o.c === undefined) return undefined;
  const k = o.k !== undefined || o.K !== undefined ? textOf(o, "k") : "";
  if (k === undefined) return undefined;
  const it: ArchivedItem = { timestamp: formatIso(o.t * 1000), type: "fact", id: hex8(o.q >>> 0), content: o.c };
  if (k) it.keywords = k.split(",");
  return it;
}

function passageLine(t: number, id: number, c: string, k: string | undefined): Uint8Array {
  return sealLine(`{${tKey(t)},"q":${id},${tq("c", c)}${k === undefined ? "" : "," + tq("k", k)}`);
}

// The lines of an episode's text: one when it fits MAX_LINE, else the content
// cut at characters over as many lines as it takes, the keywords on the last.
export function encodePassage(t: number, id: number, content: string, keywords: string): Uint8Array[] {
  const one = passageLine(t, id, content, keywords);
  if (one.length <= MAX_LINE) return [one];
  const out: Uint8Array[] = [];
  const cps = Array.from(content);
  let at = 0;
  while (at < cps.length) {
    // the longest run of characters from `at` that fits a line (at least one)
    let lo = 1, hi = cps.length - at;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (passageLine(t, id, cps.slice(at, at + mid).join(""), undefined).length <= MAX_LINE) lo = mid;
      else hi = mid - 1;
    }
    const piece = cps.slice(at, at + lo).join("");
    at += lo;
    if (at >= cps.length) {
      const last = passageLine(t, id, piece, keywords);
      if (last.length <= MAX_LINE) {
        out.push(last);
        return out;
      }
    }
    out.push(passageLine(t, id, piece, undefined));
  }
  out.push(passageLine(t, id, "", keywords));
  return out;
}

// ---- recoding (format 2 to format 3 or 4) --------------------------------------------

// A checked record line b[s..e) (without "\n") written as format 3 writes its
// text fields: each plain `c`, `p` (a digest's `k`) that takes fewer bytes in
// compact text under its capital key, every other key and value as it is, in
// the same order; sealed with a new CRC in the frame of the format this code
// writes (format 4's is 2 bytes shorter: a line in the older frame always
// changes then). Undefined when nothing gets shorter, or when the new line
// would not read back as the very same record (then the line is kept as it
// is: docs/design/recode.md).
export function recodeLine(b: Uint8Array, s: number, e: number, stream: Stream): Uint8Array | undefined {
  let o: any;
  try {
    o = JSON.parse(decode(b.subarray(s, e)));
  } catch {
    return undefined;
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) return undefined;
  const keys = Object.keys(o);
  if (keys[keys.length - 1] !== "z") return undefined;
  // format 4 writes every line of a format-2 or 3 frame again in its shorter frame
  let body = "{", changed = writeFormat >= 4 && frameOf(b, s, e) !== 4;
  for (let i = 0; i < keys.length - 1; i++) {
    const key = keys[i], v = o[key];
    let part: string;
    if (key === "t" && i === 0 && typeof v === "number") part = tKey(v);
    else if ((key === "c" || key === "p") && str(v)) part = tq(key, v, 3);
    else if (key === "k" && stream === "digest" && Array.isArray(v) && v.every(str)) part = keywords(v, 3);
    else part = `"${key}":${JSON.stringify(v)}`;
    if (part.charCodeAt(1) !== key.charCodeAt(0)) changed = true;
    body += (i ? "," : "") + part;
  }
  if (!changed) return undefined;
  const line = sealLine(body);
  if (line.length > e - s + 1) return undefined;
  const was = parseRecord(b, s, e, stream), now = parseRecord(line, 0, line.length - 1, stream);
  if (!was || !now || JSON.stringify(was) !== JSON.stringify(now) || lineT(line, 0, line.length - 1) !== lineT(b, s, e)) return undefined;
  return line;
}

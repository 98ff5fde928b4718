// One archived record as one JSONL line (seed 000 §12.4), and the checks that
// decide whether a line of the file is a record. docs/FORMAT.md §3.2.
//
//   {"timestamp":"YYYY-MM-DDTHH:MM:SS","type":"fact","id":"1a2b3c4d","content":"…"}
//
// The timestamp comes first at a fixed offset, so that time tests compare raw
// bytes without parsing. It is the record's own local time (not the time it
// was archived). The id is a CRC-32 of the record's identity: archiving the same
// record twice gives the same id.

import { encode, decode, truncate, byteLength, ascii } from "../text/utf8";
import { crc32 } from "../nvs/crc32";
import { formatIso, utcOffset } from "../time/local";
import { now } from "../time/clock";
import { EMOTIONS, REPEATS, type Fact, type Moment, type Event } from "../memory/types";

export type ArchiveType = "fact" | "moment" | "event";
export const ARCHIVE_TYPES: readonly ArchiveType[] = ["fact", "moment", "event"];
// object names fit SPIFFS's 31 bytes: "/moments.jsonl" is 14
export const FILE_BASE: Record<ArchiveType, string> = { fact: "facts", moment: "moments", event: "events" };
export const TYPE_CODE: Record<ArchiveType, number> = { fact: 1, moment: 2, event: 3 };

export const MAX_LINE_BYTES = 512; // with its "\n"
export const NL = 10;
export const PREFIX = '{"timestamp":"';
export const TS_OFFSET = 14; // PREFIX's length in bytes
export const TS_BYTES = 19; // YYYY-MM-DDTHH:MM:SS
const PREFIX_BYTES = ascii(PREFIX); // not encode(): no native call at preload

// What recall returns: the parsed line, exactly as stored.
export interface ArchivedItem {
  timestamp: string;
  type: ArchiveType;
  id: string;
  content: string;
  topic?: string;
  emotion_type?: number;
  emotion_intensity?: number;
  importance?: number;
  date?: string;
  time?: string;
  event_type?: string;
  significance?: number;
  priority?: number;
  flags?: number;
  damaged?: boolean; // set by recall: the record's block failed its CRC (one of its bytes changed at rest)
  // a monthly digest of records that have left the flash (format 2, docs/FORMAT.md §3.2)
  digest?: boolean;
  month?: string; // YYYY-MM
  until?: string; // the last record folded in
  count?: number;
  keywords?: string[];
}

export type ArchiveRecord = Fact | Moment | Event;

// A record ready to append: its line (with "\n"), and what identifies it.
export interface Encoded {
  id: string;
  key: number; // timestamp key (tsKey) of the line
  line: Uint8Array;
  content: string; // as stored (possibly cut)
  topic: string;
  date: string;
  time: string;
}

export function hex8(n: number): string {
  let s = (n >>> 0).toString(16);
  while (s.length < 8) s = "0" + s;
  return s;
}

// The stable id: CRC-32 of type, identity fields and content, as 8 hex digits.
export function recordId(type: ArchiveType, r: ArchiveRecord): string {
  let ident: string;
  if (type === "fact") ident = `fact\n${(r as Fact).timestamp}\n${(r as Fact).content}`;
  else if (type === "moment") ident = `moment\n${(r as Moment).timestamp}\n${(r as Moment).topic}\n${(r as Moment).content}`;
  else ident = `event\n${(r as Event).date}\n${(r as Event).time}\n${(r as Event).content}`;
  return hex8(crc32(encode(ident)));
}

// The ISO timestamp of an event: its date and time (00:00 for a plain event).
// An annual MM-DD event has no year: the current local year is assumed.
export function eventIso(e: Event, nowMs = now()): string {
  let date = e.date;
  if (date.length === 5) date = formatIso(nowMs).slice(0, 4) + "-" + date;
  const t = /^\d{2}:\d{2}$/.test(e.time) ? e.time : "00:00";
  return `${date}T${t}:00`;
}

function isoOf(type: ArchiveType, r: ArchiveRecord): string {
  if (type === "event") return eventIso(r as Event);
  return formatIso((r as Fact).timestamp * 1000);
}

function flagsOf(e: Event): number {
  return (e.schedule ? 1 : 0) | (e.completed ? 2 : 0) | (Math.max(0, REPEATS.indexOf(e.repeat)) << 2);
}

function build(type: ArchiveType, r: ArchiveRecord, id: string, ts: string, topic: string, content: string): string {
  if (type === "fact") return JSON.stringify({ timestamp: ts, type, id, content });
  if (type === "moment") {
    const m = r as Moment;
    return JSON.stringify({
      timestamp: ts,
      type,
      id,
      topic,
      content,
      emotion_type: Math.max(0, EMOTIONS.indexOf(m.emotion)),
      emotion_intensity: m.intensity,
      importance: m.importance,
    });
  }
  const e = r as Event;
  return JSON.stringify({
    timestamp: ts,
    type,
    id,
    date: e.date,
    time: e.time,
    event_type: e.eventType,
    content,
    emotion_type: Math.max(0, EMOTIONS.indexOf(e.emotion)),
    emotion_intensity: e.intensity,
    significance: e.significance,
    priority: e.priority,
    flags: flagsOf(e),
  });
}

// The line of a record. Content (then topic) longer than the line allows is cut
// at a character boundary. Throws a RangeError for a record it cannot store.
export function encodeRecord(type: ArchiveType, r: ArchiveRecord): Encoded {
  if (typeof r !== "object" || r === null || typeof (r as Fact).content !== "string") throw new RangeError("archive: not a record");
  const ts = isoOf(type, r);
  const key = isoKey(ts);
  if (key < 0) throw new RangeError(`archive: bad timestamp ${ts}`);
  const id = recordId(type, r);
  let content = (r as Fact).content;
  let topic = type === "moment" ? String((r as Moment).topic ?? "") : "";
  for (;;) {
    const line = encode(build(type, r, id, ts, topic, content) + "\n");
    const over = line.length - MAX_LINE_BYTES;
    if (over <= 0) {
      const e = r as Event;
      return { id, key, line, content, topic, date: type === "event" ? e.date : "", time: type === "event" ? e.time : "" };
    }
    const cb = byteLength(content);
    if (cb > 0) content = truncate(content, Math.max(0, cb - Math.max(over, 1)));
    else if (topic) topic = truncate(topic, Math.max(0, byteLength(topic) - Math.max(over, 1)));
    else throw new RangeError("archive: record too large");
  }
}

// ---- reading lines ---------------------------------------------------------------

// Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
function days(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function digits(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = b[at + i] - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

// The sort key of a timestamp at b[at..at+19): seconds from 1970 of its local
// fields (as if UTC), or -1 when it is not YYYY-MM-DDTHH:MM:SS.
export function tsKey(b: Uint8Array, at: number): number {
  if (b[at + 4] !== 45 || b[at + 7] !== 45 || b[at + 10] !== 84 || b[at + 13] !== 58 || b[at + 16] !== 58) return -1;
  const y = digits(b, at, 4), mo = digits(b, at + 5, 2), d = digits(b, at + 8, 2);
  const h = digits(b, at + 11, 2), mi = digits(b, at + 14, 2), s = digits(b, at + 17, 2);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return -1;
  const k = days(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  return k > 0xffffffff ? -1 : k;
}

export function isoKey(iso: string): number {
  const b = encode(iso);
  return b.length === TS_BYTES ? tsKey(b, 0) : -1;
}

// The key of a line (starting at b[s]), or -1 if it does not start like a record.
export function lineKey(b: Uint8Array, s: number, e: number): number {
  if (e - s < TS_OFFSET + TS_BYTES + 2) return -1;
  for (let i = 0; i < TS_OFFSET; i++) if (b[s + i] !== PREFIX_BYTES[i]) return -1;
  if (b[s + TS_OFFSET + TS_BYTES] !== 34) return -1;
  return tsKey(b, s + TS_OFFSET);
}

// The id is a CRC-32 of the record's identity (recordId), so a line whose
// fields no longer give its id was damaged at rest. A fact's or moment's id
// holds its unix seconds, the line its local time: the offset of the time it
// was archived is not stored, so the current offset is tried, then the last
// one that matched, then every offset on a quarter hour. A line with a JSON
// escape or near the longest line may have had its text cut to fit
// (encodeRecord), after the id was made: it cannot be checked this way.
let lastOffset = 0;
function idOk(o: ArchivedItem, type: ArchiveType, b: Uint8Array, s: number, e: number, key: number): boolean {
  if (e - s + 1 > MAX_LINE_BYTES - 4 || b.subarray(s, e).indexOf(92) >= 0) return true;
  if (type === "event") return hex8(crc32(encode(`event\n${o.date}\n${o.time}\n${o.content}`))) === o.id;
  const tail = type === "fact" ? `\n${o.content}` : `\n${o.topic}\n${o.content}`;
  // a moment given without a topic got its id from the text "undefined"
  const tail2 = type === "moment" && o.topic === "" ? `\nundefined\n${o.content}` : "";
  const head = type === "fact" ? "fact\n" : "moment\n";
  const tryOffset = (min: number): boolean =>
    hex8(crc32(encode(head + (key - min * 60) + tail))) === o.id || (tail2 !== "" && hex8(crc32(encode(head + (key - min * 60) + tail2))) === o.id);
  const now = utcOffset();
  if (tryOffset(now)) return true;
  if (lastOffset !== now && tryOffset(lastOffset)) return true;
  for (let m = -720; m <= 840; m += 15)
    if (m !== now && m !== lastOffset && tryOffset(m)) {
      lastOffset = m;
      return true;
    }
  return false;
}

// The record in line b[s..e) (without its "\n"), or undefined when the line is
// not a record of this type: a torn or damaged line, a foreign object, a line
// whose id does not match its fields.
// `verify` false leaves the id check to the caller (lineIdOk), for a reader
// that checks only the lines it keeps.
export function parseLine(b: Uint8Array, s: number, e: number, type: ArchiveType, verify = true): ArchivedItem | undefined {
  const key = lineKey(b, s, e);
  if (key < 0 || b[e - 1] !== 125) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(decode(b.subarray(s, e)));
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as ArchivedItem;
  if (o.type !== type || typeof o.id !== "string" || o.id.length !== 8 || typeof o.content !== "string" || typeof o.timestamp !== "string") return undefined;
  if (type === "moment" && typeof o.topic !== "string") return undefined;
  if (verify && !idOk(o, type, b, s, e, key)) return undefined;
  return o;
}

// Does a line parsed without its id check (parseLine(…, false)) give its id?
export function lineIdOk(o: ArchivedItem, type: ArchiveType, b: Uint8Array, s: number, e: number): boolean {
  return idOk(o, type, b, s, e, lineKey(b, s, e));
}

// Where the id's 8 hex digits start in a line, or -1 (ids sit in the first 64 bytes).
const ID_KEY = ascii('"id":"');
export function idAt(b: Uint8Array, s: number, e: number): number {
  const stop = Math.min(e - 8, s + 64);
  for (let i = s + TS_OFFSET + TS_BYTES; i < stop; i++) {
    if (b[i] !== 34) continue;
    let k = 1;
    while (k < ID_KEY.length && b[i + k] === ID_KEY[k]) k++;
    if (k === ID_KEY.length) return i + k;
  }
  return -1;
}

// Is the id at b[at..at+8) equal to `id`?
export function idEquals(b: Uint8Array, at: number, id: string): boolean {
  for (let i = 0; i < 8; i++) if (b[at + i] !== id.charCodeAt(i)) return false;
  return true;
}

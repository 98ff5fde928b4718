// The export document's items (docs/EXPORT.md): one shape per type, made from
// the record layouts of src/memory/types.ts (field names as docs/FORMAT.md
// names them), each item self-contained: {id, type, ...fields}. The same
// tables check a document field by field before an import changes anything.

import { SPECS, EMOTIONS, REPEATS, PREFERENCE_CAPACITY, newEvent, type StoreName, type Event, type Fact, type Moment } from "../memory/types";
import type { Field, Layout } from "../nvs/layout";
import { recordId, hex8, isoKey, type ArchivedItem } from "../archive/line";
import { encodeRecord, encodeDigest } from "../archive/codec";
import { crc32 } from "../nvs/crc32";
import { encode, byteLength } from "../text/utf8";
import { utcOffset } from "../time/local";
import { EPISODE_STATES, EPISODE_SOURCES, TOMB_REASONS, EVICT_CAUSES, EPISODE_SLOTS, type Episode, type Tombstone } from "../episode/types";
import { checkContent, parseKeywords } from "../episode/episodes";

export const EXPORT_FORMAT = "petmem-export";
export const EXPORT_VERSION = 1;

export class ImportError extends Error {
  readonly path: string; // where in the document the first error is ("$.facts[3].date")
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
    Object.defineProperty(this, "name", { value: "ImportError", configurable: true, writable: true });
  }
}

export type Item = Record<string, unknown>;

// A short stable id: the CRC-32 of a type and the record's key, 8 hex digits.
export function keyId(type: string, key: string): string {
  return hex8(crc32(encode(type + "\n" + key)));
}

// ---- the NVS sections ------------------------------------------------------------------

// One section of the document per NVS store (likes and dislikes share the
// preferences store). `single`: the store holds one record (or none: null).
export interface NvsSection {
  key: string; // the document's key
  store: StoreName;
  type: string; // each item's type
  single: boolean;
  id(r: Item): string;
  unique: boolean; // the device never holds two items of one id here
}

export const NVS_SECTIONS: readonly NvsSection[] = [
  { key: "config", store: "config", type: "config", single: true, id: () => "config", unique: true },
  { key: "profile", store: "profile", type: "profile", single: true, id: () => "profile", unique: true },
  { key: "family", store: "family", type: "family", single: false, id: (r) => keyId("family", String(r.name || r.relation)), unique: true },
  { key: "facts", store: "facts", type: "fact", single: false, id: (r) => recordId("fact", r as unknown as Fact), unique: true },
  { key: "traits", store: "traits", type: "trait", single: false, id: (r) => keyId("trait", String(r.content)), unique: true },
  { key: "habits", store: "habits", type: "habit", single: false, id: (r) => keyId("habit", String(r.content)), unique: true },
  { key: "moments", store: "moments", type: "moment", single: false, id: (r) => recordId("moment", r as unknown as Moment), unique: true },
  { key: "goals", store: "goals", type: "goal", single: false, id: (r) => keyId("goal", String(r.content)), unique: true },
  { key: "events", store: "events", type: "event", single: false, id: (r) => recordId("event", r as unknown as Event), unique: true },
  { key: "chat", store: "chat", type: "chat", single: false, id: (r) => keyId("chat", `${r.timestamp}\n${r.role}\n${r.content}`), unique: false },
  { key: "relationship", store: "affection", type: "relationship", single: true, id: () => "relationship", unique: true },
  { key: "pending", store: "pending", type: "pending", single: false, id: (r) => keyId("pending", `${r.kind}\n${r.value}`), unique: false },
  { key: "health", store: "health", type: "health", single: true, id: () => "health", unique: true },
];

// The fields of a layout as records hold them (a bit-field byte's parts by name).
export function fieldNames(layout: Layout<object>): string[] {
  const out: string[] = [];
  for (const f of layout.fields) {
    if (f.kind === "bits") for (const p of f.parts) out.push(p.name);
    else out.push(f.name);
  }
  return out;
}

// A record field whose name an item uses for itself (the health record counts
// copies with a wrong `type` code) takes another name in the item.
export const RENAMED: Record<string, string> = { type: "wrongType" };
export function itemKey(field: string): string {
  return RENAMED[field] ?? field;
}

// An item: id and type first, then the record's fields in layout order.
export function itemOf(id: string | number, type: string, rec: object, names: readonly string[], archived = false): Item {
  const r = rec as Item;
  const it: Item = { id, type };
  if (archived) it.archived = true;
  for (const n of names) it[itemKey(n)] = r[n];
  return it;
}

// The record an item holds (fields renamed back).
export function recordOf(o: Item, names: readonly string[]): Item {
  const rec: Item = {};
  for (const n of names) rec[n] = o[itemKey(n)];
  return rec;
}

export const PREF_FIELDS = ["content"];

// ---- the archive's items ---------------------------------------------------------------

export const ARCHIVED_FACT = ["timestamp", "content"];
export const ARCHIVED_MOMENT = ["timestamp", "topic", "content", "emotion", "intensity", "importance"];
// an archived event keeps these (not reminded, repeatInterval, duration); its
// timestamp is the time the archive files it under (its local date and time)
export const ARCHIVED_EVENT = ["timestamp", "date", "time", "eventType", "content", "emotion", "intensity", "significance", "priority", "schedule", "completed", "repeat"];
export const DIGEST_FIELDS = ["of", "month", "from", "until", "count", "keywords", "points", "source"];
export const ARCHIVE_TOMB_FIELDS = ["of", "at"];

// Unix seconds of a local ISO time the archive gave (in the offset in force now).
export function unixOf(iso: string): number {
  const k = isoKey(iso);
  return k < 0 ? 0 : k - utcOffset() * 60;
}

const emotionOf = (n: number | undefined) => EMOTIONS[n ?? 0] ?? "neutral";

export function archivedItem(it: ArchivedItem): Item {
  const t = unixOf(it.timestamp);
  if (it.type === "fact") return { id: it.id, type: "fact", archived: true, timestamp: t, content: it.content };
  if (it.type === "moment")
    return { id: it.id, type: "moment", archived: true, timestamp: t, topic: it.topic ?? "", content: it.content, emotion: emotionOf(it.emotion_type), intensity: it.emotion_intensity ?? 0, importance: it.importance ?? 0 };
  const f = it.flags ?? 0;
  return {
    id: it.id,
    type: "event",
    archived: true,
    timestamp: t,
    date: it.date ?? "",
    time: it.time ?? "",
    eventType: it.event_type ?? "",
    content: it.content,
    emotion: emotionOf(it.emotion_type),
    intensity: it.emotion_intensity ?? 0,
    significance: it.significance ?? 0,
    priority: it.priority ?? 0,
    schedule: (f & 1) !== 0,
    completed: (f & 2) !== 0,
    repeat: REPEATS[(f >> 2) & 3],
  };
}

export function digestId(events: boolean, source: number, month: string): string {
  return hex8(crc32(encode(`digest\n${events ? "e" : "m"}${source}\n${month}`)));
}

// The segment a digest was made from is in its id only (the archive does not
// hand it out): found by trying numbers outwards from `hint` (segments retire
// oldest first, so the next digest's is nearly always the last one found or
// next to it). -1 when no number below 2^20 gives the id.
export function digestSource(id: string, events: boolean, month: string, hint: number): number {
  const LIMIT = 1 << 20;
  const h = Math.max(0, Math.min(LIMIT - 1, hint));
  for (let d = 0; d < LIMIT; d++) {
    if (h - d < 0 && h + d >= LIMIT) break;
    if (h - d >= 0 && digestId(events, h - d, month) === id) return h - d;
    if (d > 0 && h + d < LIMIT && digestId(events, h + d, month) === id) return h + d;
  }
  return -1;
}

export function digestItem(it: ArchivedItem, source: number): Item {
  return {
    id: it.id,
    type: "digest",
    of: it.type,
    month: it.month ?? "",
    from: unixOf(it.timestamp),
    until: unixOf(it.until ?? it.timestamp),
    count: it.count ?? 0,
    keywords: (it.keywords ?? []).slice(),
    points: it.content,
    source,
  };
}

// ---- episodes ----------------------------------------------------------------------------

export const EPISODE_FIELDS = ["state", "source", "content", "keywords", "emotion", "e", "i", "p", "j", "useCount", "createdAt", "lastActiveAt", "purgeAt"];
export const EPISODE_TOMB_FIELDS = ["reason", "cause", "strength", "at", "payloadHash"];

export function episodeItem(ep: Episode): Item {
  return itemOf(ep.id, "episode", { ...ep, keywords: ep.keywords.slice() }, EPISODE_FIELDS);
}

export function episodeTombItem(t: Tombstone): Item {
  return itemOf(t.id, "episode_tombstone", t, EPISODE_TOMB_FIELDS);
}

// ---- checking ------------------------------------------------------------------------------

const U32 = 0xffffffff;
const INT_RANGE: Record<string, [number, number]> = { u8: [0, 0xff], i8: [-0x80, 0x7f], u16: [0, 0xffff], i16: [-0x8000, 0x7fff], u32: [0, U32], i32: [-0x80000000, 0x7fffffff] };

export function fail(path: string, why: string): never {
  throw new ImportError(path, why);
}

export function isObject(v: unknown): v is Item {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? s.slice(0, 37) + "..." : s;
}

// A string the device can hold: no control characters, well-formed, at most `bytes`.
export function checkString(v: unknown, path: string, bytes: number, optional = true): string {
  if (typeof v !== "string") fail(path, `must be a string, not ${show(v)}`);
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) fail(path, "has a control character");
    if (c >= 0xd800 && c <= 0xdfff) {
      const n = v.charCodeAt(i + 1);
      if (c > 0xdbff || !(n >= 0xdc00 && n <= 0xdfff)) fail(path, "is not valid Unicode");
      i++;
    }
  }
  if (!optional && v === "") fail(path, "must not be empty");
  const n = byteLength(v);
  if (n > bytes) fail(path, `is too long (${n} bytes): at most ${bytes} bytes of UTF-8`);
  return v;
}

export function checkInt(v: unknown, path: string, lo: number, hi: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) fail(path, `must be an integer from ${lo} to ${hi}, not ${show(v)}`);
  return v;
}

export function checkOneOf(v: unknown, path: string, values: readonly string[]): string {
  if (typeof v !== "string" || values.indexOf(v) < 0) fail(path, `must be one of ${values.join(", ")}, not ${show(v)}`);
  return v;
}

export function checkBool(v: unknown, path: string): boolean {
  if (typeof v !== "boolean") fail(path, `must be true or false, not ${show(v)}`);
  return v;
}

// Exactly these keys: a missing one or one more is refused, in the item's order.
export function checkKeys(o: Item, path: string, keys: readonly string[]): void {
  for (const k of keys) if (!(k in o)) fail(`${path}.${k}`, "is missing");
  for (const k of Object.keys(o)) if (keys.indexOf(k) < 0) fail(`${path}.${k}`, `is not a field of this item (its fields: ${keys.join(", ")})`);
}

// One layout field's value (bit-field parts checked by name).
function checkField(f: Field, o: Item, path: string, strMax?: number): void {
  const p = `${path}.${itemKey(f.name)}`;
  switch (f.kind) {
    case "str":
      checkString(o[f.name], p, strMax ?? f.bytes);
      return;
    case "strs":
      fail(p, "lists are not records"); // preferences are items of their own
      return;
    case "enum":
      checkOneOf(o[f.name], p, f.values);
      return;
    case "bits":
      for (const part of f.parts) {
        if (part.values) checkOneOf(o[part.name], `${path}.${part.name}`, part.values);
        else checkBool(o[part.name], `${path}.${part.name}`);
      }
      return;
    default: {
      const [lo, hi] = INT_RANGE[f.kind];
      checkInt(o[f.name], p, lo, hi);
    }
  }
}

// A record of a layout: every field (or those of `only`) as flash holds it.
// `strMax`: strings up to this many bytes instead of the field's (the archive
// keeps what a line of 512 bytes holds).
export function checkRecord(layout: Layout<object>, o: Item, path: string, only?: readonly string[], strMax?: number): void {
  for (const f of layout.fields) {
    if (only) {
      const names = f.kind === "bits" ? f.parts.map((x) => x.name) : [f.name];
      if (!names.some((n) => only.indexOf(n) >= 0)) continue;
    }
    checkField(f, o, path, strMax);
  }
}

// A section that must be a list (at most `max` items).
export function checkList(v: unknown, path: string, max: number, what: string): unknown[] {
  if (!Array.isArray(v)) fail(path, `must be a list, not ${show(v)}`);
  if (v.length > max) fail(path, `has ${v.length} items: the device keeps at most ${max} ${what}`);
  return v;
}

export function checkItemHead(v: unknown, path: string, type: string, keys: readonly string[]): Item {
  if (!isObject(v)) fail(path, `must be an object, not ${show(v)}`);
  checkKeys(v, path, keys);
  if (v.type !== type) fail(`${path}.type`, `must be "${type}" here, not ${show(v.type)}`);
  return v;
}

export function checkId(v: Item, path: string, want: string): void {
  if (v.id !== want) fail(`${path}.id`, `${show(v.id)} is not this item's id: its fields give "${want}"`);
}

// An NVS section's items (or its one item); returns the records to store.
export function checkNvs(s: NvsSection, v: unknown, path: string): object[] {
  const spec = SPECS[s.store];
  const layout = spec.layout as Layout<object>;
  const names = fieldNames(layout);
  const keys = ["id", "type", ...names.map(itemKey)];
  const one = (x: unknown, p: string): object => {
    const o = checkItemHead(x, p, s.type, keys);
    const rec = recordOf(o, names);
    checkRecord(layout, rec, p);
    shapes(s.store, rec, p);
    checkId(o, p, s.id(rec));
    return rec;
  };
  if (s.single) {
    if (v === null) return [];
    return [one(v, path)];
  }
  const list = checkList(v, path, spec.capacity, s.key);
  const out: object[] = [];
  const ids: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const p = `${path}[${i}]`;
    const rec = one(list[i], p);
    if (s.unique) {
      const id = s.id(rec as Item);
      if (ids.indexOf(id) >= 0) fail(p, `repeats an item (id ${id}) the device keeps once`);
      ids.push(id);
    }
    out.push(rec);
  }
  return out;
}

// What the device's own checks keep out of a store (src/memory/memory.ts,
// src/mcp/fork.ts): dates and times in their shapes.
function shapes(store: StoreName, r: Item, path: string): void {
  if (store === "profile" && r.birthday !== "" && !/^\d{2}-\d{2}$/.test(r.birthday as string)) fail(`${path}.birthday`, 'must be MM-DD or ""');
  if (store === "events") {
    if (!/^(\d{4}-)?\d{2}-\d{2}$/.test(r.date as string)) fail(`${path}.date`, "must be YYYY-MM-DD or MM-DD");
    if (r.time !== "" && !/^\d{2}:\d{2}$/.test(r.time as string)) fail(`${path}.time`, 'must be HH:MM or ""');
  }
}

// Likes or dislikes: each {id, type, content}; at most 8, none twice.
export function checkPrefs(v: unknown, path: string, type: "like" | "dislike"): string[] {
  const list = checkList(v, path, PREFERENCE_CAPACITY, type === "like" ? "likes" : "dislikes");
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const p = `${path}[${i}]`;
    const o = checkItemHead(list[i], p, type, ["id", "type", "content"]);
    const c = checkString(o.content, `${p}.content`, 32, false);
    checkId(o, p, keyId(type, c));
    if (out.indexOf(c) >= 0) fail(p, `repeats "${c}"`);
    out.push(c);
  }
  return out;
}

const factLayout = SPECS.facts.layout as Layout<object>;
const momentLayout = SPECS.moments.layout as Layout<object>;
const eventLayout = SPECS.events.layout as Layout<object>;

export type ArchiveType = "fact" | "moment" | "event";
const LINE = 512; // an archive line's bytes at most

// An archived record: its fields as the archive keeps them, its id the one
// they give, a line the archive can write.
export function checkArchived(type: ArchiveType, v: unknown, path: string): Fact | Moment | Event {
  const names = type === "fact" ? ARCHIVED_FACT : type === "moment" ? ARCHIVED_MOMENT : ARCHIVED_EVENT;
  const o = checkItemHead(v, path, type, ["id", "type", "archived", ...names]);
  if (o.archived !== true) fail(`${path}.archived`, "must be true in the archive's sections");
  checkInt(o.timestamp, `${path}.timestamp`, 0, U32);
  let rec: Fact | Moment | Event;
  if (type === "fact") {
    checkRecord(factLayout, o, path, undefined, LINE);
    rec = { timestamp: o.timestamp as number, content: o.content as string };
  } else if (type === "moment") {
    checkRecord(momentLayout, o, path, undefined, LINE);
    rec = { timestamp: o.timestamp as number, topic: o.topic as string, content: o.content as string, emotion: o.emotion as Moment["emotion"], intensity: o.intensity as number, importance: o.importance as number };
  } else {
    checkRecord(eventLayout, o, path, ARCHIVED_EVENT, LINE);
    if (!/^(\d{4}-)?\d{2}-\d{2}$/.test(o.date as string)) fail(`${path}.date`, "must be YYYY-MM-DD or MM-DD");
    if (o.time !== "" && !/^\d{2}:\d{2}$/.test(o.time as string)) fail(`${path}.time`, 'must be HH:MM or ""');
    rec = newEvent({
      date: o.date as string,
      time: o.time as string,
      eventType: o.eventType as string,
      content: o.content as string,
      emotion: o.emotion as Event["emotion"],
      intensity: o.intensity as number,
      significance: o.significance as number,
      priority: o.priority as number,
      schedule: o.schedule as boolean,
      completed: o.completed as boolean,
      repeat: o.repeat as Event["repeat"],
    });
  }
  try {
    encodeRecord(type, rec);
  } catch (e) {
    fail(path, `the archive cannot keep it (${e instanceof Error ? e.message : String(e)})`);
  }
  checkId(o, path, recordId(type, rec));
  return rec;
}

export interface DigestRec {
  events: boolean;
  month: string;
  from: number;
  to: number;
  count: number;
  keywords: string[];
  points: string;
  source: number;
}

export function checkDigest(v: unknown, path: string): DigestRec {
  const o = checkItemHead(v, path, "digest", ["id", "type", ...DIGEST_FIELDS]);
  const of = checkOneOf(o.of, `${path}.of`, ["moment", "event"]);
  const month = checkString(o.month, `${path}.month`, 7);
  if (!/^\d{4}-\d{2}$/.test(month)) fail(`${path}.month`, "must be YYYY-MM");
  const from = checkInt(o.from, `${path}.from`, 0, U32);
  const to = checkInt(o.until, `${path}.until`, 0, U32);
  const count = checkInt(o.count, `${path}.count`, 0, U32);
  const kw = checkList(o.keywords, `${path}.keywords`, 8, "keywords");
  for (let i = 0; i < kw.length; i++) checkString(kw[i], `${path}.keywords[${i}]`, 64, false);
  const points = checkString(o.points, `${path}.points`, 512);
  const source = checkInt(o.source, `${path}.source`, 0, U32);
  const d: DigestRec = { events: of === "event", month, from, to, count, keywords: kw as string[], points, source };
  try {
    encodeDigest({ from, to, month, count, keywords: d.keywords, points, source, events: d.events });
  } catch (e) {
    fail(path, `the archive cannot keep it (${e instanceof Error ? e.message : String(e)})`);
  }
  checkId(o, path, digestId(d.events, source, month));
  return d;
}

export interface ArchiveTomb {
  code: number; // 1 fact, 2 moment, 3 event
  id: string;
  at: number;
}

export function checkArchiveTomb(v: unknown, path: string): ArchiveTomb {
  const o = checkItemHead(v, path, "archive_tombstone", ["id", "type", ...ARCHIVE_TOMB_FIELDS]);
  if (typeof o.id !== "string" || !/^[0-9a-f]{8}$/.test(o.id)) fail(`${path}.id`, "must be 8 lowercase hex digits");
  const of = checkOneOf(o.of, `${path}.of`, ["fact", "moment", "event"]);
  return { code: of === "fact" ? 1 : of === "moment" ? 2 : 3, id: o.id, at: checkInt(o.at, `${path}.at`, 0, U32) };
}

export function checkEpisode(v: unknown, path: string): Episode {
  const o = checkItemHead(v, path, "episode", ["id", "type", ...EPISODE_FIELDS]);
  const id = checkInt(o.id, `${path}.id`, 1, U32);
  const state = checkOneOf(o.state, `${path}.state`, EPISODE_STATES.slice(1));
  const source = checkOneOf(o.source, `${path}.source`, EPISODE_SOURCES);
  let content = "";
  try {
    content = checkContent(o.content);
  } catch (e) {
    fail(`${path}.content`, e instanceof Error ? e.message : String(e));
  }
  if (content !== o.content) fail(`${path}.content`, "has spaces at its ends, which the device never keeps");
  if (!Array.isArray(o.keywords)) fail(`${path}.keywords`, "must be a list of words");
  let kw: string[] = [];
  try {
    kw = parseKeywords(o.keywords);
  } catch (e) {
    fail(`${path}.keywords`, e instanceof Error ? e.message : String(e));
  }
  if (kw.join("\n") !== (o.keywords as string[]).join("\n")) fail(`${path}.keywords`, "must be distinct words without spaces at their ends");
  const emotion = checkOneOf(o.emotion, `${path}.emotion`, EMOTIONS);
  const h = (k: string) => checkInt(o[k], `${path}.${k}`, 0, 100);
  const e = h("e"), i = h("i"), p = h("p"), j = h("j");
  const useCount = checkInt(o.useCount, `${path}.useCount`, 0, 0xffff);
  const createdAt = checkInt(o.createdAt, `${path}.createdAt`, 0, U32);
  const lastActiveAt = checkInt(o.lastActiveAt, `${path}.lastActiveAt`, 0, U32);
  const purgeAt = checkInt(o.purgeAt, `${path}.purgeAt`, 0, U32);
  if (state === "active" && purgeAt !== 0) fail(`${path}.purgeAt`, "must be 0 for an active episode");
  return {
    slot: 0,
    id,
    state: state as Episode["state"],
    source: source as Episode["source"],
    content,
    keywords: kw,
    emotion: emotion as Episode["emotion"],
    e,
    i,
    p,
    j,
    useCount,
    createdAt,
    lastActiveAt,
    purgeAt,
    sig: new Uint8Array(0),
  };
}

export function checkEpisodeTomb(v: unknown, path: string): Tombstone {
  const o = checkItemHead(v, path, "episode_tombstone", ["id", "type", ...EPISODE_TOMB_FIELDS]);
  return {
    id: checkInt(o.id, `${path}.id`, 1, U32),
    reason: checkOneOf(o.reason, `${path}.reason`, TOMB_REASONS) as Tombstone["reason"],
    cause: checkOneOf(o.cause, `${path}.cause`, EVICT_CAUSES) as Tombstone["cause"],
    strength: checkInt(o.strength, `${path}.strength`, 0, 100),
    at: checkInt(o.at, `${path}.at`, 0, U32),
    payloadHash: checkInt(o.payloadHash, `${path}.payloadHash`, 0, U32),
  };
}

export const MAX_EPISODES = EPISODE_SLOTS;

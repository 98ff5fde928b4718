// Runs a parsed query (src/query/parse.ts) over its source, streamed: rows
// come one at a time (episodes from their files, facts and events from NVS
// and then the archive, digests from the archive's digest stream, one 4 KB
// chunk of flash at a time) and only the best `limit` are kept: a bounded
// top-k by order_by (ties keep source order), or, without order_by, the first
// `limit` in source order, reading stopping at the first match past them.
// docs/DESIGN.md "The query language".

import { foldString, findBytes, ANY_CHAR, TEXT_EDGE } from "../archive/fold";
import { recordId, type ArchivedItem } from "../archive/line";
import { formatDateTime, fromLocal } from "../time/local";
import { byteLength } from "../text/utf8";
import type { Episode, EpisodeReader } from "../episode/types";
import type { Fact, Event } from "../memory/types";
import type { Memory } from "../memory/memory";
import type { Query, Cond, Value } from "./parse";
import type { FieldDef } from "./fields";
import { importance } from "../episode/score";
import { now } from "../time/clock";

export const ROWS_BUDGET_BYTES = 6000; // the rows' JSON at most (as action=read's budget)

// What a source offers the runner.
export interface QuerySources {
  memory: Memory;
  archive?: {
    // range.words (folded): records whose content cannot hold every one may be left out
    scan?(stream: "fact" | "moment" | "event" | "digest", fn: (item: ArchivedItem) => boolean | void, range?: { lo: number; hi: number; words?: readonly Uint8Array[] }): { unreadable: string[]; migrating: boolean };
  };
  episodes?: EpisodeReader;
}

export interface QueryResult {
  from: string;
  count: number;
  rows: Record<string, Value>[];
  more?: true; // more rows matched than are shown
  truncated?: true; // rows were left out to stay within ROWS_BUDGET_BYTES
  partial?: true; // part of the source could not be read
  unavailable?: string; // why
}

// ---- rows -----------------------------------------------------------------------------------

// A fact, an event or a digest as the query sees it: the canonical fields' values.
type Rec = Record<string, Value>;

const iso16 = (s: string) => (s.length >= 16 ? s.slice(0, 10) + " " + s.slice(11, 16) : s); // YYYY-MM-DDTHH:MM:SS → YYYY-MM-DD HH:MM

function factRec(id: string, content: string, date: string, archived: boolean): Rec {
  return { id, content, date, archived };
}

function nvsEvent(e: Event): Rec {
  return { id: recordId("event", e), date: e.date, time: e.time, content: e.content, event_type: e.eventType, significance: e.significance, priority: e.priority, archived: false };
}

function archivedEvent(it: ArchivedItem): Rec {
  return { id: it.id, date: it.date ?? "", time: it.time ?? "", content: it.content, event_type: it.event_type ?? "", significance: it.significance ?? 0, priority: it.priority ?? 0, archived: true };
}

function digestRec(it: ArchivedItem): Rec {
  return { id: it.id, month: it.month ?? "", type: it.type, count: it.count ?? 0, keywords: it.keywords ?? [], points: it.content, until: iso16(it.until ?? "") };
}

// An episode's field (scores 0..1: stored in hundredths).
function episodeValue(ep: Episode, field: string, imp: (ep: Episode) => number): Value {
  switch (field) {
    case "id":
      return ep.id;
    case "content":
      return ep.content;
    case "keywords":
      return ep.keywords;
    case "emotion":
      return ep.emotion;
    case "e":
      return ep.e / 100;
    case "i":
      return ep.i / 100;
    case "p":
      return ep.p / 100;
    case "j":
      return ep.j / 100;
    case "importance":
      return Math.round(imp(ep) * 100) / 100;
    case "use_count":
      return ep.useCount;
    case "created_at":
      return formatDateTime(ep.createdAt * 1000);
    case "last_active_at":
      return formatDateTime(ep.lastActiveAt * 1000);
    default:
      return ep.state;
  }
}

// ---- conditions ---------------------------------------------------------------------------------

// Folded UTF-8 byte order.
function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function holds(op: string, c: number): boolean {
  switch (op) {
    case "=":
      return c === 0;
    case "!=":
      return c !== 0;
    case ">=":
      return c >= 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    default:
      return c < 0;
  }
}

// Does folded text t match a compiled LIKE pattern? `_` is one whole character.
export function likeMatch(t: Uint8Array, p: Int16Array): boolean {
  let ti = 0, pi = 0, starP = -1, starT = 0;
  const next = (i: number) => {
    i++;
    while (i < t.length && (t[i] & 0xc0) === 0x80) i++;
    return i;
  };
  while (ti < t.length) {
    const c = pi < p.length ? p[pi] : 0x7fff;
    if (c === -1) {
      starP = pi++;
      starT = ti;
    } else if (c === -2) {
      ti = next(ti);
      pi++;
    } else if (c === t[ti]) {
      ti++;
      pi++;
    } else if (starP >= 0) {
      pi = starP + 1;
      ti = starT = next(starT);
    } else return false;
  }
  while (pi < p.length && p[pi] === -1) pi++;
  return pi === p.length;
}

function textHolds(c: Cond, s: string): boolean {
  const t = foldString(s);
  if (c.op === "CONTAINS") return findBytes(t, 0, t.length, c.folded) >= 0;
  if (c.op === "LIKE") return likeMatch(t, c.like!);
  return holds(c.op, cmpBytes(t, c.folded));
}

function condHolds(c: Cond, v: Value): boolean {
  switch (c.field.kind) {
    case "number":
      return holds(c.op, (v as number) < c.num ? -1 : (v as number) > c.num ? 1 : 0);
    case "bool":
      return (v === c.bool) === (c.op === "=");
    case "date": {
      const s = v as string;
      if (c.op === "CONTAINS" || c.op === "LIKE") return textHolds(c, s);
      // on the value's own length: date = '2026-02' is the whole month, <= '2026-02-05' the whole day
      const a = s.length > c.str.length ? s.slice(0, c.str.length) : s;
      return holds(c.op, a < c.str ? -1 : a > c.str ? 1 : 0);
    }
    case "list": {
      const l = v as string[];
      if (c.op === "!=") {
        for (const x of l) if (textHolds({ ...c, op: "=" }, x)) return false;
        return true;
      }
      for (const x of l) if (textHolds(c, x)) return true;
      return false;
    }
    default:
      return textHolds(c, v as string);
  }
}

// ---- ordering -------------------------------------------------------------------------------

type Key = number | string | Uint8Array;

function keyOf(d: FieldDef, v: Value): Key {
  if (d.kind === "text") return foldString(v as string);
  if (d.kind === "bool") return v ? 1 : 0;
  return v as number | string;
}

function cmpKey(a: Key, b: Key): number {
  if (typeof a === "number") return a - (b as number);
  if (typeof a === "string") return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  return cmpBytes(a, b as Uint8Array);
}

interface Kept {
  key: Key;
  id: Value;
  row: Record<string, Value>;
  bytes: number;
}

// ---- the runner ---------------------------------------------------------------------------------

export class Runner {
  private kept: Kept[] = [];
  private bytes = 0;
  private lim: number;
  more = false;
  truncated = false;
  private get: (rec: any, field: string) => Value;

  constructor(readonly q: Query, get: (rec: any, field: string) => Value) {
    this.lim = q.limit;
    this.get = get;
  }

  // Offers one record; true: stop reading (nothing after it can be shown).
  take(rec: unknown): boolean {
    const q = this.q;
    for (const c of q.where) if (!condHolds(c, this.get(rec, c.field.field))) return false;
    const id = this.get(rec, "id");
    const o = q.order;
    if (!o) {
      if (this.kept.length >= this.lim) {
        if (!this.dup(id, rec)) this.more = true;
        return this.more;
      }
      if (this.dup(id, rec)) return false;
      const k = this.keep(rec, 0, id);
      this.kept.push(k);
      this.bytes += k.bytes;
      if (this.bytes > ROWS_BUDGET_BYTES && this.kept.length > 1) {
        this.bytes -= this.kept.pop()!.bytes;
        this.more = this.truncated = true;
        return true;
      }
      return false;
    }
    const key = keyOf(o.field, this.get(rec, o.field.field));
    // after every kept row not worse than it: ties keep source order
    let at = this.kept.length;
    while (at > 0 && (o.desc ? cmpKey(key, this.kept[at - 1].key) > 0 : cmpKey(key, this.kept[at - 1].key) < 0)) at--;
    if (at >= this.lim) {
      // not shown; a copy of the last kept row (equal key) is no "more"
      if (!(cmpKey(key, this.kept[this.kept.length - 1].key) === 0 && this.dup(id, rec))) this.more = true;
      return false;
    }
    if (this.dup(id, rec)) return false;
    const k = this.keep(rec, key, id);
    this.kept.splice(at, 0, k);
    this.bytes += k.bytes;
    if (this.kept.length > this.lim) {
      this.bytes -= this.kept.pop()!.bytes;
      this.more = true;
    }
    // over the byte budget: the worst rows go, and fewer are kept from now on
    while (this.bytes > ROWS_BUDGET_BYTES && this.kept.length > 1) {
      this.bytes -= this.kept.pop()!.bytes;
      this.lim = this.kept.length;
      this.more = this.truncated = true;
    }
    return false;
  }

  // A record seen again (a cut left it twice, or it is in NVS and in the
  // archive): shown once, as archived.
  private dup(id: Value, rec: unknown): boolean {
    for (const k of this.kept)
      if (k.id === id) {
        if (this.get(rec, "archived") === true && "archived" in k.row) k.row.archived = true;
        return true;
      }
    return false;
  }

  private keep(rec: unknown, key: Key, id: Value): Kept {
    const row: Record<string, Value> = {};
    for (const d of this.q.select) {
      const v = this.get(rec, d.field);
      row[d.name] = Array.isArray(v) ? v.slice() : v;
    }
    return { key, id, row, bytes: byteLength(JSON.stringify(row)) + 1 };
  }

  rows(): Record<string, Value>[] {
    return this.kept.map((k) => k.row);
  }
}

// The local period a date prefix names, in unix seconds [start, end]:
// YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DD HH, YYYY-MM-DD HH:MM; else undefined.
export function periodOf(p: string): [number, number] | undefined {
  const n = p.length;
  if (n !== 4 && n !== 7 && n !== 10 && n !== 13 && n !== 16) return undefined;
  for (let i = 0; i < n; i++) {
    const c = p.charCodeAt(i);
    const sep = i === 4 || i === 7 ? 45 : i === 10 ? 32 : i === 13 ? 58 : 0;
    if (sep ? c !== sep : c < 48 || c > 57) return undefined;
  }
  const y = Number(p.slice(0, 4)), mo = n > 4 ? Number(p.slice(5, 7)) : 0, d = n > 7 ? Number(p.slice(8, 10)) : 0;
  const h = n > 10 ? Number(p.slice(11, 13)) : 0, mi = n > 13 ? Number(p.slice(14, 16)) : 0;
  if (y < 1970 || (n > 4 && (mo < 1 || mo > 12)) || (n > 7 && (d < 1 || d > 31)) || h > 23 || mi > 59) return undefined;
  const s = (ms: number) => Math.floor(ms / 1000);
  if (n === 4) return [s(fromLocal(y, 1, 1)), s(fromLocal(y + 1, 1, 1)) - 1];
  if (n === 7) return [s(fromLocal(y, mo, 1)), s(fromLocal(y, mo + 1, 1)) - 1];
  if (n === 10) return [s(fromLocal(y, mo, d)), s(fromLocal(y, mo, d + 1)) - 1];
  if (n === 13) return [s(fromLocal(y, mo, d, h)), s(fromLocal(y, mo, d, h + 1)) - 1];
  return [s(fromLocal(y, mo, d, h, mi)), s(fromLocal(y, mo, d, h, mi + 1)) - 1];
}

// The time a fact's `date` conditions allow, or undefined (no bound): only
// narrows (every row is still tested against every condition).
export function timeRange(where: Cond[]): { lo: number; hi: number } | undefined {
  let lo = 0, hi = 0xffffffff, any = false;
  for (const c of where) {
    if (c.field.field !== "date" || c.field.kind !== "date") continue;
    const p = c.op === "CONTAINS" || c.op === "LIKE" || c.op === "!=" ? undefined : periodOf(c.str);
    if (!p) continue;
    any = true;
    if (c.op === "=" || c.op === ">=") lo = Math.max(lo, p[0]);
    if (c.op === "=" || c.op === "<=") hi = Math.min(hi, p[1]);
    if (c.op === ">") lo = Math.max(lo, p[1] + 1);
    if (c.op === "<") hi = Math.min(hi, p[0] - 1);
  }
  return any ? { lo, hi } : undefined;
}

// The folded words every row that meets `where` holds in its `field` (a text
// field): a CONTAINS value; an = value between the text's edges; a LIKE
// pattern's runs between `%`, a `_` in them as fold.ts ANY_CHAR, the pattern's
// start and end (without `%` there) as TEXT_EDGE. Only narrows what is read
// (every row is still tested against every condition): sources skip what
// provably holds none of them.
export function wordsOf(where: Cond[], field: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const c of where) {
    if (c.field.field !== field || c.field.kind !== "text") continue;
    if (c.op === "CONTAINS") {
      if (c.folded.length) out.push(c.folded);
    } else if (c.op === "=") {
      if (c.folded.length) {
        const w = new Uint8Array(c.folded.length + 2);
        w.set(c.folded, 1);
        w[0] = w[w.length - 1] = TEXT_EDGE;
        out.push(w);
      }
    } else if (c.op === "LIKE" && c.like) {
      const p = c.like;
      for (let i = 0; i < p.length; ) {
        if (p[i] === -1) {
          i++;
          continue;
        }
        let j = i, known = false;
        for (; j < p.length && p[j] !== -1; j++) if (p[j] >= 0) known = true;
        if (known) {
          const edgeL = i === 0 ? 1 : 0, edgeR = j === p.length ? 1 : 0;
          const w = new Uint8Array(edgeL + j - i + edgeR);
          if (edgeL) w[0] = TEXT_EDGE;
          for (let k = i; k < j; k++) w[edgeL + k - i] = p[k] === -2 ? ANY_CHAR : p[k];
          if (edgeR) w[w.length - 1] = TEXT_EDGE;
          out.push(w);
        }
        i = j;
      }
    }
  }
  return out;
}

function withWords(range: { lo: number; hi: number } | undefined, words: Uint8Array[]): { lo: number; hi: number; words?: Uint8Array[] } | undefined {
  if (!words.length) return range;
  return { lo: range ? range.lo : 0, hi: range ? range.hi : 0xffffffff, words };
}

// Runs the query over its source.
export function runQuery(q: Query, src: QuerySources): QueryResult {
  let unavailable: string | undefined;
  let r: Runner;
  const archive = (stream: "fact" | "event" | "digest", conv: (it: ArchivedItem) => Rec, runner: Runner, range?: { lo: number; hi: number; words?: Uint8Array[] }): void => {
    const a = src.archive;
    if (!a) {
      unavailable = "the archive is not available: only what NVS holds was queried";
      return;
    }
    if (!a.scan) {
      unavailable = "this archive cannot be queried: only what NVS holds was queried";
      return;
    }
    try {
      const rep = range ? a.scan(stream, (it) => runner.take(conv(it)), range) : a.scan(stream, (it) => runner.take(conv(it)));
      if (rep.unreadable.length) unavailable = `archive: cannot open ${rep.unreadable.join(", ")} now`;
      else if (rep.migrating) unavailable = "archive: records of the old format not migrated yet were not queried";
    } catch (e) {
      if (!(e instanceof Error) || e.name === "PowerCut") throw e;
      unavailable = e.message;
    }
  };
  const byName = (rec: Rec, field: string) => rec[field];
  if (q.from === "episode") {
    const eps = src.episodes;
    // the episodes domain's importance (src/episode/score.ts), at this moment
    const t = Math.floor(now() / 1000);
    const imp = (ep: Episode) => importance(ep, t);
    r = new Runner(q, (ep: Episode, field) => episodeValue(ep, field, imp));
    if (!eps) unavailable = "episodes are not available on this device";
    else {
      const words = q.text ? wordsOf(q.where, "content") : [];
      // conditions a header alone can decide: a text is read only for a header that meets them
      const onHeader = q.where.filter((c) => c.field.field !== "content" && c.field.field !== "keywords");
      const pre = q.text && onHeader.length ? (ep: Episode) => onHeader.every((c) => condHolds(c, episodeValue(ep, c.field.field, imp))) : undefined;
      const opts: { text?: boolean; trash?: boolean; words?: Uint8Array[]; pre?: (ep: Episode) => boolean } = { text: q.text, trash: q.trash };
      if (words.length) opts.words = words;
      if (pre) opts.pre = pre;
      eps.forEach((ep) => r.take(ep), opts);
    }
  } else if (q.from === "fact") {
    r = new Runner(q, byName);
    // NVS newest first (a later one of the same second first), then the archive
    const facts: Fact[] = src.memory.facts();
    const order = facts.map((_f, i) => i).sort((a, b) => facts[b].timestamp - facts[a].timestamp || b - a);
    let stop = false;
    for (const i of order) {
      const f = facts[i];
      if ((stop = r.take(factRec(recordId("fact", f), f.content, formatDateTime(f.timestamp * 1000), false)))) break;
    }
    // a fact's date is its time: conditions on it narrow what the archive reads
    if (!stop) archive("fact", (it) => factRec(it.id, it.content, iso16(it.timestamp), true), r, withWords(timeRange(q.where), wordsOf(q.where, "content")));
  } else if (q.from === "event") {
    r = new Runner(q, byName);
    let stop = false;
    for (const e of src.memory.events()) if ((stop = r.take(nvsEvent(e)))) break;
    if (!stop) archive("event", archivedEvent, r, withWords(undefined, wordsOf(q.where, "content")));
  } else {
    r = new Runner(q, byName);
    archive("digest", digestRec, r);
  }
  const rows = r.rows();
  const out: QueryResult = { from: q.from, count: rows.length, rows };
  if (r.more) out.more = true;
  if (r.truncated) out.truncated = true;
  if (unavailable) {
    out.partial = true;
    out.unavailable = unavailable;
  }
  return out;
}

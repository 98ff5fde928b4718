// Snapshots and meta-snapshots (issue 16 item 8; seed 003, SEEDS.md 39-41):
// recall type=snapshot with a keyword (or the user's message) returns
// [{id, relevance, reason, …}], relevance 0..1, only above 0.5, best first.
//
// - Snapshots are the archive's monthly digests (src/archive/digest.ts):
//   snapshot_<digest id>, with the month, category (moment or event), count,
//   keywords and key points.
// - Meta-snapshots, one per category (fact, moment, event, episode):
//   meta_<category>, with its keywords, refs to its snapshots and a one-line
//   description. Derived on the fly at each recall from the digest stream (read
//   once, whole: it is small), what NVS holds, and the episodes' keywords.
//
// Relevance is model-free (no network, no model): overlap of keywords and of
// character bigrams between the query and a snapshot, and a time cue of the
// query (去年三月, 上个月, 2025-03, 夏天…) against the snapshot's month.
// docs/DESIGN.md "Snapshots" gives the formula.

import { ToolError } from "../text/reply";
import { foldString } from "../archive/fold";
import { DigestBuilder } from "../archive/digest";
import type { ArchivedItem } from "../archive/line";
import { byteLength, decode, encode } from "../text/utf8";
import { now } from "../time/clock";
import { toLocal } from "../time/local";
import type { QuerySources } from "./run";

export const MAX_QUERY_BYTES = 400;
export const DEFAULT_SNAPSHOTS = 5;
export const MAX_SNAPSHOTS = 50; // as the schema's limit; the items stay within ITEMS_BUDGET_BYTES
export const THRESHOLD = 0.5; // seed 003: only relevance above it
export const META_EPISODES = 64; // episodes whose keywords the episode meta-snapshot reads at most
export const META_KEYWORDS = 10;
export const META_REFS = 12;
export const ITEMS_BUDGET_BYTES = 6000;
const KW_TABLE = 48; // keyword counts per category while the digests stream by

// Characters that carry no meaning alone: a bigram holding one is not counted.
const STOP = "的了是在我你他她它们这那有和就都也很说吗呢吧啊呀么还得过个";
// What names a category in a question.
const CUES: Record<string, string[]> = {
  fact: ["事实", "信息", "资料", "fact"],
  moment: ["回忆", "经历", "时刻", "心情", "moment"],
  event: ["事件", "纪念日", "生日", "活动", "计划", "日程", "event"],
  episode: ["对话", "聊天", "谈话", "聊过", "conversation", "episode"],
};
const CATEGORIES = ["fact", "moment", "event", "episode"] as const;
type Category = (typeof CATEGORIES)[number];

// ---- text analysis ----------------------------------------------------------------------------

interface Grams {
  text: string; // folded
  chars: number; // code points
  uni: string[]; // meaningful non-ASCII characters
  bi: string[]; // bigrams of them, and ASCII words of 2+ letters or digits
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}
// punctuation and symbols outside ASCII (CJK punctuation, full-width forms, general punctuation)
function isPunct(c: number): boolean {
  return (c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xff00 && c <= 0xff20) || (c >= 0xfe30 && c <= 0xfe4f) || c >= 0x1f000;
}

function add(list: string[], s: string): void {
  if (list.indexOf(s) < 0) list.push(s);
}

export function grams(s: string): Grams {
  const text = decode(foldString(s));
  const g: Grams = { text, chars: 0, uni: [], bi: [] };
  let prev = ""; // the last meaningful non-ASCII character of the current run
  let word = "";
  for (const ch of text) {
    g.chars++;
    const c = ch.codePointAt(0)!;
    if (c < 0x80) {
      if (isAlnum(c)) word += ch;
      else {
        if (word.length >= 2) add(g.bi, word);
        word = "";
      }
      prev = "";
      continue;
    }
    if (word.length >= 2) add(g.bi, word);
    word = "";
    if (isPunct(c) || STOP.indexOf(ch) >= 0) {
      prev = "";
      continue;
    }
    add(g.uni, ch);
    if (prev) add(g.bi, prev + ch);
    prev = ch;
  }
  if (word.length >= 2) add(g.bi, word);
  return g;
}

function overlap(a: string[], b: string[], found?: string[]): number {
  let n = 0;
  for (const x of a)
    if (b.indexOf(x) >= 0) {
      n++;
      if (found && found.length < 3) found.push(x);
    }
  return n;
}

// ---- time cues ----------------------------------------------------------------------------------

// A span of months named by the query: month keys (year * 12 + month - 1), inclusive.
export interface TimeCue {
  from: number;
  to: number;
  label: string;
}

const CN_NUM = "一二三四五六七八九十";

function cnMonth(s: string): number {
  if (s === "十一") return 11;
  if (s === "十二") return 12;
  const i = CN_NUM.indexOf(s);
  return s.length === 1 && i >= 0 ? i + 1 : Number(s);
}

export function timeCue(s: string, nowMs: number): TimeCue | undefined {
  const t = decode(foldString(s));
  const lt = toLocal(nowMs);
  const cur = lt.year * 12 + lt.month - 1;
  let year: number | undefined;
  let label = "";
  let m = /(\d{4})\s*(?:年|-|\/)/.exec(t);
  if (m) year = Number(m[1]);
  else if (t.indexOf("去年") >= 0) year = lt.year - 1;
  else if (t.indexOf("前年") >= 0) year = lt.year - 2;
  else if (t.indexOf("今年") >= 0) year = lt.year;
  if (year !== undefined) label = m ? m[0] : t.indexOf("去年") >= 0 ? "去年" : t.indexOf("前年") >= 0 ? "前年" : "今年";
  if (t.indexOf("上个月") >= 0 || t.indexOf("上月") >= 0) return { from: cur - 1, to: cur - 1, label: "上个月" };
  if (t.indexOf("这个月") >= 0 || t.indexOf("本月") >= 0) return { from: cur, to: cur, label: "这个月" };
  // a month: 3月, 十二月, 2025-03
  let month = 0;
  m = /(\d{4})[-/](\d{1,2})(?!\d)/.exec(t);
  if (m) {
    month = Number(m[2]);
    year = Number(m[1]);
    label = "";
  } else {
    m = /(\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月/.exec(t);
    if (m) month = cnMonth(m[1]);
  }
  if (month >= 1 && month <= 12) {
    const y = year ?? (month - 1 <= lt.month - 1 ? lt.year : lt.year - 1);
    const k = y * 12 + month - 1;
    return { from: k, to: k, label: label + m![0] };
  }
  // a season
  const seasons: [string, number][] = [["春", 3], ["夏", 6], ["秋", 9], ["冬", 12]];
  for (const [c, start] of seasons) {
    const i = t.indexOf(c);
    if (i < 0 || (t[i + 1] !== "天" && t[i + 1] !== "季")) continue;
    let y = year;
    if (y === undefined) {
      y = lt.year;
      if (y * 12 + start - 1 > cur) y--; // the latest one that has begun
    }
    const k = y * 12 + start - 1;
    return { from: k, to: k + 2, label: label + c + t[i + 1] };
  }
  if (year !== undefined) return { from: year * 12, to: year * 12 + 11, label };
  return undefined;
}

function monthKey(month: string): number {
  return Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
}

// ---- relevance ----------------------------------------------------------------------------------

export interface Scored {
  relevance: number;
  reason: string;
}

// How well `q` matches something with these keywords and this text.
// kw: the best keyword (1 when the query holds it; a keyword query inside a
// keyword counts by how much of it it covers; else the share of the keyword's
// bigrams the query holds). text: the query's bigrams (its characters when it
// has none) found in the text, 3 of them (or all it has) counting full.
// content = 1 − (1 − 0.85·kw)(1 − 0.6·text).
export function contentScore(q: Grams, isMessage: boolean, keywords: readonly string[], text: Grams, why: string[]): number {
  let kw = 0, best = "";
  for (const k0 of keywords) {
    const kg = grams(k0);
    if (!kg.text) continue;
    let s = 0;
    if (q.text.indexOf(kg.text) >= 0) s = 1;
    else if (!isMessage && kg.text.indexOf(q.text) >= 0 && q.chars) s = 0.6 + (0.4 * q.chars) / kg.chars;
    else if (kg.bi.length) s = overlap(kg.bi, q.bi) / kg.bi.length;
    if (s > kw) {
      kw = s;
      best = k0;
    }
  }
  const qc = q.bi.length ? q.bi : q.uni;
  const found: string[] = [];
  const hits = qc.length ? overlap(qc, q.bi.length ? text.bi : text.uni, found) : 0;
  const txt = qc.length ? Math.min(1, hits / Math.min(3, qc.length)) : 0;
  if (kw > 0) why.push(kw === 1 ? `keyword ${best}` : `keyword ${best} in part`);
  if (hits) why.push(`shares ${found.join(", ")}`);
  return 1 - (1 - 0.85 * kw) * (1 - 0.6 * txt);
}

const round2 = (x: number) => Math.round(x * 100) / 100;

// A digest's relevance: its content score, raised when the query names its
// month (0.6 + 0.4·content), halved when the query names another time.
export function scoreDigest(q: Grams, isMessage: boolean, cue: TimeCue | undefined, d: ArchivedItem): Scored {
  const why: string[] = [];
  const texts = grams(d.content + " " + (d.keywords ?? []).join(" "));
  let r = contentScore(q, isMessage, d.keywords ?? [], texts, why);
  if (cue && d.month) {
    const k = monthKey(d.month);
    if (k >= cue.from && k <= cue.to) {
      r = 0.6 + 0.4 * r;
      why.push(`month ${d.month} is ${cue.label}`);
    } else r = 0.5 * r;
  }
  return { relevance: round2(r), reason: why.join("; ") || "no match" };
}

// A meta-snapshot's: its keywords' content score, raised (noisy-or 0.6) when
// the query names the category (对话, 回忆, 生日…).
export function scoreMeta(q: Grams, isMessage: boolean, cat: Category, keywords: readonly string[]): Scored {
  const why: string[] = [];
  let r = contentScore(q, isMessage, keywords, grams(keywords.join(" ")), why);
  for (const c of CUES[cat])
    if (q.text.indexOf(c) >= 0) {
      r = 1 - (1 - r) * 0.4;
      why.push(`names ${c}`);
      break;
    }
  return { relevance: round2(r), reason: why.join("; ") || "no match" };
}

// ---- meta-snapshots -------------------------------------------------------------------------------

interface Meta {
  count: number; // records
  archived: number; // of which in the archive (or folded into its digests)
  digests: number;
  first: string; // YYYY-MM of the oldest digest
  last: string;
  refs: string[];
  kw: Map<string, number>; // keyword → weight (bounded)
  nvsKeywords: string[]; // chosen from what NVS holds (DigestBuilder)
}

const blank = (): Meta => ({ count: 0, archived: 0, digests: 0, first: "", last: "", refs: [], kw: new Map(), nvsKeywords: [] });

function countKw(m: Meta, k: string, w: number): void {
  const v = m.kw.get(k);
  if (v !== undefined) m.kw.set(k, v + w);
  else if (m.kw.size < KW_TABLE) m.kw.set(k, w);
}

// Words every record of a category holds: no keyword of it.
const COMMON = ["主人", "owner"];

function keywordsOf(m: Meta): string[] {
  const out = m.nvsKeywords.filter((k) => COMMON.indexOf(k) < 0).slice(0, META_KEYWORDS);
  const ranked: [string, number][] = [];
  m.kw.forEach((w, k) => ranked.push([k, w]));
  ranked.sort((a, b) => b[1] - a[1]);
  for (const [k] of ranked) {
    if (out.length >= META_KEYWORDS) break;
    if (out.indexOf(k) < 0 && COMMON.indexOf(k) < 0) out.push(k);
  }
  return out;
}

// Keywords of what NVS holds in one category: the digest's keyword chooser
// over all of it as one month.
function nvsKeywords(add: (b: DigestBuilder) => number): { keywords: string[]; count: number } {
  const b = new DigestBuilder();
  const n = add(b);
  if (!n) return { keywords: [], count: 0 };
  const d = b.take();
  return { keywords: d.length ? d[0].keywords : [], count: n };
}

const T_ANY = 86400 * 400; // one month for all of NVS (the keywords are what matter)

function describe(cat: Category, m: Meta, keywords: string[]): string {
  const about = keywords.length ? `; often about ${keywords.slice(0, 5).join(", ")}` : "";
  const span = m.first ? ` (${m.first === m.last ? m.first : m.first + " to " + m.last})` : "";
  if (cat === "fact") return `facts the owner told: ${m.count}${m.archived ? `, ${m.archived} of them archived` : ""}${about}`;
  if (cat === "episode") return `conversation episodes: ${m.count}${m.count >= META_EPISODES ? " or more" : ""}${about}`;
  const what = cat === "moment" ? "moments shared" : "events";
  return `${what}: ${m.count - m.archived} recent${m.digests ? `, earlier ones in ${m.digests} monthly snapshots${span}` : m.archived ? `, ${m.archived} archived` : ""}${about}`;
}

// ---- retrieval -----------------------------------------------------------------------------------

export interface SnapshotItem {
  id: string;
  relevance: number;
  reason: string;
  [k: string]: unknown;
}

export interface SnapshotResult {
  query: string;
  count: number;
  items: SnapshotItem[];
  time?: string; // the time the query names
  truncated?: true;
  partial?: true;
  unavailable?: string;
}

function limitOf(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_SNAPSHOTS;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_SNAPSHOTS) throw new ToolError(`limit must be an integer from 1 to ${MAX_SNAPSHOTS}`);
  return v;
}

// Keeps the best `limit` items above the threshold, best first (ties: the first seen).
function offer(top: SnapshotItem[], limit: number, it: SnapshotItem): void {
  if (!(it.relevance > THRESHOLD)) return;
  let at = top.length;
  while (at > 0 && it.relevance > top[at - 1].relevance) at--;
  if (at >= limit) return;
  top.splice(at, 0, it);
  if (top.length > limit) top.length = limit;
}

export function snapshots(query: string, limitArg: unknown, src: QuerySources & { archive?: { count?(t: "fact" | "moment" | "event"): number } }, isMessage: boolean): SnapshotResult {
  const text = query.trim();
  if (!text) throw new ToolError("recall type=snapshot needs keyword (or message): what to look for");
  if (encode(text).length > MAX_QUERY_BYTES) throw new ToolError(`keyword is too long: at most ${MAX_QUERY_BYTES} bytes`);
  const limit = limitOf(limitArg);
  const q = grams(text);
  const cue = timeCue(text, now());
  const top: SnapshotItem[] = [];
  let unavailable: string | undefined;
  const metas: Record<Category, Meta> = { fact: blank(), moment: blank(), event: blank(), episode: blank() };

  // the archive's digests: snapshots, and what the moment and event metas know of the past
  const a = src.archive;
  if (!a || !a.scan) unavailable = a ? "this archive cannot be searched for snapshots" : "the archive is not available: no monthly snapshots";
  else
    try {
      const rep = a.scan("digest", (d) => {
        const m = metas[d.type === "event" ? "event" : "moment"];
        const id = "snapshot_" + d.id;
        m.digests++;
        m.archived += d.count ?? 0;
        if (d.month) {
          if (!m.last || d.month > m.last) m.last = d.month;
          if (!m.first || d.month < m.first) m.first = d.month;
        }
        if (m.refs.length < META_REFS) m.refs.push(id);
        for (const k of d.keywords ?? []) countKw(m, k, 1 + Math.min(9, Math.floor((d.count ?? 0) / 10)));
        const s = scoreDigest(q, isMessage, cue, d);
        offer(top, limit, { id, relevance: s.relevance, reason: s.reason, category: d.type, month: d.month ?? "", count: d.count ?? 0, keywords: (d.keywords ?? []).slice(), points: d.content });
      });
      if (rep.unreadable.length) unavailable = `archive: cannot open ${rep.unreadable.join(", ")} now`;
    } catch (e) {
      if (!(e instanceof Error) || e.name === "PowerCut") throw e;
      unavailable = e.message;
    }

  // NVS: what each category holds now
  const mem = src.memory;
  const f = nvsKeywords((b) => {
    const facts = mem.facts();
    for (const x of facts) b.add({ t: T_ANY, type: "moment", content: x.content });
    return facts.length;
  });
  metas.fact.nvsKeywords = f.keywords;
  metas.fact.count = f.count;
  const mo = nvsKeywords((b) => {
    const ms = mem.moments();
    for (const x of ms) b.add({ t: T_ANY, type: "moment", topic: x.topic, content: x.content });
    return ms.length;
  });
  metas.moment.nvsKeywords = mo.keywords;
  metas.moment.count = mo.count + metas.moment.archived;
  const ev = nvsKeywords((b) => {
    const es = mem.events();
    for (const x of es) b.add({ t: T_ANY, type: "moment", content: x.content });
    return es.length;
  });
  metas.event.nvsKeywords = ev.keywords;
  metas.event.count = ev.count + metas.event.archived;
  if (a && a.count && a.scan)
    try {
      // archived facts (digests never hold facts); moments and events still verbatim in the archive
      const af = a.count("fact");
      metas.fact.archived = af;
      metas.fact.count += af;
      for (const t of ["moment", "event"] as const) {
        const n = a.count(t);
        metas[t].count += n;
        metas[t].archived += n;
      }
    } catch (e) {
      if (!(e instanceof Error) || e.name === "PowerCut") throw e;
      unavailable ??= e.message;
    }

  // episodes: their count, and the keywords of the first META_EPISODES
  const eps = src.episodes;
  if (eps) {
    let n = 0;
    eps.forEach(
      (ep) => {
        n++;
        for (const k of ep.keywords) countKw(metas.episode, k, 1);
        return n >= META_EPISODES;
      },
      { text: true },
    );
    metas.episode.count = n;
  }

  for (const cat of CATEGORIES) {
    const m = metas[cat];
    if (!m.count && !m.digests) continue;
    const keywords = keywordsOf(m);
    const s = scoreMeta(q, isMessage, cat, keywords);
    offer(top, limit, { id: "meta_" + cat, relevance: s.relevance, reason: s.reason, category: cat, keywords, snapshot_refs: m.refs, description: describe(cat, m, keywords) });
  }

  const out: SnapshotResult = { query: text, count: 0, items: top };
  if (cue) out.time = cue.label;
  let bytes = 0;
  for (let i = 0; i < top.length; i++) {
    bytes += byteLength(JSON.stringify(top[i])) + 1;
    if (bytes > ITEMS_BUDGET_BYTES && i > 0) {
      top.length = i;
      out.truncated = true;
      break;
    }
  }
  out.count = top.length;
  if (unavailable) {
    out.partial = true;
    out.unavailable = unavailable;
  }
  return out;
}

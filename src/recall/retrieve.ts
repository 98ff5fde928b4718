// One retrieval for search, recall and context (issue 25; docs/DESIGN.md
// "Recall"): every kind of memory is a candidate — profile fields, likes and
// dislikes, family, facts, traits, habits, goals, schedules and events,
// moments (NVS), episodes (their header signatures pick the few whose text is
// read), archived facts, moments and events and monthly digests (the
// archive's keyword and time lookups) — scored against the question's words
// (src/recall/terms.ts: bigrams, synonyms, fields, relatives), an entity table
// built from the family list (咪咪 is the owner's cat, 李娟 is 妈妈) and the
// time it names (src/recall/when.ts).
//
// Scoring: a word counts by its rarity among the candidates (idf) and its
// weight; the words of one synonym group count once. A candidate is kept when
// it covers enough of the question's words that memory knows (COVER) with at
// least one whole word, and when it does not name a different relative than
// the question (妈妈's operation is not 爸爸's) nor miss a name the question
// holds that memory does not know (小君 is not 小军): else nothing comes back.
// Each hit says its kind and its age (今天, n天前, …; a plan: n天后).

import type { Memory } from "../memory/memory";
import type { Schedules } from "../schedule/schedules";
import type { Episodes } from "../episode/episodes";
import type { Episode } from "../episode/types";
import { agePhrase, daysBetween } from "../episode/age";
import { termBits, hasFoldedBits } from "../episode/sig";
import { parseLocal, formatDate } from "../time/local";
import { analyse, relationsIn, runs, type Term, type Asked } from "./terms";
import { timeOf, type Range } from "./when";

export const COVER = 0.45; // share of the known words a hit must cover
export const EPISODE_READS = 10; // episode texts read at most per retrieval
export const ARCHIVE_KEYS_CONTEXT = 3;
const ARCHIVE_KEYS = ARCHIVE_KEYS_CONTEXT; // context's keyword lookups of archived facts at most (of moments: 1); search's: twice that (of moments and events: 3)

// One call's flash read budget (issue 25 item 5): NVS is free (in RAM); the
// episodes' folded signatures are in RAM and each episode text read is
// charged EPISODE_READ_BYTES; the archive's lookups share what is left and
// stop when it is spent (src/archive/query.ts Budget): the answer then says
// it is partial.
export const FLASH_BUDGET = 32 * 1024;
export const BUDGET_SPENT = "the flash read budget (32 KB) was spent: older archived records were not searched";
export const EPISODE_READ_BYTES = 928; // a header and a text (800), and the header block around it

export interface Budget {
  left: number;
  cut: boolean;
}

// What the retrieval needs of the archive (src/archive/archive.ts).
export interface ArchiveLookup {
  recall(type: "fact" | "moment" | "event", q: { keyword?: string; start?: string; end?: string; limit: number; budget?: Budget }): object[];
  scan?(stream: "digest", fn: (item: any) => boolean | void, range?: { lo: number; hi: number }, budget?: Budget): { unreadable: string[] };
  // several keywords in one pass (each read made once for all)
  recallMany?(type: "fact" | "moment" | "event", keywords: readonly string[], q: { limit: number; budget?: Budget }): object[][];
}

export interface Sources {
  memory: Memory;
  schedules?: Schedules;
  episodes?: Episodes;
  archive?: ArchiveLookup;
}

export type HitKind = "profile" | "like" | "dislike" | "family" | "fact" | "trait" | "habit" | "goal" | "schedule" | "event" | "moment" | "episode" | "digest";

export interface Hit {
  kind: HitKind;
  text: string;
  age: string; // 今天, n天前, n个月前, n年前; a plan: 今天, n天后; "" for what has no time
  date?: string; // YYYY-MM-DD (a schedule: YYYY-MM-DD HH:MM)
  archived?: true;
  summary?: true; // a monthly digest: a summary of what was forgotten
  id?: number; // an episode's id
  score: number;
}

export interface Retrieved {
  hits: Hit[];
  range?: Range;
  unreadable?: string; // a part of memory that could not be read now
  episodes: Episode[]; // the episodes shown (their use counts to update)
  budget: Budget; // what is left of the call's flash budget; cut: the archive was not read whole
}

interface Doc {
  kind: HitKind;
  text: string; // shown
  hay: string; // searched (lower case): the text and what names it
  at?: number; // ms: when it was told (a schedule, an event: when it is)
  archived?: true;
  summary?: true;
  episode?: Episode;
  field?: string;
  owner?: true; // about the owner (profile, likes): not about a relative the question names
  rel?: string; // a family member's relation (canonical when it is a relative)
}

// Words starting with 小/阿/老 that are not names.
const NOT_NAMES = ["小朋友", "小时", "小猫", "小狗", "小孩", "小学", "小区", "小吃", "小说", "小心", "小手术", "小组", "小姐", "小伙", "小鱼", "小鸟", "小兔", "小事", "小米", "老师", "老家", "老人", "老伴", "老婆", "老公", "老歌", "老爸", "老妈", "老板", "老是", "老鼠", "老虎", "老年", "阿姨", "小提琴", "小白兔", "老样子", "老毛病", "小便", "小时候", "小菜", "小吃", "小麦", "小气", "老实", "小测", "小考"];

function names(question: string): string[] {
  const out: string[] = [];
  const cs: string[] = [];
  for (const c of question) cs.push(c);
  for (let i = 0; i + 1 < cs.length; i++) {
    if (cs[i] !== "小" && cs[i] !== "阿" && cs[i] !== "老") continue;
    const w = cs[i] + cs[i + 1];
    let common = false;
    for (const n of NOT_NAMES) if (n.indexOf(w) === 0 && question.indexOf(n) >= 0) common = true;
    if (!common && runs(cs[i + 1]).length) out.push(w);
  }
  return out;
}

function lower(s: string): string {
  return s.toLowerCase();
}

function tsOfIso(iso: string): number | undefined {
  return parseLocal(iso.length > 19 ? iso.slice(0, 19) : iso.replace("T", " ").slice(0, 16));
}

// Every candidate of NVS memory.
function nvsDocs(src: Sources, nowMs: number): Doc[] {
  const m = src.memory;
  const docs: Doc[] = [];
  const p = m.profile();
  const prof = (field: string, text: string) => docs.push({ kind: "profile", text, hay: lower(text), field, owner: true });
  if (p.name) prof("name", `用户名字：${p.name}`);
  if (p.age) prof("age", `年龄：${p.age}岁`);
  if (p.gender) prof("gender", `性别：${p.gender}`);
  if (p.location) prof("location", `所在地：${p.location}`);
  if (p.birthday) prof("birthday", `生日：${p.birthday}`);
  const prefs = m.preferences();
  for (const l of prefs.likes) docs.push({ kind: "like", text: `喜欢：${l}`, hay: lower(`喜欢 ${l}`), owner: true });
  for (const l of prefs.dislikes) docs.push({ kind: "dislike", text: `不喜欢：${l}`, hay: lower(`不喜欢 讨厌 ${l}`), owner: true });
  for (const f of m.family()) {
    const text = `${f.relation}${f.name ? " " + f.name : ""}${f.sharedMemory ? "：" + f.sharedMemory : ""}`;
    const rel = relationsIn(f.relation);
    docs.push({ kind: "family", text, hay: lower(`${text} ${f.memberType === "pet" ? "宠物" : ""}名字`), at: f.updated ? f.updated * 1000 : undefined, rel: rel.length ? rel[0] : f.relation });
  }
  for (const f of m.facts()) docs.push({ kind: "fact", text: f.content, hay: lower(f.content), at: f.timestamp * 1000 });
  for (const t of m.traits()) docs.push({ kind: "trait", text: t.content, hay: lower(t.content + " 性格"), owner: true });
  for (const h of m.habits()) docs.push({ kind: "habit", text: `${h.content}（${h.frequency}）`, hay: lower(h.content + " 习惯"), owner: true });
  for (const g of m.goals()) docs.push({ kind: "goal", text: `${g.content}（进度${g.progress}%）`, hay: lower(g.content + " 目标 计划"), at: g.created ? g.created * 1000 : undefined, owner: true });
  for (const x of m.moments()) docs.push({ kind: "moment", text: `${x.topic}：${x.content}`, hay: lower(`${x.topic} ${x.content}`), at: x.timestamp * 1000 });
  if (src.schedules)
    for (const s of src.schedules.list({ completed: true })) {
      const at = parseLocal(s.datetime);
      docs.push({ kind: "schedule", text: `${s.datetime} ${s.content}${s.completed ? "（已完成）" : ""}`, hay: lower(`${s.content} 安排 日程`), at });
    }
  const year = formatDate(nowMs).slice(0, 4);
  for (const e of m.events()) {
    if (e.schedule) continue;
    const date = e.date.length === 5 ? `${year}-${e.date}` : e.date;
    docs.push({ kind: "event", text: e.eventType === "todo" ? e.content : `${e.date} ${e.content}`, hay: lower(`${e.content} ${e.eventType} 安排`), at: parseLocal(date) });
  }
  return docs;
}

interface Scored {
  doc: Doc;
  score: number;
  whole: boolean; // holds every strong word (or synonym group) of the question
}

// The retrieval. `kinds`: only these kinds (recall of one type); `limit` hits at most.
// `archive`: "needed" (context, at every turn) looks into the archive only
// when NVS and the episodes hold no candidate with every strong word of the
// question; "always" (search, recall: asked on purpose) always does.
export function retrieve(src: Sources, question: string, opts: { limit?: number; nowMs: number; kinds?: readonly HitKind[]; archive?: "always" | "needed"; budget?: number }): Retrieved {
  const nowMs = opts.nowMs;
  const budget: Budget = { left: opts.budget ?? FLASH_BUDGET, cut: false };
  const limit = opts.limit ?? 5;
  const asked = analyse(question);
  const range = timeOf(question, nowMs);
  const docs = nvsDocs(src, nowMs);
  const want = (k: HitKind) => !opts.kinds || opts.kinds.indexOf(k) >= 0;

  // the entity table: names of the family list and what they are
  const ownerName = src.memory.profile().name;
  const qRel = asked.relations.slice();
  const qLower = lower(question);
  const entityNames: string[] = [];
  for (const f of src.memory.family()) {
    if (!f.name) continue;
    entityNames.push(f.name);
    const rel = relationsIn(f.relation);
    const relWord = rel.length ? rel[0] : f.relation;
    if (qLower.indexOf(lower(f.name)) >= 0) {
      // a name in the question: one concept, the name or what it is (李娟 or 妈妈)
      const name = lower(f.name);
      asked.terms = asked.terms.filter((t) => t.extra || name.indexOf(t.t) < 0);
      const c = 900 + entityNames.length;
      asked.terms.push({ t: name, w: 1.2, concept: c, key: 0 });
      asked.terms.push({ t: lower(relWord), w: 1, concept: c, extra: true, key: 0 });
      for (const r of rel) if (qRel.indexOf(r) < 0) qRel.push(r);
    } else {
      // the member named by what it is (妈妈, 朋友, a pet by its kind: 猫 finds 咪咪)
      const relLower = lower(f.relation);
      let named = asked.relations.indexOf(relWord) >= 0 || (relLower !== "" && asked.content.indexOf(relLower) >= 0);
      let concept = 800 + entityNames.length;
      for (const t of asked.terms)
        if (t.w >= 0.8 && (t.t === relLower || t.t === lower(relWord) || (f.memberType === "pet" && t.t.indexOf(relLower) >= 0))) {
          named = true;
          concept = t.concept; // one concept: what it is or its name (妈妈 or 李娟)
        }
      if (named) asked.terms.push({ t: lower(f.name), w: 1.2, concept, extra: true, key: 0 });
    }
  }
  // names the question holds that memory does not know: a hit must hold them
  const unknown = names(question).filter((n) => {
    if (ownerName && ownerName.indexOf(n) >= 0) return false;
    for (const e of entityNames) if (e.indexOf(n) >= 0) return false;
    return true;
  });
  const third = qRel.length > 0; // about a relative, not the owner

  let unreadable: string | undefined;
  // episodes: the header signatures pick the candidates whose text is read
  const seenEpisodes: Episode[] = [];
  if (src.episodes && want("episode")) {
    const probes: { bits: number[]; w: number }[] = [];
    for (const t of asked.terms) {
      const bits = termBits(t.t);
      if (bits) probes.push({ bits, w: t.w });
    }
    const lo = range ? range.lo / 1000 : 0, hi = range ? range.hi / 1000 : 0;
    try {
      const eps = src.episodes.lookup((sig, off, createdAt) => {
        let s = 0;
        for (const p of probes) if (hasFoldedBits(sig, off, p.bits)) s += p.w;
        if (range && !range.future && createdAt >= lo && createdAt < hi) s += 1;
        return s >= 0.8 ? s : 0;
      }, EPISODE_READS);
      budget.left -= eps.length * EPISODE_READ_BYTES;
      for (const ep of eps) {
        seenEpisodes.push(ep);
        docs.push({ kind: "episode", text: ep.content, hay: lower(ep.content + " " + ep.keywords.join(" ")), at: ep.createdAt * 1000, episode: ep });
      }
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      unreadable = `episodes: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  // the archive (each lookup reads tens of KB): only when NVS and the
  // episodes hold no candidate with every strong word of the question, and
  // then few lookups: the question's first words in facts, its first in
  // moments, events only for a plan or a time
  const pre = score(docs.filter((d) => want(d.kind)), asked, range, qRel, third, unknown, nowMs);
  // (a family member whole is not enough: a name asks for all about them)
  let whole = false;
  for (let i = 0; i < pre.length && i < 3; i++) if (pre[i].whole && pre[i].doc.kind !== "family") whole = true;
  whole = whole && opts.archive === "needed" && !range;
  // (a plan's time, 下周二, is not in the archive: it holds what is past)
  if (src.archive && !whole && !(range && range.future)) {
    const a = src.archive;
    const keys = archiveKeys(asked.terms);
    const seen: string[] = [];
    const take = (type: "fact" | "moment" | "event", items: object[]) => {
      for (const o of items as any[]) {
        if (seen.indexOf(o.id) >= 0) continue;
        seen.push(o.id);
        const at = tsOfIso(String(o.timestamp ?? ""));
        const text = type === "moment" ? `${o.topic ? o.topic + "：" : ""}${o.content}` : type === "event" ? `${o.date ?? ""} ${o.content}`.trim() : String(o.content);
        const d: Doc = { kind: o.digest ? "digest" : type, text, hay: lower(text), at, archived: true };
        if (o.digest) d.summary = true;
        docs.push(d);
      }
    };
    const types: ("fact" | "moment" | "event")[] = [];
    if (want("fact") || want("profile")) types.push("fact");
    if (want("moment") || want("episode") || want("digest")) types.push("moment");
    if (want("event") || want("schedule")) types.push("event");
    const planAsked = asked.kinds.indexOf("plan") >= 0 || (range !== undefined && range.future);
    // the lookups in the order most likely to answer, while the budget lasts:
    // a time's records and digests first, then each word in turn over the
    // streams (the first word everywhere before the second anywhere)
    const lookups: ((budget: Budget) => void)[] = [];
    const counts: Record<string, number> = {};
    const streams = types.filter((type) => !(type === "event" && !planAsked && !range && opts.archive === "needed"));
    if (range) for (const type of streams) lookups.push((budget) => take(type, a.recall(type, { start: formatDate(range.lo), end: formatDate(range.hi - 1), limit: 6, budget })));
    if (range && a.scan && (want("digest") || want("episode") || want("moment")))
      lookups.push((budget) => {
        a.scan!("digest", (it: any) => {
          const at = tsOfIso(String(it.timestamp ?? ""));
          const text = `${it.topic ? it.topic + "：" : ""}${it.content}`;
          docs.push({ kind: "digest", text, hay: lower(text), at, archived: true, summary: true });
          return docs.length > 400;
        }, { lo: Math.floor(range.lo / 1000) - 31 * 86400, hi: Math.floor(range.hi / 1000) }, budget);
      });
    const many = a.recallMany;
    if (many)
      // one pass per stream for all its words
      for (const type of streams) {
        const n = opts.archive === "needed" ? (type === "fact" ? ARCHIVE_KEYS : 1) : type === "fact" ? 2 * ARCHIVE_KEYS : ARCHIVE_KEYS;
        const ks = keys.slice(0, n);
        if (ks.length) lookups.push((budget) => { for (const items of many.call(a, type, ks, { limit: 4, budget })) take(type, items); });
      }
    else
      for (const k of keys)
        for (const type of streams) {
          const n = opts.archive === "needed" ? (type === "fact" ? ARCHIVE_KEYS : 1) : type === "fact" ? 2 * ARCHIVE_KEYS : ARCHIVE_KEYS;
          if ((counts[type] = (counts[type] ?? 0) + 1) > n) continue;
          lookups.push((budget) => take(type, a.recall(type, { keyword: k, limit: 4, budget })));
        }
    try {
      // each lookup stops where its next read would not fit in what is left;
      // the bytes it did not read go to the next one (a big unindexed
      // segment of one stream does not hide the others)
      for (const l of lookups) {
        if (budget.left <= 0) break;
        const b: Budget = { left: budget.left, cut: false };
        try {
          l(b);
        } finally {
          budget.left = b.left;
          if (b.cut) budget.cut = true;
        }
      }
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      unreadable = `${unreadable ? unreadable + "; " : ""}archive: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  const scored = score(docs.filter((d) => want(d.kind)), asked, range, qRel, third, unknown, nowMs);
  // one per text, best first
  const hits: Hit[] = [];
  const texts: string[] = [];
  const shown: Episode[] = [];
  for (const s of scored) {
    if (hits.length >= limit) break;
    if (texts.indexOf(s.doc.text) >= 0) continue;
    texts.push(s.doc.text);
    hits.push(hitOf(s, nowMs));
    if (s.doc.episode) shown.push(s.doc.episode);
  }
  const r: Retrieved = { hits, episodes: shown, budget };
  if (range) r.range = range;
  if (unreadable) r.unreadable = unreadable;
  return r;
}

// The words looked up in the archive (one keyword lookup each, per stream):
// the table's words first (a synonym, a relative, an entity's name, a field),
// then the question's own longest words; at most ARCHIVE_KEYS.
function archiveKeys(terms: readonly Term[]): string[] {
  const ARCHIVE_KEYS = 2 * ARCHIVE_KEYS_CONTEXT;
  const keys: string[] = [];
  const rank = (t: Term) => (t.key !== undefined ? t.key : t.extra ? 2 : 1);
  const order = terms.filter((t) => t.w >= 0.8).sort((a, b) => rank(a) - rank(b) || b.t.length - a.t.length);
  for (const t of order) {
    if (keys.length >= ARCHIVE_KEYS) break;
    // a longer word already looked up holds this one
    let covered = false;
    for (const k of keys) if (k.indexOf(t.t) >= 0 || t.t.indexOf(k) >= 0) covered = true;
    if (!covered) keys.push(t.t);
  }
  return keys;
}

function hitOf(s: Scored, nowMs: number): Hit {
  const d = s.doc;
  let age = "";
  let date: string | undefined;
  if (d.at !== undefined) {
    date = formatDate(d.at);
    if (d.at > nowMs && (d.kind === "schedule" || d.kind === "event")) {
      const n = daysBetween(nowMs, d.at);
      age = n === 0 ? "今天" : `${n}天后`;
    } else age = agePhrase(d.at, nowMs);
  }
  const h: Hit = { kind: d.kind, text: d.text, age, score: Math.round(s.score * 100) / 100 };
  if (date && d.kind !== "family" && d.kind !== "goal") h.date = date;
  if (d.archived) h.archived = true;
  if (d.summary) h.summary = true;
  if (d.episode) h.id = d.episode.id;
  return h;
}

function score(docs: Doc[], asked: Asked, range: Range | undefined, qRel: string[], third: boolean, unknown: string[], nowMs: number): Scored[] {
  const n = docs.length;
  const terms: Term[] = asked.terms;
  const df = terms.map((t) => {
    let c = 0;
    for (const d of docs) if (d.hay.indexOf(t.t) >= 0) c++;
    return c;
  });
  const idf = df.map((c) => Math.log(1 + (n + 1) / (c + 0.5)));
  // the best a concept can give, over the concepts memory knows
  const conceptMax: Record<number, number> = {};
  for (let i = 0; i < terms.length; i++) {
    if (!df[i]) continue;
    const v = terms[i].w * idf[i];
    if (!(conceptMax[terms[i].concept] >= v)) conceptMax[terms[i].concept] = v;
  }
  const strongConcepts: number[] = [];
  for (const t of terms) if (t.w >= 0.8 && strongConcepts.indexOf(t.concept) < 0) strongConcepts.push(t.concept);
  let known = 0;
  for (const c of Object.keys(conceptMax)) known += conceptMax[Number(c)];
  const out: Scored[] = [];
  const planAsked = asked.kinds.indexOf("plan") >= 0 || (range !== undefined && range.future);
  for (const d of docs) {
    const best: Record<number, number> = {};
    let strong = false;
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      if (d.hay.indexOf(t.t) < 0) continue;
      const v = t.w * idf[i];
      if (!(best[t.concept] >= v)) best[t.concept] = v;
      if (t.w >= 0.8) strong = true;
    }
    let s = 0;
    for (const c of Object.keys(best)) s += best[Number(c)];
    let whole = strongConcepts.length > 0;
    for (const c of strongConcepts) if (!(best[c] > 0)) whole = false;
    let ok = strong && known > 0 && s >= COVER * known;
    // a profile field asked by its name (生日, 几岁 …): the owner's, unless a relative is meant
    if (d.field && asked.field === d.field && !third) {
      ok = true;
      s += 3;
    }
    // in the time the question names
    const inRange = range !== undefined && d.at !== undefined && d.at >= range.lo && d.at < range.hi;
    if (range) {
      if (inRange) {
        s += 1.5;
        if (strong || (planAsked && (d.kind === "schedule" || d.kind === "event"))) ok = true;
        if (range.future && (d.kind === "schedule" || d.kind === "event")) ok = true;
      } else if (d.at !== undefined && d.kind !== "family" && d.kind !== "goal") s *= 0.5;
    }
    // what the question asks for by its kind (我喜欢什么, 我的目标): that kind's few items
    if (!ok && (d.kind === "like" || d.kind === "dislike" || d.kind === "habit" || d.kind === "goal") && asked.kinds.indexOf(d.kind) >= 0) {
      ok = true;
      s += 0.5;
    }
    if (!ok) continue;
    // a relative other than the one asked about
    if (qRel.length) {
      if (d.owner && !d.field) continue;
      if (d.field && third) continue;
      const dRel = relationsIn(d.text);
      if (d.rel && dRel.indexOf(d.rel) < 0) dRel.push(d.rel);
      if (dRel.length) {
        let same = false;
        for (const r of dRel) if (qRel.indexOf(r) >= 0) same = true;
        if (!same) continue;
      }
    }
    let missing = false;
    for (const u of unknown) if (d.hay.indexOf(u) < 0) missing = true;
    if (missing) continue;
    if (asked.kinds.indexOf(d.kind) >= 0 || (planAsked && (d.kind === "schedule" || d.kind === "event"))) s *= 1.5;
    if (d.kind === "dislike" && asked.kinds.indexOf("like") >= 0 && asked.kinds.indexOf("dislike") < 0) s *= 0.5;
    if (d.summary) s *= 0.9;
    // newer first among equals
    if (d.at !== undefined) s += 0.01 / (1 + Math.abs(nowMs - d.at) / 86400000);
    out.push({ doc: d, score: s, whole: whole || (d.field !== undefined && asked.field === d.field) });
  }
  out.sort((a, b) => b.score - a.score);
  return out;
}

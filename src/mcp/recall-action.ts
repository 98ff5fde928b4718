// action=recall of facts, moments and events (NVS and the archive together),
// recall without a type (the one retrieval over every kind) and action=search
// (the retrieval's ranked hits, then every record that holds the words as
// they are). recall type=episode and type=snapshot are routed elsewhere by
// the table (src/mcp/memory-tool.ts).

import { text, int, oneOf, PROFILE_FIELDS } from "../memory/memory";
import { EMOTIONS, REPEATS, type Fact, type Moment, type Event } from "../memory/types";
import type { Memory } from "../memory/memory";
import { parseLocal, formatIso } from "../time/local";
import { recordId, eventIso } from "../archive/line";
import { foldString, containsFolded } from "../archive/fold";
import { now } from "../time/clock";
import { ToolError, quote } from "../text/reply";
import { sourcesOf, view } from "./episode-actions";
import { retrieve, FLASH_BUDGET, BUDGET_SPENT, type HitKind, type Budget } from "../recall/retrieve";
import { out, RECALL_TYPES, SEARCH_HITS, archiveFailed, partOf, type Args, type Item, type RecallQuery, type RecallType, type ToolState } from "./tool-state";

// the kinds of memory a recall of one type ranks (src/recall)
const RECALL_KINDS: Record<RecallType, HitKind[]> = {
  fact: ["profile", "like", "dislike", "family", "fact", "trait", "habit", "goal"],
  moment: ["moment", "episode", "digest"],
  event: ["schedule", "event"],
};

function date(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" || parseLocal(v) === undefined || v.length !== 10) throw new ToolError(`${what} must be a date YYYY-MM-DD`);
  return v;
}

// Recall sees all memory: the NVS records of the type that match, as the
// archive shows its own, and the archive's; newest first, one per id (a
// record a cut left in both is shown once, as archived), cut to `limit`.
// Same rules as the archive: a keyword (content or topic, folded), else a
// range of local dates (inclusive), else the latest. An archive that cannot
// be read now leaves the NVS records standing, marked partial.
export function recallAction(tool: ToolState, a: Args): string {
  const type = oneOf<RecallType>(a.type, "type", RECALL_TYPES);
  const keyword = a.keyword === undefined ? undefined : text(a.keyword, "keyword", 64);
  const message = a.message === undefined ? undefined : text(a.message, "message", 4000, false, true);
  const start = date(a.start_date, "start_date");
  const end = date(a.end_date, "end_date");
  if (start && end && start > end) throw new ToolError("start_date is after end_date");
  const limit = int(a.limit, "limit", 1, 50, 10);
  // one flash read budget for the call: the archive's list, then the ranked hits
  const budget: Budget = { left: FLASH_BUDGET, cut: false };
  const q: RecallQuery = { keyword, start, end, limit, budget };
  const hot = nvsItems(tool.memory, type, q);
  let archived: object[] = [];
  let unreadable: string | undefined;
  if (!tool.archive) unreadable = "the archive is not available";
  else
    try {
      archived = tool.archive.recall(type, q);
      unreadable = partOf(tool.archive);
    } catch (e) {
      if (!archiveFailed(e)) throw e;
      unreadable = (e as Error).message;
    }
  const items = newestFirst(hot, archived as Item[], limit);
  const reply: Record<string, unknown> = { type };
  // with words: the one retrieval's ranked hits of that type's kinds too
  // (not when the archive's part failed: its reason stands as the answer's)
  const words = message ?? keyword;
  if (words !== undefined && words.trim() !== "" && !unreadable) {
    const found = retrieve(sourcesOf(tool), words, { limit: Math.min(limit, SEARCH_HITS), nowMs: now(), kinds: RECALL_KINDS[type], budget: Math.max(0, budget.left) });
    tool.episodes?.used(found.episodes);
    if (found.hits.length) reply.hits = found.hits.map(view);
    if (found.budget.cut) budget.cut = true;
  }
  reply.count = items.length;
  reply.items = items;
  if (unreadable) return out({ ...reply, partial: true, archive_unreadable: unreadable });
  if (budget.cut) return out({ ...reply, partial: true, archive_cut: BUDGET_SPENT });
  return out(reply);
}

// recall without a type: the one retrieval over every kind (keyword or message).
export function recallAnyAction(tool: ToolState, a: Args): string {
  for (const k of Object.keys(a)) if (["action", "type", "keyword", "message", "limit"].indexOf(k) < 0) throw new ToolError(`recall without type takes keyword or message and limit, not '${quote(k, 32)}'; with start_date/end_date give type fact, moment or event`);
  const words = a.message ?? a.keyword;
  if (words === undefined || words === "") throw new ToolError("recall needs keyword or message (the user's words), or type fact, moment, event, episode or snapshot");
  const w = text(words, a.message !== undefined ? "message" : "keyword", 4000, false, true);
  const limit = int(a.limit, "limit", 1, 50, 5);
  const found = retrieve(sourcesOf(tool), w, { limit: Math.min(limit, SEARCH_HITS), nowMs: now() });
  tool.episodes?.used(found.episodes);
  const reply: Record<string, unknown> = { count: found.hits.length, hits: found.hits.map(view) };
  if (found.unreadable) reply.partial = found.unreadable;
  else if (found.budget.cut) {
    reply.partial = true;
    reply.archive_cut = BUDGET_SPENT;
  }
  return out(reply);
}

// search: the one retrieval's ranked hits (src/recall: every kind, synonyms,
// names, time phrases; nothing when nothing is relevant) as `hits`, then, as
// before, every record that holds the words as they are (`items`, and the
// archive's `archived`).
export function searchAction(tool: ToolState, a: Args): string {
  const keyword = text(a.keyword ?? a.content, "keyword", 64);
  const limit = int(a.limit, "limit", 1, 50, 10);
  // one flash read budget for the call: the records that hold the words as
  // they are first (what was asked), then the ranked hits with what is left
  const budget: Budget = { left: FLASH_BUDGET, cut: false };
  const k = keyword.toLowerCase();
  const has = (s: string) => s.toLowerCase().indexOf(k) >= 0;
  const m = tool.memory;
  const items: { where: string; text: string }[] = [];
  // ids of the facts, moments and events listed here: the archive's part does not repeat them
  const listed: Record<RecallType, string[]> = { fact: [], moment: [], event: [] };
  const p = m.profile();
  for (const f of PROFILE_FIELDS) if (p[f] !== "" && p[f] !== 0 && has(String(p[f]))) items.push({ where: "profile", text: `${f}: ${p[f]}` });
  const prefs = m.preferences();
  for (const l of prefs.likes) if (has(l)) items.push({ where: "like", text: l });
  for (const l of prefs.dislikes) if (has(l)) items.push({ where: "dislike", text: l });
  for (const f of m.family()) if (has(f.name) || has(f.relation) || has(f.sharedMemory)) items.push({ where: "family", text: `${f.relation} ${f.name}`.trim() });
  for (const f of m.facts())
    if (has(f.content)) {
      items.push({ where: "fact", text: f.content });
      listed.fact.push(recordId("fact", f));
    }
  for (const t of m.traits()) if (has(t.content)) items.push({ where: "trait", text: t.content });
  for (const h of m.habits()) if (has(h.content)) items.push({ where: "habit", text: h.content });
  for (const x of m.moments())
    if (has(x.content) || has(x.topic)) {
      items.push({ where: "moment", text: `${x.topic}: ${x.content}` });
      listed.moment.push(recordId("moment", x));
    }
  for (const g of m.goals()) if (has(g.content)) items.push({ where: "goal", text: g.content });
  for (const s of tool.schedules.list({ completed: true })) if (has(s.content)) items.push({ where: "schedule", text: `${s.content} at ${s.datetime}` });
  for (const e of m.events()) {
    if (!has(e.content)) continue;
    if (!e.schedule && !e.time) items.push({ where: "event", text: e.eventType === "todo" ? e.content : `${e.content} on ${e.date}` });
    listed.event.push(recordId("event", e)); // a schedule is listed above
  }
  const archived: Record<string, object[]> = {};
  // an archive file that cannot be read now leaves the rest of the answer
  // standing, marked partial (src/archive: the file is set aside, not lost)
  let unreadable: Record<string, string> | undefined;
  if (tool.archive)
    for (const t of RECALL_TYPES) {
      try {
        const ids = listed[t];
        // asks for as many more as NVS may hide, so that `limit` new ones can remain
        // a stream stops where its next read would not fit in what is left;
        // the bytes it did not read go to the next stream
        const b: Budget = { left: budget.left, cut: false };
        let items: Item[];
        try {
          items = (tool.archive.recall(t, { keyword, limit: limit + ids.length, budget: b }) as Item[]).filter((x) => ids.indexOf(x.id) < 0);
        } finally {
          budget.left = b.left;
          if (b.cut) budget.cut = true;
        }
        if (items.length) archived[t] = items.slice(0, limit);
        const part = partOf(tool.archive);
        if (part) (unreadable ??= {})[t] = part;
      } catch (e) {
        if (!archiveFailed(e)) throw e;
        (unreadable ??= {})[t] = (e as Error).message;
      }
    }
  const found = retrieve(sourcesOf(tool), keyword, { limit: Math.min(limit, SEARCH_HITS), nowMs: now(), budget: Math.max(0, budget.left) });
  tool.episodes?.used(found.episodes);
  const hits = found.hits.map(view);
  if (unreadable) return out({ keyword, hits, count: items.length, items: items.slice(0, limit), archived, partial: true, archive_unreadable: unreadable });
  if (budget.cut || found.budget.cut) return out({ keyword, hits, count: items.length, items: items.slice(0, limit), archived, partial: true, archive_cut: BUDGET_SPENT });
  return out({ keyword, hits, count: items.length, items: items.slice(0, limit), archived });
}

// ---- recall over NVS and the archive together ---------------------------------------------

// An NVS record in the shape of an archived one: the same fields, keys, order
// and id as the archive gives its items (src/archive/codec.ts parseRecord;
// recordId, the local ISO time; test/scenarios/recall-all.scn.ts compares them).
function itemOf(type: RecallType, r: Fact | Moment | Event): Item {
  const id = recordId(type, r);
  if (type === "fact") return { timestamp: formatIso((r as Fact).timestamp * 1000), type, id, content: r.content } as Item;
  if (type === "moment") {
    const m = r as Moment;
    return {
      timestamp: formatIso(m.timestamp * 1000),
      type,
      id,
      content: m.content,
      topic: m.topic,
      emotion_type: Math.max(0, EMOTIONS.indexOf(m.emotion)),
      emotion_intensity: m.intensity,
      importance: m.importance,
    } as Item;
  }
  const e = r as Event;
  return {
    timestamp: eventIso(e),
    type,
    id,
    date: e.date,
    time: e.time,
    event_type: e.eventType,
    content: e.content,
    emotion_type: Math.max(0, EMOTIONS.indexOf(e.emotion)),
    emotion_intensity: e.intensity,
    significance: e.significance,
    priority: e.priority,
    flags: (e.schedule ? 1 : 0) | (e.completed ? 2 : 0) | (Math.max(0, REPEATS.indexOf(e.repeat)) << 2),
  } as Item;
}

// The NVS records of a type that match a recall query, newest first (a later
// one of the same second first: NVS keeps them in the order they came).
export function nvsItems(m: Memory, type: RecallType, q: RecallQuery): Item[] {
  const recs: (Fact | Moment | Event)[] = type === "fact" ? m.facts() : type === "moment" ? m.moments() : m.events();
  const folded = q.keyword !== undefined && q.keyword.trim() !== "" ? foldString(q.keyword.trim()) : undefined;
  const lo = !folded && q.start ? q.start + "T00:00:00" : "";
  const hi = !folded && q.end ? q.end + "T23:59:59" : "~";
  const found: { item: Item; at: number }[] = [];
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (folded && !containsFolded(r.content, folded) && !(type === "moment" && containsFolded((r as Moment).topic, folded))) continue;
    const item = itemOf(type, r);
    if (item.timestamp < lo || item.timestamp > hi) continue;
    found.push({ item, at: i });
  }
  found.sort((x, y) => (x.item.timestamp < y.item.timestamp ? 1 : x.item.timestamp > y.item.timestamp ? -1 : y.at - x.at));
  return found.map((x) => x.item);
}

// Two lists, each newest first, as one: newest first, one item per id (a
// record in both is shown as archived), at most `limit`. On the same second,
// NVS first (the archive holds the older records).
function newestFirst(hot: Item[], given: Item[], limit: number): Item[] {
  // the archive's latest are the last archived: put in time order (on the
  // same second, as the archive gave them)
  const archived = given
    .map((it, at) => ({ it, at }))
    .sort((x, y) => (x.it.timestamp < y.it.timestamp ? 1 : x.it.timestamp > y.it.timestamp ? -1 : x.at - y.at))
    .map((x) => x.it);
  const inArchive = archived.map((x) => x.id);
  const h = hot.filter((x) => inArchive.indexOf(x.id) < 0);
  const out: Item[] = [];
  const seen: string[] = [];
  let i = 0, j = 0;
  while (out.length < limit && (i < h.length || j < archived.length)) {
    const x = j >= archived.length || (i < h.length && h[i].timestamp >= archived[j].timestamp) ? h[i++] : Object.assign({}, archived[j++], { archived: true as const });
    if (seen.indexOf(x.id) >= 0) continue;
    seen.push(x.id);
    out.push(x);
  }
  return out;
}

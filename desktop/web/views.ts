// What the timeline page and the read-only routes show, read from the running
// device without changing it: no tool call here writes (the tool's `read`
// would mark a damage notice and new achievements as told, and episode recall
// counts as use, so neither is called from a GET).
//
//   timelineView   GET /api/timeline: profile, family, likes, facts, moments,
//                  events, schedules and episodes grouped by month, archive
//                  months, storage use
//   profileView    GET /profile: what the tool's `read` gives, read-only
//   statsView      GET /stats: the tool's `status` and the partitions' use
//   searchView     GET /api/search?q=: the tool's `search` (NVS and archive)
//                  and its `query` over the episodes

import type { Host } from "../host.js";
import { currentTz, partitions } from "../host.js";
import { formatDate, formatDateTime, formatIso } from "../../src/time/local.js";
import { now } from "../../src/time/clock.js";
import { relationView } from "../../src/relation/rules.js";
import { byPriority } from "../../src/mcp/fork.js";
import { isCore } from "../../src/episode/score.js";
import type { ArchivedItem } from "../../src/archive/line.js";

export const ARCHIVE_ITEMS_SHOWN = 300; // per stream, newest first, on the timeline
export const EPISODES_SHOWN = 800; // the largest preset's cap
export const SEARCH_LIMIT = 20;
export const QUERY_MAX_CHARS = 64; // the tool's search keyword limit

export type Kind = "fact" | "moment" | "event" | "schedule" | "episode";

export interface TimelineItem {
  at: string; // local "YYYY-MM-DD HH:MM" (or "YYYY-MM-DD" for a dated event)
  kind: Kind;
  text: string;
  detail?: string; // topic, emotion, repeat, scores...
  archived?: boolean; // read from the archive on the storage partition
  core?: boolean; // an episode that is never forgotten
}

export interface MonthGroup {
  month: string; // YYYY-MM
  items: TimelineItem[]; // newest first
}

function familyView(host: Host) {
  return host.service.memory.family().map((f) => ({ relation: f.relation, name: f.name, member_type: f.memberType, closeness: f.closeness, memory: f.sharedMemory }));
}

function profileFields(host: Host): Record<string, string | number> {
  const p = host.service.memory.profile();
  const out: Record<string, string | number> = {};
  if (p.name) out.name = p.name;
  if (p.age) out.age = p.age;
  if (p.gender) out.gender = p.gender;
  if (p.location) out.location = p.location;
  if (p.birthday) out.birthday = p.birthday;
  return out;
}

// Events with no time of day: yearly ones (MM-DD), dated ones, todos.
function plainEvents(host: Host) {
  return host.service.memory
    .events()
    .filter((e) => !e.schedule && !e.time)
    .map((e) => ({ date: e.date, content: e.content, type: e.eventType, completed: e.completed }));
}

// GET /profile: the tool's `read` document (profile, preferences, family,
// traits, habits, goals, the next schedules, events, relationship, pending)
// without its bookkeeping.
export function profileView(host: Host): Record<string, unknown> {
  const m = host.service.memory;
  const today = formatDate(now());
  return {
    profile: profileFields(host),
    preferences: m.preferences(),
    family: familyView(host),
    facts: m
      .facts()
      .sort((x, y) => y.timestamp - x.timestamp)
      .map((f) => f.content),
    traits: m.traits().map((t) => (t.category && t.category !== "other" ? `${t.category}: ${t.content}` : t.content)),
    habits: m.habits().map((h) => `${h.content} (${h.frequency})`),
    goals: m
      .goals()
      .filter((g) => g.status === "active")
      .map((g) => ({ content: g.content, progress: g.progress, priority: g.priority })),
    schedules: byPriority(host.service.schedules, 8).map((s) => ({ content: s.content, datetime: s.datetime, priority: s.priority, repeat: s.repeat })),
    events: plainEvents(host)
      .filter((e) => !e.completed && (e.date.length === 5 || e.type === "todo" || e.date >= today))
      .map((e) => ({ date: e.date, content: e.content, type: e.type })),
    relationship: relationView(m, false),
    pending: host.service.tool.pending.list(),
  };
}

// GET /stats: `petmem status` as JSON.
export function statsView(host: Host): Record<string, unknown> {
  const status = JSON.parse(host.service.tool.call({ action: "status" })) as unknown;
  return { status, time_zone: currentTz(), boot: host.booted.line, partitions: partitions(host) };
}

function monthOf(at: string): string {
  return at.slice(0, 7);
}

function pushItem(groups: Map<string, TimelineItem[]>, item: TimelineItem): void {
  const m = monthOf(item.at);
  if (!/^\d{4}-\d\d$/.test(m)) return;
  const list = groups.get(m);
  if (list) list.push(item);
  else groups.set(m, [item]);
}

function archivedAt(it: ArchivedItem): string {
  if (it.type === "event" && it.date && /^\d{4}-\d\d-\d\d$/.test(it.date)) return it.time ? `${it.date} ${it.time}` : it.date;
  return it.timestamp.replace("T", " ").slice(0, 16);
}

const REPEAT_WORDS: Record<string, string> = { daily: "every day", weekly: "every week", monthly: "every month" };

// GET /api/timeline: everything the page shows.
export function timelineView(host: Host): Record<string, unknown> {
  const m = host.service.memory;
  const t = now();
  const groups = new Map<string, TimelineItem[]>();
  for (const f of m.facts()) pushItem(groups, { at: formatDateTime(f.timestamp * 1000), kind: "fact", text: f.content });
  for (const x of m.moments())
    pushItem(groups, { at: formatDateTime(x.timestamp * 1000), kind: "moment", text: x.content, detail: [x.topic, x.emotion !== "neutral" ? x.emotion : ""].filter(Boolean).join(" · ") });
  const yearly: { date: string; content: string; type: string }[] = [];
  const todos: { content: string; completed: boolean }[] = [];
  for (const e of plainEvents(host)) {
    if (e.type === "todo" && !/^\d{4}-/.test(e.date)) todos.push({ content: e.content, completed: e.completed });
    else if (e.date.length === 5) yearly.push({ date: e.date, content: e.content, type: e.type });
    else pushItem(groups, { at: e.date, kind: "event", text: e.content, detail: e.completed ? `${e.type} · done` : e.type });
  }
  yearly.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const s of host.service.schedules.list({ completed: true })) {
    const detail = [REPEAT_WORDS[s.repeat] ?? "", s.completed ? "done" : "", `priority ${s.priority}`].filter(Boolean).join(" · ");
    pushItem(groups, { at: s.datetime, kind: "schedule", text: s.content, detail });
  }

  // episodes (storage partition)
  let episodes: Record<string, unknown> = { available: false };
  const eps = host.booted.episodes;
  if (eps) {
    try {
      const c = eps.counts();
      let shown = 0;
      eps.forEach(
        (ep) => {
          pushItem(groups, {
            at: formatDateTime(ep.createdAt * 1000),
            kind: "episode",
            text: ep.content,
            detail: [ep.keywords.join(", "), ep.emotion !== "neutral" ? ep.emotion : "", `used ${ep.useCount}×`].filter(Boolean).join(" · "),
            core: isCore(ep.p),
          });
          return ++shown >= EPISODES_SHOWN;
        },
        { text: true },
      );
      episodes = { available: true, active: c.active, core: c.core, trash: c.trash, tombstones: c.tombs, cap: eps.cap };
    } catch (e) {
      episodes = { available: false, error: (e as Error).message };
    }
  }

  // the archive (storage partition): records per month, the newest on the timeline, digests
  const months = new Map<string, { fact: number; moment: number; event: number; digests: { type: string; count: number; keywords: string[]; content: string }[] }>();
  const monthRow = (mo: string) => {
    let r = months.get(mo);
    if (!r) months.set(mo, (r = { fact: 0, moment: 0, event: 0, digests: [] }));
    return r;
  };
  const unreadable: string[] = [];
  let truncated = false;
  let archiveError: string | undefined;
  const archive = host.booted.archive;
  if (archive) {
    try {
      for (const type of ["fact", "moment", "event"] as const) {
        let n = 0;
        const r = archive.scan(type, (it) => {
          const mo = it.timestamp.slice(0, 7);
          monthRow(mo)[type]++;
          if (n++ < ARCHIVE_ITEMS_SHOWN)
            pushItem(groups, { at: archivedAt(it), kind: type, text: it.content, detail: it.topic || it.event_type || undefined, archived: true });
          else truncated = true;
        });
        unreadable.push(...r.unreadable);
      }
      const r = archive.scan("digest", (it) => {
        const mo = it.month ?? it.timestamp.slice(0, 7);
        monthRow(mo).digests.push({ type: it.type, count: it.count ?? 0, keywords: it.keywords ?? [], content: it.content });
      });
      unreadable.push(...r.unreadable);
    } catch (e) {
      archiveError = (e as Error).message;
    }
  }

  const timeline: MonthGroup[] = [...groups.entries()]
    .sort((a, b) => (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0))
    .map(([month, items]) => ({ month, items: items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)) }));
  const archiveMonths = [...months.entries()].sort((a, b) => (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0)).map(([month, r]) => ({ month, ...r }));
  const archiveDoc: Record<string, unknown> = { available: archive !== undefined, months: archiveMonths };
  if (truncated) archiveDoc.truncated = `the timeline shows the newest ${ARCHIVE_ITEMS_SHOWN} archived records of each kind`;
  if (unreadable.length) archiveDoc.unreadable = unreadable;
  if (archiveError) archiveDoc.error = archiveError;
  const parts = partitions(host);
  return {
    now: formatIso(t),
    time_zone: currentTz(),
    profile: profileFields(host),
    relationship: relationView(m, false),
    family: familyView(host),
    likes: m.preferences().likes,
    dislikes: m.preferences().dislikes,
    traits: m.traits().map((x) => (x.category && x.category !== "other" ? `${x.category}: ${x.content}` : x.content)),
    habits: m.habits().map((h) => `${h.content} (${h.frequency})`),
    goals: m.goals().map((g) => ({ content: g.content, progress: g.progress, status: g.status, priority: g.priority })),
    yearly,
    todos,
    pending: host.service.tool.pending.list(),
    timeline,
    archive: archiveDoc,
    episodes,
    storage: {
      nvs: { used_bytes: parts.nvs.used_bytes, partition_bytes: parts.nvs.partition_bytes, percent: parts.nvs.percent },
      storage: { used_bytes: parts.storage.used_bytes, usable_bytes: parts.storage.usable_bytes, partition_bytes: parts.storage.partition_bytes, percent: parts.storage.percent },
    },
  };
}

// 'text' quoted for the query language (\' and \\ escaped).
export function queryString(s: string): string {
  return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\t/g, "\\t") + "'";
}

// GET /api/search?q=: the AI's own search (its ranked `hits`: the one
// retrieval of src/recall over every kind; then the profile, likes, family, facts,
// moments, schedules, events, and the archive by keyword) and the episodes
// whose text contains the words (the tool's query, which reads without
// counting a use). Throws a ToolError for a query the tool refuses.
export function searchView(host: Host, q: string): Record<string, unknown> {
  const search = JSON.parse(host.service.tool.call({ action: "search", keyword: q, limit: SEARCH_LIMIT })) as Record<string, unknown>;
  let episodes: unknown[] = [];
  let episodesNote: string | undefined;
  if (host.booted.episodes) {
    try {
      const r = JSON.parse(
        host.service.tool.call({ action: "query", from: "episode", where: `content CONTAINS ${queryString(q)}`, order_by: "created_at desc", limit: SEARCH_LIMIT, select: "id,content,created_at,keywords" }),
      ) as { rows?: unknown[]; items?: unknown[] };
      episodes = r.rows ?? r.items ?? [];
    } catch (e) {
      episodesNote = (e as Error).message;
    }
  }
  const archived = (search.archived ?? {}) as Record<string, unknown[]>;
  const hits = (search.hits ?? []) as unknown[];
  let total = (search.count as number) ?? 0;
  for (const k of Object.keys(archived)) total += archived[k].length;
  total += episodes.length;
  // the ranked hits are mostly the same records again: a total of things found, not of lines
  if (hits.length > total) total = hits.length;
  const out: Record<string, unknown> = { q, total, hits, items: search.items ?? [], archived, episodes };
  if (search.partial) out.partial = search.archive_unreadable;
  if (episodesNote) out.episodes_error = episodesNote;
  return out;
}

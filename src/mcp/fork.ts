// What the memory fork's tool does that the `memory` tool must do too
// (haoyu9189-code/xiaozhi-esp32-pet-v2, main/memory/memory_mcp_tools.cc; issue
// 13): read by type, dated events (MM-DD: every year), goals with progress,
// the compact forms the fork accepts in `content`, delete type all, numbers as
// strings. Kept apart from memory-tool.ts, which calls these.

import { Memory, MemoryError, text, int, PROFILE_FIELDS } from "../memory/memory";
import { newEvent, type Event, type Goal } from "../memory/types";
import { Schedules, startOf } from "../schedule/schedules";
import { byteLength } from "../text/utf8";
import { daysInMonth, formatDate, fromLocal, toLocal, parseLocal } from "../time/local";
import { now } from "../time/clock";

// ---- numbers and booleans as strings ------------------------------------------------

export const INT_ARGS = ["closeness", "intensity", "importance", "priority", "duration", "limit", "progress", "budget", "id"];
export const SCORE_ARGS = ["e", "i", "p", "j"]; // episode scores 0..1: "0.5" is 0.5

// Some models send "4" for 4 and "true" for true. Where the meaning is clear (an
// integer-only argument given as the digits of an integer, force as "true" or
// "false") the value is taken; anything else is left for the checks to refuse.
export function coerce(args: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k of INT_ARGS) {
    const v = args[k];
    if (typeof v === "string" && /^\s*[+-]?\d{1,6}\s*$/.test(v)) (out ??= { ...args })[k] = Number(v);
  }
  for (const k of SCORE_ARGS) {
    const v = args[k];
    if (typeof v === "string" && /^\s*(?:[01]|[01]?\.\d{1,4})\s*$/.test(v)) (out ??= { ...args })[k] = Number(v);
  }
  const f = args.force;
  if (f === "true" || f === "false") (out ??= { ...args }).force = f === "true";
  return out ?? args;
}

// ---- the fork's compact forms in `content` --------------------------------------------

const COLON = /[:：]/;

function parts(s: string): string[] {
  return s.split(COLON).map((p) => p.trim());
}

// trait "category:content", habit "content:frequency", goal "content:priority",
// moment "topic:content[:importance]", event "MM-DD:type:content" or
// "MM-DD:content" (family "relation:name[:memory]" is in memory-tool.ts). A
// field given by its own argument wins: then content is taken as it is.
export function expand(type: string, a: Record<string, unknown>): Record<string, unknown> {
  const c = a.content;
  if (typeof c !== "string" || !COLON.test(c)) return a;
  const p = parts(c);
  const o = { ...a };
  switch (type) {
    case "trait":
      if (a.category === undefined && p[0] && byteLength(p[0]) <= 16 && p.length > 1) {
        o.category = p[0];
        o.content = p.slice(1).join(":");
      }
      return o;
    case "habit":
      if (a.frequency === undefined && p.length > 1 && p[p.length - 1] && byteLength(p[p.length - 1]) <= 16) {
        o.frequency = p[p.length - 1];
        o.content = p.slice(0, -1).join(":");
      }
      return o;
    case "goal":
      if (a.priority === undefined && p.length > 1 && /^[1-5]$/.test(p[p.length - 1])) {
        o.priority = Number(p[p.length - 1]);
        o.content = p.slice(0, -1).join(":");
      }
      return o;
    case "moment":
      if (a.topic === undefined && p.length > 1) {
        o.topic = p[0];
        let rest = p.slice(1);
        if (rest.length > 1 && /^[1-5]$/.test(rest[rest.length - 1])) {
          if (a.importance === undefined) o.importance = Number(rest[rest.length - 1]);
          rest = rest.slice(0, -1);
        }
        o.content = rest.join(":");
      }
      return o;
    case "event": {
      if (a.datetime !== undefined) return o;
      // the date itself may be YYYY-MM-DD: its hyphens are not colons
      if (!isEventDate(p[0]) || p.length < 2) return o;
      o.datetime = p[0];
      if (p.length > 2 && a.category === undefined) {
        o.category = p[1];
        o.content = p.slice(2).join(":");
      } else o.content = p.slice(1).join(":");
      return o;
    }
    default:
      return a;
  }
}

// ---- dated events ------------------------------------------------------------------------

export const EVENT_DAYS = 30; // read type=event: the next 30 days, as the fork

function isEventDate(s: string): boolean {
  return /^(?:\d{4}-)?\d{1,2}-\d{1,2}$/.test(s);
}

const pad = (n: number) => (n < 10 ? "0" : "") + n;

// "MM-DD" (every year) or "YYYY-MM-DD" (once), normalised; also "M-D".
export function eventDate(v: unknown): string {
  if (v === undefined || v === null || v === "") throw new MemoryError("invalid", "an event needs its date: datetime 'MM-DD' (every year, e.g. a birthday) or 'YYYY-MM-DD' (once), or content 'MM-DD:type:content'");
  const m = typeof v === "string" ? /^(?:(\d{4})-)?(\d{1,2})-(\d{1,2})$/.exec(v.trim()) : null;
  if (!m) throw new MemoryError("invalid", "an event's date must be 'MM-DD' (every year) or 'YYYY-MM-DD' (once); for a time of day write type schedule");
  const mo = Number(m[2]), d = Number(m[3]);
  const y = m[1] === undefined ? 2024 : Number(m[1]); // a leap year: 02-29 is a yearly date
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) throw new MemoryError("invalid", `${String(v)} is not a real date`);
  const md = `${pad(mo)}-${pad(d)}`;
  if (m[1] === undefined) return md;
  if (parseLocal(`${m[1]}-${md}`) === undefined) throw new MemoryError("invalid", `${String(v)} is not a date this device can hold`);
  return `${m[1]}-${md}`;
}

function dayStart(ms: number): number {
  const t = toLocal(ms);
  return fromLocal(t.year, t.month, t.day);
}

// The next day (today included) an event falls on, and how many days away;
// undefined for a dated event already past. 02-29 falls on 02-28 outside leap years.
export function nextDay(date: string, at = now()): { date: string; days: number } | undefined {
  const today = dayStart(at);
  let when: number | undefined;
  if (date.length === 10) when = parseLocal(date);
  else if (/^\d\d-\d\d$/.test(date)) {
    const mo = Number(date.slice(0, 2)), d = Number(date.slice(3, 5));
    const y = toLocal(at).year;
    for (let k = 0; k < 2 && when === undefined; k++) {
      const t = fromLocal(y + k, mo, Math.min(d, daysInMonth(y + k, mo)));
      if (t >= today) when = t;
    }
  }
  if (when === undefined || when < today) return undefined;
  return { date: formatDate(when), days: Math.round((when - today) / 86400000) };
}

const isPlain = (e: Event) => !e.schedule || !e.time;

export interface EventView {
  date: string; // the next day it falls on, YYYY-MM-DD (a todo: the day it was noted)
  type: string;
  content: string;
  days_until?: number; // not for a todo, which has no day
  every_year?: true;
}

// Plain events (no time of day) falling within `days` from today, soonest
// first, then the todos (reminders without a day, eventType "todo", which the
// listener stores with the day they were heard; src/listen/pending.ts).
export function upcomingEvents(memory: Memory, days = EVENT_DAYS, at = now()): EventView[] {
  const out: EventView[] = [];
  const todos: EventView[] = [];
  for (const e of memory.events()) {
    if (!isPlain(e) || e.completed) continue;
    if (e.eventType === "todo") {
      todos.push({ date: e.date, type: e.eventType, content: e.content });
      continue;
    }
    const n = nextDay(e.date, at);
    if (!n || n.days > days) continue;
    const v: EventView = { date: n.date, type: e.eventType, content: e.content, days_until: n.days };
    if (e.date.length === 5) v.every_year = true;
    out.push(v);
  }
  out.sort((x, y) => x.days_until! - y.days_until!);
  for (const t of todos) out.push(t);
  return out;
}

export function writeEvent(memory: Memory, a: Record<string, unknown>): { result: string; event: { date: string; type: string; content: string; every_year: boolean; next?: string } } {
  const date = eventDate(a.datetime);
  const content = text(a.content, "event content", 64);
  const type = text(a.category, "event type", 16, true) || "event";
  const r = memory.addEvent(newEvent({ date, content, eventType: type }));
  const n = nextDay(date);
  const ev: { date: string; type: string; content: string; every_year: boolean; next?: string } = { date, type, content, every_year: date.length === 5 };
  if (n) ev.next = n.date;
  return { result: r.action === "NOOP" ? "no_change" : "added", event: ev };
}

// The plain event `content` names (exact, else a unique substring).
function findEvent(list: Event[], content: unknown, open: boolean): number {
  const q = text(content, "content", 64);
  const plain = list.map((e, i) => ({ e, i })).filter((x) => isPlain(x.e) && (!open || !x.e.completed));
  let hits = plain.filter((x) => x.e.content === q);
  if (!hits.length) hits = plain.filter((x) => x.e.content.indexOf(q) >= 0);
  if (!hits.length) return -1;
  if (hits.length > 1) throw new MemoryError("ambiguous", `'${q}' matches ${hits.length} events: ${hits.map((h) => `'${h.e.content}' on ${h.e.date}`).join(", ")}. Say which one`);
  return hits[0].i;
}

export function deleteEvent(memory: Memory, content: unknown): boolean {
  const list = memory.events();
  const i = findEvent(list, content, false);
  if (i < 0) return false;
  list.splice(i, 1);
  memory.setEvents(list);
  return true;
}

// complete_schedule on a plain event: a dated one is done; a yearly one comes
// back every year, so it cannot be.
export function completeEvent(memory: Memory, content: unknown): { content: string; date: string } | undefined {
  const list = memory.events();
  const i = findEvent(list, content, true);
  if (i < 0) return undefined;
  const e = list[i];
  if (e.date.length === 5) throw new MemoryError("invalid", `'${e.content}' comes back every year (${e.date}); delete it with type event to forget it`);
  list[i] = { ...e, completed: true };
  memory.setEvents(list);
  return { content: e.content, date: e.date };
}

// ---- goals with progress ---------------------------------------------------------------------

export function goalView(g: Goal): { content: string; progress: number; priority: number; category: string; status: string } {
  return { content: g.content, progress: g.progress, priority: g.priority, category: g.category, status: g.status };
}

// A goal's write: added if new; `progress` 0-100 moves it on, 100 completes it.
export function writeGoal(memory: Memory, a: Record<string, unknown>): { result: string; goal: ReturnType<typeof goalView> } {
  const progress = a.progress === undefined ? undefined : int(a.progress, "progress", 0, 100);
  const c = text(a.content, "goal", 64);
  const exists = memory.goals().some((g) => g.content === c);
  let result = "no_change";
  if (!exists) {
    memory.addGoal({ content: c, category: a.category, priority: a.priority });
    result = "added";
  }
  if (progress !== undefined) {
    const r = memory.updateGoal(c, { progress, status: progress >= 100 ? "completed" : "active" });
    if (r.action !== "NOOP" && result !== "added") result = progress >= 100 ? "completed" : "updated";
  }
  const g = memory.goals().find((x) => x.content === c)!;
  return { result, goal: goalView(g) };
}

// ---- read by type ---------------------------------------------------------------------------

export const READ_TYPES = ["profile", "preferences", "like", "dislike", "family", "fact", "trait", "habit", "event", "goal", "moment", "schedule", ...PROFILE_FIELDS] as const;

const dateOf = (secs: number) => formatDate(secs * 1000);

// Everything of one type, with the details the overview leaves out.
export function readType(memory: Memory, schedules: Schedules, type: string): Record<string, unknown> {
  switch (type) {
    case "profile":
    case "name":
    case "age":
    case "gender":
    case "location":
    case "birthday": {
      const p = memory.profile();
      return { profile: { name: p.name, age: p.age || null, gender: p.gender, location: p.location, birthday: p.birthday } };
    }
    case "preferences":
    case "like":
    case "dislike":
      return { preferences: memory.preferences() };
    case "family":
      return { family: memory.family().map((f) => ({ relation: f.relation, name: f.name, member_type: f.memberType, closeness: f.closeness, memory: f.sharedMemory })) };
    case "fact":
      return { facts: memory.facts().sort((x, y) => y.timestamp - x.timestamp).map((f) => ({ content: f.content, date: dateOf(f.timestamp) })) };
    case "trait":
      return { traits: memory.traits().map((t) => ({ category: t.category, content: t.content })) };
    case "habit":
      return { habits: memory.habits().map((h) => ({ content: h.content, frequency: h.frequency })) };
    case "event":
      return { events: upcomingEvents(memory), days: EVENT_DAYS };
    case "goal":
      return { goals: memory.goals().map(goalView) };
    case "moment":
      return { moments: memory.moments().sort((x, y) => y.timestamp - x.timestamp).map((m) => ({ topic: m.topic, content: m.content, emotion: m.emotion, importance: m.importance, date: dateOf(m.timestamp) })) };
    default:
      return { schedules: byPriority(schedules, 0).map((s) => ({ content: s.content, datetime: s.datetime, priority: s.priority, repeat: s.repeat, duration: s.duration, reminded: s.reminded ? 1 : 0 })) };
  }
}

// Open schedules from an hour ago on, by priority (highest first) then time, as
// the fork's overview orders them; `max` 0: all.
export function byPriority(schedules: Schedules, max: number, at = now()) {
  const from = at - 3600000;
  const list = schedules.list().filter((s) => (parseLocal(s.datetime) ?? 0) >= from);
  const start = (d: string) => parseLocal(d) ?? 0;
  list.sort((x, y) => y.priority - x.priority || start(x.datetime) - start(y.datetime));
  return max ? list.slice(0, max) : list;
}

// ---- delete type all ------------------------------------------------------------------------------

// The stores delete type=all erases: what the AI knows of the user, what was
// heard and the chat log. The pet's own state (affection, coins, the relationship
// stage) and the health record stay; so does the archive on SPIFFS (older facts,
// moments and events, which recall still finds), as in the fork.
export const ERASED = ["profile", "preferences", "family", "events", "facts", "traits", "habits", "moments", "goals", "pending", "chat"] as const;

export function whatAllIs(memory: Memory): Record<string, number> {
  const p = memory.profile();
  const prefs = memory.preferences();
  const counts: Record<string, number> = {
    profile_fields: PROFILE_FIELDS.filter((f) => p[f] !== "" && p[f] !== 0).length,
    likes: prefs.likes.length,
    dislikes: prefs.dislikes.length,
  };
  for (const s of ERASED) if (s !== "profile" && s !== "preferences") counts[s] = memory.stores[s].count;
  return counts;
}

export function eraseAll(memory: Memory): Record<string, number> {
  const counts = whatAllIs(memory);
  for (const s of ERASED) if (memory.stores[s].count) memory.stores[s].set([]);
  return counts;
}

export function isSchedule(e: Event): boolean {
  return startOf(e) !== undefined;
}

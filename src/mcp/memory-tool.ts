// The MCP tool `memory` (seed 000 §3.5, §6.1, §12.6, §12.10 and its appendix):
// the AI reads, writes, deletes, completes schedules, recalls from the
// archive and searches everything. Every argument is checked before anything
// changes; a rejected call changes nothing.

import { Memory, MemoryError, text, int, oneOf, PROFILE_FIELDS, type ProfileField, type Result, type Commit } from "../memory/memory";
import { EMOTIONS, GOAL_CATEGORIES, MEMBER_TYPES, type StoreName } from "../memory/types";
import { blobEntries, NVS_ENTRY_BYTES, NVS_USABLE_BYTES } from "../nvs/budget";
import { DOMAINS } from "../nvs/store";
import { Schedules, type ScheduleView } from "../schedule/schedules";
import { byteLength } from "../text/utf8";
import { parseLocal, formatDate, formatDateTime } from "../time/local";
import { now } from "../time/clock";
import { ToolError, quote, type Tool } from "./server";
import { PendingQueue } from "../listen/pending";

export const ACTIONS = ["read", "write", "delete", "complete_schedule", "recall", "search", "pending", "confirm", "drop", "status"] as const;
export const TYPES = ["name", "age", "gender", "location", "birthday", "like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "schedule"] as const;
export const RECALL_TYPES = ["fact", "moment", "event"] as const;
export type RecallType = (typeof RECALL_TYPES)[number];
type Type = (typeof TYPES)[number];

export const READ_BUDGET_BYTES = 6000;
export const UPCOMING_IN_READ = 8;

// What the archive offers the tool (src/archive).
export interface RecallQuery {
  keyword?: string;
  start?: string; // YYYY-MM-DD, inclusive
  end?: string; // YYYY-MM-DD, inclusive
  limit: number;
}
export interface ArchiveAccess {
  recall(type: RecallType, q: RecallQuery): object[];
  count(type: RecallType): number;
  footprint?(): number; // bytes of every archive file (status)
  readonly budget?: number; // bytes the archive may use (status)
}

const ARGS = [
  "action", "type", "content", "relation", "name", "closeness", "memory", "member_type", "topic", "emotion", "intensity",
  "importance", "category", "priority", "frequency", "datetime", "repeat", "duration", "keyword", "start_date", "end_date", "limit", "force",
];

export const DESCRIPTION = [
  "Long-term memory of the user, kept on this device.",
  "Call action=read at the start of every conversation: it returns the user's profile, likes and dislikes, family, facts, traits, habits, moments, goals, the next schedules, events without a time (birthdays and anniversaries as MM-DD every year, dated plans, todos), total_coins_spent and the relationship stage with the speaking style to use.",
  "Call action=write whenever the user tells you something worth remembering (type: name, age, gender, location, birthday, like, dislike, family, fact, trait, habit, moment, goal, schedule). Schedules take datetime 'YYYY-MM-DD HH:MM' (local time), optional repeat (none, daily, weekly, monthly), priority 1-5 and duration in minutes; a conflicting schedule is refused with suggested free times unless force=true.",
  "Call action=complete_schedule with content when the user has done a scheduled thing; a repeating schedule then gets its next occurrence.",
  "Call action=delete with type and content when something is wrong or the user asks to forget it.",
  "The device also listens to the conversation and keeps what it hears in a pending queue (read shows it as `pending`, action=pending lists it): an item is stored by itself when heard twice or said explicitly. Call action=confirm with its content (and type if several match) to store it now, or action=drop to discard it; a write of your own settles the pending item it covers.",
  "When the user asks 'do you remember…' (你还记得…吗) or about the past, call action=recall with type fact, moment or event and a keyword, or start_date/end_date (YYYY-MM-DD), or neither for the most recent; limit defaults to 10. action=search with keyword looks through everything, current and archived.",
  "A reply starting with 'error: not saved' means nothing was stored: tell the user, and try again later. action=status reports storage use, records per type, boot count and the last repair. If read has a `notice`, tell the owner what it says.",
].join("\n");

// A new object at each call, never a module constant: on the device this module
// is preloaded into flash, and XS's JSON.stringify refuses an object that lives
// there ("read only value"): tools/list failed on the real SDK's x-cli-lin.
export function inputSchema(): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      action: { type: "string", enum: [...ACTIONS], description: "what to do" },
      type: { type: "string", enum: [...TYPES, "event"], description: "memory type (recall: fact, moment or event)" },
      content: { type: "string", description: "the thing to remember, delete or complete" },
      relation: { type: "string", description: "family: relation, e.g. 妈妈" },
      name: { type: "string", description: "family: the member's name" },
      closeness: { type: "integer", minimum: 1, maximum: 5, description: "family: 1-5" },
      memory: { type: "string", description: "family: a shared memory" },
      member_type: { type: "string", enum: [...MEMBER_TYPES] },
      topic: { type: "string", description: "moment: its topic" },
      emotion: { type: "string", enum: [...EMOTIONS], description: "moment: the feeling" },
      intensity: { type: "integer", minimum: 0, maximum: 5 },
      importance: { type: "integer", minimum: 1, maximum: 5, description: "moment: 1-5" },
      category: { type: "string", description: "trait category, or goal category: " + GOAL_CATEGORIES.join(", ") },
      priority: { type: "integer", minimum: 1, maximum: 5, description: "schedule or goal: 1-5" },
      frequency: { type: "string", description: "habit: daily, weekly, occasionally…" },
      datetime: { type: "string", description: "schedule: YYYY-MM-DD HH:MM, local time" },
      repeat: { type: "string", enum: ["none", "daily", "weekly", "monthly"] },
      duration: { type: "integer", minimum: 1, maximum: 1440, description: "schedule: minutes, default 60" },
      keyword: { type: "string", description: "recall or search: words to look for" },
      start_date: { type: "string", description: "recall: YYYY-MM-DD" },
      end_date: { type: "string", description: "recall: YYYY-MM-DD" },
      limit: { type: "integer", minimum: 1, maximum: 50, description: "recall: default 10" },
      force: { type: "boolean", description: "schedule (write or confirm): add even if it conflicts" },
    },
    required: ["action"],
  };
}

const RESULT: Record<string, string> = { ADDED: "added", UPDATED: "updated", DELETED: "deleted", NOOP: "no_change" };

function out(v: unknown): string {
  return JSON.stringify(v);
}

function date(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" || parseLocal(v) === undefined || v.length !== 10) throw new ToolError(`${what} must be a date YYYY-MM-DD`);
  return v;
}

export class MemoryTool implements Tool {
  readonly name = "memory";
  readonly description = DESCRIPTION;
  get inputSchema(): Record<string, unknown> {
    return inputSchema();
  }
  // after a call that changed memory, when other stores are still dirty (the
  // service schedules its quiet-period flush)
  onChange: (() => void) | undefined;

  readonly pending: PendingQueue;

  constructor(readonly memory: Memory, readonly schedules: Schedules, readonly archive?: ArchiveAccess) {
    this.pending = new PendingQueue(memory, schedules);
  }

  call(args: Record<string, unknown>): string {
    for (const k of Object.keys(args)) if (!ARGS.includes(k)) throw new ToolError(`unknown argument '${quote(k, 32)}'; accepted: ${ARGS.join(", ")}`);
    let action: (typeof ACTIONS)[number];
    try {
      action = oneOf(args.action, "action", ACTIONS);
    } catch (e) {
      throw new ToolError((e as Error).message);
    }
    try {
      switch (action) {
        case "read":
          return this.changing(() => this.read(), true);
        case "write":
          return this.changing(() => this.write(args));
        case "delete":
          return this.changing(() => this.delete(args));
        case "complete_schedule":
          return this.changing(() => this.complete(args));
        case "recall":
          return this.recall(args);
        case "pending":
          return out({ count: this.pending.list().length, items: this.pending.list() });
        case "confirm":
          return this.changing(() => this.confirm(args));
        case "drop":
          return this.changing(() => this.drop(args));
        case "status":
          return this.status();
        default:
          return this.search(args);
      }
    } catch (e) {
      if (e instanceof MemoryError) throw new ToolError(e.message);
      throw e;
    }
  }

  // Runs a call that may change memory, then writes the stores it touched
  // (and only those) before the reply goes out. A call that throws changes
  // nothing. A store whose new table reaches no copy on flash is rolled back
  // with the rest of the call, and the reply says it was not saved; only the
  // pending queue's bookkeeping may fail quietly (writing an item again is a
  // NOOP). `quiet`: the call is a read, whose only change is bookkeeping.
  private changing(fn: () => string, quiet = false): string {
    const mark = this.memory.mark();
    let reply: string;
    try {
      reply = fn();
    } catch (e) {
      this.memory.rollback(mark);
      throw e;
    }
    const c: Commit = this.memory.commit(mark);
    this.lastCommit = c;
    if (!quiet && c.unsaved.some((n) => n !== "pending")) throw new ToolError(`not saved: ${c.error}; nothing changed, memory is as before`);
    if (this.memory.dirty) this.onChange?.();
    return reply;
  }

  lastCommit: Commit | undefined;

  private type(args: Record<string, unknown>): Type {
    return oneOf<Type>(args.type, "type", TYPES);
  }

  // ---- write ----------------------------------------------------------------------

  private write(a: Record<string, unknown>): string {
    const type = this.type(a);
    let r: Result;
    switch (type) {
      case "name":
      case "age":
      case "gender":
      case "location":
      case "birthday":
        r = this.memory.setProfile(type, type === "age" && typeof a.content === "string" ? a.content.trim() : a.content);
        break;
      case "like":
      case "dislike":
        r = this.memory.addPreference(type, a.content);
        break;
      case "family":
        r = this.memory.upsertFamily(familyArgs(a));
        break;
      case "fact":
        r = this.memory.addFact(a.content);
        break;
      case "trait":
        r = this.memory.addTrait(a.category, a.content);
        break;
      case "habit":
        r = this.memory.addHabit(a.content, a.frequency);
        break;
      case "moment":
        r = this.memory.addMoment({ topic: a.topic, content: a.content, emotion: a.emotion, intensity: a.intensity, importance: a.importance });
        break;
      case "goal":
        r = this.memory.addGoal({ content: a.content, category: a.category, priority: a.priority });
        break;
      default:
        return this.writeSchedule(a);
    }
    const reply: Record<string, unknown> = { result: RESULT[r.action], type };
    if (r.dropped) reply.dropped = r.dropped;
    this.settle(type, a);
    return out(reply);
  }

  // ---- the pending queue (src/listen/pending.ts) ------------------------------------

  // A write of the AI's own settles what the queue held about the same thing.
  private settle(type: Type, a: Record<string, unknown>): void {
    if (type === "family") {
      const f = familyArgs(a);
      const key = typeof f.name === "string" && f.name.trim() ? f.name.trim() : typeof f.relation === "string" ? f.relation.trim() : "";
      if (key) this.pending.settle("family", ":" + key);
    } else if (type === "name" || type === "age" || type === "gender" || type === "location" || type === "birthday") this.pending.settle(type, "");
    else if ((type === "like" || type === "dislike" || type === "fact") && typeof a.content === "string") this.pending.settle(type, a.content.trim());
  }

  private pendingArgs(a: Record<string, unknown>): { type: string | undefined; content: string } {
    const content = text(a.content, "content", 64);
    const type = a.type === undefined ? undefined : oneOf(a.type, "type", [...TYPES, "event"]);
    return { type, content };
  }

  private confirm(a: Record<string, unknown>): string {
    if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
    const { type, content } = this.pendingArgs(a);
    const f = this.pending.confirm(type, content, a.force === true);
    if (f.result === "conflict") return out({ result: "conflict", pending: f, hint: "ask the user, then confirm again with force=true, or drop it" });
    return out({ result: "confirmed", memory: f });
  }

  private drop(a: Record<string, unknown>): string {
    const { type, content } = this.pendingArgs(a);
    return out({ result: "dropped", pending: this.pending.drop(type, content) });
  }

  private writeSchedule(a: Record<string, unknown>): string {
    if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
    const o = this.schedules.add({ content: a.content, datetime: a.datetime, priority: a.priority, duration: a.duration, repeat: a.repeat, force: a.force });
    if (o.action === "CONFLICT") {
      const c = o.conflicts[0];
      return out({
        result: "conflict",
        type: "schedule",
        schedule: o.schedule,
        conflicts_with: { content: c.content, datetime: c.datetime, until: c.until },
        suggested_times: o.suggestions,
        hint: "ask the user, then write again with one of the suggested times, or with force=true",
      });
    }
    const reply: Record<string, unknown> = { result: RESULT[o.action], type: "schedule", schedule: o.schedule };
    if (o.conflicts.length) reply.overrode_conflicts = o.conflicts.map((c) => `${c.content} at ${c.datetime}`);
    return out(reply);
  }

  // ---- delete, complete ----------------------------------------------------------------

  private delete(a: Record<string, unknown>): string {
    const type = this.type(a);
    let r: Result;
    if ((PROFILE_FIELDS as readonly string[]).includes(type)) r = this.memory.clearProfile(type as ProfileField, a.content);
    else
      switch (type) {
        case "like":
        case "dislike":
          r = this.memory.removePreference(type, a.content);
          break;
        case "family":
          r = this.memory.removeFamily(a.content ?? a.name ?? a.relation);
          break;
        case "fact":
          r = this.memory.removeFact(a.content);
          break;
        case "trait":
          r = this.memory.removeTrait(a.content);
          break;
        case "habit":
          r = this.memory.removeHabit(a.content);
          break;
        case "moment":
          r = this.memory.removeMoment(a.content);
          break;
        case "goal":
          r = this.memory.removeGoal(a.content);
          break;
        default:
          r = this.schedules.remove(a.content);
      }
    return out({ result: r.action === "NOOP" ? "not_found" : RESULT[r.action], type });
  }

  private complete(a: Record<string, unknown>): string {
    const o = this.schedules.complete(a.content);
    const reply: Record<string, unknown> = { result: "completed", schedule: o.completed };
    if (o.next) reply.next = o.next;
    return out(reply);
  }

  // ---- read ------------------------------------------------------------------------------

  private read(): string {
    const m = this.memory;
    const p = m.profile();
    const profile: Record<string, unknown> = {};
    if (p.name) profile.name = p.name;
    if (p.age) profile.age = p.age;
    if (p.gender) profile.gender = p.gender;
    if (p.location) profile.location = p.location;
    if (p.birthday) profile.birthday = p.birthday;
    const rel = m.relationship();
    // the next schedules: from an hour ago (just begun) on, earliest first
    const from = now() - 3600000;
    const upcoming: ScheduleView[] = this.schedules
      .list()
      .filter((s) => (parseLocal(s.datetime) ?? 0) >= from)
      .slice(0, UPCOMING_IN_READ);
    const doc: Record<string, unknown> = {
      profile,
      preferences: m.preferences(),
      family: m.family().map((f) => (f.sharedMemory ? { relation: f.relation, name: f.name, closeness: f.closeness, memory: f.sharedMemory } : { relation: f.relation, name: f.name, closeness: f.closeness })),
      facts: m.facts().sort((x, y) => y.timestamp - x.timestamp).map((f) => f.content),
      traits: m.traits().map((t) => (t.category && t.category !== "other" ? `${t.category}: ${t.content}` : t.content)),
      habits: m.habits().map((h) => `${h.content} (${h.frequency})`),
      moments: m.moments().sort((x, y) => y.timestamp - x.timestamp).map((x) => ({ topic: x.topic, content: x.content, emotion: x.emotion, importance: x.importance })),
      goals: m.goals().filter((g) => g.status === "active").map((g) => ({ content: g.content, progress: g.progress, priority: g.priority })),
      schedules: upcoming.map((s) => ({ content: s.content, datetime: s.datetime, reminded: s.reminded ? 1 : 0, priority: s.priority, repeat: s.repeat })),
      events: plainEvents(m), // no time: yearly (MM-DD), dated from today on, reminders without a date (todo)
      total_coins_spent: rel.total_coins_spent,
      relationship: { stage: rel.stage, style: rel.hint },
      pending: this.pending.list(), // heard, not yet confirmed: not memory
    };
    // damage lost memories since the last read said so: one sentence, once
    const loss = m.untoldLoss();
    if (loss)
      doc.notice = loss.stores.length
        ? `Some memories (${loss.stores.join(", ")}) were damaged on this device's flash and are lost; please tell the owner.`
        : "Some memories were damaged on this device's flash and are lost; please tell the owner.";
    // keep within budget: the oldest facts and moments go first, then traits and habits
    let text = out(doc);
    const trim: string[] = ["pending", "facts", "moments", "habits", "traits", "events"];
    for (const k of trim) {
      const list = doc[k] as unknown[];
      while (byteLength(text) > READ_BUDGET_BYTES && list.length) {
        list.pop();
        doc.truncated = true;
        text = out(doc);
      }
    }
    return text;
  }

  // ---- status ----------------------------------------------------------------------------

  private status(): string {
    const m = this.memory;
    const u = m.usage();
    let entries = DOMAINS.length; // one namespace entry each
    const records: Record<string, number> = {};
    for (const name of Object.keys(u.records) as StoreName[]) {
      for (const b of u.blobBytes[name]) entries += blobEntries(b) * u.copies[name];
      if (name !== "health") records[name] = u.records[name];
    }
    const used = entries * NVS_ENTRY_BYTES;
    const h = m.healthRecord();
    const b = m.bootReport;
    const doc: Record<string, unknown> = {
      nvs: { used_bytes: used, usable_bytes: NVS_USABLE_BYTES, percent: pct(used, NVS_USABLE_BYTES) },
      archive: "not available",
      records,
      boots: h.boots,
      last_repair: h.lastProblem === "none" ? "none" : { store: h.lastStore, problem: h.lastProblem, at: formatDateTime((h.lastSeen as number) * 1000) },
      this_boot: b ? { repaired: b.repaired, set_aside: b.setAside.map((e) => `${e.key} (${e.problem})`), lost: b.lost } : "not booted",
      write_errors: m.health.writeErrors,
    };
    if (m.health.lastWriteError) doc.last_write_error = m.health.lastWriteError;
    const a = this.archive;
    if (a) {
      const rec: Record<string, number> = {};
      for (const t of RECALL_TYPES) rec[t] = a.count(t);
      const bytes = a.footprint ? a.footprint() : undefined;
      doc.archive = bytes !== undefined && a.budget ? { used_bytes: bytes, budget_bytes: a.budget, percent: pct(bytes, a.budget), records: rec } : { records: rec };
    }
    return out(doc);
  }

  // ---- recall and search -----------------------------------------------------------------------

  private recall(a: Record<string, unknown>): string {
    const type = oneOf<RecallType>(a.type, "type", RECALL_TYPES);
    const keyword = a.keyword === undefined ? undefined : text(a.keyword, "keyword", 64);
    const start = date(a.start_date, "start_date");
    const end = date(a.end_date, "end_date");
    if (start && end && start > end) throw new ToolError("start_date is after end_date");
    const limit = int(a.limit, "limit", 1, 50, 10);
    if (!this.archive) throw new ToolError("the archive is not available");
    const items = this.archive.recall(type, { keyword, start, end, limit });
    return out({ type, count: items.length, items });
  }

  private search(a: Record<string, unknown>): string {
    const keyword = text(a.keyword ?? a.content, "keyword", 64);
    const limit = int(a.limit, "limit", 1, 50, 10);
    const k = keyword.toLowerCase();
    const has = (s: string) => s.toLowerCase().indexOf(k) >= 0;
    const m = this.memory;
    const hits: { where: string; text: string }[] = [];
    const p = m.profile();
    for (const f of PROFILE_FIELDS) if (p[f] !== "" && p[f] !== 0 && has(String(p[f]))) hits.push({ where: "profile", text: `${f}: ${p[f]}` });
    const prefs = m.preferences();
    for (const l of prefs.likes) if (has(l)) hits.push({ where: "like", text: l });
    for (const l of prefs.dislikes) if (has(l)) hits.push({ where: "dislike", text: l });
    for (const f of m.family()) if (has(f.name) || has(f.relation) || has(f.sharedMemory)) hits.push({ where: "family", text: `${f.relation} ${f.name}`.trim() });
    for (const f of m.facts()) if (has(f.content)) hits.push({ where: "fact", text: f.content });
    for (const t of m.traits()) if (has(t.content)) hits.push({ where: "trait", text: t.content });
    for (const h of m.habits()) if (has(h.content)) hits.push({ where: "habit", text: h.content });
    for (const x of m.moments()) if (has(x.content) || has(x.topic)) hits.push({ where: "moment", text: `${x.topic}: ${x.content}` });
    for (const g of m.goals()) if (has(g.content)) hits.push({ where: "goal", text: g.content });
    for (const s of this.schedules.list({ completed: true })) if (has(s.content)) hits.push({ where: "schedule", text: `${s.content} at ${s.datetime}` });
    for (const e of m.events()) if (!e.schedule && !e.time && has(e.content)) hits.push({ where: "event", text: e.eventType === "todo" ? e.content : `${e.content} on ${e.date}` });
    const archived: Record<string, object[]> = {};
    if (this.archive)
      for (const t of RECALL_TYPES) {
        const items = this.archive.recall(t, { keyword, limit });
        if (items.length) archived[t] = items;
      }
    return out({ keyword, count: hits.length, items: hits.slice(0, limit), archived });
  }
}

// Events without a time (issue 15): what the listener stored as a birthday or
// anniversary (MM-DD, every year), a dated plan or reminder, or a reminder
// with no date (todo). Past dated ones are left to the archive.
function plainEvents(m: Memory): { date: string; content: string; type: string }[] {
  const today = formatDate(now());
  const next = (d: string) => (d.length === 5 ? (d >= today.slice(5) ? today.slice(0, 4) : String(Number(today.slice(0, 4)) + 1)) + "-" + d : d);
  return m
    .events()
    .filter((e) => !e.schedule && !e.time && !e.completed && (e.date.length === 5 || e.eventType === "todo" || e.date >= today))
    .sort((a, b) => (next(a.date) < next(b.date) ? -1 : next(a.date) > next(b.date) ? 1 : 0))
    .map((e) => ({ date: e.date, content: e.content, type: e.eventType }));
}

function pct(n: number, of: number): number {
  return Math.round((n / of) * 1000) / 10;
}

function familyArgs(a: Record<string, unknown>) {
  let relation = a.relation, name = a.name, memory = a.memory;
  // the fork's compact form: content "relation:name[:memory]"
  if (relation === undefined && name === undefined && typeof a.content === "string") {
    const parts = a.content.split(/[:：]/);
    relation = parts[0];
    name = parts[1];
    if (parts.length > 2 && memory === undefined) memory = parts.slice(2).join(":");
  }
  return { relation, name, closeness: a.closeness, sharedMemory: memory, memberType: a.member_type };
}

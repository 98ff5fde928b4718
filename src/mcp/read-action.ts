// action=read: without type, the whole memory an AI needs at the start of a
// conversation, within READ_BUDGET_BYTES (the oldest facts and moments go
// first); with type, all of that type (src/mcp/fork.ts readType; type=episode
// goes to src/mcp/episode-actions.ts).

import { oneOf } from "../memory/memory";
import type { ScheduleView } from "../schedule/schedules";
import { byteLength } from "../text/utf8";
import { formatDate } from "../time/local";
import { now } from "../time/clock";
import { readType, byPriority, READ_TYPES } from "./fork";
import { relationView } from "../relation/rules";
import { out, READ_BUDGET_BYTES, type Args, type ToolState } from "./tool-state";
import type { Memory } from "../memory/memory";

export const UPCOMING_IN_READ = 8;

export function readAction(tool: ToolState, args: Args): string {
  return args.type === undefined || args.type === "" ? tool.changing(() => read(tool), true) : out(readType(tool.memory, tool.schedules, oneOf(args.type, "type", READ_TYPES)));
}

function read(tool: ToolState): string {
  const m = tool.memory;
  const p = m.profile();
  const profile: Record<string, unknown> = {};
  if (p.name) profile.name = p.name;
  if (p.age) profile.age = p.age;
  if (p.gender) profile.gender = p.gender;
  if (p.location) profile.location = p.location;
  if (p.birthday) profile.birthday = p.birthday;
  const rel = m.relationship();
  // the next schedules (from an hour ago, just begun, on) by priority then time, as the fork
  const upcoming: ScheduleView[] = byPriority(tool.schedules, UPCOMING_IN_READ);
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
    relationship: relationView(m, true), // stage, style, affection, mood, streak; new achievements once (src/relation)
    pending: tool.pending.list(), // heard, not yet confirmed: not memory
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

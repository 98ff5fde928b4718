// action=write (every type but episode, which src/mcp/episode-actions.ts
// takes) and action=complete_schedule. A write of the AI's own settles what
// the pending queue held about the same thing (src/listen/pending.ts).

import { MemoryError, oneOf, type Result } from "../memory/memory";
import type { Schedules } from "../schedule/schedules";
import { ToolError } from "../text/reply";
import { expand, writeEvent, writeGoal, completeEvent } from "./fork";
import { out, RESULT, TYPES, type Args, type ToolState, type Type } from "./tool-state";

export function writeAction(tool: ToolState, args: Args): string {
  return tool.changing(() => write(tool, args));
}

export function completeAction(tool: ToolState, args: Args): string {
  return tool.changing(() => complete(tool, args));
}

function write(tool: ToolState, input: Args): string {
  const type = oneOf<Type>(input.type, "type", TYPES);
  const a = expand(type, input); // the fork's compact forms in content
  const memory = tool.memory;
  let r: Result;
  switch (type) {
    case "name":
    case "age":
    case "gender":
    case "location":
    case "birthday":
      r = memory.setProfile(type, type === "age" && typeof a.content === "string" ? a.content.trim() : a.content);
      break;
    case "like":
    case "dislike":
      r = memory.addPreference(type, a.content);
      break;
    case "family":
      r = memory.upsertFamily(familyArgs(a));
      break;
    case "fact":
      r = memory.addFact(a.content);
      break;
    case "trait":
      r = memory.addTrait(a.category, a.content);
      break;
    case "habit":
      r = memory.addHabit(a.content, a.frequency);
      break;
    case "moment":
      r = memory.addMoment({ topic: a.topic, content: a.content, emotion: a.emotion, intensity: a.intensity, importance: a.importance });
      break;
    case "goal":
      return out({ ...writeGoal(memory, a), type });
    case "event":
      return out({ ...writeEvent(memory, a), type });
    default:
      return writeSchedule(tool.schedules, a);
  }
  const reply: Record<string, unknown> = { result: RESULT[r.action], type };
  if (r.dropped) reply.dropped = r.dropped;
  settle(tool, type, a);
  return out(reply);
}

// A write of the AI's own settles what the queue held about the same thing.
function settle(tool: ToolState, type: Type, a: Args): void {
  if (type === "family") {
    const f = familyArgs(a);
    const key = typeof f.name === "string" && f.name.trim() ? f.name.trim() : typeof f.relation === "string" ? f.relation.trim() : "";
    if (key) tool.pending.settle("family", ":" + key);
  } else if (type === "name" || type === "age" || type === "gender" || type === "location" || type === "birthday") tool.pending.settle(type, "");
  else if ((type === "like" || type === "dislike" || type === "fact") && typeof a.content === "string") tool.pending.settle(type, a.content.trim());
}

function writeSchedule(schedules: Schedules, a: Args): string {
  if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
  const o = schedules.add({ content: a.content, datetime: a.datetime, priority: a.priority, duration: a.duration, repeat: a.repeat, force: a.force });
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

function complete(tool: ToolState, a: Args): string {
  let o: ReturnType<Schedules["complete"]>;
  try {
    o = tool.schedules.complete(a.content);
  } catch (e) {
    // not a schedule: perhaps a plain event (no time of day)
    if (!(e instanceof MemoryError) || e.code !== "not_found") throw e;
    const ev = completeEvent(tool.memory, a.content);
    if (!ev) throw e;
    return out({ result: "completed", event: ev });
  }
  const reply: Record<string, unknown> = { result: "completed", schedule: o.completed };
  if (o.next) reply.next = o.next;
  return out(reply);
}

function familyArgs(a: Args) {
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

// action=summary (the owner and the relationship in short, with one sentence
// an AI can say) and action=config (the preset: show it, or set it with
// preset=…). docs/DESIGN.md "The relationship" and "Presets".

import { ToolError } from "../text/reply";
import type { ToolState } from "./tool-state";
import { STAGES, stageIndex } from "../memory/types";
import { byteLength } from "../text/utf8";
import { now } from "../time/clock";
import { achievementNames, daysTogether, STAGE_NAMES_ZH } from "../relation/rules";
import { configOf, presetOf, presetView, setPreset, setTimeZone, PRESET_TABLE, PRESETS } from "../config/presets";
import { parseOffset, formatOffset, setUtcOffset } from "../time/local";

export const SUMMARY_BYTES = 1024; // the reply's JSON, at most
const TOP = 3; // likes and dislikes shown: the newest

// the action is the call's own (args.action, checked by the table)
export function relationAction(tool: ToolState, args: Record<string, unknown>): string {
  return args.action === "summary" ? summary(tool) : configAction(tool, args);
}

// ---- summary -----------------------------------------------------------------

function moodWords(mood: number): string {
  return mood >= 6 ? "心情特别好" : mood >= 2 ? "心情不错" : mood > -2 ? "心情平静" : mood > -6 ? "有点低落" : "很低落";
}

// The owner (name, age, family count, newest likes and dislikes), the
// relationship (stage, days together, streak, affection, mood, coins,
// achievements), what memory holds (counts), and `text`: one sentence.
// Read only: nothing is written, nothing is marked told.
export function summary(tool: ToolState): string {
  const m = tool.memory;
  const p = m.profile();
  const prefs = m.preferences();
  const a = m.affection();
  const at = now();
  const owner: Record<string, unknown> = {};
  if (p.name) owner.name = p.name;
  if (p.age) owner.age = p.age;
  owner.family = m.stores.family.count;
  const likes = prefs.likes.slice(-TOP).reverse();
  const dislikes = prefs.dislikes.slice(-TOP).reverse();
  owner.likes = likes;
  owner.dislikes = dislikes;
  const stage = stageIndex(a.totalCoinsSpent);
  const days = daysTogether(a, at);
  const achievements: string[] | number = achievementNames(a.achievements);
  const relationship: Record<string, unknown> = {
    stage: STAGES[stage].stage,
    days_together: days,
    streak: a.streakDays,
    affection: a.affection,
    mood: a.mood,
    coins: a.totalCoinsSpent,
    conversations: a.totalConversations,
    achievements,
  };
  const events = m.events();
  let schedules = 0;
  for (const e of events) if (e.schedule && !e.completed) schedules++;
  const memory: Record<string, unknown> = {
    facts: m.stores.facts.count,
    moments: m.stores.moments.count,
    events: events.length - schedules,
    schedules,
    traits: m.stores.traits.count,
    habits: m.stores.habits.count,
    goals: m.stores.goals.count,
  };
  const arc = tool.archive;
  if (arc)
    try {
      memory.archived = { fact: arc.count("fact"), moment: arc.count("moment"), event: arc.count("event") };
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      memory.archived = "unreadable";
    }
  const eps = tool.episodes;
  if (eps)
    try {
      let n = 0;
      eps.forEach(() => void n++);
      memory.episodes = n;
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      memory.episodes = "unreadable";
    }
  const who = p.name || "主人";
  const met = a.totalConversations === 0 ? `${who}和我还没聊过天` : days === 0 ? `${who}和我今天刚认识` : `${who}和我认识${days}天了`;
  const streak = a.streakDays > 1 ? `，已经连续聊了${a.streakDays}天` : "";
  const text = `${met}，我们现在是${STAGE_NAMES_ZH[stage]}${streak}，亲密度${a.affection}/100，我${moodWords(a.mood)}。`;
  const doc: Record<string, unknown> = { owner, relationship, memory, text };
  let s = JSON.stringify(doc);
  // within SUMMARY_BYTES: fewer likes and dislikes, then achievements as a count
  while (byteLength(s) > SUMMARY_BYTES && (likes.length || dislikes.length)) {
    if (dislikes.length >= likes.length) dislikes.pop();
    else likes.pop();
    s = JSON.stringify(doc);
  }
  if (byteLength(s) > SUMMARY_BYTES) {
    relationship.achievements = (achievements as string[]).length;
    s = JSON.stringify(doc);
  }
  return s;
}

// ---- config ------------------------------------------------------------------

// Without preset or tz: the config in force. With preset and/or tz: sets
// them (written before the reply, like a write), says what changed and when
// it applies. A bad preset or tz is refused and changes nothing.
function configAction(tool: ToolState, args: Record<string, unknown>): string {
  const m = tool.memory;
  const given = args.preset;
  const tz = args.tz;
  const noPreset = given === undefined || given === null || given === "";
  const noTz = tz === undefined || tz === null || tz === "";
  if (noPreset && noTz) {
    const c = configOf(m);
    return JSON.stringify({
      preset: presetView(PRESET_TABLE[c.preset]),
      source: c.stored ? "set by action=config" : "the build's default",
      utc_offset_minutes: c.utcOffset,
      tz: formatOffset(c.utcOffset),
      presets: PRESETS.map((n) => presetView(PRESET_TABLE[n])),
    });
  }
  if (!noPreset && (typeof given !== "string" || (PRESETS as readonly string[]).indexOf(given) < 0)) throw new ToolError(`preset must be one of ${PRESETS.join(", ")}; nothing changed`);
  const minutes = noTz ? undefined : typeof tz === "string" ? parseOffset(tz) : undefined;
  if (!noTz && minutes === undefined) throw new ToolError("tz must be a UTC offset from -12:00 to +14:00 such as +08:00; nothing changed");
  const before = presetOf(m);
  const tzBefore = configOf(m).utcOffset;
  const mark = m.mark();
  try {
    if (!noPreset) setPreset(m, given);
    if (minutes !== undefined) setTimeZone(m, minutes);
  } catch (e) {
    m.rollback(mark);
    setUtcOffset(tzBefore);
    throw new ToolError(`${e instanceof Error ? e.message : String(e)}; nothing changed`);
  }
  const c = m.commit(mark);
  if (c.unsaved.length) {
    setUtcOffset(tzBefore);
    throw new ToolError(`not saved: ${c.error}; nothing changed, the preset is still ${before.name}`);
  }
  const after = presetOf(m);
  if (minutes !== undefined && minutes !== tzBefore) {
    const r: Record<string, unknown> = { result: "updated", tz: formatOffset(minutes), was_tz: formatOffset(tzBefore), applies: "now: reminders and dates follow it" };
    if (after.name !== before.name) r.preset = presetView(after);
    return JSON.stringify(r);
  }
  if (after.name === before.name) return JSON.stringify({ result: "no_change", preset: presetView(after), tz: formatOffset(configOf(m).utcOffset) });
  const reply: Record<string, unknown> = {
    result: "updated",
    preset: presetView(after),
    was: before.name,
    changed: {
      window_rounds: [before.rounds, after.rounds],
      episode_cap: [before.episodeCap, after.episodeCap],
      recall: [before.recall, after.recall],
    },
    applies: "recall size and episode cap now; the conversation window from the next conversation",
  };
  if (after.episodeCap < before.episodeCap) reply.note = `at most ${after.episodeCap} episodes are kept now: the least important beyond that go to the trash (kept 7 days)`;
  return JSON.stringify(reply);
}

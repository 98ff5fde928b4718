// Schedules (seed 000 §4, §6.2, §6.3, §7.3): Events with the schedule flag, in
// Memory's events store. Add with a conflict check, complete (and create the
// next occurrence of a repeating schedule), upcoming, and the housekeeping
// the reminder service runs. Every operation changes RAM only, like Memory;
// the caller flushes.
//
// Rules where the seed and issue 5 are silent:
// - A schedule occupies [start, start + duration). Touching ends do not
//   conflict. Open schedules conflict, completed ones do not; a repeating
//   schedule conflicts through every future occurrence of its series.
// - Suggestions start from the earliest conflicting occurrence: one hour
//   earlier and two hours later (as the seed's code does), each checked free;
//   an unfree one moves a further hour away, at most 6 times, and an earlier
//   one is never in the past. A suggestion that finds no free slot is left out.
// - Completing matches open schedules: exact content first, then a substring.
//   Several open occurrences with the same content (a repeated one-off) are not
//   ambiguous: the earliest is completed. Different contents are: the error
//   lists them.
// - The next occurrence of a completed repeating schedule is the first one
//   that starts after now (completing three days late does not create three
//   past occurrences). When the store is full, the completed occurrence gives
//   its slot to the next one.
// - A repeating schedule nobody completes moves on by itself once its next
//   occurrence enters the reminder window (advance()), so one unanswered daily
//   reminder does not end the series.
// - cleanup(): completed one-off schedules and open one-off schedules whose
//   time is more than `maxAgeDays` (default 30) past are removed (an open one
//   that old will never be completed, and would fill the 16 slots); completed
//   occurrences of a repeating schedule go one day after their time (the
//   series lives on in its open occurrence). Plain events are not touched
//   here: the archive's weekly rule handles them.

import { Memory, MemoryError, text, int, oneOf, type Result } from "../memory/memory";
import { SPECS, REPEATS, newEvent, type Event, type Repeat } from "../memory/types";
import { now, isValid } from "../time/clock";
import { parseLocal, formatDateTime } from "../time/local";
import { nextDate, anchorDay, intervalField, parseDate } from "./recurrence";
import { rewardSchedule } from "../relation/rules";

export const DEFAULT_DURATION_MINUTES = 60;
export const DEFAULT_PRIORITY = 3;
export const DEFAULT_CLEANUP_DAYS = 30;
const MINUTE = 60000;
const DAY = 1440 * MINUTE;
const SUGGESTION_TRIES = 6;
const SERIES_STEPS = 2000; // occurrences looked at when expanding a series

export interface ScheduleView {
  content: string;
  datetime: string; // YYYY-MM-DD HH:MM, local
  priority: number; // 1-5
  duration: number; // minutes
  repeat: Repeat;
  reminded: boolean;
  completed: boolean;
}

// Which schedule is in the way, and when (the occurrence that overlaps).
export interface Conflict {
  content: string;
  datetime: string;
  until: string;
  repeat: Repeat;
}

export interface ScheduleInput {
  content?: unknown;
  datetime?: unknown;
  priority?: unknown;
  duration?: unknown;
  repeat?: unknown;
  force?: unknown;
}

export interface AddOutcome {
  // CONFLICT: nothing was added; conflicts[0] is the first one in the way and
  // suggestions are free times (YYYY-MM-DD HH:MM): one earlier, one later.
  // ADDED with force may still list the conflicts it overrode.
  action: "ADDED" | "NOOP" | "CONFLICT";
  schedule: ScheduleView;
  conflicts: Conflict[];
  suggestions: string[];
}

export interface CompleteOutcome {
  action: "UPDATED";
  completed: ScheduleView;
  next?: ScheduleView; // the next occurrence of a repeating schedule
}

export interface Due {
  schedule: ScheduleView;
  start: number; // ms
  missed: boolean; // its time has passed
}

export function startOf(e: Event): number | undefined {
  if (!e.schedule || !e.time) return undefined;
  return parseLocal(`${e.date} ${e.time}`);
}

function durationOf(e: Event): number {
  return e.duration > 0 ? e.duration : DEFAULT_DURATION_MINUTES;
}

export function view(e: Event): ScheduleView {
  return {
    content: e.content,
    datetime: `${e.date} ${e.time}`,
    priority: e.priority,
    duration: durationOf(e),
    repeat: e.repeat,
    reminded: e.reminded !== 0,
    completed: e.completed,
  };
}

const isOpen = (e: Event) => e.schedule && !e.completed && startOf(e) !== undefined;

// "YYYY-MM-DD HH:MM" (or with a T) as local time, validated.
export function parseDatetime(v: unknown): { date: string; time: string; start: number } {
  if (v === undefined || v === null || v === "") throw new MemoryError("invalid", "datetime is required for schedule (format: YYYY-MM-DD HH:MM)");
  const m = typeof v === "string" ? /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})$/.exec(v.trim()) : null;
  if (!m) throw new MemoryError("invalid", "datetime format should be YYYY-MM-DD HH:MM");
  const start = parseLocal(`${m[1]} ${m[2]}`);
  if (start === undefined) throw new MemoryError("invalid", "datetime is not a real date and time");
  return { date: m[1], time: m[2], start };
}

// The occurrence after one at (date, time) of a series, with its start.
function following(e: Event, date: string, anchor: number): { date: string; start: number } | undefined {
  const d = nextDate(date, e.repeat, anchor);
  if (!d) return undefined;
  const start = parseLocal(`${d} ${e.time}`);
  return start === undefined ? undefined : { date: d, start };
}

// The first occurrence of e's series that starts after `after` (or simply the
// next one when after is undefined).
function nextOccurrence(e: Event, after: number | undefined): { date: string; start: number } | undefined {
  const anchor = anchorDay(e.date, e.repeatInterval);
  let n = following(e, e.date, anchor);
  for (let i = 0; n && after !== undefined && n.start <= after && i < SERIES_STEPS * 10; i++) n = following(e, n.date, anchor);
  return n;
}

export class Schedules {
  // Receives a completed schedule that leaves a full event store to make room
  // for a new one; it must make it durable (the archive) before returning, or
  // throw, in which case nothing changes. Without it a full store refuses.
  onEvict: ((e: Event) => void) | undefined;

  constructor(readonly memory: Memory) {}

  // A full event store lets its earliest completed schedule go to the archive.
  private makeRoom(list: Event[]): void {
    if (list.length < SPECS.events.capacity || !this.onEvict) return;
    let oldest = -1;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (e.schedule && e.completed && (oldest < 0 || (startOf(e) ?? 0) < (startOf(list[oldest]) ?? 0))) oldest = i;
    }
    if (oldest < 0) return;
    this.onEvict(list[oldest]);
    list.splice(oldest, 1);
    this.memory.setEvents(list);
  }

  // Every schedule, earliest first (plain events and bad dates left out).
  list(opts: { completed?: boolean } = {}): ScheduleView[] {
    return this.sorted(this.memory.events().filter((e) => startOf(e) !== undefined && (opts.completed || !e.completed))).map(view);
  }

  private sorted(list: Event[]): Event[] {
    return list.sort((a, b) => (startOf(a) ?? 0) - (startOf(b) ?? 0) || b.priority - a.priority);
  }

  // Open schedules (occurrences of series included) overlapping [a, b).
  conflicts(a: number, b: number, list: readonly Event[] = this.memory.events()): Conflict[] {
    const out: Conflict[] = [];
    for (const e of list) {
      if (!isOpen(e)) continue;
      const dur = durationOf(e) * MINUTE;
      const anchor = anchorDay(e.date, e.repeatInterval);
      let occ: { date: string; start: number } | undefined = { date: e.date, start: startOf(e)! };
      for (let i = 0; occ && occ.start < b && i < SERIES_STEPS; i++) {
        if (occ.start + dur > a) {
          out.push({ content: e.content, datetime: formatDateTime(occ.start), until: formatDateTime(occ.start + dur), repeat: e.repeat });
          break;
        }
        occ = e.repeat === "none" ? undefined : following(e, occ.date, anchor);
      }
    }
    return out.sort((x, y) => (x.datetime < y.datetime ? -1 : x.datetime > y.datetime ? 1 : 0));
  }

  // Free times near the first conflict: one hour earlier and two hours later.
  suggest(first: Conflict, minutes: number, at = now()): string[] {
    const c = parseLocal(first.datetime)!;
    const list = this.memory.events();
    const free = (s: number) => (!isValid() || s >= at) && this.conflicts(s, s + minutes * MINUTE, list).length === 0;
    const out: string[] = [];
    for (let i = 0; i < SUGGESTION_TRIES; i++) {
      const s = c - (60 + 60 * i) * MINUTE;
      if (free(s)) {
        out.push(formatDateTime(s));
        break;
      }
    }
    for (let i = 0; i < SUGGESTION_TRIES; i++) {
      const s = c + (120 + 60 * i) * MINUTE;
      if (free(s)) {
        out.push(formatDateTime(s));
        break;
      }
    }
    return out;
  }

  add(input: ScheduleInput, at = now()): AddOutcome {
    const content = text(input.content, "content", 64);
    const { date, time, start } = parseDatetime(input.datetime);
    const priority = int(input.priority, "priority", 1, 5, DEFAULT_PRIORITY);
    const duration = int(input.duration, "duration", 1, 1440, DEFAULT_DURATION_MINUTES);
    let repeat: Repeat;
    try {
      repeat = oneOf<Repeat>(input.repeat, "repeat", REPEATS, "none");
    } catch {
      throw new MemoryError("invalid", "invalid repeat type. Use: daily, weekly, or monthly");
    }
    const e = newEvent({
      date,
      time,
      eventType: "schedule",
      content,
      significance: priority,
      priority,
      schedule: true,
      repeat,
      repeatInterval: intervalField(repeat, parseDate(date)!.day),
      duration,
    });
    const list = this.memory.events();
    if (list.some((x) => x.date === date && x.time === time && x.content === content)) return { action: "NOOP", schedule: view(e), conflicts: [], suggestions: [] };
    const conflicts = this.conflicts(start, start + duration * MINUTE, list);
    if (conflicts.length && input.force !== true) return { action: "CONFLICT", schedule: view(e), conflicts, suggestions: this.suggest(conflicts[0], duration, at) };
    this.makeRoom(list);
    const r: Result = this.memory.addEvent(e); // a full store throws MemoryError "full"
    return { action: r.action === "NOOP" ? "NOOP" : "ADDED", schedule: view(e), conflicts, suggestions: [] };
  }

  // The open schedule that `content` names (exact, else a unique substring).
  private find(list: Event[], query: unknown): number {
    const q = text(query, "content", 64);
    const open = list.map((e, i) => ({ e, i })).filter((x) => isOpen(x.e));
    let hits = open.filter((x) => x.e.content === q);
    if (!hits.length) hits = open.filter((x) => x.e.content.indexOf(q) >= 0);
    if (!hits.length) throw new MemoryError("not_found", "schedule not found or already completed");
    const contents: string[] = [];
    for (const h of hits) if (!contents.includes(h.e.content)) contents.push(h.e.content);
    if (contents.length > 1) {
      const names = hits.map((h) => `'${h.e.content}' at ${h.e.date} ${h.e.time}`);
      throw new MemoryError("ambiguous", `'${q}' matches ${hits.length} schedules: ${names.join(", ")}. Say which one`);
    }
    hits.sort((x, y) => startOf(x.e)! - startOf(y.e)!);
    return hits[0].i;
  }

  complete(content: unknown, at = now()): CompleteOutcome {
    const list = this.memory.events();
    const i = this.find(list, content);
    const e = list[i];
    const done: Event = { ...e, completed: true };
    let next: Event | undefined;
    if (e.repeat !== "none") {
      const n = nextOccurrence(e, isValid() ? Math.max(at, startOf(e)!) : undefined);
      if (n) {
        next = { ...e, date: n.date, reminded: 0, completed: false, repeatInterval: intervalField(e.repeat, anchorDay(e.date, e.repeatInterval)) };
        // never two next ones
        if (list.some((x) => isOpen(x) && x.date === next!.date && x.time === next!.time && x.content === next!.content)) next = undefined;
      }
    }
    if (next && list.length >= SPECS.events.capacity) list[i] = next; // the completed occurrence makes room
    else {
      list[i] = done;
      if (next) list.push(next);
    }
    this.memory.setEvents(list); // one store, so one flush commits both changes
    rewardSchedule(this.memory, e, at); // coins and affection (src/relation), in the same commit
    return next ? { action: "UPDATED", completed: view(done), next: view(next) } : { action: "UPDATED", completed: view(done) };
  }

  remove(content: unknown): Result {
    const list = this.memory.events();
    const i = this.find(list, content);
    list.splice(i, 1);
    this.memory.setEvents(list);
    return { action: "DELETED" };
  }

  // Open, unreminded schedules starting within [at, at + minutesAhead].
  getUpcoming(minutesAhead = 60, at = now()): ScheduleView[] {
    return this.due(at, minutesAhead, 0)
      .filter((d) => !d.missed)
      .map((d) => d.schedule);
  }

  // Open, unreminded schedules starting within [at - missedMinutes, at + aheadMinutes].
  due(at: number, aheadMinutes: number, missedMinutes: number): Due[] {
    const out: Due[] = [];
    for (const e of this.memory.events()) {
      if (!isOpen(e) || e.reminded) continue;
      const s = startOf(e)!;
      // missed: its time passed more than a minute ago (a wake a few ms after the start is on time)
      if (s >= at - missedMinutes * MINUTE && s <= at + aheadMinutes * MINUTE) out.push({ schedule: view(e), start: s, missed: s < at - MINUTE });
    }
    return out.sort((x, y) => x.start - y.start || y.schedule.priority - x.schedule.priority);
  }

  // Marks these schedules (by content and datetime) reminded; returns how many changed.
  markReminded(items: readonly ScheduleView[]): number {
    const list = this.memory.events();
    let n = 0;
    for (const e of list) {
      if (e.reminded || !isOpen(e)) continue;
      if (items.some((s) => s.content === e.content && s.datetime === `${e.date} ${e.time}`)) {
        e.reminded = 1;
        n++;
      }
    }
    if (n) this.memory.setEvents(list);
    return n;
  }

  // Moves open occurrences of repeating schedules on once their next
  // occurrence is within `aheadMinutes` of `at`. Returns how many moved.
  advance(at: number, aheadMinutes: number): number {
    const list = this.memory.events();
    let moved = 0;
    for (let i = list.length - 1; i >= 0; i--) {
      const e = list[i];
      if (!isOpen(e) || e.repeat === "none") continue;
      const anchor = anchorDay(e.date, e.repeatInterval);
      let n = following(e, e.date, anchor);
      if (!n || n.start - aheadMinutes * MINUTE > at) continue;
      for (let k = 0; k < SERIES_STEPS * 10; k++) {
        const m = following(e, n.date, anchor);
        if (!m || m.start - aheadMinutes * MINUTE > at) break;
        n = m;
      }
      const to = n.date;
      if (list.some((x, j) => j !== i && isOpen(x) && x.date === to && x.time === e.time && x.content === e.content)) list.splice(i, 1);
      else list[i] = { ...e, date: to, reminded: 0, repeatInterval: intervalField(e.repeat, anchor) };
      moved++;
    }
    if (moved) this.memory.setEvents(list);
    return moved;
  }

  // AutoCleanCompletedSchedules (seed §7.3); see the rules at the top.
  cleanup(maxAgeDays = DEFAULT_CLEANUP_DAYS, at = now()): number {
    const list = this.memory.events();
    const keep = list.filter((e) => {
      const s = startOf(e);
      if (s === undefined) return true;
      if (e.repeat === "none") return s >= at - maxAgeDays * DAY;
      return !e.completed || s >= at - DAY;
    });
    const removed = list.length - keep.length;
    if (removed) this.memory.setEvents(keep);
    return removed;
  }
}

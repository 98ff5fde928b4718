// The reminder service (seed 000 §4.4, §12.2): every 10 minutes on the
// Moddable Timer, the schedules due within the next hour that were not
// reminded yet go to a sink, once each, with the phrasing tier of their
// priority: 4-5 urgent, 3 normal, 1-2 a light mention.
//
// Rules (issue 5 leaves them to us):
// - Once: reminded=1 is written to flash BEFORE the sink hears of it (mark,
//   flush the events store, then deliver). A power cut before the new copy of
//   the store is on flash leaves reminded=0, and the next boot reminds; a cut
//   after it never reminds twice. The price: a cut in the instant between the
//   flush and the sink (the delete of the old copy) loses that one reminder.
//   A flush that fails (NVS trouble) still delivers: RAM remembers it for this
//   boot, and a reboot may remind once more. Never twice within a boot.
// - Missed: each check also reminds of unreminded schedules whose time passed
//   at most MISSED_WINDOW_MINUTES (3 h) ago, flagged missed: after a boot these
//   are the ones the device slept through. Older ones are not replayed.
// - Clock unset (before SNTP): checks do nothing until the clock is valid; the
//   network code may call checkNow() right after the time is set.
// - Before the due check, repeating schedules nobody completed move on to
//   their current occurrence (Schedules.advance), and once per local day the
//   store is cleaned (Schedules.cleanup).
// - Events without a time (src/schedule/allday.ts): a birthday or anniversary
//   is reminded the day before and on the day, a dated reminder on its day,
//   from 08:00 local; flagged `allDay` with `day` "tomorrow" or "today".

import Timer from "timer";
import { Memory } from "../memory/memory";
import { StoreError } from "../nvs/store";
import { now, isValid } from "../time/clock";
import { formatDate, parseLocal } from "../time/local";

function fromLocalDate(date: string): number {
  return parseLocal(`${date} 00:00`) ?? 0;
}
import type { Repeat } from "../memory/types";
import { Schedules, DEFAULT_CLEANUP_DAYS } from "./schedules";
import { allDayDue } from "./allday";

export const CHECK_INTERVAL_MS = 600000; // seed §12.2: every 10 minutes
export const AHEAD_MINUTES = 60; // remind up to an hour ahead
export const MISSED_WINDOW_MINUTES = 180; // missed reminders replayed at most 3 h late

export type Tier = "urgent" | "normal" | "light";

export function tierOf(priority: number): Tier {
  return priority >= 4 ? "urgent" : priority === 3 ? "normal" : "light";
}

export interface Reminder {
  content: string;
  datetime: string; // YYYY-MM-DD HH:MM, local
  priority: number;
  tier: Tier;
  missed: boolean; // its time passed before it could be reminded
  minutes: number; // from now until it starts; negative when missed
  repeat: Repeat;
  duration: number;
  allDay?: boolean; // an event without a time: a birthday, an anniversary, a dated reminder
  day?: "today" | "tomorrow"; // for allDay: when it is
  eventType?: string; // for allDay: birthday, anniversary, reminder
}

export interface ReminderSink {
  remind(r: Reminder): void;
}

export interface ReminderOptions {
  intervalMs?: number;
  aheadMinutes?: number;
  missedMinutes?: number;
  cleanupAgeDays?: number;
}

type TimerID = ReturnType<typeof Timer.repeat>;

export class ReminderService {
  readonly schedules: Schedules;
  private timer: TimerID | undefined;
  private cleanedOn = ""; // local date of the last cleanup
  private readonly intervalMs: number;
  private readonly aheadMinutes: number;
  private readonly missedMinutes: number;
  private readonly cleanupAgeDays: number;
  lastError: unknown; // the last flush or sink failure, for diagnostics
  checks = 0;

  constructor(readonly memory: Memory, readonly sink: ReminderSink, opts: ReminderOptions = {}) {
    this.schedules = new Schedules(memory);
    this.intervalMs = opts.intervalMs ?? CHECK_INTERVAL_MS;
    this.aheadMinutes = opts.aheadMinutes ?? AHEAD_MINUTES;
    this.missedMinutes = opts.missedMinutes ?? MISSED_WINDOW_MINUTES;
    this.cleanupAgeDays = opts.cleanupAgeDays ?? DEFAULT_CLEANUP_DAYS;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  // Checks at once (the boot check: missed reminders), then every interval.
  start(): void {
    if (this.timer) return;
    this.timer = Timer.repeat(() => this.tick(), this.intervalMs);
    this.tick();
  }

  stop(): void {
    if (this.timer) Timer.clear(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    try {
      this.checkNow();
    } catch (e) {
      // a timer callback must not throw; power cuts end the world anyway
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.lastError = e;
    }
  }

  // One check. Returns the reminders delivered.
  checkNow(at = now()): Reminder[] {
    if (!isValid()) return [];
    this.checks++;
    const s = this.schedules;
    let changed = s.advance(at, this.aheadMinutes) > 0;
    const today = formatDate(at);
    if (today !== this.cleanedOn) {
      if (s.cleanup(this.cleanupAgeDays, at) > 0) changed = true;
      this.cleanedOn = today;
    }
    const due = s.due(at, this.aheadMinutes, this.missedMinutes);
    if (due.length && s.markReminded(due.map((d) => d.schedule)) > 0) changed = true;
    const events = this.memory.events();
    const all = allDayDue(events, at);
    for (const r of all.resets) events[r.index] = { ...events[r.index], reminded: r.reminded };
    for (const d of all.due) events[d.index] = { ...events[d.index], reminded: d.reminded };
    if (all.resets.length || all.due.length) {
      this.memory.setEvents(events);
      changed = true;
    }
    if (changed) {
      try {
        this.memory.stores.events.flush();
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        this.lastError = e;
      }
    }
    const out: Reminder[] = [];
    for (const d of due) {
      const v = d.schedule;
      const r: Reminder = {
        content: v.content,
        datetime: v.datetime,
        priority: v.priority,
        tier: tierOf(v.priority),
        missed: d.missed,
        minutes: Math.round((d.start - at) / 60000),
        repeat: v.repeat,
        duration: v.duration,
      };
      this.deliver(r, out);
    }
    for (const d of all.due) {
      const e = events[d.index];
      const r: Reminder = { content: e.content, datetime: `${d.date} 00:00`, priority: e.priority, tier: tierOf(e.priority), missed: false, minutes: Math.round((fromLocalDate(d.date) - at) / 60000), repeat: "none", duration: 1440, allDay: true, day: d.day, eventType: e.eventType };
      this.deliver(r, out);
    }
    return out;
  }

  // A sink that fails (the speaker is busy) costs that reminder, never the check.
  private deliver(r: Reminder, out: Reminder[]): void {
    try {
      this.sink.remind(r);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.lastError = e;
    }
    out.push(r);
  }
}

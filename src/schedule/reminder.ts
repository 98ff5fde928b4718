// The reminder service (seed 000 §4.4, §12.2; issue 26): each schedule is
// reminded once, with the phrasing tier of its priority (4-5 urgent, 3 normal,
// 1-2 a light mention), at the moment it is due, on a one-shot Moddable Timer
// armed for the next due moment; the seed's 10-minute check stays as the
// safety net (a missed wake, a clock that moved, a schedule written by sync).
//
// When a schedule is due:
// - Known before its window: as it enters the seed's window, AHEAD_MINUTES
//   (one hour, §12.2 提前1小时) before it starts.
// - Written inside its window (the person set it moments ago: an hour-ahead
//   heads-up would only echo what they just said): at its start time. The
//   service learns of new schedules at rearm(), which the service calls after
//   every MCP call, every line heard and every conversation's batch; a
//   schedule it first sees at boot is an old one (the boot check).
// - All-day events (src/schedule/allday.ts): from 08:00 local.
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
// - Clock not trusted (src/time/clock.ts: unset at boot, before SNTP):
//   checks do nothing until it is; the clock's trust event rearms at once.
// - Before the due check, repeating schedules nobody completed move on to
//   their current occurrence (Schedules.advance), and once per local day the
//   store is cleaned (Schedules.cleanup).

import Timer from "timer";
import { Memory } from "../memory/memory";
import { StoreError } from "../nvs/store";
import { now, isValid, onTrust } from "../time/clock";
import { saveFloor } from "../time/floor";
import { formatDate, parseLocal, toLocal, fromLocal } from "../time/local";

function fromLocalDate(date: string): number {
  return parseLocal(`${date} 00:00`) ?? 0;
}
import type { Repeat } from "../memory/types";
import { Schedules, DEFAULT_CLEANUP_DAYS } from "./schedules";
import { allDayDue, ALL_DAY_HOUR } from "./allday";

// "YYYY-MM-DD" and "HH:MM" as a local time, without a RegExp; undefined if malformed.
function startMs(date: string, time: string): number | undefined {
  if (date.length !== 10 || time.length !== 5) return undefined;
  const y = num(date, 0, 4), mo = num(date, 5, 2), d = num(date, 8, 2), h = num(time, 0, 2), mi = num(time, 3, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59) return undefined;
  return fromLocal(y, mo, d, h, mi);
}

function num(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(at + i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

// FNV-1a over the three strings (with separators): a schedule's identity.
function hashOf(content: string, date: string, time: string): number {
  let h = 0x811c9dc5;
  const add = (s: string) => {
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
    h = Math.imul(h ^ 0x1f, 16777619) >>> 0;
  };
  add(content);
  add(date);
  add(time);
  return h >>> 0;
}

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
const MINUTE = 60000;
// a wake never waits longer than this (the clock may be corrected meanwhile)
const MAX_WAKE_MS = 6 * 3600000;

export class ReminderService {
  readonly schedules: Schedules;
  private timer: TimerID | undefined;
  private wake: TimerID | undefined; // the one-shot for the next due moment
  wakeAt: number | undefined; // wall time it was armed for
  // the XOR of the hashes of the schedules seen at the last pass (one number:
  // the device's heap); undefined before the boot check. When it changed by
  // exactly one schedule's hash, that schedule is the new one; several at once
  // (rare) are taken as known.
  private known: number | undefined;
  private fresh: number[] = []; // [hash, start, …]: written inside their window, due at their start
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

  // Checks at once (the boot check: missed reminders), then every interval,
  // and at each due moment (rearm).
  start(): void {
    if (this.timer) return;
    this.timer = Timer.repeat(() => this.tick(true), this.intervalMs);
    onTrust(() => this.rearm(0));
    this.tick(false);
  }

  stop(): void {
    if (this.timer) Timer.clear(this.timer);
    this.timer = undefined;
    if (this.wake !== undefined) Timer.clear(this.wake);
    this.wake = undefined;
    this.wakeAt = undefined;
  }

  private tick(net: boolean): void {
    try {
      this.checkNow();
      if (net) saveFloor();
    } catch (e) {
      // a timer callback must not throw; power cuts end the world anyway
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.lastError = e;
      this.rearm(MINUTE); // not at once: the same failure would spin
      return;
    }
    this.rearm(undefined, false);
  }

  // Learns of new or changed schedules and arms the one-shot timer for the
  // next due moment (`inMs`: check after that long instead, 0 at once, after
  // the current call returns). Cheap: one pass over the 16 events.
  rearm(inMs?: number, external = true): void {
    if (!this.timer) return;
    let wait = inMs;
    if (wait === undefined) {
      if (!isValid()) return; // the trust event rearms
      const at = now();
      const next = this.nextDue(at, external);
      if (next === undefined) return;
      wait = Math.max(0, Math.min(MAX_WAKE_MS, next - at));
      if (this.wake !== undefined && this.wakeAt !== undefined && this.wakeAt <= at + wait && this.wakeAt > at) return; // an earlier wake is armed
    }
    this.wakeAt = now() + wait;
    if (this.wake !== undefined) Timer.schedule(this.wake, wait);
    else
      this.wake = Timer.set(() => {
        this.wake = undefined; // a one-shot timer is gone once it fired
        this.wakeAt = undefined;
        this.tick(false);
      }, wait);
  }

  // The next moment something is due (wall ms). Learns which schedules are
  // new: with `external` (a call or a conversation wrote them), a new one
  // already inside its window is fresh: due at its start. Runs after every
  // call and line heard, so it keeps and allocates next to nothing: the
  // schedules seen are one XOR of 32-bit hashes of content, date and time,
  // starts are computed without a RegExp (the XS heap, npm run heap).
  nextDue(at = now(), external = false): number | undefined {
    let next: number | undefined;
    const take = (t: number) => {
      if (next === undefined || t < next) next = t;
    };
    const ahead = this.aheadMinutes * MINUTE;
    const list = this.memory.stores.events.all();
    let xor = 0;
    let plain = false;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (!e.schedule || !e.time) plain = true;
      else if (!e.completed && !e.reminded) xor = (xor ^ hashOf(e.content, e.date, e.time)) >>> 0;
    }
    const added = external && this.known !== undefined && xor !== this.known ? (xor ^ this.known) >>> 0 : 0;
    if (this.known !== undefined) this.known = xor;
    let live = 0; // fresh marks still waiting
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      if (!e.schedule || !e.time || e.completed || e.reminded) continue;
      const start = startMs(e.date, e.time);
      if (start === undefined || start < at - this.missedMinutes * MINUTE) continue;
      const h = hashOf(e.content, e.date, e.time);
      let f = this.freshStart(h);
      if (f === undefined && added !== 0 && h === added && start - ahead <= at && start >= at - MINUTE) {
        this.fresh.push(h, start);
        f = start;
      }
      if (f !== undefined) live++;
      take(f !== undefined ? f : start - ahead);
    }
    // forget fresh marks of schedules no longer waiting
    if (live * 2 < this.fresh.length)
      for (let k = this.fresh.length - 2; k >= 0; k -= 2) {
        const h = this.fresh[k];
        let still = false;
        for (let i = 0; i < list.length && !still; i++) {
          const e = list[i];
          still = !!e.schedule && !!e.time && !e.completed && !e.reminded && hashOf(e.content, e.date, e.time) === h;
        }
        if (!still) this.fresh.splice(k, 2);
      }
    // all-day events: from 08:00 local
    if (plain) {
      const t = toLocal(at);
      let eight = fromLocal(t.year, t.month, t.day, ALL_DAY_HOUR);
      if (eight <= at) eight = fromLocal(t.year, t.month, t.day + 1, ALL_DAY_HOUR);
      take(eight);
    }
    return next;
  }

  private freshStart(h: number): number | undefined {
    for (let k = 0; k < this.fresh.length; k += 2) if (this.fresh[k] === h) return this.fresh[k + 1];
    return undefined;
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
    // what is there now is known (fresh ones stay fresh); schedules written
    // inside their window wait for their start
    if (this.known === undefined) this.known = 0;
    this.nextDue(at);
    const due = s.due(at, this.aheadMinutes, this.missedMinutes).filter((d) => {
      const v = d.schedule;
      const f = this.fresh.length ? this.freshStart(hashOf(v.content, v.datetime.slice(0, 10), v.datetime.slice(11))) : undefined;
      return f === undefined || f <= at;
    });
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

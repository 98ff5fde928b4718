// Reminders of events without a time (issue 15): birthdays and anniversaries
// (eventType "birthday" or "anniversary", date MM-DD: every year) are
// reminded the day before and on the day; a dated reminder without a time
// (eventType "reminder", date YYYY-MM-DD: 明天提醒我带伞) on its day. Both from
// ALL_DAY_HOUR local time on, at the reminder service's next check (so a
// device that was off at 08:00 reminds when it wakes, the same day).
//
// The Event's `reminded` byte holds what was delivered for the coming
// occurrence: bit 0 the day before, bit 1 the day itself. Once the occurrence
// is neither today nor tomorrow the bits go back to 0 for next year (one
// write a year per event). As for schedules, the marks are flushed before the
// reminder is delivered: at most once.

import type { Event } from "../memory/types";
import { toLocal, daysInMonth, fromLocal } from "../time/local";

export const ALL_DAY_HOUR = 8;
export const REMINDED_DAY_BEFORE = 1;
export const REMINDED_ON_DAY = 2;
const YEARLY_TYPES = Object.freeze(["birthday", "anniversary"]);

export interface AllDayDue {
  index: number; // in the events list
  date: string; // YYYY-MM-DD of the occurrence
  day: "today" | "tomorrow";
  reminded: number; // the new value of the byte
}

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

function ymd(y: number, m: number, d: number): string {
  return `${y}-${pad(m)}-${pad(d)}`;
}

// The next occurrence of a yearly MM-DD, today included (29 February is the
// 28th in other years).
export function nextYearly(mmdd: string, at: number): string | undefined {
  const m = /^(\d{2})-(\d{2})$/.exec(mmdd);
  if (!m) return undefined;
  const month = Number(m[1]), day = Number(m[2]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const t = toLocal(at);
  for (let y = t.year; y <= t.year + 1; y++) {
    const d = Math.min(day, daysInMonth(y, month));
    const s = ymd(y, month, d);
    if (s >= ymd(t.year, t.month, t.day)) return s;
  }
  return undefined;
}

export function isYearly(e: Event): boolean {
  return !e.schedule && !e.time && e.date.length === 5 && YEARLY_TYPES.indexOf(e.eventType) >= 0;
}

export function isDatedReminder(e: Event): boolean {
  return !e.schedule && !e.time && !e.completed && e.date.length === 10 && e.eventType === "reminder";
}

// What to deliver at `at`, and the byte each event's `reminded` should then
// hold (also the yearly resets, with day undefined: nothing to deliver).
export function allDayDue(events: readonly Event[], at: number): { due: AllDayDue[]; resets: { index: number; reminded: number }[] } {
  const t = toLocal(at);
  const today = ymd(t.year, t.month, t.day);
  const tm = toLocal(fromLocal(t.year, t.month, t.day + 1, 12));
  const tomorrow = ymd(tm.year, tm.month, tm.day);
  const due: AllDayDue[] = [];
  const resets: { index: number; reminded: number }[] = [];
  events.forEach((e, index) => {
    if (isYearly(e)) {
      const next = nextYearly(e.date, at);
      if (!next) return;
      if (next !== today && next !== tomorrow) {
        if (e.reminded) resets.push({ index, reminded: 0 });
        return;
      }
      if (t.hour < ALL_DAY_HOUR) return;
      if (next === today && !(e.reminded & REMINDED_ON_DAY)) due.push({ index, date: next, day: "today", reminded: REMINDED_DAY_BEFORE | REMINDED_ON_DAY });
      else if (next === tomorrow && !(e.reminded & REMINDED_DAY_BEFORE)) due.push({ index, date: next, day: "tomorrow", reminded: REMINDED_DAY_BEFORE });
    } else if (isDatedReminder(e) && e.date === today && t.hour >= ALL_DAY_HOUR && !(e.reminded & REMINDED_ON_DAY)) {
      due.push({ index, date: today, day: "today", reminded: REMINDED_ON_DAY });
    }
  });
  return { due, resets };
}

// Repeat rules of a schedule (seed 000 §4.3): daily adds one day, weekly seven,
// monthly one month on the same day of the month, clamped to the month's last
// day. Calendar arithmetic is done on "YYYY-MM-DD" strings with UTC fields, so
// the UTC offset never matters and month, year and leap-year ends are exact.
//
// Monthly needs to remember the day of the ORIGINAL schedule: Jan 31 becomes
// Feb 28 (or 29), and the next one must be Mar 31, not Mar 28. That anchor day
// lives in the Event's `repeatInterval` byte for monthly schedules
// (docs/FORMAT.md §2.3). Any value that cannot be an anchor of this date (not
// in day..31, e.g. the seed's plain 1) means "the date's own day".

import { daysInMonth } from "../time/local";
import type { Repeat } from "../memory/types";

export interface Ymd {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
}

function pad(n: number, w = 2): string {
  let s = String(n);
  while (s.length < w) s = "0" + s;
  return s;
}

export function parseDate(date: string): Ymd | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return { year, month, day };
}

export function formatYmd(d: Ymd): string {
  return `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
}

export function addDays(d: Ymd, n: number): Ymd {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

// n months later on day `anchor`, clamped to that month's last day.
export function addMonths(d: Ymd, n: number, anchor = d.day): Ymd {
  const idx = d.year * 12 + (d.month - 1) + n;
  const year = Math.floor(idx / 12), month = (idx % 12) + 1;
  return { year, month, day: Math.min(anchor, daysInMonth(year, month)) };
}

// The day of the month a monthly schedule returns to.
export function anchorDay(date: string, repeatInterval: number): number {
  const d = parseDate(date);
  if (!d) return 1;
  return Number.isInteger(repeatInterval) && repeatInterval > d.day && repeatInterval <= 31 ? repeatInterval : d.day;
}

// What to store in `repeatInterval` for an occurrence on `date`: the anchor
// day for monthly, 1 (as seed 000 writes) otherwise.
export function intervalField(repeat: Repeat, anchor: number): number {
  return repeat === "monthly" ? anchor : 1;
}

// The date of the occurrence after `date`; undefined for a one-off.
export function nextDate(date: string, repeat: Repeat, anchor?: number): string | undefined {
  const d = parseDate(date);
  if (!d) return undefined;
  switch (repeat) {
    case "daily":
      return formatYmd(addDays(d, 1));
    case "weekly":
      return formatYmd(addDays(d, 7));
    case "monthly":
      return formatYmd(addMonths(d, 1, anchor ?? d.day));
    default:
      return undefined;
  }
}

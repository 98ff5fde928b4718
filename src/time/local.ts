// The device's local time. XS has no locale API and the device no time zone
// database, so local time is UTC plus a configured offset (default +08:00),
// and every calendar computation is done here by hand on UTC fields.

export const DEFAULT_UTC_OFFSET_MINUTES = 480;
let offsetMinutes = DEFAULT_UTC_OFFSET_MINUTES;

export function setUtcOffset(minutes: number): void {
  if (!Number.isInteger(minutes) || minutes < -720 || minutes > 840) throw new RangeError("utc offset must be whole minutes from -720 to 840");
  offsetMinutes = minutes;
}

// "+08:00", "-0530", "Z" to minutes; undefined for anything else.
export function parseOffset(s: string): number | undefined {
  if (s === "Z" || s === "z") return 0;
  const m = /^([+-])(\d{1,2}):?(\d\d)$/.exec(s);
  if (!m) return undefined;
  const mm = Number(m[3]);
  const minutes = (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + mm);
  return mm < 60 && minutes >= -720 && minutes <= 840 ? minutes : undefined;
}

export function formatOffset(minutes: number): string {
  const a = minutes < 0 ? -minutes : minutes;
  const h = Math.floor(a / 60);
  const m = a % 60;
  return `${minutes < 0 ? "-" : "+"}${h < 10 ? "0" : ""}${h}:${m < 10 ? "0" : ""}${m}`;
}

export function utcOffset(): number {
  return offsetMinutes;
}

export interface LocalTime {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 Sunday … 6 Saturday
}

export function toLocal(ms: number): LocalTime {
  const d = new Date(ms + offsetMinutes * 60000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

// Wall time of a local calendar moment. Fields out of range roll over (day 32 → next month).
export function fromLocal(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60000;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

function pad(n: number, w = 2): string {
  let s = String(n);
  while (s.length < w) s = "0" + s;
  return s;
}

// "YYYY-MM-DD"
export function formatDate(ms: number): string {
  const t = toLocal(ms);
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
}

// "YYYY-MM-DD HH:MM"
export function formatDateTime(ms: number): string {
  const t = toLocal(ms);
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}`;
}

// "YYYY-MM-DDTHH:MM:SS", local time, as the archive stores it (seed 000 §12.4)
export function formatIso(ms: number): string {
  const t = toLocal(ms);
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

// Parses "YYYY-MM-DD", "YYYY-MM-DD HH:MM" or "YYYY-MM-DDTHH:MM[:SS]" as local
// time; undefined unless it is a real calendar date and time.
export function parseLocal(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  const h = m[4] === undefined ? 0 : Number(m[4]), mi = m[5] === undefined ? 0 : Number(m[5]), se = m[6] === undefined ? 0 : Number(m[6]);
  if (y < 1970 || y > 2105 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || se > 59) return undefined;
  return fromLocal(y, mo, d, h, mi, se);
}

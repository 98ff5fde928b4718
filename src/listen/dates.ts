// Relative dates and times in Chinese speech, resolved against the device's
// local time (src/time/local.ts): 今天/明天/后天/大后天, 今晚/明早, 周三 /
// 这周三 / 下周三 / 下个星期三, 3月15日 / 三月十五号 / 15号, then 早上/上午/中午/
// 下午/晚上/凌晨 and 三点 / 3点半 / 九点一刻 / 十点四十五分 / 15:30.
//
// Rules (docs/LISTEN.md):
// - A bare weekday (周三) is its next occurrence, today included; 这周三 is the
//   day of this Monday-to-Sunday week and nothing if it has passed; 下周三 is
//   the day of next week. 上周… is the past: the match is flagged `past`.
// - 3月15日 is the next 15 March, today included; 15号 is this month's 15th,
//   or next month's if it has passed.
// - An hour without a period: 1–6 is the afternoon (三点 = 15:00), 7–12 as
//   said. 下午/晚上/傍晚 add 12 to hours below 12; 中午 adds 12 to 1–3.
// - A time with no day word is today, and nothing if it has already passed.
// Only code points of the Basic Multilingual Plane are matched, so indexes
// are the same on the device (code points) and on Node (UTF-16 units).

import { toLocal, fromLocal, daysInMonth } from "../time/local";

const DIGIT: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

export const NUM = "(?:[0-9]{1,3}|[零〇一二两三四五六七八九十百]{1,4})";

// "12", "十二", "二十五", "一百零五", "零五" → number; undefined if not a number.
export function parseNumber(s: string): number | undefined {
  if (/^[0-9]{1,4}$/.test(s)) return Number(s);
  if (!/^[零〇一二两三四五六七八九十百]{1,5}$/.test(s)) return undefined;
  let rest = s;
  let total = 0;
  const hundred = rest.indexOf("百");
  if (hundred >= 0) {
    const h = hundred === 0 ? 1 : DIGIT[rest.slice(0, hundred)];
    if (h === undefined || hundred > 1) return undefined;
    total += h * 100;
    rest = rest.slice(hundred + 1);
    if (rest.charAt(0) === "零" || rest.charAt(0) === "〇") rest = rest.slice(1);
    if (rest.length === 1 && total && DIGIT[rest] !== undefined && s.indexOf("零") < 0) return total + DIGIT[rest] * 10; // 一百五 = 150
  }
  const ten = rest.indexOf("十");
  if (ten >= 0) {
    if (ten > 1) return undefined;
    const t = ten === 0 ? 1 : DIGIT[rest.charAt(0)];
    const after = rest.slice(ten + 1);
    if (t === undefined || after.length > 1) return undefined;
    const o = after ? DIGIT[after] : 0;
    if (o === undefined) return undefined;
    return total + t * 10 + o;
  }
  if (rest === "") return hundred >= 0 ? total : undefined;
  if (rest.length === 2 && (rest.charAt(0) === "零" || rest.charAt(0) === "〇")) rest = rest.slice(1); // 零五
  if (rest.length !== 1) return undefined;
  const d = DIGIT[rest];
  return d === undefined ? undefined : total + d;
}

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

export interface DateTimeMatch {
  date: LocalDate;
  hour?: number; // 0-23, when a time was said
  minute?: number;
  period?: string; // 上午/下午/晚上… as said (or implied by 今晚/明早), when no time was said
  spans: [number, number][]; // what the expression covers in the text, in order
  dayWord: boolean; // a day was said (not only a time)
}

export interface DateScan {
  match?: DateTimeMatch;
  past: boolean; // 昨天, 上周三…: the text is about the past
  recurring: boolean; // 每周三, 每天…
}

const RELATIVE: Record<string, number> = { 今天: 0, 今日: 0, 今儿: 0, 今晚: 0, 今早: 0, 明天: 1, 明日: 1, 明儿: 1, 明晚: 1, 明早: 1, 后天: 2, 大后天: 3 };
const IMPLIED: Record<string, string> = { 今晚: "晚上", 明晚: "晚上", 今早: "早上", 明早: "早上" };
const WEEKDAY: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 7, 天: 7, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7 };

const RE_RELATIVE = /大后天|后天|明天|明日|明儿|今天|今日|今儿|今晚|明晚|明早|今早/;
const RE_WEEK = /(上上|上|下下|下|这|本)?个?(?:周|星期|礼拜)([一二三四五六日天1-7])/;
const RE_MONTH_DAY = new RegExp(`(${NUM})月(${NUM})[日号]`);
const RE_DAY_OF_MONTH = new RegExp(`(${NUM})[日号](?![线楼床门房车位机球])`);
const RE_PERIOD = /早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|凌晨/;
const RE_TIME = new RegExp(`([0-9]{1,2})[:：]([0-5][0-9])|(${NUM})点钟?(半|一刻|三刻|(${NUM})分?)?`);
const RE_PAST = /昨天|前天|昨晚|去年|上个月|刚才|上次/;
const RE_RECURRING = /每天|每周|每个?星期|每个?礼拜|每个?月|每晚|每天早上|天天/;

function addDays(d: LocalDate, n: number): LocalDate {
  const t = toLocal(fromLocal(d.year, d.month, d.day + n, 12));
  return { year: t.year, month: t.month, day: t.day };
}

function before(a: LocalDate, b: LocalDate): boolean {
  return a.year !== b.year ? a.year < b.year : a.month !== b.month ? a.month < b.month : a.day < b.day;
}

// 3月15日 → the next 15 March, today included.
export function nextMonthDay(month: number, day: number, at: number): LocalDate | undefined {
  if (month < 1 || month > 12 || day < 1) return undefined;
  const t = toLocal(at);
  const today = { year: t.year, month: t.month, day: t.day };
  for (let y = t.year; y <= t.year + 4; y++) {
    if (day > daysInMonth(y, month)) continue;
    const d = { year: y, month, day };
    if (!before(d, today)) return d;
  }
  return undefined;
}

// The hour on a 24-hour clock for an hour said with (or without) a period.
export function resolveHour(h: number, period: string | undefined): number | undefined {
  if (h < 0 || h > 24) return undefined;
  switch (period) {
    case "下午":
    case "傍晚":
    case "晚上":
    case "夜里":
      if (h === 12 || h === 24) return undefined; // midnight is another day: not guessed
      return h < 12 ? h + 12 : h;
    case "中午":
      return h >= 1 && h <= 3 ? h + 12 : h === 11 || h === 12 ? h : h === 13 ? 13 : undefined;
    case "凌晨":
    case "半夜":
      return h === 12 ? 0 : h <= 6 ? h : undefined;
    case "早上":
    case "早晨":
    case "上午":
      return h <= 12 ? h : undefined;
    default:
      if (h === 24) return undefined;
      return h >= 1 && h <= 6 ? h + 12 : h;
  }
}

interface Found {
  at: number;
  end: number;
  date?: LocalDate;
  past?: boolean;
  implied?: string;
}

function findDay(text: string, at: number): Found | undefined {
  const t = toLocal(at);
  const today: LocalDate = { year: t.year, month: t.month, day: t.day };
  const hits: Found[] = [];
  let m = RE_RELATIVE.exec(text);
  if (m) hits.push({ at: m.index, end: m.index + m[0].length, date: addDays(today, RELATIVE[m[0]]), implied: IMPLIED[m[0]] });
  m = RE_WEEK.exec(text);
  if (m) {
    const n = WEEKDAY[m[2]];
    const w = t.weekday === 0 ? 7 : t.weekday; // ISO: Monday 1 … Sunday 7
    const monday = addDays(today, 1 - w);
    const prefix = m[1];
    let date: LocalDate | undefined;
    let past = false;
    if (prefix === "上" || prefix === "上上") past = true;
    else if (prefix === "下") date = addDays(monday, 7 + n - 1);
    else if (prefix === "下下") date = addDays(monday, 14 + n - 1);
    else if (prefix === "这" || prefix === "本") {
      date = addDays(monday, n - 1);
      if (before(date, today)) date = undefined;
    } else date = addDays(today, (n - w + 7) % 7);
    hits.push({ at: m.index, end: m.index + m[0].length, date, past });
  }
  m = RE_MONTH_DAY.exec(text);
  if (m) {
    const mo = parseNumber(m[1]), d = parseNumber(m[2]);
    const date = mo !== undefined && d !== undefined ? nextMonthDay(mo, d, at) : undefined;
    hits.push({ at: m.index, end: m.index + m[0].length, date });
  } else {
    m = RE_DAY_OF_MONTH.exec(text);
    if (m && !/[0-9月]/.test(text.charAt(m.index - 1))) {
      const d = parseNumber(m[1]);
      let date: LocalDate | undefined;
      if (d !== undefined && d >= 1 && d <= 31) {
        let y = t.year, mo = t.month;
        if (d < t.day) {
          mo++;
          if (mo > 12) (mo = 1), y++;
        }
        if (d <= daysInMonth(y, mo)) date = { year: y, month: mo, day: d };
      }
      hits.push({ at: m.index, end: m.index + m[0].length, date });
    }
  }
  let best: Found | undefined;
  for (const h of hits) if (!best || h.at < best.at) best = h;
  return best;
}

// A time (三点半, 15:30), with the period said before it if any.
function findTime(text: string, from: number, dayEnd: number): { at: number; end: number; hour: number; minute: number; period?: string; periodAt?: number } | undefined {
  const re = new RegExp(RE_TIME.source, "g");
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let hour: number | undefined, minute = 0;
    if (m[1] !== undefined) {
      hour = Number(m[1]);
      minute = Number(m[2]);
    } else {
      const prev = text.charAt(m.index - 1);
      const next = text.charAt(m.index + m[0].length);
      // 早一点, 多一点, 一点点: amounts, not times
      if ((m.index !== dayEnd && /[早晚多少快慢高低大小好有些差远近几这那再]/.test(prev)) || next === "点" || next === "儿") continue;
      // 一点 is mostly "a little": a time only with a period, a day word or 钟 (一点钟)
      if (m[3] === "一" && m[4] === undefined && m[0] === "一点" && m.index !== dayEnd && !/(?:早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|凌晨)\s*$/.test(text.slice(0, m.index))) continue;
      hour = parseNumber(m[3]);
      const mm = m[4];
      if (mm === "半") minute = 30;
      else if (mm === "一刻") minute = 15;
      else if (mm === "三刻") minute = 45;
      else if (mm !== undefined) {
        const n = parseNumber(m[5]);
        if (n === undefined || n > 59) continue;
        minute = n;
      }
    }
    if (hour === undefined || hour > 24 || minute > 59) continue;
    // a period just before the time (下午三点, 晚上 八点)
    const head = text.slice(Math.max(0, m.index - 3), m.index);
    const p = /(早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|凌晨)\s*$/.exec(head);
    if (p) return { at: m.index, end: m.index + m[0].length, hour, minute, period: p[1], periodAt: m.index - head.length + p.index };
    return { at: m.index, end: m.index + m[0].length, hour, minute };
  }
  return undefined;
}

// Finds the first date (and time) said in `text`, resolved against `at` (ms).
export function scanDateTime(text: string, at: number): DateScan {
  const past = RE_PAST.test(text);
  const recurring = RE_RECURRING.test(text);
  const day = findDay(text, at);
  const out: DateScan = { past: past || !!day?.past, recurring };
  if (day && !day.date) return out;
  const from = day ? day.at : 0;
  const time = findTime(text, from, day ? day.end : -1);
  const spans: [number, number][] = [];
  let date: LocalDate;
  if (day) {
    date = day.date!;
    spans.push([day.at, day.end]);
  } else {
    if (!time) return out;
    const t = toLocal(at);
    date = { year: t.year, month: t.month, day: t.day };
  }
  let period = day?.implied;
  let periodSpan: [number, number] | undefined;
  if (time?.period) {
    period = time.period;
    periodSpan = [time.periodAt!, time.periodAt! + time.period.length];
  } else if (!time || !day?.implied) {
    const p = RE_PERIOD.exec(text.slice(from));
    if (p) {
      period = p[0];
      periodSpan = [from + p.index, from + p.index + p[0].length];
    }
  }
  if (periodSpan) spans.push(periodSpan);
  const match: DateTimeMatch = { date, spans, dayWord: !!day };
  if (time) {
    const hour = resolveHour(time.hour, period);
    if (hour === undefined) return out;
    match.hour = hour;
    match.minute = time.minute;
    spans.push([time.at, time.end]);
    // a time alone is today's, and only if it is still ahead
    if (!day && fromLocal(date.year, date.month, date.day, hour, time.minute) <= at) return out;
  } else if (period) match.period = period;
  spans.sort((a, b) => a[0] - b[0]);
  out.match = match;
  return out;
}

// Local midnight (ms) of a date, and the start (ms) of a match with a time.
export function dayStart(d: LocalDate): number {
  return fromLocal(d.year, d.month, d.day);
}

export function startOf(m: DateTimeMatch): number {
  return fromLocal(m.date.year, m.date.month, m.date.day, m.hour ?? 0, m.minute ?? 0);
}

// "3月15日", "十月一号", "12-25" → { month, day }, checked against a leap year.
export function parseMonthDay(s: string): { month: number; day: number } | undefined {
  const m = new RegExp(`^(${NUM})月(${NUM})[日号]?$`).exec(s) ?? /^([0-9]{1,2})[-/.]([0-9]{1,2})$/.exec(s);
  if (!m) return undefined;
  const month = parseNumber(m[1]), day = parseNumber(m[2]);
  if (month === undefined || day === undefined || month < 1 || month > 12 || day < 1 || day > daysInMonth(2024, month)) return undefined;
  return { month, day };
}

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
// - 月底/月末 is the last day of this month, 月初 the first of the next one
//   (today if it is the 1st), 年底 31 December; 下个月十号, 这个月十五号.
// - 过两天 / 三天后 / 一个星期后 count days from today; 过几天 is too vague:
//   no date. 周末 / 这周末 is this week's Saturday (today on a Sunday), 下周末
//   next week's. 半小时后 / 两个小时后 / 二十分钟后 are times from now.
// - Repeats (scanRepeat): 每天/天天/每晚, 每周三 (and 每周二和周四, 每周二周四), 每个月十五号.
// Only code points of the Basic Multilingual Plane are matched, so indexes
// are the same on the device (code points) and on Node (UTF-16 units).

import { toLocal, fromLocal, daysInMonth } from "../time/local";

export const NUM = "(?:[0-9]{1,3}|[零〇一二两三四五六七八九十百]{1,4})";

// The module's tables and patterns as static fields of one class: one
// top-level binding instead of one each (the XS test lane bundles every module
// into one function, whose locals all sit on the 1024-slot XS stack).
class D {
  static DIGIT: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
  static RELATIVE: Record<string, number> = { 今天: 0, 今日: 0, 今儿: 0, 今晚: 0, 今早: 0, 明天: 1, 明日: 1, 明儿: 1, 明晚: 1, 明早: 1, 后天: 2, 大后天: 3 };
  static IMPLIED: Record<string, string> = { 今晚: "晚上", 明晚: "晚上", 今早: "早上", 明早: "早上" };
  static WEEKDAY: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 7, 天: 7, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7 };
  static RE_RELATIVE = /大后天|后天|明天|明日|明儿|今天|今日|今儿|今晚|明晚|明早|今早/;
  static RE_WEEK = /(上上|上|下下|下|这|本)?个?(?:周|星期|礼拜)([一二三四五六日天1-7])/;
  static RE_MONTH_DAY = new RegExp(`(${NUM})月(${NUM})[日号]`);
  static RE_DAY_OF_MONTH = new RegExp(`(${NUM})[日号](?![线楼床门房车位机球])`);
  static RE_PERIOD = /早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|凌晨/;
  // XS 13.3 (the test lane's engine) mis-matches an optional group holding a
  // counted quantifier (`(?:x{1,2})?` can take three x): such groups are
  // written as an alternation with an empty branch, `(?:x{1,2}|)`.
  static RE_TIME = new RegExp(`([0-9]{1,2})[:：]([0-5][0-9])|(${NUM})点钟?(半|一刻|三刻|(${NUM})分?|)`);
  static RE_PAST = /昨天|前天|昨晚|去年|上个月|刚才|上次/;
  static RE_RECURRING = /每天|每周|每个?星期|每个?礼拜|每个?月|每晚|每天早上|天天|每日|每早|每年/;
  static RE_MONTH_REL = new RegExp(`(这个月|本月|下下个?月|下个?月)(${NUM})[日号]`);
  static RE_MONTH_EDGE = /(这个月|本月|下个?月)?(月底|月末|月初)|年底|年末/;
  static RE_AFTER = new RegExp(`过(${NUM}|几)天|(${NUM}|几)天(?:以后|之后|后)|(一个|${NUM}个?)(?:星期|礼拜|周)(?:以后|之后|后)`);
  static RE_WEEKEND = /(这|本|下下|下)?个?(?:周末|礼拜末)/;
  static RE_IN_TIME = new RegExp(`(半个?|${NUM}个半|${NUM}个?)(?:小时|钟头)(?:以后|之后|后)|(${NUM})分钟(?:以后|之后|后)`);
  static RE_DAILY = /每天|每日|天天|每晚|每早/;
  static RE_WEEKLY = /每个?(?:星期|礼拜|周)([一二三四五六日天1-7])/;
  static RE_MORE_DAYS = /^(?:(?:[和、跟及,]|还有)(?:周|星期|礼拜)?|周|星期|礼拜)([一二三四五六日天1-7])/; // 每周二和周四, 每周二周四
  static RE_MONTHLY = new RegExp(`每个?月的?(${NUM})[日号]`);
}


// "12", "十二", "二十五", "一百零五", "零五" → number; undefined if not a number.
export function parseNumber(s: string): number | undefined {
  if (/^[0-9]{1,4}$/.test(s)) return Number(s);
  if (!/^[零〇一二两三四五六七八九十百]{1,5}$/.test(s)) return undefined;
  let rest = s;
  let total = 0;
  const hundred = rest.indexOf("百");
  if (hundred >= 0) {
    const h = hundred === 0 ? 1 : D.DIGIT[rest.slice(0, hundred)];
    if (h === undefined || hundred > 1) return undefined;
    total += h * 100;
    rest = rest.slice(hundred + 1);
    if (rest.charAt(0) === "零" || rest.charAt(0) === "〇") rest = rest.slice(1);
    if (rest.length === 1 && total && D.DIGIT[rest] !== undefined && s.indexOf("零") < 0) return total + D.DIGIT[rest] * 10; // 一百五 = 150
  }
  const ten = rest.indexOf("十");
  if (ten >= 0) {
    if (ten > 1) return undefined;
    const t = ten === 0 ? 1 : D.DIGIT[rest.charAt(0)];
    const after = rest.slice(ten + 1);
    if (t === undefined || after.length > 1) return undefined;
    const o = after ? D.DIGIT[after] : 0;
    if (o === undefined) return undefined;
    return total + t * 10 + o;
  }
  if (rest === "") return hundred >= 0 ? total : undefined;
  if (rest.length === 2 && (rest.charAt(0) === "零" || rest.charAt(0) === "〇")) rest = rest.slice(1); // 零五
  if (rest.length !== 1) return undefined;
  const d = D.DIGIT[rest];
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
  vague?: boolean;
}

function findDay(text: string, at: number): Found | undefined {
  const t = toLocal(at);
  const today: LocalDate = { year: t.year, month: t.month, day: t.day };
  const hits: Found[] = [];
  let m = D.RE_RELATIVE.exec(text);
  if (m) hits.push({ at: m.index, end: m.index + m[0].length, date: addDays(today, D.RELATIVE[m[0]]), implied: D.IMPLIED[m[0]] });
  m = D.RE_WEEK.exec(text);
  if (m) {
    const n = D.WEEKDAY[m[2]];
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
  m = D.RE_MONTH_DAY.exec(text);
  if (m) {
    const mo = parseNumber(m[1]), d = parseNumber(m[2]);
    const date = mo !== undefined && d !== undefined ? nextMonthDay(mo, d, at) : undefined;
    hits.push({ at: m.index, end: m.index + m[0].length, date });
  } else {
    m = D.RE_DAY_OF_MONTH.exec(text);
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
  m = D.RE_MONTH_REL.exec(text);
  if (m) {
    const d = parseNumber(m[2]);
    const ahead = m[1].indexOf("下下") === 0 ? 2 : m[1].charAt(0) === "下" ? 1 : 0;
    const idx = t.year * 12 + t.month - 1 + ahead;
    const y = Math.floor(idx / 12), mo = (idx % 12) + 1;
    let date: LocalDate | undefined = d !== undefined && d >= 1 && d <= daysInMonth(y, mo) ? { year: y, month: mo, day: d } : undefined;
    if (date && before(date, today)) date = undefined; // 这个月三号 said on the 5th: passed
    // replaces the bare "十号" the day-of-month rule found inside it
    for (let i = hits.length - 1; i >= 0; i--) if (hits[i].at >= m.index && hits[i].at < m.index + m[0].length) hits.splice(i, 1);
    hits.push({ at: m.index, end: m.index + m[0].length, date });
  }
  m = D.RE_MONTH_EDGE.exec(text);
  if (m) {
    let date: LocalDate;
    if (m[0] === "年底" || m[0] === "年末") date = { year: t.year, month: 12, day: 31 };
    else {
      const next = m[1] !== undefined && m[1].charAt(0) === "下";
      const first = m[2] === "月初";
      const idx = t.year * 12 + t.month - 1 + (next || (first && t.day > 1) ? 1 : 0);
      const y = Math.floor(idx / 12), mo = (idx % 12) + 1;
      date = { year: y, month: mo, day: first ? 1 : daysInMonth(y, mo) };
    }
    hits.push({ at: m.index, end: m.index + m[0].length, date });
  }
  m = D.RE_AFTER.exec(text);
  if (m) {
    let date: LocalDate | undefined;
    const n = m[1] ?? m[2];
    if (n !== undefined) {
      const k = n === "几" ? undefined : parseNumber(n);
      if (k !== undefined && k >= 1 && k <= 60) date = addDays(today, k);
    } else {
      const k = m[3] === "一个" ? 1 : parseNumber(m[3].replace("个", ""));
      if (k !== undefined && k >= 1 && k <= 8) date = addDays(today, 7 * k);
    }
    hits.push({ at: m.index, end: m.index + m[0].length, date, vague: date === undefined });
  }
  m = D.RE_WEEKEND.exec(text);
  if (m) {
    const w = t.weekday === 0 ? 7 : t.weekday;
    const monday = addDays(today, 1 - w);
    const prefix = m[1];
    let date = addDays(monday, (prefix === "下" ? 7 : prefix === "下下" ? 14 : 0) + 5);
    if (before(date, today)) date = today; // Sunday: this weekend is today
    hits.push({ at: m.index, end: m.index + m[0].length, date });
  }
  let best: Found | undefined;
  for (const h of hits) if (!best || h.at < best.at) best = h;
  return best;
}

// A time (三点半, 15:30), with the period said before it if any.
function findTime(text: string, from: number, dayEnd: number): { at: number; end: number; hour: number; minute: number; period?: string; periodAt?: number } | undefined {
  const re = new RegExp(D.RE_TIME.source, "g");
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let hour: number | undefined, minute = 0;
    if (m[1] !== undefined) {
      hour = Number(m[1]);
      minute = Number(m[2]);
    } else {
      if (m[4] === "") m[4] = undefined as unknown as string; // the empty branch: no minutes said
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
  const past = D.RE_PAST.test(text);
  const recurring = D.RE_RECURRING.test(text);
  const rel = D.RE_IN_TIME.exec(text);
  if (rel) {
    let minutes: number | undefined;
    if (rel[2] !== undefined) minutes = parseNumber(rel[2]);
    else if (rel[1].charAt(0) === "半") minutes = 30;
    else {
      const half = rel[1].indexOf("个半") > 0;
      const h = parseNumber(rel[1].replace(/个半?$/, ""));
      if (h !== undefined) minutes = h * 60 + (half ? 30 : 0);
    }
    if (minutes !== undefined && minutes >= 1 && minutes <= 24 * 60) {
      const t = toLocal(at + minutes * 60000);
      return { past, recurring, match: { date: { year: t.year, month: t.month, day: t.day }, hour: t.hour, minute: t.minute, spans: [[rel.index, rel.index + rel[0].length]], dayWord: false } };
    }
  }
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
    const p = D.RE_PERIOD.exec(text.slice(from));
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

// ---- repeats: 每天早上七点, 每周三下午, 每个月十五号 ------------------------------------

export type RepeatRule = "daily" | "weekly" | "monthly";

export interface RepeatMatch {
  repeat: RepeatRule;
  firsts: LocalDate[]; // the first day of each series (每周二和周四: two)
  hour?: number; // undefined: no time and no period was said
  minute?: number;
  period?: string;
  spans: [number, number][]; // what the expression covers, in order
}

// Hours a period stands for when a repeat names no time (每周三下午 → 15:00).
export const PERIOD_HOURS: Readonly<Record<string, number>> = Object.freeze({ 早上: 8, 早晨: 8, 上午: 10, 中午: 12, 下午: 15, 傍晚: 18, 晚上: 20, 夜里: 21 });


// `fallbackHour`: the hour to use when neither a time nor a period was said
// (a reminder: the morning); without it such a repeat has no hour.
export function scanRepeat(text: string, at: number, fallbackHour?: number): RepeatMatch | undefined {
  const t = toLocal(at);
  const today: LocalDate = { year: t.year, month: t.month, day: t.day };
  let repeat: RepeatRule;
  let days: number[] = []; // weekly: ISO weekdays; monthly: the day
  let m = D.RE_DAILY.exec(text);
  let span: [number, number];
  let implied: string | undefined;
  if (m) {
    repeat = "daily";
    span = [m.index, m.index + m[0].length];
    implied = m[0] === "每晚" ? "晚上" : m[0] === "每早" ? "早上" : undefined;
  } else if ((m = D.RE_WEEKLY.exec(text))) {
    repeat = "weekly";
    days.push(D.WEEKDAY[m[1]]);
    let end = m.index + m[0].length;
    for (let k = 0; k < 6; k++) {
      const more = D.RE_MORE_DAYS.exec(text.slice(end));
      if (!more) break;
      days.push(D.WEEKDAY[more[1]]);
      end += more[0].length;
    }
    span = [m.index, end];
  } else if ((m = D.RE_MONTHLY.exec(text))) {
    repeat = "monthly";
    const d = parseNumber(m[1]);
    if (d === undefined || d < 1 || d > 31) return undefined;
    days = [d];
    span = [m.index, m.index + m[0].length];
  } else return undefined;
  const spans: [number, number][] = [span];
  const time = findTime(text, span[1], span[1]);
  let period = implied;
  if (time?.period) {
    period = time.period;
    spans.push([time.periodAt!, time.periodAt! + time.period.length]);
  } else {
    const p = D.RE_PERIOD.exec(text.slice(span[1]));
    if (p) {
      period = p[0];
      spans.push([span[1] + p.index, span[1] + p.index + p[0].length]);
    }
  }
  let hour: number | undefined, minute: number | undefined;
  if (time) {
    hour = resolveHour(time.hour, period);
    if (hour === undefined) return undefined;
    minute = time.minute;
    spans.push([time.at, time.end]);
  } else if (period !== undefined && PERIOD_HOURS[period] !== undefined) {
    hour = PERIOD_HOURS[period];
    minute = 0;
  }
  else if (fallbackHour !== undefined) {
    hour = fallbackHour;
    minute = 0;
  }
  // the first occurrence: today's if its time is still ahead (or no time yet known)
  const ahead = (d: LocalDate) => fromLocal(d.year, d.month, d.day, hour ?? 23, minute ?? 59) > at;
  const firsts: LocalDate[] = [];
  if (repeat === "daily") firsts.push(ahead(today) ? today : addDays(today, 1));
  else if (repeat === "weekly") {
    const w = t.weekday === 0 ? 7 : t.weekday;
    for (const n of days) {
      const d = addDays(today, (n - w + 7) % 7);
      firsts.push(ahead(d) ? d : addDays(d, 7));
    }
  } else {
    for (let k = 0; k < 14 && !firsts.length; k++) {
      const idx = t.year * 12 + t.month - 1 + k;
      const y = Math.floor(idx / 12), mo = (idx % 12) + 1;
      if (days[0] > daysInMonth(y, mo)) continue;
      const d = { year: y, month: mo, day: days[0] };
      if (!before(d, today) && ahead(d)) firsts.push(d);
    }
    if (!firsts.length) return undefined;
  }
  spans.sort((a, b) => a[0] - b[0]);
  return { repeat, firsts, hour, minute, period, spans };
}

// The time a question names, as a range of local days (issue 25 item 2):
// 今天 昨天 前天 明天 后天, 前几天/前阵子/最近 (the last 2 weeks), 上周 这周 下周,
// (下)周X / 星期X (the next one; 下周X: next week's), 周末, 上个月 这个月
// 下个月, 去年 今年 明年, 春节 (the Spring Festival's weeks of that year),
// 3月15日 / 3月15号 / 03-15 / 2026-03-15. Pure: `nowMs` is given.

import { toLocal, fromLocal, daysInMonth } from "../time/local";

export interface Range {
  lo: number; // ms, inclusive: local midnight
  hi: number; // ms, exclusive
  future: boolean; // a plan (明天, 下周…): schedules and events are meant
  phrase: string;
}

const DAY = 86400000;
const DIGITS = "日一二三四五六天";
// the Spring Festival's date by year (new year's day of the lunar calendar)
const SPRING: Record<number, string> = { 2024: "02-10", 2025: "01-29", 2026: "02-17", 2027: "02-06", 2028: "01-26", 2029: "02-13", 2030: "02-03" };

function day0(ms: number): number {
  const l = toLocal(ms);
  return fromLocal(l.year, l.month, l.day);
}

function weekday(ms: number): number {
  const l = toLocal(ms);
  return new Date(Date.UTC(l.year, l.month - 1, l.day)).getUTCDay();
}

export function timeOf(question: string, nowMs: number): Range | undefined {
  const q = question;
  const today = day0(nowMs);
  const l = toLocal(nowMs);
  const days = (a: number, b: number, future: boolean, phrase: string): Range => ({ lo: today + a * DAY, hi: today + b * DAY, future, phrase });
  let m = /(下周|下星期|下个星期|这周|这星期|本周|周|星期|礼拜)([一二三四五六日天])/.exec(q);
  if (m) {
    const want = DIGITS.indexOf(m[2]) % 7;
    const wd = weekday(nowMs);
    let ahead = (want - wd + 7) % 7;
    if (m[1].indexOf("下") === 0) ahead = ((want + 6) % 7) - ((wd + 6) % 7) + 7; // next week's (weeks from Monday)
    else if (ahead === 0 && q.indexOf("上") >= 0) ahead = -7;
    return days(ahead, ahead + 1, ahead >= 0, m[0]);
  }
  m = /(\d{4})-(\d{2})-(\d{2})|(\d{1,2})月(\d{1,2})[日号]/.exec(q);
  if (m) {
    const y = m[1] ? Number(m[1]) : l.year, mo = Number(m[2] ?? m[4]), d = Number(m[3] ?? m[5]);
    if (mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo)) {
      const lo = fromLocal(y, mo, d);
      return { lo, hi: lo + DAY, future: lo >= today, phrase: m[0] };
    }
  }
  const table: [string, number, number, boolean][] = [
    ["前天", -2, -1, false], ["昨天", -1, 0, false], ["今天", 0, 1, false], ["明天", 1, 2, true], ["后天", 2, 3, true],
    ["前几天", -14, 0, false], ["前些天", -14, 0, false], ["前阵子", -60, 0, false], ["这几天", -7, 1, false],
  ];
  for (const [w, a, b, f] of table) if (q.indexOf(w) >= 0) return days(a, b, f, w);
  const wd = (weekday(nowMs) + 6) % 7; // Monday 0
  if (/上周|上星期|上个星期|上礼拜/.test(q)) return days(-wd - 7, -wd, false, "上周");
  if (/下周|下星期|下个星期/.test(q)) return days(7 - wd, 14 - wd, true, "下周");
  if (/这周|本周|这星期/.test(q)) return days(-wd, 7 - wd, false, "这周");
  if (q.indexOf("周末") >= 0) return days(5 - wd, 7 - wd, wd < 5, "周末");
  const month = (y: number, mo: number, future: boolean, phrase: string): Range => {
    while (mo < 1) (mo += 12), y--;
    while (mo > 12) (mo -= 12), y++;
    return { lo: fromLocal(y, mo, 1), hi: fromLocal(y, mo, 1) + daysInMonth(y, mo) * DAY, future, phrase };
  };
  // 上个月 as people say it: last month, and the weeks before it when it is early in this one
  if (/上个月|上月/.test(q)) {
    const r = month(l.year, l.month - 1, false, "上个月");
    r.lo = Math.min(r.lo, today - 45 * DAY);
    return r;
  }
  if (/下个月|下月/.test(q)) return month(l.year, l.month + 1, true, "下个月");
  if (/这个月|本月/.test(q)) return month(l.year, l.month, false, "这个月");
  const spring = (y: number): Range | undefined => {
    const s = SPRING[y];
    if (!s) return undefined;
    const lo = fromLocal(y, Number(s.slice(0, 2)), Number(s.slice(3))) - 7 * DAY;
    return { lo, hi: lo + 22 * DAY, future: lo > nowMs, phrase: "春节" };
  };
  if (q.indexOf("春节") >= 0 || q.indexOf("过年") >= 0) {
    const y = q.indexOf("去年") >= 0 ? l.year - 1 : q.indexOf("明年") >= 0 ? l.year + 1 : l.year;
    return spring(y);
  }
  const year = (y: number, future: boolean, phrase: string): Range => ({ lo: fromLocal(y, 1, 1), hi: fromLocal(y + 1, 1, 1), future, phrase });
  if (q.indexOf("去年") >= 0) return year(l.year - 1, false, "去年");
  if (q.indexOf("明年") >= 0) return year(l.year + 1, true, "明年");
  return undefined;
}

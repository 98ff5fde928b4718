// The forms a model sends for dates, times and ages (issue 25 item 7), put
// into the tool's own before any check: 七岁/7岁 → 7; 3月15日/3月15号 → 03-15
// (2026年3月15日 → 2026-03-15 where a full date is wanted); 下周三 15:00,
// 明天下午3点, 3月15日 9:30 → YYYY-MM-DD HH:MM; 上个月, 下周三 as a
// start_date/end_date → the first/last day they name. What cannot be put in
// the tool's form is left as it is, so the usual error says which form is wanted.
import { timeOf } from "../recall/when";
import { formatDate } from "../time/local";

const DIGIT = "零一二三四五六七八九";

// "12", "十二", "二十五", "一百零五", "两" → number; undefined if not a number
// (src/listen/dates.ts has its own, but it makes RegExps at load, which the
// simulators must not preload with this module).
export function parseNumber(s: string): number | undefined {
  if (/^[0-9]{1,4}$/.test(s)) return Number(s);
  let total = 0, cur = -1;
  let seen = false;
  for (const c of s) {
    const d = c === "两" ? 2 : c === "〇" ? 0 : DIGIT.indexOf(c);
    if (d >= 0) {
      if (cur >= 0 && !(cur === 0)) return undefined; // two digits in a row
      cur = d;
      seen = true;
      continue;
    }
    if (c === "十" || c === "百") {
      const unit = c === "十" ? 10 : 100;
      total += (cur < 0 ? 1 : cur) * unit;
      cur = -1;
      seen = true;
      continue;
    }
    return undefined;
  }
  if (!seen) return undefined;
  if (cur > 0) total += s.endsWith("百" + DIGIT[cur]) ? cur * 10 : cur; // 一百五 = 150
  return total;
}

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

// 七岁, 7岁, 七十五 → "7", "75"
export function ageForm(v: string): string | undefined {
  const m = /^\s*([0-9零〇一二两三四五六七八九十百]{1,5})\s*(岁|周岁)?了?\s*$/.exec(v);
  if (!m) return undefined;
  const n = parseNumber(m[1]);
  return n === undefined ? undefined : String(n);
}

// 3月15日 → {month 3, day 15}, 2026年3月15号 → with its year
function monthDay(v: string): { y?: number; m: number; d: number; rest: string } | undefined {
  const r = /^\s*(?:([0-9]{4})\s*年)?\s*([0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*([0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*[日号]?/.exec(v);
  if (!r) return undefined;
  const m = parseNumber(r[2]), d = parseNumber(r[3]);
  if (m === undefined || d === undefined || m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  return { y: r[1] ? Number(r[1]) : undefined, m, d, rest: v.slice(r[0].length) };
}

export function dateForm(v: string, full: boolean, nowMs: number): string | undefined {
  const md = monthDay(v);
  if (md && md.rest.trim() === "") return md.y || full ? `${md.y ?? formatDate(nowMs).slice(0, 4)}-${pad(md.m)}-${pad(md.d)}` : `${pad(md.m)}-${pad(md.d)}`;
  if (full) {
    const r = timeOf(v, nowMs);
    if (r && v.trim() === r.phrase) return formatDate(r.lo);
  }
  return undefined;
}

// 下周三 15:00, 明天下午3点, 3月15日 9:30 → YYYY-MM-DD HH:MM
export function dateTimeForm(v: string, nowMs: number): string | undefined {
  let day: string | undefined;
  let rest = v;
  const md = monthDay(v);
  if (md) {
    day = `${md.y ?? formatDate(nowMs).slice(0, 4)}-${pad(md.m)}-${pad(md.d)}`;
    rest = md.rest;
  } else {
    const r = timeOf(v, nowMs);
    if (!r) return undefined;
    day = formatDate(r.lo);
    rest = v.slice(v.indexOf(r.phrase) + r.phrase.length);
  }
  const t = /^\s*(早上|上午|中午|下午|晚上)?\s*([0-9]{1,2}|[一二两三四五六七八九十]{1,3})\s*(?:[:：]\s*([0-9]{2})|点\s*(半|([0-9]{1,2})分?)?)\s*$/.exec(rest);
  if (!t) return undefined;
  let h = parseNumber(t[2] === "两" ? "2" : t[2]);
  if (h === undefined) return undefined;
  const min = t[3] ? Number(t[3]) : t[4] === "半" ? 30 : t[5] ? Number(t[5]) : 0;
  if ((t[1] === "下午" || t[1] === "晚上") && h < 12) h += 12;
  if (t[1] === "中午" && h < 6) h += 12;
  if (h > 23 || min > 59) return undefined;
  return `${day} ${pad(h)}:${pad(min)}`;
}

// The arguments with the forms put right (a new object when one changed).
export function normalizeForms(args: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  const set = (k: string, v: string | undefined) => {
    if (v !== undefined && v !== args[k]) (out ??= { ...args })[k] = v;
  };
  const type = args.type;
  if (type === "age" && typeof args.content === "string") set("content", ageForm(args.content));
  if (type === "birthday" && typeof args.content === "string") {
    const d = dateForm(args.content, false, nowMs);
    set("content", d && d.length === 10 ? d.slice(5) : d);
  }
  if (typeof args.datetime === "string" && !/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?$|^\d{2}-\d{2}$/.test(args.datetime)) {
    if (type === "schedule") set("datetime", dateTimeForm(args.datetime, nowMs));
    else if (type === "event") set("datetime", dateForm(args.datetime, false, nowMs));
  }
  for (const k of ["start_date", "end_date"])
    if (typeof args[k] === "string" && !/^\d{4}-\d{2}-\d{2}$/.test(args[k] as string)) {
      const v = args[k] as string;
      const md = monthDay(v);
      if (md && md.rest.trim() === "") set(k, `${md.y ?? formatDate(nowMs).slice(0, 4)}-${pad(md.m)}-${pad(md.d)}`);
      else {
        const r = timeOf(v, nowMs);
        if (r && v.trim() === r.phrase) set(k, formatDate(k === "start_date" ? r.lo : r.hi - 1));
      }
    }
  return out ?? args;
}

// A reminder as the pet says it (seed 000 §4.4's examples, by tier):
//   urgent  "重要！你下午2点有个紧急会议"
//   normal  "哎对了，你下午2点有个会议哦"
//   light   "对了，你今天还有个健身计划"
// The time is said the way a person says it: 今天/明天/后天 or the date, then
// 早上/上午/中午/下午/晚上 and the hour (半 for :30). Used by the xiaozhi link
// (the pet speaks it) and the MCP notification (a client shows it).

import { toLocal, parseLocal } from "../time/local";
import type { Reminder } from "./reminder";

function part(h: number): string {
  return h < 5 ? "凌晨" : h < 9 ? "早上" : h < 12 ? "上午" : h < 13 ? "中午" : h < 18 ? "下午" : "晚上";
}

function dayWord(start: number, at: number): string {
  const a = toLocal(at), s = toLocal(start);
  const dayOf = (t: { year: number; month: number; day: number }) => Math.floor(Date.UTC(t.year, t.month - 1, t.day) / 86400000);
  const d = dayOf(s) - dayOf(a);
  if (d === 0) return "今天";
  if (d === 1) return "明天";
  if (d === 2) return "后天";
  if (d === -1) return "昨天";
  return `${s.month}月${s.day}日`;
}

// "今天下午2点", "明天早上8点半", "今天中午12点05分"
export function whenWords(datetime: string, at: number): string {
  const start = parseLocal(datetime);
  if (start === undefined) return datetime;
  const s = toLocal(start);
  const h12 = s.hour > 12 ? s.hour - 12 : s.hour;
  const min = s.minute === 0 ? "" : s.minute === 30 ? "半" : `${s.minute < 10 ? "0" : ""}${s.minute}分`;
  return `${dayWord(start, at)}${part(s.hour)}${h12}点${min}`;
}

export function reminderSentence(r: Reminder, at: number): string {
  if (r.allDay) {
    const day = r.day === "tomorrow" ? "明天" : "今天";
    const what = r.eventType === "birthday" ? `是${r.content}` : r.eventType === "anniversary" ? `是${r.content}` : `要记得${r.content}`;
    return r.tier === "urgent" ? `重要！${day}${what}` : r.tier === "normal" ? `哎对了，${day}${what}哦` : `对了，${day}${what}`;
  }
  const when = whenWords(r.datetime, at);
  if (r.missed) return r.tier === "urgent" ? `重要！${when}的${r.content}已经过点了，要赶紧看看哦` : `哎呀，${when}的${r.content}已经过点了，别忘了哦`;
  const soon = r.minutes <= 1 ? "现在" : when;
  if (r.tier === "urgent") return `重要！你${soon}有个${r.content}`;
  if (r.tier === "normal") return `哎对了，你${soon}有个${r.content}哦`;
  return `对了，你${soon}还有个${r.content}`;
}

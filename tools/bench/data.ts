// A pet's archived memory, mostly Chinese, generated deterministically one day
// at a time (tools/bench.ts states the rate model). Pure TS: no Node APIs.
//
//   facts    8-14 a day (uniform, mean 11.0: about 4,000 a year, seed 000 §12.9),
//            one sentence, sometimes with a tail: about 20-40 characters;
//   moments  4-7 a day (uniform, mean 5.5: about 2,000 a year, seed 000 §12.9),
//            a topic and about 30-60 characters;
//   events   2 a week (the seed gives no rate), content cut to the NVS field (64 bytes).
//
// One fact in the whole run holds RARE (in the first month, so it is old at
// every age); no record ever holds ABSENT.
import type { Event, Fact, Moment } from "../../src/memory/types";
import { EMOTIONS } from "../../src/memory/types";
import { fromLocal, formatDate } from "../../src/time/local";
import { prng } from "../../host-sim/flash";

export const START = fromLocal(2023, 3, 1); // local midnight; the run's first day
export const SEED = 20230301;
export const FACTS_PER_DAY = [8, 14] as const; // inclusive range, uniform
export const MOMENTS_PER_DAY = [4, 7] as const;
export const EVENTS_PER_WEEK = 2;
export const RARE = "萤火虫"; // in exactly one fact
export const RARE_DAY = 9; // 2023-03-10
export const ABSENT = "北极熊"; // in no record
export const FACT_CHARS = 40;
export const MOMENT_CHARS = 60;

const PEOPLE = ["妈妈", "爸爸", "奶奶", "爷爷", "外婆", "姐姐", "弟弟", "同学小明", "好朋友乐乐", "王老师", "邻居阿姨", "表哥", "同桌小红", "教练", "小狗豆豆"];
const PLACES = ["北京", "上海", "杭州", "成都", "公园", "学校", "动物园", "图书馆", "游乐场", "海边", "山上", "博物馆", "超市", "游泳馆", "电影院", "外婆家", "广州", "西安", "青岛", "科技馆"];
const ACTS = ["打篮球", "画画", "弹钢琴", "游泳", "看电影", "写作业", "读绘本", "骑自行车", "踢足球", "放风筝", "做蛋糕", "拼乐高", "玩 Minecraft", "学 Python", "下围棋", "跳绳", "唱歌", "爬山", "滑冰", "种花"];
const FOODS = ["烤鸭", "饺子", "火锅", "冰淇淋", "苹果", "西瓜", "面条", "汉堡", "寿司", "草莓蛋糕", "小笼包", "糖葫芦", "炸鸡", "酸奶", "巧克力"];
const FEEL = ["特别开心", "有点难过", "非常兴奋", "有些担心", "很感动", "有点紧张", "很骄傲", "觉得好玩", "累坏了", "笑个不停"];
const WHEN = ["今天", "昨天", "周末", "早上", "晚上", "放学后", "中午", "下雨天", "寒假里", "生日那天"];
const TAILS = [
  "还说下次还想再去",
  "回来以后一直在讲这件事",
  "拍了好多照片给我看",
  "说这是最难忘的一天",
  "还认识了一个新朋友",
  "可是后来下起了大雨",
  "结果把作业忘在了家里",
  "说明年还要一起去",
  "一边说一边比划",
  "让我提醒他别忘了",
  "说想把这件事写进日记",
  "顺便买了一本关于恐龙的书",
];
const TOPICS = ["生日聚会", "第一次游泳", "考试", "旅行", "比赛", "搬家", "新朋友", "生病", "过年", "春游", "音乐会", "运动会"];
const EVENT_TYPES = ["birthday", "trip", "exam", "party", "visit", "game", "show", "festival"];

function pick<T>(r: () => number, a: readonly T[]): T {
  return a[Math.floor(r() * a.length)];
}

function between(r: () => number, range: readonly [number, number]): number {
  return range[0] + Math.floor(r() * (range[1] - range[0] + 1));
}

function sentence(r: () => number): string {
  switch (Math.floor(r() * 6)) {
    case 0:
      return `主人${pick(r, WHEN)}和${pick(r, PEOPLE)}去${pick(r, PLACES)}${pick(r, ACTS)}，${pick(r, FEEL)}`;
    case 1:
      return `主人说最喜欢吃${pick(r, FOODS)}，尤其是${pick(r, PLACES)}的${pick(r, FOODS)}`;
    case 2:
      return `主人的${pick(r, PEOPLE)}住在${pick(r, PLACES)}，${pick(r, WHEN)}会来看主人`;
    case 3:
      return `主人最近在学${pick(r, ACTS)}，每天练习${10 + Math.floor(r() * 50)}分钟，${pick(r, FEEL)}`;
    case 4:
      return `主人${pick(r, WHEN)}在${pick(r, PLACES)}吃了${pick(r, FOODS)}，${pick(r, FEEL)}`;
    default:
      return `${pick(r, PEOPLE)}教主人${pick(r, ACTS)}，主人${pick(r, FEEL)}`;
  }
}

// at most `max` characters (code points)
function cut(s: string, max: number): string {
  let out = "";
  let n = 0;
  for (const ch of s) {
    if (n++ === max) break;
    out += ch;
  }
  return out;
}

// byte length without depending on a global TextEncoder
function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

function factText(r: () => number): string {
  let s = sentence(r);
  if (r() < 0.8) s += "，" + pick(r, TAILS);
  return cut(s, FACT_CHARS);
}

function momentText(r: () => number): string {
  let s = sentence(r) + "，" + pick(r, TAILS);
  if (r() < 0.5) s += "。" + sentence(r);
  return cut(s, MOMENT_CHARS);
}

function eventText(r: () => number): string {
  let s = sentence(r);
  while (utf8Length(s) > 64) s = cut(s, Math.max(0, [...s].length - 1)); // the NVS field
  return s;
}

export interface Day {
  day: number; // from START
  start: number; // local midnight, ms
  facts: Fact[];
  moments: Moment[];
  events: Event[]; // the events of the week, on its last day (the archiver's weekly move)
}

// The run, one day at a time: days(n) yields days 0 … n-1.
export class Life {
  private r = prng(SEED);
  private week: Event[] = [];

  *days(n: number): Generator<Day> {
    const r = this.r;
    for (let d = 0; d < n; d++) {
      const start = START + d * 86400000;
      const s0 = Math.floor(start / 1000);
      const day: Day = { day: d, start, facts: [], moments: [], events: [] };
      const nf = between(r, FACTS_PER_DAY);
      for (let i = 0; i < nf; i++) {
        // 07:00 to 21:00 local, strictly increasing
        const ts = s0 + 7 * 3600 + Math.floor(((i + r()) * 14 * 3600) / nf);
        let content = factText(r);
        if (d === RARE_DAY && i === 2) content = `主人${pick(r, WHEN)}在草地上看到了${RARE}，一闪一闪的`;
        day.facts.push({ timestamp: ts, content });
      }
      const nm = between(r, MOMENTS_PER_DAY);
      for (let i = 0; i < nm; i++)
        day.moments.push({
          timestamp: s0 + 8 * 3600 + Math.floor(((i + r()) * 13 * 3600) / nm),
          topic: pick(r, TOPICS),
          content: momentText(r),
          emotion: pick(r, EMOTIONS),
          intensity: 1 + Math.floor(r() * 5),
          importance: 1 + Math.floor(r() * 5),
        });
      const weekday = d % 7;
      // two events a week, on days 1 and 4 of it
      if (weekday === 1 || weekday === 4)
        this.week.push({
          date: formatDate(start + 12 * 3600000),
          time: r() < 0.5 ? "" : `${10 + Math.floor(r() * 10)}:${r() < 0.5 ? "00" : "30"}`,
          eventType: pick(r, EVENT_TYPES),
          content: eventText(r),
          reminded: 0,
          emotion: pick(r, EMOTIONS),
          intensity: Math.floor(r() * 6),
          significance: 1 + Math.floor(r() * 5),
          priority: 1 + Math.floor(r() * 5),
          schedule: r() < 0.3,
          completed: true,
          repeat: "none",
          repeatInterval: 1,
          duration: 60,
        });
      if (weekday === 6) {
        day.events = this.week;
        this.week = [];
      }
      yield day;
    }
  }
}

// Characters (code points) of a string.
export function chars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

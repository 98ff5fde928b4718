// Three years of a pet's archived memory, mostly Chinese, generated
// deterministically: facts (about 8 a day), moments (about 3.5 a day) and
// events (about 1.6 a day), appended the way the archiver moves them (facts 5
// at a time, moments 3, events in a weekly batch). Pure TS: no Node APIs.
import type { Event, Fact, Moment } from "../../src/memory/types";
import { EMOTIONS } from "../../src/memory/types";
import type { Archive } from "../../src/archive/archive";
import { fromLocal, formatDate } from "../../src/time/local";
import { rng } from "../../test/powercut/rng";

export const START = fromLocal(2023, 3, 1, 7, 0); // to 2026-02-28
export const DAYS = 1096;
export const RARE = "萤火虫"; // in exactly RARE_COUNT facts
export const RARE_COUNT = 7;
export const COMMON = "北京";

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

function text(r: () => number, maxBytes: number): string {
  let s = sentence(r) + "，" + pick(r, TAILS);
  if (r() < 0.5) s += "。" + sentence(r);
  // contents are cut to their NVS field size, as in the memory
  while (new TextEncoderLike().length(s) > maxBytes) s = s.slice(0, -1);
  return s;
}

// byte length without depending on a global TextEncoder
class TextEncoderLike {
  length(s: string): number {
    let n = 0;
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    return n;
  }
}

export interface Built {
  facts: number;
  moments: number;
  events: number;
}

// Fills the archive. Returns how many records of each type went in.
export function build(archive: Archive, days = DAYS): Built {
  const r = rng(20230301);
  const out: Built = { facts: 0, moments: 0, events: 0 };
  let facts: Fact[] = [];
  let moments: Moment[] = [];
  let events: Event[] = [];
  let rare = 0;
  const rareEvery = Math.floor((days * 8) / RARE_COUNT);
  for (let d = 0; d < days; d++) {
    const day0 = START + d * 86400000;
    const nf = 6 + Math.floor(r() * 7);
    for (let i = 0; i < nf; i++) {
      const ts = Math.floor(day0 / 1000) + Math.floor(((i + r()) * 14 * 3600) / nf);
      let content = text(r, 128);
      if (rare < RARE_COUNT && out.facts + facts.length === rare * rareEvery + 11) {
        content = `主人${pick(r, WHEN)}在草地上看到了${RARE}，一闪一闪的`;
        rare++;
      }
      facts.push({ timestamp: ts, content });
      if (facts.length === 5) {
        out.facts += archive.append("fact", facts).appended;
        facts = [];
      }
    }
    const nm = 3 + Math.floor(r() * 2.4);
    for (let i = 0; i < nm; i++) {
      moments.push({
        timestamp: Math.floor(day0 / 1000) + 9 * 3600 + i * 3000,
        topic: pick(r, TOPICS),
        content: text(r, 128),
        emotion: pick(r, EMOTIONS),
        intensity: 1 + Math.floor(r() * 5),
        importance: 1 + Math.floor(r() * 5),
      });
      if (moments.length === 3) {
        out.moments += archive.append("moment", moments).appended;
        moments = [];
      }
    }
    if (r() < 0.3) {
      for (let i = 0; i < 1 + Math.floor(r() * 13); i++)
        events.push({
          date: formatDate(day0 - Math.floor(r() * 6) * 86400000),
          time: r() < 0.5 ? "" : `${10 + Math.floor(r() * 10)}:${r() < 0.5 ? "00" : "30"}`,
          eventType: pick(r, EVENT_TYPES),
          content: text(r, 64),
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
    }
    if (d % 7 === 6 && events.length) {
      out.events += archive.append("event", events).appended;
      events = [];
    }
  }
  return out;
}

// Model-free word rules for episodes: polarity (does a statement say yes or
// no to something), topic overlap, emotion words and keywords. Plain tables
// and loops: no Unicode property escapes, no locale API, nothing built at load but arrays of
// strings (this module is preloaded into flash on the device).

import type { Emotion } from "../memory/types";

// Saying no: checked before the yes words (不喜欢 contains 喜欢).
const NEG = ["不喜欢", "不太喜欢", "不爱", "讨厌", "不再", "再也不", "不想", "不要", "不吃", "不喝", "不玩", "不去", "不能", "戒了", "不碰", "受不了", "反感", "没兴趣", "不感兴趣", "烦", "怕"];
// 不 and 没 in words that do not say no
const NOT_NEG = ["不错", "不过", "不少", "不但", "不仅", "不用", "不同", "不久", "不断", "不停", "不得不", "忍不住", "差不多", "了不起", "没想到", "没关系", "特别", "别人", "别的", "区别", "分别", "告别", "性别", "类别", "差别", "级别"];
const POS = ["喜欢", "最爱", "热爱", "喜爱", "爱", "常常", "经常", "总是", "每天", "迷上", "感兴趣"];
// what topicOf drops: the yes/no words themselves, never the verb they go with (不吃辣 → 吃辣)
const POLAR = ["不太喜欢", "不喜欢", "不感兴趣", "感兴趣", "没兴趣", "讨厌", "再也不", "不再", "戒了", "受不了", "反感", "喜欢", "最爱", "热爱", "喜爱", "爱", "常常", "经常", "总是", "迷上", "不", "没", "别"];
// said around a like or dislike without changing its topic
const FILLER = ["我", "你", "他", "她", "很", "非常", "特别", "超级", "最近", "现在", "以前", "已经", "一直", "真的", "还是", "了", "的", "呢", "吧", "啊", "呀", "也", "都", "就", "太", "有点", "暂时", "以后", "又", "再", "还"];

function strip(s: string, words: readonly string[]): string {
  let t = s;
  for (const w of words) while (t.indexOf(w) >= 0) t = t.replace(w, " ");
  return t;
}

// -1 says no (不/没/不再/讨厌/不喜欢/戒了…), 1 says yes (喜欢/爱/常常…), 0 neither.
export function polarity(text: string): number {
  for (const w of NEG) if (text.indexOf(w) >= 0) return -1;
  const t = strip(text, NOT_NEG);
  if (t.indexOf("不") >= 0 || t.indexOf("没") >= 0 || t.indexOf("别") >= 0) return -1;
  for (const w of POS) if (t.indexOf(w) >= 0) return 1;
  return 0;
}

// The characters a statement is about: yes/no words, fillers and punctuation removed.
export function topicOf(text: string): string {
  const t = strip(strip(strip(text, NOT_NEG), POLAR), FILLER);
  let out = "";
  for (const c of t) if (isWordChar(c)) out += c;
  else if (out && out[out.length - 1] !== " ") out += " ";
  return out;
}

// CJK, Latin letters and digits
export function isWordChar(c: string): boolean {
  const n = c.codePointAt(0) as number;
  return (n >= 0x4e00 && n <= 0x9fff) || (n >= 0x3400 && n <= 0x4dbf) || (n >= 0x30 && n <= 0x39) || (n >= 0x41 && n <= 0x5a) || (n >= 0x61 && n <= 0x7a) || n >= 0x20000;
}

// Character bigrams of the word runs of `s` (a run of one character counts as itself).
export function bigrams(s: string): string[] {
  const out: string[] = [];
  const chars: string[] = [];
  for (const c of s) chars.push(c);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === " ") continue;
    const next = chars[i + 1];
    if (next !== undefined && next !== " ") {
      const b = chars[i] + next;
      if (out.indexOf(b) < 0) out.push(b);
    } else if (i === 0 || chars[i - 1] === " ") {
      if (out.indexOf(chars[i]) < 0) out.push(chars[i]);
    }
  }
  return out;
}

// Whether two statements are about the same thing: the share of the shorter
// one's topic bigrams that the other has (overlap coefficient), 0..1.
export function topicOverlap(a: string, b: string): number {
  const x = bigrams(topicOf(a)), y = bigrams(topicOf(b));
  if (!x.length || !y.length) return 0;
  let common = 0;
  for (const g of x) if (y.indexOf(g) >= 0) common++;
  return common / Math.min(x.length, y.length);
}

// Whether two episodes say the same thing (the second test of AUDN, after
// their signatures are alike): the share of the shorter one's character
// bigrams (folded, punctuation dropped) that the longer one has. A restatement
// or an extension of the same thing keeps most of them; two different events
// told in the same words ("第3次在公园玩篮球…" and "第5次在家里玩小猫…") keep
// the boilerplate and lose the things: signatures alike, bigrams not.
export const SAME_OVERLAP = 0.8;
export function sameThing(a: string, b: string): boolean {
  const x = bigrams(plain(a)), y = bigrams(plain(b));
  if (!x.length || !y.length) return false;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  let common = 0;
  for (const g of short) if (long.indexOf(g) >= 0) common++;
  return common / short.length >= SAME_OVERLAP;
}

// Lower-case ASCII, punctuation and spaces dropped (for sameThing).
function plain(s: string): string {
  let out = "";
  for (const c of s) {
    const k = c.charCodeAt(0);
    if (k < 0x30 || (k > 0x39 && k < 0x41) || (k > 0x5a && k < 0x61) || (k > 0x7a && k < 0x80) || (k >= 0x3000 && k <= 0x303f) || (k >= 0xff00 && k <= 0xff0f) || (k >= 0xff1a && k <= 0xff20)) continue;
    out += k >= 0x41 && k <= 0x5a ? String.fromCharCode(k + 32) : c;
  }
  return out;
}

// Emotion words (seed 000's emotions). A negated happy word counts as sad.
const EMOTION_WORDS: [Emotion, readonly string[]][] = [
  ["sad", ["不开心", "不高兴", "难过", "伤心", "哭", "失望", "孤单", "寂寞", "委屈", "沮丧", "想念"]],
  ["worried", ["担心", "害怕", "紧张", "焦虑", "怕", "不安", "发烧", "生病", "疼"]],
  ["touched", ["感动", "谢谢", "温暖", "暖心", "感谢"]],
  ["excited", ["激动", "兴奋", "太棒了", "期待", "好耶", "终于", "赢了"]],
  ["happy", ["开心", "高兴", "快乐", "哈哈", "太好了", "好玩", "有趣", "喜欢"]],
];

// Counts of each emotion's words in `text` (a word inside a longer one that
// was counted, like 开心 in 不开心, is not counted again).
export function emotionCounts(text: string): Record<Emotion, number> {
  const n: Record<Emotion, number> = { neutral: 0, happy: 0, sad: 0, excited: 0, worried: 0, touched: 0 };
  let t = text;
  for (const [emo, words] of EMOTION_WORDS)
    for (const w of words) {
      let at = t.indexOf(w);
      while (at >= 0) {
        n[emo]++;
        t = t.slice(0, at) + " " + t.slice(at + w.length);
        at = t.indexOf(w);
      }
    }
  return n;
}

// Characters that do not start or end a keyword
const STOP = "我你他她它们的了是在吗呢吧啊呀哦嗯很也都就还不没有和跟要会想说个这那一上下去来到给让被把着过得地么什怎为可以啦哈好叫喜欢爱讨厌岁今";

// Up to `max` keywords of what the user said: the character bigrams (and Latin
// words) said most often, stop characters excluded; ties go to the first said.
export function keywordsOf(lines: readonly string[], max: number): string[] {
  const terms: string[] = [];
  const counts: number[] = [];
  const add = (t: string) => {
    const k = terms.indexOf(t);
    if (k >= 0) counts[k]++;
    else {
      terms.push(t);
      counts.push(1);
    }
  };
  for (const line of lines) {
    let latin = "";
    let prev = "";
    for (const c of line + " ") {
      const n = c.codePointAt(0) as number;
      const isLatin = (n >= 0x30 && n <= 0x39) || (n >= 0x41 && n <= 0x5a) || (n >= 0x61 && n <= 0x7a);
      if (isLatin) {
        latin += c.toLowerCase();
        prev = "";
        continue;
      }
      if (latin.length >= 3) add(latin);
      latin = "";
      const cjk = isWordChar(c) && STOP.indexOf(c) < 0;
      if (cjk && prev) add(prev + c);
      prev = cjk ? c : "";
    }
  }
  const order: number[] = [];
  for (let k = 0; k < terms.length; k++) order.push(k);
  order.sort((a, b) => counts[b] - counts[a] || a - b);
  const out: string[] = [];
  for (const k of order) {
    if (out.length >= max) break;
    if (counts[k] < 2 && out.length >= 2) break; // a word said once is a keyword only for want of better
    const w = extend(terms[k], lines);
    let dup = false;
    for (const o of out) if (o.indexOf(w) >= 0 || w.indexOf(o) >= 0) dup = true;
    if (!dup) out.push(w);
  }
  return out;
}

// A bigram grown into the longer word it is always part of (机器 → 机器人),
// up to 6 characters: while every occurrence is followed (or preceded) by
// the same word character.
function extend(term: string, lines: readonly string[]): string {
  let t = term;
  for (let side = 0; side < 2; side++)
    for (let n = 0; n < 4; n++) {
      let next = "";
      let same = true;
      let seen = 0;
      for (const line of lines) {
        let at = line.indexOf(t);
        while (at >= 0) {
          seen++;
          const c = side === 0 ? line.slice(at + t.length, at + t.length + 1) : line.slice(at - 1, at);
          if (at === 0 && side === 1) same = false;
          else if (!next) next = c;
          else if (c !== next) same = false;
          at = line.indexOf(t, at + 1);
        }
      }
      if (!same || !seen || !next || !isWordChar(next) || STOP.indexOf(next) >= 0) break;
      t = side === 0 ? t + next : next + t;
    }
  return t;
}

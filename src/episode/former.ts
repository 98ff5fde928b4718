// An episode formed by the device itself from a conversation that ended
// (seed 004 §44: only a conversation of at least 5 rounds makes one), without
// a model. It reads as a sentence a person wrote, who did what and how it
// felt, or it is not formed (issue 24: never fragments like "聊了叫陈和喜欢"):
//
//   summary   "主人" + what the conversation stored, each said as a deed
//             (说自己叫陈晨，说喜欢画画，提到了妹妹朵朵), else the user's most
//             informative line or two (说今天在学校和同桌吵架了), then how it
//             felt (，听起来很开心 / ，有些难过 …), "。", within 200 characters;
//             nothing stored and no line of at least 6 word characters: no episode
//   keywords  the things stored (their short values), else the words said most
//             that are whole words (never a fragment with 叫/喜欢/的 at its edge)
//   emotion   the emotion with the most words (negative ones win ties), else neutral
//   E         0.2 + 0.15 per positive emotion word + 0.25 per negative one, at most 1
//   I         0.2 + 0.1 per keyword + 0.1 if a number was said + 0.05 per informative line (4 at most), at most 0.9
//   P         0.5 if a plan or routine was said (计划, 打算, 以后, 每天…), else 0.1; never 1:
//             a core memory is the AI's judgement
//   J         0.4·I + 0.3·E + 0.3·min(1, rounds/20)

import type { Emotion } from "../memory/types";
import { EPISODE_CONTENT_CHARS, EPISODE_KEYWORDS } from "./types";
import { chars, cutChars, type EpisodeInput } from "./episodes";
import { emotionCounts, isWordChar, keywordsOf } from "./words";

// What the conversation stored (src/listen/pending.ts's Formed, reduced): the
// deeds of the summary.
export interface FormedItem {
  type: string;
  content: string;
  result: string;
}
import { byteLength } from "../text/utf8";

export const MIN_ROUNDS = 5; // seed 004: episode_compress_threshold
const ACK = ["嗯", "嗯嗯", "好", "好的", "好吧", "是的", "对", "对啊", "哈哈", "哈哈哈", "没有", "不是", "知道了", "可以", "行", "谢谢", "你好", "在吗", "再见", "拜拜", "晚安"];
const PLAN = ["计划", "打算", "准备", "以后", "将来", "目标", "每天", "每周", "下个月", "明年", "要学", "想学"];
const NEGATIVE: readonly Emotion[] = ["sad", "worried"];
const TIE_ORDER: readonly Emotion[] = ["sad", "worried", "touched", "excited", "happy"];

function words(line: string): number {
  let n = 0;
  for (const c of line) if (isWordChar(c)) n++;
  return n;
}

// A line without its end punctuation and spaces.
function tidy(line: string): string {
  let s = line.trim();
  const end = "。.!！?？~～,，、;；… ";
  while (s && end.indexOf(s[s.length - 1]) >= 0) s = s.slice(0, -1);
  return s;
}

function r2(x: number): number {
  return Math.round(Math.min(1, Math.max(0, x)) * 100) / 100;
}

const FEEL: Readonly<Record<string, string>> = Object.freeze({ happy: "，听起来很开心", excited: "，很兴奋", touched: "，很感动", sad: "，有些难过", worried: "，有点担心" });

// One stored item as a deed of the owner's, and its keyword.
function deed(f: FormedItem): { text: string; key: string } | undefined {
  const c = f.content;
  switch (f.type) {
    case "name":
      return { text: `说自己叫${c}`, key: c };
    case "age":
      return { text: `说自己${c}岁了`, key: "" };
    case "gender":
      return undefined;
    case "location":
      return { text: `说住在${c}`, key: c };
    case "birthday":
      return { text: `说生日是${c}`, key: "生日" };
    case "like":
      return { text: `说喜欢${c}`, key: c };
    case "dislike":
      return { text: `说不喜欢${c}`, key: c };
    case "fact":
      return { text: "说" + (c.indexOf("主人") === 0 ? "自己" + c.slice(2) : c), key: "" };
    case "family": {
      const [rel, name = "", ...rest] = c.split(":");
      const note = rest.join(":");
      const he = /^(?:爸爸|哥哥|弟弟|爷爷|外公|儿子|孙子|外孙|老公|男朋友|女婿)$/.test(rel) ? "他" : "她";
      return { text: `提到了${rel}${name}${note ? "，说" + he + note : ""}`, key: name || rel };
    }
    case "schedule":
    case "event":
      return { text: `说要${c}`, key: c.length <= 6 ? c : "" };
    default:
      return undefined;
  }
}

// A user line told as what the owner said: "我今天…" → "自己今天…".
function told(line: string): string {
  return "说" + line.replace(/我(?!们)/g, "自己").replace(/[，,。.!！?？~～]+/g, "，");
}

// The episode a conversation makes, or undefined (fewer than MIN_ROUNDS user
// lines, or nothing stored and nothing informative said).
export function formEpisode(userLines: readonly string[], rounds: number, formed: readonly FormedItem[] = []): EpisodeInput | undefined {
  if (rounds < MIN_ROUNDS) return undefined;
  const lines: string[] = [];
  for (const l of userLines) {
    const t = tidy(l);
    if (words(t) >= 3 && ACK.indexOf(t) < 0) lines.push(t);
  }
  const deeds: string[] = [];
  const keys: string[] = [];
  // likes (and dislikes) said together: 说喜欢画画和小兔子
  const items: FormedItem[] = [];
  for (const f of formed) {
    if (f.result !== "added" && f.result !== "updated") continue;
    const same = (f.type === "like" || f.type === "dislike") && items.find((x) => x.type === f.type);
    if (same) same.content += "和" + f.content;
    else items.push({ type: f.type, content: f.content, result: f.result });
  }
  for (const f of items) {
    const d = deed(f);
    if (!d || deeds.indexOf(d.text) >= 0) continue;
    deeds.push(d.text);
    for (const k of d.key.split("和")) if (k && byteLength(k) <= 16 && keys.indexOf(k) < 0) keys.push(k);
  }
  if (!deeds.length) {
    // nothing stored: the most informative lines (most word characters), as said, if they are sentences
    const best = lines.filter((l) => words(l) >= 6).sort((a, b) => words(b) - words(a)).slice(0, 2);
    for (const l of lines) if (best.indexOf(l) >= 0) deeds.push(told(l));
  }
  if (!deeds.length) return undefined;
  const all = lines.join("；");
  const n = emotionCounts(all);
  let emotion: Emotion = "neutral";
  for (const emo of TIE_ORDER) if (n[emo] > (emotion === "neutral" ? 0 : n[emotion])) emotion = emo;
  const feel = emotion === "neutral" ? "" : FEEL[emotion];
  let body = "";
  for (const d of deeds) {
    const next = body ? body + "，" + d : d;
    if (chars("主人" + next + feel + "。") > EPISODE_CONTENT_CHARS) break;
    body = next;
  }
  if (!body) body = cutChars(deeds[0], EPISODE_CONTENT_CHARS - chars("主人" + feel + "。"));
  const content = cutChars(`主人${body}${feel}。`, EPISODE_CONTENT_CHARS);
  const keywords = (keys.length ? keys : keywordsOf(lines, Math.min(3, EPISODE_KEYWORDS)).filter((k) => byteLength(k) <= 16)).slice(0, EPISODE_KEYWORDS);

  let pos = 0, neg = 0;
  for (const emo of TIE_ORDER) if (NEGATIVE.indexOf(emo) >= 0) neg += n[emo];
  else pos += n[emo];
  const e = r2(0.2 + 0.15 * pos + 0.25 * neg);
  let digits = false;
  for (const c of all) if (c >= "0" && c <= "9") digits = true;
  const i = r2(Math.min(0.9, 0.2 + 0.1 * keywords.length + (digits || /[一二三四五六七八九十两]+(?:点|号|岁|天|个月|年)/.test(all) ? 0.1 : 0) + 0.05 * Math.min(4, lines.length)));
  let plan = false;
  for (const w of PLAN) if (all.indexOf(w) >= 0) plan = true;
  const p = plan ? 0.5 : 0.1;
  const j = r2(0.4 * i + 0.3 * e + 0.3 * Math.min(1, rounds / 20));
  return { content, keywords, emotion, e, i, p, j };
}

// An episode formed by the device itself from a conversation that ended
// (seed 004 §44: only a conversation of at least 5 rounds makes one), without
// a model: the user's own lines make the summary, the words they said most
// the keywords, emotion words the emotion, and a few rules the scores
// (docs/DESIGN.md "Episodes from conversations").
//
//   summary   "聊了<kw1>和<kw2>：" then the user's most informative lines, in the
//             order said, joined by "；", within 200 characters
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

// The episode a conversation makes, or undefined (fewer than MIN_ROUNDS user
// lines, or nothing informative said).
export function formEpisode(userLines: readonly string[], rounds: number): EpisodeInput | undefined {
  if (rounds < MIN_ROUNDS) return undefined;
  const lines: string[] = [];
  for (const l of userLines) {
    const t = tidy(l);
    if (words(t) >= 3 && ACK.indexOf(t) < 0) lines.push(t);
  }
  if (!lines.length) return undefined;
  const keywords = keywordsOf(lines, Math.min(3, EPISODE_KEYWORDS)).filter((k) => byteLength(k) <= 16);
  const head = keywords.length ? `聊了${keywords.slice(0, 2).join("和")}：` : "";
  // the most informative lines (more words, a keyword) until 200 characters, shown in the order said
  const score = lines.map((l, at) => {
    let s = words(l);
    for (const k of keywords) if (l.indexOf(k) >= 0) s += 4;
    return { at, s };
  });
  score.sort((a, b) => b.s - a.s || a.at - b.at);
  const keep: number[] = [];
  let room = EPISODE_CONTENT_CHARS - chars(head);
  for (const x of score) {
    const n = chars(lines[x.at]) + (keep.length ? 1 : 0);
    if (n <= room) {
      keep.push(x.at);
      room -= n;
    }
  }
  if (!keep.length) keep.push(score[0].at);
  keep.sort((a, b) => a - b);
  const content = cutChars(head + keep.map((k) => lines[k]).join("；"), EPISODE_CONTENT_CHARS);

  const all = lines.join("；");
  const n = emotionCounts(all);
  let emotion: Emotion = "neutral";
  for (const emo of TIE_ORDER) if (n[emo] > (emotion === "neutral" ? 0 : n[emotion])) emotion = emo;
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

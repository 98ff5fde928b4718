// The prompt block of seed 004 §50 (action=context): what the AI should know
// at this turn, within a byte budget.
//
//   【用户信息】      profile, family, likes and dislikes, traits
//   【已知信息】      facts: those sharing words with the message first, then the latest
//   【相关记忆】      the episodes most like the message, "3天前的对话摘要“…”" (S1 28)
//
// Lines are taken by priority (the profile's first lines, then the recalled
// episodes, then facts, then the rest of the profile) while they fit the
// budget; one line that does not fit is cut at a character boundary with "…"
// (src/text/utf8.ts), the others are left out. The block keeps its section
// order. The recall updates the hits' use counts (Episodes.recall).

import type { Memory } from "../memory/memory";
import { byteLength, truncate } from "../text/utf8";
import { now as clockNow } from "../time/clock";
import { summaryLine } from "./age";
import { bigrams, topicOf } from "./words";
import type { Episodes, Hit } from "./episodes";

export const CONTEXT_BUDGET = 1200;
export const CONTEXT_MIN = 200;
export const CONTEXT_MAX = 4000;
export const SECTIONS = ["【用户信息】", "【已知信息】", "【相关记忆】"] as const;
const CUT_AT_LEAST = 24; // bytes a cut line keeps, else it is left out

export interface Context {
  text: string;
  bytes: number;
  episodes: Hit[]; // recalled (use counts updated), whether shown or cut
  facts: number; // fact lines shown
  cut: boolean; // something did not fit
  unreadable?: string; // the episodes could not be read now
}

interface Line {
  section: number;
  text: string;
  shown?: string; // what the block shows of it (the text, or cut)
}

function join(list: readonly string[]): string {
  return list.join("、");
}

export function buildContext(memory: Memory, episodes: Episodes | undefined, message: string, budget = CONTEXT_BUDGET, nowMs = clockNow()): Context {
  const p = memory.profile();
  const prefs = memory.preferences();
  const profile: Line[] = [];
  const more: Line[] = [];
  if (p.name) profile.push({ section: 0, text: `用户名字：${p.name}` });
  if (p.age) profile.push({ section: 0, text: `年龄：${p.age}岁` });
  if (p.gender) profile.push({ section: 0, text: `性别：${p.gender}` });
  if (p.location) profile.push({ section: 0, text: `所在地：${p.location}` });
  if (p.birthday) profile.push({ section: 0, text: `生日：${p.birthday}` });
  if (prefs.likes.length) profile.push({ section: 0, text: `喜欢：${join(prefs.likes.slice().reverse())}` });
  if (prefs.dislikes.length) profile.push({ section: 0, text: `不喜欢：${join(prefs.dislikes.slice().reverse())}` });
  const fam = memory.family();
  if (fam.length) more.push({ section: 0, text: `家人：${join(fam.map((f) => `${f.relation}${f.name ? " " + f.name : ""}`))}` });
  const traits = memory.traits();
  if (traits.length) more.push({ section: 0, text: `性格特点：${join(traits.map((t) => t.content))}` });

  // facts: those sharing words with the message first (more shared first), then the newest
  const words = bigrams(topicOf(message));
  const facts = memory.facts().map((f, at) => {
    let shared = 0;
    for (const w of words) if (f.content.indexOf(w) >= 0) shared++;
    return { f, at, shared };
  });
  facts.sort((a, b) => b.shared - a.shared || b.f.timestamp - a.f.timestamp || b.at - a.at);
  const factLines: Line[] = facts.map((x) => ({ section: 1, text: `- ${x.f.content}` }));

  let hits: Hit[] = [];
  let unreadable: string | undefined;
  if (episodes && message.trim())
    try {
      hits = episodes.recall(message);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      unreadable = e instanceof Error ? e.message : String(e);
    }
  const memLines: Line[] = hits.map((h) => ({ section: 2, text: `- ${summaryLine(h.episode.content, h.episode.createdAt * 1000, nowMs)}` }));

  const order = profile.slice(0, 3).concat(memLines, factLines.filter((_, k) => facts[k].shared > 0), profile.slice(3), more, factLines.filter((_, k) => facts[k].shared === 0));
  const taken = [0, 0, 0]; // lines shown per section
  let used = 0;
  let cut = false;
  for (const l of order) {
    const head = taken[l.section] ? 0 : byteLength(SECTIONS[l.section]) + 1;
    const cost = head + byteLength(l.text) + 1;
    if (used + cost <= budget + 1) {
      l.shown = l.text;
      taken[l.section]++;
      used += cost;
      continue;
    }
    cut = true;
    const room = budget + 1 - used - head - 1 - 3; // "…" is 3 bytes
    if (room >= CUT_AT_LEAST) {
      l.shown = truncate(l.text, room) + "…";
      taken[l.section]++;
      used += head + byteLength(l.shown) + 1;
    }
  }
  const out: string[] = [];
  for (let s = 0; s < SECTIONS.length; s++) {
    if (!taken[s]) continue;
    out.push(SECTIONS[s]);
    // each section in its own order (profile fields, facts as ranked, memories most alike first)
    const mine = s === 0 ? profile.concat(more) : s === 1 ? factLines : memLines;
    for (const l of mine) if (l.shown !== undefined) out.push(l.shown);
  }
  const text = out.join("\n");
  const r: Context = { text, bytes: byteLength(text), episodes: hits, facts: taken[1], cut };
  if (unreadable) r.unreadable = unreadable;
  return r;
}

// The prompt block of seed 004 §50 (action=context): what the AI should know
// at this turn, within a byte budget (issue 25 item 3).
//
//   【用户信息】      who the owner is: name, age, gender, where they live
//   【已知信息】      what the topic needs of the profile, likes, family, facts,
//                     traits, habits and goals, each with its age
//   【日程安排】      schedules and events the topic or its time names
//   【相关记忆】      episodes, moments and monthly digests: "3天前的对话摘要“…”"
//
// Everything past the owner's four lines comes from the one retrieval
// (src/recall/retrieve.ts), most relevant first, and only what it found
// relevant: nothing unrelated is added to fill the space. Lines are taken in
// rank order while they fit; one that does not fit is cut at a character
// boundary with "…" (src/text/utf8.ts), the others are left out. The block
// keeps its section order. Shown episodes have their use counts updated.

import type { Memory } from "../memory/memory";
import type { Schedules } from "../schedule/schedules";
import { byteLength, truncate } from "../text/utf8";
import { now as clockNow } from "../time/clock";
import type { Episodes } from "../episode/episodes";
import type { Episode } from "../episode/types";
import { retrieve, type Hit, type ArchiveLookup } from "./retrieve";

export const CONTEXT_BUDGET = 1200;
export const CONTEXT_MIN = 200;
export const CONTEXT_MAX = 4000;
export const CONTEXT_HITS = 8; // retrieved items considered at most
export const SECTIONS = ["【用户信息】", "【已知信息】", "【日程安排】", "【相关记忆】"] as const;
const CUT_AT_LEAST = 24; // bytes a cut line keeps, else it is left out

export interface Context {
  text: string;
  bytes: number;
  hits: Hit[]; // shown, most relevant first
  episodes: Episode[]; // shown (use counts updated)
  facts: number; // lines shown in 【已知信息】
  cut: boolean; // something did not fit
  unreadable?: string; // a part of memory could not be read now
  partial?: true; // the flash read budget was spent before the archive was searched whole
}

interface Line {
  section: number;
  text: string;
  hit?: Hit;
  episode?: Episode;
  shown?: string;
}

function sectionOf(h: Hit): number {
  if (h.kind === "schedule" || h.kind === "event") return 2;
  if (h.kind === "episode" || h.kind === "moment" || h.kind === "digest") return 3;
  return 1;
}

// One hit as the block shows it.
export function lineOf(h: Hit): string {
  if (h.kind === "episode") return `- ${h.age}的对话摘要“${h.text}”`;
  if (h.kind === "digest") return `- ${h.age}的月度摘要（已淡忘，只剩概要）“${h.text}”`;
  if (h.kind === "moment") return `- ${h.age}：${h.text}`;
  return `- ${h.text}${h.age && h.kind !== "schedule" ? `（${h.age}）` : h.kind === "schedule" && h.age ? `（${h.age}）` : ""}`;
}

export function buildContext(memory: Memory, episodes: Episodes | undefined, message: string, budget = CONTEXT_BUDGET, nowMs = clockNow(), more: { schedules?: Schedules; archive?: ArchiveLookup } = {}): Context {
  const p = memory.profile();
  const lines: Line[] = [];
  if (p.name) lines.push({ section: 0, text: `用户名字：${p.name}` });
  if (p.age) lines.push({ section: 0, text: `年龄：${p.age}岁` });
  if (p.gender) lines.push({ section: 0, text: `性别：${p.gender}` });
  if (p.location) lines.push({ section: 0, text: `所在地：${p.location}` });
  let hits: Hit[] = [];
  let found: Episode[] = [];
  let unreadable: string | undefined;
  let partial = false;
  if (message.trim()) {
    const r = retrieve({ memory, episodes, schedules: more.schedules, archive: more.archive }, message, { limit: CONTEXT_HITS, nowMs, archive: "needed" });
    hits = r.hits;
    found = r.episodes;
    unreadable = r.unreadable;
    partial = r.budget.cut;
  }
  for (const h of hits) {
    // the owner's lines already shown
    const mine = h.kind === "profile" ? lines.find((l) => l.section === 0 && l.text === h.text) : undefined;
    if (mine) {
      mine.hit = h;
      continue;
    }
    const ep = h.id !== undefined ? found.find((e) => e.id === h.id) : undefined;
    lines.push({ section: sectionOf(h), text: lineOf(h), hit: h, episode: ep });
  }
  const taken = [0, 0, 0, 0];
  let used = 0;
  let cut = false;
  for (const l of lines) {
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
    for (const l of lines) if (l.section === s && l.shown !== undefined) out.push(l.shown);
  }
  // in rank order
  const shown = lines.filter((l) => l.shown !== undefined && l.hit).sort((a, b) => hits.indexOf(a.hit as Hit) - hits.indexOf(b.hit as Hit));
  const eps: Episode[] = [];
  for (const l of shown) if (l.episode) eps.push(l.episode);
  if (episodes && eps.length)
    try {
      episodes.used(eps);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
    }
  const text = out.join("\n");
  const r: Context = { text, bytes: byteLength(text), hits: shown.map((l) => l.hit as Hit), episodes: eps, facts: taken[1], cut };
  if (unreadable) r.unreadable = unreadable;
  if (partial) r.partial = true;
  return r;
}

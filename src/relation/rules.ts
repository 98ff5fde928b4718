// The relationship's rules (seed 000 §5, the fork's PersonalityEvolver): what
// earns coins, what moves affection and mood, when an achievement unlocks.
// Everything changes RAM only, through Memory.updateAffection (the affection
// store); the caller's batch writes it (the conversation's end, a tool call).
// docs/DESIGN.md "The relationship"; the bytes: docs/FORMAT.md §2.3.
//
// No regular expressions here: src/schedule/schedules.ts imports this module,
// and a module that makes RegExps at load is not preloaded on the simulators.

import type { Memory } from "../memory/memory";
import { ACHIEVEMENTS, STAGES, stageIndex, type Affection, type Event } from "../memory/types";
import { isValid } from "../time/clock";
import { utcOffset, parseLocal } from "../time/local";

const DAY_MS = 86400000;

// Coins. The stage is derived from total_coins_spent (seed 000 §5.1): 21
// acquaintance, 51 friend, 101 close friend, 201 soulmate.
export const COINS = {
  minRounds: 3, // a conversation earns when the user spoke at least this many times
  conversation: 2, // coins for such a conversation
  longRounds: 10, // … and this many rounds or more
  long: 3, // coins for a long one
  dayCap: 6, // conversations earn at most this much in one local day
  daily: 1, // the first conversation of a new local day (the streak's coin)
  streak7: 5, // bonus the day a streak reaches 7 days
  streak30: 10, // … and 30 days
  schedule: 1, // a completed schedule whose time has come
  scheduleDayCap: 3, // completed schedules earn at most this much in one local day
} as const;

// Affection (0-100) and mood (-10..10).
export const AFFECTION = {
  start: 10, // a new pet's affection (the fork's)
  conversation: 1, // a conversation of COINS.minRounds or more
  newDay: 1, // the first conversation of a day
  streak: 1, // … that continues yesterday's
  happy: 1, // the conversation's emotion was positive
  comforted: 2, // the user was sad or worried and the pet answered
  secret: 2, // the user shared a secret
  schedule: 1, // a completed schedule
  absence: -3, // the first conversation after ABSENCE_DAYS or more without one
  maxUp: 5, // a conversation moves affection at most this much up
  maxDown: 3, // … and down
  dayCap: 10, // affection gained in one local day, at most
  moodStep: 2, // a conversation moves the mood at most this much
} as const;
export const ABSENCE_DAYS = 7;
export const ANNIVERSARY_DAYS = 365;
export const KNOW_FAMILY = 3; // family members known (the fork's)
export const KNOW_HOBBY = 3; // likes known (the fork's)
export const CHATS_100 = 100; // conversations

// Chinese names of the stages (seed 000 §5.1), for the sentences an AI says.
export const STAGE_NAMES_ZH = ["陌生期", "熟悉期", "亲密期", "深厚期", "灵魂伴侣"] as const;

// The local calendar day of a wall time: days since 1970-01-01 in local time.
export function dayNumber(ms: number): number {
  return Math.floor((ms + utcOffset() * 60000) / DAY_MS);
}

function bit(name: (typeof ACHIEVEMENTS)[number]): number {
  return 1 << ACHIEVEMENTS.indexOf(name);
}

// The names of the achievements in a bit set, in ACHIEVEMENTS order.
export function achievementNames(bits: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < ACHIEVEMENTS.length; i++) if (bits & (1 << i)) out.push(ACHIEVEMENTS[i]);
  return out;
}

// A new local day resets the day's counters (coins and affection earned).
export function rollDay(a: Affection, day: number): void {
  if (a.coinDay === day) return;
  a.coinDay = day;
  a.chatCoins = 0;
  a.taskCoins = 0;
  a.dayAffection = 0;
}

// Adds coins (the stage derives from them: Memory.updateAffection).
export function addCoins(a: Affection, n: number): void {
  if (n > 0) a.totalCoinsSpent = Math.min(0xffffffff, a.totalCoinsSpent + n);
}

// Moves affection by `delta`, a gain limited by what is left of the day's cap
// when the clock is valid (`capped`).
export function moveAffection(a: Affection, delta: number, capped: boolean): void {
  if (delta > 0 && capped) {
    delta = Math.min(delta, Math.max(0, AFFECTION.dayCap - a.dayAffection));
    a.dayAffection = Math.min(0xff, a.dayAffection + delta);
  }
  a.affection = Math.max(0, Math.min(100, a.affection + delta));
  if (a.affection > a.maxAffection) a.maxAffection = a.affection;
}

// Unlocks what the record (and what memory knows) now satisfies. Achievements
// are never taken back.
export function unlock(a: Affection, memory: Memory, atMs: number | undefined): void {
  let b = a.achievements;
  if (a.totalConversations >= 1) b |= bit("first_chat");
  if (a.streakDays >= 7 || a.bestStreak >= 7) b |= bit("week_streak");
  if (a.streakDays >= 30 || a.bestStreak >= 30) b |= bit("month_streak");
  if (a.totalConversations >= CHATS_100) b |= bit("100_chats");
  if (a.sharedSecrets >= 1) b |= bit("share_secret");
  if (a.comfortedTimes >= 1) b |= bit("first_comfort");
  if (atMs !== undefined && a.firstMeet > 0 && a.totalConversations > 0 && dayNumber(atMs) - dayNumber(a.firstMeet * 1000) >= ANNIVERSARY_DAYS) b |= bit("anniversary_1");
  if (a.maxAffection >= 100) b |= bit("max_affection");
  if (memory.stores.family.count >= KNOW_FAMILY) b |= bit("know_family");
  if (memory.preferences().likes.length >= KNOW_HOBBY) b |= bit("know_hobby");
  a.achievements = b;
}

// A schedule was completed (src/schedule/schedules.ts complete()): a coin and
// a point of affection when its time has come (today or earlier: completing
// a future occurrence, such as the next of a daily series, earns nothing),
// within the day's cap. Each occurrence is completed once (a repeating one
// moves on), so it earns once. Nothing without a valid clock.
export function rewardSchedule(memory: Memory, e: Event, atMs: number): void {
  if (!isValid() || !e.schedule) return;
  const start = parseLocal(e.time ? `${e.date} ${e.time}` : e.date);
  if (start === undefined) return;
  const today = dayNumber(atMs);
  if (dayNumber(start) > today) return;
  memory.updateAffection((a) => {
    rollDay(a, today);
    if (a.taskCoins + COINS.schedule <= COINS.scheduleDayCap) {
      a.taskCoins += COINS.schedule;
      addCoins(a, COINS.schedule);
      moveAffection(a, AFFECTION.schedule, true);
    }
    unlock(a, memory, atMs);
  });
}

export interface RelationView {
  stage: string;
  style: string;
  affection: number;
  mood: number;
  streak: number;
  new_achievements?: string[];
}

// The relationship as `read` shows it: the stage and the style to speak in,
// affection, mood and the streak; achievements unlocked since a read last
// said so (`tell`: they are marked told, the caller's commit writes it).
export function relationView(memory: Memory, tell: boolean): RelationView {
  const a = memory.affection();
  const s = STAGES[stageIndex(a.totalCoinsSpent)];
  const v: RelationView = { stage: s.stage, style: s.hint, affection: a.affection, mood: a.mood, streak: a.streakDays };
  const fresh = a.achievements & ~a.told;
  if (fresh) {
    v.new_achievements = achievementNames(fresh);
    if (tell) memory.updateAffection((x) => (x.told = x.achievements));
  }
  return v;
}

// Whole days since the pet and its owner met (0 before the first conversation).
export function daysTogether(a: Affection, atMs: number): number {
  if (!a.totalConversations || !a.firstMeet || !isValid()) return 0;
  return Math.max(0, dayNumber(atMs) - dayNumber(a.firstMeet * 1000));
}

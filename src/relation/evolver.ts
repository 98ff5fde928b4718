// The relationship that lives (seed 000 §5, issue 16 item 9; after the
// fork's PersonalityEvolver): each conversation, as the listener hears it,
// leaves its record in the affection store when it ends: counts, days and the
// streak, coins (hence the stage), affection, mood, achievements.
//
// One mechanism for every path: src/listen/listener.ts feeds every line it
// hears (xiaozhi link, the host's dialog and stdio, tests) to heard() and
// calls end() from Listener.end(), after the batch's confirmed items and
// before its one flush: the record is written in the conversation's batch,
// never in a flush of its own. The xiaozhi link adds the server's emotion of
// each turn (emotion()). Completed schedules earn through rules.ts
// rewardSchedule(), called by Schedules.complete().
//
// Emotion: each turn's llm emotion (+1 happy, excited, loving; -1 sad, angry)
// and each user utterance's words (+1 happy words, -1 sad or worried words)
// add up; the mood moves toward the sum by at most AFFECTION.moodStep.
// A sad or worried utterance that the pet answers is comfort: it counts
// (comfortedTimes, affection up), a sad conversation is not held against
// the pet.

import type { Memory } from "../memory/memory";
import type { Role } from "../memory/types";
import { isValid, VALID_AFTER_MS } from "../time/clock";
import { AFFECTION, ABSENCE_DAYS, COINS, addCoins, dayNumber, moveAffection, rollDay, unlock, achievementNames } from "./rules";

// The user's words. Sad and worried first: "不开心" holds "开心".
const SAD = /不开心|不高兴|不快乐|难过|伤心|想哭|哭了|在哭|好哭|郁闷|烦死|好烦|心情不好|心情很差|委屈|孤单|孤独|寂寞|失望|沮丧|累死|好累|担心|害怕|好怕|紧张|焦虑|不安|睡不着|压力好?大|被骂|吵架/;
const HAPPY = /开心|高兴|快乐|太好了|太棒了|好棒|真棒|哈哈|嘻嘻|好玩|真好|喜欢你|爱你|兴奋|激动|好期待|考了满分|得了第一/;
const NEGATED = /[不没别]$/; // "不难过", "没担心", "别害怕": not what it says
const SECRET = /(?:一个|个|我的|小)秘密|悄悄(?:告诉|跟)你|只(?:告诉|跟)你(?:一个人)?说|(?:别|不要)告诉(?:别人|任何人|我?妈妈|我?爸爸|老师)|(?:你要|替我|帮我)保密/;
const SECRET_REFUSED = /不(?:能|想)?告诉你|是秘密$/; // "这是秘密" alone is a refusal to share

// What one user utterance says of the user's feeling: -1, 0 or +1.
export function feeling(text: string): number {
  const s = SAD.exec(text);
  if (s && !NEGATED.test(text.slice(0, s.index))) return -1;
  const h = HAPPY.exec(text);
  if (h && !NEGATED.test(text.slice(0, h.index))) return 1;
  return 0;
}

// Whether a user utterance shares a secret.
export function sharesSecret(text: string): boolean {
  return SECRET.test(text) && !SECRET_REFUSED.test(text);
}

// What a conversation's end did (for traces and tests).
export interface ConversationRecord {
  rounds: number; // the user's utterances
  lines: number; // every line heard
  coins: number; // earned now (all rules)
  newDay: boolean; // the first conversation of a local day
  affection: number; // the change
  mood: number; // the change
  achievements: string[]; // unlocked now
}

export class Evolver {
  private lines = 0;
  private rounds = 0;
  private started = 0; // ms
  private last = 0; // ms
  private sum = 0; // feelings and emotions of the conversation
  private happy = false;
  private sad = false; // a sad or worried utterance not yet answered
  private comforted = false;
  private secret = false;
  lastRecord: ConversationRecord | undefined;

  constructor(readonly memory: Memory) {}

  get active(): boolean {
    return this.lines > 0;
  }

  // One line of the conversation (Listener.hear).
  heard(role: Role, text: string, at: number): void {
    if (this.lines === 0) this.started = at;
    this.lines++;
    this.last = at;
    if (role !== "user") {
      if (this.sad) this.comforted = true; // the pet answered the sad words
      return;
    }
    this.rounds++;
    const f = feeling(text);
    this.sum += f;
    if (f > 0) this.happy = true;
    if (f < 0) this.sad = true;
    if (!this.secret && sharesSecret(text)) this.secret = true;
  }

  // The server's emotion for a turn (the xiaozhi link): -1, 0 or +1. Outside
  // a conversation it is ignored (it belongs to a turn already ended).
  emotion(sign: number): void {
    if (this.lines > 0 && (sign === 1 || sign === -1)) this.sum += sign;
  }

  // The end of the conversation (Listener.end): its record into the affection
  // store, in RAM; the listener's batch flushes it. A conversation with no line
  // heard leaves nothing.
  end(at: number): ConversationRecord | undefined {
    if (this.lines === 0) return undefined;
    const lines = this.lines, rounds = this.rounds, sum = this.sum, secret = this.secret, comforted = this.comforted, happy = this.happy;
    const sadSeen = this.sad || comforted;
    const seconds = Math.max(0, Math.floor((this.last - this.started) / 1000));
    this.reset();
    const memory = this.memory;
    const valid = isValid();
    const before = memory.affection();
    const rec: ConversationRecord = { rounds, lines, coins: 0, newDay: false, affection: 0, mood: 0, achievements: [] };
    memory.updateAffection((a) => {
      const secs = Math.floor(at / 1000);
      a.totalConversations = Math.min(0xffffffff, a.totalConversations + 1);
      a.totalMessages = Math.min(0xffffffff, a.totalMessages + lines);
      a.totalChatSeconds = Math.min(0xffffffff, a.totalChatSeconds + seconds);
      if (happy) a.happyMoments = Math.min(0xff, a.happyMoments + 1);
      if (sadSeen) a.sadMoments = Math.min(0xff, a.sadMoments + 1);
      if (comforted) a.comfortedTimes = Math.min(0xff, a.comfortedTimes + 1);
      if (secret) a.sharedSecrets = Math.min(0xff, a.sharedSecrets + 1);
      let delta = 0;
      if (valid) {
        // a record begun while the clock was unset met the owner now
        if (!a.firstMeet || a.firstMeet * 1000 < VALID_AFTER_MS || a.totalConversations === 1) a.firstMeet = secs;
        const day = dayNumber(at);
        rollDay(a, day);
        const lastDay = a.lastChat * 1000 >= VALID_AFTER_MS ? dayNumber(a.lastChat * 1000) : undefined;
        // a new local day: the first conversation with the user speaking (a
        // clock set back never makes one)
        if (rounds > 0 && (lastDay === undefined || a.totalDays === 0 || day > lastDay)) {
          rec.newDay = true;
          a.totalDays = Math.min(0xffff, a.totalDays + 1);
          const continues = lastDay !== undefined && day - lastDay === 1 && a.streakDays > 0;
          a.streakDays = continues ? Math.min(0xffff, a.streakDays + 1) : 1;
          if (a.streakDays > a.bestStreak) a.bestStreak = a.streakDays;
          let coins = COINS.daily;
          if (a.streakDays === 7) coins += COINS.streak7;
          if (a.streakDays === 30) coins += COINS.streak30;
          addCoins(a, coins);
          rec.coins += coins;
          delta += AFFECTION.newDay + (continues ? AFFECTION.streak : 0);
          if (lastDay !== undefined && day - lastDay >= ABSENCE_DAYS) delta += AFFECTION.absence;
          a.mood = a.mood < 0 ? -Math.floor(-a.mood / 2) : Math.floor(a.mood / 2); // a night calms the mood halfway
        }
        if (rounds >= COINS.minRounds) {
          const earn = Math.min(rounds >= COINS.longRounds ? COINS.long : COINS.conversation, Math.max(0, COINS.dayCap - a.chatCoins));
          a.chatCoins += earn;
          addCoins(a, earn);
          rec.coins += earn;
        }
        if (rounds > 0) a.lastChat = secs;
      }
      if (rounds >= COINS.minRounds) delta += AFFECTION.conversation;
      if (sum > 0) delta += AFFECTION.happy;
      if (comforted) delta += AFFECTION.comforted;
      if (secret) delta += AFFECTION.secret;
      delta = Math.max(-AFFECTION.maxDown, Math.min(AFFECTION.maxUp, delta));
      moveAffection(a, delta, valid);
      a.mood = Math.max(-10, Math.min(10, a.mood + Math.max(-AFFECTION.moodStep, Math.min(AFFECTION.moodStep, sum))));
      unlock(a, memory, valid ? at : undefined);
    });
    const after = memory.affection();
    rec.affection = after.affection - before.affection;
    rec.mood = after.mood - before.mood;
    rec.achievements = achievementNames(after.achievements & ~before.achievements);
    this.lastRecord = rec;
    return rec;
  }

  // Forgets the conversation under way (nothing recorded).
  reset(): void {
    this.lines = 0;
    this.rounds = 0;
    this.sum = 0;
    this.happy = false;
    this.sad = false;
    this.comforted = false;
    this.secret = false;
  }
}

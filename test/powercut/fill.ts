// Fills every NVS store to capacity with the longest strings its fields take
// (3-byte Chinese characters), for the NVS budget and the full-store tests.
import { Memory } from "../../src/memory/memory";
import { CHAT_TEXT_BYTES, type Event, type PendingItem } from "../../src/memory/types";

const HAN = "记忆宠物主人喜欢篮球画画唱歌跳舞游泳跑步小猫小狗";
function long(bytes: number, seed: number): string {
  let s = "";
  for (let i = 0; (s.length + 1) * 3 <= bytes; i++) s += HAN[(seed + i) % HAN.length];
  return s;
}

export function fillEveryStore(mem: Memory, round = 0): void {
  mem.setProfile("name", long(32, round));
  mem.setProfile("age", 30 + round);
  mem.setProfile("birthday", "03-15");
  mem.setProfile("gender", long(8, round));
  mem.setProfile("location", long(32, round + 1));
  for (const m of mem.family()) mem.removeFamily(m.name || m.relation);
  for (let i = 0; i < 8; i++) {
    mem.addPreference("like", long(30, i + round) + i);
    mem.addPreference("dislike", long(30, i + 9 + round) + i);
    mem.upsertFamily({ relation: long(16, i), name: long(29, i + round) + i, closeness: 1 + (i % 5), sharedMemory: long(64, i + round) });
  }
  for (let i = 0; i < 20; i++) {
    if (mem.facts().length >= 20) mem.removeFact(mem.facts()[0].content);
    mem.addFact(long(124, i + round) + i, 1700000000 + i);
  }
  for (let i = 0; i < 10; i++) {
    mem.addTrait(long(16, i), long(45, i + round) + i);
    mem.addHabit(long(45, i + round) + i, long(16, i));
    if (mem.moments().length >= 10) mem.removeMoment(mem.moments()[0].content);
    mem.addMoment({ topic: long(32, i), content: long(125, i + round) + i, emotion: "touched", intensity: 5, importance: 5, timestamp: 1700000000 + i });
  }
  for (let i = 0; i < 5; i++) {
    if (mem.goals().length >= 5) mem.removeGoal(mem.goals()[0].content);
    mem.addGoal({ content: long(61, i + round) + i, category: "learning", priority: 5 });
  }
  const events: Event[] = [];
  for (let i = 0; i < 16; i++)
    events.push({ date: `2026-03-${10 + i}`, time: "14:30", eventType: long(16, i), content: long(64, i + round), reminded: 0, emotion: "happy", intensity: 3, significance: 3, priority: 4, schedule: true, completed: false, repeat: "weekly", repeatInterval: 1, duration: 60 });
  mem.setEvents(events);
  for (let i = 0; i < 30; i++) mem.appendChat(i % 2 ? "assistant" : "user", long(CHAT_TEXT_BYTES - 2, i + round) + (i % 10));
  // the health record is written only after damage; count it as if some had been found
  mem.stores.health.set([{ magic: 1, type: 2, version: 3, length: 4, crc: 5 + round, incomplete: 6, orphan: 7, migrated: 8, lastStore: "preferences", lastProblem: "crc", lastSeen: 1700000000, unreadable: 9, missing: 10, boots: 11 + round, lost: 12, told: 12 }]);
  mem.addCoinsSpent(250 + round);
  mem.stores.config.set([{ preset: round ? "full" : "minimal", utcOffset: 480 - round }]); // src/config/presets.ts
  // the pending queue: 20 items with 48-byte values (src/listen/pending.ts)
  const pending: PendingItem[] = [];
  for (let i = 0; i < 20; i++) pending.push({ kind: "fact", confidence: 4, count: 1, first: 1770000000 + i + round, when: 0, value: long(48, i + round) });
  mem.stores.pending.set(pending);
}

// Changes one record in every store, so a flush rewrites all of them.
export function touchEveryStore(mem: Memory): void {
  fillEveryStore(mem, 1);
}

// 240 mixed operations on every NVS store with a flush every few operations.
import { Memory } from "../../src/memory/memory";
import type { StoreName } from "../../src/memory/types";
import { SPECS } from "../../src/memory/types";
import { compare, type Verdict, type Workload } from "./harness";
import { rng } from "./rng";

export type StoresModel = Record<string, string[]>;

export function snapshot(mem: Memory): StoresModel {
  const m: StoresModel = {};
  // the health record is diagnostics that a reboot after a cut legitimately updates
  for (const name of Object.keys(SPECS) as StoreName[]) if (name !== "health") m[name] = mem.stores[name].all().map((r) => JSON.stringify(r));
  return m;
}

export function verifyStores(mem: Memory, acked: StoresModel | undefined, inflight: StoresModel | undefined): Verdict {
  const v: Verdict = { ackedLost: 0, torn: 0, duplicates: 0 };
  const now = snapshot(mem);
  for (const name of Object.keys(SPECS)) {
    if (name === "health") continue;
    const a = acked?.[name] ?? [];
    const f = inflight?.[name] ?? a;
    const r = compare(now[name], a, f);
    v.ackedLost += r.ackedLost;
    v.torn += r.torn;
    v.duplicates += r.duplicates;
  }
  return v;
}

const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "跑步", "钢琴", "足球", "恐龙", "宇宙"];

export function mixedOps(mem: Memory, r: () => number, i: number): void {
  const w = WORDS[Math.floor(r() * WORDS.length)] + (i % 7);
  switch (Math.floor(r() * 14)) {
    case 0:
      mem.setProfile("name", "小" + w);
      break;
    case 1:
      mem.setProfile("age", 5 + Math.floor(r() * 60));
      break;
    case 2:
      mem.addPreference(r() < 0.6 ? "like" : "dislike", w);
      break;
    case 3:
      mem.removePreference("like", w);
      break;
    case 4:
      if (mem.family().length < 8 || r() < 0.3) {
        try {
          mem.upsertFamily({ relation: "朋友", name: w, closeness: 1 + Math.floor(r() * 5) });
        } catch {
          mem.removeFamily(mem.family()[0].name || mem.family()[0].relation);
        }
      }
      break;
    case 5:
      if (mem.facts().length >= 19) mem.removeFact(mem.facts()[0].content);
      mem.addFact("主人说" + w + i);
      break;
    case 6:
      mem.addTrait("personality", "性格" + w);
      break;
    case 7:
      mem.addHabit("每天" + w, "daily");
      break;
    case 8:
      if (mem.moments().length >= 9) mem.removeMoment(mem.moments()[0].content);
      mem.addMoment({ topic: w, content: "一起" + w + i, emotion: "happy", intensity: 3, importance: 4 });
      break;
    case 9:
      if (mem.goals().length >= 5) mem.removeGoal(mem.goals()[0].content);
      mem.addGoal({ content: "学会" + w + i, category: "hobby" });
      break;
    case 10:
      mem.appendChat(i % 2 ? "assistant" : "user", "聊天" + w + i);
      break;
    case 11:
      mem.addCoinsSpent(1 + Math.floor(r() * 10));
      break;
    case 12:
      mem.setProfile("location", "北京" + w);
      break;
    default:
      if (mem.facts().length) mem.removeFact(mem.facts()[Math.floor(r() * mem.facts().length)].content);
  }
}

export const nvsWorkload: Workload<StoresModel> = {
  name: "nvs-stores",
  start: Date.UTC(2026, 1, 5, 5, 0),
  script(dev, ack, inflight) {
    const mem = new Memory();
    const r = rng(2026);
    for (let i = 0; i < 240; i++) {
      mixedOps(mem, r, i);
      dev.clock.advance(60000);
      if (i % 6 === 5 || i === 239) {
        inflight(snapshot(mem));
        mem.flush();
        ack(snapshot(mem));
      }
    }
  },
  verify(_dev, acked, inflight) {
    return verifyStores(new Memory(), acked, inflight);
  },
};

// The AI using the memory tool for four simulated hours: every type written,
// updated and deleted (profile fields, likes and dislikes moving between the
// two lists, family members, facts rolling into the archive, traits and
// habits rolling out, moments, goals, schedules written and completed), with
// conversation lines in between (the chat log, flushed after the quiet
// period) and time passing (the reminder timer). Every NVS store is written.
import { rng } from "./rng";
import type { Workload } from "./harness";
import type { Ai } from "./device";
import { formatDateTime } from "../../src/time/local";

const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "跑步", "钢琴", "足球", "恐龙", "宇宙"];
const START = Date.UTC(2026, 1, 5, 1, 0); // 09:00 +08:00

function live(ai: Ai, kind: "like" | "dislike" | "family" | "fact" | "trait" | "habit" | "moment" | "goal" | "schedule"): string[] {
  const out: string[] = [];
  for (const e of ai.ledger.all()) if (e.kind === kind && e.acked !== undefined && e.acked !== null && e.background === undefined) out.push(e.key);
  return out;
}

export const toolWorkload: Workload = {
  name: "tool",
  start: START,
  run(ai) {
    const r = rng(2026);
    const pick = <T>(l: T[]): T => l[Math.floor(r() * l.length)];
    for (let i = 0; i < 150; i++) {
      const w = pick(WORDS);
      switch (Math.floor(r() * 16)) {
        case 0:
          ai.call({ action: "write", type: "name", content: "小" + w });
          break;
        case 1:
          ai.call({ action: "write", type: "age", content: String(5 + Math.floor(r() * 60)) });
          break;
        case 2:
          ai.call({ action: "write", type: r() < 0.6 ? "like" : "dislike", content: w + (i % 5) });
          break;
        case 3: {
          const l = live(ai, "like");
          if (l.length) ai.call({ action: "delete", type: "like", content: pick(l) });
          break;
        }
        case 4: {
          const fam = live(ai, "family");
          if (fam.length >= 8) ai.call({ action: "delete", type: "family", content: fam[0] });
          ai.call({ action: "write", type: "family", relation: "朋友", name: w + (i % 6), closeness: 1 + Math.floor(r() * 5), memory: "一起" + w });
          break;
        }
        case 5:
        case 6:
          ai.call({ action: "write", type: "fact", content: `主人说${w}很有意思〔${i}〕` });
          break;
        case 7:
          ai.call({ action: "write", type: "trait", category: "personality", content: `性格${w}${i}` });
          break;
        case 8:
          ai.call({ action: "write", type: "habit", content: `每天${w}${i}`, frequency: "daily" });
          break;
        case 9:
          ai.call({ action: "write", type: "moment", topic: w, content: `一起${w}〔${i}〕`, emotion: "happy", intensity: 3, importance: 4 });
          break;
        case 10: {
          const g = live(ai, "goal");
          if (g.length >= 5) ai.call({ action: "delete", type: "goal", content: g[0] });
          ai.call({ action: "write", type: "goal", content: `学会${w}${i}`, category: "hobby", priority: 3 });
          break;
        }
        case 11: {
          const f = live(ai, "fact");
          if (f.length) ai.call({ action: "delete", type: "fact", content: pick(f) });
          break;
        }
        case 12:
          ai.call({ action: "write", type: r() < 0.5 ? "gender" : "location", content: r() < 0.5 ? "男" : "北京" + (i % 3) });
          break;
        case 13: {
          // a one-off schedule in the next days, on its own hour
          const at = formatDateTime(START + (24 + i) * 3600000);
          ai.call({ action: "write", type: "schedule", content: `活动${w}〔${i}〕`, datetime: at, priority: 3, duration: 30, force: true });
          break;
        }
        case 14: {
          const t = live(ai, r() < 0.5 ? "trait" : "habit");
          if (t.length) ai.call({ action: "delete", type: t[0].indexOf("每天") === 0 ? "habit" : "trait", content: t[0] });
          break;
        }
        default: {
          const s = live(ai, "schedule");
          if (s.length && r() < 0.5) {
            const k = pick(s);
            ai.complete(k, ai.ledger.get("schedule", k)!.acked as string);
          } else {
            ai.hear("user", `今天我玩了${w}`);
            ai.hear("assistant", `听起来很开心`);
          }
        }
      }
      ai.advanceTo(ai.dev.clock.now + 45000); // the quiet-period flush fires between some calls
    }
  },
  after(ai) {
    for (let i = 0; i < 6; i++) ai.call({ action: "write", type: "fact", content: `重启之后主人说的第${i}件事` });
    ai.call({ action: "write", type: "like", content: "重启之后的草莓" });
    ai.call({ action: "write", type: "habit", content: "重启之后散步", frequency: "daily" });
  },
};

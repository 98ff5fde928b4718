// The AI keeping episodes for an afternoon: writes of distinct episodes (each
// about one thing, so that none is taken for another), recalls and context
// calls whose hits are written back (use counts), deletes, and time passing
// (the idle upkeep steps of the episode files run between calls). Every
// episode file is written: both copies of headers and texts, the batch file,
// the tombstones.
import { rng } from "./rng";
import type { Workload } from "./harness";
import type { Ai } from "./device";

const START = Date.UTC(2026, 1, 5, 6, 0); // 14:00 +08:00
// one thing each: few characters shared between any two
const THINGS = [
  "去动物园看了长颈鹿", "学会骑自行车了", "钢琴考级通过", "和爸爸钓到一条大鱼", "奶奶做了红烧肉", "数学测验得了满分",
  "第一次坐飞机去海南", "小猫豆豆生病看兽医", "在雪地里堆雪人", "参加学校运动会跑步", "搬到新家有自己的房间", "养的蚕宝宝结茧",
  "和表哥下象棋赢了", "画的恐龙贴在教室墙上", "牙齿掉了一颗", "夏令营露营看星星", "做手工风筝飞得很高", "给妈妈过生日唱歌",
  "游泳池学会换气", "图书馆借了科幻小说", "台风天停电点蜡烛", "老师表扬作文写得好", "种的向日葵开花", "和好朋友吵架又和好",
];

function live(ai: Ai): string[] {
  const out: string[] = [];
  for (const e of ai.ledger.all()) if (e.kind === "episode" && typeof e.acked === "string") out.push(e.key);
  return out;
}

export const episodeWorkload: Workload = {
  name: "episode",
  start: START,
  run(ai) {
    const r = rng(16);
    let next = 0;
    for (let i = 0; i < 40; i++) {
      const k = Math.floor(r() * 10);
      if (k < 5 && next < THINGS.length) {
        ai.call({ action: "write", type: "episode", content: THINGS[next++], e: 0.6, i: 0.7, p: r() < 0.3 ? 1 : 0.5, j: 0.8, emotion: "happy" });
      } else if (k < 7) {
        const l = live(ai);
        if (l.length) ai.call({ action: "recall", type: "episode", message: l[Math.floor(r() * l.length)] });
      } else if (k < 8) {
        const l = live(ai);
        if (l.length) ai.call({ action: "context", message: "你还记得" + l[Math.floor(r() * l.length)] + "吗" });
      } else if (k < 9) {
        const l = live(ai);
        if (l.length > 3) ai.call({ action: "delete", type: "episode", content: l[0] });
      } else ai.call({ action: "query", from: "episode", where: "p >= 0.5", order_by: "created_at desc", limit: 5 });
      ai.advanceTo(ai.dev.clock.now + 70000); // idle: the upkeep steps run
    }
  },
  after(ai) {
    for (let i = 0; i < 2 && i < THINGS.length; i++) ai.call({ action: "write", type: "episode", content: "重启之后" + THINGS[THINGS.length - 1 - i], e: 0.5, i: 0.6, p: 0.5, j: 0.7 });
  },
};

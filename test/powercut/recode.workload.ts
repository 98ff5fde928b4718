// A device updated from archive format 2 (UTF-8 lines, before compact text):
// its storage partition holds format-2 segments (built once with
// setWriteFormat(2) and loaded as files, without writes). After the update,
// idle steps write every sealed format-2 segment again as format 3
// (src/archive/scrub.ts, docs/design/recode.md): its bytes and its sidecar
// 4 KB a step into `.scr`/`.scx`, then the swap; then the seal and the
// group's parity again. Meanwhile the AI keeps using the device: facts and
// moments rolling out of NVS into the open (format-2) segments, a record
// forgotten in a segment not recoded yet and one in a recoded one, recall
// through the tool. Every prefilled record is the ledger's background: none
// may be lost or appear twice, whichever write a fault hits.
import { fromLocal } from "../../src/time/local";
import type { SimDevice } from "../../host-sim/device";
import { appendEach, formatTwo, loadImage, updateDays, updateAfter, type Image } from "./old-format";
import type { Workload } from "./harness";
import type { Kind } from "./ledger";

const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "钢琴", "恐龙", "宇宙", "北京", "生日"];
const T0 = Math.floor(fromLocal(2024, 1, 1, 9, 0) / 1000);
const PRE_FACTS = 700; // about 85 KB: a sealed fact segment and an open one
const PRE_MOMENTS = 500; // about 110 KB: two sealed moment segments and an open one

type Pre = { kind: Kind; key: string; value: string; ts: number; topic?: string };
const preFact = (k: number): Pre => {
  const content = `旧格式的第${k}件事：主人说今天在学校和同学一起${WORDS[k % WORDS.length]}，很开心`;
  return { kind: "fact", key: content, value: content, ts: T0 + k * 43200 };
};
const preMoment = (k: number): Pre => {
  const topic = WORDS[(k * 5) % WORDS.length];
  const content = `旧格式的第${k}个时刻：我们一边走一边聊天，说到了${WORDS[(k + 3) % WORDS.length]}，回家的路上还唱了歌`;
  return { kind: "moment", key: content, value: `${topic}|${content}`, ts: T0 + k * 86400 + 3600, topic };
};

let template: { files: Image[]; records: Pre[] } | undefined;
function prefill(dev: SimDevice): Pre[] {
  if (!template) {
    const t = formatTwo(
      { now: fromLocal(2026, 2, 28, 12, 0) },
      (a) => {
        const records: Pre[] = [];
        appendEach(a, "fact", PRE_FACTS, 10, preFact, (p) => ({ timestamp: p.ts, content: p.key }), records);
        appendEach(a, "moment", PRE_MOMENTS, 10, preMoment, (p) => ({ timestamp: p.ts, topic: p.topic!, content: p.key, emotion: "happy" as const, intensity: 3, importance: 3 }), records);
        a.settle(); // sealed and protected, as a format-2 device left them
        return records;
      },
      dev,
    );
    template = { files: t.files, records: t.out };
  }
  loadImage(dev, template.files);
  return template.records;
}

export const recodeWorkload: Workload = {
  name: "recode",
  start: fromLocal(2026, 3, 2, 9, 0),
  prefill,
  run(ai) {
    // a few steps: the recode starts; about 240 steps by the moment recall (the second moment segment)
    updateDays(ai, WORDS, { oldFact: preFact(33).key, first: "更新以后的第一件事", stepsMs: 3000, busy: "更新那天的第", keyword: "恐龙", mid: { at: 60000, keyword: "唱歌" }, oldMoment: preMoment(120).key, days: 3, morning: "更新后第", month: ["2024-03-01", "2024-03-31"] });
  },
  after(ai) {
    updateAfter(ai, preFact(400).key);
  },
};

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
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import { setWriteFormat, VERSION } from "../../src/archive/codec";
import { fromLocal } from "../../src/time/local";
import { SimDevice } from "../../host-sim/device";
import type { Workload } from "./harness";
import { forget } from "./archive.workload";
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

let template: { files: { name: string; bytes: Uint8Array }[]; records: Pre[] } | undefined;
function prefill(dev: SimDevice): Pre[] {
  if (!template) {
    const other = new SimDevice({ now: fromLocal(2026, 2, 28, 12, 0) }).install();
    setWriteFormat(2);
    try {
      const a = new Archive(config.file.root);
      a.check();
      const records: Pre[] = [];
      for (let i = 0; i < PRE_FACTS; i += 10) {
        const batch = [];
        for (let k = i; k < i + 10; k++) {
          const p = preFact(k);
          batch.push({ timestamp: p.ts, content: p.key });
          records.push(p);
        }
        a.append("fact", batch);
      }
      for (let i = 0; i < PRE_MOMENTS; i += 10) {
        const batch = [];
        for (let k = i; k < i + 10; k++) {
          const p = preMoment(k);
          batch.push({ timestamp: p.ts, topic: p.topic!, content: p.key, emotion: "happy" as const, intensity: 3, importance: 3 });
          records.push(p);
        }
        a.append("moment", batch);
      }
      a.settle(); // sealed and protected, as a format-2 device left them
      template = { files: other.spiffs.list().map((e) => ({ name: e.name, bytes: other.spiffs.content(e.name) })), records };
    } finally {
      setWriteFormat(VERSION as 4);
      dev.install();
    }
  }
  for (const f of template.files) dev.spiffs.load(f.name, f.bytes.slice());
  return template.records;
}

export const recodeWorkload: Workload = {
  name: "recode",
  start: fromLocal(2026, 3, 2, 9, 0),
  prefill,
  run(ai) {
    const start = ai.dev.clock.now;
    // before the first step: a fact forgotten in the sealed format-2 segment
    forget(ai, "fact", preFact(33).key);
    ai.call({ action: "write", type: "fact", content: "更新以后的第一件事" });
    ai.advanceTo(start + 3000); // a few steps: the recode starts
    for (let k = 0; k < 21; k++) ai.call({ action: "write", type: "fact", content: `更新那天的第${k}件事：${WORDS[k % WORDS.length]}` });
    ai.call({ action: "recall", type: "fact", keyword: "恐龙", limit: 5 });
    ai.advanceTo(start + 60000); // about 240 steps: the recode goes on, the second moment segment
    ai.call({ action: "recall", type: "moment", keyword: "唱歌", limit: 5 });
    ai.advanceTo(start + 3600000); // the recode is over
    forget(ai, "moment", preMoment(120).key);
    for (let day = 1; day < 3; day++) {
      ai.advanceTo(fromLocal(2026, 3, 2 + day, 9, 0));
      ai.call({ action: "write", type: "moment", topic: WORDS[day], content: `更新后第${day}天的时刻`, emotion: "happy", intensity: 3, importance: 3 });
      ai.call({ action: "recall", type: "moment", start_date: "2024-03-01", end_date: "2024-03-31", limit: 5 });
    }
  },
  after(ai) {
    for (let i = 0; i < 4; i++) ai.call({ action: "write", type: "fact", content: `断电之后的第${i}条` });
    forget(ai, "fact", preFact(400).key);
    ai.advanceTo(ai.dev.clock.now + 86400000);
  },
};

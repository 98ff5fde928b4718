// Six weeks of a pet's memory moving into the deep archive, which starts with
// a year of old facts (loaded as files, without writes) and has a small
// budget: facts and moments written by the AI rolling out of full NVS stores,
// the early-morning maintenance (facts and moments older than 30 days, on
// Sundays past events), compactions that drop the oldest archived blocks, and
// recall and search through the tool. The prefilled facts are the ledger's
// background: the device may let them go oldest first, nothing else.
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import { fromLocal, formatDateTime } from "../../src/time/local";
import { SimDevice } from "../../host-sim/device";
import type { Workload } from "./harness";
import type { Kind } from "./ledger";

const BUDGET = 18 * 1024;
const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "钢琴", "恐龙", "宇宙", "北京", "生日"];

// The archive the workload starts from, built once on a device of its own.
let template: { files: { name: string; bytes: Uint8Array }[]; records: { kind: Kind; key: string; value: string; ts: number }[] } | undefined;
function prefill(dev: SimDevice) {
  if (!template) {
    const other = new SimDevice({ now: Date.UTC(2026, 0, 1) }).install();
    try {
      const a = new Archive(config.file.root);
      const t0 = Math.floor(Date.UTC(2025, 0, 1) / 1000);
      const records: { kind: Kind; key: string; value: string; ts: number }[] = [];
      for (let i = 0; i < 120; i += 5) {
        const batch = [];
        for (let k = i; k < i + 5; k++) {
          const content = `去年的第${k}件事：主人和朋友一起去了${WORDS[k % WORDS.length]}馆`;
          batch.push({ timestamp: t0 + k * 3 * 86400, content });
          records.push({ kind: "fact", key: content, value: content, ts: t0 + k * 3 * 86400 });
        }
        a.append("fact", batch);
      }
      template = { files: other.spiffs.list().map((e) => ({ name: e.name, bytes: other.spiffs.content(e.name) })), records };
    } finally {
      dev.install();
    }
  }
  for (const f of template.files) dev.spiffs.load(f.name, f.bytes.slice());
  return template.records;
}

export const archiveWorkload: Workload = {
  name: "archive",
  start: fromLocal(2026, 3, 2, 9, 0), // a Monday
  boot: { budget: BUDGET },
  prefill,
  run(ai) {
    let n = 0;
    for (let day = 0; day < 45; day++) {
      const d0 = fromLocal(2026, 3, 2 + day, 0, 0);
      ai.advanceTo(d0 + 9 * 3600000); // the night's maintenance ran at 03:30
      const w = WORDS[day % WORDS.length];
      // a fact every other day stays in NVS for 30 days (the daily move takes
      // it); a busy day fills the store (the oldest five roll out)
      if (day % 2 === 0) ai.call({ action: "write", type: "fact", content: `第${n++}件事：主人说${w}很有意思` });
      if (day === 12) for (let k = 0; k < 12; k++) ai.call({ action: "write", type: "fact", content: `第${n++}件事：主人又说${WORDS[(day + k) % WORDS.length]}` });
      if (day % 4 === 0) ai.call({ action: "write", type: "moment", topic: w, content: `第${day}天的时刻`, emotion: "happy", intensity: 3, importance: 4 });
      if (day % 5 === 2) {
        // an event today, completed tomorrow: Sunday's move archives it
        const at = formatDateTime(d0 + 15 * 3600000);
        ai.call({ action: "write", type: "schedule", content: `第${day}天的活动`, datetime: at, priority: 2, duration: 30, force: true });
      }
      if (day % 5 === 3) ai.complete(`第${day - 1}天的活动`, "open@" + formatDateTime(d0 - 86400000 + 15 * 3600000));
      if (day % 6 === 5) ai.call({ action: "recall", type: "fact", keyword: WORDS[(day * 5) % WORDS.length], limit: 5 });
    }
  },
  after(ai) {
    for (let i = 0; i < 6; i++) ai.call({ action: "write", type: "fact", content: `断电之后的第${i}条` });
    for (let i = 0; i < 4; i++) ai.call({ action: "write", type: "moment", topic: "重启", content: `断电之后的时刻${i}`, emotion: "happy", intensity: 2, importance: 3 });
    ai.advanceTo(ai.dev.clock.now + 86400000); // one more night: maintenance
  },
};

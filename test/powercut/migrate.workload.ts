// A device updated from archive format 1: its storage partition holds a
// version-1 archive (facts.jsonl and moments.jsonl, docs/FORMAT.md §3.10,
// loaded as files, without writes). The first boot finds it; idle steps
// migrate it a few KB at a time into format-2 segments and delete the old
// files at the end, while the AI keeps using the device: facts rolling out of
// NVS into the new live segments in the middle of the migration, an old
// record forgotten before it is migrated, another after, recall through the
// tool. Every version-1 record is the ledger's background: none may be lost,
// none may appear twice (src/archive/migrate.ts).
import { recordId } from "../../src/archive/line";
import { formatIso, fromLocal } from "../../src/time/local";
import { encode } from "../../src/text/utf8";
import type { SimDevice } from "../../host-sim/device";
import type { Workload } from "./harness";
import type { Ai } from "./device";
import { forget } from "./archive.workload";
import type { Kind } from "./ledger";

const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "钢琴", "恐龙", "宇宙", "北京", "生日"];
const T0 = Math.floor(fromLocal(2024, 3, 1, 8, 0) / 1000);
const V1_FACTS = 300; // about 37 KB: a few steps of 4 KB and a sealed segment
const V1_MOMENTS = 120;

type Pre = { kind: Kind; key: string; value: string; ts: number; topic?: string };
const v1Fact = (k: number): Pre => {
  const content = `旧档案第${k}条：主人小时候喜欢${WORDS[k % WORDS.length]}`;
  return { kind: "fact", key: content, value: content, ts: T0 + k * 86400 };
};
const v1Moment = (k: number): Pre => {
  const topic = WORDS[(k * 5) % WORDS.length];
  const content = `旧档案的第${k}个时刻：一起${WORDS[(k + 3) % WORDS.length]}`;
  return { kind: "moment", key: content, value: `${topic}|${content}`, ts: T0 + k * 3 * 86400 + 3600, topic };
};

let files: { name: string; bytes: Uint8Array }[] | undefined;
function prefill(dev: SimDevice): Pre[] {
  const records: Pre[] = [];
  let facts = "", moments = "";
  for (let k = 0; k < V1_FACTS; k++) {
    const p = v1Fact(k);
    records.push(p);
    facts += JSON.stringify({ timestamp: formatIso(p.ts * 1000), type: "fact", id: recordId("fact", { timestamp: p.ts, content: p.key }), content: p.key }) + "\n";
  }
  for (let k = 0; k < V1_MOMENTS; k++) {
    const p = v1Moment(k);
    records.push(p);
    const id = recordId("moment", { timestamp: p.ts, topic: p.topic!, content: p.key, emotion: "happy", intensity: 3, importance: 4 });
    moments += JSON.stringify({ timestamp: formatIso(p.ts * 1000), type: "moment", id, topic: p.topic, content: p.key, emotion_type: 1, emotion_intensity: 3, importance: 4 }) + "\n";
  }
  files ??= [
    { name: "/facts.jsonl", bytes: encode(facts) },
    { name: "/moments.jsonl", bytes: encode(moments) },
  ];
  for (const f of files) dev.spiffs.load(f.name, f.bytes.slice());
  return records;
}

export const migrateWorkload: Workload = {
  name: "migrate",
  start: fromLocal(2026, 3, 2, 9, 0),
  prefill,
  run(ai: Ai) {
    const start = ai.dev.clock.now;
    // before the first step: an old fact forgotten while it is still in the version-1 file
    forget(ai, "fact", v1Fact(17).key);
    ai.call({ action: "write", type: "fact", content: "升级以后的第一件事" });
    ai.advanceTo(start + 1000); // four steps of migration
    // a busy minute: the fact store fills, its oldest roll into the live segments mid-migration
    for (let k = 0; k < 21; k++) ai.call({ action: "write", type: "fact", content: `升级那天的第${k}件事：${WORDS[k % WORDS.length]}` });
    ai.call({ action: "recall", type: "fact", keyword: "小猫", limit: 5 });
    ai.advanceTo(start + 3600000); // the migration is over
    forget(ai, "moment", v1Moment(60).key);
    for (let day = 1; day < 4; day++) {
      ai.advanceTo(fromLocal(2026, 3, 2 + day, 9, 0));
      ai.call({ action: "write", type: "moment", topic: WORDS[day], content: `升级后第${day}天的时刻`, emotion: "happy", intensity: 3, importance: 3 });
      ai.call({ action: "recall", type: "moment", start_date: "2024-06-01", end_date: "2024-06-30", limit: 5 });
    }
  },
  after(ai) {
    for (let i = 0; i < 4; i++) ai.call({ action: "write", type: "fact", content: `断电之后的第${i}条` });
    forget(ai, "fact", v1Fact(250).key);
    ai.advanceTo(ai.dev.clock.now + 86400000);
  },
};

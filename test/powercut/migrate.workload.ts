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
import { updateDays, updateAfter } from "./old-format";
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
    // four steps of migration; the busy minute rolls facts into the live segments mid-migration
    updateDays(ai, WORDS, { oldFact: v1Fact(17).key, first: "升级以后的第一件事", stepsMs: 1000, busy: "升级那天的第", keyword: "小猫", oldMoment: v1Moment(60).key, days: 4, morning: "升级后第", month: ["2024-06-01", "2024-06-30"] });
  },
  after(ai) {
    updateAfter(ai, v1Fact(250).key);
  },
};

// Six weeks of a pet's memory moving into the deep archive (format 2) on a
// small storage partition, so that every archive path runs inside the sweep:
//
// - append: facts and moments rolling out of full NVS stores (the overflow
//   hook), the early-morning moves (facts and moments older than 30 days, on
//   Sundays past events), each durable in the open segment and its twin;
// - upkeep steps (the maintenance timer's Archive.step between ticks): a full
//   moment segment sealed into the catalog, its twin dropped; a twin rebuilt
//   after a failed write; and, as the partition crosses the retire line, the
//   oldest moment segment folded into its monthly digests and retired;
// - forget: archived facts and moments hidden by the MCP `delete`
//   (tombstones in two copies), their bytes then rewritten away by steps;
// - recovery: every reboot of the sweep boots through Archive.check (a twin
//   put in place of an unreadable open segment, a retire finished);
// - recall and search through the tool.
//
// The archive starts with 14 months of old facts and moments (loaded as files,
// without writes; moment segments sealed, catalogued): the ledger's
// background. Facts never leave; moments may leave only oldest first and only
// into a digest that recall of their month returns (test/powercut/oracle.ts).
import { fromLocal, formatDateTime } from "../../src/time/local";
import type { SimDevice } from "../../host-sim/device";
import { appendEach, formatTwo, loadImage, type Image } from "./old-format";
import type { Workload } from "./harness";
import type { Ai } from "./device";
import type { Kind } from "./ledger";

// The storage partition: the prefilled archive sits just under the retire
// line (Archive RETIRE_AT, 68%); the run's moves cross it within the first
// weeks, and a step retires the oldest moment segment. The prefill is a
// device from before compact text (format-2 lines; the run appends format 3
// after them, in the same open segments). (476 KB before the
// segments' parity, FORMAT.md §3.15: the prefilled pair of moment segments
// and the facts' group take 64 KB more.)
export const STORAGE_BYTES = 540 * 1024;
const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "钢琴", "恐龙", "宇宙", "北京", "生日"];
const FILL = "我们一边走一边聊天，看见了很多有趣的东西，回家的路上还唱了歌";
const T0 = Math.floor(fromLocal(2025, 1, 1, 10, 0) / 1000); // the prefilled archive's first record
const PRE_FACTS = 120; // one every 3 days of 2025
const PRE_MOMENTS = 1144; // 14 months of moments, about 2.5 a day: three sealed segments and most of a fourth
const MOMENT_STEP = Math.floor((424 * 86400) / PRE_MOMENTS);

type Pre = { kind: Kind; key: string; value: string; ts: number; topic?: string };
const preFact = (k: number): Pre => {
  const content = `去年的第${k}件事：主人和朋友一起去了${WORDS[k % WORDS.length]}馆`;
  return { kind: "fact", key: content, value: content, ts: T0 + k * 3 * 86400 };
};
const preMoment = (k: number): Pre => {
  const topic = WORDS[(k * 7) % WORDS.length];
  const content = `以前的第${k}个时刻：${FILL}`;
  return { kind: "moment", key: content, value: `${topic}|${content}`, ts: T0 + k * MOMENT_STEP, topic };
};

// The archive the workload starts from, built once on a device of its own
// (a large partition: nothing retires while it is built).
let template: { files: Image[]; records: Pre[] } | undefined;
function prefill(dev: SimDevice): Pre[] {
  if (!template) {
    const t = formatTwo(
      { now: fromLocal(2026, 2, 28, 12, 0) },
      (a) => {
        const records: Pre[] = [];
        appendEach(a, "fact", PRE_FACTS, 10, preFact, (p) => ({ timestamp: p.ts, content: p.key }), records);
        appendEach(a, "moment", PRE_MOMENTS, 8, preMoment, (p) => ({ timestamp: p.ts, topic: p.topic!, content: p.key, emotion: "happy" as const, intensity: 3, importance: 3 }), records);
        a.settle(); // seal the full segments, drop their twins
        return records;
      },
      dev,
    );
    template = { files: t.files, records: t.out };
  }
  loadImage(dev, template.files);
  return template.records;
}

// Forgets a record: the tool's `delete` finds it in NVS and in the archive
// (issue 12 item 7: a tombstone hides the archived copy at once).
export function forget(ai: Ai, type: "fact" | "moment", content: string): void {
  ai.call({ action: "delete", type, content });
}

export const archiveWorkload: Workload = {
  name: "archive",
  start: fromLocal(2026, 3, 2, 9, 0), // a Monday
  device: { storageBytes: STORAGE_BYTES },
  prefill,
  run(ai) {
    let n = 0;
    for (let day = 0; day < 45; day++) {
      const d0 = fromLocal(2026, 3, 2 + day, 0, 0);
      ai.advanceTo(d0 + 9 * 3600000); // the night's maintenance ran at 03:30; upkeep steps since
      const w = WORDS[day % WORDS.length];
      // a fact every other day stays in NVS for 30 days (the daily move takes
      // it); a busy day fills the store (the oldest five roll out)
      if (day % 2 === 0) ai.call({ action: "write", type: "fact", content: `第${n++}件事：主人说${w}很有意思` });
      if (day === 12) for (let k = 0; k < 16; k++) ai.call({ action: "write", type: "fact", content: `第${n++}件事：主人又说${WORDS[(day + k) % WORDS.length]}` });
      // three moments a day (two in format 2: the same bytes): the store of 10 rolls its oldest 3 into the archive
      for (let k = 0; k < 3; k++) {
        ai.advanceTo(d0 + (10 + 4 * k) * 3600000);
        ai.call({ action: "write", type: "moment", topic: w, content: `第${day}天的第${k}个时刻：${FILL}`, emotion: "happy", intensity: 3, importance: 2 + k });
      }
      if (day % 5 === 2) {
        // an event today, completed tomorrow: Sunday's move archives it
        const at = formatDateTime(d0 + 15 * 3600000);
        ai.call({ action: "write", type: "schedule", content: `第${day}天的活动`, datetime: at, priority: 2, duration: 30, force: true });
      }
      if (day % 5 === 3) ai.complete(`第${day - 1}天的活动`, "open@" + formatDateTime(d0 - 86400000 + 15 * 3600000));
      if (day % 6 === 5) ai.call({ action: "recall", type: "fact", keyword: WORDS[(day * 5) % WORDS.length], limit: 5 });
      if (day % 9 === 7) ai.call({ action: "recall", type: "moment", start_date: "2025-03-01", end_date: "2025-03-31", limit: 5 });
      // forget: old archived facts and moments (one of them among the first to retire), a fact the run archived
      if (day === 3) forget(ai, "fact", preFact(40).key);
      if (day === 5) forget(ai, "moment", preMoment(3).key);
      if (day === 18) forget(ai, "moment", preMoment(400).key);
      if (day === 25) {
        // the first fact of the run rolled out of NVS in day 12's burst
        const e = ai.ledger.get("fact", `第0件事：主人说${WORDS[0]}很有意思`);
        if (e && e.acked !== null) forget(ai, "fact", e.key);
      }
      if (day === 33) forget(ai, "fact", preFact(119).key);
    }
  },
  after(ai) {
    for (let i = 0; i < 6; i++) ai.call({ action: "write", type: "fact", content: `断电之后的第${i}条` });
    for (let i = 0; i < 4; i++) ai.call({ action: "write", type: "moment", topic: "重启", content: `断电之后的时刻${i}：${FILL}`, emotion: "happy", intensity: 2, importance: 3 });
    forget(ai, "fact", preFact(7).key);
    ai.advanceTo(ai.dev.clock.now + 86400000); // one more night: maintenance, upkeep steps
  },
};

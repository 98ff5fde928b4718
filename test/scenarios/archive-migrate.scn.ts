// Migration of a version-1 archive (issue 12 §2): every record of the old
// facts/moments/events files reaches format 2, the old files go only at the
// end, and a power cut at any write of the migration loses nothing and
// duplicates nothing (absolute oracle: the exact set of records, by content).
import { File } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { recordId } from "../../src/archive/line";
import { formatIso, fromLocal } from "../../src/time/local";
import { encode } from "../../src/text/utf8";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = Date.UTC(2026, 1, 5, 5, 0);

// Writes a version-1 facts file (format 1 lines, FORMAT.md §3.10) and a moments file.
export function writeV1(facts: number): { facts: string[]; moments: string[] } {
  const t0 = Math.floor(fromLocal(2024, 1, 1, 8, 0) / 1000);
  let text = "";
  const out: string[] = [];
  for (let k = 0; k < facts; k++) {
    const ts = t0 + k * 3600;
    const content = `第${k}条：旧档案里的事情${k % 13 === 0 ? "萤火虫" : ""}`;
    const id = recordId("fact", { timestamp: ts, content });
    text += JSON.stringify({ timestamp: formatIso(ts * 1000), type: "fact", id, content }) + "\n";
    out.push(content);
  }
  text += '{"timestamp":"2024-0'; // a torn last line: never a record
  let f = new File(root + "facts.jsonl", true);
  f.write(encode(text).buffer as ArrayBuffer);
  f.close();
  f = new File(root + "facts.idx", true); // a stale index: deleted with the rest
  f.write("PMAX");
  f.close();
  const m = { timestamp: t0, topic: "生日", content: "一起吃蛋糕", emotion: "happy", intensity: 4, importance: 5 } as const;
  const mid = recordId("moment", m as any);
  f = new File(root + "moments.jsonl", true);
  f.write(
    encode(
      JSON.stringify({ timestamp: formatIso(t0 * 1000), type: "moment", id: mid, topic: m.topic, content: m.content, emotion_type: 1, emotion_intensity: 4, importance: 5 }) + "\n",
    ).buffer as ArrayBuffer,
  );
  f.close();
  return { facts: out, moments: [m.content] };
}

function contents(a: Archive, type: "fact" | "moment"): string[] {
  const out: string[] = [];
  a.forEach(type, (it) => out.push(it.content));
  return out.sort();
}

export const scenarios: Scenario[] = [
  {
    name: "archive v2: a version-1 archive is migrated in steps, every record kept, the old files gone at the end",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const v1 = writeV1(300);
      const a = new Archive(root);
      const r = a.check();
      ok(r.migrating, "the check reports the migration");
      a.append("fact", [{ timestamp: Math.floor(T0 / 1000), content: "升级后的新事实" }]);
      equal(a.recallByKeyword("fact", "萤火虫", 100).length, Math.ceil(300 / 13), "recall finds what is not migrated yet");
      for (let i = 0; i < 5; i++) a.step();
      equal(a.recallByKeyword("fact", "萤火虫", 100).length, Math.ceil(300 / 13), "and in the middle of the migration, once each");
      equal(a.recallByTimeRange("fact", "2024-01-02", "2024-01-02", 100).length, 24, "a day by time range in the middle of the migration");
      let steps = 0;
      while (a.step() && steps < 2000) steps++;
      ok(steps < 2000, "the migration ends");
      deepEqual(contents(a, "fact"), v1.facts.concat(["升级后的新事实"]).sort(), "every fact, once");
      deepEqual(contents(a, "moment"), v1.moments, "the moment");
      equal(a.recallRecent("fact", 1)[0].content, "升级后的新事实", "what was archived after the upgrade is the most recent");
      equal(a.recallByKeyword("fact", "萤火虫", 100).length, Math.ceil(300 / 13), "keyword recall over migrated segments");
      for (const e of dev.spiffs.list()) ok(!/^\/(facts|moments|events)\./.test(e.name) && !/v1mig/.test(e.name), `${e.name} is gone`);
      const b = new Archive(root);
      ok(!b.check().migrating, "no migration after it ended");
      deepEqual(contents(b, "fact"), v1.facts.concat(["升级后的新事实"]).sort(), "after a reboot too");
    },
  },
  {
    name: "archive v2: an empty or damaged format-1 .done beside its file never stands in for it (format 1 installed it unchecked)",
    run() {
      new SimDevice({ now: T0 }).install();
      const v1 = writeV1(200);
      const f = new File(root + "facts.done", true); // a compaction's commit file, empty (damaged)
      f.close();
      const a = new Archive(root);
      a.check();
      while (a.step());
      const got = contents(a, "fact");
      deepEqual(Array.from(new Set(got)).sort(), v1.facts.slice().sort(), "every fact of the file is kept");
      ok(!File.exists(root + "facts.done") && !File.exists(root + "facts.jsonl"), "both format-1 files gone at the end");
    },
  },
  {
    name: "archive v2: a power cut at any write of the migration loses and duplicates nothing",
    run() {
      const base = new SimDevice({ now: T0 }).install();
      const v1 = writeV1(120);
      const image = base.spiffs.list().map((e) => ({ name: e.name, bytes: base.spiffs.content(e.name) }));
      let cuts = 0;
      for (let n = 1; n < 400; n += 3) {
        const dev = new SimDevice({ now: T0 }).install();
        for (const f of image) dev.spiffs.load(f.name, f.bytes.slice());
        let a = new Archive(root);
        a.check();
        dev.inject("power_cut", { at: n, seed: n });
        const cut = SimDevice.survive(() => {
          while (a.step());
        });
        if (!cut) break;
        cuts++;
        dev.reboot();
        a = new Archive(root);
        a.check();
        let steps = 0;
        while (a.step() && steps < 2000) steps++;
        deepEqual(contents(a, "fact"), v1.facts.slice().sort(), `cut at write ${n}: every fact exactly once`);
        deepEqual(contents(a, "moment"), v1.moments, `cut at write ${n}: the moment`);
      }
      ok(cuts > 20, `the cuts reached the migration (${cuts})`);
    },
  },
];

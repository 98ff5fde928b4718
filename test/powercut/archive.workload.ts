// Two weeks of a pet's memory moving into the deep archive, which starts with
// a year of old facts (loaded without writes) and has a small budget: facts
// and moments rolling out of full NVS stores, the early-morning moves of old
// facts and moments, Sunday's move of past events, and compactions (in the
// maintenance run and, on a busy day, inside an append). After a cut at any
// write and a reboot (archive check, resolveAtBoot):
//   - every record acknowledged before and after the step is in NVS or in
//     the archive (lost otherwise); a record of neither version is torn;
//   - no record is in both, or twice in the archive, and recall (through the
//     index) returns exactly what a full scan of the file finds, each id once;
//   - the next append works and is found.
import config from "mc/config";
import { Memory } from "../../src/memory/memory";
import { Archive } from "../../src/archive/archive";
import { Archiver } from "../../src/archive/archiver";
import { recordId, type ArchiveType } from "../../src/archive/line";
import { fromLocal } from "../../src/time/local";
import type { Verdict, Workload } from "./harness";
import { SimDevice } from "../../host-sim/device";

export interface ArchiveModel {
  records: string[]; // type:id:content of every record in NVS or in the archive
}

const BUDGET = 18 * 1024;
const DAY = 86400000;
const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "钢琴", "恐龙", "宇宙", "北京", "生日"];

function open(): { mem: Memory; archive: Archive; archiver: Archiver } {
  const mem = new Memory();
  const archive = new Archive(config.file.root, { budget: BUDGET });
  archive.check();
  const archiver = new Archiver(mem, archive);
  archiver.resolveAtBoot();
  archiver.attach();
  return { mem, archive, archiver };
}

function nvsKeys(mem: Memory): string[] {
  const out: string[] = [];
  for (const f of mem.facts()) out.push(`fact:${recordId("fact", f)}:${f.content}`);
  for (const m of mem.moments()) out.push(`moment:${recordId("moment", m)}:${m.content}`);
  for (const e of mem.events()) out.push(`event:${recordId("event", e)}:${e.content}`);
  return out;
}

function archiveKeys(archive: Archive): string[] {
  const out: string[] = [];
  for (const t of ["fact", "moment", "event"] as ArchiveType[]) archive.forEach(t, (x) => out.push(`${t}:${x.id}:${x.content}`));
  return out;
}

function model(mem: Memory, archive: Archive): ArchiveModel {
  return { records: nvsKeys(mem).concat(archiveKeys(archive)).sort() };
}

// The archive the workload starts from: about 13 KB of facts from 2025,
// built once on a device of its own and loaded as files (no flash writes).
let template: { name: string; bytes: Uint8Array }[] | undefined;
function prefill(dev: SimDevice): void {
  if (!template) {
    const other = new SimDevice({ now: Date.UTC(2026, 0, 1) }).install();
    try {
      const a = new Archive(config.file.root, { budget: BUDGET });
      const t0 = Math.floor(Date.UTC(2025, 0, 1) / 1000);
      for (let i = 0; i < 120; i += 5) {
        const batch = [];
        for (let k = i; k < i + 5; k++) batch.push({ timestamp: t0 + k * 3 * 86400, content: `去年的第${k}件事：主人和朋友一起去了${WORDS[k % WORDS.length]}馆` });
        a.append("fact", batch);
      }
      template = other.spiffs.list().map((e) => ({ name: e.name, bytes: other.spiffs.content(e.name) }));
    } finally {
      dev.install();
    }
  }
  for (const f of template) dev.spiffs.load(f.name, f.bytes.slice());
}

// The state after each step of the uncut run: a cut run is the same script up
// to its cut, so this is what the step in flight was making durable.
let after: ArchiveModel[] = [];

export const archiveWorkload: Workload<ArchiveModel> = {
  name: "archive",
  start: fromLocal(2026, 3, 2, 9, 0), // a Monday
  script(dev, ack, inflight) {
    const clean = !dev.flash.armed;
    if (clean) after = [];
    prefill(dev);
    const { mem, archive, archiver } = open();
    let step = 0;
    const run = (fn: () => void) => {
      if (!clean) inflight(after[step]);
      fn();
      if (clean) after.push(model(mem, archive));
      ack(after[step]);
      step++;
    };
    run(() => {});
    const t0 = Math.floor(dev.clock.now / 1000);
    let n = 0;
    for (let day = 0; day < 14; day++) {
      const now = dev.clock.now;
      for (let k = 0; k < (day === 9 ? 20 : 3); k++) {
        const w = WORDS[(n * 7 + k) % WORDS.length];
        // some facts are back-dated (told about long ago): the daily move takes them
        const ts = Math.floor(now / 1000) - (n % 5 === 0 ? 40 * 86400 + n : 0) + k;
        run(() => {
          mem.addFact(`第${n}件事：主人说${w}很有意思`, ts);
          mem.flush();
        });
        n++;
      }
      if (day % 2 === 0)
        run(() => {
          mem.addMoment({ topic: WORDS[day % WORDS.length], content: `第${day}天的时刻`, emotion: "happy", intensity: 3, importance: 4, timestamp: Math.floor(now / 1000) - (day % 4 === 0 ? 35 * 86400 : 0) });
          mem.flush();
        });
      if (day % 3 === 0)
        run(() => {
          const d = new Date(now - 2 * DAY + 8 * 3600000).toISOString().slice(0, 10);
          mem.addEvent({ date: d, time: "", eventType: "event", content: `第${day}天前的活动`, reminded: 0, emotion: "neutral", intensity: 0, significance: 3, priority: 3, schedule: false, completed: false, repeat: "none", repeatInterval: 1, duration: 60 });
          mem.flush();
        });
      dev.clock.advanceTo(fromLocal(2026, 3, 3 + day, 3, 30));
      run(() => archiver.maintenance(dev.clock.now));
      dev.clock.advanceTo(fromLocal(2026, 3, 3 + day, 9, 0));
    }
    void t0;
  },
  verify(_dev: SimDevice, acked, inflight) {
    const { mem, archive } = open();
    const v: Verdict = { ackedLost: 0, torn: 0, duplicates: 0 };
    const nvs = nvsKeys(mem);
    const arc = archiveKeys(archive);
    const inArchive = new Set<string>();
    for (const k of arc) {
      if (inArchive.has(k)) v.duplicates++;
      inArchive.add(k);
    }
    for (const k of nvs) if (inArchive.has(k)) v.duplicates++;
    const actual = new Set(nvs.concat(arc));
    const a = acked?.records ?? [];
    const f = inflight?.records ?? a;
    const inF = new Set(f), inA = new Set(a);
    for (const k of a) if (inF.has(k) && !actual.has(k)) v.ackedLost++;
    for (const k of actual) if (!inA.has(k) && !inF.has(k)) v.torn++;
    // recall through the index finds what a full scan finds, each id once
    for (const t of ["fact", "moment", "event"] as ArchiveType[]) {
      const scan: string[] = [];
      archive.forEach(t, (x) => scan.push(x.id));
      const recalled = archive.recallByTimeRange(t, undefined, undefined, 1000).map((x) => x.id);
      if (new Set(recalled).size !== recalled.length) v.duplicates++;
      if (recalled.length !== scan.length || archive.count(t) !== scan.length || recalled.some((id) => scan.indexOf(id) < 0))
        throw new Error(`${t}: recall found ${recalled.length}, count ${archive.count(t)}, the file holds ${scan.length}`);
    }
    // the next append starts on a clean line
    const probe = { timestamp: Math.floor(Date.UTC(2026, 5, 1) / 1000), content: "断电之后的第一条" };
    archive.append("fact", [probe]);
    if (archive.recallRecent("fact", 1)[0]?.content !== probe.content) throw new Error("the first append after the cut is not found");
    return v;
  },
};

// Recall sees all memory, forget reaches the archive (issue 12 items 6 and 7):
// the memory tool's recall and search look at NVS and the archive together,
// newest first, one per id; delete of a fact, moment or event also hides the
// archived records it names. A real Archive (format 2) on the simulated device.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import { recordId } from "../../src/archive/line";
import { Service } from "../../src/app/service";
import { bootDevice } from "../../src/app/boot";
import { DESCRIPTION, type ArchiveAccess, type RecallType } from "../../src/mcp/memory-tool";
import { newEvent, type Fact, type Moment, type Event } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";


const root = config.file.root;
const T0 = fromLocal(2026, 2, 5, 13, 0); // Thursday 2026-02-05 13:00 +08:00
const sec = (y: number, mo: number, d: number, h = 12) => Math.floor(fromLocal(y, mo, d, h, 0) / 1000);

type Item = { timestamp: string; id: string; content: string; topic?: string; archived?: boolean };

// What the tool sees: the real Archive (forget hides by id, tombstones), with
// a failure to inject into its next recall or forget.
interface Access extends ArchiveAccess {
  forget(type: RecallType, ids: string[]): number;
  failForget?: string; // the next forget throws this ArchiveError
  failRecall?: string; // the next recall throws this ArchiveError
}

function failing(w: Access, what: "failForget" | "failRecall"): void {
  const m = w[what];
  if (m === undefined) return;
  w[what] = undefined;
  throw new ArchiveError("io", m);
}

function access(a: Archive): Access {
  const w: Access = {
    recall(t, q) {
      failing(w, "failRecall");
      return a.recall(t, q);
    },
    count: (t) => a.count(t),
    get lastRecall() {
      return a.lastRecall;
    },
    forget(t, ids) {
      failing(w, "failForget");
      return a.forget(t, ids);
    },
  };
  return w;
}

function setup(withArchive = true) {
  const dev = new SimDevice({ now: T0 }).install();
  const archive = new Archive(root);
  archive.check();
  const arc = access(archive);
  const svc = new Service({ sink: { remind() {} }, archive: withArchive ? arc : undefined });
  const call = toolCaller(svc);
  // an NVS record at a given time (as if it had been told then)
  const fact = (content: string, ts: number) => {
    svc.memory.addFact(content, ts);
    svc.memory.flush();
  };
  return { dev, archive, arc, svc, call, fact };
}

const contents = (items: Item[]) => items.map((x) => x.content);
const where = (items: Item[]) => items.map((x) => (x.archived ? "A:" : "N:") + x.content);

function moment(ts: number, topic: string, content: string): Moment {
  return { timestamp: ts, topic, content, emotion: "happy", intensity: 3, importance: 4 };
}

// The seed that makes spiffs_not_finalized pick `name` (it picks in name order).
function seedOf(dev: SimDevice, name: string): number {
  return dev.spiffs
    .list()
    .map((e) => e.name)
    .sort()
    .indexOf(name);
}

export const scenarios: Scenario[] = [
  {
    name: "recall: a fact still in NVS is found by a keyword (case and width folded) and by its month, dates inclusive, in the archive's item shape",
    run() {
      const { call, svc, archive } = setup();
      equal(call({ action: "write", type: "fact", content: "主人周末去打ＢＡＳＫＥＴＢＡＬＬ" }).json.result, "added");
      const f = svc.memory.facts()[0];
      const want = { timestamp: "2026-02-05T13:00:00", type: "fact", id: recordId("fact", f), content: "主人周末去打ＢＡＳＫＥＴＢＡＬＬ" };
      const r = call({ action: "recall", type: "fact", keyword: "basketball" }).json;
      deepEqual(r, { type: "fact", count: 1, items: [want] });
      deepEqual(call({ action: "recall", type: "fact", keyword: "ｂａｓｋｅｔ" }).json.items, [want], "full-width matches too");
      deepEqual(call({ action: "recall", type: "fact", keyword: "足球" }).json.items, []);
      deepEqual(call({ action: "recall", type: "fact", start_date: "2026-02-01", end_date: "2026-02-28" }).json.items, [want], "its month");
      deepEqual(call({ action: "recall", type: "fact", start_date: "2026-02-05", end_date: "2026-02-05" }).json.items, [want], "dates inclusive");
      deepEqual(call({ action: "recall", type: "fact", start_date: "2026-02-06" }).json.items, []);
      deepEqual(call({ action: "recall", type: "fact", end_date: "2026-02-04" }).json.items, []);
      deepEqual(call({ action: "recall", type: "fact" }).json.items, [want], "neither: the latest");
      // the same shape as the archive's own items, for every type
      archive.append("fact", [{ timestamp: f.timestamp - 86400 * 40, content: "去年的事" }]);
      svc.memory.addMoment({ topic: "海边", content: "第一次看海", emotion: "happy", intensity: 4, importance: 5 });
      archive.append("moment", [moment(sec(2025, 6, 1), "山上", "一起爬山")]);
      svc.memory.addEvent(newEvent({ date: "2026-02-20", content: "去海洋馆", eventType: "plan" }));
      archive.append("event", [newEvent({ date: "2025-08-01", content: "去动物园", eventType: "plan" })]);
      for (const t of ["fact", "moment", "event"]) {
        const items = call({ action: "recall", type: t }).json.items as Item[];
        equal(items.length, 2, `${t}: one from NVS, one archived`);
        equal(items[0].archived, undefined, `${t}: NVS first (newer)`);
        equal(items[1].archived, true);
        const { archived: _a, ...arch } = items[1];
        deepEqual(Object.keys(items[0]), Object.keys(arch), `${t}: the same keys in the same order`);
      }
      const ev = call({ action: "recall", type: "event", keyword: "海洋馆" }).json.items[0];
      equal(ev.timestamp, "2026-02-20T00:00:00", "an event's time is its date and time");
    },
  },
  {
    name: "recall: a record both in NVS and in the archive (a move cut short) comes back once, as archived; search does not list it twice",
    run() {
      const { call, svc, archive, fact } = setup();
      fact("主人养了一只猫叫豆豆", sec(2026, 1, 20));
      fact("主人的猫爱吃鱼", sec(2026, 1, 25));
      fact("主人的猫三岁了", sec(2026, 2, 1));
      archive.append("fact", svc.memory.facts().slice(0, 2)); // the move wrote the archive, the cut came before NVS
      const r = call({ action: "recall", type: "fact", keyword: "猫" }).json;
      deepEqual(where(r.items), ["N:主人的猫三岁了", "A:主人的猫爱吃鱼", "A:主人养了一只猫叫豆豆"]);
      equal(r.count, 3);
      const ids = (r.items as Item[]).map((x) => x.id);
      deepEqual(ids, svc.memory.facts().reverse().map((x) => recordId("fact", x)), "ids as NVS's records give them");
      deepEqual(where(call({ action: "recall", type: "fact" }).json.items), ["N:主人的猫三岁了", "A:主人的猫爱吃鱼", "A:主人养了一只猫叫豆豆"]);
      deepEqual(where(call({ action: "recall", type: "fact", start_date: "2026-01-01", end_date: "2026-01-31" }).json.items), ["A:主人的猫爱吃鱼", "A:主人养了一只猫叫豆豆"]);
      const s = call({ action: "search", keyword: "猫" }).json;
      equal(s.count, 3, "NVS lists all three");
      deepEqual(s.archived, {}, "the archive's part repeats none of them");
      archive.append("fact", [{ timestamp: sec(2025, 5, 1), content: "主人小时候怕猫" }]);
      const s2 = call({ action: "search", keyword: "猫" }).json;
      deepEqual(contents(s2.archived.fact), ["主人小时候怕猫"], "only what NVS does not hold");
    },
  },
  {
    name: "recall: newest first across NVS and the archive, the limit over both, by keyword, range and latest",
    run() {
      const { call, archive, fact } = setup();
      const arch: Fact[] = [
        { timestamp: sec(2025, 12, 1), content: "A1 十二月去滑雪" },
        { timestamp: sec(2026, 1, 10), content: "A2 一月看电影" },
        { timestamp: sec(2026, 1, 20), content: "A3 一月底去滑雪" },
        { timestamp: sec(2026, 2, 3), content: "A4 二月初去滑雪" },
      ];
      archive.append("fact", arch);
      fact("N1 一月中滑雪摔倒", sec(2026, 1, 15));
      fact("N2 二月一日看电影", sec(2026, 2, 1));
      fact("N3 二月四日滑雪", sec(2026, 2, 4));
      archive.append("fact", [{ timestamp: sec(2026, 2, 1), content: "A5 二月一日同一秒" }]); // as old as N2: NVS first
      const all = ["N3 二月四日滑雪", "A4 二月初去滑雪", "N2 二月一日看电影", "A5 二月一日同一秒", "A3 一月底去滑雪", "N1 一月中滑雪摔倒", "A2 一月看电影", "A1 十二月去滑雪"];
      deepEqual(contents(call({ action: "recall", type: "fact", limit: 50 }).json.items), all);
      deepEqual(contents(call({ action: "recall", type: "fact", limit: 4 }).json.items), all.slice(0, 4), "limit");
      equal(call({ action: "recall", type: "fact", limit: 4 }).json.count, 4);
      deepEqual(contents(call({ action: "recall", type: "fact" }).json.items), all, "default limit 10");
      deepEqual(contents(call({ action: "recall", type: "fact", limit: 3 }).json.items), all.slice(0, 3));
      deepEqual(contents(call({ action: "recall", type: "fact", keyword: "滑雪", limit: 3 }).json.items), ["N3 二月四日滑雪", "A4 二月初去滑雪", "A3 一月底去滑雪"]);
      deepEqual(contents(call({ action: "recall", type: "fact", keyword: "滑雪" }).json.items), ["N3 二月四日滑雪", "A4 二月初去滑雪", "A3 一月底去滑雪", "N1 一月中滑雪摔倒", "A1 十二月去滑雪"]);
      deepEqual(contents(call({ action: "recall", type: "fact", start_date: "2026-01-01", end_date: "2026-01-31" }).json.items), ["A3 一月底去滑雪", "N1 一月中滑雪摔倒", "A2 一月看电影"]);
      deepEqual(contents(call({ action: "recall", type: "fact", start_date: "2026-01-15", limit: 2 }).json.items), ["N3 二月四日滑雪", "A4 二月初去滑雪"]);
      deepEqual(contents(call({ action: "recall", type: "fact", start_date: "2026-02-01", end_date: "2026-02-01" }).json.items), ["N2 二月一日看电影", "A5 二月一日同一秒"]);
    },
  },
  {
    name: "recall: moments by their topic, events by their date, NVS and the archive together",
    run() {
      const { call, svc, archive } = setup();
      archive.append("moment", [moment(sec(2025, 7, 1), "海边", "夏天去海边捡贝壳"), moment(sec(2025, 8, 1), "公园", "在公园放风筝")]);
      svc.memory.addMoment({ topic: "海边", content: "冬天去看海", timestamp: sec(2026, 1, 2) });
      deepEqual(where(call({ action: "recall", type: "moment", keyword: "海边" }).json.items), ["N:冬天去看海", "A:夏天去海边捡贝壳"], "the topic matches");
      archive.append("event", [newEvent({ date: "2025-08-01", content: "去海洋馆玩", eventType: "plan" })]);
      svc.memory.addEvent(newEvent({ date: "2026-02-20", content: "再去海洋馆", eventType: "plan" }));
      svc.memory.addEvent(newEvent({ date: "2026-01-09", time: "16:00", content: "海洋馆的钢琴课", schedule: true }));
      svc.memory.flush();
      deepEqual(where(call({ action: "recall", type: "event", keyword: "海洋馆" }).json.items), ["N:再去海洋馆", "N:海洋馆的钢琴课", "A:去海洋馆玩"]);
      const jan = call({ action: "recall", type: "event", start_date: "2026-01-09", end_date: "2026-01-09" }).json.items;
      deepEqual(where(jan), ["N:海洋馆的钢琴课"]);
      equal(jan[0].timestamp, "2026-01-09T16:00:00");
      deepEqual(where(call({ action: "recall", type: "event", start_date: "2025-08-01", end_date: "2025-08-31" }).json.items), ["A:去海洋馆玩"]);
    },
  },
  {
    name: "recall: one item per id even when the archive gives a record twice (a record in two segments)",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const a = new Archive(root);
      a.append("fact", [{ timestamp: sec(2025, 1, 1), content: "一条旧事" }, { timestamp: sec(2025, 1, 2), content: "又一条旧事" }]);
      const twice: ArchiveAccess = {
        recall: (t, q) => {
          const items = a.recall(t, q);
          return [items[0], items[0], items[1]];
        },
        count: (t) => a.count(t),
      };
      const svc = new Service({ sink: { remind() {} }, archive: twice });
      deepEqual(where(JSON.parse(svc.tool.call({ action: "recall", type: "fact" })).items), ["A:又一条旧事", "A:一条旧事"]);
      ok(dev.spiffs.list().length > 0);
    },
  },
  {
    name: "recall: an archive that cannot be read does not hide NVS: its records come back, marked partial with the reason; without an archive too",
    run() {
      const { dev, call, archive, arc, fact } = setup();
      archive.append("fact", [{ timestamp: sec(2025, 3, 1), content: "去年主人在学校演讲" }]);
      fact("主人在学校当班长", sec(2026, 2, 1));
      deepEqual(where(call({ action: "recall", type: "fact", keyword: "学校" }).json.items), ["N:主人在学校当班长", "A:去年主人在学校演讲"]);
      // the archive says it cannot read now (an ArchiveError)
      arc.failRecall = "archive: the fact archive cannot be read now";
      const r = call({ action: "recall", type: "fact", keyword: "学校" }).json;
      deepEqual(where(r.items), ["N:主人在学校当班长"], "NVS answers");
      equal(r.partial, true);
      equal(r.archive_unreadable, "archive: the fact archive cannot be read now", "says why");
      equal(call({ action: "recall", type: "fact", keyword: "学校" }).json.partial, undefined, "whole again once it reads");
      // every read of the fact archive's files fails (a real Archive on a failing partition)
      const sp = dev.spiffs;
      const read = sp.read;
      sp.read = function (name: string, offset: number, count: number) {
        if (/^\/f(acts|\d{6})\./.test(name)) throw new Error("file read failed");
        return read.call(sp, name, offset, count);
      };
      try {
        const p = call({ action: "recall", type: "fact", start_date: "2025-01-01", end_date: "2026-12-31" });
        ok(p.json, p.text);
        deepEqual(where(p.json.items), ["N:主人在学校当班长"], "NVS answers");
        equal(p.json.partial, true, p.text);
        ok(typeof p.json.archive_unreadable === "string" && p.json.archive_unreadable.length > 5, p.text);
        equal(call({ action: "recall", type: "moment" }).json.partial, undefined, "the other types are whole");
      } finally {
        sp.read = read;
      }
      // a segment that cannot be opened now (the answer leaves it out): partial, naming it
      const seg = dev.spiffs.list().map((e) => e.name).filter((n) => /^\/f\d{6}\.jsonl$/.test(n))[0];
      ok(seg !== undefined, "the fact archive has a segment");
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, seg) });
      const g = call({ action: "recall", type: "fact", keyword: "学校" });
      ok(g.json, g.text);
      deepEqual(where(g.json.items), ["N:主人在学校当班长"], "NVS answers");
      equal(g.json.partial, true, g.text);
      ok(g.json.archive_unreadable.indexOf(seg) >= 0, g.text);
      const sr = call({ action: "search", keyword: "学校" }).json;
      equal(sr.partial, true, "search says so too");
      ok(sr.archive_unreadable.fact.indexOf(seg) >= 0, JSON.stringify(sr));
      const d = call({ action: "delete", type: "fact", content: "主人在学校当班长" });
      equal(d.isError, false, d.text);
      equal(d.json.result, "deleted", d.text);
      equal(d.json.from_memory, 1, d.text);
      equal(d.json.partial, true, "what could not be searched is said");
      ok(d.json.archive_unreadable.indexOf(seg) >= 0 && /try the same delete again later/.test(d.json.hint), d.text);
      const bare = setup(false);
      bare.fact("没有存档也能找到", sec(2026, 2, 2));
      const b = bare.call({ action: "recall", type: "fact" }).json;
      deepEqual(where(b.items), ["N:没有存档也能找到"]);
      equal(b.partial, true, "no archive: partial");
    },
  },
  {
    name: "delete reaches the archive: archived facts and moments it names are hidden from recall and search at once; the reply counts both; nothing anywhere is not_found",
    run() {
      const { call, archive, fact, svc } = setup();
      archive.append("fact", [
        { timestamp: sec(2025, 5, 1), content: "主人讨厌吃胡萝卜" },
        { timestamp: sec(2025, 6, 1), content: "主人讨厌吃胡萝卜" }, // told twice, months apart
        { timestamp: sec(2025, 7, 1), content: "主人讨厌吃胡萝卜和芹菜" }, // another fact: kept
        { timestamp: sec(2025, 8, 1), content: "主人会弹钢琴" },
      ]);
      fact("主人讨厌吃胡萝卜", sec(2026, 2, 1));
      equal(call({ action: "recall", type: "fact", keyword: "胡萝卜" }).json.count, 4);
      deepEqual(call({ action: "delete", type: "fact", content: "主人讨厌吃胡萝卜" }).json, { result: "deleted", type: "fact", from_memory: 1, from_archive: 2 });
      deepEqual(where(call({ action: "recall", type: "fact", keyword: "胡萝卜" }).json.items), ["A:主人讨厌吃胡萝卜和芹菜"]);
      deepEqual(where(call({ action: "recall", type: "fact" }).json.items), ["A:主人会弹钢琴", "A:主人讨厌吃胡萝卜和芹菜"]);
      const s = call({ action: "search", keyword: "胡萝卜" }).json;
      equal(s.count, 0);
      deepEqual(contents(s.archived.fact), ["主人讨厌吃胡萝卜和芹菜"]);
      equal(svc.memory.facts().length, 0, "gone from NVS");
      // only in the archive now
      deepEqual(call({ action: "delete", type: "fact", content: "主人会弹钢琴" }).json, { result: "deleted", type: "fact", from_memory: 0, from_archive: 1 });
      equal(call({ action: "recall", type: "fact", keyword: "钢琴" }).json.count, 0);
      deepEqual(call({ action: "delete", type: "fact", content: "主人会弹钢琴" }).json, { result: "not_found", type: "fact" }, "already forgotten");
      deepEqual(call({ action: "delete", type: "fact", content: "从没说过的事" }).json, { result: "not_found", type: "fact" });
      // a moment by its content or its topic, as in NVS
      archive.append("moment", [moment(sec(2025, 7, 1), "海边", "夏天去海边捡贝壳"), moment(sec(2025, 8, 1), "公园", "在公园放风筝"), moment(sec(2025, 9, 1), "海边", "秋天在海边散步")]);
      svc.memory.addMoment({ topic: "海边", content: "冬天去看海", timestamp: sec(2026, 1, 2) });
      deepEqual(call({ action: "delete", type: "moment", content: "海边" }).json, { result: "deleted", type: "moment", from_memory: 1, from_archive: 2 });
      deepEqual(where(call({ action: "recall", type: "moment" }).json.items), ["A:在公园放风筝"]);
      deepEqual(call({ action: "delete", type: "moment", content: "在公园放风筝" }).json, { result: "deleted", type: "moment", from_memory: 0, from_archive: 1 });
      deepEqual(call({ action: "recall", type: "moment" }).json.items, []);
    },
  },
  {
    name: "delete of an event reaches the archive: its content exactly, else a part that names one thing; a part naming two things is ambiguous and changes nothing",
    run() {
      const { call, archive, svc } = setup();
      archive.append("event", [
        newEvent({ date: "2024-08-01", content: "去海洋馆", eventType: "plan" }),
        newEvent({ date: "2025-08-01", content: "去海洋馆", eventType: "plan" }),
        newEvent({ date: "2025-09-01", content: "去海洋馆看海豚", eventType: "plan" }),
        newEvent({ date: "2025-10-01", content: "去动物园看熊猫", eventType: "plan" }),
        newEvent({ date: "2025-11-01", content: "去植物园看熊猫竹子", eventType: "plan" }),
      ]);
      deepEqual(call({ action: "delete", type: "event", content: "去海洋馆" }).json, { result: "deleted", type: "event", from_memory: 0, from_archive: 2 }, "exact: both dates, not the longer one");
      deepEqual(contents(call({ action: "recall", type: "event", keyword: "海洋馆" }).json.items), ["去海洋馆看海豚"]);
      deepEqual(call({ action: "delete", type: "event", content: "海豚" }).json, { result: "deleted", type: "event", from_memory: 0, from_archive: 1 }, "a part naming one thing");
      const amb = call({ action: "delete", type: "event", content: "熊猫" });
      ok(amb.isError && /matches 2 events/.test(amb.text) && amb.text.indexOf("去动物园看熊猫") >= 0, amb.text);
      equal(call({ action: "recall", type: "event", keyword: "熊猫" }).json.count, 2, "nothing changed");
      // NVS and the archive: the same content in both is one thing
      svc.memory.addEvent(newEvent({ date: "2026-03-01", content: "去动物园看熊猫", eventType: "plan" }));
      svc.memory.flush();
      deepEqual(call({ action: "delete", type: "event", content: "动物园" }).json, { result: "deleted", type: "event", from_memory: 1, from_archive: 1 });
      deepEqual(contents(call({ action: "recall", type: "event" }).json.items), ["去植物园看熊猫竹子"]);
      equal(svc.memory.events().length, 0);
    },
  },
  {
    name: "delete when the archive fails: nothing is deleted and the reply says why; the same delete later takes both",
    run() {
      const { call, archive, arc, fact, svc, dev } = setup();
      archive.append("fact", [{ timestamp: sec(2025, 5, 1), content: "主人的密码是1234" }]);
      fact("主人的密码是1234", sec(2026, 2, 1));
      arc.failForget = "archive: the file system failed";
      const w0 = dev.flash.writes;
      const r = call({ action: "delete", type: "fact", content: "主人的密码是1234" });
      equal(r.isError, true);
      equal(r.text, "error: nothing was deleted: the archived copy cannot be hidden now (archive: the file system failed)");
      equal(svc.memory.facts().length, 1, "NVS keeps it");
      equal(dev.flash.writes, w0, "nothing written");
      dev.reboot();
      const arc2 = access(new Archive(root));
      const again = new Service({ sink: { remind() {} }, archive: arc2 });
      equal(again.memory.facts().length, 1, "and flash holds it");
      deepEqual(JSON.parse(again.tool.call({ action: "delete", type: "fact", content: "主人的密码是1234" })), { result: "deleted", type: "fact", from_memory: 1, from_archive: 1 });
      deepEqual(JSON.parse(again.tool.call({ action: "recall", type: "fact" })).items, []);
      // an archive that cannot be searched: nothing is deleted, the reply says why
      again.memory.addFact("主人的生日愿望是去北京", sec(2026, 2, 2));
      again.memory.flush();
      const del = () => {
        try {
          again.tool.call({ action: "delete", type: "fact", content: "主人的生日愿望是去北京" });
        } catch (e) {
          return (e as Error).message;
        }
        return "no error";
      };
      arc2.failRecall = "archive: cannot read f1";
      const msg = del();
      equal(msg, "nothing was deleted: the archive cannot be searched now (archive: cannot read f1), so an archived copy could not be found; try again later");
      equal(again.memory.facts().length, 1, "NVS keeps it");
      arc2.failRecall = undefined;
      equal(del(), "no error");
      equal(again.memory.facts().length, 0);
    },
  },
  {
    name: "the device as it boots: facts the overflow moved are recalled with those in NVS, once each; a forgotten one stays forgotten after a reboot",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      let b = bootDevice(undefined, { sink: { remind() {} } });
      const tool = () => b.service.tool;
      const said: string[] = [];
      for (let i = 0; i < 25; i++) {
        dev.clock.now += 60000;
        const c = `主人说的第${i}件事`;
        said.push(c);
        equal(JSON.parse(tool().call({ action: "write", type: "fact", content: c })).result, "added");
      }
      ok(b.service.memory.facts().length < 25, "the overflow moved the oldest to the archive");
      const all = JSON.parse(tool().call({ action: "recall", type: "fact", limit: 50 }));
      deepEqual(contents(all.items), said.slice().reverse(), "every fact once, newest first");
      ok(all.items.some((x: Item) => x.archived) && all.items.some((x: Item) => !x.archived), "from both");
      deepEqual(JSON.parse(tool().call({ action: "delete", type: "fact", content: "主人说的第1件事" })), { result: "deleted", type: "fact", from_memory: 0, from_archive: 1 });
      b.maintenance?.stop();
      dev.reboot();
      b = bootDevice(undefined, { sink: { remind() {} } });
      const after = contents(JSON.parse(tool().call({ action: "recall", type: "fact", limit: 50 })).items);
      deepEqual(after, said.filter((c) => c !== "主人说的第1件事").reverse(), "forgotten across the reboot, the rest kept");
      equal(JSON.parse(tool().call({ action: "recall", type: "fact", keyword: "第1件事" })).count, 0);
      b.maintenance?.stop();
    },
  },
  {
    name: "delete type=all says what happens to the archive; the description sends do-you-remember and last-time questions to search, briefly",
    run() {
      const { call } = setup();
      call({ action: "write", type: "fact", content: "主人喜欢下雨天" });
      const r = call({ action: "delete", type: "all" }).json;
      equal(r.result, "needs_force");
      ok(/archive/.test(r.keeps) && /delete them by content/.test(r.keeps), r.keeps);
      const line = DESCRIPTION.split("\n").filter((l) => l.indexOf("你还记得") >= 0)[0] ?? "";
      ok(line.indexOf("上次") >= 0 && /action=search/.test(line) && /all memory/.test(line), line);
      ok(line.length < 240, `${line.length} characters`);
    },
  },
];

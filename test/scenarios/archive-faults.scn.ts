// The archive (format 2) under SPIFFS's faults (issue 11 item 6, issue 12 item
// 8): boot never throws and never takes a file it cannot read for an empty
// one; a file that cannot be read is named and kept, never deleted; a read
// that fails during recall is tried again, and one that keeps failing is a
// clear error, never a partial answer; a full file system leaves records in NVS.
import { File } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import { Archiver } from "../../src/archive/archiver";
import { Memory } from "../../src/memory/memory";
import { Service } from "../../src/app/service";
import { newEvent, type Moment } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { fresh, fillFacts, image, sameImage, sec } from "./archive.scn";
import { fillLong, segName } from "./archive-segments.scn";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;

export function contents(a: Archive, type = "fact"): string[] {
  const out: string[] = [];
  a.forEach(type, (x) => out.push(x.content));
  return out;
}

function moment(i: number, more: Partial<Moment> = {}): Moment {
  return { timestamp: sec(fromLocal(2024, 3, 1, 8, 0)) + i * 3600, topic: "日常", content: `第${i}个时刻：和主人一起看书`, emotion: "happy", intensity: 3, importance: 4, ...more };
}

// The seed that makes spiffs_not_finalized pick `name` (it picks in name order).
export function seedOf(dev: SimDevice, name: string): number {
  const names = dev.spiffs
    .list()
    .map((e) => e.name)
    .sort();
  const i = names.indexOf(name);
  ok(i >= 0, `${name} exists`);
  return i;
}

// Fills the storage partition with another file until a write fails.
export function fillUp(): void {
  for (const step of [1024, 1]) {
    const f = new File(root + "other.bin", true);
    try {
      for (;;) {
        f.position = f.length;
        f.write(new Uint8Array(step).buffer);
      }
    } catch {
      // full
    } finally {
      f.close();
    }
  }
}

export const scenarios: Scenario[] = [
  {
    name: "archive v2 faults: a read error anywhere in the boot's check: no throw, nothing written, every record known to the next boot",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillLong(a, 300);
      a.settle();
      fillLong(a, 40, 300); // an open segment with a tail and a twin
      a.append("moment", [moment(1), moment(2)]);
      const files = image(dev);
      let fired = 0;
      for (let at = 1; at <= 60; at++) {
        const d = fresh();
        for (const [n, b] of files) d.spiffs.load(n, b.slice());
        d.inject("spiffs_read_error", { at });
        a = new Archive(root);
        a.check(); // never throws
        if (d.spiffs.isArmed("spiffs_read_error")) break;
        fired++;
        equal(sameImage(files, image(d)), undefined, `a read error at operation ${at} of the check changed nothing`);
        d.reboot();
        const b = new Archive(root);
        b.check();
        equal(b.count("fact"), 340, `every fact known again (read error at ${at})`);
        equal(b.count("moment"), 2);
      }
      ok(fired >= 4, `the check's reads were covered (${fired})`);
      void dev;
    },
  },
  {
    name: "archive v2 faults: the open segment unreadable at boot with no twin: named, kept as it is, appends go on in a new segment, nothing lost",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 50);
      a.append("moment", [moment(1)]);
      ok(File.delete(root + "f000001.par"), "no twin");
      const seg = dev.spiffs.content("/f000001.jsonl");
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/f000001.jsonl") });
      a = new Archive(root);
      const r = a.check();
      ok(r.fact.unreadable !== undefined && r.fact.unreadable.join().indexOf("f1") >= 0, `named: ${JSON.stringify(r.fact)}`);
      equal(a.recallRecent("moment").length, 1, "the other streams are served");
      a.append("fact", [{ timestamp: facts[49].timestamp + 60, content: "启动之后的新事实" }]);
      a.settle();
      ok(dev.spiffs.exists("/f000001.jsonl") && dev.spiffs.length("/f000001.jsonl") === seg.length, "the unreadable segment is kept");
      ok(dev.spiffs.exists("/f000002.jsonl"), "appends went to a new segment");
      // once readable again (the object deleted and written back by hand), everything is there
      dev.spiffs.notFinalized.delete("/f000001.jsonl");
      dev.reboot();
      a = new Archive(root);
      a.check();
      equal(a.count("fact"), 51);
      const all = contents(a);
      equal(all[0], facts[0].content);
      equal(all[50], "启动之后的新事实");
    },
  },
  {
    name: "archive v2 faults: a sealed segment that cannot be opened and has no second copy (its twin gone too): check and steps never throw nor delete it; recall serves the rest and names it (partial), never looks whole",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillLong(a, 500);
      a.settle();
      for (const e of dev.spiffs.list()) if (/^\/f\d+\.par$/.test(e.name)) dev.spiffs.remove(e.name); // no second copy (the group's parity gone): damage beyond what §3.15 covers
      ok(a.report().fact.segments >= 2);
      const seg = dev.spiffs.content("/f000001.jsonl");
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/f000001.jsonl") });
      a = new Archive(root);
      a.check();
      const rest = a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000);
      deepEqual(a.lastRecall.unreadable, [root + "f000001.jsonl"], "the answer names what it lacks");
      ok(rest.length < 500 && rest.length > 0, `the rest is served (${rest.length})`);
      equal(a.recallByKeyword("fact", "公园", 1000).length, rest.length);
      deepEqual(a.lastRecall.unreadable, [root + "f000001.jsonl"]);
      equal(a.recallRecent("fact", 5).length, 5, "recent needs only the newest segment");
      deepEqual(a.lastRecall.unreadable, [], "and lacks nothing");

      fillLong(a, 100, 500);
      a.settle();
      equal(dev.spiffs.length("/f000001.jsonl"), seg.length, "kept");
      dev.spiffs.notFinalized.delete("/f000001.jsonl");
      equal(a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000).length, 600, "whole again once readable");
    },
  },
  {
    name: "archive v2 faults: a read that fails during recall is tried again: the answer is whole, never partial",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      fillFacts(a, 900);
      a.settle();
      a.append("moment", [moment(1), moment(2)]);
      const want = a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000).map((x) => x.id);
      const kw = a.recallByKeyword("fact", "第7", 1000).map((x) => x.id);
      const recent = a.recallRecent("fact", 100).map((x) => x.id);
      equal(want.length, 900);
      let fired = 0;
      for (const [what, run, expect] of [
        ["range", () => a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000), want],
        ["keyword", () => a.recallByKeyword("fact", "第7", 1000), kw],
        ["recent", () => a.recallRecent("fact", 100), recent],
      ] as const) {
        for (let at = 1; at <= 40; at++) {
          dev.inject("spiffs_read_error", { at });
          const got = run().map((x) => x.id);
          if (dev.spiffs.isArmed("spiffs_read_error")) break;
          fired++;
          deepEqual(got, expect, `${what}: a read error at operation ${at}`);
        }
      }
      ok(fired >= 20, `the reads were covered (${fired})`);
      dev.spiffs.inject("spiffs_read_error", { at: 1 });
      dev.spiffs.inject("spiffs_read_error", { at: 2 }); // re-armed: the retry fails too
      let err: unknown;
      try {
        a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000);
      } catch (e) {
        err = e;
      }
      ok(err === undefined || (err instanceof ArchiveError && err.message.indexOf("cannot be read now") >= 0), `a clear error or a whole answer: ${String(err)}`);
    },
  },
  {
    name: "archive v2 faults: whatever read fails during an append, no acknowledged record is lost and a refused one is a clear error",
    run() {
      let dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 60);
      const files = image(dev);
      let fired = 0, refused = 0;
      for (let at = 1; at <= 40; at++) {
        dev = fresh();
        for (const [n, b] of files) dev.spiffs.load(n, b.slice());
        a = new Archive(root);
        a.check();
        dev.inject("spiffs_read_error", { at });
        let acked = false;
        try {
          a.append("fact", [{ timestamp: facts[59].timestamp + 3600, content: "追加的一条" }]);
          acked = true;
        } catch (e) {
          ok(e instanceof ArchiveError, `a clear error at ${at}: ${String(e)}`);
          refused++;
        }
        if (dev.spiffs.isArmed("spiffs_read_error")) break;
        fired++;
        dev.reboot();
        a = new Archive(root);
        a.check();
        const got = contents(a);
        for (let i = 0; i < 60; i++) equal(got[i], facts[i].content, `a read error at operation ${at}: record ${i}`);
        if (acked) equal(got[60], "追加的一条", `read error at ${at}: the acknowledged record`);
        ok(got.length <= 61);
      }
      ok(fired >= 3, `the sweep covered the append (${fired} operations)`);
      ok(refused <= fired);
    },
  },
  {
    name: "archive v2 faults: a full file system at boot: check() does not throw and every record is served",
    run() {
      const dev = fresh(512 * 1024);
      let a = new Archive(root);
      const facts = fillFacts(a, 300);
      // the sidecar lost: boot wants to index the open segment again
      ok(File.delete(root + "f000001.six"));
      fillUp();
      dev.reboot();
      a = new Archive(root);
      a.check();
      equal(a.recallByTimeRange("fact", undefined, undefined, 1000).length, 300);
      equal(a.recallByKeyword("fact", "第77条").length, 1);
      equal(a.recallRecent("fact", 1)[0].content, facts[299].content);
      equal(a.count("fact"), 300);
      a.settle(50); // steps that cannot write never throw
    },
  },
  {
    name: "archive v2 faults: a full archive leaves moves in NVS: the daily move reports it and NVS keeps every record; a full facts store refuses clearly",
    run() {
      const T0 = fromLocal(2026, 2, 5, 13, 0);
      const dev = new SimDevice({ now: T0, storageBytes: 128 * 1024 }).install();
      const mem = new Memory();
      const a = new Archive(root);
      a.check();
      const archiver = new Archiver(mem, a);
      archiver.resolveAtBoot();
      archiver.attach();
      const now = sec(T0);
      for (let i = 0; i < 20; i++) mem.addFact(`很久以前的第${i}件事`, now - 40 * 86400 + i);
      mem.flush();
      fillUp();
      const r = archiver.maintenance(T0 + 3600000);
      ok(r.errors !== undefined && r.errors.length >= 1 && r.errors[0].indexOf("fact") === 0, `reported: ${JSON.stringify(r.errors)}`);
      equal(r.fact, 0);
      equal(mem.facts().length, 20, "the facts stayed in NVS");
      throws(() => mem.addFact("新的一件事", now + 5), { name: "ArchiveError", message: "facts are full" });
      equal(mem.facts().length, 20);
      equal(mem.dirty, false, "nothing half changed");
      dev.reboot();
      const again = new Memory();
      equal(again.facts().length, 20);
    },
  },
  {
    name: "archive v2 faults: the memory tool with an unreadable fact segment: read and writes work, recall says it is partial, moments are searched",
    run() {
      const T0 = fromLocal(2026, 2, 5, 13, 0);
      const dev = new SimDevice({ now: T0 }).install();
      let a = new Archive(root);
      fillLong(a, 500);
      a.settle();
      for (const e of dev.spiffs.list()) if (/^\/f\d+\.par$/.test(e.name)) dev.spiffs.remove(e.name); // no second copy (the group's parity gone): damage beyond what §3.15 covers
      a.append("moment", [moment(1, { content: "和主人在学校门口看雪" })]);
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, segName("f", 1)) });
      a = new Archive(root);
      a.check();
      const svc = new Service({ sink: { remind() {} }, archive: a });
      let id = 0;
      const call = (args: Record<string, unknown>) => {
        const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!);
        return { isError: r.result.isError as boolean, text: r.result.content[0].text as string };
      };
      ok(!call({ action: "write", type: "fact", content: "主人说第3条规矩是早睡" }).isError, "NVS takes the write");
      ok(!call({ action: "read" }).isError, "read is served");
      // 第7条 is in the segment that cannot be opened: the archive names it for the tool
      // (src/mcp/memory-tool.ts is to say so in its answer: RecallStats.unreadable).
      // (Not 第3条: the newer segments' blocks hold 第3x条 and x3条, which the
      // block signatures cannot tell from it; reading them spends the call's
      // 32 KB flash budget first, and that answer is partial for that reason.)
      const r3 = call({ action: "recall", type: "fact", keyword: "第7条" });
      deepEqual(a.lastRecall.unreadable, [root + segName("f", 1).slice(1)], "named");
      equal(JSON.parse(r3.text).partial, true, `the answer says it is partial: ${r3.text}`);
      // the newest ten facts are in the readable segment: a whole answer
      ok(!call({ action: "recall", type: "fact", keyword: "学校" }).isError);
      const search = call({ action: "search", keyword: "第3条" });
      ok(!search.isError, search.text);
      const j = JSON.parse(search.text);
      equal(j.items[0].text, "主人说第3条规矩是早睡", "NVS is searched");
      equal(JSON.parse(call({ action: "search", keyword: "看雪" }).text).archived.moment.length, 1, "the readable streams are searched");
    },
  },
  {
    name: "archive faults: a sealed segment that lost its sidecar and catalog (more than a call's flash budget to read) cuts its own stream, not the streams after it: search and recall still find an archived event, marked partial",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      a.check();
      fillLong(a, 500); // two fact segments and more
      a.append("event", [newEvent({ date: "2024-03-05", time: "15:00", content: "和主人一起去看萤火虫", eventType: "event", duration: 60 })]);
      a.append("moment", [{ timestamp: sec(fromLocal(2024, 3, 6, 20, 0)), topic: "下雪", content: "主人第一次看雪，很兴奋", emotion: "excited", intensity: 4, importance: 4 }]);
      a.settle();
      ok(a.report().fact.segments >= 2, "a sealed fact segment");
      for (const n of ["/f000001.six", "/f.cat", "/f.sum", "/f.bsc"]) File.delete(root + n.slice(1));
      dev.reboot();
      a = new Archive(root);
      a.check();
      const svc = new Service({ sink: { remind() {} }, archive: a });
      let id = 0;
      const call = (args: Record<string, unknown>) => JSON.parse(JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!).result.content[0].text);
      const s = call({ action: "search", keyword: "萤火虫" });
      equal(s.partial, true, "the fact stream was cut");
      equal((s.archived.event ?? []).length, 1, `the event is found: ${JSON.stringify(s)}`);
      equal((call({ action: "search", keyword: "看雪" }).archived.moment ?? []).length, 1, "and the moment");
      const r = call({ action: "recall", keyword: "萤火虫" });
      ok(r.hits.some((h: { text: string }) => h.text.indexOf("萤火虫") >= 0), `recall without a type finds it: ${JSON.stringify(r)}`);
    },
  },
];

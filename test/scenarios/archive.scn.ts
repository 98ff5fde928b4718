// The deep archive (issue 4): line format, crash-safe append, recall by time,
// keyword and recency, the sidecar index and the bounds on flash reads.
import { File } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import { encodeRecord, recordId, MAX_LINE_BYTES } from "../../src/archive/line";
import { CHUNK } from "../../src/archive/file";
import type { Fact, Moment, Event } from "../../src/memory/types";
import { fromLocal, setUtcOffset } from "../../src/time/local";
import { decode } from "../../src/text/utf8";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = Date.UTC(2026, 1, 5, 5, 0);
const sec = (ms: number) => Math.floor(ms / 1000);

export function fresh(storageBytes?: number): SimDevice {
  return new SimDevice({ now: T0, storageBytes }).install();
}

// `n` facts an hour apart from local 2024-01-01 08:00, in batches of 5 (as overflow moves them).
export function fillFacts(a: Archive, n: number, text: (i: number) => string = (i) => `第${i}条：主人今天说了一件关于学校和朋友的小事`): Fact[] {
  const all: Fact[] = [];
  const t0 = sec(fromLocal(2024, 1, 1, 8, 0));
  for (let i = 0; i < n; i += 5) {
    const batch: Fact[] = [];
    for (let k = i; k < Math.min(n, i + 5); k++) batch.push({ timestamp: t0 + k * 3600, content: text(k) });
    a.append("fact", batch);
    all.push(...batch);
  }
  return all;
}

function fileText(name: string): string {
  const f = new File(root + name);
  const s = f.read(String) as string;
  f.close();
  return s;
}

function appendRaw(name: string, s: string): void {
  const f = new File(root + name, true);
  f.position = f.length;
  f.write(s);
  f.close();
}

// The largest single read while fn runs, and the traffic on the storage partition.
function reads(dev: SimDevice, fn: () => void): { bytes: number; calls: number; max: number } {
  const sp = dev.spiffs;
  const orig = sp.read;
  let max = 0;
  sp.read = function (name: string, offset: number, count: number) {
    const r = orig.call(sp, name, offset, count);
    if (r.length > max) max = r.length;
    return r;
  };
  dev.flash.resetTraffic();
  try {
    fn();
  } finally {
    sp.read = orig;
  }
  const t = dev.flash.partition("storage");
  return { bytes: t.bytesRead, calls: t.readCalls, max };
}

const moment = (i: number, topic: string, content: string): Moment => ({
  timestamp: sec(fromLocal(2025, 3, 1, 20, 0)) + i * 86400,
  topic,
  content,
  emotion: "happy",
  intensity: 4,
  importance: 5,
});

export const scenarios: Scenario[] = [
  {
    name: "a line: timestamp first in local time, the seed's keys, a stable id, one line of at most 512 bytes",
    run() {
      fresh();
      const f: Fact = { timestamp: sec(Date.UTC(2026, 0, 15, 2, 30)), content: '主人喜欢吃北京烤鸭 "真的"' };
      const e = encodeRecord("fact", f);
      const text = decode(e.line);
      equal(text, `{"timestamp":"2026-01-15T10:30:00","type":"fact","id":"${e.id}","content":"主人喜欢吃北京烤鸭 \\"真的\\""}\n`);
      equal(e.id, recordId("fact", { ...f }), "same record, same id");
      ok(/^[0-9a-f]{8}$/.test(e.id));
      ok(recordId("fact", { ...f, timestamp: f.timestamp + 1 }) !== e.id, "another record, another id");
      const m = encodeRecord("moment", moment(0, "生日聚会", "主人和朋友们一起庆祝生日"));
      equal(
        decode(m.line),
        `{"timestamp":"2025-03-01T20:00:00","type":"moment","id":"${m.id}","topic":"生日聚会","content":"主人和朋友们一起庆祝生日","emotion_type":1,"emotion_intensity":4,"importance":5}\n`,
      );
      const ev: Event = { date: "2025-05-01", time: "", eventType: "anniversary", content: "第一次去海边", reminded: 0, emotion: "touched", intensity: 3, significance: 4, priority: 3, schedule: false, completed: false, repeat: "none", repeatInterval: 1, duration: 60 };
      const l = JSON.parse(decode(encodeRecord("event", ev).line));
      deepEqual(Object.keys(l), ["timestamp", "type", "id", "date", "time", "event_type", "content", "emotion_type", "emotion_intensity", "significance", "priority", "flags"]);
      equal(l.timestamp, "2025-05-01T00:00:00");
      const long = encodeRecord("fact", { timestamp: f.timestamp, content: "长".repeat(400) + "x" });
      equal(long.line.length <= MAX_LINE_BYTES, true);
      ok(long.line.length > MAX_LINE_BYTES - 3, "cut no shorter than needed");
      equal(long.line[long.line.length - 1], 10);
      ok(JSON.parse(decode(long.line)).content.length > 100, "cut at a character boundary: still valid UTF-8 and JSON");
      setUtcOffset(0);
      try {
        equal(JSON.parse(decode(encodeRecord("fact", f).line)).timestamp, "2026-01-15T02:30:00", "local time follows the offset");
      } finally {
        setUtcOffset(480);
      }
    },
  },
  {
    name: "a missing file is an empty archive: recall gives nothing, nothing is written",
    run() {
      const dev = fresh();
      const a = new Archive();
      const r = a.check();
      equal(r.fact.records + r.moment.records + r.event.records, 0);
      deepEqual(a.recallRecent("fact"), []);
      deepEqual(a.recallByKeyword("moment", "生日"), []);
      deepEqual(a.recallByTimeRange("event", "2025-01-01", "2025-12-31"), []);
      equal(a.count("event"), 0);
      equal(dev.flash.partition("storage").writeCalls, 0, "no file is created to read");
      throws(() => a.recallRecent("trait"), { name: "ArchiveError", message: "type must be" });
      throws(() => a.recallByTimeRange("fact", "2025-02-30"), { message: "start_date" });
      throws(() => a.recallByKeyword("fact", "  "), { message: "keyword is required" });
      throws(() => a.recallRecent("fact", 0), { message: "limit" });
    },
  },
  {
    name: "append, then recall newest first by recency, time range and keyword; counts; all survive a reboot",
    run() {
      const dev = fresh();
      const a = new Archive();
      const facts = fillFacts(a, 120);
      equal(a.count("fact"), 120);
      const recent = a.recallRecent("fact", 3);
      deepEqual(recent.map((x) => x.content), [facts[119].content, facts[118].content, facts[117].content]);
      // facts are an hour apart from 2024-01-01 08:00: 2024-01-02 holds #16..#39
      const day = a.recallByTimeRange("fact", "2024-01-02", "2024-01-02", 100);
      equal(day.length, 24);
      equal(day[0].timestamp, "2024-01-02T23:00:00");
      equal(day[23].timestamp, "2024-01-02T00:00:00");
      deepEqual(a.recallByTimeRange("fact", "2024-01-02", undefined, 2).map((x) => x.timestamp), ["2024-01-06T07:00:00", "2024-01-06T06:00:00"]);
      deepEqual(a.recallByTimeRange("fact", undefined, "2024-01-01T09:00", 5).map((x) => x.timestamp), ["2024-01-01T09:00:00", "2024-01-01T08:00:00"]);
      deepEqual(a.recallByTimeRange("fact", "2024-01-03", "2024-01-02"), []);
      const kw = a.recallByKeyword("fact", "第7条", 10);
      deepEqual(kw.map((x) => x.content), [facts[7].content]);
      const many = a.recallByKeyword("fact", "学校", 10);
      equal(many.length, 10);
      equal(many[0].content, facts[119].content, "newest first");
      equal(a.recall("fact", { keyword: "第7条", limit: 10 }).length, 1);
      equal(a.recall("fact", { start: "2024-01-02", end: "2024-01-02", limit: 50 }).length, 24);
      equal(a.recall("fact", { limit: 2 }).length, 2);
      dev.reboot();
      const b = new Archive();
      const r = b.check();
      equal(r.fact.records, 120);
      equal(r.fact.bad, 0);
      equal(r.fact.rebuilt, undefined, "the index matched its file");
      deepEqual(b.recallByKeyword("fact", "第7条").map((x) => x.id), kw.map((x) => x.id));
    },
  },
  {
    name: "keyword: Latin letters in any case, full-width ASCII as half-width, Chinese exactly; only content and topic",
    run() {
      fresh();
      const a = new Archive();
      a.append("moment", [
        moment(0, "Beijing Trip", "去了故宫，拍了很多照片"),
        moment(1, "学习", "主人在学ＰＹＴＨＯＮ编程"),
        moment(2, "运动", "和朋友打篮球 Café au lait"),
        moment(3, "杂事", "今天的天气很好"),
      ]);
      const topics = (k: string) => a.recallByKeyword("moment", k).map((x) => x.topic);
      deepEqual(topics("beijing"), ["Beijing Trip"]);
      deepEqual(topics("BEIJING trip"), ["Beijing Trip"]);
      deepEqual(topics("python"), ["学习"]);
      deepEqual(topics("Ｐython"), ["学习"]);
      deepEqual(topics("ｂｅｉｊｉｎｇ"), ["Beijing Trip"]);
      deepEqual(topics("CAFÉ"), ["运动"]);
      deepEqual(topics("故宫"), ["Beijing Trip"]);
      deepEqual(topics("故 宫"), []);
      deepEqual(topics("天气"), ["杂事"]);
      deepEqual(topics("天氣"), [], "Chinese is matched exactly: no traditional/simplified folding");
      deepEqual(topics("emotion"), [], "key names are not content");
      deepEqual(topics("moment"), []);
      deepEqual(topics("2025"), [], "nor is the timestamp");
    },
  },
  {
    name: "a torn last line is never returned and the next append starts on a clean line",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 10);
      // a power cut in the middle of the next append
      const next: Fact = { timestamp: sec(fromLocal(2024, 2, 1, 8, 0)), content: "被打断的一条" };
      dev.cutAfter(1);
      ok(SimDevice.survive(() => a.append("fact", [next])), "the cut happened");
      dev.reboot();
      a = new Archive();
      const r = a.check();
      ok(r.fact.torn > 0, "torn bytes reported");
      equal(r.fact.records, 10);
      equal(a.recallRecent("fact", 20).length, 10);
      ok(!a.recallByKeyword("fact", "被打断").length);
      // the record is still to be archived: it is, once, on a clean line
      equal(a.append("fact", [next]).appended, 1);
      equal(a.recallByKeyword("fact", "被打断").length, 1);
      const text = fileText("facts.jsonl");
      ok(text.endsWith("\n"));
      ok(text.indexOf("#\n") > 0, "the torn line was closed off");
      dev.reboot();
      a = new Archive();
      const r2 = a.check();
      equal(r2.fact.records, 11);
      equal(r2.fact.bad, 1, "the closed-off torn line is counted, never returned");
      equal(r2.fact.torn, 0);
    },
  },
  {
    name: "a torn line that is complete JSON without its newline is still never a record",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 5);
      const e = encodeRecord("fact", { timestamp: sec(T0), content: "差一个换行" });
      appendRaw("facts.jsonl", decode(e.line.subarray(0, e.line.length - 1)));
      dev.reboot();
      a = new Archive();
      equal(a.check().fact.records, 5);
      ok(!a.recallByKeyword("fact", "差一个换行").length);
      a.append("fact", [{ timestamp: sec(T0) + 60, content: "下一条" }]);
      ok(!a.recallByKeyword("fact", "差一个换行").length, "closing it off keeps it invalid");
      equal(a.recallByKeyword("fact", "下一条").length, 1);
      equal(a.count("fact"), 6);
    },
  },
  {
    name: "lines that do not parse are skipped, counted and reported, never fatal",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 10);
      appendRaw("facts.jsonl", 'not json at all\n{"timestamp":"2024-13-01T00:00:00","type":"fact"}\n{"timestamp":"2024-01-05T00:00:00","type":"moment","id":"00000000","content":"x"}\n');
      appendRaw("facts.jsonl", "\u0000\u0001garbage\n");
      dev.reboot();
      a = new Archive();
      fillFacts(a, 0);
      a.append("fact", [{ timestamp: sec(fromLocal(2024, 1, 5, 0, 0)), content: "后来的一条" }]);
      const r = a.report();
      equal(r.fact.records, 11);
      equal(r.fact.bad, 4);
      equal(a.recallRecent("fact", 50).length, 11);
      equal(a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 50).length, 11);
      equal(a.recallByKeyword("fact", "x").length, 0);
    },
  },
  {
    name: "archiving the same record twice is detected by its id and skipped",
    run() {
      fresh();
      const a = new Archive();
      const facts = fillFacts(a, 40);
      const again = a.append("fact", [facts[3], facts[39], { timestamp: facts[39].timestamp, content: "同一时刻的另一条" }]);
      equal(again.appended, 1);
      equal(again.skipped, 2);
      equal(a.count("fact"), 41);
      equal(a.append("fact", [facts[0], facts[0]]).appended, 0);
      deepEqual(a.contains("fact", [facts[5], { timestamp: 1, content: "没有的" }]), [true, false]);
    },
  },
  {
    name: "the index: lost, damaged or stale, it is rebuilt from the file at boot and no record is lost",
    run() {
      const dev = fresh();
      let a = new Archive();
      const facts = fillFacts(a, 150);
      const before = a.recallByKeyword("fact", "第42条").map((x) => x.id);
      equal(before.length, 1);
      ok(a.report().fact.blocks >= 4, "several blocks");
      // lost
      File.delete(root + "facts.idx");
      dev.reboot();
      a = new Archive();
      let r = a.check();
      equal(r.fact.rebuilt, "missing");
      equal(r.fact.records, 150);
      deepEqual(a.recallByKeyword("fact", "第42条").map((x) => x.id), before);
      // damaged: a byte of an entry flipped
      const idx = new File(root + "facts.idx", true);
      idx.position = 32 + 28 + 5;
      idx.write(0x7f);
      idx.close();
      dev.reboot();
      a = new Archive();
      r = a.check();
      ok(r.fact.rebuilt !== undefined, "rebuilt after damage");
      equal(a.count("fact"), 150);
      // stale: the data file was replaced behind the index's back
      const keep = a.report().fact.blocks;
      File.delete(root + "facts.jsonl");
      const w = new File(root + "facts.jsonl", true);
      for (const f of facts.slice(100)) w.write(encodeRecord("fact", f).line.buffer as ArrayBuffer);
      w.close();
      dev.reboot();
      a = new Archive();
      r = a.check();
      ok(r.fact.rebuilt !== undefined, "a stale index is not trusted");
      ok(r.fact.blocks < keep);
      equal(r.fact.records, 50);
      equal(a.recallByKeyword("fact", "第142条").length, 1);
      equal(a.recallByKeyword("fact", "第42条").length, 0);
    },
  },
  {
    name: "flash is read in chunks of at most 4 KB; recent, time range and a rare keyword read a small part",
    run() {
      const dev = fresh();
      const a = new Archive();
      fillFacts(a, 1500, (i) => (i % 300 === 77 ? `第${i}条：主人说起了萤火虫` : `第${i}条：主人今天说了一件关于学校和朋友的小事，还有晚饭吃了什么`));
      const size = a.report().fact.bytes;
      ok(size > 150000, `archive of ${size} bytes`);
      let got = 0;
      const recent = reads(dev, () => (got = a.recallRecent("fact").length));
      equal(got, 10);
      ok(recent.max <= CHUNK, `largest read ${recent.max}`);
      ok(recent.bytes <= 16384, `recent read ${recent.bytes}`);
      let month = 0, matchBytes = 0;
      const range = reads(dev, () => {
        const items = a.recallByTimeRange("fact", "2024-02-01", "2024-02-29", 1000);
        month = items.length;
        for (const x of items) matchBytes += encodeRecord("fact", { timestamp: 0, content: x.content }).line.length;
      });
      equal(month, 29 * 24);
      ok(range.max <= CHUNK);
      ok(range.bytes <= matchBytes + 32768, `time range read ${range.bytes} for ${matchBytes} matching`);
      const rare = reads(dev, () => (got = a.recallByKeyword("fact", "萤火虫").length));
      equal(got, 5);
      ok(rare.max <= CHUNK);
      ok(rare.bytes <= size * 0.3, `rare keyword read ${rare.bytes} of ${size}`);
      ok(a.lastRecall.linesParsed <= 10, `parsed ${a.lastRecall.linesParsed}`);
      const all = reads(dev, () => a.forEach("fact", () => {}));
      ok(all.max <= CHUNK && all.bytes >= size, "a full scan is chunked too");
    },
  },
  {
    name: "bad arguments are clear errors",
    run() {
      fresh();
      const a = new Archive();
      throws(() => a.append("fact", [{ nope: 1 } as unknown as Fact]), { name: "ArchiveError", message: "not a record" });
      throws(() => a.append("trait" as "fact", []), { message: "type must be" });
      ok(new ArchiveError("full", "x") instanceof Error);
    },
  },
];

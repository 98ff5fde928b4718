// The deep archive, format 2 (issue 12): the lines, a crash-safe append,
// recall by recency, time and keyword newest first, and the bounds on flash
// reads. Segments, twins, damage, forgetting and retiring have their own
// files (archive-segments, archive-twin, archive-damage, archive-forget2,
// archive-retire).
import { File } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError, MAX_LIMIT } from "../../src/archive/archive";
import { encodeRecord, MAX_LINE, SUFFIX, SUFFIX4 } from "../../src/archive/codec";
import { recordId } from "../../src/archive/line";
import { CHUNK } from "../../src/archive/file";
import { crc32 } from "../../src/nvs/crc32";
import type { Fact, Moment, Event } from "../../src/memory/types";
import { newEvent } from "../../src/memory/types";
import { fromLocal, setUtcOffset } from "../../src/time/local";
import { decode, encode } from "../../src/text/utf8";
import { compactEncode, compactDecode } from "../../src/text/compact";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = Date.UTC(2026, 1, 5, 5, 0);
export const sec = (ms: number) => Math.floor(ms / 1000);

export function fresh(storageBytes?: number): SimDevice {
  return new SimDevice({ now: T0, storageBytes }).install();
}

// The files `make` leaves on a fresh device, made once per `key` (a fixture
// several scenarios share; each boots a copy with bootImage).
const made = new Map<string, Map<string, Uint8Array>>();
export function imageOnce(key: string, make: (dev: SimDevice) => void): Map<string, Uint8Array> {
  let m = made.get(key);
  if (!m) {
    const dev = fresh();
    make(dev);
    made.set(key, (m = image(dev)));
  }
  return m;
}

// A fresh device loaded with a copy of `files`, its archive booted.
export function bootImage(files: Map<string, Uint8Array>): { dev: SimDevice; a: Archive } {
  const dev = fresh();
  for (const [n, b] of files) dev.spiffs.load(n, b.slice());
  const a = new Archive(root);
  a.check();
  return { dev, a };
}

// `n` facts an hour apart from local 2024-01-01 08:00, in batches of 5 (as overflow moves them).
export function fillFacts(a: Archive, n: number, text: (i: number) => string = (i) => `第${i}条：主人今天说了一件关于学校和朋友的小事`, from = 0): Fact[] {
  const all: Fact[] = [];
  const t0 = sec(fromLocal(2024, 1, 1, 8, 0));
  for (let i = from; i < from + n; i += 5) {
    const batch: Fact[] = [];
    for (let k = i; k < Math.min(from + n, i + 5); k++) batch.push({ timestamp: t0 + k * 3600, content: text(k) });
    a.append("fact", batch);
    all.push(...batch);
  }
  return all;
}

export const moment = (i: number, topic: string, content: string, more: Partial<Moment> = {}): Moment => ({
  timestamp: sec(fromLocal(2025, 3, 1, 20, 0)) + i * 86400,
  topic,
  content,
  emotion: "happy",
  intensity: 4,
  importance: 5,
  ...more,
});

export function fileText(name: string): string {
  const f = new File(root + name);
  try {
    return f.read(String) as string;
  } finally {
    f.close();
  }
}

export function appendRaw(name: string, s: string): void {
  const f = new File(root + name, true);
  f.position = f.length;
  f.write(s);
  f.close();
}

// Names of the files in the root, sorted.
export function names(dev: SimDevice): string[] {
  return dev.spiffs
    .list()
    .map((e) => e.name)
    .sort();
}

// Every file's bytes (to compare "nothing changed").
export function image(dev: SimDevice): Map<string, Uint8Array> {
  const m = new Map<string, Uint8Array>();
  for (const e of dev.spiffs.list()) m.set(e.name, dev.spiffs.content(e.name));
  return m;
}

export function sameImage(a: Map<string, Uint8Array>, b: Map<string, Uint8Array>): string | undefined {
  if (a.size !== b.size) return `files ${[...a.keys()].sort().join(",")} -> ${[...b.keys()].sort().join(",")}`;
  for (const [n, x] of a) {
    const y = b.get(n);
    if (!y || y.length !== x.length) return `${n} length`;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `${n} byte ${i}`;
  }
  return undefined;
}

// The largest single read while fn runs, and the traffic on the storage partition.
export function reads(dev: SimDevice, fn: () => void): { bytes: number; calls: number; max: number } {
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

// The lines of a file (without their "\n"; a last piece without one is included).
export function linesOf(dev: SimDevice, name: string): string[] {
  const t = decode(dev.spiffs.content(name));
  const a = t.split("\n");
  if (a[a.length - 1] === "") a.pop();
  return a;
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// The CRC a line's frame holds, worked out here apart from the codec: format
// 4's 6 base64url characters (the CRC's 32 bits, most significant first, and 4
// zero bits), or format 2 and 3's 8 hex digits; with the length of the frame
// and its format (4, or 3 for formats 2 and 3). Undefined for neither.
export function frameOfLine(line: string): { crc: number; len: number; format: number } | undefined {
  const m4 = /,"z":"([A-Za-z0-9_-]{6})"\}$/.exec(line);
  if (m4) {
    let v = 0;
    for (const ch of m4[1]) v = v * 64 + B64URL.indexOf(ch);
    if (v % 16) return undefined;
    return { crc: v / 16, len: SUFFIX4, format: 4 };
  }
  const m3 = /,"z":"([0-9a-f]{8})"\}$/.exec(line);
  return m3 ? { crc: parseInt(m3[1], 16), len: SUFFIX, format: 3 } : undefined;
}

// Does a line end with the CRC of its body (in format 4's frame, or 2 and 3's)?
export function crcHolds(line: string, format?: number): boolean {
  const b = encode(line);
  const f = frameOfLine(line);
  if (!f || b.length < f.len + 2 || (format !== undefined && f.format !== format)) return false;
  return f.crc === crc32(b.subarray(0, b.length - f.len));
}

// Characters that compact text (src/text/compact.ts, table 1) leaves as they
// are: 3 bytes each in any format, for fillers whose point is their length.
export const PAD = "鼀鼁鼂鼃鼄鼅鼆鼇鼈鼉鼊鼋鼌鼍鼎鼏鼐鼑鼒鼓鼔鼕鼖鼗鼘鼙鼚鼛鼜鼝鼞鼟鼡鼢鼣鼤鼥鼦鼧鼨鼩鼪鼫鼬鼭鼮鼯鼰鼱鼲鼳鼴鼵鼶鼷鼸鼹鼺鼻鼼鼽鼾鼿齀齁齂齃齄齅齆齇齈齉齊齋齌齍齎齏齑";

export const scenarios: Scenario[] = [
  {
    name: "archive v2 line: t first as unix seconds, short keys, the CRC of the line last; the id is the NVS record's",
    run() {
      fresh();
      const f: Fact = { timestamp: sec(Date.UTC(2026, 0, 15, 2, 30)), content: '主人喜欢吃北京烤鸭 "真的"' };
      const e = encodeRecord("fact", f);
      const text = decode(e.line);
      // format 3: the content in compact text under "C" (docs/FORMAT.md §3.16), shorter than its UTF-8
      const cc = compactEncode(f.content);
      // format 4: t from 2020-01-01T00:00:00Z on as its offset from then, under "T" (FORMAT.md §3.18)
      ok(text.startsWith(`{"T":${f.timestamp - 1577836800},"C":${JSON.stringify(cc)},"z":"`), text);
      const old = decode(encodeRecord("fact", { timestamp: 1577836799, content: "x" }).line);
      ok(old.startsWith('{"t":1577836799,"c":"x","z":"'), `before 2020: unix seconds under t: ${old}`);
      ok(decode(encodeRecord("fact", { timestamp: 1577836800, content: "x" }).line).startsWith('{"T":0,"c":"x","z":"'), "2020-01-01: T 0");
      ok(encode(cc).length < encode(f.content).length, "compact is shorter");
      equal(compactDecode(JSON.parse(text).C), f.content, "and decodes to the content");
      equal(decode(encodeRecord("fact", { ...f, content: 'ok "x"' }).line).indexOf('"c":"ok \\"x\\""'), 15, "ASCII stays plain under c");
      ok(text.endsWith('"}\n'));
      ok(crcHolds(text.slice(0, -1), 4), "the CRC holds, in format 4's frame");
      ok(/,"z":"[A-Za-z0-9_-]{5}[AQgw]"\}\n$/.test(text), `6 base64url characters, the last with 4 zero bits: ${text}`);
      equal(e.id, recordId("fact", { ...f }), "the id is recordId of the record");
      equal(e.t, f.timestamp);
      const m = moment(0, "生日聚会", "主人和朋友们一起庆祝生日");
      const ml = JSON.parse(decode(encodeRecord("moment", m).line));
      deepEqual(Object.keys(ml), ["T", "P", "C", "e", "i", "m", "z"]);
      deepEqual([ml.T + 1577836800, compactDecode(ml.P), compactDecode(ml.C), ml.e, ml.i, ml.m], [m.timestamp, "生日聚会", "主人和朋友们一起庆祝生日", 1, 4, 5]);
      const ev: Event = newEvent({ date: "2025-05-01", content: "第一次去海边", eventType: "anniversary", emotion: "touched", intensity: 3, significance: 4, priority: 3, duration: 60 } as Partial<Event> & { date: string; content: string });
      const el = JSON.parse(decode(encodeRecord("event", ev).line));
      deepEqual(Object.keys(el), ["T", "d", "h", "y", "C", "e", "i", "g", "r", "f", "z"]);
      equal(el.T + 1577836800, sec(fromLocal(2025, 5, 1, 0, 0)), "an event's t is its local date at 00:00");
      ok(recordId("fact", { ...f, timestamp: f.timestamp + 1 }) !== e.id, "another record, another id");
      // a time zone change does not change a line: t is UTC
      setUtcOffset(0);
      try {
        deepEqual(encodeRecord("fact", f).line, e.line);
      } finally {
        setUtcOffset(480);
      }
    },
  },
  {
    name: "archive v2 line: a record over 512 bytes is cut at a character boundary and carries its id as x; recall gives that id",
    run() {
      fresh();
      const f: Fact = { timestamp: sec(T0), content: "长".repeat(400) + "x" };
      const e = encodeRecord("fact", f);
      ok(e.line.length <= MAX_LINE, `line of ${e.line.length}`);
      ok(e.line.length > MAX_LINE - 20, "cut no shorter than needed");
      equal(e.line[e.line.length - 1], 10);
      const j = JSON.parse(decode(e.line));
      equal(j.x, recordId("fact", f), "the line carries the record's id");
      const jc = compactDecode(j.C) as string;
      ok(typeof j.C === "string" && f.content.startsWith(jc) && jc.length > 100, "a prefix of the content, in compact text");
      ok(crcHolds(decode(e.line.subarray(0, e.line.length - 1)), 4));
      const short = JSON.parse(decode(encodeRecord("fact", { timestamp: sec(T0), content: "短" }).line));
      equal(short.x, undefined, "a line that fits has no x");
      const m = moment(1, "长".repeat(300), "内容".repeat(200));
      const ml = encodeRecord("moment", m);
      ok(ml.line.length <= MAX_LINE);
      const a = new Archive(root);
      a.append("fact", [f]);
      a.append("moment", [m]);
      const got = a.recallRecent("fact")[0];
      equal(got.id, recordId("fact", f));
      equal(got.content, jc);
      equal(a.recallRecent("moment")[0].id, recordId("moment", m));
      deepEqual(a.contains("fact", [f]), [true], "the cut record is known by its id");
      equal(a.append("fact", [f]).appended, 0, "and not archived twice");
    },
  },
  {
    name: "archive v2: a missing archive is empty: recall gives nothing, nothing is written; bad arguments are clear errors",
    run() {
      const dev = fresh();
      const a = new Archive();
      const r = a.check();
      equal(r.fact.segments + r.moment.segments + r.event.segments + r.digest.segments, 0);
      deepEqual(a.recallRecent("fact"), []);
      deepEqual(a.recallByKeyword("moment", "生日"), []);
      deepEqual(a.recallByTimeRange("event", "2025-01-01", "2025-12-31"), []);
      equal(a.count("event"), 0);
      equal(a.step(), undefined, "nothing to do");
      equal(dev.flash.partition("storage").writeCalls, 0, "no file is created to read");
      throws(() => a.recallRecent("trait"), { name: "ArchiveError", message: "type must be" });
      throws(() => a.recallByTimeRange("fact", "2025-02-30"), { message: "start_date" });
      throws(() => a.recallByTimeRange("fact", undefined, "tomorrow"), { message: "end_date" });
      throws(() => a.recallByKeyword("fact", "  "), { message: "keyword is required" });
      throws(() => a.recallRecent("fact", 0), { message: "limit" });
      throws(() => a.recallRecent("fact", "3" as unknown as number), { message: "limit" });
      throws(() => a.append("fact", [{ nope: 1 } as unknown as Fact]), { name: "ArchiveError", message: "not a record" });
      throws(() => a.append("fact", [{ timestamp: -5, content: "x" }]), { name: "ArchiveError", message: "timestamp" });
      throws(() => a.append("fact", [{ timestamp: 1.5, content: "x" }]), { name: "ArchiveError", message: "timestamp" });
      throws(() => a.append("event", [{ ...newEvent({ date: "2025-05-01", content: "x", duration: 60 }), date: "五月" }]), { name: "ArchiveError", message: "date" });
      throws(() => a.append("trait" as "fact", []), { message: "type must be" });
      // a batch with one bad record is refused whole
      throws(() => a.append("fact", [{ timestamp: 1704067200, content: "好的" }, { timestamp: 1704067200 } as unknown as Fact]), { name: "ArchiveError" });
      equal(dev.flash.partition("storage").writeCalls, 0, "nothing written by a refused append");
      equal(a.count("fact"), 0);
      ok(new ArchiveError("full", "x") instanceof Error);
      equal(new ArchiveError("io", "x").name, "ArchiveError");
    },
  },
  {
    name: "archive v2: append, then recall newest first by recency, time range and keyword; limits; counts; all survive a reboot",
    run() {
      const dev = fresh();
      const a = new Archive();
      const facts = fillFacts(a, 120);
      equal(a.count("fact"), 120);
      const recent = a.recallRecent("fact", 3);
      deepEqual(recent.map((x) => x.content), [facts[119].content, facts[118].content, facts[117].content]);
      equal(recent[0].id, recordId("fact", facts[119]));
      equal(recent[0].type, "fact");
      equal(recent[0].timestamp, "2024-01-06T07:00:00", "local time");
      equal(a.recallRecent("fact").length, 10, "the default limit");
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
      deepEqual(many.map((x) => x.content), facts.slice(110).reverse().map((f) => f.content), "newest first");
      equal(a.recallByKeyword("fact", "学校", 5000).length, 120, "a limit over the maximum is the maximum");
      ok(MAX_LIMIT >= 120);
      equal(a.recall("fact", { keyword: "第7条", limit: 10 }).length, 1);
      equal(a.recall("fact", { start: "2024-01-02", end: "2024-01-02", limit: 50 }).length, 24);
      equal(a.recall("fact", { limit: 2 }).length, 2);
      dev.reboot();
      const b = new Archive();
      b.check();
      equal(b.count("fact"), 120);
      deepEqual(b.recallByKeyword("fact", "第7条").map((x) => x.id), kw.map((x) => x.id));
      deepEqual(b.recallRecent("fact", 3), recent);
    },
  },
  {
    name: "archive v2 keyword: Latin letters in any case, full-width ASCII as half-width, Chinese exactly; only content and topic",
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
      deepEqual(topics("z"), [], "key names are not content");
      deepEqual(topics('"t"'), []);
      deepEqual(topics(String(moment(0, "", "").timestamp)), [], "nor is the time");
    },
  },
  {
    name: "archive v2: a torn last line is never returned; the next append writes #\\n first and its records are whole",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 10);
      // a power cut in the middle of the next append: the segment keeps a prefix
      const next: Fact[] = [];
      for (let i = 0; i < 5; i++) next.push({ timestamp: sec(fromLocal(2024, 2, 1, 8, i)), content: `被打断的一条${i}：主人说了一件很长很长的事情，长到要写好几页才写得完` });
      dev.spiffs.tearModes = ["prefix"];
      const before = dev.spiffs.length("/f000001.jsonl");
      dev.cutAfter(1);
      ok(SimDevice.survive(() => a.append("fact", next)), "the cut happened");
      dev.reboot();
      const after = dev.spiffs.length("/f000001.jsonl");
      ok(after > before, "part of the append reached the segment");
      ok(dev.spiffs.content("/f000001.jsonl")[after - 1] !== 10, "it ends inside a line");
      a = new Archive();
      a.check();
      const whole = a.count("fact");
      ok(whole >= 10 && whole < 15, `the acknowledged records and whole lines of the cut append (${whole})`);
      equal(a.recallRecent("fact", 20).length, whole);
      for (const x of a.recallRecent("fact", 20)) ok(x.content.indexOf("被打断") < 0 || next.some((n) => n.content === x.content), "a whole line or none");
      // the records are still to be archived: each once, after a closed-off fragment
      const r = a.append("fact", next);
      equal(r.appended + r.skipped, 5);
      equal(a.count("fact"), 15);
      equal(a.recallByKeyword("fact", "被打断", 20).length, 5);
      const lines = linesOf(dev, "/f000001.jsonl");
      ok(lines.indexOf("#") < 0, "the # is on the fragment's line");
      ok(lines.some((l) => l.endsWith("#") && !crcHolds(l)), "the torn line was closed off with #");
      ok(fileText("f000001.jsonl").endsWith("\n"));
      dev.reboot();
      a = new Archive();
      a.check();
      equal(a.count("fact"), 15, "the closed-off fragment is never a record");
      deepEqual(dev.spiffs.content("/f000001.par"), dev.spiffs.content("/f000001.jsonl"), "the twin holds the same bytes");
    },
  },
  {
    name: "archive v2: a torn line that is complete JSON without its newline is never a record",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 5);
      const e = encodeRecord("fact", { timestamp: sec(T0), content: "差一个换行" });
      appendRaw("f000001.jsonl", decode(e.line.subarray(0, e.line.length - 1)));
      dev.reboot();
      a = new Archive();
      a.check();
      equal(a.count("fact"), 5);
      ok(!a.recallByKeyword("fact", "差一个换行").length);
      ok(!a.recallByTimeRange("fact", "2026-01-01", "2026-12-31").length);
      a.append("fact", [{ timestamp: sec(T0) + 60, content: "下一条" }]);
      ok(!a.recallByKeyword("fact", "差一个换行").length, "closing it off keeps it invalid");
      equal(a.recallByKeyword("fact", "下一条").length, 1);
      equal(a.count("fact"), 6);
    },
  },
  {
    name: "archive v2: lines that are not records (no CRC, a wrong CRC, foreign JSON, garbage) are skipped, never served, never fatal",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 10);
      const good = decode(encodeRecord("fact", { timestamp: sec(fromLocal(2024, 1, 4, 0, 0)), content: "crc不对的一条" }).line);
      const wrong = good.replace("crc", "crx"); // lower-case ASCII: the same bytes in compact text
      ok(wrong !== good, "the line was changed");
      appendRaw("f000001.jsonl", 'not json at all\n{"t":1704067200,"c":"没有CRC"}\n' + wrong + '{"t":"x","c":"y","z":"00000000"}\n\u0000\u0001garbage\n');
      dev.reboot();
      a = new Archive();
      a.check();
      a.append("fact", [{ timestamp: sec(fromLocal(2024, 1, 5, 0, 0)), content: "后来的一条" }]);
      equal(a.count("fact"), 11);
      equal(a.recallRecent("fact", 50).length, 11);
      equal(a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 50).length, 11);
      equal(a.recallByKeyword("fact", "CRC", 50).length, 0);
      equal(a.recallByKeyword("fact", "没有", 50).length, 0);
      equal(a.recallByKeyword("fact", "后来", 50).length, 1);
    },
  },
  {
    name: "archive v2: a record archived twice (same id) is skipped, in one batch or a repeated move",
    run() {
      fresh();
      const a = new Archive();
      const facts = fillFacts(a, 40);
      const again = a.append("fact", [facts[38], facts[39], { timestamp: facts[39].timestamp, content: "同一时刻的另一条" }]);
      equal(again.appended, 1);
      equal(again.skipped, 2);
      equal(a.count("fact"), 41);
      // every batch repeated right after it was archived (a move repeated after a
      // cut): skipped whole, wherever the blocks and segments of the stream end
      const t0 = facts[39].timestamp + 3600;
      let n = 41;
      for (let k = 0; k < 320; k++) {
        const batch: Fact[] = [];
        for (let i = 0; i < 5; i++) batch.push({ timestamp: t0 + k * 600 + i, content: `第${k}批第${i}条：一条用来把块和段填满的、比较长的记录` });
        equal(a.append("fact", batch).appended, 5);
        const r = a.append("fact", batch);
        equal(r.appended, 0, `batch ${k} repeated: nothing appended`);
        equal(r.skipped, 5);
        n += 5;
      }
      ok(a.report().fact.segments >= 2, "the batches crossed a segment");
      equal(a.count("fact"), n);
      const dup = a.append("fact", [{ timestamp: 1, content: "新的" }, { timestamp: 1, content: "新的" }]);
      deepEqual([dup.appended, dup.skipped], [1, 1]);
      equal(a.append("fact", [{ timestamp: 1, content: "新的" }]).appended, 0);
      deepEqual(a.contains("fact", [facts[5], { timestamp: 1, content: "没有的" }, facts[0]]), [true, false, true]);
      equal(a.count("fact"), n + 1);
    },
  },
  {
    name: "archive v2: flash is read in chunks of at most 4 KB everywhere; recent, a month and a rare word read a small part",
    run() {
      const dev = fresh();
      const a = new Archive();
      let worst = 0;
      const w = reads(dev, () => fillFacts(a, 1500, (i) => (i % 300 === 77 ? `第${i}条：主人说起了萤火虫` : `第${i}条：主人今天说了一件关于学校和朋友的小事，还有晚饭吃了什么${PAD.slice(0, 25)}`)));
      worst = Math.max(worst, w.max);
      ok(w.bytes <= 1500 / 5 * 4096 + 65536, `appends read ${w.bytes}: each at most its tail`);
      const s = reads(dev, () => a.settle());
      worst = Math.max(worst, s.max);
      const size = a.footprint();
      ok(size > 150000, `archive of ${size} bytes`);
      let got = 0;
      const recent = reads(dev, () => (got = a.recallRecent("fact").length));
      equal(got, 10);
      ok(recent.bytes <= 16384, `recent read ${recent.bytes}`);
      let month = 0, matchBytes = 0;
      const range = reads(dev, () => {
        const items = a.recallByTimeRange("fact", "2024-02-01", "2024-02-29", 1000);
        month = items.length;
        for (const x of items) matchBytes += encodeRecord("fact", { timestamp: sec(T0), content: x.content }).line.length;
      });
      equal(month, 29 * 24);
      ok(range.bytes <= matchBytes + 32768, `time range read ${range.bytes} for ${matchBytes} matching`);
      const rare = reads(dev, () => (got = a.recallByKeyword("fact", "萤火虫").length));
      equal(got, 5);
      ok(rare.bytes <= size * 0.3, `rare keyword read ${rare.bytes} of ${size}`);
      ok(a.lastRecall.linesParsed <= 200, `parsed ${a.lastRecall.linesParsed}`);
      dev.reboot();
      const b = new Archive();
      const boot = reads(dev, () => b.check());
      ok(boot.bytes <= 16384, `boot read ${boot.bytes}`);
      const all = reads(dev, () => b.forEach("fact", () => {}));
      ok(all.bytes >= size * 0.5, "a full scan reads it all");
      for (const x of [recent, range, rare, boot, all]) worst = Math.max(worst, x.max);
      ok(worst <= CHUNK, `largest read ${worst}`);
    },
  },
];

// action=query (issue 16 item 7): the query language over episodes, facts,
// events and digests, streamed from flash; every error class names the bad
// part and where, and changes nothing. A real Archive (format 2) on the
// simulated device; episodes through a small fake EpisodeReader.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import type { ArchiveAccess } from "../../src/mcp/memory-tool";
import { encodeDigest } from "../../src/archive/codec";
import { recordId } from "../../src/archive/line";
import { Service } from "../../src/app/service";
import { Episodes } from "../../src/episode/episodes";
import { EpisodeStore } from "../../src/episode/store";
import { importance } from "../../src/episode/score";
import type { Episode, EpisodeReader } from "../../src/episode/types";
import { newEvent, type Fact } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { ROWS_BUDGET_BYTES } from "../../src/query/run";
import { reads, image, sameImage, fillFacts, PAD } from "./archive.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";


const root = config.file.root;
const T0 = fromLocal(2026, 2, 5, 13, 0); // 2026-02-05 13:00 +08:00
const sec = (y: number, mo: number, d: number, h = 12, mi = 0) => Math.floor(fromLocal(y, mo, d, h, mi) / 1000);

// A fake EpisodeReader: what it was asked for is recorded.
export class FakeEpisodes implements EpisodeReader {
  asked: { text: boolean; trash: boolean }[] = [];
  visited = 0;
  constructor(readonly eps: Episode[]) {}
  forEach(fn: (ep: Episode) => boolean | void, opts?: { trash?: boolean; text?: boolean }): void {
    const text = !!opts?.text, trash = !!opts?.trash;
    this.asked.push({ text, trash });
    for (const e of this.eps) {
      if (e.state === "trash" && !trash) continue;
      this.visited++;
      // the reader may reuse its object: the runner must copy what it keeps
      const shown: Episode = { ...e, content: text ? e.content : "", keywords: text ? e.keywords.slice() : [] };
      if (fn(shown) === true) return;
    }
  }
}

export function episode(id: number, content: string, scores: [number, number, number, number], more: Partial<Episode> = {}): Episode {
  return {
    slot: id - 1,
    id,
    state: "active",
    content,
    keywords: [],
    emotion: "neutral",
    e: scores[0],
    i: scores[1],
    p: scores[2],
    j: scores[3],
    useCount: 0,
    createdAt: sec(2026, 1, id),
    lastActiveAt: sec(2026, 1, id),
    purgeAt: 0,
    source: "ai",
    sig: new Uint8Array(64),
    ...more,
  };
}

export function setup(withArchive = true) {
  const dev = new SimDevice({ now: T0 }).install();
  const archive = new Archive(root);
  archive.check();
  const svc = new Service({ sink: { remind() {} }, archive: withArchive ? archive : undefined });
  const call = toolCaller(svc);
  const fact = (content: string, ts: number) => {
    svc.memory.addFact(content, ts);
    svc.memory.flush();
  };
  const q = (args: Record<string, unknown>) => {
    const r = call({ action: "query", ...args });
    ok(!r.isError, `query failed: ${r.text}`);
    return r.json;
  };
  const err = (args: Record<string, unknown>) => {
    const r = call({ action: "query", ...args });
    ok(r.isError, `expected an error, got ${r.text}`);
    return r.text;
  };
  return { dev, archive, svc, call, fact, q, err };
}

type Row = Record<string, unknown>;
const col = (rows: Row[], k: string) => rows.map((r) => r[k]);

// Facts: three in NVS, four archived, over January 2026.
function facts(s: ReturnType<typeof setup>) {
  s.archive.append("fact", [
    { timestamp: sec(2026, 1, 2), content: "主人喜欢打篮球" },
    { timestamp: sec(2026, 1, 5), content: "主人的猫叫豆豆" },
    { timestamp: sec(2026, 1, 9), content: "Owner plays BASKETBALL on Sunday" },
    { timestamp: sec(2026, 1, 12), content: "主人在北京工作" },
  ]);
  s.fact("主人周末去游泳", sec(2026, 1, 20));
  s.fact("主人的生日是3月15日", sec(2026, 1, 25));
  s.fact("主人说 it's 100% true", sec(2026, 2, 1));
}

const episodes = () =>
  new FakeEpisodes([
    episode(1, "和主人聊了篮球比赛", [40, 60, 10, 50], { keywords: ["篮球", "比赛"], emotion: "excited", useCount: 3 }),
    episode(2, "主人说他讨厌香菜", [20, 40, 100, 70], { keywords: ["香菜"], emotion: "neutral" }),
    episode(3, "主人的猫生病了，很担心", [90, 50, 50, 80], { keywords: ["猫", "生病"], emotion: "worried", useCount: 7 }),
    episode(4, "一起计划去海边", [30, 30, 50, 40], { keywords: ["海边", "旅行"], emotion: "happy", state: "trash", purgeAt: sec(2026, 2, 10) }),
  ]);

export const scenarios: Scenario[] = [
  {
    name: "query: every operator on facts (NVS and archive), numbers, folded text, dates on their own length",
    run() {
      const s = setup();
      facts(s);
      const c = (where: string, extra: Row = {}) => col(s.q({ from: "fact", where, select: "content", limit: 50, ...extra }).rows, "content");
      deepEqual(c("content = '主人在北京工作'"), ["主人在北京工作"], "=");
      deepEqual(c("content != '主人在北京工作' AND date >= '2026-01-09'"), ["主人说 it's 100% true", "主人的生日是3月15日", "主人周末去游泳", "Owner plays BASKETBALL on Sunday"], "!= and >=");
      deepEqual(c("date <= '2026-01-05'"), ["主人的猫叫豆豆", "主人喜欢打篮球"], "<= takes the whole day");
      deepEqual(c("date = '2026-01'"), c("date >= '2026-01' and date <= '2026-01'"), "a month");
      equal(c("date = '2026-01'").length, 6);
      deepEqual(c("date > '2026-01-25'"), ["主人说 it's 100% true"], ">");
      deepEqual(c("date < '2026-01-05'"), ["主人喜欢打篮球"], "<");
      deepEqual(c("content CONTAINS 'basketball'"), ["Owner plays BASKETBALL on Sunday"], "CONTAINS folds case");
      deepEqual(c("content CONTAINS 'ＢＡＳＫＥＴ'"), ["Owner plays BASKETBALL on Sunday"], "and width");
      deepEqual(c("content CONTAINS 篮球"), ["主人喜欢打篮球"], "a bare CJK word");
      deepEqual(c("content LIKE '主人%猫%'"), ["主人的猫叫豆豆"], "LIKE %");
      deepEqual(c("content LIKE '主人___游泳'"), ["主人周末去游泳"], "LIKE _ is one character");
      deepEqual(c("content LIKE '主人__游泳'"), [], "not two");
      deepEqual(c("content LIKE '%100\\%%'"), ["主人说 it's 100% true"], "\\% is a literal %");
      deepEqual(c("content LIKE 'owner%'"), ["Owner plays BASKETBALL on Sunday"], "LIKE folds case");
      deepEqual(c("archived = true AND content contains 主人"), ["主人在北京工作", "主人的猫叫豆豆", "主人喜欢打篮球"], "bool, and in any case");
      deepEqual(c("archived != 1"), ["主人说 it's 100% true", "主人的生日是3月15日", "主人周末去游泳"]);
      deepEqual(c(`content = "主人说 it's 100% true"`), ["主人说 it's 100% true"], "double quotes hold a single one");
      deepEqual(c("content = '主人说 it\\'s 100% true'"), ["主人说 it's 100% true"], "an escaped quote");
      deepEqual(c("timestamp >= '2026-02-01 00:00'"), ["主人说 it's 100% true"], "timestamp is date");
      deepEqual(c("date>='2026-01-20'AND content CONTAINS'游泳'"), ["主人周末去游泳"], "no spaces needed");
      deepEqual(c("content　CONTAINS　猫"), ["主人的猫叫豆豆"], "the ideographic space separates too");
      const r = s.q({ from: "fact", where: "content CONTAINS 猫" });
      deepEqual(r.rows, [{ id: recordId("fact", { timestamp: sec(2026, 1, 5), content: "主人的猫叫豆豆" } as Fact), content: "主人的猫叫豆豆", date: "2026-01-05 12:00", archived: true }], "every field by default");
      equal(r.partial, undefined);
    },
  },
  {
    name: "query: order_by, limit, select; without order_by NVS newest first then the archive newest first; more says what was left",
    run() {
      const s = setup();
      facts(s);
      const all = s.q({ from: "fact", select: "date", limit: 50 });
      deepEqual(col(all.rows, "date"), ["2026-02-01 12:00", "2026-01-25 12:00", "2026-01-20 12:00", "2026-01-12 12:00", "2026-01-09 12:00", "2026-01-05 12:00", "2026-01-02 12:00"]);
      equal(all.more, undefined);
      const two = s.q({ from: "fact", select: "date", limit: 2 });
      deepEqual(col(two.rows, "date"), ["2026-02-01 12:00", "2026-01-25 12:00"]);
      equal(two.more, true);
      const asc = s.q({ from: "fact", order_by: "date asc", limit: 3, select: "date, archived" });
      deepEqual(asc.rows, [
        { date: "2026-01-02 12:00", archived: true },
        { date: "2026-01-05 12:00", archived: true },
        { date: "2026-01-09 12:00", archived: true },
      ]);
      equal(asc.more, true);
      deepEqual(col(s.q({ from: "fact", order_by: "DATE DESC", limit: 1, select: "date" }).rows, "date"), ["2026-02-01 12:00"]);
      deepEqual(col(s.q({ from: "fact", order_by: "date", limit: 1, select: "date" }).rows, "date"), ["2026-01-02 12:00"], "asc by default");
      deepEqual(col(s.q({ from: "fact", order_by: "content", where: "content like 'o%'" }).rows, "content"), ["Owner plays BASKETBALL on Sunday"]);
      // text orders folded, in UTF-8 byte order (the same on Node and the device)
      deepEqual(col(s.q({ from: "fact", order_by: "content asc", limit: 3, select: "content" }).rows, "content"), ["Owner plays BASKETBALL on Sunday", "主人周末去游泳", "主人喜欢打篮球"], "周 U+5468 before 喜 U+559C");
      const sel = s.q({ from: "fact", select: "content，timestamp , id", limit: 1 });
      deepEqual(Object.keys(sel.rows[0]), ["content", "timestamp", "id"], "select's order and names, full-width comma too");
      deepEqual(Object.keys(s.q({ from: "fact", select: "*", limit: 1 }).rows[0]), ["id", "content", "date", "archived"]);
      equal(s.q({ from: "fact" }).count, 7, "limit 10 by default");
      equal(s.q({ from: "fact", limit: 50 }).count, 7);
    },
  },
  {
    name: "query: a record both in NVS and in the archive (a move cut short) is one row, archived",
    run() {
      const s = setup();
      s.fact("主人养了一只猫", sec(2026, 1, 20));
      s.archive.append("fact", s.svc.memory.facts());
      const r = s.q({ from: "fact" });
      equal(r.count, 1);
      equal(r.rows[0].archived, true);
      equal(s.q({ from: "fact", order_by: "date desc" }).count, 1);
      const one = s.q({ from: "fact", order_by: "date desc", limit: 1 });
      deepEqual([one.count, one.rows[0].archived, one.more], [1, true, undefined], "its copy is not 'more'");
      equal(s.q({ from: "fact", limit: 1 }).more, undefined);
    },
  },
  {
    name: "query: episodes: scores 0..1, dates local, keywords, state; only the header file unless a text field is used; trash only when state is asked",
    run() {
      const s = setup();
      const eps = episodes();
      s.svc.tool.episodes = eps as unknown as Episodes;
      const r = s.q({ from: "episode", where: "p >= 0.5 AND e >= 0.5", select: "id, e, p, created_at, emotion, use_count" });
      deepEqual(r.rows, [{ id: 3, e: 0.9, p: 0.5, created_at: "2026-01-03 12:00", emotion: "worried", use_count: 7 }]);
      deepEqual(eps.asked.pop(), { text: false, trash: false }, "headers only");
      deepEqual(col(s.q({ from: "episode", where: "p = 1" , select: "id"}).rows, "id"), [2]);
      deepEqual(col(s.q({ from: "episode", where: "content CONTAINS '篮球'", select: "id" }).rows, "id"), [1]);
      deepEqual(eps.asked.pop(), { text: true, trash: false }, "content: the text too");
      deepEqual(col(s.q({ from: "episode", where: "keywords = 猫", select: "id" }).rows, "id"), [3], "a list: any item");
      deepEqual(col(s.q({ from: "episode", where: "keywords CONTAINS 病", select: "id" }).rows, "id"), [3]);
      deepEqual(col(s.q({ from: "episode", where: "keywords LIKE '香%'", select: "id" }).rows, "id"), [2]);
      deepEqual(col(s.q({ from: "episode", where: "keywords != 猫", select: "id" }).rows, "id"), [1, 2], "no item equal");
      deepEqual(s.q({ from: "episode", where: "id = 1", select: "keywords, content" }).rows, [{ keywords: ["篮球", "比赛"], content: "和主人聊了篮球比赛" }]);
      deepEqual(col(s.q({ from: "episode", order_by: "j desc", select: "id" }).rows, "id"), [3, 2, 1], "active only");
      deepEqual(eps.asked.pop(), { text: false, trash: false });
      deepEqual(s.q({ from: "episode", where: "state = trash", select: "id, state" }).rows, [{ id: 4, state: "trash" }]);
      deepEqual(eps.asked.pop(), { text: false, trash: true }, "state: the trash too");
      deepEqual(col(s.q({ from: "episode", where: "last_active_at >= '2026-01-02' AND use_count <= 3", select: "id" }).rows, "id"), [2]);
      const d = s.q({ from: "episode", limit: 1 });
      deepEqual(Object.keys(d.rows[0]), ["id", "content", "keywords", "emotion", "e", "i", "p", "j", "importance", "use_count", "created_at", "last_active_at", "state"]);
      // importance: the episodes domain's (src/episode/score.ts), now
      const t = Math.floor(T0 / 1000);
      const imp = (ep: Episode) => Math.round(importance(ep, t) * 100) / 100;
      const want = eps.eps.filter((e) => e.state === "active").sort((a, b) => imp(b) - imp(a)).slice(0, 2).map((e) => ({ id: e.id, importance: imp(e) }));
      deepEqual(s.q({ from: "episode", order_by: "importance desc", select: "id, importance", limit: 2 }).rows, want);
      deepEqual(want.map((x) => x.id), [3, 2], "the worried one first, then the core one");
      deepEqual(col(s.q({ from: "episode", where: `importance >= ${want[1].importance}`, select: "id" }).rows, "id"), [2, 3]);
      // without order_by the reader stops at the first match past limit
      eps.visited = 0;
      equal(s.q({ from: "episode", limit: 1, select: "id" }).more, true);
      equal(eps.visited, 2, "stopped after the second");
      // no episodes on this device
      s.svc.tool.episodes = undefined;
      const none = s.q({ from: "episode" });
      deepEqual([none.count, none.partial, none.unavailable], [0, true, "episodes are not available on this device"]);
    },
  },
  {
    name: "query: episodes written through the tool into the real store (src/episode): a query without text fields reads the header files alone",
    run() {
      const s = setup();
      s.svc.tool.episodes = new Episodes(new EpisodeStore());
      const told = ["周一画了一只恐龙", "周二和爸爸打篮球赢了", "周三在学校画彩虹", "周四篮球比赛输了很难过", "周五给妈妈画生日卡片", "周六去体育馆看篮球赛", "周日学会了画水彩", "下周要参加篮球夏令营"];
      for (let i = 0; i < 8; i++) {
        const w = s.call({ action: "write", type: "episode", content: told[i], e: i / 10, i: 0.5, p: i % 2 ? 1 : 0.2, j: i / 10, keywords: i % 2 ? "篮球" : "画画" });
        ok(!w.isError && w.json.result === "added", w.text);
      }
      const files = (fn: () => void) => {
        const sp = s.dev.spiffs;
        const orig = sp.read;
        const names: string[] = [];
        sp.read = function (name: string, offset: number, count: number) {
          if (names.indexOf(name) < 0) names.push(name);
          return orig.call(sp, name, offset, count);
        };
        try {
          fn();
        } finally {
          sp.read = orig;
        }
        return names.map((n) => n.slice(n.lastIndexOf("/") + 1)).sort();
      };
      let r: any;
      deepEqual(files(() => (r = s.q({ from: "episode", where: "p = 1", order_by: "j desc", select: "j" }))), ["ep.h0"], "the header file alone");
      deepEqual(col(r.rows, "j"), [0.7, 0.5, 0.3, 0.1]);
      deepEqual(files(() => (r = s.q({ from: "episode", where: "keywords = 画画 AND e >= 0.4", select: "content" }))), ["ep.h0", "p000001.jsonl"], "a text field: the passages too (FORMAT.md §4.3)");
      deepEqual(col(r.rows, "content"), ["周五给妈妈画生日卡片", "周日学会了画水彩"]);
      deepEqual(col(s.q({ from: "episode", where: "created_at = '2026-02-05'", select: "id" }).rows, "id").length, 8, "written today");
    },
  },
  {
    name: "query: events from NVS and the archive, digests from the digest stream",
    run() {
      const s = setup();
      s.svc.memory.addEvent(newEvent({ date: "2026-03-15", content: "主人生日", eventType: "birthday", significance: 5, priority: 4 }));
      s.svc.memory.addEvent(newEvent({ date: "2026-02-20", time: "10:00", content: "去海洋馆", eventType: "plan" }));
      s.svc.memory.flush();
      s.archive.append("event", [newEvent({ date: "2025-08-01", content: "去动物园", eventType: "plan", significance: 2 })]);
      const ev = s.q({ from: "event", order_by: "date asc" });
      deepEqual(col(ev.rows, "content"), ["去动物园", "去海洋馆", "主人生日"]);
      deepEqual(ev.rows[1], { id: ev.rows[1].id, date: "2026-02-20", time: "10:00", content: "去海洋馆", event_type: "plan", significance: 3, priority: 3, archived: false });
      deepEqual(col(s.q({ from: "event", where: "significance >= 4", select: "content" }).rows, "content"), ["主人生日"]);
      deepEqual(col(s.q({ from: "event", where: "archived = true", select: "content" }).rows, "content"), ["去动物园"]);
      deepEqual(col(s.q({ from: "event", where: "time != ''", select: "content" }).rows, "content"), ["去海洋馆"]);
      deepEqual(col(s.q({ from: "event", where: "event_type = PLAN AND date <= 2026-02", select: "content" }).rows, "content"), ["去海洋馆", "去动物园"]);
      // digests: the archive's monthly digests of what has left the flash
      s.archive.streams.digest.append([
        encodeDigest({ from: sec(2025, 3, 2), to: sec(2025, 3, 28), month: "2025-03", count: 12, keywords: ["篮球", "公园"], points: "和爸爸在公园打篮球；第一次投进三分", source: 7, events: false }),
        encodeDigest({ from: sec(2025, 4, 1), to: sec(2025, 4, 30), month: "2025-04", count: 30, keywords: ["海边", "游泳"], points: "去海边游泳", source: 8, events: false }),
        encodeDigest({ from: sec(2025, 4, 3), to: sec(2025, 4, 3), month: "2025-04", count: 1, keywords: ["生日"], points: "妈妈的生日", source: 9, events: true }),
      ]);
      const dg = s.q({ from: "digest" });
      deepEqual(col(dg.rows, "month"), ["2025-04", "2025-04", "2025-03"], "newest first");
      deepEqual(dg.rows[2], { id: dg.rows[2].id, month: "2025-03", type: "moment", count: 12, keywords: ["篮球", "公园"], points: "和爸爸在公园打篮球；第一次投进三分", until: "2025-03-28 12:00" });
      deepEqual(col(s.q({ from: "digest", where: "type = event", select: "points" }).rows, "points"), ["妈妈的生日"]);
      deepEqual(col(s.q({ from: "digest", where: "keywords = 游泳 and count >= 10", select: "month" }).rows, "month"), ["2025-04"]);
      deepEqual(col(s.q({ from: "digest", where: "content CONTAINS 三分", select: "content" }).rows, "content"), ["和爸爸在公园打篮球；第一次投进三分"], "content is points");
      deepEqual(col(s.q({ from: "digest", order_by: "count desc", select: "count" }).rows, "count"), [30, 12, 1]);
      deepEqual(col(s.q({ from: "digest", where: "until < '2025-04'", select: "month" }).rows, "month"), ["2025-03"]);
      // a forgotten digest is not shown
      s.archive.forget("moment", [dg.rows[2].id as string]);
      equal(s.q({ from: "digest" }).count, 2);
    },
  },
  {
    name: "query: streamed from flash in chunks of at most 4 KB; without order_by a limit stops the reading early",
    run() {
      const s = setup();
      const tail = PAD.slice(0, 14); // lines as long as in format 2 (PAD: characters compact text leaves as they are)
      fillFacts(s.archive, 2200, (i) => `第${i}条：主人今天说了一件关于学校和朋友的小事${tail}`); // packed lines (FORMAT.md §3.19): several segments
      s.archive.settle(); // full segments sealed and catalogued, as idle steps do
      let total = 0;
      for (const e of s.dev.spiffs.list()) if (/(^|\/)f\d{6}\.jsonl$/.test(e.name)) total += e.length;
      ok(total > 3 * 57344 * 0.9, `several segments (${total} bytes)`);
      const first = reads(s.dev, () => equal(s.q({ from: "fact", limit: 3, select: "content" }).count, 3));
      ok(first.max <= 4096, `chunked (${first.max})`);
      ok(first.bytes <= 3 * 4096 + 4640, `a limit stops early: ${first.bytes} bytes read`);
      let r: any;
      const ordered = reads(s.dev, () => (r = s.q({ from: "fact", order_by: "date asc", limit: 2, select: "content" })));
      deepEqual(col(r.rows, "content"), ["第0条：主人今天说了一件关于学校和朋友的小事" + tail, "第1条：主人今天说了一件关于学校和朋友的小事" + tail]);
      ok(ordered.max <= 4096, `chunked (${ordered.max})`);
      ok(ordered.bytes >= total, `order_by reads it all: ${ordered.bytes} of ${total}`);
      ok(ordered.bytes <= total * 1.2, `and only once: ${ordered.bytes} of ${total}`);
      // a match deep down: read until found, then stop
      const deep = reads(s.dev, () => (r = s.q({ from: "fact", where: "content LIKE '第5条%'", limit: 1, select: "content" })));
      deepEqual(col(r.rows, "content"), ["第5条：主人今天说了一件关于学校和朋友的小事" + tail]);
      ok(deep.max <= 4096 && deep.bytes <= total * 1.2, `${deep.bytes}`);
      // conditions on a fact's date narrow what is read (the catalog's time ranges), never what matches
      let narrow: any, wide: any;
      const byDate = reads(s.dev, () => (narrow = s.q({ from: "fact", where: "date = '2024-01-20'", order_by: "date asc", limit: 50, select: "date" })));
      const byLike = reads(s.dev, () => (wide = s.q({ from: "fact", where: "date LIKE '2024-01-20%'", order_by: "date asc", limit: 50, select: "date" })));
      equal(narrow.count, 24);
      deepEqual(narrow.rows, wide.rows, "the same rows");
      ok(byDate.bytes + 50000 < byLike.bytes, `a sealed segment whose time misses it is not read: ` + `${byDate.bytes} bytes read against ${byLike.bytes}`);
      deepEqual(col(s.q({ from: "fact", where: "date > '2024-01-20 22' AND date < '2024-01-21 01:00'", select: "date" }).rows, "date"), ["2024-01-21 00:00", "2024-01-20 23:00"], "> and < on hours");
    },
  },
  {
    name: "query: rows stay within the reply's byte budget: the worst go first, and the reply says so",
    run() {
      const s = setup();
      const long = "主人说了很长的一段话".repeat(12); // 360 bytes
      const batch: Fact[] = [];
      for (let i = 0; i < 40; i++) batch.push({ timestamp: sec(2026, 1, 1) + i * 60, content: `${i} ${long}` });
      s.archive.append("fact", batch);
      for (const args of [{ limit: 50 }, { limit: 50, order_by: "date asc" }]) {
        const r = s.q({ from: "fact", select: "content", ...args });
        ok(r.count > 5 && r.count < 40, `${r.count} rows`);
        equal(r.truncated, true);
        equal(r.more, true);
        ok(JSON.stringify(r.rows).length * 3 <= ROWS_BUDGET_BYTES * 3 + 100);
        if (args.order_by) equal(r.rows[0].content, `0 ${long}`, "the best kept");
        else equal(r.rows[0].content, `39 ${long}`, "the newest kept");
      }
    },
  },
  {
    name: "query: without an archive, NVS only, marked partial; digests are then empty",
    run() {
      const s = setup(false);
      s.fact("主人喜欢猫", sec(2026, 1, 20));
      const r = s.q({ from: "fact" });
      deepEqual([r.count, r.partial, r.unavailable], [1, true, "the archive is not available: only what NVS holds was queried"]);
      const d = s.q({ from: "digest" });
      deepEqual([d.count, d.partial], [0, true]);
    },
  },
  {
    name: "query: an archive that fails leaves what NVS holds, marked partial with why; a segment that cannot be opened is named",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const real = new Archive(root);
      real.check();
      real.append("fact", [{ timestamp: sec(2026, 1, 2), content: "主人喜欢打篮球" }]);
      let fail: "throw" | "unreadable" | undefined = "throw";
      const access: ArchiveAccess = {
        recall: (t, q) => real.recall(t, q),
        count: (t) => real.count(t),
        scan(stream, fn, range) {
          if (fail === "throw") throw new ArchiveError("io", "archive: the fact archive cannot be read now (read error); it is kept as it is");
          const r = real.scan(stream, fn, range);
          if (fail === "unreadable") r.unreadable.push(root + "f000099.jsonl");
          return r;
        },
      };
      const svc = new Service({ sink: { remind() {} }, archive: access });
      svc.memory.addFact("主人周末去游泳", sec(2026, 1, 20));
      svc.memory.flush();
      const q = (args: Record<string, unknown>) => JSON.parse(svc.tool.call({ action: "query", ...args }));
      const r = q({ from: "fact", select: "content" });
      deepEqual(r, { from: "fact", count: 1, rows: [{ content: "主人周末去游泳" }], partial: true, unavailable: "archive: the fact archive cannot be read now (read error); it is kept as it is" });
      fail = "unreadable";
      const u = q({ from: "fact", select: "content" });
      deepEqual([u.count, u.partial, u.unavailable], [2, true, `archive: cannot open ${root}f000099.jsonl now`]);
      fail = undefined;
      equal(q({ from: "fact" }).partial, undefined);
      // an archive without scan (format 1's facade): NVS only, and says so
      const old = new Service({ sink: { remind() {} }, archive: { recall: () => [], count: () => 0 } });
      const o = JSON.parse(old.tool.call({ action: "query", from: "event" }));
      deepEqual([o.partial, o.unavailable], [true, "this archive cannot be queried: only what NVS holds was queried"]);
      void dev;
    },
  },
  {
    name: "query: every bad query is an error naming the bad part and where, and changes nothing",
    run() {
      const s = setup();
      facts(s);
      s.svc.tool.episodes = episodes() as unknown as Episodes;
      const before = image(s.dev);
      const nvs = JSON.stringify(s.svc.memory.facts());
      const cases: [Row, string][] = [
        [{}, "from is required: one of episode, fact, event, digest"],
        [{ from: "facts" }, "from must be one of episode, fact, event, digest, got 'facts'"],
        [{ from: "episode", where: "foo = 1" }, "where: unknown field 'foo' at 1; fields of episode: id, content, keywords, emotion, e, i, p, j, importance, use_count, created_at, last_active_at, state"],
        [{ from: "fact", where: "content = 1 AND 日期 >= 3" }, "where: unknown field '日期' at 17; fields of fact: id, content, date/timestamp, archived"],
        [{ from: "episode", where: "p >= 0.5 AND e >=" }, "where: expected a value after '>=' at 16"],
        [{ from: "episode", where: "p" }, "where: expected an operator after 'p' at 1"],
        [{ from: "episode", where: "p ~ 1" }, "where: unknown operator '~' at 3"],
        [{ from: "episode", where: "p => 1" }, "where: unknown operator '=>' at 3"],
        [{ from: "episode", where: "p >= 0.5 OR p <= 0.1" }, "where: OR is not supported (at 10)"],
        [{ from: "episode", where: "p >= 0.5 p <= 0.1" }, "where: expected AND after the condition at 10, got 'p'"],
        [{ from: "episode", where: "p >= 0.5 AND" }, "where: expected a condition after AND at 10"],
        [{ from: "episode", where: "(p >= 0.5)" }, "where: parentheses are not supported (at 1)"],
        [{ from: "episode", where: "p >= abc" }, "where: 'p' takes a number, got 'abc' at 6"],
        [{ from: "episode", where: "p CONTAINS 1" }, "where: CONTAINS takes text; 'p' of episode is a number (at 3)"],
        [{ from: "episode", where: "keywords >= 'a'" }, "where: 'keywords' of episode is a list of words"],
        [{ from: "fact", where: "archived = maybe" }, "where: 'archived' takes true or false, got 'maybe' at 12"],
        [{ from: "fact", where: "date >= yesterday" }, "where: 'date' takes a date 'YYYY-MM-DD HH:MM' or a part of it ('YYYY-MM'), got 'yesterday' at 9"],
        [{ from: "fact", where: "content = '篮球" }, "where: the text starting at 11 has no closing '"],
        [{ from: "fact", where: "'content' = 1" }, "where: expected a field name at 1, got 'content'"],
        [{ from: "fact", where: "NOT content = 1" }, "where: NOT is not supported (at 1)"],
        [{ from: "fact", where: "content = 1 AND ".repeat(9) + "content = 1" }, "where: at most 8 conditions"],
        [{ from: "fact", where: "x".repeat(401) }, "where is too long: at most 400 bytes"],
        [{ from: "fact", where: 3 }, "where must be a string"],
        [{ from: "fact", order_by: "foo" }, "order_by: unknown field 'foo' at 1; fields of fact"],
        [{ from: "fact", order_by: "date up" }, "order_by: expected asc or desc after 'date' at 6, got 'up'"],
        [{ from: "fact", order_by: "date desc, content" }, "order_by: one field only"],
        [{ from: "episode", order_by: "keywords" }, "order_by: 'keywords' is a list of words and cannot order (at 1)"],
        [{ from: "fact", select: "content,,date" }, "select: an empty field name at 9"],
        [{ from: "fact", select: "content, bar" }, "select: unknown field 'bar' at 10; fields of fact"],
        [{ from: "fact", limit: 0 }, "limit must be an integer from 1 to 50"],
        [{ from: "fact", limit: 51 }, "limit must be an integer from 1 to 50"],
        [{ from: "fact", limit: 2.5 }, "limit must be an integer from 1 to 50"],
      ];
      for (const [args, want] of cases) {
        const t = s.err(args);
        ok(t.indexOf("error: " + want) === 0, `${JSON.stringify(args)}: ${t}`);
      }
      ok(sameImage(before, image(s.dev)) === undefined, "no file changed");
      equal(JSON.stringify(s.svc.memory.facts()), nvs, "NVS as before");
    },
  },
];

// recall type=snapshot (issue 16 item 8; seed 003): the archive's monthly
// digests as snapshots and one meta-snapshot per category, retrieved by a
// model-free relevance: only above 0.5, best first, ids snapshot_/meta_.
import { Archive, ArchiveError } from "../../src/archive/archive";
import { encodeDigest } from "../../src/archive/codec";
import type { Episodes } from "../../src/episode/episodes";
import { fromLocal } from "../../src/time/local";
import { byteLength } from "../../src/text/utf8";
import { timeCue, grams, contentScore, THRESHOLD } from "../../src/query/snapshot";
import { setup, episode, FakeEpisodes } from "./query.scn";
import { reads, image, sameImage } from "./archive.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const sec = (y: number, mo: number, d: number, h = 12) => Math.floor(fromLocal(y, mo, d, h, 0) / 1000);

type Item = { id: string; relevance: number; reason: string; [k: string]: unknown };

function digests(a: Archive) {
  const d = (month: string, day: number, keywords: string[], points: string, source: number, events = false, count = 20) => {
    const y = Number(month.slice(0, 4)), m = Number(month.slice(5, 7));
    return encodeDigest({ from: sec(y, m, day), to: sec(y, m, 28), month, count, keywords, points, source, events });
  };
  a.streams.digest.append([
    d("2025-03", 1, ["篮球", "公园", "爸爸"], "和爸爸在公园打篮球；第一次投进三分", 1),
    d("2025-04", 1, ["海边", "游泳"], "去海边游泳；捡了很多贝壳", 2),
    d("2025-04", 3, ["生日", "妈妈"], "妈妈的生日，一起做了蛋糕", 3, true, 2),
    d("2025-07", 1, ["电影", "爆米花"], "一起看电影，吃了爆米花", 4),
    d("2025-12", 1, ["下雪", "堆雪人"], "第一次看到下雪，堆了雪人", 5),
  ]);
}

function world(withArchive = true) {
  const s = setup(withArchive);
  if (withArchive) digests(s.archive);
  s.fact("主人喜欢打篮球", sec(2026, 1, 10));
  s.fact("主人每周六去打篮球", sec(2026, 1, 17));
  s.fact("主人的猫叫豆豆", sec(2026, 1, 20));
  s.svc.memory.addMoment({ topic: "猫", content: "豆豆第一次抓到老鼠", emotion: "happy", intensity: 4, importance: 4 });
  s.svc.memory.flush();
  const eps = new FakeEpisodes([
    episode(1, "聊了主人的猫豆豆", [40, 60, 50, 50], { keywords: ["豆豆", "猫"] }),
    episode(2, "主人的猫生病了", [90, 50, 50, 80], { keywords: ["猫", "生病"] }),
  ]);
  s.svc.tool.episodes = eps as unknown as Episodes;
  const recall = (args: Record<string, unknown>) => {
    const r = s.call({ action: "recall", type: "snapshot", ...args });
    ok(!r.isError, r.text);
    return r.json as { query: string; count: number; items: Item[]; time?: string; partial?: boolean; unavailable?: string };
  };
  return { ...s, eps, recall };
}

function sorted(items: Item[]): void {
  for (let i = 0; i < items.length; i++) {
    ok(items[i].relevance > THRESHOLD && items[i].relevance <= 1, `${items[i].id}: ${items[i].relevance}`);
    ok(/^(snapshot|meta)_/.test(items[i].id), items[i].id);
    ok(typeof items[i].reason === "string" && items[i].reason.length > 0);
    if (i) ok(items[i - 1].relevance >= items[i].relevance, "best first");
  }
}

export const scenarios: Scenario[] = [
  {
    name: "snapshot: a keyword finds its monthly snapshot and the categories that hold it, above 0.5, best first",
    run() {
      const s = world();
      const r = s.recall({ keyword: "篮球" });
      sorted(r.items);
      const ids = r.items.map((x) => x.id);
      const snap = r.items.find((x) => x.id.indexOf("snapshot_") === 0)!;
      deepEqual([snap.month, snap.category, snap.keywords, snap.points, snap.count], ["2025-03", "moment", ["篮球", "公园", "爸爸"], "和爸爸在公园打篮球；第一次投进三分", 20]);
      ok(snap.relevance >= 0.9, `an exact keyword in keywords and points: ${snap.relevance}`);
      ok(snap.reason.indexOf("keyword 篮球") >= 0, snap.reason);
      equal(r.items.filter((x) => x.id.indexOf("snapshot_") === 0).length, 1, "no other month is about it");
      ok(ids.indexOf("meta_fact") >= 0, "the facts hold it");
      ok(ids.indexOf("meta_moment") >= 0, "the moments' past holds it");
      ok(ids.indexOf("meta_episode") < 0 && ids.indexOf("meta_event") < 0, "not the others");
      const mf = r.items.find((x) => x.id === "meta_fact")!;
      deepEqual([mf.category, mf.keywords], ["fact", ["打篮球"]], "chosen as digests choose them; 主人 is in every fact: no keyword");
      ok(mf.reason.indexOf("keyword 打篮球 in part") >= 0, mf.reason);
      ok(String(mf.description).indexOf("facts the owner told: 3") === 0, String(mf.description));
      const mm = r.items.find((x) => x.id === "meta_moment")!;
      equal((mm.snapshot_refs as string[]).length, 4, "its four monthly snapshots");
      ok((mm.snapshot_refs as string[]).indexOf(snap.id) >= 0);
      // a keyword inside a longer one counts by how much of it it covers
      const part = s.recall({ keyword: "雪" });
      const sn = part.items.filter((x) => x.id.indexOf("snapshot_") === 0);
      deepEqual(sn.map((x) => x.month), ["2025-12"]);
      // nothing related: nothing at all
      deepEqual(s.recall({ keyword: "飞机" }).items, []);
      // episodes: the category of conversations
      const e = s.recall({ keyword: "猫" });
      sorted(e.items);
      ok(e.items.some((x) => x.id === "meta_episode"), JSON.stringify(e.items.map((x) => x.id)));
      equal(e.items.find((x) => x.id === "meta_episode")!.description, "conversation episodes: 2; often about 猫, 豆豆, 生病");
      equal(s.recall({ keyword: "猫", limit: 1 }).count, 1, "limit");
    },
  },
  {
    name: "snapshot: the user's message, with a time it names (去年四月, 上个月, 夏天): that month rises, other months fall",
    run() {
      const s = world();
      const r = s.recall({ message: "你还记得去年四月我们做了什么吗" });
      sorted(r.items);
      equal(r.time, "去年四月");
      deepEqual(r.items.map((x) => x.month).sort(), ["2025-04", "2025-04"], "both snapshots of April 2025, nothing else");
      ok(r.items[0].reason.indexOf("month 2025-04 is 去年四月") >= 0, r.items[0].reason);
      const sea = s.recall({ message: "去年四月去海边游泳好开心" });
      equal(sea.items[0].month, "2025-04");
      deepEqual(sea.items[0].keywords, ["海边", "游泳"], "the time and the words agree: first");
      ok(sea.items[0].relevance > sea.items[1].relevance);
      // a message about basketball but a time elsewhere: the basketball month is halved out
      const other = s.recall({ message: "去年十二月打篮球了吗" });
      ok(!other.items.some((x) => x.month === "2025-03"), JSON.stringify(other.items));
      ok(other.items.some((x) => x.month === "2025-12"));
      // the message's words alone
      const film = s.recall({ message: "我们上次一起看电影是什么时候" });
      equal(film.items[0].month, "2025-07");
      // a category named
      const talk = s.recall({ message: "我们聊天都聊过什么" });
      ok(talk.items.some((x) => x.id === "meta_episode" && x.reason.indexOf("names 聊天") >= 0), JSON.stringify(talk.items));
    },
  },
  {
    name: "snapshot: time cues are read by hand (no model): years, months in digits or Chinese numerals, seasons, last month",
    run() {
      const now = fromLocal(2026, 2, 5, 13, 0);
      const k = (y: number, m: number) => y * 12 + m - 1;
      const span = (s: string) => {
        const c = timeCue(s, now);
        return c ? [c.from, c.to, c.label] : undefined;
      };
      deepEqual(span("去年四月"), [k(2025, 4), k(2025, 4), "去年四月"]);
      deepEqual(span("2024年3月的事"), [k(2024, 3), k(2024, 3), "2024年3月"]);
      deepEqual(span("2024-11"), [k(2024, 11), k(2024, 11), "2024-11"]);
      deepEqual(span("2024年"), [k(2024, 1), k(2024, 12), "2024年"]);
      deepEqual(span("十二月"), [k(2025, 12), k(2025, 12), "十二月"], "a month not come yet this year: last year's");
      deepEqual(span("1月"), [k(2026, 1), k(2026, 1), "1月"]);
      deepEqual(span("上个月"), [k(2026, 1), k(2026, 1), "上个月"]);
      deepEqual(span("这个月"), [k(2026, 2), k(2026, 2), "这个月"]);
      deepEqual(span("去年夏天"), [k(2025, 6), k(2025, 8), "去年夏天"]);
      deepEqual(span("夏天"), [k(2025, 6), k(2025, 8), "夏天"], "the latest that has begun");
      deepEqual(span("冬天"), [k(2025, 12), k(2026, 2), "冬天"]);
      deepEqual(span("今年"), [k(2026, 1), k(2026, 12), "今年"]);
      equal(span("三个月前"), undefined, "n个月前 is not a month");
      equal(span("篮球"), undefined);
    },
  },
  {
    name: "snapshot: relevance from keywords and bigrams: a keyword held 0.85, three shared bigrams 0.6, one alone below 0.5",
    run() {
      const why: string[] = [];
      const kw = contentScore(grams("我喜欢篮球"), true, ["篮球"], grams("别的"), why);
      equal(Math.round(kw * 100) / 100, 0.85);
      const three = contentScore(grams("公园里打篮球"), true, ["足球"], grams("在公园里打篮球"), why);
      ok(three >= 0.6 && three < 0.61, `${three}`);
      const one = contentScore(grams("公园"), true, ["足球"], grams("公园 足球 三个"), why);
      ok(one > 0.5, "a single bigram query that the text holds counts full");
      const weak = contentScore(grams("今天去公园玩然后吃饭"), true, ["足球"], grams("公园"), why);
      ok(weak < 0.5, `${weak}`);
      equal(contentScore(grams("飞机"), false, ["篮球"], grams("篮球"), why), 0);
    },
  },
  {
    name: "snapshot: many relevant snapshots stay within the reply's byte budget, best first, and the reply says it was cut",
    run() {
      const s = world();
      const lines = [];
      for (let i = 0; i < 30; i++) {
        const y = 2022 + Math.floor(i / 12), m = (i % 12) + 1;
        const month = `${y}-${m < 10 ? "0" : ""}${m}`;
        lines.push(encodeDigest({ from: sec(y, m, 2), to: sec(y, m, 27), month, count: 10 + i, keywords: ["朋友", "学校", "足球"], points: "和朋友在学校踢足球，".repeat(10), source: 100 + i, events: false }));
      }
      s.archive.streams.digest.append(lines);
      const r = s.recall({ keyword: "朋友", limit: 50 });
      sorted(r.items);
      ok(r.count >= 5 && r.count < 30, `${r.count}`);
      equal((r as { truncated?: boolean }).truncated, true);
      ok(byteLength(JSON.stringify(r.items)) <= 6000 + r.count, "within 6,000 bytes");
    },
  },
  {
    name: "snapshot: the digest stream is read once, in chunks of at most 4 KB; bad input is an error and changes nothing; no archive: NVS metas, partial",
    run() {
      const s = world();
      let r: any;
      const rd = reads(s.dev, () => (r = s.recall({ keyword: "篮球" })));
      ok(r.count > 0);
      let digestBytes = 0;
      for (const e of s.dev.spiffs.list()) if (/(^|\/)d\d{6}\.jsonl$/.test(e.name)) digestBytes += e.length;
      ok(rd.max <= 4096, `chunked: ${rd.max}`);
      ok(rd.bytes <= digestBytes + 8192, `${rd.bytes} bytes read, the digest stream is ${digestBytes}`);
      const before = image(s.dev);
      for (const [args, want] of [
        [{}, "recall type=snapshot needs keyword (or message)"],
        [{ keyword: "x".repeat(401) }, "keyword is too long: at most 400 bytes"],
        [{ keyword: "篮球", limit: 51 }, "limit must be an integer from 1 to 50"],
        [{ keyword: 3 }, "keyword must be a string"],
      ] as [Record<string, unknown>, string][]) {
        const t = s.call({ action: "recall", type: "snapshot", ...args }).text;
        ok(t.indexOf("error: " + want) === 0, t);
      }
      ok(sameImage(before, image(s.dev)) === undefined, "nothing changed");
      // an archive that fails: the metas of NVS and the episodes, partial, why
      const real = s.archive;
      (s.svc.tool as unknown as { archive: unknown }).archive = {
        recall: () => [],
        count: () => 0,
        scan() {
          throw new ArchiveError("io", "archive: the digest archive cannot be read now (read error); it is kept as it is");
        },
      };
      const f = s.recall({ keyword: "猫" });
      deepEqual([f.partial, f.unavailable], [true, "archive: the digest archive cannot be read now (read error); it is kept as it is"]);
      deepEqual(f.items.map((x) => x.id).sort(), ["meta_episode", "meta_moment"]);
      void real;
      const n = world(false);
      const p = n.recall({ keyword: "篮球" });
      deepEqual([p.partial, p.unavailable], [true, "the archive is not available: no monthly snapshots"]);
      deepEqual(p.items.map((x) => x.id), ["meta_fact"]);
    },
  },
];

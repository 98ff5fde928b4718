// Recall of episodes by similarity (S1 27-28): the candidates are the 300
// most important (core first), ranked by similarity, top k above a floor,
// each with its age phrased as the seed says; use counts written back.
import { SimDevice } from "../../host-sim/device";
import { Episodes, RECALL_FLOOR } from "../../src/episode/episodes";
import { agePhrase, daysBetween, summaryLine } from "../../src/episode/age";
import { CANDIDATES, type Episode } from "../../src/episode/types";
import { FakeEpisodeStore } from "./episode-fake";
import { signature } from "../../src/episode/sig";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 +08:00
const DAY = 86400000;

// Filler texts without the characters of the probes below.
const FILL = "一二三四五六七八九十百千万甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥春夏秋冬东西南北上下左右";

function filler(k: number): string {
  let s = "";
  let x = k * 7919 + 13;
  for (let n = 0; n < 8; n++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += FILL[x % FILL.length];
  }
  return s;
}

// Episodes written straight into the store (8 a batch), as a store that was filled over months.
function fill(store: FakeEpisodeStore, list: { content: string; j: number; p?: number; at?: number }[]): void {
  let batch: Episode[] = [];
  for (const x of list) {
    const at = Math.floor((x.at ?? T0) / 1000);
    const h = Math.round(x.j * 100), p = Math.round((x.p ?? x.j) * 100); // hundredths
    batch.push({ slot: store.freeSlot() + batch.length, id: store.nextId(), state: "active", content: x.content, keywords: [], emotion: "neutral", e: h, i: h, p, j: h, useCount: 0, createdAt: at, lastActiveAt: at, purgeAt: 0, source: "ai", sig: signature(x.content, []) });
    if (batch.length === 8) {
      store.write(batch);
      batch = [];
    }
  }
  if (batch.length) store.write(batch);
}

export const scenarios: Scenario[] = [
  {
    name: "age phrases: 今天, n天前 up to 30 days, n个月前 past 30 days, n年前 past 365 days (local calendar days)",
    run() {
      new SimDevice({ now: T0 }).install();
      const at = (d: number) => agePhrase(T0 - d * DAY, T0);
      equal(at(0), "今天");
      equal(at(1), "1天前");
      equal(at(3), "3天前");
      equal(at(30), "30天前");
      equal(at(31), "1个月前");
      equal(at(59), "1个月前");
      equal(at(61), "2个月前");
      equal(at(365), "12个月前");
      equal(at(366), "1年前");
      equal(at(800), "2年前");
      // late last night (local) is 1天前 at one in the morning
      const night = Date.UTC(2026, 1, 4, 15, 50); // 2026-02-04 23:50 +08:00
      const morning = Date.UTC(2026, 1, 4, 17, 10); // 2026-02-05 01:10 +08:00
      equal(daysBetween(night, morning), 1);
      equal(agePhrase(morning + 3600000, morning), "今天", "a time ahead is today");
      equal(summaryLine("你不喜欢香菜", T0 - 3 * DAY, T0), "3天前的对话摘要“你不喜欢香菜”");
    },
  },
  {
    name: "recall ranks by similarity, top k above the floor, with age; each hit's use_count+1 and last_active_at=now persisted in one batch",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const store = new FakeEpisodeStore();
      const eps = new Episodes(store);
      fill(store, [
        { content: "周末和小红去动物园看熊猫", j: 0.5, at: T0 - 3 * DAY },
        { content: "去看熊猫吃竹子", j: 0.4, at: T0 - 70 * DAY },
        { content: "学校运动会跑了第二名", j: 0.6, at: T0 - 400 * DAY },
        { content: "动物园里的长颈鹿好高", j: 0.5, at: T0 },
        { content: "晚上数学作业做到很晚", j: 0.5, at: T0 - 10 * DAY },
      ]);
      const w = store.writes;
      const hits = eps.recall("我想再去动物园看熊猫");
      equal(hits.length, 3);
      deepEqual(hits.map((h) => h.episode.content), ["周末和小红去动物园看熊猫", "动物园里的长颈鹿好高", "去看熊猫吃竹子"]);
      deepEqual(hits.map((h) => h.age), ["3天前", "今天", "2个月前"]);
      ok(hits[0].similarity >= hits[1].similarity && hits[1].similarity >= hits[2].similarity, "most alike first");
      equal(store.writes, w + 1, "one batch for the use counts");
      const kept: Record<string, [number, number]> = {};
      eps.forEach((ep) => void (kept[ep.content] = [ep.useCount, ep.lastActiveAt]), { text: true });
      deepEqual(kept["周末和小红去动物园看熊猫"], [1, Math.floor(T0 / 1000)]);
      deepEqual(kept["晚上数学作业做到很晚"], [0, Math.floor((T0 - 10 * DAY) / 1000)], "not a hit: untouched");
      // k and the floor
      equal(eps.recall("运动会", 1).length, 1);
      equal(eps.recall("运动会", 1)[0].age, "1年前");
      equal(eps.recall("今天天气怎么样").length, 0, `nothing alike above ${RECALL_FLOOR}`);
      dev.clock.now += DAY;
      equal(eps.recall("熊猫")[0].episode.useCount, 2, "counted again");
    },
  },
  {
    name: "only the 300 most important are candidates (core first): a closer but unimportant episode is not recalled",
    run() {
      new SimDevice({ now: T0 }).install();
      const store = new FakeEpisodeStore();
      const eps = new Episodes(store);
      const list: { content: string; j: number; p?: number }[] = [];
      for (let k = 0; k < CANDIDATES + 10; k++) list.push({ content: filler(k), j: 0.5 });
      list.push({ content: "我家的猫叫咪咪", j: 0.05 }); // least important of all: not a candidate
      list.push({ content: "我的猫咪咪爱吃鱼", j: 0.05, p: 1 }); // core: always a candidate
      fill(store, list);
      const hits = eps.recall("猫咪咪");
      equal(hits[0].episode.content, "我的猫咪咪爱吃鱼", "core: always a candidate");
      ok(hits.every((h) => h.episode.content !== "我家的猫叫咪咪"), "not among the 300 most important: never recalled");
      equal(eps.recall("我家的猫叫咪咪", 8).some((h) => h.episode.content === "我家的猫叫咪咪"), false, "not even by its own words");
      equal(eps.counts().active, CANDIDATES + 12);
      // the read: one header scan, then only the hit's text
      const r = store.stats.reads;
      const n = eps.recall("猫咪咪", 3).length;
      equal(store.stats.reads - r, Math.ceil(((CANDIDATES + 12) * 128) / 4096) + n, "reads");
    },
  },
];

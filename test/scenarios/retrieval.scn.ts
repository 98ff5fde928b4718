// The one retrieval of search, recall and context (issue 25, src/recall):
// the examples through the tool, the forms a model sends, forgetting
// folded into monthly digests, and the episodes' folded signatures kept in
// step with their store.
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { bootDevice } from "../../src/app/boot";
import { Episodes } from "../../src/episode/episodes";
import { fromLocal } from "../../src/time/local";
import { FakeEpisodeStore } from "./episode-fake";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";

const T0 = fromLocal(2026, 2, 5, 13, 0); // Thursday 2026-02-05 13:00 +08:00
const DAY = 86400000;
const EPISODE = "主人的猫咪咪生病了，带它去看了兽医";

function boot() {
  const dev = new SimDevice({ now: T0 }).install();
  const svc = new Service({ sink: { remind() {} } });
  const store = new FakeEpisodeStore();
  svc.tool.episodes = new Episodes(store);
  return { dev, svc, store, call: toolCaller(svc) };
}

export const scenarios: Scenario[] = [
  {
    name: "issue 25's examples: 猫 finds the episode through recall, search and context; 生日 finds the birthday; each hit says its kind and age",
    run() {
      const { dev, call } = boot();
      call({ action: "write", type: "name", content: "王小明" });
      call({ action: "write", type: "birthday", content: "02-11" });
      equal(call({ action: "write", type: "episode", content: EPISODE, e: 0.6, i: 0.5, p: 0.3, j: 0.6 }).json.result, "added");
      dev.clock.now += 2 * DAY;
      const r = call({ action: "recall", type: "episode", keyword: "猫" }).json;
      equal(r.count, 1);
      equal(r.items[0].content, EPISODE);
      const s = call({ action: "search", keyword: "猫" }).json;
      deepEqual(s.hits[0], { kind: "episode", text: EPISODE, age: "2天前", date: "2026-02-05", id: 1 });
      for (const message of ["我的猫最近怎么样", "咪咪最近身体好点了吗"]) {
        const c = call({ action: "context", message }).json;
        ok(c.context.indexOf(`【相关记忆】\n- 2天前的对话摘要“${EPISODE}”`) > 0, c.context);
      }
      deepEqual(call({ action: "search", keyword: "生日" }).json.hits[0], { kind: "profile", text: "生日：02-11", age: "" });
      deepEqual(call({ action: "recall", keyword: "几岁" }).json.hits, [], "no age stored: nothing, not something else");
    },
  },
  {
    name: "names and relatives: 咪咪 is the cat, 李娟 is 妈妈; 小君 is not 小军 and 爸爸's operation is not 妈妈's: nothing comes back",
    run() {
      const { call } = boot();
      call({ action: "write", type: "family", relation: "妈妈", name: "李娟", member_type: "family" });
      call({ action: "write", type: "family", relation: "猫", name: "咪咪", member_type: "pet" });
      call({ action: "write", type: "family", relation: "朋友", name: "小军", member_type: "friend" });
      call({ action: "write", type: "fact", content: "妈妈在医院当护士" });
      call({ action: "write", type: "fact", content: "妈妈上周做了一个小手术，恢复得不错" });
      call({ action: "write", type: "fact", content: "小军送了主人一个足球作为礼物" });
      call({ action: "write", type: "fact", content: "主人家的橘猫最爱吃鱼" });
      const li = call({ action: "search", keyword: "李娟是做什么工作的" }).json.hits.map((h: { text: string }) => h.text);
      ok(li.indexOf("妈妈在医院当护士") >= 0 && li.indexOf("小军送了主人一个足球作为礼物") < 0, JSON.stringify(li));
      ok(call({ action: "search", keyword: "咪咪爱吃什么" }).json.hits.some((h: { text: string }) => h.text === "主人家的橘猫最爱吃鱼"), "咪咪 is the cat, 猫 finds 橘猫");
      equal(call({ action: "search", keyword: "小军送我的礼物" }).json.hits[0].text, "小军送了主人一个足球作为礼物");
      deepEqual(call({ action: "search", keyword: "小君送我的礼物" }).json.hits, []);
      deepEqual(call({ action: "search", keyword: "爸爸的手术" }).json.hits, []);
      equal(call({ action: "search", keyword: "我妈的手术" }).json.hits[0].text, "妈妈上周做了一个小手术，恢复得不错");
      const neg = call({ action: "context", message: "我爸的手术恢复得怎么样了" }).json;
      ok(neg.context.indexOf("手术") < 0, neg.context);
    },
  },
  {
    name: "forms a model sends: 七岁, 3月15日, 下周三 15:00, 上个月; schedules come back in context by their day (下周二我要去干嘛)",
    run() {
      const { call } = boot();
      equal(call({ action: "write", type: "age", content: "七岁" }).json.result, "added");
      equal(call({ action: "read" }).json.profile.age, 7);
      equal(call({ action: "write", type: "birthday", content: "3月15日" }).json.result, "added");
      equal(call({ action: "read" }).json.profile.birthday, "03-15");
      equal(call({ action: "write", type: "schedule", content: "去医院复查牙齿", datetime: "下周二 9点半" }).json.schedule.datetime, "2026-02-10 09:30");
      equal(call({ action: "write", type: "schedule", content: "看牙", datetime: "下周三 15:00" }).json.schedule.datetime, "2026-02-11 15:00");
      ok(/YYYY-MM-DD HH:MM/.test(call({ action: "write", type: "schedule", content: "x", datetime: "下周三" }).text), "no time: says the form it wants");
      const c = call({ action: "context", message: "下周二我要去干嘛来着？" }).json;
      ok(c.context.indexOf("【日程安排】\n- 2026-02-10 09:30 去医院复查牙齿（5天后）") > 0, c.context);
      ok(c.context.indexOf("看牙") < 0, "not the other day's");
      equal(call({ action: "recall", type: "fact", start_date: "上个月", end_date: "上个月" }).json.count, 0);
      ok(/start_date must be a date YYYY-MM-DD/.test(call({ action: "recall", type: "fact", start_date: "很久以前" }).text));
    },
  },
  {
    name: "forgetting without amnesia: an episode the formula removes is folded into its month's digest; 上个月… finds it, marked a summary",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const booted = bootDevice();
      booted.maintenance?.stop();
      const call = toolCaller(booted.service);
      equal(call({ action: "write", type: "episode", content: "主人和爸爸去千岛湖钓鱼，玩得很开心", e: 0.6, i: 0.5, p: 0.2, j: 0.5, keywords: "千岛湖,钓鱼", emotion: "happy" }).json.result, "added");
      dev.clock.now = T0 + 35 * DAY;
      let forgotten = 0;
      for (let k = 0; k < 10; k++) forgotten += booted.episodes!.maintain().forgotten.length;
      equal(forgotten, 1, "the formula removed it");
      equal(call({ action: "read", type: "episode" }).json.total, 0);
      const s = call({ action: "search", keyword: "上个月我和爸爸去哪儿玩了" }).json;
      const h = s.hits.find((x: { kind: string }) => x.kind === "digest");
      ok(h && h.summary === true && h.text.indexOf("千岛湖") >= 0, JSON.stringify(s.hits));
      const c = call({ action: "context", message: "上个月我和爸爸去哪儿玩了来着？" }).json;
      ok(/的月度摘要（已淡忘，只剩概要）“主人和爸爸去千岛湖钓鱼/.test(c.context), c.context);
      // folded again after a cut (the same id): shown once
      booted.archive!.foldEpisodes([{ id: 1, content: "主人和爸爸去千岛湖钓鱼，玩得很开心", keywords: ["爸爸", "千岛湖", "钓鱼"], createdAt: Math.floor(T0 / 1000), feeling: "开心" }]);
      equal(call({ action: "search", keyword: "千岛湖" }).json.hits.filter((x: { kind: string }) => x.kind === "digest").length, 1);
    },
  },
  {
    name: "the episodes' folded signatures stay in step: an episode added, deleted, or written by another writer of the same files is found or not as it is now",
    run() {
      const { svc, store, call } = boot();
      call({ action: "write", type: "episode", content: "周末去动物园看熊猫", p: 0.3 });
      equal(call({ action: "recall", type: "episode", keyword: "熊猫" }).json.count, 1, "the index is built");
      call({ action: "write", type: "episode", content: "和表哥去海边捡贝壳", p: 0.3 });
      equal(call({ action: "recall", type: "episode", keyword: "贝壳" }).json.count, 1, "a new one is found");
      equal(call({ action: "delete", type: "episode", content: "周末去动物园看熊猫" }).json.result, "deleted");
      equal(call({ action: "recall", type: "episode", keyword: "熊猫" }).json.count ?? 0, 0, "a deleted one is not");
      // another writer of the same files (a sync, an import): the index is built again
      new Episodes(store).add({ content: "学会了骑自行车", p: 0.3 });
      equal(call({ action: "recall", type: "episode", keyword: "自行车" }).json.count, 1);
      ok(svc.tool.episodes);
    },
  },
  {
    name: "one flash read budget a call: with a 2-year archive, context, search and recall each read at most 32 KB; one that stops early says partial (archive_cut), newest first; a small archive's answer is whole",
    run() {
      const run = (months: number) => {
        const dev = new SimDevice({ now: T0 }).install();
        const booted = bootDevice();
        booted.maintenance?.stop();
        const archive = booted.archive!;
        const DID = ["去公园放风筝", "在家包饺子", "去图书馆看书", "学游泳", "练钢琴", "踢足球", "去海边捡贝壳", "去爬山"];
        const t0 = Math.floor(T0 / 1000) - months * 30 * 86400;
        for (let m = 0; m < months; m++) {
          const facts = [], moments = [];
          for (let d = 0; d < 30; d++) {
            const t = t0 + (m * 30 + d) * 86400 + 36000;
            facts.push({ timestamp: t, content: `主人说我和爸爸${DID[(m + d) % 8]}，很开心（第${m}月${d}日）` });
            facts.push({ timestamp: t + 60, content: `主人提到${DID[(m * 3 + d) % 8]}的事，有点累（${m}-${d}）` });
            moments.push({ timestamp: t + 120, topic: "日常", content: `我和妈妈${DID[(m + 2 * d) % 8]}，觉得很有意思（${m}/${d}）`, emotion: "happy", intensity: 2, importance: 2 });
          }
          if (m === months - 1) facts.push({ timestamp: t0 + (m * 30 + 29) * 86400 + 40000, content: "主人对花生过敏" });
          dev.clock.now = (t0 + (m * 30 + 30) * 86400) * 1000;
          archive.append("fact", facts);
          archive.append("moment", moments as never);
        }
        archive.settle();
        dev.clock.now = T0;
        const call = toolCaller(booted.service);
        const out: { q: string; bytes: number; json: any }[] = [];
        for (const args of [
          { action: "search", keyword: "过敏" },
          { action: "search", keyword: "我去年在日本买了什么" },
          { action: "context", message: "我去年在日本买了什么" },
          { action: "recall", type: "fact", keyword: "过敏" },
          { action: "recall", message: "上个月我和爸爸去哪儿玩了来着" },
        ]) {
          const before = dev.flash.partition("storage").bytesRead;
          const json = call(args).json;
          out.push({ q: JSON.stringify(args), bytes: dev.flash.partition("storage").bytesRead - before, json });
        }
        return out;
      };
      const big = run(24);
      for (const r of big) ok(r.bytes <= 32 * 1024, `${r.q} read ${r.bytes} bytes`);
      ok(big.some((r) => r.bytes > 24 * 1024), "the budget is what stopped them: " + big.map((r) => r.bytes).join(","));
      const cut = big.filter((r) => r.json.partial === true);
      ok(cut.length > 0, "a call that stopped early says so");
      for (const r of cut) ok(typeof r.json.archive_cut === "string" && r.json.archive_cut.indexOf("32 KB") >= 0, JSON.stringify(r.json).slice(0, 200));
      // what the budget reaches first is the newest: the newest month's fact is found
      equal(big[0].json.archived.fact[0].content, "主人对花生过敏", JSON.stringify(big[0].json).slice(0, 300));
      ok(big[3].json.items.some((x: { content: string }) => x.content === "主人对花生过敏"), JSON.stringify(big[3].json).slice(0, 300));
      const small = run(1);
      for (const r of small) equal(r.json.partial, undefined, `${r.q}: a small archive is searched whole`);
      equal(small[0].json.archived.fact[0].content, "主人对花生过敏");
    },
  },
];

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
];

// action=context (S4 50), the episode actions of the memory tool, and the
// listener's episode of a conversation of 5 rounds or more (S4 44), through
// the service as the device runs them. Episodes on the RAM store stand-in.
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { Episodes } from "../../src/episode/episodes";
import { formEpisode, MIN_ROUNDS } from "../../src/episode/former";
import { isWellFormed, encode } from "../../src/text/utf8";
import { FakeEpisodeStore } from "./episode-fake";
import { CONTEXT_HITS } from "../../src/recall/context";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";

import { bootDevice } from "../../src/app/boot";
import { File, Iterator } from "file";
import config from "mc/config";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 +08:00
const DAY = 86400000;

function boot(withEpisodes = true) {
  const dev = new SimDevice({ now: T0 }).install();
  const svc = new Service({ sink: { remind() {} } });
  const store = new FakeEpisodeStore();
  if (withEpisodes) svc.tool.episodes = new Episodes(store);
  const call = toolCaller(svc);
  return { dev, svc, store, call };
}

function bytes(s: string): number {
  return encode(s).length;
}

export const scenarios: Scenario[] = [
  {
    name: "context: 【用户信息】, 【已知信息】 (facts sharing words with the message first) and 【相关记忆】 (n天前的对话摘要“…”), use counts updated",
    run() {
      const { dev, svc, call } = boot();
      call({ action: "write", type: "name", content: "小明" });
      call({ action: "write", type: "age", content: "6" });
      call({ action: "write", type: "like", content: "恐龙" });
      call({ action: "write", type: "dislike", content: "打雷" });
      call({ action: "write", type: "family", relation: "好朋友", name: "小红", member_type: "friend" });
      call({ action: "write", type: "fact", content: "小明最喜欢霸王龙" });
      dev.clock.now += 60000;
      call({ action: "write", type: "fact", content: "小明在上幼儿园大班" });
      call({ action: "write", type: "episode", content: "聊了恐龙的话题，小明说霸王龙最厉害", e: 0.5, i: 0.5, p: 0.3, j: 0.6 });
      call({ action: "write", type: "episode", content: "周末去奶奶家包饺子", e: 0.4, i: 0.4, p: 0.1, j: 0.4 });
      dev.clock.now += 3 * DAY;
      const r = call({ action: "context", message: "今天我们聊聊霸王龙吧" });
      ok(!r.isError, r.text);
      const text: string = r.json.context;
      const lines = text.split("\n");
      equal(lines[0], "【用户信息】");
      ok(lines.indexOf("用户名字：小明") > 0 && lines.indexOf("年龄：6岁") > 0, text);
      // issue 25: nothing unrelated fills the block
      ok(text.indexOf("打雷") < 0 && text.indexOf("小红") < 0 && text.indexOf("幼儿园") < 0 && text.indexOf("饺子") < 0, `no filler: ${text}`);
      const known = lines.indexOf("【已知信息】");
      const mem = lines.indexOf("【相关记忆】");
      ok(known > 0 && mem > known, "sections in order");
      equal(lines[known + 1], "- 小明最喜欢霸王龙（3天前）", "the fact on the topic, with its age");
      equal(lines[mem + 1], "- 3天前的对话摘要“聊了恐龙的话题，小明说霸王龙最厉害”");
      deepEqual(r.json.hits.map((h: { kind: string }) => h.kind).sort(), ["episode", "fact"], "each hit says its kind");
      equal(r.json.bytes, bytes(text));
      equal(r.json.budget, 1200);
      equal(r.json.episodes.length, 1);
      let uses = -1;
      svc.tool.episodes!.forEach((ep) => void (ep.content.indexOf("霸王龙") >= 0 && (uses = ep.useCount)), { text: true });
      equal(uses, 1, "the recall counted");
    },
  },
  {
    name: "context within its byte budget (200..4000), never cutting a character; without episodes it still answers; bad arguments refused",
    run() {
      const { call } = boot();
      call({ action: "write", type: "name", content: "王浩宇" });
      for (let k = 0; k < 15; k++) call({ action: "write", type: "fact", content: `第${k + 1}条：主人每周${"一二三四五六日"[k % 7]}晚上去体育馆打羽毛球，和同事一起练习发球和步伐` });
      for (const content of ["羽毛球比赛第一轮赢了，主人很开心地讲了每一分", "周六的羽毛球比赛输了，主人说对手发球太刁钻", "主人买了新的羽毛球拍，准备下个月的比赛", "比赛前一天晚上紧张得睡不着，聊了很久"])
        equal(call({ action: "write", type: "episode", content, p: 0.5 }).json.result, "added", content);
      for (const budget of [200, 333, 700, 1200, 4000]) {
        const r = call({ action: "context", message: "羽毛球比赛怎么样", budget });
        ok(!r.isError, r.text);
        const text: string = r.json.context;
        ok(bytes(text) <= budget, `${bytes(text)} bytes > ${budget}`);
        ok(isWellFormed(encode(text)), "whole characters only");
        ok(text.indexOf("【用户信息】\n用户名字：王浩宇") === 0, text);
        if (budget < 700) equal(r.json.cut, true, `budget ${budget}`);
        if (budget >= 700) ok(text.indexOf("【相关记忆】") > 0, `memories kept first at ${budget}`);
      }
      const big = call({ action: "context", message: "羽毛球", budget: 4000 }).json;
      equal(big.hits.length, CONTEXT_HITS, "the most relevant hits, all of them in 4000");
      equal(big.cut, undefined);
      for (const [args, msg] of [
        [{ action: "context", budget: 100 }, "budget must be an integer from 200 to 4000"],
        [{ action: "context", budget: 1.5 }, "budget must be an integer"],
        [{ action: "context", message: 5 }, "message must be a string"],
        [{ action: "context", colour: "red" }, "unknown argument"],
        [{ action: "context", type: "episode" }, "does not take 'type'"],
      ] as [Record<string, unknown>, string][]) {
        const r = call(args);
        ok(r.isError && r.text.indexOf(msg) >= 0, `${JSON.stringify(args)}: ${r.text}`);
      }
      const none = boot(false);
      none.call({ action: "write", type: "name", content: "小明" });
      const r = none.call({ action: "context", message: "你好" });
      ok(!r.isError);
      equal(r.json.context, "【用户信息】\n用户名字：小明");
      ok(typeof r.json.episodes_unavailable === "string");
    },
  },
  {
    name: "episode actions: write, recall (with age and similarity), read most important first, delete by id or content (trash, user_delete); errors change nothing",
    run() {
      const { dev, store, call } = boot();
      const w = call({ action: "write", type: "episode", content: "你对花生过敏，吃了会起疹子", e: 0.7, i: 0.9, p: 1, j: 1, keywords: "花生,过敏", emotion: "worried" });
      ok(!w.isError, w.text);
      equal(w.json.result, "added");
      equal(w.json.episode.core, true);
      deepEqual(w.json.episode.keywords, ["花生", "过敏"]);
      equal(call({ action: "write", type: "episode", content: "你对花生过敏，吃了会起疹子", e: 0.7, i: 0.9, p: 1, j: 1, keywords: "花生,过敏", emotion: "worried" }).json.result, "no_change");
      call({ action: "write", type: "episode", content: "下午去公园骑了自行车", e: 0.3, i: 0.3, p: 0.1, j: 0.3 });
      dev.clock.now += 2 * DAY;
      const rc = call({ action: "recall", type: "episode", message: "能吃花生酱吗" });
      equal(rc.json.count, 1);
      equal(rc.json.items[0].content, "你对花生过敏，吃了会起疹子");
      equal(rc.json.items[0].age, "2天前");
      equal(rc.json.items[0].use_count, 1);
      ok(rc.json.items[0].score > 0, "ranked by the retrieval's score");
      equal(call({ action: "recall", type: "episode", keyword: "自行车", limit: 1 }).json.items[0].content, "下午去公园骑了自行车");
      const rd = call({ action: "read", type: "episode" }).json;
      equal(rd.total, 2);
      deepEqual(rd.items.map((x: { content: string }) => x.content), ["你对花生过敏，吃了会起疹子", "下午去公园骑了自行车"], "core first");
      const before = store.writes;
      for (const [args, msg] of [
        [{ action: "write", type: "episode" }, "content is required"],
        [{ action: "write", type: "episode", content: "x", e: 2 }, "e must be a number from 0 to 1"],
        [{ action: "write", type: "episode", content: "x", topic: "y" }, "does not take 'topic'"],
        [{ action: "recall", type: "episode" }, "needs message"],
        [{ action: "recall", type: "episode", message: "x", limit: 9 }, "limit must be an integer from 1 to 8"],
        [{ action: "delete", type: "episode" }, "needs content"],
        [{ action: "delete", type: "episode", id: "abc" }, "id must be"],
      ] as [Record<string, unknown>, string][]) {
        const r = call(args);
        ok(r.isError && r.text.indexOf(msg) >= 0, `${JSON.stringify(args)}: ${r.text}`);
      }
      equal(store.writes, before, "nothing written by a refused call");
      store.failNext = "write";
      const failed = call({ action: "write", type: "episode", content: "今天学会了游泳" });
      ok(failed.isError && failed.text.indexOf("not saved") >= 0 && failed.text.indexOf("nothing changed") >= 0, failed.text);
      equal(call({ action: "read", type: "episode" }).json.total, 2);
      equal(call({ action: "delete", type: "episode", content: "没有这件事" }).json.result, "not_found");
      const d = call({ action: "delete", type: "episode", id: rd.items[1].id });
      equal(d.json.result, "deleted");
      equal(call({ action: "delete", type: "episode", content: "花生过敏" }).json.result, "deleted", "by a part of its content");
      equal(call({ action: "read", type: "episode" }).json.total, 0);
      let reasons = "";
      store.tombs((t) => void (reasons += t.reason + ","));
      equal(reasons, "user_delete,user_delete,");
      const off = boot(false);
      const r = off.call({ action: "write", type: "episode", content: "x" });
      ok(r.isError && r.text.indexOf("not available") >= 0, r.text);
    },
  },
  {
    name: "the listener forms one episode when a conversation of 5 user rounds ends, none after 4; the NVS batch is unchanged",
    run() {
      const { svc } = boot();
      const eps = svc.tool.episodes!;
      const talk = (lines: string[]) => {
        for (const l of lines) {
          svc.hear("user", l);
          svc.hear("assistant", "嗯嗯，然后呢？");
        }
      };
      talk(["今天我们班去科技馆参观了", "科技馆里有一个机器人会跳舞", "机器人还会和我们握手", "我也想做一个机器人"]);
      svc.endConversation();
      equal(eps.counts().active, 0, "4 rounds: no episode");
      talk(["今天我们班去科技馆参观了", "科技馆里有一个机器人会跳舞", "机器人还会和我们握手", "嗯", "我以后想做一个机器人，当科学家"]);
      svc.endConversation();
      const all: { content: string; source: string; keywords: string[]; p: number }[] = [];
      eps.forEach((ep) => void all.push({ content: ep.content, source: ep.source, keywords: ep.keywords, p: ep.p }), { text: true });
      equal(all.length, 1, "5 rounds: one episode");
      equal(all[0].source, "listener");
      equal(all[0].keywords[0], "机器人", "the word said most, whole");
      ok(all[0].content.indexOf("跳舞") >= 0, all[0].content);
      ok(all[0].content.indexOf("嗯") < 0, "acknowledgements left out");
      equal(all[0].p, 50, "a plan was said (以后): p 0.5");
      // the end of the conversation writes NVS exactly as it does without episodes
      const nvsWrites = (withEpisodes: boolean) => {
        const d = boot(withEpisodes);
        for (const l of ["我叫小明", "我喜欢画画", "今天画了一只恐龙", "恐龙是绿色的", "明天还想画"]) {
          d.svc.hear("user", l);
          d.svc.hear("assistant", "真棒！");
        }
        const before = d.dev.flash.writes;
        const written = d.svc.endConversation();
        return [written, d.dev.flash.writes - before, d.svc.tool.episodes ? d.svc.tool.episodes.counts().active : 0];
      };
      const [a, b] = [nvsWrites(false), nvsWrites(true)];
      deepEqual([a[0], a[1]], [b[0], b[1]], "same NVS batch");
      ok(a[1] > 0, "the batch wrote something");
      equal(b[2], 1, "and the episode was formed");
      // the former alone: rules and limits
      equal(formEpisode(["a", "b"], MIN_ROUNDS - 1), undefined);
      equal(formEpisode(["嗯", "好的", "哈哈", "对", "拜拜"], 5), undefined, "nothing informative");
      const long = formEpisode(Array.from({ length: 12 }, (_, k) => `我今天第${k}次去操场上跑步，跑得很累但是很开心，想明天再去跑一次`), 12)!;
      let n = 0;
      for (const _ of long.content as string) n++;
      ok(n <= 200, `${n} characters`);
      equal(long.emotion, "happy");
      const sad = formEpisode(["我今天很难过", "小狗生病了", "我很担心它", "妈妈带它去医院", "希望它快点好起来"], 5)!;
      equal(sad.emotion, "worried", "生病 and 担心 outnumber 难过");
      const one = (w: string) => formEpisode(["今天放学回家", "路上看见一只小猫", `我觉得很${w}`, "后来去写作业了", "晚上吃了米饭"], 5)!;
      ok((one("难过").e as number) > (one("开心").e as number), "a negative word weighs more than a positive one");
      equal(one("开心").emotion, "happy");
    },
  },
  {
    name: "on the device's own store: episodes, use counts, the trash and tombstones survive a reboot; damaged episode files never stop the boot",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      let b = bootDevice(undefined, { sink: { remind() {} } });
      const call = (a: Record<string, unknown>) => JSON.parse(b.service.tool.call(a));
      equal(call({ action: "write", type: "episode", content: "你很爱吃辣", p: 1, keywords: "吃辣" }).result, "added");
      equal(call({ action: "write", type: "episode", content: "周末和小红去动物园看熊猫", e: 0.6, i: 0.5, p: 0.3, j: 0.6 }).result, "added");
      dev.clock.now += 40 * DAY;
      const patched = call({ action: "write", type: "episode", content: "最近胃炎，不吃辣了" });
      equal(patched.episode.content, "最近胃炎，不吃辣了（2026-03-17前：你很爱吃辣）");
      equal(call({ action: "recall", type: "episode", message: "我想再去动物园看熊猫" }).items[0].use_count, 1);
      b.maintenance?.stop();
      b.service.stop();
      dev.reboot();
      b = bootDevice(undefined, { sink: { remind() {} } });
      const r = call({ action: "read", type: "episode" });
      deepEqual(r.items.map((x: { content: string; use_count: number }) => [x.content, x.use_count]), [["最近胃炎，不吃辣了（2026-03-17前：你很爱吃辣）", 1], ["周末和小红去动物园看熊猫", 1]]);
      equal(call({ action: "delete", type: "episode", content: "动物园" }).result, "deleted");
      b.maintenance?.stop();
      b.service.stop();
      dev.reboot();
      b = bootDevice(undefined, { sink: { remind() {} } });
      deepEqual(b.episodes!.counts(), { active: 1, core: 1, trash: 1, tombs: 2, slots: 2 });
      const reasons: string[] = [];
      b.episodes!.store.tombs((t) => void reasons.push(t.reason));
      deepEqual(reasons, ["conflict_patch", "user_delete"]);
      b.maintenance?.stop();
      b.service.stop();
      // every episode file damaged (both copies): the device boots, memory and the episode actions still answer
      const it = new Iterator(config.file.root);
      const names: string[] = [];
      for (let f = it.next(); f; f = it.next()) if (f.name.indexOf("ep.") === 0) names.push(f.name);
      ok(names.length > 0, "episode files exist");
      for (const n of names) {
        const f = new File(config.file.root + n, true);
        f.write(new Uint8Array(f.length > 64 ? 64 : f.length).fill(0xa5).buffer);
        f.close();
      }
      dev.reboot();
      b = bootDevice(undefined, { sink: { remind() {} } });
      ok(b.service.tool.call({ action: "read" }).indexOf("profile") >= 0, "memory answers");
      const ctx = call({ action: "context", message: "能吃辣吗" });
      ok(typeof ctx.context === "string");
      equal(typeof call({ action: "read", type: "episode" }).total, "number");
      equal(call({ action: "write", type: "episode", content: "今天学会了游泳" }).result, "added", "and new episodes are kept again");
      b.maintenance?.stop();
      b.service.stop();
    },
  },
];

// Speech through the whole device (issue 15): what the listener stores is
// what read shows, search finds and the reminder service reminds. Yearly
// events remind the day before and on the day, once each, across a reboot;
// a dated reminder without a time on its day; a todo is visible and findable.
// Corrections replace and say so, notes go to family members, jokes withdraw.
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { ReminderService, type Reminder } from "../../src/schedule/reminder";
import { nextYearly } from "../../src/schedule/allday";
import { fromLocal } from "../../src/time/local";
import { Episodes } from "../../src/episode/episodes";
import { FakeEpisodeStore } from "./episode-fake";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = fromLocal(2026, 2, 5, 13, 0); // Thursday

function boot(dev?: SimDevice) {
  const d = dev ?? new SimDevice({ now: T0 }).install();
  const svc = new Service({ sink: { remind() {} } });
  const formed: string[] = [];
  svc.listener.onMemory = (f) => formed.push(`${f.type}=${f.content}:${f.result}${f.previous ? "<" + f.previous : ""}`);
  return { dev: d, svc, formed };
}

function read(svc: Service) {
  return JSON.parse(svc.tool.call({ action: "read" }));
}

function say(svc: Service, ...lines: string[]) {
  for (const l of lines) svc.hear("user", l);
  svc.endConversation();
}

function reminders(svc: Service, at: number): string[] {
  const got: Reminder[] = [];
  const r = new ReminderService(svc.memory, { remind: (x) => got.push(x) });
  r.checkNow(at);
  return got.map((x) => `${x.content}@${x.allDay ? x.day : x.datetime}`);
}

export const scenarios: Scenario[] = [
  {
    name: "a birthday said in passing becomes a yearly event: read shows it, search finds it, reminded the day before and on the day, once, across a reboot and a year",
    run() {
      const { dev, svc } = boot();
      say(svc, "嗯我妈妈的生日是三月八号记得提醒我");
      const r = read(svc);
      deepEqual(r.events, [{ date: "03-08", content: "妈妈的生日", type: "birthday" }]);
      deepEqual(r.profile, {}, "not the speaker's birthday");
      const found = JSON.parse(svc.tool.call({ action: "search", keyword: "妈妈" }));
      ok(found.items.some((i: { where: string; text: string }) => i.where === "event" && i.text.indexOf("妈妈的生日") >= 0), "findable");
      equal(nextYearly("03-08", T0), "2026-03-08");
      deepEqual(reminders(svc, fromLocal(2026, 3, 6, 20, 0)), [], "two days before: nothing");
      deepEqual(reminders(svc, fromLocal(2026, 3, 7, 7, 50)), [], "the day before, before 08:00: nothing yet");
      deepEqual(reminders(svc, fromLocal(2026, 3, 7, 8, 0)), ["妈妈的生日@tomorrow"]);
      deepEqual(reminders(svc, fromLocal(2026, 3, 7, 18, 0)), [], "once");
      // the mark was flushed before the reminder went out: a reboot does not repeat it
      dev.reboot();
      const again = boot(dev).svc;
      deepEqual(reminders(again, fromLocal(2026, 3, 7, 19, 0)), [], "once, across a reboot");
      deepEqual(reminders(again, fromLocal(2026, 3, 8, 10, 0)), ["妈妈的生日@today"]);
      deepEqual(reminders(again, fromLocal(2026, 3, 8, 11, 0)), []);
      deepEqual(reminders(again, fromLocal(2026, 3, 12, 9, 0)), [], "after the day: the marks go back to 0");
      equal(again.memory.events()[0].reminded, 0);
      deepEqual(reminders(again, fromLocal(2027, 3, 7, 9, 0)), ["妈妈的生日@tomorrow"], "next year again");
    },
  },
  {
    name: "anniversaries too; a dated reminder without a time is reminded on its day; a todo is shown and found, never timed",
    run() {
      const { svc } = boot();
      say(svc, "我们的结婚纪念日是二月七号", "明天提醒我带伞", "提醒我买牛奶");
      const r = read(svc);
      deepEqual(r.events.map((e: { date: string; content: string; type: string }) => `${e.type} ${e.date} ${e.content}`), ["todo 2026-02-05 买牛奶", "reminder 2026-02-06 带伞", "anniversary 02-07 结婚纪念日"]);
      ok(JSON.parse(svc.tool.call({ action: "search", keyword: "牛奶" })).count === 1, "the todo is findable");
      deepEqual(reminders(svc, fromLocal(2026, 2, 6, 8, 30)).sort(), ["带伞@today", "结婚纪念日@tomorrow"]);
      deepEqual(reminders(svc, fromLocal(2026, 2, 7, 8, 30)), ["结婚纪念日@today"]);
      deepEqual(reminders(svc, fromLocal(2026, 2, 8, 8, 30)), []);
    },
  },
  {
    name: "spoken repeating reminders become schedules with their repeat rule, reminded ahead like any schedule",
    run() {
      const { svc } = boot();
      say(svc, "每天早上七点提醒我吃药", "每周三下午游泳", "每个月一号提醒我交房租");
      const s = read(svc).schedules.map((x: { content: string; datetime: string; repeat: string }) => `${x.datetime} ${x.content} ${x.repeat}`);
      deepEqual(s, ["2026-02-06 07:00 吃药 daily", "2026-02-11 15:00 游泳 weekly", "2026-03-01 08:00 交房租 monthly"]);
      deepEqual(reminders(svc, fromLocal(2026, 2, 6, 6, 30)), ["吃药@2026-02-06 07:00"]);
      deepEqual(reminders(svc, fromLocal(2026, 2, 7, 6, 30)), ["吃药@2026-02-07 07:00"], "the daily series moves on by itself");
    },
  },
  {
    name: "corrections replace and say so; notes go to the family member, not the speaker; a joke withdraws; 不再喜欢 removes a like",
    run() {
      const { svc, formed } = boot();
      say(svc, "我住在北京", "我喜欢奥特曼");
      say(svc, "我搬家了现在住在天津");
      ok(formed.indexOf("location=天津:updated<北京") >= 0, formed.join(" "));
      equal(read(svc).profile.location, "天津");
      say(svc, "我妹妹叫小红");
      say(svc, "我妹妹喜欢画画她今年三岁");
      const r = read(svc);
      deepEqual(r.family, [{ relation: "妹妹", name: "小红", closeness: 3, memory: "喜欢画画，今年三岁" }]);
      deepEqual(r.preferences.likes, ["奥特曼"], "画画 is the sister's");
      equal(r.profile.age, undefined, "三岁 is the sister's");
      say(svc, "我喜欢吃榴莲", "骗你的");
      deepEqual(read(svc).preferences.likes, ["奥特曼"], "withdrawn");
      say(svc, "我不再喜欢奥特曼了");
      deepEqual(read(svc).preferences.likes, [], "no longer liked");
      ok(formed.indexOf("like=奥特曼:deleted") >= 0);
      say(svc, "我在读初一");
      say(svc, "不对我已经上初二了");
      deepEqual(read(svc).facts, ["主人上初二"], "the grade replaces the grade before");
      ok(formed.some((f) => f.indexOf("fact=主人上初二:updated<") === 0));
    },
  },
  {
    name: "an unsure item waits in pending, a question or a hypothetical stores nothing",
    run() {
      const { svc } = boot();
      say(svc, "我好像对海鲜过敏", "我要是有一百万就环游世界", "你知道我住在哪里吗", "我是不是很胖");
      const r = read(svc);
      deepEqual(r.facts, []);
      deepEqual(r.pending.map((p: { type: string; content: string; confirmed: boolean }) => `${p.type} ${p.content} ${p.confirmed}`), ["fact 主人对海鲜过敏 false"]);
      deepEqual(r.profile, {});
      deepEqual(r.events, []);
    },
  },
  // ---- issue 24: one memory, not two; episodes that read like a sentence; retractions, secrets, speakers
  {
    name: "one memory, not two: the model's own write settles the item heard in the same conversation, in either order, and a later conversation never adds a near-duplicate",
    run() {
      const { svc } = boot();
      const tool = (a: Record<string, unknown>) => JSON.parse(svc.tool.call(a));
      // heard first, then written by the model in its own words
      svc.hear("user", "我叫林小雨 我在读小学三年级");
      svc.hear("assistant", "三年级呀，真棒！");
      equal(tool({ action: "write", type: "fact", content: "林小雨在读小学三年级" }).result, "added");
      svc.endConversation();
      let r = read(svc);
      deepEqual(r.facts, ["林小雨在读小学三年级"], "one fact: the model's");
      equal(r.profile.name, "林小雨");
      // written by the model first, heard after
      equal(tool({ action: "write", type: "like", content: "西瓜" }).result, "added");
      svc.hear("user", "我喜换吃西瓜");
      svc.endConversation();
      r = read(svc);
      deepEqual(r.preferences.likes, ["西瓜"], "吃西瓜 is 西瓜: no second like");
      // a later conversation says it again in other words
      say(svc, "我在读小学三年级呢");
      deepEqual(read(svc).facts, ["林小雨在读小学三年级"], "never a near-duplicate");
      deepEqual(read(svc).pending, []);
    },
  },
  {
    name: "one memory, not two: a heard reminder and the model's schedule for the same thing are one",
    run() {
      const { svc } = boot();
      const tool = (a: Record<string, unknown>) => JSON.parse(svc.tool.call(a));
      svc.hear("user", "提醒我练琴");
      svc.hear("assistant", "好的，每天晚上七点提醒你练琴");
      equal(tool({ action: "write", type: "schedule", content: "练琴", datetime: "2026-02-05 19:00", repeat: "daily" }).result, "added");
      svc.endConversation();
      const r = read(svc);
      deepEqual(r.events, [], "no todo beside the schedule");
      deepEqual(r.schedules.map((x: { content: string }) => x.content), ["练琴"]);
      // and a dated plan heard after the model scheduled it on that day
      equal(tool({ action: "write", type: "schedule", content: "看牙医", datetime: "2026-02-06 15:00" }).result, "added");
      say(svc, "明天下午我要去看牙医");
      const again = read(svc);
      deepEqual(again.events, [], "the heard plan is the model's schedule");
      equal(again.schedules.length, 2);
    },
  },
  {
    name: "the listener's episode reads like a sentence (who did what, how it felt), with whole words as keywords, or is not formed",
    run() {
      const { svc } = boot();
      const eps = (svc.tool.episodes = new Episodes(new FakeEpisodeStore()));
      for (const l of ["嗯我叫陈晨", "我今年九岁", "我喜欢画画和小兔子", "嗯嗯", "好的拜拜"]) {
        svc.hear("user", l);
        svc.hear("assistant", "好呀");
      }
      svc.endConversation();
      const all: { content: string; keywords: string[] }[] = [];
      eps.forEach((ep) => void all.push({ content: ep.content, keywords: ep.keywords }), { text: true });
      equal(all.length, 1);
      equal(all[0].content, "主人说自己叫陈晨，说自己9岁了，说喜欢画画和小兔子，听起来很开心。");
      deepEqual(all[0].keywords, ["陈晨", "画画", "小兔子"]);
      ok(all.every((e) => e.content.indexOf("聊了") < 0 && e.keywords.indexOf("叫陈") < 0), "never fragments");
      // only acknowledgements: no episode
      for (const l of ["嗯", "好的", "哈哈", "对", "拜拜"]) svc.hear("user", l);
      svc.endConversation();
      equal(eps.counts().active, 1);
    },
  },
  {
    name: "taken back: 这个别记 and 名字别记 remove what the conversation said, a later 忘掉 clears the field; a secret is neither stored nor kept verbatim in the chat log",
    run() {
      const { svc, formed } = boot();
      svc.hear("user", "我叫张小凡 今年九岁");
      svc.hear("user", "名字别记 年龄可以记");
      svc.endConversation();
      let r = read(svc);
      deepEqual(r.profile, { age: 9 });
      say(svc, "我住在成都");
      equal(read(svc).profile.location, "成都");
      say(svc, "你把我住哪忘掉吧");
      r = read(svc);
      equal(r.profile.location, undefined, "cleared");
      ok(formed.indexOf("location=成都:deleted") >= 0, formed.join(" "));
      // 这个别记 takes back what was just said, not the whole conversation; 都别记 all of it
      say(svc, "我喜欢画画", "我喜欢吃榴莲", "这个别记");
      deepEqual(read(svc).preferences.likes, ["画画"]);
      say(svc, "我喜欢跳舞", "我喜欢唱歌", "刚才说的都别记");
      deepEqual(read(svc).preferences.likes, ["画画"]);
      say(svc, "我的银行卡密码是六个八", "我电话是13812345678");
      r = read(svc);
      deepEqual(r.facts, []);
      const log = svc.memory.chat().map((m) => m.content).join("|");
      ok(log.indexOf("六个八") < 0 && log.indexOf("13812345678") < 0 && log.indexOf("***") >= 0, log);
    },
  },
  {
    name: "several speakers: what grandma says of herself is not the owner's; handed back, the owner's words are; a story read aloud stores nothing",
    run() {
      const { svc } = boot();
      say(svc, "奶奶你跟它说两句", "你好呀小家伙 我是他奶奶 我今年七十了 我喜欢看戏", "宝宝你自己跟它说", "我叫豆豆 我八岁了");
      const r = read(svc);
      deepEqual(r.profile, { name: "豆豆", age: 8 });
      deepEqual(r.preferences.likes, []);
      say(svc, "从前有一只小兔子它最喜欢吃胡萝卜", "我是孙悟空 俺老孙来也");
      deepEqual(read(svc).preferences.likes, []);
      deepEqual(read(svc).profile, { name: "豆豆", age: 8 });
    },
  },
];

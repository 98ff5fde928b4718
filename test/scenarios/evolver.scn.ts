// The relationship (src/relation): coins from conversations, daily streaks and
// completed schedules with their caps, the stage they make, affection and mood
// within bounds, the 10 achievements unlocked and reported once, the version-1
// affection record migrated, and action=summary.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { Memory } from "../../src/memory/memory";
import { Store, DOMAIN, HEADER_BYTES } from "../../src/nvs/store";
import { Health } from "../../src/nvs/health";
import { SPECS, STAGES, ACHIEVEMENTS, affectionLayoutV1, type Affection } from "../../src/memory/types";
import { COINS, AFFECTION, dayNumber } from "../../src/relation/rules";
import { feeling, sharesSecret } from "../../src/relation/evolver";
import { XiaozhiLink } from "../../src/link/xiaozhi";
import { SUMMARY_BYTES } from "../../src/mcp/relation-actions";
import { fromLocal } from "../../src/time/local";
import { byteLength } from "../../src/text/utf8";
import { fillEveryStore } from "../powercut/fill";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";

const T0 = fromLocal(2026, 2, 5, 13, 0); // a Thursday afternoon, local time
const DAY = 86400000;

function boot(now = T0) {
  const dev = new SimDevice({ now }).install();
  const svc = new Service({ sink: { remind() {} } });
  const call = toolCaller(svc);
  // a conversation of `rounds` user lines, each answered, then its end
  const talk = (rounds: number, user = "嗯嗯", reply = "好的呀") => {
    for (let i = 0; i < rounds; i++) {
      svc.hear("user", user);
      dev.clock.advance(3000);
      svc.hear("assistant", reply);
      dev.clock.advance(3000);
    }
    svc.endConversation();
    return svc.listener.evolver.lastRecord;
  };
  const aff = () => svc.memory.affection();
  return { dev, svc, call, talk, aff };
}

export const scenarios: Scenario[] = [
  {
    name: "evolver: a conversation of a few rounds earns coins, a tiny one only the day's coin; 100 conversations in a day earn the cap",
    run() {
      const { svc, talk, aff } = boot();
      equal(aff().totalCoinsSpent, 0);
      let r = talk(1);
      equal(r!.newDay, true, "the first conversation of the day");
      equal(r!.coins, COINS.daily, "a one-round conversation: only the day's coin");
      equal(aff().totalCoinsSpent, 1);
      equal(aff().streakDays, 1);
      equal(aff().totalDays, 1);
      r = talk(COINS.minRounds - 1);
      equal(r!.coins, 0, "too short, and the day's coin is taken");
      r = talk(COINS.minRounds);
      equal(r!.coins, COINS.conversation);
      for (let i = 0; i < 100; i++) talk(COINS.minRounds);
      equal(aff().totalCoinsSpent, COINS.daily + COINS.dayCap, "many conversations in one day earn no more than the cap");
      equal(aff().chatCoins, COINS.dayCap);
      equal(aff().totalConversations, 103);
      ok(aff().affection <= AFFECTION.start + AFFECTION.dayCap, `affection gained in one day is capped: ${aff().affection}`);
      equal(aff().affection, AFFECTION.start + AFFECTION.dayCap);
      equal(svc.memory.dirty, false, "each conversation's record went out with its batch");
    },
  },
  {
    name: "evolver: a new local day resets the caps; a long conversation earns more; days and conversations are counted",
    run() {
      const { dev, talk, aff } = boot();
      for (let i = 0; i < 5; i++) talk(COINS.longRounds);
      equal(aff().totalCoinsSpent, COINS.daily + COINS.dayCap);
      // 23:30 local is still the same day; 00:30 is the next
      dev.clock.advanceTo(fromLocal(2026, 2, 5, 23, 30));
      equal(talk(1)!.newDay, false);
      dev.clock.advanceTo(fromLocal(2026, 2, 6, 0, 30));
      const r = talk(COINS.longRounds);
      equal(r!.newDay, true);
      equal(r!.coins, COINS.daily + COINS.long);
      equal(aff().streakDays, 2, "yesterday, then today: a streak of 2");
      equal(aff().totalDays, 2);
      equal(aff().coinDay, dayNumber(dev.clock.now));
      equal(aff().chatCoins, COINS.long);
    },
  },
  {
    name: "evolver: a daily streak earns a coin a day, a bonus at 7 and at 30 days; a missed day starts again; the stage follows the coins",
    run() {
      const { dev, talk, aff, call } = boot();
      const coinsOn: number[] = [];
      for (let d = 0; d < 30; d++) {
        dev.clock.advanceTo(T0 + d * DAY);
        coinsOn.push(talk(1)!.coins);
      }
      equal(coinsOn[0], COINS.daily);
      equal(coinsOn[6], COINS.daily + COINS.streak7, "day 7: the week's bonus");
      equal(coinsOn[7], COINS.daily);
      equal(coinsOn[29], COINS.daily + COINS.streak30, "day 30: the month's bonus");
      equal(aff().streakDays, 30);
      equal(aff().totalCoinsSpent, 30 * COINS.daily + COINS.streak7 + COINS.streak30);
      equal(call({ action: "read" }).json.relationship.stage, "acquaintance", "45 coins: acquaintance (21-50)");
      const names = (aff().achievements >> 1) & 3;
      equal(names, 3, "week_streak and month_streak");
      // a day missed: the streak starts again, the best is kept
      dev.clock.advanceTo(T0 + 31 * DAY);
      talk(1);
      equal(aff().streakDays, 1);
      equal(aff().bestStreak, 30);
      equal(aff().totalDays, 31);
      // conversations bring the coins to each stage's threshold
      const stages: string[] = [call({ action: "read" }).json.relationship.stage];
      for (let d = 32; d < 60; d++) {
        dev.clock.advanceTo(T0 + d * DAY);
        for (let i = 0; i < 3; i++) talk(COINS.minRounds); // the day's cap
        const s = call({ action: "read" }).json.relationship;
        if (stages[stages.length - 1] !== s.stage) stages.push(s.stage);
        equal(s.style, STAGES.find((x) => x.stage === s.stage)!.hint, "the style is the stage's");
      }
      deepEqual(stages, ["acquaintance", "friend", "close_friend", "soulmate"]);
    },
  },
  {
    name: "evolver: a completed schedule earns when its time has come, once per occurrence, at most the day's cap; in the tool's one commit",
    run() {
      const { call, aff, dev } = boot();
      const before = aff().totalCoinsSpent;
      call({ action: "write", type: "schedule", content: "上午练琴", datetime: "2026-02-05 10:00" });
      call({ action: "write", type: "schedule", content: "明天体检", datetime: "2026-02-06 10:00" });
      call({ action: "write", type: "schedule", content: "每天吃药", datetime: "2026-02-05 11:00", repeat: "daily" });
      call({ action: "write", type: "schedule", content: "中午午睡", datetime: "2026-02-05 12:00", duration: 30 });
      call({ action: "write", type: "schedule", content: "下午读书", datetime: "2026-02-05 12:30" });
      equal(call({ action: "complete_schedule", content: "上午练琴" }).json.result, "completed");
      equal(aff().totalCoinsSpent, before + COINS.schedule);
      equal(call({ action: "complete_schedule", content: "明天体检" }).json.result, "completed");
      equal(aff().totalCoinsSpent, before + COINS.schedule, "a future schedule earns nothing");
      const daily = call({ action: "complete_schedule", content: "每天吃药" }).json;
      equal(daily.next.datetime, "2026-02-06 11:00");
      equal(aff().totalCoinsSpent, before + 2 * COINS.schedule, "today's occurrence earns");
      call({ action: "complete_schedule", content: "每天吃药" });
      equal(aff().totalCoinsSpent, before + 2 * COINS.schedule, "the next occurrence is tomorrow's: nothing");
      call({ action: "complete_schedule", content: "中午午睡" });
      call({ action: "complete_schedule", content: "下午读书" });
      equal(aff().taskCoins, COINS.scheduleDayCap);
      equal(aff().totalCoinsSpent, before + COINS.scheduleDayCap, "the day's cap");
      // written with the schedule's own commit: a reboot keeps it
      dev.reboot();
      const again = new Service({ sink: { remind() {} } });
      equal(again.memory.affection().totalCoinsSpent, before + COINS.scheduleDayCap);
      // the next day the cap starts again
      dev.clock.advanceTo(fromLocal(2026, 2, 6, 12, 0));
      const call2 = (args: Record<string, unknown>) => JSON.parse(again.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: args } }))!).result.content[0].text as string;
      call2({ action: "write", type: "schedule", content: "早上跑步", datetime: "2026-02-06 07:00" });
      const r = call2({ action: "complete_schedule", content: "早上跑步" });
      ok(r.indexOf("completed") >= 0, r);
      equal(again.memory.affection().totalCoinsSpent, before + COINS.scheduleDayCap + COINS.schedule);
    },
  },
  {
    name: "evolver: the user's words and the server's emotions move mood and affection, within bounds per conversation and over time",
    run() {
      equal(feeling("哈哈今天太开心了"), 1);
      equal(feeling("我今天不开心"), -1);
      equal(feeling("我不难过了"), 0, "negated");
      equal(feeling("我有点担心明天的考试"), -1);
      equal(feeling("别担心"), 0);
      equal(feeling("今天吃了面条"), 0);
      const { dev, talk, aff } = boot();
      let r = talk(20, "哈哈太开心了", "我也好开心");
      equal(r!.mood, AFFECTION.moodStep, "20 happy turns move the mood by the step, no more");
      ok(r!.affection <= AFFECTION.maxUp, `a conversation gains at most ${AFFECTION.maxUp}: ${r!.affection}`);
      // sad days: the mood never goes below -10, affection never below 0
      for (let d = 1; d <= 12; d++) {
        dev.clock.advanceTo(T0 + d * DAY);
        for (let i = 0; i < 6; i++) talk(1, "我好难过", "");
      }
      equal(aff().mood, -10);
      ok(aff().affection >= 0);
      // a long absence costs affection, never below 0
      const low = aff().affection;
      dev.clock.advanceTo(T0 + 40 * DAY);
      r = talk(1, "今天吃了面条");
      equal(r!.affection, Math.max(-low, AFFECTION.absence + AFFECTION.newDay), "absence: -3, the day's +1");
      ok(aff().affection >= 0);
      ok(aff().mood > -10, "a night calms the mood halfway");
      // the link's emotions count like the user's words
      const { svc } = boot(T0 + 50 * DAY);
      const link = new XiaozhiLink(svc);
      link.receive(JSON.stringify({ type: "stt", text: "今天吃了面条" }));
      link.receive(JSON.stringify({ type: "llm", text: "😂", emotion: "laughing" }));
      link.receive(JSON.stringify({ type: "llm", text: "😂", emotion: "laughing" }));
      link.receive(JSON.stringify({ type: "tts", state: "sentence_start", text: "真好吃" }));
      link.receive(JSON.stringify({ type: "goodbye" }));
      equal(svc.memory.affection().mood, 2);
      // affection tops out at 100
      svc.memory.updateAffection((a) => (a.affection = 99));
      svc.flush(true);
      const l2 = new XiaozhiLink(svc);
      for (let i = 0; i < 3; i++) {
        l2.receive(JSON.stringify({ type: "stt", text: "哈哈" }));
        l2.receive(JSON.stringify({ type: "tts", state: "sentence_start", text: `嘻嘻${i}` }));
      }
      l2.close();
      equal(svc.memory.affection().affection, 100);
      equal(svc.memory.affection().maxAffection, 100);
    },
  },
  {
    name: "evolver: comfort, a secret, happy and sad moments are counted once a conversation; the achievements unlock by their conditions and read reports each once",
    run() {
      ok(sharesSecret("告诉你一个秘密，我喜欢同桌"));
      ok(sharesSecret("你要保密哦"));
      ok(!sharesSecret("不告诉你，是秘密"), "a refusal");
      const { dev, svc, talk, aff, call } = boot();
      svc.hear("user", "我今天好难过，考试没考好");
      svc.hear("assistant", "抱抱你，下次一定行");
      svc.hear("user", "告诉你一个秘密，我其实很怕黑");
      svc.hear("assistant", "我会替你保密的");
      svc.hear("user", "我又难过了");
      svc.hear("assistant", "我陪着你");
      svc.endConversation();
      const a = aff();
      equal(a.comfortedTimes, 1, "once a conversation");
      equal(a.sharedSecrets, 1);
      equal(a.sadMoments, 1);
      let r = call({ action: "read" }).json;
      deepEqual(r.relationship.new_achievements, ["first_chat", "share_secret", "first_comfort"]);
      equal(call({ action: "read" }).json.relationship.new_achievements, undefined, "reported once");
      dev.reboot();
      const again = new Service({ sink: { remind() {} } });
      const read2 = JSON.parse(JSON.parse(again.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: { action: "read" } } }))!).result.content[0].text);
      equal(read2.relationship.new_achievements, undefined, "told is on flash");
      ok(typeof read2.relationship.affection === "number" && typeof read2.relationship.mood === "number" && typeof read2.relationship.streak === "number");
      void talk;
    },
  },
  {
    name: "evolver: know_family, know_hobby, 100_chats, max_affection, anniversary_1 unlock at a conversation's end, each once",
    run() {
      const { dev, talk, aff, call } = boot();
      const told: string[] = [];
      const read = () => {
        const n = call({ action: "read" }).json.relationship.new_achievements as string[] | undefined;
        if (n) told.push(...n);
        return n;
      };
      talk(1);
      deepEqual(read(), ["first_chat"]);
      for (const [rel, name] of [["妈妈", "李娟"], ["爸爸", "王强"], ["姐姐", "王芳"]]) call({ action: "write", type: "family", relation: rel, name });
      for (const like of ["恐龙", "画画", "唱歌"]) call({ action: "write", type: "like", content: like });
      equal(read(), undefined, "unlocked at a conversation's end, not at the write");
      talk(1);
      deepEqual(read(), ["know_family", "know_hobby"]);
      for (let i = 0; i < 97; i++) talk(1);
      equal(aff().totalConversations, 99);
      equal(read(), undefined);
      talk(1);
      deepEqual(read(), ["100_chats"]);
      let day = 1;
      while (aff().maxAffection < 100 && day < 200) {
        dev.clock.advanceTo(T0 + day++ * DAY);
        talk(COINS.minRounds, "哈哈", "嘻嘻");
        read();
      }
      equal(aff().affection, 100);
      ok(told.indexOf("max_affection") >= 0 && told.indexOf("week_streak") >= 0, told.join(","));
      dev.clock.advanceTo(T0 + 364 * DAY);
      talk(1);
      equal(read(), undefined, "364 days: not yet a year");
      dev.clock.advanceTo(T0 + 365 * DAY);
      talk(1);
      deepEqual(read(), ["anniversary_1"]);
      // each achievement reported exactly once, and every unlocked one reported
      const unlocked = ACHIEVEMENTS.filter((_, i) => aff().achievements & (1 << i));
      deepEqual(told.slice().sort(), unlocked.slice().sort());
      equal(new Set(told).size, told.length, "none twice");
    },
  },
  {
    name: "evolver: without a valid clock conversations are counted and move affection, but earn no coins, days or streaks; a failing evolver never costs the batch",
    run() {
      const { talk, aff, svc } = boot(Date.UTC(1970, 0, 2)); // the RTC before the network set it
      const r = talk(COINS.longRounds, "哈哈", "嘻嘻");
      equal(r!.coins, 0);
      equal(aff().totalCoinsSpent, 0);
      equal(aff().totalConversations, 1);
      equal(aff().totalDays, 0);
      equal(aff().streakDays, 0);
      ok(aff().affection > AFFECTION.start, "affection still moves");
      // the relationship's failure is traced; the conversation's items are written all the same
      svc.listener.evolver.end = () => {
        throw new RangeError("boom");
      };
      svc.hear("user", "记住，我喜欢画画");
      svc.hear("assistant", "好的");
      svc.endConversation();
      deepEqual(svc.memory.preferences().likes, ["画画"]);
      equal(svc.memory.dirty, false);
      equal(aff().totalConversations, 1, "nothing recorded for it");
    },
  },
  {
    name: "evolver: a version-1 affection record (38 bytes) is migrated at boot with its counts and coins, and written as version 2",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const v1 = new Store<Affection>({ ...SPECS.affection, version: 1, layout: affectionLayoutV1, migrations: undefined }, new Health(), (ns) => Preference.keys(ns));
      const old = { totalCoinsSpent: 60, affection: 40, maxAffection: 55, mood: 3, stage: 2, firstMeet: Math.floor((T0 - 100 * DAY) / 1000), lastChat: Math.floor((T0 - DAY) / 1000), streakDays: 0, totalDays: 0, totalConversations: 42, totalMessages: 300, totalChatSeconds: 5000, happyMoments: 0, sadMoments: 0, comfortedTimes: 0, sharedSecrets: 0, achievements: 0 } as Affection;
      v1.set([old]);
      v1.flush();
      equal((Preference.get(DOMAIN, "aff.a0") as ArrayBuffer).byteLength, HEADER_BYTES + 38);
      const svc = new Service({ sink: { remind() {} } });
      ok(svc.memory.health.events.some((e) => e.problem === "migrated"), "reported as migrated");
      const a = svc.memory.affection();
      equal(a.totalCoinsSpent, 60);
      equal(a.totalConversations, 42);
      equal(a.affection, 40);
      equal(a.coinDay, 0);
      equal(a.told, 0);
      const b = new Uint8Array(Preference.get(DOMAIN, "aff.a0") as ArrayBuffer);
      equal(b[2], 2, "version 2 on flash after boot");
      equal(b.length, HEADER_BYTES + SPECS.affection.layout.size);
      ok(SPECS.affection.layout.size <= 48, "within the seed's 48 bytes");
      // the next conversation continues the record: yesterday's chat makes a streak of 1 → the day counts
      svc.hear("user", "我回来啦");
      svc.hear("assistant", "欢迎回来");
      svc.endConversation();
      const c = svc.memory.affection();
      equal(c.totalConversations, 43);
      equal(c.totalDays, 1);
      equal(c.firstMeet, old.firstMeet, "the day they met is kept");
      equal(c.totalCoinsSpent, 61);
      dev.reboot();
      deepEqual(new Memory().affection(), c, "and it reads back the same");
    },
  },
  {
    name: "summary: the owner, the relationship and what memory holds in at most 1 KB, with a sentence to say; nothing written",
    run() {
      const { dev, svc, call, talk } = boot();
      let s = call({ action: "summary" }).json;
      ok(s.text.indexOf("还没聊过天") >= 0, s.text);
      call({ action: "write", type: "name", content: "王小明" });
      call({ action: "write", type: "age", content: "8" });
      for (const like of ["恐龙", "画画", "唱歌", "跳舞"]) call({ action: "write", type: "like", content: like });
      call({ action: "write", type: "dislike", content: "青椒" });
      call({ action: "write", type: "family", relation: "妈妈", name: "李娟" });
      call({ action: "write", type: "fact", content: "小明在二年级" });
      call({ action: "write", type: "schedule", content: "练琴", datetime: "2026-02-06 10:00" });
      for (let d = 0; d < 3; d++) {
        dev.clock.advanceTo(T0 + d * DAY);
        talk(COINS.longRounds);
      }
      const writes = dev.flash.writes;
      const r = call({ action: "summary" });
      equal(dev.flash.writes, writes, "a summary writes nothing");
      s = r.json;
      deepEqual(s.owner, { name: "王小明", age: 8, family: 1, likes: ["跳舞", "唱歌", "画画"], dislikes: ["青椒"] });
      equal(s.relationship.days_together, 2);
      equal(s.relationship.streak, 3);
      equal(s.relationship.stage, "stranger");
      equal(s.relationship.coins, svc.memory.affection().totalCoinsSpent);
      deepEqual(s.relationship.achievements, ["first_chat", "know_hobby"]);
      equal(s.memory.facts, 1);
      equal(s.memory.schedules, 1);
      ok(s.memory.archived === undefined, "no archive on this service");
      ok(s.text.indexOf("王小明和我认识2天了") === 0 && s.text.indexOf("连续聊了3天") > 0 && s.text.indexOf("陌生期") > 0, s.text);
      ok(byteLength(r.text) <= SUMMARY_BYTES);
      // every store full, every achievement: still within 1 KB
      fillEveryStore(svc.memory);
      svc.memory.updateAffection((a) => (a.achievements = (1 << ACHIEVEMENTS.length) - 1));
      svc.memory.flush();
      const full = call({ action: "summary" });
      ok(byteLength(full.text) <= SUMMARY_BYTES, `${byteLength(full.text)} bytes`);
      ok(full.json.owner.likes.length >= 1 && typeof full.json.text === "string");
    },
  },
];

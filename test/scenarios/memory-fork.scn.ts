// Fork parity (issue 13): what the memory fork's tool does, through the tool on
// the xiaozhi link: read by type, dated events, goals with progress, the
// compact forms, search with content, delete type all (with force), schedules
// by priority in the overview, numbers as strings; and a schema an AI follows.
import { bootDevice } from "../../src/app/boot";
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { XiaozhiLink } from "../../src/link/xiaozhi";
import { TYPES } from "../../src/mcp/memory-tool";
import { nextDay, eventDate } from "../../src/mcp/fork";
import { fromLocal } from "../../src/time/local";
import { newEvent } from "../../src/memory/types";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = fromLocal(2026, 2, 5, 13, 0); // Thursday 2026-02-05 13:00 +08:00

function boot(dev = new SimDevice({ now: T0 }).install()) {
  // the device as it boots: NVS, the archive and the episodes (src/app/boot.ts)
  const svc = bootDevice(undefined, { sink: { remind() {} } }).service;
  const link = new XiaozhiLink(svc);
  let id = 0;
  const texts: string[] = [];
  const call = (args: Record<string, unknown>) => {
    const r = JSON.parse(link.receive(JSON.stringify({ type: "mcp", payload: { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } } }))[0]).payload;
    equal(r.result.isError, false, "the xiaozhi link never answers isError true");
    const text: string = r.result.content[0].text;
    texts.push(text);
    const error = text.startsWith("error: ") ? text : undefined;
    return { text, error, json: error ? undefined : JSON.parse(text) };
  };
  return { dev, svc, link, call, texts };
}

function bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
  }
  return n;
}

export const scenarios: Scenario[] = [
  {
    name: "fork: read with a type gives everything of that type in detail",
    run() {
      const { call } = boot();
      call({ action: "write", type: "name", content: "小明" });
      call({ action: "write", type: "like", content: "恐龙" });
      call({ action: "write", type: "family", content: "妈妈:李娟:一起去过北京", closeness: 5 });
      call({ action: "write", type: "fact", content: "主人上三年级" });
      call({ action: "write", type: "trait", content: "personality:好奇心强" });
      call({ action: "write", type: "habit", content: "睡前读书:daily" });
      call({ action: "write", type: "moment", content: "海边:第一次看海:5", emotion: "happy" });
      call({ action: "write", type: "goal", content: "学会游泳:4" });
      call({ action: "write", type: "schedule", content: "钢琴课", datetime: "2026-02-06 16:00", repeat: "weekly" });
      call({ action: "write", type: "event", content: "02-20:birthday:妈妈生日" });
      deepEqual(call({ action: "read", type: "profile" }).json.profile, { name: "小明", age: null, gender: "", location: "", birthday: "" });
      deepEqual(call({ action: "read", type: "like" }).json.preferences, { likes: ["恐龙"], dislikes: [] });
      deepEqual(call({ action: "read", type: "family" }).json.family, [{ relation: "妈妈", name: "李娟", member_type: "family", closeness: 5, memory: "一起去过北京" }]);
      deepEqual(call({ action: "read", type: "fact" }).json.facts, [{ content: "主人上三年级", date: "2026-02-05" }]);
      deepEqual(call({ action: "read", type: "trait" }).json.traits, [{ category: "personality", content: "好奇心强" }]);
      deepEqual(call({ action: "read", type: "habit" }).json.habits, [{ content: "睡前读书", frequency: "daily" }]);
      deepEqual(call({ action: "read", type: "moment" }).json.moments, [{ topic: "海边", content: "第一次看海", emotion: "happy", importance: 5, date: "2026-02-05" }]);
      deepEqual(call({ action: "read", type: "goal" }).json.goals, [{ content: "学会游泳", progress: 0, priority: 4, category: "other", status: "active" }]);
      deepEqual(call({ action: "read", type: "schedule" }).json.schedules, [{ content: "钢琴课", datetime: "2026-02-06 16:00", priority: 3, repeat: "weekly", duration: 60, reminded: 0 }]);
      deepEqual(call({ action: "read", type: "event" }).json.events, [{ date: "2026-02-20", type: "birthday", content: "妈妈生日", days_until: 15, every_year: true }]);
      const bad = call({ action: "read", type: "things" });
      ok(bad.error && /type must be one of/.test(bad.error), bad.text);
    },
  },
  {
    name: "fork: dated events, every year (MM-DD) or once, in read, completed, deleted",
    run() {
      const { call, dev, svc } = boot();
      equal(call({ action: "write", type: "event", datetime: "03-15", category: "birthday", content: "妈妈生日" }).json.event.next, "2026-03-15");
      equal(call({ action: "write", type: "event", content: "01-10:birthday:爸爸生日" }).json.event.next, "2027-01-10", "passed this year: next year's");
      const once = call({ action: "write", type: "event", content: "2026-02-14:date:情人节约会" }).json;
      deepEqual(once.event, { date: "2026-02-14", type: "date", content: "情人节约会", every_year: false, next: "2026-02-14" });
      equal(call({ action: "write", type: "event", content: "02-08:去动物园" }).json.event.type, "event");
      equal(call({ action: "write", type: "event", content: "03-15:birthday:妈妈生日" }).json.result, "no_change");
      ok(call({ action: "write", type: "event", datetime: "13-40", content: "x" }).error, "not a date");
      ok(/every year/.test(call({ action: "write", type: "event", content: "没有日期" }).error ?? ""));
      ok(call({ action: "write", type: "event", datetime: "2026-02-06 10:00", content: "x" }).error, "a time of day is a schedule");
      deepEqual(call({ action: "read", type: "event" }).json.events.map((e: { content: string; days_until: number }) => `${e.content}:${e.days_until}`), ["去动物园:3", "情人节约会:9"], "the next 30 days: 妈妈生日 is 38 days away");
      deepEqual(call({ action: "read" }).json.events.map((e: { date: string; content: string }) => `${e.date} ${e.content}`), ["02-08 去动物园", "2026-02-14 情人节约会", "03-15 妈妈生日", "01-10 爸爸生日"], "the overview: every coming event, soonest first");
      const done = call({ action: "complete_schedule", content: "情人节约会" }).json;
      deepEqual(done, { result: "completed", event: { content: "情人节约会", date: "2026-02-14" } });
      deepEqual(call({ action: "read", type: "event" }).json.events.map((e: { content: string }) => e.content), ["去动物园"]);
      ok(/every year/.test(call({ action: "complete_schedule", content: "妈妈生日" }).error ?? ""), "a yearly event cannot be completed");
      // a todo (the listener's reminder without a day) is always shown, and can be done
      svc.memory.addEvent(newEvent({ date: "2026-02-01", content: "买牛奶", eventType: "todo" }));
      deepEqual(call({ action: "read", type: "event" }).json.events.slice(-1), [{ date: "2026-02-01", type: "todo", content: "买牛奶" }]);
      ok(call({ action: "read" }).json.events.some((e: { content: string }) => e.content === "买牛奶"));
      equal(call({ action: "complete_schedule", content: "买牛奶" }).json.result, "completed");
      deepEqual(call({ action: "search", content: "生日" }).json.items.map((i: { where: string; text: string }) => `${i.where}:${i.text}`), ["event:妈妈生日 on 03-15", "event:爸爸生日 on 01-10"]);
      equal(call({ action: "delete", type: "event", content: "爸爸生日" }).json.result, "deleted");
      equal(call({ action: "delete", type: "event", content: "爸爸生日" }).json.result, "not_found");
      dev.clock.advance(30 * 86400000);
      deepEqual(call({ action: "read", type: "event" }).json.events.map((e: { date: string }) => e.date), ["2026-03-15"], "thirty days on: the birthday is near");
      // pure date rules
      equal(eventDate("2-29"), "02-29");
      equal(nextDay("02-29", fromLocal(2027, 2, 1))!.date, "2027-02-28", "a leap day falls on the 28th in other years");
      equal(nextDay("2026-01-01", T0), undefined, "past");
    },
  },
  {
    name: "fork: goals with progress and completion; compact forms of trait, habit, goal, moment",
    run() {
      const { call, svc } = boot();
      deepEqual(call({ action: "write", type: "goal", content: "学会游泳:4" }).json.goal, { content: "学会游泳", progress: 0, priority: 4, category: "other", status: "active" });
      const p = call({ action: "write", type: "goal", content: "学会游泳", progress: 40 }).json;
      equal(p.result, "updated");
      equal(p.goal.progress, 40);
      const c = call({ action: "write", type: "goal", content: "学会游泳", progress: 100 }).json;
      equal(c.result, "completed");
      equal(c.goal.status, "completed");
      deepEqual(call({ action: "read" }).json.goals, [], "the overview shows active goals");
      equal(call({ action: "read", type: "goal" }).json.goals[0].status, "completed");
      equal(call({ action: "write", type: "goal", content: "读完哈利波特", progress: 10, category: "learning" }).json.goal.progress, 10, "a new goal with progress");
      ok(call({ action: "write", type: "goal", content: "x", progress: 120 }).error);
      call({ action: "write", type: "trait", content: "ability:会画画" });
      call({ action: "write", type: "habit", content: "周末踢球:weekly" });
      call({ action: "write", type: "moment", content: "生日派对:大家一起唱歌" });
      call({ action: "write", type: "trait", content: "乐观", category: "personality" });
      deepEqual(svc.memory.traits(), [{ category: "ability", content: "会画画" }, { category: "personality", content: "乐观" }]);
      deepEqual(svc.memory.habits(), [{ content: "周末踢球", frequency: "weekly" }]);
      const m = svc.memory.moments()[0];
      deepEqual([m.topic, m.content, m.importance], ["生日派对", "大家一起唱歌", 3]);
    },
  },
  {
    name: "fork: delete type all asks for force and says what goes; with force erases memory, keeps the relationship",
    run() {
      const { call, svc, dev } = boot();
      call({ action: "write", type: "name", content: "小明" });
      call({ action: "write", type: "like", content: "恐龙" });
      call({ action: "write", type: "fact", content: "主人上三年级" });
      call({ action: "write", type: "schedule", content: "钢琴课", datetime: "2026-02-06 16:00" });
      svc.memory.addCoinsSpent(30);
      svc.flush();
      const writes = dev.flash.writes;
      const ask = call({ action: "delete", type: "all" }).json;
      equal(ask.result, "needs_force");
      equal(ask.would_delete.profile_fields, 1);
      equal(ask.would_delete.likes, 1);
      equal(ask.would_delete.facts, 1);
      equal(ask.would_delete.events, 1);
      equal(dev.flash.writes, writes, "asking changes nothing");
      equal(svc.memory.profile().name, "小明");
      ok(call({ action: "delete", type: "all", force: "yes" }).error);
      const done = call({ action: "delete", type: "all", force: true }).json;
      equal(done.result, "deleted");
      equal(svc.memory.dirty, false, "on flash before the reply");
      dev.reboot();
      const again = boot(dev);
      const r = again.call({ action: "read" }).json;
      deepEqual(r.profile, {});
      deepEqual(r.preferences, { likes: [], dislikes: [] });
      deepEqual(r.facts, []);
      deepEqual(r.schedules, []);
      equal(r.total_coins_spent, 30, "the relationship stays");
    },
  },
  {
    name: "fork: the overview orders schedules by priority then time, at most 8; numbers may come as strings",
    run() {
      const { call } = boot();
      for (let i = 0; i < 10; i++) {
        const r = call({ action: "write", type: "schedule", content: `事${i}`, datetime: `2026-02-${10 + i} 09:00`, priority: String(1 + (i % 5)), duration: "30" });
        ok(r.json, r.text);
      }
      const s = call({ action: "read" }).json.schedules.map((x: { content: string; priority: number }) => `${x.content}/${x.priority}`);
      deepEqual(s, ["事4/5", "事9/5", "事3/4", "事8/4", "事2/3", "事7/3", "事1/2", "事6/2"]);
      equal(call({ action: "write", type: "family", relation: "爸爸", name: "王强", closeness: "4" }).json.result, "added");
      equal(call({ action: "search", keyword: "事", limit: "2" }).json.items.length, 2);
      equal(call({ action: "write", type: "schedule", content: "冲突", datetime: "2026-02-10 09:00", force: "true" }).json.result, "added");
      ok(/closeness/.test(call({ action: "write", type: "family", relation: "哥哥", closeness: "4.5" }).error ?? ""), "not an integer: refused");
      ok(call({ action: "write", type: "family", relation: "哥哥", closeness: "four" }).error);
      ok(/priority/.test(call({ action: "write", type: "goal", content: "g", priority: "9" }).error ?? ""));
    },
  },
  {
    name: "fork: errors say what to call instead; no reply is JSON with a top-level action key",
    run() {
      const { call, texts } = boot();
      const e = call({ action: "complete_schedule", content: "不存在的事" }).error ?? "";
      ok(/action=read with type=/.test(e), e);
      ok(/accepted/.test(call({ action: "write", type: "like", content: "x", colour: "red" }).error ?? ""));
      for (const a of ["read", "pending", "search"]) call({ action: a, keyword: "x" });
      call({ action: "write", type: "name", content: "action" });
      call({ action: "delete", type: "all" });
      for (const t of texts) {
        if (t.startsWith("error: ")) continue;
        const v = JSON.parse(t);
        equal(typeof v === "object" && v !== null && !Array.isArray(v) && "action" in v, false, t);
      }
    },
  },
  {
    // xiaozhi pages tools/list at 8,000 bytes (PLATFORM.md §4), and the model
    // reads the whole of it on every turn: a budget under the page, with room
    name: "schema: every property described, the type enum is what write accepts (and snapshot, which only recall takes), the whole tools/list reply ≤ 7,500 bytes",
    run() {
      const { link, call } = boot();
      const reply = link.receive(JSON.stringify({ type: "mcp", payload: { jsonrpc: "2.0", id: 2, method: "tools/list" } }))[0];
      const list = JSON.parse(reply).payload.result;
      ok(bytes(JSON.stringify(list)) <= 7500, `tools/list result is ${bytes(JSON.stringify(list))} bytes`);
      ok(bytes(reply) <= 7500, `the whole reply is ${bytes(reply)} bytes`);
      const props = list.tools[0].inputSchema.properties as Record<string, { description?: string; enum?: string[] }>;
      for (const k of Object.keys(props)) ok(props[k].description && props[k].description!.length > 5, `${k} has a description`);
      deepEqual(props.type.enum, [...TYPES, "snapshot"]);
      const args: Record<string, Record<string, unknown>> = {
        family: { relation: "妈妈" },
        moment: { topic: "t" },
        schedule: { datetime: "2026-03-01 10:00" },
        event: { datetime: "05-01" },
        age: { content: "9" },
        birthday: { content: "05-01" },
        gender: { content: "男" },
      };
      for (const t of props.type.enum!) {
        if (t === "snapshot") {
          const r = call({ action: "recall", type: t, keyword: "一样东西" });
          ok(r.json, `recall type=${t}: ${r.text}`);
          continue;
        }
        const r = call({ action: "write", type: t, content: "一样东西", ...args[t] });
        ok(r.json, `write type=${t}: ${r.text}`);
        const rd = call({ action: "read", type: t });
        ok(rd.json, `read type=${t}: ${rd.text}`);
      }
      const d = list.tools[0].description as string;
      ok(d.indexOf("你还记得") >= 0 && /action=search/.test(d) && /action=recall/.test(d), "do-you-remember questions go to search and recall");
    },
  },
];

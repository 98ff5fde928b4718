// The `memory` tool through the service: every action, validation, read shape
// and budget, and rejected calls leaving flash and RAM untouched.
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { READ_BUDGET_BYTES } from "../../src/mcp/memory-tool";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 +08:00
function boot() {
  const dev = new SimDevice({ now: T0 }).install();
  const svc = new Service({ sink: { remind() {} } });
  const call = toolCaller(svc);
  return { dev, svc, call };
}

export const scenarios: Scenario[] = [
  {
    name: "a not-found hint names a type read accepts, never the caller's text (fuzz seed 29130: a lone surrogate echoed)",
    run() {
      const { call } = boot();
      const r = call({ action: "complete_schedule", content: "dentist", type: "\udc00吃冰淇淋" });
      ok(r.isError);
      equal(r.text, "error: schedule not found or already completed; action=read with type=schedule lists what is stored");
      for (let i = 0; i < r.text.length; i++) {
        const c = r.text.charCodeAt(i);
        ok(c < 0xd800 || c > 0xdfff, `no surrogate at ${i}`);
      }
      const f = call({ action: "complete_schedule", content: "dentist", type: "event" });
      equal(f.text, "error: schedule not found or already completed; action=read with type=event lists what is stored");
    },
  },
  {
    name: "write every type, then read returns the seed's overview",
    run() {
      const { call } = boot();
      equal(call({ action: "write", type: "name", content: "王浩宇" }).json.result, "added");
      equal(call({ action: "write", type: "age", content: "25" }).json.result, "added");
      call({ action: "write", type: "gender", content: "男" });
      call({ action: "write", type: "location", content: "北京" });
      call({ action: "write", type: "birthday", content: "03-15" });
      call({ action: "write", type: "like", content: "打篮球" });
      call({ action: "write", type: "dislike", content: "香菜" });
      equal(call({ action: "write", type: "family", relation: "妈妈", name: "李娟", closeness: 5 }).json.result, "added");
      equal(call({ action: "write", type: "family", content: "弟弟:小明:一起踢球" }).json.result, "added");
      call({ action: "write", type: "fact", content: "主人在北京工作" });
      call({ action: "write", type: "trait", content: "乐观", category: "personality" });
      call({ action: "write", type: "habit", content: "早上跑步", frequency: "daily" });
      call({ action: "write", type: "moment", content: "一起看了日出", topic: "日出", emotion: "touched", importance: 5 });
      call({ action: "write", type: "goal", content: "学会游泳", category: "health", priority: 4 });
      const s = call({ action: "write", type: "schedule", content: "团队会议", datetime: "2026-02-05 14:00", priority: 4 });
      equal(s.json.result, "added");
      equal(s.json.schedule.datetime, "2026-02-05 14:00");
      const r = call({ action: "read" }).json;
      deepEqual(r.profile, { name: "王浩宇", age: 25, gender: "男", location: "北京", birthday: "03-15" });
      deepEqual(r.preferences, { likes: ["打篮球"], dislikes: ["香菜"] });
      deepEqual(r.family, [{ relation: "妈妈", name: "李娟", closeness: 5 }, { relation: "弟弟", name: "小明", closeness: 3, memory: "一起踢球" }]);
      deepEqual(r.facts, ["主人在北京工作"]);
      deepEqual(r.schedules, [{ content: "团队会议", datetime: "2026-02-05 14:00", reminded: 0, priority: 4, repeat: "none" }]);
      equal(r.total_coins_spent, 0);
      equal(r.relationship.stage, "stranger");
      ok(typeof r.relationship.style === "string" && r.relationship.style.length > 0);
      deepEqual(r.goals, [{ content: "学会游泳", progress: 0, priority: 4 }]);
    },
  },
  {
    name: "a write is on flash before its reply: a reboot right after keeps it",
    run() {
      const { dev, call } = boot();
      call({ action: "write", type: "like", content: "画画" });
      dev.reboot();
      const again = new Service({ sink: { remind() {} } });
      equal(JSON.parse(again.tool.call({ action: "read" })).preferences.likes[0], "画画");
    },
  },
  {
    name: "rejected calls say what was wrong and change neither flash nor RAM",
    run() {
      const { dev, svc, call } = boot();
      call({ action: "write", type: "name", content: "小王" });
      const before = dev.flash.writes;
      const ram = JSON.stringify(svc.tool.call({ action: "read" }));
      const bad: [Record<string, unknown>, string][] = [
        [{}, "action is required"],
        [{ action: "fly" }, "action must be one of"],
        [{ action: "write" }, "type is required"],
        [{ action: "write", type: "pet", content: "x" }, "type must be one of"],
        [{ action: "write", type: "name" }, "name is required"],
        [{ action: "write", type: "name", content: 42 }, "must be a string"],
        [{ action: "write", type: "age", content: "old" }, "age must be an integer"],
        [{ action: "write", type: "birthday", content: "13-01" }, "birthday"],
        [{ action: "write", type: "family", closeness: 3 }, "relation or a name"],
        [{ action: "write", type: "family", name: "李娟", closeness: 7 }, "closeness must be an integer from 1 to 5"],
        [{ action: "write", type: "moment", content: "x", emotion: "angry" }, "emotion must be one of"],
        [{ action: "write", type: "schedule", content: "会" }, "datetime is required"],
        [{ action: "write", type: "schedule", content: "会", datetime: "明天下午" }, "YYYY-MM-DD HH:MM"],
        [{ action: "write", type: "schedule", content: "会", datetime: "2026-02-30 10:00" }, "not a real date"],
        [{ action: "write", type: "schedule", content: "会", datetime: "2026-02-06 10:00", repeat: "yearly" }, "repeat"],
        [{ action: "write", type: "schedule", content: "会", datetime: "2026-02-06 10:00", priority: 9 }, "priority"],
        [{ action: "write", type: "schedule", content: "会", datetime: "2026-02-06 10:00", force: "yes" }, "force"],
        [{ action: "write", type: "fact", content: "a\u0001b" }, "control character"],
        [{ action: "recall", type: "habit" }, "type must be one of fact, moment, event"],
        [{ action: "recall", type: "fact", start_date: "2026-13-01" }, "start_date must be a date"],
        [{ action: "recall", type: "fact", limit: 0 }, "limit must be an integer from 1 to 50"],
        [{ action: "recall", type: "fact", start_date: "2026-02-05", end_date: "2026-01-01" }, "after end_date"],
        [{ action: "complete_schedule", content: "不存在" }, "not found"],
        [{ action: "search" }, "keyword is required"],
        [{ action: "read", colour: "red" }, "unknown argument 'colour'"],
      ];
      for (const [args, msg] of bad) {
        const r = call(args);
        ok(r.isError, `${JSON.stringify(args)} should fail`);
        ok(r.text.startsWith("error: ") && r.text.includes(msg), `${JSON.stringify(args)}: ${r.text}`);
      }
      equal(dev.flash.writes, before, "no flash write");
      equal(JSON.stringify(svc.tool.call({ action: "read" })), ram, "RAM unchanged");
      equal(svc.memory.dirty, false);
    },
  },
  {
    name: "schedule conflict: which one and when, two free suggestions; force adds anyway",
    run() {
      const { call } = boot();
      call({ action: "write", type: "schedule", content: "团队会议", datetime: "2026-02-05 14:00" });
      const c = call({ action: "write", type: "schedule", content: "看牙医", datetime: "2026-02-05 14:30" }).json;
      equal(c.result, "conflict");
      equal(c.conflicts_with.content, "团队会议");
      equal(c.conflicts_with.datetime, "2026-02-05 14:00");
      equal(c.suggested_times.length, 2);
      const f = call({ action: "write", type: "schedule", content: "看牙医", datetime: "2026-02-05 14:30", force: true }).json;
      equal(f.result, "added");
      equal(call({ action: "read" }).json.schedules.length, 2);
    },
  },
  {
    name: "complete_schedule on a repeating schedule creates the next occurrence; delete removes",
    run() {
      const { call } = boot();
      call({ action: "write", type: "schedule", content: "每天早餐提醒", datetime: "2026-02-05 08:00", repeat: "daily" });
      const r = call({ action: "complete_schedule", content: "早餐" }).json;
      equal(r.result, "completed");
      equal(r.next.datetime, "2026-02-06 08:00");
      equal(call({ action: "delete", type: "schedule", content: "每天早餐提醒" }).json.result, "deleted");
      equal(call({ action: "delete", type: "like", content: "从没喜欢过" }).json.result, "not_found");
      call({ action: "write", type: "name", content: "小王" });
      equal(call({ action: "delete", type: "name" }).json.result, "deleted");
    },
  },
  {
    name: "search finds across types; read stays within its byte budget",
    run() {
      const { call } = boot();
      call({ action: "write", type: "like", content: "篮球" });
      call({ action: "write", type: "fact", content: "周末打篮球" });
      const s = call({ action: "search", keyword: "篮球" }).json;
      equal(s.count, 2);
      deepEqual(s.items.map((i: { where: string }) => i.where), ["like", "fact"]);
      for (let i = 0; i < 20; i++) call({ action: "write", type: "fact", content: "一个很长很长的事实".repeat(5) + i });
      const text = call({ action: "read" }).text;
      ok(text.length * 3 >= 0 && new TextEncoder().encode(text).length <= READ_BUDGET_BYTES);
    },
  },
  {
    name: "tools/list shows the memory tool with its schema and description",
    run() {
      const { svc } = boot();
      const r = JSON.parse(svc.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')!);
      equal(r.result.tools.length, 1);
      const t = r.result.tools[0];
      equal(t.name, "memory");
      deepEqual(t.inputSchema.required, ["action"]);
      deepEqual(t.inputSchema.properties.action.enum, ["read", "write", "delete", "complete_schedule", "recall", "search", "pending", "confirm", "drop", "status", "context", "query", "summary", "config"]);
      ok(t.description.includes("action=read at the start of every conversation"));
      ok(t.description.includes("你还记得"));
    },
  },
];

// Schedules (issue 5): repeat rules across month, year and leap-year ends,
// conflicts with suggestions, completion matching, upcoming, cleanup.
import { SimDevice } from "../../host-sim/device";
import { Memory, MemoryError } from "../../src/memory/memory";
import { Schedules } from "../../src/schedule/schedules";
import { nextDate, anchorDay } from "../../src/schedule/recurrence";
import { setUtcOffset } from "../../src/time/local";
import type { Event } from "../../src/memory/types";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 local (+08:00)
const MIN = 60000;

function fresh(now = T0) {
  const dev = new SimDevice({ now }).install();
  const mem = new Memory();
  return { dev, mem, s: new Schedules(mem) };
}

function caught(fn: () => unknown): MemoryError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MemoryError) return e;
    throw e;
  }
  throw new Error("expected a MemoryError");
}

// completes the open occurrence of `content` n times; returns the dates of the open occurrences after each
function chain(s: Schedules, content: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(s.complete(content).next!.datetime);
  return out;
}

export const scenarios: Scenario[] = [
  {
    name: "daily and weekly cross month, year and leap-year ends",
    run() {
      const cases: [string, "daily" | "weekly", string][] = [
        ["2026-01-31", "daily", "2026-02-01"],
        ["2026-02-28", "daily", "2026-03-01"],
        ["2028-02-28", "daily", "2028-02-29"],
        ["2028-02-29", "daily", "2028-03-01"],
        ["2100-02-28", "daily", "2100-03-01"],
        ["2000-02-28", "daily", "2000-02-29"],
        ["2026-12-31", "daily", "2027-01-01"],
        ["2026-12-28", "weekly", "2027-01-04"],
        ["2028-02-25", "weekly", "2028-03-03"],
        ["2026-02-25", "weekly", "2026-03-04"],
      ];
      for (const [from, rule, to] of cases) equal(nextDate(from, rule), to, `${from} ${rule}`);
      equal(nextDate("2026-02-05", "none"), undefined);
      equal(anchorDay("2026-02-28", 31), 31);
      equal(anchorDay("2026-02-28", 1), 28, "the seed's plain 1 means the date's own day");
      equal(anchorDay("2026-03-15", 12), 15, "an anchor below the day is not an anchor");
    },
  },
  {
    name: "monthly keeps the original day of the month and clamps, across a reboot, year ends and leap years",
    run() {
      const { s, mem } = fresh(Date.UTC(2025, 11, 1));
      equal(s.add({ content: "交房租", datetime: "2026-01-31 09:00", repeat: "monthly" }).action, "ADDED");
      deepEqual(chain(s, "交房租", 3), ["2026-02-28 09:00", "2026-03-31 09:00", "2026-04-30 09:00"]);
      mem.flush();
      // the anchor day is on flash: a rebooted device still goes back to the 31st
      const dev = SimDevice.current;
      dev.reboot();
      const s2 = new Schedules(new Memory());
      deepEqual(chain(s2, "交房租", 9), [
        "2026-05-31 09:00",
        "2026-06-30 09:00",
        "2026-07-31 09:00",
        "2026-08-31 09:00",
        "2026-09-30 09:00",
        "2026-10-31 09:00",
        "2026-11-30 09:00",
        "2026-12-31 09:00",
        "2027-01-31 09:00",
      ]);
      // leap year: Jan 31 2028 → Feb 29 → Mar 31; a 15th stays the 15th across the year end
      const f = fresh(Date.UTC(2025, 11, 1));
      f.s.add({ content: "闰年", datetime: "2028-01-31 10:00", repeat: "monthly" });
      deepEqual(chain(f.s, "闰年", 3), ["2028-02-29 10:00", "2028-03-31 10:00", "2028-04-30 10:00"]);
      f.s.add({ content: "体检", datetime: "2026-11-15 10:00", repeat: "monthly" });
      deepEqual(chain(f.s, "体检", 3), ["2026-12-15 10:00", "2027-01-15 10:00", "2027-02-15 10:00"]);
      // an Event written elsewhere with the seed's repeatInterval 1 anchors at its own day
      const base = f.mem.events().find((e) => e.content === "体检")!;
      f.mem.addEvent({ ...base, content: "旧", date: "2026-01-30", completed: false, repeatInterval: 1 });
      deepEqual(chain(f.s, "旧", 2), ["2026-02-28 10:00", "2026-03-30 10:00"]);
    },
  },
  {
    name: "add validates its input and returns the seed's errors",
    run() {
      const { s, mem } = fresh();
      const bad: [unknown, string][] = [
        [{ content: "a" }, "datetime is required for schedule (format: YYYY-MM-DD HH:MM)"],
        [{ content: "a", datetime: "2026-02-05" }, "datetime format should be YYYY-MM-DD HH:MM"],
        [{ content: "a", datetime: "2026-02-30 10:00" }, "datetime is not a real date and time"],
        [{ content: "a", datetime: "2026-02-05 10:00", repeat: "yearly" }, "invalid repeat type. Use: daily, weekly, or monthly"],
        [{ content: "a", datetime: "2026-02-05 10:00", priority: 6 }, "priority must be an integer from 1 to 5"],
        [{ datetime: "2026-02-05 10:00" }, "content is required"],
      ];
      for (const [input, message] of bad) equal(caught(() => s.add(input as never)).message, message);
      equal(mem.events().length, 0);
      const r = s.add({ content: "团队会议", datetime: "2026-02-05T14:00" });
      deepEqual(r, {
        action: "ADDED",
        schedule: { content: "团队会议", datetime: "2026-02-05 14:00", priority: 3, duration: 60, repeat: "none", reminded: false, completed: false },
        conflicts: [],
        suggestions: [],
      });
      equal(s.add({ content: "团队会议", datetime: "2026-02-05 14:00" }).action, "NOOP", "the same schedule again is no change, not a conflict");
      const e = mem.events()[0];
      equal(e.schedule, true);
      equal(e.eventType, "schedule");
      equal(e.duration, 60);
    },
  },
  {
    name: "a conflict names the schedule and when, suggests 1 h earlier and 2 h later, each free; force adds anyway",
    run() {
      const { s, mem } = fresh(Date.UTC(2026, 1, 5, 0, 0)); // 08:00 local
      s.add({ content: "团队会议", datetime: "2026-02-05 14:00" });
      let r = s.add({ content: "看牙医", datetime: "2026-02-05 14:30" });
      equal(r.action, "CONFLICT");
      deepEqual(r.conflicts, [{ content: "团队会议", datetime: "2026-02-05 14:00", until: "2026-02-05 15:00", repeat: "none" }]);
      deepEqual(r.suggestions, ["2026-02-05 13:00", "2026-02-05 16:00"]);
      equal(mem.events().length, 1, "nothing added");
      // touching ends do not conflict
      equal(s.add({ content: "午饭", datetime: "2026-02-05 13:00" }).action, "ADDED");
      equal(s.add({ content: "健身", datetime: "2026-02-05 16:00", duration: 90 }).action, "ADDED");
      // 13:00 is lunch now, so 12:00; 16:00 and 17:00 overlap the workout (to 17:30), so 18:00
      r = s.add({ content: "看牙医", datetime: "2026-02-05 14:30" });
      deepEqual(r.suggestions, ["2026-02-05 12:00", "2026-02-05 18:00"]);
      for (const t of r.suggestions) equal(s.add({ content: "试", datetime: t, force: false }).action, "ADDED", `${t} is free`);
      s.remove("试");
      s.remove("试");
      // force adds it anyway and still says what it overrode
      r = s.add({ content: "看牙医", datetime: "2026-02-05 14:30", force: true });
      equal(r.action, "ADDED");
      equal(r.conflicts[0].content, "团队会议");
      equal(mem.events().length, 4);
      // a completed schedule is no longer in the way
      s.complete("团队会议");
      equal(s.add({ content: "打电话", datetime: "2026-02-05 14:00", duration: 30 }).action, "ADDED");
    },
  },
  {
    name: "suggestions fit the new schedule's length, are never in the past, carry their date; a daily series conflicts on later days",
    run() {
      const { s } = fresh(); // 13:00 local
      s.add({ content: "团队会议", datetime: "2026-02-05 15:00" });
      s.add({ content: "午饭", datetime: "2026-02-05 13:00" });
      // two hours from 14:00 overlap the meeting; earlier slots are taken or past; 17:00-19:00 is free
      let r = s.add({ content: "长会", datetime: "2026-02-05 14:00", duration: 120 });
      deepEqual(r.conflicts.map((c) => c.content), ["团队会议"]);
      deepEqual(r.suggestions, ["2026-02-05 17:00"]);
      // during lunch: 12:00 is past; 15:00 is the meeting, 16:00 is free
      r = s.add({ content: "散步", datetime: "2026-02-05 13:30" });
      deepEqual(r.suggestions, ["2026-02-05 16:00"]);
      // a daily breakfast from tomorrow conflicts with a one-off weeks later
      s.add({ content: "早餐", datetime: "2026-02-06 08:00", repeat: "daily" });
      r = s.add({ content: "早会", datetime: "2026-03-02 08:30" });
      deepEqual(r.conflicts, [{ content: "早餐", datetime: "2026-03-02 08:00", until: "2026-03-02 09:00", repeat: "daily" }]);
      deepEqual(r.suggestions, ["2026-03-02 07:00", "2026-03-02 10:00"]);
      // across midnight
      s.add({ content: "夜宵", datetime: "2026-02-07 23:30" });
      r = s.add({ content: "看球", datetime: "2026-02-07 23:00" });
      deepEqual(r.suggestions, ["2026-02-07 22:30", "2026-02-08 01:30"]);
    },
  },
  {
    name: "complete: exact content first, then a unique substring; an ambiguous match lists the candidates and changes nothing",
    run() {
      const { s, mem, dev } = fresh();
      s.add({ content: "吃药", datetime: "2026-02-05 20:00" });
      s.add({ content: "吃药后散步", datetime: "2026-02-05 20:30", force: true });
      s.add({ content: "开会", datetime: "2026-02-06 09:00" });
      s.add({ content: "开会准备", datetime: "2026-02-06 08:00" });
      s.add({ content: "吃药", datetime: "2026-02-06 20:00" });
      mem.flush();
      // exact beats substring; of two open "吃药" the earliest goes first
      const r = s.complete("吃药");
      equal(r.completed.datetime, "2026-02-05 20:00");
      equal(r.next, undefined);
      equal(s.complete("吃药").completed.datetime, "2026-02-06 20:00");
      // now "药" names only 吃药后散步 (the 吃药 ones are completed)
      equal(s.complete("药").completed.content, "吃药后散步");
      mem.flush();
      const w = dev.flash.writes;
      const before = JSON.stringify(mem.events());
      const e = caught(() => s.complete("开"));
      equal(e.code, "ambiguous");
      ok(e.message.includes("'开会' at 2026-02-06 09:00") && e.message.includes("'开会准备' at 2026-02-06 08:00"), e.message);
      equal(JSON.stringify(mem.events()), before, "nothing changed");
      equal(mem.flush(), 0);
      equal(dev.flash.writes, w);
      const nf = caught(() => s.complete("游泳"));
      equal(nf.code, "not_found");
      equal(nf.message, "schedule not found or already completed");
      equal(caught(() => s.complete("吃药")).code, "not_found", "all 吃药 done");
      equal(s.complete("开会").completed.content, "开会", "exact wins over the substring 开会准备");
      throws(() => s.complete(""), { message: "content is required" });
    },
  },
  {
    name: "completing a repeating schedule: completed, and the next occurrence with reminded=0 and completed=0, in one store write",
    run() {
      const { s, mem, dev } = fresh(Date.UTC(2026, 1, 5, 1, 0)); // 09:00 local
      s.add({ content: "每天早餐提醒", datetime: "2026-02-05 08:00", repeat: "daily", priority: 2 });
      s.markReminded(s.list());
      mem.flush();
      const r = s.complete("每天早餐提醒");
      deepEqual(r.completed, { content: "每天早餐提醒", datetime: "2026-02-05 08:00", priority: 2, duration: 60, repeat: "daily", reminded: true, completed: true });
      deepEqual(r.next, { content: "每天早餐提醒", datetime: "2026-02-06 08:00", priority: 2, duration: 60, repeat: "daily", reminded: false, completed: false });
      // both changes in one store (events); the affection store takes the completion's coin (src/relation)
      equal(mem.flush(), 2, "events and affection, one flush: both changes of the schedule land together");
      dev.reboot();
      const again = new Schedules(new Memory());
      deepEqual(again.list({ completed: true }).map((v) => `${v.datetime} ${v.completed}`), ["2026-02-05 08:00 true", "2026-02-06 08:00 false"]);
      // completing three days late does not leave past occurrences behind
      dev.clock.advance(3 * 1440 * MIN);
      equal(again.complete("每天早餐").next!.datetime, "2026-02-09 08:00");
      // a weekly one completed early: next week
      again.add({ content: "周会", datetime: "2026-02-13 10:00", repeat: "weekly" });
      equal(again.complete("周会").next!.datetime, "2026-02-20 10:00");
    },
  },
  {
    name: "a full event store refuses a new schedule, but a repeating one can still be completed",
    run() {
      const { s, mem } = fresh();
      for (let i = 0; i < 15; i++) s.add({ content: "事" + i, datetime: `2026-03-${10 + i} 10:00` });
      s.add({ content: "每天跑步", datetime: "2026-02-06 07:00", repeat: "daily" });
      equal(mem.events().length, 16);
      const e = caught(() => s.add({ content: "再一个", datetime: "2026-04-01 10:00" }));
      equal(e.code, "full");
      const r = s.complete("每天跑步");
      equal(r.next!.datetime, "2026-02-07 07:00");
      equal(mem.events().length, 16, "the completed occurrence gave its slot to the next one");
      equal(s.list().filter((v) => v.content === "每天跑步").length, 1);
    },
  },
  {
    name: "getUpcoming(60): due within the window, neither reminded nor completed",
    run() {
      const { s } = fresh();
      const add = (c: string, dt: string) => s.add({ content: c, datetime: dt, force: true });
      add("半小时后", "2026-02-05 13:30");
      add("正好一小时", "2026-02-05 14:00");
      add("一小时一分", "2026-02-05 14:01");
      add("刚过去", "2026-02-05 12:55");
      add("已完成", "2026-02-05 13:20");
      add("已提醒", "2026-02-05 13:40");
      s.complete("已完成");
      s.markReminded(s.list().filter((v) => v.content === "已提醒"));
      deepEqual(s.getUpcoming().map((v) => v.content), ["半小时后", "正好一小时"]);
      deepEqual(s.getUpcoming(120).map((v) => v.content), ["半小时后", "正好一小时", "一小时一分"]);
      deepEqual(s.getUpcoming(10).map((v) => v.content), []);
    },
  },
  {
    name: "local time comes from the configured UTC offset",
    run() {
      const { s } = fresh(); // 05:00 UTC
      s.add({ content: "早餐", datetime: "2026-02-05 06:00" });
      s.add({ content: "下午茶", datetime: "2026-02-05 13:30" });
      try {
        setUtcOffset(0); // now is 05:00 local
        deepEqual(s.getUpcoming().map((v) => v.content), ["早餐"]);
      } finally {
        setUtcOffset(480);
      }
      deepEqual(s.getUpcoming().map((v) => v.content), ["下午茶"]);
    },
  },
  {
    name: "cleanup: old completed one-offs go (configurable age), repeating series keep their open occurrence, plain events stay",
    run() {
      const { s, mem } = fresh(Date.UTC(2026, 0, 1));
      s.add({ content: "旧的完成", datetime: "2026-01-02 10:00" });
      s.add({ content: "新的完成", datetime: "2026-02-01 10:00" });
      s.add({ content: "旧的没完成", datetime: "2026-01-03 10:00" });
      s.add({ content: "每天喝水", datetime: "2026-01-10 09:00", repeat: "daily" });
      s.complete("旧的完成");
      s.complete("新的完成");
      SimDevice.current.clock.advanceTo(Date.UTC(2026, 0, 10, 3, 0)); // 2026-01-10 11:00
      s.complete("每天喝水"); // → 01-11 open, 01-10 completed
      const plain: Event = { ...mem.events()[0], content: "生日", schedule: false, time: "", date: "01-05", completed: false, repeat: "none" };
      mem.addEvent(plain);
      const at = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00
      equal(s.cleanup(30, at), 3);
      deepEqual(mem.events().map((e) => `${e.content} ${e.date}`), ["新的完成 2026-02-01", "每天喝水 2026-01-11", "生日 01-05"]);
      equal(s.cleanup(30, at), 0);
      equal(s.cleanup(3, at), 1, "a shorter age");
      deepEqual(mem.events().map((e) => e.content), ["每天喝水", "生日"]);
    },
  },
  {
    name: "a full event store: the earliest completed schedule goes to the archive hook; without one, a clear refusal",
    run() {
      const { s, mem } = fresh();
      for (let i = 0; i < 16; i++) {
        s.add({ content: "事" + i, datetime: `2026-03-${10 + i} 10:00` });
        s.complete("事" + i);
      }
      equal(mem.events().length, 16);
      const e = caught(() => s.add({ content: "新的", datetime: "2026-04-01 10:00" }));
      equal(e.code, "full");
      const evicted: string[] = [];
      s.onEvict = (ev) => evicted.push(ev.content);
      equal(s.add({ content: "新的", datetime: "2026-04-01 10:00" }).action, "ADDED");
      deepEqual(evicted, ["事0"]);
      equal(mem.events().length, 16);
      ok(!mem.events().some((x) => x.content === "事0"));
      s.onEvict = () => {
        throw new Error("file write failed");
      };
      throws(() => s.add({ content: "再一个", datetime: "2026-04-02 10:00" }), { message: "file write failed" });
      equal(mem.events().length, 16, "an archive failure changes nothing");
      ok(mem.events().some((x) => x.content === "事1"));
    },
  },
];

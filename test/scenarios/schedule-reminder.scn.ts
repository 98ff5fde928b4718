// The 10-minute reminder service (issue 5) on the virtual clock: once per
// occurrence, persisted, missed reminders at boot, clock unset, tiers, and a
// reboot between a reminder and its flush.
import { SimDevice } from "../../host-sim/device";
import { Memory } from "../../src/memory/memory";
import { Schedules } from "../../src/schedule/schedules";
import { ReminderService, tierOf, type Reminder } from "../../src/schedule/reminder";
import { setTimeSource } from "../../src/time/clock";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 local (+08:00)
const MIN = 60000;

function boot(dev: SimDevice) {
  const got: Reminder[] = [];
  const mem = new Memory();
  const svc = new ReminderService(mem, { remind: (r) => got.push(r) });
  return { mem, svc, got, s: svc.schedules, dev };
}

// a device whose flash already holds these schedules, powered off, then on at `at`
function withSchedules(list: { content: string; datetime: string; priority?: number; repeat?: string }[], at = T0, before = Date.UTC(2026, 1, 4, 0, 0)) {
  const dev = new SimDevice({ now: before }).install();
  const mem = new Memory();
  const s = new Schedules(mem);
  for (const x of list) equal(s.add({ ...x, force: true }).action, "ADDED");
  mem.flush();
  dev.reboot();
  dev.clock.advanceTo(at);
  return boot(dev);
}

const names = (rs: Reminder[]) => rs.map((r) => r.content);

export const scenarios: Scenario[] = [
  {
    name: "each schedule is reminded once, as it enters the hour ahead of it (a one-shot timer; the 10-minute check is the safety net), with its tier",
    run() {
      const { svc, got, dev } = withSchedules([
        { content: "喝水", datetime: "2026-02-05 14:00", priority: 1 },
        { content: "紧急会议", datetime: "2026-02-05 14:05", priority: 5 },
        { content: "买菜", datetime: "2026-02-05 14:20", priority: 3 },
        { content: "明天", datetime: "2026-02-06 14:00", priority: 4 },
      ]);
      svc.start();
      equal(dev.clock.pending(), 2, "the 10-minute timer and the one-shot for the next due moment");
      deepEqual(names(got), ["喝水"], "boot check: 14:00 is exactly an hour ahead");
      equal(got[0].tier, "light");
      equal(got[0].missed, false);
      equal(got[0].minutes, 60);
      dev.clock.advance(5 * MIN - 1);
      equal(got.length, 1, "nothing before the next window opens");
      dev.clock.advance(1);
      deepEqual(names(got), ["喝水", "紧急会议"], "13:05: 14:05 enters its hour, not at the 13:10 check");
      equal(got[1].tier, "urgent");
      equal(got[1].minutes, 60);
      equal(got[1].datetime, "2026-02-05 14:05");
      equal(got[1].priority, 5);
      dev.clock.advance(15 * MIN - 1);
      equal(got.length, 2);
      dev.clock.advance(1);
      deepEqual(names(got), ["喝水", "紧急会议", "买菜"], "13:20");
      equal(got[2].tier, "normal");
      dev.clock.advance(5 * 60 * MIN);
      equal(got.length, 3, "never twice");
      dev.clock.advance(20 * 60 * MIN);
      deepEqual(names(got), ["喝水", "紧急会议", "买菜", "明天"]);
      deepEqual([5, 4, 3, 2, 1].map(tierOf), ["urgent", "urgent", "normal", "light", "light"]);
      svc.stop();
      equal(dev.clock.pending(), 0);
    },
  },
  {
    name: "a schedule written inside its hour (rearm after the write) is reminded at its start, within a minute; one written earlier as its hour opens",
    run() {
      const { svc, got, s, dev } = withSchedules([]);
      svc.start();
      dev.clock.advance(3 * MIN); // 13:03
      s.add({ content: "取快递", datetime: "2026-02-05 13:30" });
      svc.rearm(); // the service does this after every call and conversation
      dev.clock.advance(7 * MIN); // 13:10: the safety-net check does not take it early
      equal(got.length, 0, "the person set it moments ago: no heads-up that echoes it");
      dev.clock.advance(20 * MIN - 1);
      equal(got.length, 0);
      dev.clock.advance(1); // 13:30
      deepEqual(names(got), ["取快递"]);
      equal(got[0].minutes, 0);
      equal(got[0].missed, false);
      // written two minutes before: at its time, not at the next 10-minute check
      dev.clock.advance(MIN); // 13:31
      s.add({ content: "关火", datetime: "2026-02-05 13:33", force: true });
      svc.rearm();
      dev.clock.advance(2 * MIN - 1);
      equal(got.length, 1);
      dev.clock.advance(1); // 13:33
      deepEqual(names(got), ["取快递", "关火"]);
      equal(got[1].missed, false);
      // a wake a few ms after the start (a real timer, x-cli-lin) is on time, not missed
      s.add({ content: "关窗", datetime: "2026-02-05 13:34", force: true });
      const late = svc.checkNow(Date.UTC(2026, 1, 5, 5, 34) + 700);
      deepEqual(late.map((r) => `${r.content} ${r.missed} ${r.minutes}`), ["关窗 false 0"]);
      got.splice(2);
      // written a day ahead: reminded as its hour opens
      s.add({ content: "开会", datetime: "2026-02-06 10:00" });
      svc.rearm();
      dev.clock.advanceTo(Date.UTC(2026, 1, 6, 1, 0) - 1); // 2026-02-06 08:59:59.999 local
      equal(got.length, 2);
      dev.clock.advance(1);
      deepEqual(names(got), ["取快递", "关火", "开会"]);
      equal(got[2].minutes, 60);
      svc.stop();
    },
  },
  {
    name: "reminded=1 is on flash before the sink hears it: a reboot does not remind again",
    run() {
      const a = withSchedules([{ content: "开会", datetime: "2026-02-05 13:50" }]);
      a.svc.start();
      deepEqual(names(a.got), ["开会"]);
      equal(a.mem.dirty, false, "flushed");
      a.dev.reboot();
      const b = boot(a.dev);
      b.svc.start();
      a.dev.clock.advance(3 * 60 * MIN);
      equal(b.got.length, 0);
      equal(b.s.list()[0].reminded, true);
    },
  },
  {
    name: "a reboot between a reminder and its flush: reminded at the next boot, never twice",
    run() {
      const list = [
        { content: "吃药", datetime: "2026-02-05 14:05", priority: 5 },
        { content: "散步", datetime: "2026-02-05 14:05", priority: 2 },
      ];
      // how many flash writes the 13:05 wake makes
      const dry = withSchedules(list);
      dry.svc.start();
      dry.dev.clock.advance(4 * MIN);
      const w0 = dry.dev.flash.writes;
      dry.dev.clock.advance(1 * MIN);
      const writes = dry.dev.flash.writes - w0;
      deepEqual(names(dry.got), ["吃药", "散步"]);
      ok(writes >= 2, `writes ${writes}`);
      const outcome: string[] = [];
      for (let n = 1; n <= writes; n++) {
        const a = withSchedules(list);
        a.svc.start();
        a.dev.clock.advance(4 * MIN);
        a.dev.cutAfter(n);
        const cut = SimDevice.survive(() => a.dev.clock.advance(1 * MIN));
        ok(cut, `cut at ${n}`);
        equal(a.got.length, 0, "the sink runs only after the flush");
        a.dev.flash.disarm();
        a.dev.reboot();
        const b = boot(a.dev);
        b.svc.start();
        a.dev.clock.advance(60 * MIN);
        const flags = b.s.list().map((v) => v.reminded);
        deepEqual(flags, [true, true], "reminded by now, on flash");
        if (b.got.length) {
          deepEqual(names(b.got), ["吃药", "散步"], `cut at ${n}: reminded once, after the boot`);
          equal(b.got[0].missed, false);
          outcome.push("boot");
        } else outcome.push("lost");
      }
      // cuts before the new copy is complete remind at the next boot; only cuts
      // during the delete of the old copy (after the commit point) lose it
      const firstLost = outcome.indexOf("lost");
      ok(firstLost !== 0, `a cut while writing reminds at boot: ${outcome.join(",")}`);
      if (firstLost > 0) ok(outcome.slice(firstLost).every((o) => o === "lost"), outcome.join(","));
    },
  },
  {
    name: "missed reminders at boot: the last 3 hours, flagged missed; older ones are not replayed",
    run() {
      const { svc, got, dev, s } = withSchedules([
        { content: "早上", datetime: "2026-02-05 09:00" },
        { content: "十点半", datetime: "2026-02-05 10:30" },
        { content: "刚才", datetime: "2026-02-05 12:50" },
        { content: "等会儿", datetime: "2026-02-05 13:30" },
        { content: "晚上", datetime: "2026-02-05 19:00" },
      ]);
      svc.start();
      deepEqual(names(got), ["十点半", "刚才", "等会儿"]);
      deepEqual(got.map((r) => r.missed), [true, true, false]);
      deepEqual(got.map((r) => r.minutes), [-150, -10, 30]);
      dev.clock.advance(24 * 60 * MIN);
      deepEqual(names(got), ["十点半", "刚才", "等会儿", "晚上"]);
      equal(s.list().find((v) => v.content === "早上")!.reminded, false, "never replayed");
    },
  },
  {
    name: "clock unset at boot: reminders wait until the time is valid",
    run() {
      const dev = new SimDevice({ now: T0 - 2 * 60 * MIN }).install();
      const mem = new Memory();
      new Schedules(mem).add({ content: "接孩子", datetime: "2026-02-05 13:20", priority: 4 });
      mem.flush();
      dev.reboot();
      // the RTC restarts from 1970; the timers run on the device's own ticks
      let wall = 5000 - dev.clock.now;
      setTimeSource(() => dev.clock.now + wall);
      const b = boot(dev);
      b.svc.start();
      dev.clock.advance(40 * MIN);
      equal(b.got.length, 0);
      equal(b.svc.checks, 0, "a check with an unset clock does nothing");
      // SNTP sets the wall clock to 13:00; the next 10-minute check reminds
      wall = T0 - dev.clock.now;
      dev.clock.advance(10 * MIN - 1);
      equal(b.got.length, 0);
      dev.clock.advance(1);
      deepEqual(names(b.got), ["接孩子"]);
      equal(b.got[0].minutes, 10);
      dev.install();
    },
  },
  {
    name: "a repeating schedule nobody completes moves on by itself and is reminded again; completing it then makes the next",
    run() {
      const { svc, got, s, dev } = withSchedules([{ content: "每天吃早餐", datetime: "2026-02-06 08:00", repeat: "daily", priority: 3 }], Date.UTC(2026, 1, 5, 22, 0)); // 06:00 local
      svc.start();
      dev.clock.advance(60 * MIN); // 07:00
      deepEqual(names(got), ["每天吃早餐"]);
      dev.clock.advance(24 * 60 * MIN); // next day 07:00
      deepEqual(got.map((r) => r.datetime), ["2026-02-06 08:00", "2026-02-07 08:00"]);
      deepEqual(s.list({ completed: true }).map((v) => v.datetime), ["2026-02-07 08:00"], "moved, not copied");
      dev.clock.advance(30 * MIN); // 07:30
      equal(s.complete("早餐").next!.datetime, "2026-02-08 08:00");
      dev.clock.advance(24 * 60 * MIN);
      deepEqual(got.map((r) => r.datetime), ["2026-02-06 08:00", "2026-02-07 08:00", "2026-02-08 08:00"]);
      // the device slept three days: the series moves to its current occurrence, missed within 3 h
      dev.reboot();
      dev.clock.advanceTo(Date.UTC(2026, 1, 11, 1, 0)); // 2026-02-11 09:00
      const b = boot(dev);
      b.svc.start();
      deepEqual(b.got.map((r) => `${r.datetime} ${r.missed}`), ["2026-02-11 08:00 true"]);
      equal(b.s.list().length, 1);
    },
  },
  {
    name: "once per local day the service cleans old completed schedules",
    run() {
      const { svc, s, dev, mem } = withSchedules(
        [
          { content: "很久以前", datetime: "2026-01-01 10:00" },
          { content: "上周", datetime: "2026-01-29 10:00" },
        ],
        T0,
        Date.UTC(2025, 11, 30),
      );
      s.complete("很久以前");
      s.complete("上周");
      mem.flush();
      svc.start();
      deepEqual(s.list({ completed: true }).map((v) => v.content), ["上周"]);
      dev.clock.advance(30 * 24 * 60 * MIN);
      equal(s.list({ completed: true }).length, 0);
      equal(mem.dirty, false);
    },
  },
];

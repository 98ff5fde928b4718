// Moving records from NVS into the archive: the seed's triggers, the both-case
// after a power cut, and the maintenance timer.
import { SimDevice, PowerCut } from "../../host-sim/device";
import { tearNone } from "../../host-sim/flash";
import { Memory } from "../../src/memory/memory";
import { newEvent, type Event } from "../../src/memory/types";
import { Archive } from "../../src/archive/archive";
import { recordId } from "../../src/archive/line";
import { Archiver, pastEvent } from "../../src/archive/archiver";
import { startMaintenance, nextRun, STEP_MS, IDLE_MS } from "../../src/archive/maintenance";
import { fromLocal, toLocal } from "../../src/time/local";
import { now } from "../../src/time/clock";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { PAD } from "./archive-segments.scn";

const DAY = 86400000;
// Thursday 2026-02-05, 13:00 local (+08:00)
const T0 = fromLocal(2026, 2, 5, 13, 0);

function boot(dev: SimDevice): { mem: Memory; archive: Archive; archiver: Archiver } {
  const mem = new Memory();
  const archive = new Archive();
  archive.check();
  const archiver = new Archiver(mem, archive);
  archiver.resolveAtBoot();
  archiver.attach();
  void dev;
  return { mem, archive, archiver };
}

const event = (date: string, content: string, more: Partial<Event> = {}): Event => newEvent({ date, content, duration: 60, ...more });

export const scenarios: Scenario[] = [
  {
    name: "at 20 facts the oldest 5 move to the archive, at 10 moments the oldest 3; the flush takes them out of NVS",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      let { mem, archive } = boot(dev);
      const t = Math.floor(T0 / 1000);
      for (let i = 0; i < 20; i++) mem.addFact(`测试事实${i}`, t + i);
      const inNvs = mem.facts().slice(0, 5).map((f) => recordId("fact", f));
      for (let i = 20; i < 25; i++) mem.addFact(`测试事实${i}`, t + i);
      equal(archive.count("fact"), 5);
      deepEqual(archive.recallRecent("fact").map((x) => x.id).reverse(), inNvs, "an archived record's id is the recordId of the record in NVS");
      deepEqual(archive.recallRecent("fact").map((x) => x.content), ["测试事实4", "测试事实3", "测试事实2", "测试事实1", "测试事实0"]);
      equal(mem.facts().length, 20);
      for (let i = 0; i < 11; i++) mem.addMoment({ topic: "日常", content: `时刻${i}`, emotion: "happy", intensity: 3, importance: 4, timestamp: t + i });
      equal(archive.count("moment"), 3);
      equal(archive.recallByKeyword("moment", "日常").length, 3);
      mem.flush();
      dev.reboot();
      ({ mem, archive } = boot(dev));
      equal(mem.facts().length, 20);
      equal(mem.facts()[0].content, "测试事实5");
      equal(mem.moments().length, 8);
      equal(archive.count("fact") + archive.count("moment"), 8);
    },
  },
  {
    name: "daily: facts and moments older than 30 days move; weekly: past events, not open schedules nor annual dates",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const { mem, archive, archiver } = boot(dev);
      const now = Math.floor(T0 / 1000);
      mem.addFact("四十天前的事", now - 40 * 86400);
      mem.addFact("昨天的事", now - 86400);
      mem.addMoment({ topic: "旧", content: "三十一天前", timestamp: now - 31 * 86400 });
      mem.addMoment({ topic: "新", content: "二十九天前", timestamp: now - 29 * 86400 });
      mem.addEvent(event("2026-01-20", "去年的展览"));
      mem.addEvent(event("2026-02-04", "昨天的会", { schedule: true, completed: true, time: "10:00" }));
      mem.addEvent(event("2026-02-01", "没完成的日程", { schedule: true, time: "09:00" }));
      mem.addEvent(event("2026-03-01", "下个月的事"));
      mem.addEvent(event("03-15", "生日"));
      mem.flush();
      const d = archiver.daily(T0);
      deepEqual([d.fact, d.moment], [1, 1]);
      deepEqual(mem.facts().map((f) => f.content), ["昨天的事"]);
      deepEqual(mem.moments().map((m) => m.content), ["二十九天前"]);
      equal(archive.recallRecent("fact")[0].content, "四十天前的事");
      const w = archiver.weekly(T0);
      equal(w.event, 2);
      deepEqual(mem.events().map((e) => e.content).sort(), ["下个月的事", "没完成的日程", "生日"].sort());
      deepEqual(archive.recallByTimeRange("event", "2026-01-01", "2026-02-28").map((x) => x.content), ["昨天的会", "去年的展览"]);
      equal(archive.recallRecent("event")[0].flags, 3, "a completed schedule keeps its flags");
      ok(!mem.dirty, "each move flushed its store");
      // again: nothing more to move, nothing archived twice
      deepEqual([archiver.daily(T0).fact, archiver.weekly(T0).event], [0, 0]);
      equal(archive.count("fact") + archive.count("event"), 3);
      // no clock, no moves
      equal(archiver.daily(1000).fact, 0);
      ok(pastEvent(event("2026-02-04", "x"), T0) && !pastEvent(event("2026-02-05", "x"), T0));
    },
  },
  {
    name: "a move cut by power after the archive write: at boot the record leaves NVS, recall returns it once",
    run() {
      for (const tear of [undefined, tearNone]) {
        const dev = new SimDevice({ now: T0 }).install();
        let { mem, archive, archiver } = boot(dev);
        const now = Math.floor(T0 / 1000);
        for (let i = 0; i < 6; i++) mem.addFact(`旧事${i}`, now - (40 + i) * 86400);
        mem.flush();
        // the cut comes at the first write after the archive append returned: the NVS flush
        const append = archive.append.bind(archive);
        archive.append = (t, r) => {
          const res = append(t, r);
          dev.cutAfter(1, tear);
          return res;
        };
        let cut = false;
        try {
          archiver.daily(T0);
        } catch (e) {
          if (!(e instanceof PowerCut)) throw e;
          cut = true;
        }
        ok(cut, "cut during the NVS flush");
        dev.reboot();
        mem = new Memory();
        archive = new Archive();
        archive.check();
        equal(mem.facts().length, 6, "still in NVS after the cut");
        equal(archive.count("fact"), 6, "and in the archive");
        archiver = new Archiver(mem, archive);
        const r = archiver.resolveAtBoot();
        equal(r.fact, 6);
        equal(mem.facts().length, 0);
        dev.reboot();
        ({ mem, archive, archiver } = boot(dev));
        equal(mem.facts().length, 0, "resolved for good");
        const all = archive.recallByKeyword("fact", "旧事", 50);
        equal(all.length, 6);
        equal(new Set(all.map((x) => x.id)).size, 6, "each once");
        // a repeated move archives nothing twice
        equal(archive.append("fact", [{ timestamp: now - 40 * 86400, content: "旧事0" }]).skipped, 1);
      }
    },
  },
  {
    name: "maintenance runs every day at 03:30 local time and moves events on Sunday",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const { mem, archive, archiver } = boot(dev);
      const runs: number[] = [];
      const m = startMaintenance(archiver, { onRun: () => runs.push(dev.clock.now) });
      equal(m.next, fromLocal(2026, 2, 6, 3, 30));
      equal(nextRun(fromLocal(2026, 2, 6, 3, 29), 3, 30), fromLocal(2026, 2, 6, 3, 30));
      equal(nextRun(fromLocal(2026, 2, 6, 3, 30), 3, 30), fromLocal(2026, 2, 7, 3, 30));
      mem.addEvent(event("2026-02-01", "上周日的活动"));
      mem.addFact("很久以前", Math.floor(T0 / 1000) - 31 * 86400);
      mem.flush();
      dev.clock.advanceTo(fromLocal(2026, 2, 6, 3, 29));
      equal(runs.length, 0);
      dev.clock.advanceTo(fromLocal(2026, 2, 6, 3, 31));
      equal(runs.length, 1);
      equal(archive.count("fact"), 1, "Friday: the daily move");
      equal(archive.count("event"), 0, "not Sunday");
      dev.clock.advanceTo(fromLocal(2026, 2, 8, 12, 0));
      equal(runs.length, 3);
      equal(toLocal(runs[2]).weekday, 0);
      equal(toLocal(runs[2]).hour, 3);
      equal(archive.count("event"), 1, "Sunday: the weekly move");
      equal(mem.events().length, 0);
      m.stop();
      dev.clock.advanceTo(T0 + 10 * DAY);
      equal(runs.length, 3, "stopped");
    },
  },
  {
    name: "maintenance runs the archive's idle steps only while no conversation is active (busy() false)",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const { archive, archiver } = boot(dev);
      const t0 = Math.floor(T0 / 1000) - 400 * 86400;
      const text = "主人今天放学以后和朋友们一起去公园玩，" + PAD.slice(0, 42); // long lines in any format (PAD)
      let k = 0;
      const fill = (n: number) => {
        for (let i = 0; i < n; i += 25) {
          const b = [];
          for (let j = 0; j < 25; j++, k++) b.push({ timestamp: t0 + k * 60, content: `第${k}条：${text}` });
          archive.append("fact", b);
        }
      };
      fill(1000); // packed lines (FORMAT.md §3.19): three segments
      ok(archive.report().fact.unsealed >= 2, "work waits");
      let steps = 0, during = 0;
      let busy = true;
      const step = archive.step.bind(archive);
      archive.step = (n?: number) => {
        steps++;
        if (busy) during++;
        return step(n);
      };
      const m = startMaintenance(archiver, { busy: () => busy });
      dev.clock.advanceTo(dev.clock.now + 10 * 60000);
      equal(steps, 0, "no step while a conversation is active");
      ok(archive.report().fact.unsealed >= 2);
      busy = false;
      dev.clock.advanceTo(dev.clock.now + IDLE_MS + 20 * STEP_MS);
      equal(archive.report().fact.unsealed, 0, "idle: the steps ran");
      ok(steps >= 3, `steps ${steps}`);
      const idle = steps;
      dev.clock.advanceTo(dev.clock.now + 5 * IDLE_MS);
      ok(steps - idle <= 6, `nothing to do: a look every IDLE_MS (${steps - idle})`);
      // a conversation starts: new work waits for its end
      busy = true;
      fill(600);
      const waiting = archive.report().fact.unsealed;
      ok(waiting >= 1);
      dev.clock.advanceTo(dev.clock.now + 10 * 60000);
      equal(during, 0, "never a step during a conversation");
      equal(archive.report().fact.unsealed, waiting);
      busy = false;
      dev.clock.advanceTo(dev.clock.now + IDLE_MS + 20 * STEP_MS);
      equal(archive.report().fact.unsealed, 0);
      m.stop();
      const stopped = steps;
      dev.clock.advanceTo(dev.clock.now + 10 * IDLE_MS);
      equal(steps, stopped, "stopped");
    },
  },
  {
    name: "maintenance waits for the clock to be set",
    run() {
      const dev = new SimDevice({ now: 5000 }).install();
      const { archiver } = boot(dev);
      let runs = 0;
      const m = startMaintenance(archiver, { onRun: () => runs++ });
      equal(m.next - now(), 3600000, "a look at the clock in an hour");
      dev.clock.advanceTo(5000 + 3 * 3600000);
      equal(runs, 0);
      // the network sets the clock (src/time/clock.ts): the next look plans a real run
      const t1 = dev.clock.now, set = fromLocal(2026, 2, 5, 22, 0);
      dev.setWall(set);
      const when = (wallMs: number) => t1 + (wallMs - set); // the simulator's time at which the wall reads wallMs
      dev.clock.advanceTo(when(fromLocal(2026, 2, 5, 23, 30)));
      equal(runs, 0);
      equal(m.next, fromLocal(2026, 2, 6, 3, 30));
      dev.clock.advanceTo(when(fromLocal(2026, 2, 6, 4, 0)));
      equal(runs, 1);
      m.stop();
    },
  },
];

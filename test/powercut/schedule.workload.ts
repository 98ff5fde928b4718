// Two weeks of schedules: reminders (mark, flush, deliver), completing daily,
// weekly and monthly schedules (the completed occurrence and the next one in
// one flush of the events store), a daily series left to move on by itself,
// and the daily cleanup. After any cut:
//   - the events are the acknowledged or the in-flight table (never a mix);
//   - every repeating series has exactly one open occurrence: the old one or
//     the next one, never neither and never two;
//   - no reminder that reached the sink is delivered again after the reboot.
import { Memory } from "../../src/memory/memory";
import { Schedules } from "../../src/schedule/schedules";
import { ReminderService, type Reminder } from "../../src/schedule/reminder";
import { fromLocal, formatDateTime } from "../../src/time/local";
import { compare, type Verdict, type Workload } from "./harness";

export interface ScheduleModel {
  events: string[];
  delivered: string[]; // content@datetime of every reminder the sink got
}

const SERIES = ["每天吃药", "每天散步", "周会", "交房租"];
const key = (r: { content: string; datetime: string }) => `${r.content}@${r.datetime}`;
const HOUR = 3600000;

export const scheduleWorkload: Workload<ScheduleModel> = {
  name: "schedules",
  start: fromLocal(2026, 1, 27, 7, 0),
  script(dev, ack, inflight) {
    const mem = new Memory();
    const delivered: string[] = [];
    const model = (): ScheduleModel => ({ events: mem.stores.events.all().map((e) => JSON.stringify(e)), delivered: delivered.slice() });
    // every flush of the events store (the service's and ours) reports in-flight and acknowledged
    const store = mem.stores.events;
    const flush = store.flush.bind(store);
    store.flush = () => {
      inflight(model());
      const wrote = flush();
      ack(model());
      return wrote;
    };
    const svc = new ReminderService(mem, {
      remind(r: Reminder) {
        delivered.push(key(r));
        ack(model());
      },
    });
    const s = new Schedules(mem);
    const added = [
      s.add({ content: "每天吃药", datetime: "2026-01-27 09:00", repeat: "daily", priority: 5 }),
      s.add({ content: "每天散步", datetime: "2026-01-27 19:00", repeat: "daily", priority: 2 }),
      s.add({ content: "周会", datetime: "2026-01-30 10:00", repeat: "weekly", priority: 3 }),
      s.add({ content: "交房租", datetime: "2026-01-31 20:00", repeat: "monthly", priority: 4 }),
      s.add({ content: "看牙医", datetime: "2026-02-03 17:00", priority: 3 }), // reminded late: missed
    ];
    if (added.some((r) => r.action !== "ADDED")) throw new Error("schedule workload: a schedule was not added");
    mem.flush();
    for (let day = 0; day < 14; day++) {
      const d0 = fromLocal(2026, 1, 27 + day, 0, 0);
      const at = (h: number, m = 0) => dev.clock.advanceTo(d0 + h * HOUR + m * 60000);
      at(0, 5);
      svc.checkNow(); // a new day: cleanup
      at(8, 10);
      svc.checkNow(); // 09:00 medicine
      at(9, 20);
      s.complete("每天吃药");
      mem.flush();
      at(9, 30);
      svc.checkNow(); // 周会 10:00 on Fridays
      at(10, 40);
      if (s.list().some((v) => v.content === "周会" && v.datetime <= formatDateTime(dev.clock.now))) {
        s.complete("周会");
        mem.flush();
      }
      at(18, 5);
      svc.checkNow(); // 19:00 walk: never completed, it moves on by itself
      at(19, 10);
      svc.checkNow(); // 20:00 rent
      at(20, 30);
      if (s.list().some((v) => v.content === "交房租" && v.datetime <= formatDateTime(dev.clock.now))) {
        s.complete("交房租");
        mem.flush();
      }
    }
  },
  verify(_dev, acked, inflight) {
    const mem = new Memory();
    const events = mem.stores.events.all();
    const a = acked ?? { events: [], delivered: [] };
    const f = inflight ?? a;
    const v: Verdict = compare(
      events.map((e) => JSON.stringify(e)),
      a.events,
      f.events,
    );
    if (acked) {
      for (const series of SERIES) {
        const open = events.filter((e) => e.content === series && !e.completed).length;
        if (open === 0) v.ackedLost++;
        if (open > 1) v.duplicates += open - 1;
      }
    }
    // reminded once: what the sink got is reminded=1 on flash and never comes again
    const again: string[] = [];
    const svc = new ReminderService(mem, { remind: (r) => again.push(key(r)) });
    svc.checkNow();
    for (const k of again) if (a.delivered.includes(k)) v.duplicates++;
    for (const e of events) if (!e.completed && e.reminded === 0 && a.delivered.includes(key({ content: e.content, datetime: `${e.date} ${e.time}` }))) v.duplicates++;
    return v;
  },
};

// Two weeks of schedules through the tool and the reminder timer: four
// repeating series (daily, daily, weekly, monthly) and one-offs, written by
// the AI, reminded by the 10-minute timer (mark, flush, deliver), completed by
// the AI (the completed occurrence and the next one in one flush), a daily
// series left to move on by itself, and the daily cleanup. The oracle checks
// that every series has exactly one open occurrence, that completions and
// one-offs acknowledged are as acknowledged, and that no reminder the user
// got comes again after the reboot.
import type { Workload } from "./harness";
import { fromLocal, formatDateTime } from "../../src/time/local";

const HOUR = 3600000;

export const scheduleWorkload: Workload = {
  name: "schedules",
  start: fromLocal(2026, 1, 27, 7, 0),
  run(ai) {
    const add = (content: string, datetime: string, repeat: string, priority: number) =>
      ai.call({ action: "write", type: "schedule", content, datetime, repeat, priority, duration: 30 });
    add("每天吃药", "2026-01-27 09:00", "daily", 5);
    add("每天散步", "2026-01-27 19:00", "daily", 2);
    add("周会", "2026-01-30 10:00", "weekly", 3);
    add("交房租", "2026-01-31 20:00", "monthly", 4);
    add("看牙医", "2026-02-03 17:00", "none", 3);
    const errand: Record<number, string> = {};
    for (let day = 0; day < 14; day++) {
      const d0 = fromLocal(2026, 1, 27 + day, 0, 0);
      const at = (h: number, m = 0) => ai.advanceTo(d0 + h * HOUR + m * 60000);
      at(9, 20);
      ai.complete("每天吃药", "open");
      if (day % 3 === 1) add(`买菜${day}`, (errand[day] = formatDateTime(fromLocal(2026, 1, 28 + day, 16, 0))), "none", 2);
      at(10, 40);
      if (day % 7 === 3) ai.complete("周会", "open");
      if (day % 3 === 2) ai.complete(`买菜${day - 1}`, "open@" + errand[day - 1]);
      at(20, 30);
      if (day === 4) ai.complete("交房租", "open");
      if (day === 10) ai.call({ action: "delete", type: "schedule", content: "每天散步" });
      at(23, 50);
    }
  },
  after(ai) {
    ai.call({ action: "write", type: "schedule", content: "重启之后打电话", datetime: "2026-02-20 10:00", priority: 3, duration: 30, force: true });
    ai.advanceTo(ai.dev.clock.now + 2 * HOUR); // reminders go on
  },
};

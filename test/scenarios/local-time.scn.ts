import { toLocal, fromLocal, formatDateTime, formatIso, parseLocal, daysInMonth, setUtcOffset, utcOffset } from "../../src/time/local";
import { equal, throws } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = [
  {
    name: "local time is UTC plus the offset (default +08:00), no Intl",
    run() {
      equal(utcOffset(), 480);
      const t = Date.UTC(2026, 1, 5, 5, 0); // 13:00 in Beijing
      equal(formatDateTime(t), "2026-02-05 13:00");
      equal(formatIso(t + 7000), "2026-02-05T13:00:07");
      equal(toLocal(Date.UTC(2026, 1, 7, 17, 0)).weekday, 0, "Sunday 01:00 local");
      equal(fromLocal(2026, 2, 5, 13, 0), t);
      equal(parseLocal("2026-02-05 13:00"), t);
      setUtcOffset(-300);
      equal(formatDateTime(t), "2026-02-05 00:00");
      setUtcOffset(480);
      throws(() => setUtcOffset(1.5));
    },
  },
  {
    name: "parseLocal accepts only real dates",
    run() {
      equal(parseLocal("2026-02-29"), undefined);
      equal(parseLocal("2028-02-29") !== undefined, true);
      equal(parseLocal("2026-13-01"), undefined);
      equal(parseLocal("2026-01-01 24:00"), undefined);
      equal(parseLocal("2026-1-1"), undefined);
      equal(parseLocal("tomorrow"), undefined);
      equal(daysInMonth(2100, 2), 28);
      equal(daysInMonth(2000, 2), 29);
    },
  },
];

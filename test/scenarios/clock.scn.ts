// Issue 26: a clock the memory survives (src/time/clock.ts). The RTC reads
// 1970 or a stale time at boot until the network sets it; the memory dates
// what it writes meanwhile by an estimate never later than the truth (the
// last trusted time plus the time since boot), never 1970, and moves those
// records to their true time once the clock is set; timed decisions wait;
// later corrections forward and back never remind twice.
import { SimDevice } from "../../host-sim/device";
import { bootDevice } from "../../src/app/boot";
import { isValid, now, setTimeSource, VALID_AFTER_MS } from "../../src/time/clock";
import { readFloor } from "../../src/time/floor";
import { fromLocal } from "../../src/time/local";
import { ok, equal } from "./assert";
import type { Scenario } from "./types";

const MIN = 60000;
const T0 = fromLocal(2026, 2, 5, 13, 0);

function tool(b: ReturnType<typeof bootDevice>, args: Record<string, unknown>): Record<string, unknown> {
  const r = JSON.parse(b.service.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: args } }))!);
  return JSON.parse(r.result.content[0].text);
}

export const scenarios: Scenario[] = [
  {
    name: "unset at boot (1970): records dated by the estimate, never 1970; the network sets the clock: they move to their true time; reminders wait for it",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      let b = bootDevice();
      tool(b, { action: "write", type: "fact", content: "主人喜欢画画" });
      b.service.stop();
      ok(readFloor() >= T0 - MIN, "the floor is on flash");
      // a month off; the RTC lost power: 1970 at boot
      dev.reboot();
      dev.clock.advance(30 * 24 * 60 * MIN);
      dev.clock.unsetWall(5000);
      const truth = dev.clock.now;
      b = bootDevice();
      const got: string[] = [];
      b.service.addReminderSink({ remind: (r) => got.push(r.content) });
      equal(isValid(), false);
      ok(now() >= T0 && now() < truth, "the estimate: after the last trusted time, before the truth");
      dev.clock.advance(5 * MIN);
      const written = dev.clock.now;
      tool(b, { action: "write", type: "fact", content: "主人会游泳" });
      tool(b, { action: "write", type: "schedule", content: "去医院", datetime: "2026-03-08 13:30", priority: 4 });
      const fact = () => b.service.memory.facts().find((f) => f.content === "主人会游泳")!;
      ok(fact().timestamp * 1000 >= VALID_AFTER_MS, "never 1970");
      ok(fact().timestamp * 1000 < written, "dated before the truth until the clock is set");
      dev.clock.advance(60 * MIN);
      equal(got.length, 0, "no reminder on an unset clock");
      // the network sets it: at the next safe point the records move
      dev.setWall(dev.clock.now);
      equal(isValid(), false, "not inside whatever was running");
      dev.clock.advance(0);
      equal(isValid(), true);
      ok(Math.abs(fact().timestamp * 1000 - written) <= 2000, `dated at its true time: ${fact().timestamp * 1000 - written} ms`);
      equal(b.service.memory.facts().find((f) => f.content === "主人喜欢画画")!.timestamp, Math.floor(T0 / 1000), "an old record does not move");
      ok(truth + 65 * MIN <= now(), "time that passed while off counts");
      equal(got.length, 0);
      dev.clock.advanceTo(fromLocal(2026, 3, 8, 12, 30));
      equal(got.join(), "去医院", "reminded once the clock is trusted, as its hour opens");
      b.service.stop();
    },
  },
  {
    name: "corrections forward and back by hours: nothing reminded twice, nothing lost; a stale RTC at boot waits for the network",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      let b = bootDevice();
      const got: string[] = [];
      b.service.addReminderSink({ remind: (r) => got.push(r.content) });
      tool(b, { action: "write", type: "schedule", content: "开会", datetime: "2026-02-05 15:00", priority: 3 });
      dev.clock.advanceTo(fromLocal(2026, 2, 5, 14, 0));
      equal(got.join(), "开会");
      // the network corrects the clock two hours back, then three forward
      dev.setWall(dev.clock.wall - 120 * MIN);
      dev.clock.advance(30 * MIN);
      equal(got.length, 1, "not again after a step back");
      dev.setWall(dev.clock.wall + 180 * MIN);
      dev.clock.advance(30 * MIN);
      equal(got.length, 1);
      b.service.stop();
      // power lost; the RTC reads the stale time of the loss at boot
      dev.reboot();
      dev.clock.advance(3 * 24 * 60 * MIN);
      dev.clock.unsetWall(dev.clock.wall - 3 * 24 * 60 * MIN);
      b = bootDevice();
      equal(isValid(), false, "a stale RTC is not trusted");
      ok(b.line.indexOf("clock unset") >= 0, b.line);
      equal(tool(b, { action: "read" }).schedules !== undefined, true);
      dev.setWall(dev.clock.now);
      dev.clock.advance(0);
      equal(isValid(), true);
      equal(got.length, 1);
      b.service.stop();
    },
  },
  {
    name: "the device today (ticks are the wall clock's own count): an RTC that read 1970 at boot and now reads 2026 was set",
    run() {
      const dev = new SimDevice({ now: 5000 }).install();
      let set = 0;
      const rtc = () => dev.clock.now + set;
      setTimeSource(rtc, rtc);
      equal(isValid(), false);
      dev.clock.advance(MIN);
      equal(isValid(), false, "time passing in 1970 is not a setting");
      set = T0 - dev.clock.now; // SNTP, then Time.set
      equal(isValid(), true);
      equal(now(), T0);
      dev.install();
    },
  },
];

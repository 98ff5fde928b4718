// The timer module on the virtual clock, and the device clock module it drives.
import Timer from "timer";
import { SimDevice } from "../../host-sim/device";
import { now, isValid, wall, VALID_AFTER_MS } from "../../src/time/clock";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = [
  {
    name: "set, repeat, schedule and clear fire in order on the virtual clock",
    run() {
      const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
      const log: string[] = [];
      const t0 = dev.clock.now;
      Timer.set(() => log.push(`once@${dev.clock.now - t0}`), 500);
      const r = Timer.repeat((t) => {
        log.push(`rep@${dev.clock.now - t0}`);
        if (dev.clock.now - t0 >= 3000) Timer.clear(t);
      }, 1000);
      ok(r);
      Timer.set(() => log.push(`now@${dev.clock.now - t0}`));
      equal(dev.clock.advance(999), 2);
      deepEqual(log, ["now@0", "once@500"]);
      dev.clock.advance(10000);
      deepEqual(log, ["now@0", "once@500", "rep@1000", "rep@2000", "rep@3000"]);
      equal(dev.clock.pending(), 0);
    },
  },
  {
    name: "set with repeat waits the interval first; schedule reschedules; no interval unschedules",
    run() {
      const dev = new SimDevice().install();
      const hits: number[] = [];
      const t0 = dev.clock.now;
      const t = Timer.set(() => hits.push(dev.clock.now - t0), 100, 600000);
      dev.clock.advance(100);
      dev.clock.advance(600000);
      deepEqual(hits, [100, 600100]);
      Timer.schedule(t, 5);
      dev.clock.advance(10);
      deepEqual(hits, [100, 600100, 600105]);
      const u = Timer.set(() => hits.push(-1), 10);
      Timer.schedule(u);
      dev.clock.advance(100);
      equal(hits.includes(-1), false);
    },
  },
  {
    name: "the callback gets its timer; delay passes time without firing",
    run() {
      const dev = new SimDevice().install();
      let got: unknown;
      const t = Timer.set((x) => (got = x), 10);
      Timer.delay(50);
      equal(got, undefined);
      dev.clock.advance(0);
      equal(got, t);
    },
  },
  {
    name: "the device clock reads the simulator's time; unset before 2024 (an estimate, never 1970) until the network sets it",
    run() {
      const dev = new SimDevice({ now: 5000 }).install();
      equal(wall(), 5000);
      equal(isValid(), false);
      equal(now(), VALID_AFTER_MS, "the estimate: no trusted time seen yet, 2024-01-01 plus the time since boot");
      dev.clock.advance(1000);
      equal(now(), VALID_AFTER_MS + 1000);
      equal(isValid(), false, "time passing is not a setting");
      dev.setWall(Date.UTC(2026, 0, 1));
      dev.clock.advance(0);
      equal(isValid(), true);
      equal(now(), Date.UTC(2026, 0, 1));
    },
  },
  {
    name: "a reboot loses every timer",
    run() {
      const dev = new SimDevice().install();
      let n = 0;
      Timer.repeat(() => n++, 10);
      dev.clock.advance(25);
      equal(n, 2);
      dev.reboot();
      dev.clock.advance(100);
      equal(n, 2);
    },
  },
];

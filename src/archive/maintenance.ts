// The archive's maintenance timers:
// - every day early in the morning, local time (03:30 by default),
//   Archiver.maintenance() runs the daily moves, on Sunday also the weekly one.
//   The next run is computed from the wall clock each time, so a clock set late
//   or a change of UTC offset is followed. While the clock is not set, it looks
//   again every hour.
// - the archive's upkeep (Archive.step: seal a full segment, retire the oldest
//   moments into digests, rebuild a twin) runs one bounded step per tick while
//   no conversation is active: a step every STEP_MS while there is work, then
//   a look every IDLE_MS. No step ever runs inside a conversation.
//
//   const m = startMaintenance(archiver);   // at boot, after resolveAtBoot()
//   m.stop();

import Timer from "timer";
import { now, isValid } from "../time/clock";
import { toLocal, fromLocal } from "../time/local";
import type { Archiver, MoveReport } from "./archiver";

export interface MaintenanceOptions {
  hour?: number; // local hour of the daily run (default 3)
  minute?: number; // default 30
  onRun?: (report: MoveReport | undefined, error?: unknown) => void;
  busy?: () => boolean; // a conversation is active: no archive step now
  // another bounded upkeep step run on the same tick, also never during a
  // conversation (the episodes' upkeep, src/episode/episodes.ts step());
  // true while it has work left
  extra?: () => boolean;
}

export const STEP_MS = 250;
export const IDLE_MS = 60000;

export interface Maintenance {
  readonly next: number; // wall time of the next run, ms
  stop(): void;
}

const HOUR = 3600000;

// The first wall time after `nowMs` that is hh:mm local time.
export function nextRun(nowMs: number, hour: number, minute: number): number {
  const t = toLocal(nowMs);
  let at = fromLocal(t.year, t.month, t.day, hour, minute);
  if (at <= nowMs) at = fromLocal(t.year, t.month, t.day + 1, hour, minute);
  return at;
}

export function startMaintenance(archiver: Archiver, opts: MaintenanceOptions = {}): Maintenance {
  const hour = opts.hour ?? 3, minute = opts.minute ?? 30;
  let next = 0;
  let run = false; // whether `next` is a run or only a look at the clock
  let timer: ReturnType<typeof Timer.set> | undefined;
  const plan = (): void => {
    const t = now();
    run = isValid(); // a trusted clock (src/time/clock.ts): an unset or stale one moves nothing
    next = run ? nextRun(t, hour, minute) : t + HOUR;
    timer = Timer.set(fire, Math.max(1000, next - t));
  };
  const fire = (): void => {
    timer = undefined;
    const t = now();
    if (run && t >= next - 60000) {
      try {
        const r = archiver.maintenance(t);
        if (r.errors) trace(`archive: maintenance left in NVS what the archive could not take: ${r.errors.join("; ")}\n`);
        opts.onRun?.(r);
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        trace(`archive: maintenance failed: ${e instanceof Error ? e.message : String(e)}\n`);
        opts.onRun?.(undefined, e);
      }
    }
    plan();
  };
  plan();
  let stepper: ReturnType<typeof Timer.set> | undefined;
  const tick = (): void => {
    stepper = undefined;
    let worked = false;
    if (!opts.busy?.()) {
      try {
        // a step that failed waits like an idle one: a failure that persists
        // (a file that cannot be read now) must not become a step every 250 ms
        const r = archiver.archive.step();
        worked = r !== undefined && r.did.indexOf("failed") !== 0;
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        trace(`archive: step failed: ${e instanceof Error ? e.message : String(e)}\n`);
      }
      if (opts.extra)
        try {
          if (opts.extra()) worked = true;
        } catch (e) {
          if (e instanceof Error && e.name === "PowerCut") throw e;
          trace(`upkeep: step failed: ${e instanceof Error ? e.message : String(e)}\n`);
        }
    }
    stepper = Timer.set(tick, worked ? STEP_MS : IDLE_MS);
  };
  stepper = Timer.set(tick, STEP_MS);
  return {
    get next() {
      return next;
    },
    stop() {
      if (timer) Timer.clear(timer);
      if (stepper) Timer.clear(stepper);
      timer = stepper = undefined;
    },
  };
}

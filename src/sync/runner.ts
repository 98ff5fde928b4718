// Sync on the device: now and then, only when the pet is quiet. A timer
// looks once a minute; a sync is due every `every` ms (default 6 h) and runs
// when no conversation is open and nothing was heard or asked for `quiet` ms
// (default 2 min). A failed sync is tried again later, waiting twice as long
// each time up to `every`; one that a conversation interrupted is tried again
// at the next quiet minute. One sync at a time.

import Timer from "timer";
import type { Booted } from "../app/boot";
import { now, isValid } from "../time/clock";
import { sync, SyncError, type SyncOptions, type SyncReport } from "./replicate";

export interface RunnerOptions extends Omit<SyncOptions, "busy"> {
  every?: number; // ms between syncs
  quiet?: number; // ms of silence before a sync starts
  retry?: number; // ms before the first retry after a failure
}

export class SyncRunner {
  last: SyncReport | undefined;
  lastError = "";
  lastAt = 0;
  runs = 0;
  private due = 0; // ms: when the next sync may start
  private wait: number;
  private running = false;
  private timer: ReturnType<typeof Timer.repeat> | undefined;
  readonly every: number;
  readonly quiet: number;

  constructor(
    readonly booted: Booted,
    readonly o: RunnerOptions,
  ) {
    this.every = o.every ?? 6 * 3600000;
    this.quiet = o.quiet ?? 120000;
    this.wait = o.retry ?? 60000;
  }

  busy = (): boolean => {
    const s = this.booted.service;
    return s.listener.active || now() - s.lastActive < this.quiet;
  };

  // `first`: ms before the first look (then once a minute).
  start(first = 60000): void {
    if (this.timer === undefined) this.timer = Timer.set(() => void this.tick(), first, 60000);
  }

  stop(): void {
    if (this.timer !== undefined) Timer.clear(this.timer);
    this.timer = undefined;
  }

  // Starts a sync when one is due and the pet is quiet; resolves when it ends.
  tick(): Promise<void> | undefined {
    const t = now();
    // a sync stamps `at` on what it writes: it waits for a trusted clock (src/time/clock.ts)
    if (this.running || t < this.due || this.busy() || !isValid()) return undefined;
    this.running = true;
    this.runs++;
    return sync(this.booted, { ...this.o, busy: this.busy }).then(
      (r) => {
        this.running = false;
        this.last = r;
        this.lastError = "";
        this.lastAt = now();
        this.due = this.lastAt + this.every;
        this.wait = this.o.retry ?? 60000;
        trace(`sync: pushed ${r.pushed}, pulled ${r.pulled}, conflicts ${r.conflicts}, refused ${r.rejected}\n`);
      },
      (e: unknown) => {
        this.running = false;
        if (e instanceof Error && e.name === "PowerCut") throw e;
        this.lastError = e instanceof Error ? e.message : String(e);
        if (!(e instanceof SyncError && e.code === "busy")) {
          this.due = now() + this.wait;
          this.wait = Math.min(this.every, this.wait * 2);
        }
        trace(`${this.lastError}\n`);
      },
    );
  }
}

// The simulator's clock: wall time and the timer queue. Tests advance it
// explicitly; `npm start` lets host-sim/node drive it from the real clock.

export type TimerCallback = (timer: SimTimer) => void;

export class SimTimer {
  due = 0;
  repeat = 0; // 0: one-shot
  active = false;
  constructor(public callback: TimerCallback, readonly id: number) {}
}

export class VirtualClock {
  now: number; // the true time: the timers (the device's ticks) run on it
  // The RTC (the device's wall clock) reads now + wallOffset. A platform fault
  // (clock_jump) makes it read 1970 or a stale time at boot (wallSet false)
  // until setWall, and moves it by corrections; 0 and true by default.
  wallOffset = 0;
  wallSet = true;
  private timers: SimTimer[] = [];
  private nextId = 1;
  private firing = false;

  constructor(now = Date.UTC(2026, 0, 1)) {
    this.now = now;
  }

  get wall(): number {
    return this.now + this.wallOffset;
  }

  // The network sets the wall clock to `ms` (SNTP, then Time.set).
  setWall(ms: number): void {
    this.wallOffset = ms - this.now;
    this.wallSet = true;
  }

  // Power on without a set RTC: it reads `ms` (1970, or the stale time of the last power loss).
  unsetWall(ms: number): void {
    this.wallOffset = ms - this.now;
    this.wallSet = false;
  }

  set(callback: TimerCallback, ms = 0, repeat = 0): SimTimer {
    const t = new SimTimer(callback, this.nextId++);
    this.timers.push(t);
    this.schedule(t, ms, repeat);
    return t;
  }

  // Moddable semantics: a missing interval unschedules the timer without freeing it.
  schedule(t: SimTimer, ms?: number, repeat = 0): void {
    if (ms === undefined) {
      t.active = false;
      return;
    }
    t.due = this.now + Math.max(0, ms);
    t.repeat = Math.max(0, repeat);
    t.active = true;
    if (!this.timers.includes(t)) this.timers.push(t);
  }

  clear(t: SimTimer): void {
    t.active = false;
    const i = this.timers.indexOf(t);
    if (i >= 0) this.timers.splice(i, 1);
  }

  pending(): number {
    return this.timers.filter((t) => t.active).length;
  }

  nextDue(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (t.active && (min === undefined || t.due < min)) min = t.due;
    return min;
  }

  // Moves time forward to `target`, firing every timer due on the way in order,
  // with `now` set to each timer's due time while it runs.
  advanceTo(target: number): number {
    if (this.firing) throw new Error("clock advanced from inside a timer callback");
    let fired = 0;
    this.firing = true;
    try {
      for (;;) {
        let next: SimTimer | undefined;
        for (const t of this.timers) if (t.active && t.due <= target && (!next || t.due < next.due || (t.due === next.due && t.id < next.id))) next = t;
        if (!next) break;
        if (next.due > this.now) this.now = next.due;
        if (next.repeat > 0) next.due += next.repeat;
        else this.clear(next);
        fired++;
        next.callback(next);
      }
    } finally {
      this.firing = false;
    }
    if (target > this.now) this.now = target;
    return fired;
  }

  advance(ms: number): number {
    return this.advanceTo(this.now + ms);
  }

  // Timer.delay blocks the device: time passes, nothing fires.
  delay(ms: number): void {
    this.now += Math.max(0, ms);
  }

  // A reboot loses every timer.
  reset(): void {
    for (const t of this.timers) t.active = false;
    this.timers = [];
  }
}

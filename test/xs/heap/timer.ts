// `timer` for the heap lane: a virtual clock inside XS (on the device a timer
// is a small native record). advance(ms) moves time and fires what is due, in
// order, as the device's timer task would.

export interface VTimer {
  callback: (t: VTimer) => void;
  at: number;
  repeat: number;
  live: boolean;
}

let nowMs = 0;
const timers: VTimer[] = [];

export function setNow(ms: number): void {
  nowMs = ms;
}
export function now(): number {
  return nowMs;
}

function add(t: VTimer): VTimer {
  timers.push(t);
  return t;
}

export function advance(ms: number): number {
  const end = nowMs + ms;
  let fired = 0;
  for (;;) {
    let next: VTimer | undefined;
    for (const t of timers) if (t.live && t.at <= end && (!next || t.at < next.at)) next = t;
    if (!next) break;
    nowMs = Math.max(nowMs, next.at);
    if (next.repeat > 0) next.at = nowMs + next.repeat;
    else next.live = false;
    fired++;
    next.callback(next);
    for (let i = timers.length - 1; i >= 0; i--) if (!timers[i].live) timers.splice(i, 1);
  }
  nowMs = end;
  return fired;
}

export default class Timer {
  static set(callback: (t: VTimer) => void, interval = 0, repeat = 0): VTimer {
    return add({ callback, at: nowMs + interval, repeat, live: true });
  }
  static repeat(callback: (t: VTimer) => void, interval: number): VTimer {
    return add({ callback, at: nowMs + interval, repeat: interval, live: true });
  }
  static schedule(t: VTimer, interval = 0, repeat = 0): void {
    t.at = nowMs + interval;
    t.repeat = repeat;
    t.live = true;
    if (!timers.includes(t)) timers.push(t);
  }
  static clear(t: VTimer | undefined): void {
    if (t) t.live = false;
  }
  static delay(ms: number): void {
    nowMs += ms;
  }
}

// The device's clocks (docs/DESIGN.md, "Clocks").
//
// Two sources: the wall clock (the RTC: Date.now() on the device, 1970 or the
// stale time of the last power loss at boot until the network sets it, later
// corrected by minutes or hours either way; it may run fast) and the ticks
// (milliseconds since boot, steady, never set: what Moddable's timers run
// on). The host simulator drives both from its virtual clock.
//
// Trust: the wall clock is TRUSTED once it was set in this boot: the platform
// says so at boot (the RTC was set and is not behind the last trusted time
// the memory saw), the network code calls clockSynced() after SNTP, or the
// wall clock jumps against the ticks (only a setting moves it that way) to a
// time not before 2024. Until then:
// - isValid() is false: every decision that forgets, purges, expires, moves,
//   retires, reminds or counts days waits (its callers check isValid());
// - now() is an ESTIMATE that is never later than the truth: the last
//   trusted time the memory saw (the floor, kept in NVS by the service) plus
//   the time since boot. Records made now are dated with it, never 1970, and
//   are moved to their true time when trust comes (onTrusted: the shift is the
//   time the pet was off that the estimate could not see).
// Once trusted, now() is the wall clock: time that passed while the pet was
// off counts. A later correction (a jump of more than JUMP_MS against the
// ticks) is followed, backwards too; callers that must not repeat or undo
// anything on a step back keep their own marks (a reminder's flag, a
// streak's last day) and compare days, not instants.

// Anything before 2024-01-01 means the clock was never set.
export const VALID_AFTER_MS = 1704067200000;
// A wall clock that moves this much more or less than the ticks was set.
export const JUMP_MS = 60000;

let wallSource: () => number = () => Date.now();
// On the device the ticks are the wall clock's own count until the platform
// gives a steady one (setTimeSource); a setting is then seen by clockSynced().
let ticksSource: () => number = () => Date.now();
let platformSet: (() => boolean) | undefined; // the platform knows whether the RTC was set

let floor = 0; // ms: the latest trusted time the memory saw
let bootTicks = 0;
let bootWall = 0;
let trusted = false;
let anchorWall = 0; // while trusted: the wall clock at anchorTicks
let anchorTicks = 0;
let estimateFrom = 0; // the estimate at boot: records dated from here on are this boot's
let lastShift = 0;
let corrections = 0;

export interface TrustEvent {
  kind: "trusted" | "corrected";
  shift: number; // ms: trusted: the true time minus the estimate; corrected: the jump
  from: number; // trusted: records dated in [from, to] were dated by the estimate in this boot
  to: number;
}
type Listener = (e: TrustEvent) => void;
const listeners: Listener[] = [];

function estimate(): number {
  const base = floor > VALID_AFTER_MS ? floor : VALID_AFTER_MS;
  return base + (ticksSource() - bootTicks);
}

// Whether the wall clock was set since the last look: a jump against the ticks.
function poll(): void {
  const w = wallSource();
  const t = ticksSource();
  if (!trusted) {
    if (w < VALID_AFTER_MS) return;
    const moved = w - bootWall - (t - bootTicks);
    if (moved > JUMP_MS || moved < -JUMP_MS) trust(w, t);
    return;
  }
  const drift = w - anchorWall - (t - anchorTicks);
  if (drift > JUMP_MS || drift < -JUMP_MS) {
    anchorWall = w;
    anchorTicks = t;
    corrections++;
    emit({ kind: "corrected", shift: drift, from: w - drift, to: w });
  } else {
    // a fast or slow RTC drifts slowly: the anchor follows it
    anchorWall = w;
    anchorTicks = t;
  }
}

function trust(w: number, t: number): void {
  const est = estimate();
  trusted = true;
  anchorWall = w;
  anchorTicks = t;
  lastShift = w - est;
  if (w > floor) floor = w;
  emit({ kind: "trusted", shift: lastShift, from: estimateFrom, to: est });
}

function emit(e: TrustEvent): void {
  for (const l of listeners.slice()) {
    try {
      l(e);
    } catch (err) {
      if (err instanceof Error && err.name === "PowerCut") throw err;
    }
  }
}

// Wall time for device code: the trusted wall clock, or the estimate.
export function now(): number {
  poll();
  return trusted ? wallSource() : estimate();
}

// The wall clock is trusted: time-based decisions may be taken.
export function isValid(): boolean {
  poll();
  return trusted;
}

export const isTrusted = isValid;

// Milliseconds since boot, steady.
export function sinceBoot(): number {
  return ticksSource() - bootTicks;
}

// The raw wall clock (the RTC), for diagnostics.
export function wall(): number {
  return wallSource();
}

// The latest trusted time seen (ms), to keep across power loss; 0: never.
export function trustedFloor(): number {
  if (trusted) {
    const w = wallSource();
    if (w > floor) floor = w;
  }
  return floor;
}

export function clockState(): { trusted: boolean; floor: number; shift: number; corrections: number; wall: number; sinceBoot: number } {
  poll();
  return { trusted, floor, shift: lastShift, corrections, wall: wallSource(), sinceBoot: sinceBoot() };
}

// A new boot: the floor read from NVS (ms; 0 when none). The wall clock is
// trusted at once when the platform says it was set, or (no platform word)
// when it reads a valid time not behind the floor.
export function bootClock(floorMs: number): void {
  listeners.length = 0; // one boot, one set of listeners
  floor = floorMs > 0 ? floorMs : 0;
  bootTicks = ticksSource();
  bootWall = wallSource();
  trusted = false;
  lastShift = 0;
  corrections = 0;
  estimateFrom = estimate();
  const set = platformSet ? platformSet() : bootWall >= VALID_AFTER_MS && bootWall >= floor;
  if (set && bootWall >= VALID_AFTER_MS) {
    trusted = true;
    anchorWall = bootWall;
    anchorTicks = bootTicks;
    if (bootWall > floor) floor = bootWall;
  }
}

// The network set the wall clock (SNTP): call right after Time.set. A first
// setting makes it trusted; a later one is a correction.
export function clockSynced(): void {
  const w = wallSource();
  const t = ticksSource();
  if (w < VALID_AFTER_MS) return;
  if (!trusted) trust(w, t);
  else if (w !== anchorWall + (t - anchorTicks)) {
    const drift = w - anchorWall - (t - anchorTicks);
    anchorWall = w;
    anchorTicks = t;
    if (drift > JUMP_MS || drift < -JUMP_MS) {
      corrections++;
      emit({ kind: "corrected", shift: drift, from: w - drift, to: w });
    }
  }
}

export function onTrust(l: Listener): () => void {
  listeners.push(l);
  return () => {
    const i = listeners.indexOf(l);
    if (i >= 0) listeners.splice(i, 1);
  };
}

// The platform's sources: the wall clock, the ticks (default: the ones in
// force) and whether the RTC was set by the network since power on. The clock
// is then booted afresh, trusted if the platform says it was set or (without
// a word) if the wall clock reads a valid time.
export function setTimeSource(wallFn: () => number, ticksFn?: () => number, isSet?: () => boolean): void {
  wallSource = wallFn;
  if (ticksFn) ticksSource = ticksFn;
  platformSet = isSet;
  bootClock(0);
}

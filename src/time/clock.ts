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
// the memory saw), the network code calls clockSynced() after SNTP, the wall
// clock jumps against the ticks (only a setting moves it that way), or it read
// 1970 at boot and now reads a time after 2024. Until then:
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
let newest = 0; // ms: the newest time a record on flash holds (raiseFloor)
let bootTicks = 0;
let bootWall = 0;
let trusted = false;
let anchorWall = 0; // while trusted: the wall clock at anchorTicks
let anchorTicks = 0;
let estimateFrom = 0; // the estimate at boot: records dated from here on are this boot's
let carried = false; // estimateFrom is an earlier boot's
let lastShift = 0;
let corrections = 0;

export interface TrustEvent {
  kind: "trusted" | "corrected";
  shift: number; // ms: trusted: the true time minus the estimate; corrected: the jump
  from: number; // trusted: records dated in [from, to] were dated by the estimate in this boot
  to: number;
}
type Listener = (e: TrustEvent) => void;
// the listeners: an array of two (the service's, the reminders'), cheaper on
// the XS heap than closures composing them (npm run heap)
let listeners: Listener[] = [];

function base(): number {
  // a second after the floor or the newest record: never the same second as an old record
  const b = floor > newest ? floor : newest;
  return b > VALID_AFTER_MS ? b + 1000 : VALID_AFTER_MS;
}

function estimate(): number {
  return base() + (ticksSource() - bootTicks);
}

// A setting is seen anywhere (inside a store's write too), but it takes
// effect at a safe point: the service's settle hook (a zero-delay timer)
// calls settleClock(), which trusts the clock and runs the listeners (the
// redate writes). Until then the clock stays as it was. Without a hook
// (a bare test), it takes effect at once.
let pendingTrust = false;
let pendingShift = 0; // corrections seen since the last settle, summed (ms)
let pendingCorrections = false;
let settleHook: (() => void) | undefined;
let settling = false;

function request(): void {
  if (settleHook) settleHook();
  else settleClock();
}

// Whether the wall clock was set since the last look: a jump against the ticks.
function poll(): void {
  if (settling) return;
  const w = wallSource();
  const t = ticksSource();
  if (!trusted) {
    if (pendingTrust || w < VALID_AFTER_MS) return;
    const moved = w - bootWall - (t - bootTicks);
    // an RTC that read 1970 and now reads a real time was set (without a steady
    // ticks source, as on the device today, this is how SNTP's setting is seen)
    if (moved > JUMP_MS || moved < -JUMP_MS || bootWall < VALID_AFTER_MS) {
      pendingTrust = true;
      request();
    }
    return;
  }
  const drift = w - anchorWall - (t - anchorTicks);
  anchorWall = w; // a fast or slow RTC drifts slowly: the anchor follows it
  anchorTicks = t;
  if (drift > JUMP_MS || drift < -JUMP_MS) {
    corrections++;
    pendingShift += drift;
    pendingCorrections = true;
    request();
  }
}

// Takes a setting seen since the last call into effect and tells the listeners.
export function settleClock(): void {
  if (settling) return;
  settling = true;
  try {
    let e: TrustEvent | undefined;
    if (pendingTrust && !trusted) {
      pendingTrust = false;
      const w = wallSource();
      const t = ticksSource();
      if (w >= VALID_AFTER_MS) {
        const est = estimate();
        trusted = true;
        anchorWall = w;
        anchorTicks = t;
        lastShift = w - est;
        if (w > floor) floor = w;
        pendingCorrections = false; // the setting is the news
        pendingShift = 0;
        e = { kind: "trusted", shift: lastShift, from: estimateFrom, to: est };
      }
    }
    if (!e && pendingCorrections) {
      const w = wallSource();
      e = { kind: "corrected", shift: pendingShift, from: w - pendingShift, to: w };
      pendingCorrections = false;
      pendingShift = 0;
    }
    if (e)
      for (const l of listeners.slice()) {
        try {
          l(e);
        } catch (err) {
          if (err instanceof Error && err.name === "PowerCut") throw err;
        }
      }
  } finally {
    settling = false;
  }
}

// The service's safe point for settleClock (undefined: at once).
export function setSettleHook(hook: (() => void) | undefined): void {
  settleHook = hook;
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

// While the clock is not trusted: the first time (ms) this boot's estimate
// gave; records dated from there on are this boot's. Undefined once trusted.
export function untrustedSince(): number | undefined {
  poll();
  return trusted ? undefined : estimateFrom;
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
  listeners = []; // one boot, one set of listeners
  pendingTrust = false;
  pendingCorrections = false;
  pendingShift = 0;
  settleHook = undefined;
  floor = floorMs > 0 ? floorMs : 0;
  newest = 0;
  carried = false;
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

// What the memory already holds is no older than its newest record: the floor
// rises to it (the service calls this once the stores are read), so an
// estimate never dates a new record before an old one.
export function raiseFloor(ms: number): void {
  if (!(ms > newest)) return;
  newest = ms;
  if (!trusted && !carried) estimateFrom = base();
}

// Records an earlier boot dated by its estimate and never saw moved (the
// clock was not trusted before that boot ended): they move with this boot's
// at trust. `fromMs`: where that boot's estimate began (src/time/floor.ts).
export function carryUntrusted(fromMs: number): void {
  if (trusted || !(fromMs > 0)) return;
  if (fromMs < estimateFrom) estimateFrom = fromMs;
  carried = true;
}

// The network set the wall clock (SNTP): call right after Time.set. A first
// setting makes it trusted; a later one is a correction.
export function clockSynced(): void {
  if (wallSource() < VALID_AFTER_MS) return;
  if (!trusted) {
    pendingTrust = true;
    request();
  } else poll();
}

// A listener for trust and corrections (until the next boot); returns its removal.
export function onTrust(l: Listener): () => void {
  listeners.push(l);
  return () => {
    const i = listeners.indexOf(l);
    if (i >= 0) listeners.splice(i, 1);
  };
}

// The platform's sources: the wall clock, the ticks (default: the wall
// clock's own count) and whether the RTC was set by the network since power on. The clock
// is then booted afresh, trusted if the platform says it was set or (without
// a word) if the wall clock reads a valid time.
export function setTimeSource(wallFn: () => number, ticksFn?: () => number, isSet?: () => boolean): void {
  wallSource = wallFn;
  ticksSource = ticksFn ?? wallFn; // none given: the wall clock's own count (a setting is then seen from 1970 only)
  platformSet = isSet;
  bootClock(0);
}

// Wall time for device code. On the device Date.now() is the RTC, set once the
// network has synced it; before that it counts from 1970. The host simulator
// drives this source from its virtual clock instead of patching globals.

let source: () => number = () => Date.now();

// Anything before 2024-01-01 means the clock was never set.
export const VALID_AFTER_MS = 1704067200000;

export function now(): number {
  return source();
}

export function isValid(): boolean {
  return source() >= VALID_AFTER_MS;
}

export function setTimeSource(fn: () => number): void {
  source = fn;
}

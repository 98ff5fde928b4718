// The clock's floor on flash (docs/FORMAT.md §2.8): the latest trusted wall
// time the memory saw, in whole minutes since 1970 (rounded down, so it never
// claims a time that was not seen), as one NVS integer: namespace `petmem`,
// key `clk.t`. It is what an unset clock's estimate starts from
// (src/time/clock.ts) and what tells a clock behind it. Written when the
// clock becomes trusted, then at most once every FLOOR_STEP_MS while the
// device runs, and at a clean stop: one 32-byte NVS entry, about 24 writes a
// day. A failed read or write costs the estimate's quality, never a boot.

import Preference from "preference";
import { trustedFloor } from "./clock";

export const FLOOR_DOMAIN = "petmem";
export const FLOOR_KEY = "clk.t";
export const FLOOR_STEP_MS = 3600000;
// While a boot runs without a trusted clock: where its estimate began (whole
// minutes, rounded down), so that a later boot that gets trusted time moves
// those records too; deleted once the clock is trusted.
export const UNTRUSTED_KEY = "clk.u";

let saved = 0; // ms, as last read or written

export function readFloor(): number {
  try {
    const v = Preference.get(FLOOR_DOMAIN, FLOOR_KEY);
    saved = typeof v === "number" && v > 0 ? v * 60000 : 0;
  } catch (e) {
    if (e instanceof Error && e.name === "PowerCut") throw e;
    saved = 0;
  }
  return saved;
}

// Writes the floor when it moved by a step (or `force`: any minute). Returns whether it wrote.
export function saveFloor(force = false): boolean {
  const f = trustedFloor();
  if (!f || f - saved < (force ? 60000 : FLOOR_STEP_MS)) return false;
  try {
    Preference.set(FLOOR_DOMAIN, FLOOR_KEY, Math.floor(f / 60000));
    saved = Math.floor(f / 60000) * 60000;
    return true;
  } catch (e) {
    if (e instanceof Error && e.name === "PowerCut") throw e;
    return false;
  }
}

export function readUntrusted(): number {
  try {
    const v = Preference.get(FLOOR_DOMAIN, UNTRUSTED_KEY);
    return typeof v === "number" && v > 0 ? v * 60000 : 0;
  } catch (e) {
    if (e instanceof Error && e.name === "PowerCut") throw e;
    return 0;
  }
}

// Marks (ms > 0) or clears (0) records dated by an estimate on flash.
export function saveUntrusted(ms: number): void {
  try {
    if (ms > 0) Preference.set(FLOOR_DOMAIN, UNTRUSTED_KEY, Math.floor(ms / 60000));
    else Preference.delete(FLOOR_DOMAIN, UNTRUSTED_KEY);
  } catch (e) {
    if (e instanceof Error && e.name === "PowerCut") throw e;
  }
}

export function savedFloor(): number {
  return saved;
}

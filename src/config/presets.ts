// Presets (seed 004's ConfigPresets: minimal, balanced, full_featured) and the
// device's small config store. A preset selects how much the device keeps and
// recalls: the conversation window (seed 004's working memory, in rounds), the
// episode cap (seed 004's 20/50/100 episodes scaled to seed 001's 800) and how
// many episodes a recall returns. docs/DESIGN.md "Presets".
//
// The preset in force: the one the owner chose with action=config (the
// `config` store, docs/FORMAT.md §2.3), else the build's (`preset` in the
// manifest's config, read through mc/config), else balanced.

import config from "mc/config";
import type { Memory } from "../memory/memory";
import { PRESETS, type PresetName, type ConfigRecord } from "../memory/types";
import { DEFAULT_UTC_OFFSET_MINUTES, setUtcOffset } from "../time/local";

export { PRESETS, type PresetName };

export interface Preset {
  name: PresetName;
  rounds: number; // conversation window: the last N rounds in RAM (src/listen/window.ts)
  episodeCap: number; // active episodes at most (src/episode)
  recall: number; // episodes a recall or context returns
}

export const PRESET_TABLE: Readonly<Record<PresetName, Preset>> = Object.freeze({
  minimal: Object.freeze({ name: "minimal", rounds: 5, episodeCap: 160, recall: 1 } as Preset),
  balanced: Object.freeze({ name: "balanced", rounds: 10, episodeCap: 400, recall: 3 } as Preset),
  full: Object.freeze({ name: "full", rounds: 15, episodeCap: 800, recall: 5 } as Preset),
});

export const DEFAULT_PRESET: PresetName = "balanced";

function isPreset(v: unknown): v is PresetName {
  return typeof v === "string" && (PRESETS as readonly string[]).indexOf(v) >= 0;
}

// The build's preset: `preset` in the app's config (mc/config), when it names
// one; else balanced. A wrong name is traced once and ignored.
let warned = false;
export function buildPreset(cfg: unknown = config): PresetName {
  const v = cfg && typeof cfg === "object" ? (cfg as Record<string, unknown>).preset : undefined;
  if (v === undefined) return DEFAULT_PRESET;
  if (isPreset(v)) return v;
  if (!warned) trace(`petmem: config preset "${String(v)}" is not one of ${PRESETS.join(", ")}; using ${DEFAULT_PRESET}\n`);
  warned = true;
  return DEFAULT_PRESET;
}

// The stored config, or the defaults when the owner never set one.
export function configOf(memory: Memory): ConfigRecord & { stored: boolean } {
  const r = memory.stores.config.all()[0];
  if (r) return { preset: r.preset, utcOffset: r.utcOffset, stored: true };
  return { preset: buildPreset(), utcOffset: DEFAULT_UTC_OFFSET_MINUTES, stored: false };
}

// The preset in force. The integrator wires episodeCap and recall into the
// episodes (src/episode); the listener reads rounds at each conversation's
// start. Cheap: the config store lives in RAM.
export function presetOf(memory: Memory): Preset {
  return PRESET_TABLE[configOf(memory).preset];
}

// Sets the preset (RAM; the caller's commit writes the config store). Throws
// a RangeError naming the choices for anything else, and changes nothing.
// Returns the preset before.
export function setPreset(memory: Memory, name: unknown): PresetName {
  if (!isPreset(name)) throw new RangeError(`preset must be one of ${PRESETS.join(", ")}`);
  const c = configOf(memory);
  if (c.preset === name) return name; // already in force: nothing written
  memory.stores.config.set([{ preset: name, utcOffset: c.utcOffset }]);
  return c.preset;
}

// The preset as replies show it (status, action=config).
export function presetView(p: Preset): { name: PresetName; window_rounds: number; episode_cap: number; recall: number } {
  return { name: p.name, window_rounds: p.rounds, episode_cap: p.episodeCap, recall: p.recall };
}

// The device's UTC offset (src/time/local.ts has no time zone database): the
// stored one is put in force at boot (src/app/boot.ts), so reminders and dates
// follow the owner's zone on the device as on the desktop. Sets it (RAM and
// the clock; the caller's commit writes the config store) and returns the one
// before. Throws a RangeError for anything but whole minutes from -12:00 to
// +14:00, and changes nothing.
export function setTimeZone(memory: Memory, minutes: number): number {
  if (!Number.isInteger(minutes) || minutes < -720 || minutes > 840) throw new RangeError("utc offset must be whole minutes from -720 to 840");
  const c = configOf(memory);
  if (!c.stored || c.utcOffset !== minutes) memory.stores.config.set([{ preset: c.preset, utcOffset: minutes }]);
  setUtcOffset(minutes);
  return c.utcOffset;
}

// At boot: the stored offset, if the owner ever set one; else the clock keeps
// the build's default (+08:00).
export function applyTimeZone(memory: Memory): void {
  const c = configOf(memory);
  if (c.stored) setUtcOffset(c.utcOffset);
}

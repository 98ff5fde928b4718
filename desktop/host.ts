// A pet on the desktop: one simulated device (host-sim) whose flash lives in
// a data folder (desktop/persist.ts), locked to this process, booted with the
// device's own boot sequence (src/app/boot.ts). Every command that works on a
// data folder opens it here, so they all see the same device.

import fs from "node:fs";
import path from "node:path";
import { SimDevice } from "../host-sim/device.js";
import "../host-sim/trace.js";
import { persist } from "./persist.js";
import { lockDataFolder, type Lock } from "./lock.js";
import { finishSwap } from "./swap.js";
import { Failure, UsageError } from "./command.js";
import { bootDevice, type Booted } from "../src/app/boot.js";
import type { Service } from "../src/app/service.js";
import { configOf, setTimeZone } from "../src/config/presets.js";
import { utcOffset, parseOffset, formatOffset, formatDateTime } from "../src/time/local.js";
import { VALID_AFTER_MS, JUMP_MS } from "../src/time/clock.js";
import { Memory } from "../src/memory/memory.js";

export interface OpenOptions {
  data: string;
  command: string; // named in the lock, for a second process's message
  now?: number; // device wall time at start (ms since the epoch); default: the real clock
  nowText?: string; // --now without a zone: read again in the data folder's zone (overrides now)
  tz?: number; // UTC offset in minutes to keep in the device's configuration
  mustExist?: boolean; // refuse a folder that holds no device yet
}

export interface Host {
  dir: string;
  dev: SimDevice;
  booted: Booted;
  service: Service;
  lock: Lock;
  close(): void; // flushes, stops the device's timers, releases the lock
}

// ±HH:MM (or ±HHMM, Z) to minutes, as the device reads action=config's tz
// (src/time/local.ts parseOffset); a usage error names the right shape.
export function parseTz(v: string): number {
  if (!/^(?:[zZ]|[+-]\d{1,2}:?\d\d)$/.test(v)) throw new UsageError(`--tz: expected ±HH:MM such as +08:00 or -05:00, got ${JSON.stringify(v)}`);
  const minutes = parseOffset(v);
  if (minutes === undefined) throw new UsageError(`--tz: ${v} is not a UTC offset (from -12:00 to +14:00)`);
  return minutes;
}

// This machine's offset now.
export function machineTz(): number {
  return -new Date().getTimezoneOffset();
}

// Whether a date names its zone (Z or ±HH:MM at its end).
export function hasZone(v: string): boolean {
  return /[zZ]|[+-]\d\d:?\d\d$/.test(v);
}

// A date with a zone as given, without one in the offset `tz`; NaN if it is none.
export function dateIn(v: string, tz: number): number {
  return Date.parse(hasZone(v) ? v : v + formatOffset(tz));
}

// A date for --now (see dateIn), written as YYYY-MM-DD…
export function parseNow(v: string, tz: number): number {
  const t = dateIn(v, tz);
  if (Number.isNaN(t) || !/^\d{4}-\d\d-\d\d/.test(v)) throw new UsageError(`--now: expected a date such as 2026-02-05T13:00, got ${JSON.stringify(v)}`);
  return t;
}

// Does the folder hold a device (a data folder written by petmem)?
export function hasDevice(dir: string): boolean {
  return fs.existsSync(path.join(dir, "nvs.bin")) || fs.existsSync(path.join(dir, "nvs.json"));
}

export function checkDataDir(data: string, mustExist = false): string {
  const dir = path.resolve(data);
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new Failure(`--data ${data}: not a folder`);
  if (mustExist && !hasDevice(dir)) throw new Failure(`--data ${data}: no pet's memory there (no nvs.bin); start one with \`petmem --data ${data}\``);
  return dir;
}

export function openHost(o: OpenOptions): Host {
  const dir = checkDataDir(o.data, o.mustExist);
  const lock = lockDataFolder(dir, o.command);
  try {
    const swapped = finishSwap(dir); // an import a cut interrupted (desktop/swap.ts)
    if (swapped) trace(`petmem: ${swapped}\n`);
    const dev = new SimDevice({ now: o.now ?? Date.now() }).install();
    try {
      persist(dev, dir);
    } catch (e) {
      throw new Failure(`${dir}: the data folder cannot be used: ${(e as Error).message} (\`petmem reset --data ${o.data}\` erases it)`);
    }
    // --now without a zone: in the folder's zone (a new folder: this machine's)
    if (o.nowText !== undefined) {
      let zone = machineTz();
      try {
        const c = configOf(new Memory());
        if (c.stored) zone = c.utcOffset;
      } catch {
        // an unreadable configuration: the machine's zone, and boot reports it
      }
      dev.clock.now = parseNow(o.nowText, zone);
    }
    // a clock before 2024 (--now 1970-01-01T00:00): a pet whose RTC the network has not set
    if (dev.clock.now < VALID_AFTER_MS) dev.clock.unsetWall(dev.clock.now);
    const booted = bootDevice();
    const service = booted.service;
    trace(`petmem: ${booted.line}\n`);
    const at = service.clockAtBoot;
    if (at.trusted && at.floor && at.wall < at.floor - JUMP_MS)
      trace(`petmem: the clock (${formatDateTime(at.wall)}) is earlier than the last trusted time this data folder saw (${formatDateTime(at.floor)}); nothing is forgotten, purged or expired for it and what is written is dated by it\n`);
    else if (!at.trusted) trace(`petmem: the clock is not set (it reads ${new Date(at.wall).toISOString()}): memory waits for a set clock to forget, purge, expire, archive or remind, and dates what it writes from the last trusted time\n`);
    // the zone: the one asked for; a device that never stored one takes this
    // machine's; else the device's own (setTimeZone writes only a change)
    const want = o.tz ?? (configOf(service.memory).stored ? undefined : machineTz());
    if (want !== undefined) {
      setTimeZone(service.memory, want);
      service.flush();
    }
    let closed = false;
    return {
      dir,
      dev,
      booted,
      service,
      lock,
      close() {
        if (closed) return;
        closed = true;
        try {
          service.stop();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

export function currentTz(): string {
  return formatOffset(utcOffset());
}

// The partitions' use (NVS and the storage partition), as status, the page
// and the boot line of serve and web show it.
export function partitions(host: Host) {
  const n = host.dev.nvs.stats();
  const s = host.dev.spiffs.stats();
  return {
    data: host.dir,
    nvs: { partition_bytes: host.dev.nvs.bytes, used_bytes: n.liveBytes, percent: n.percent, namespaces: n.namespaces, erased_entries: n.erasedEntries },
    storage: { partition_bytes: s.total, used_bytes: s.used, usable_bytes: s.usable, percent: s.percent, files: s.files },
  };
}

export function partitionsLine(host: Host): string {
  return JSON.stringify({ partitions: partitions(host) });
}

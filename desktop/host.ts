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
import { utcOffset } from "../src/time/local.js";

export interface OpenOptions {
  data: string;
  command: string; // named in the lock, for a second process's message
  now?: number; // device wall time at start (ms since the epoch); default: the real clock
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

// ±HH:MM (or ±HHMM, Z) to minutes; a usage error names the right shape.
export function parseTz(v: string): number {
  if (v === "Z" || v === "z") return 0;
  const m = /^([+-])(\d{1,2}):?(\d{2})$/.exec(v);
  if (!m) throw new UsageError(`--tz: expected ±HH:MM such as +08:00 or -05:00, got ${JSON.stringify(v)}`);
  const minutes = (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  if (Number(m[3]) >= 60 || minutes < -720 || minutes > 840) throw new UsageError(`--tz: ${v} is not a UTC offset (from -12:00 to +14:00)`);
  return minutes;
}

export function formatTz(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
}

// This machine's offset now.
export function machineTz(): number {
  return -new Date().getTimezoneOffset();
}

// A date for --now: with a zone as given, without one in the offset `tz`.
export function parseNow(v: string, tz: number): number {
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : v + formatTz(tz));
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
    const fresh = !hasDevice(dir);
    const dev = new SimDevice({ now: o.now ?? Date.now() }).install();
    try {
      persist(dev, dir);
    } catch (e) {
      throw new Failure(`${dir}: the data folder cannot be used: ${(e as Error).message} (\`petmem reset --data ${o.data}\` erases it)`);
    }
    const booted = bootDevice();
    const service = booted.service;
    trace(`petmem: ${booted.line}\n`);
    // the zone: the one asked for; a new device takes this machine's; else the device's own
    const want = o.tz ?? (fresh || !configOf(service.memory).stored ? machineTz() : undefined);
    if (want !== undefined && (!configOf(service.memory).stored || configOf(service.memory).utcOffset !== want)) {
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
  return formatTz(utcOffset());
}

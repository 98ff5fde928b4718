// One simulated device: a flash chip with its NVS and SPIFFS partitions and a
// clock. The Moddable-named modules in host-sim (preference, file, timer) are
// static facades over the device that is currently installed, as the real
// modules are over the one chip they run on.

import { Flash, PowerCut, type Tear } from "./flash.js";
import { Nvs } from "./nvs.js";
import { Spiffs } from "./spiffs.js";
import { VirtualClock } from "./clock.js";
import { FAULT_KINDS, NVS_FAULTS, SPIFFS_FAULTS, type FaultKind, type FaultOptions, type NvsFault, type SpiffsFault } from "./faults.js";
import { setTimeSource, clockSynced } from "../src/time/clock.js";

export interface DeviceOptions {
  nvsBytes?: number;
  storageBytes?: number;
  now?: number; // initial wall time, ms since the epoch
}

let current: SimDevice | undefined;

export class SimDevice {
  readonly flash = new Flash();
  readonly nvs: Nvs;
  readonly spiffs: Spiffs;
  readonly clock: VirtualClock;
  boots = 1;

  constructor(opts: DeviceOptions = {}) {
    this.nvs = new Nvs(this.flash, opts.nvsBytes ?? 48 * 1024);
    this.spiffs = new Spiffs(this.flash, opts.storageBytes ?? 3 * 1024 * 1024);
    this.clock = new VirtualClock(opts.now);
  }

  static get current(): SimDevice {
    if (!current) current = new SimDevice().install();
    return current;
  }

  install(): this {
    current = this;
    setTimeSource(() => this.clock.wall, () => this.clock.now, () => this.clock.wallSet);
    return this;
  }

  // Arms a power cut at the n-th flash write from now.
  cutAfter(n: number, tear?: Tear): void {
    this.flash.cutAfter(n, tear);
  }

  // Injects one fault of the device (host-sim/faults.ts): at-rest faults
  // (bit_flip, nvs_crc) apply now, operation faults arm for a later operation,
  // boot faults (nvs_init_cut, mount_failure) for the next reboot. Returns what
  // was done, for a failure message.
  inject(kind: FaultKind, opts: FaultOptions = {}): string {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new RangeError(`unknown fault ${String(kind)}`);
    if (kind === "clock_jump") {
      // the RTC at the next boot: 1970 (no battery) or the stale time of the power loss
      const stale = (opts.seed ?? 0) % 2 === 0;
      this.clock.unsetWall(stale ? this.clock.wall : 5000);
      return stale ? "clock stale at boot" : "clock at 1970 at boot";
    }
    if (kind === "power_cut") {
      this.spiffs.tearSeed = opts.seed;
      this.cutAfter(opts.at ?? 1);
      return `power cut at write ${opts.at ?? 1}`;
    }
    const onNvs = (kind === "bit_flip" || kind === "full") ? (opts.partition ?? "nvs") === "nvs" : (NVS_FAULTS as readonly string[]).includes(kind);
    if (onNvs) return this.nvs.inject(kind as NvsFault, opts);
    if ((SPIFFS_FAULTS as readonly string[]).includes(kind)) return this.spiffs.inject(kind as SpiffsFault, opts);
    throw new RangeError(`fault ${kind} is not modelled`);
  }

  // The network sets the wall clock (SNTP, then Time.set; the firmware then
  // calls the clock's clockSynced()).
  setWall(ms: number): void {
    this.clock.setWall(ms);
    clockSynced();
  }

  // Power comes back: what is on flash stays, everything in RAM is gone. Device
  // code must be booted again by the caller (new instances of its stores).
  reboot(): void {
    this.flash.powerOn();
    this.nvs.recover();
    this.spiffs.mount();
    this.clock.reset();
    this.boots++;
  }

  // Runs fn; a PowerCut inside it is caught and reported instead of thrown.
  static survive(fn: () => void): boolean {
    try {
      fn();
      return false;
    } catch (e) {
      if (e instanceof PowerCut) return true;
      throw e;
    }
  }
}

export { PowerCut };

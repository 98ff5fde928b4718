// The faults the device's flash and file system can produce, by the names that
// tests, `npm run powercut` and docs/DESIGN.md use. Each is injectable on a
// SimDevice; how each behaves on the device and in host-sim is in DESIGN.md
// ("Faults").
export const FAULT_KINDS = [
  "power_cut", // power lost at any program or erase; the write in flight is torn anywhere inside it
  "nvs_crc", // an NVS entry whose CRC no longer matches (vanishes at init, or get throws `nvs get fail`)
  "nvs_init_cut", // power lost while nvs_flash_init repairs pages (page erase or state change)
  "spiffs_read_error", // a SPIFFS read call fails
  "spiffs_not_finalized", // a file a cut left not finalized: open or read fails until it is deleted
  "rename_false", // File.rename returns false
  "delete_false", // File.delete returns false
  "open_limit", // more than 5 files open at once
  "full", // NVS or SPIFFS fills during a write
  "bit_flip", // one bit flipped at rest, anywhere in NVS or the storage partition
  "mount_failure", // SPIFFS fails to mount at boot and Moddable formats the partition
  // the states the real SPIFFS library (pellepl/spiffs, ESP-IDF's configuration) leaves when
  // power is lost inside an operation (docs/DESIGN.md, "What the real SPIFFS leaves at a cut"):
  "spiffs_rename_tear", // a cut inside File.rename: both names listed, sharing one object
  "spiffs_header_tear", // a cut while an index header is rewritten (a write open, a create, an append): the name listed twice
  "spiffs_rewrite_tear", // a cut while bytes inside a file are replaced (in place, or "wb+" on an existing file): listed, reads fail
  "clock_jump", // the RTC reads 1970 or a stale time at boot until the network sets it; later corrections forward and back
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultOptions {
  at?: number; // operation faults: the at-th matching operation from now (1, the default, is the next)
  seed?: number; // where exactly (which entry, bit, byte or page), so that a sweep is reproducible
  partition?: "nvs" | "storage"; // bit_flip and full: which partition (default: nvs)
}

// Which module models which kind. power_cut is the flash chip's (SimDevice.cutAfter).
export const NVS_FAULTS = ["nvs_crc", "nvs_init_cut", "full", "bit_flip"] as const;
export const SPIFFS_FAULTS = [
  "spiffs_read_error", "spiffs_not_finalized", "rename_false", "delete_false", "open_limit", "full", "bit_flip", "mount_failure",
  "spiffs_rename_tear", "spiffs_header_tear", "spiffs_rewrite_tear",
] as const;
export type NvsFault = (typeof NVS_FAULTS)[number];
export type SpiffsFault = (typeof SPIFFS_FAULTS)[number];

// Counts down operation faults: a module asks `due(kind)` at each operation the
// kind can hit, and the fault fires on the at-th one.
export class FaultArm<K extends string> {
  private armed = new Map<K, { left: number; opts: FaultOptions }>();

  arm(kind: K, opts: FaultOptions = {}): void {
    const at = opts.at ?? 1;
    if (!(at >= 1)) throw new RangeError("fault needs at >= 1");
    this.armed.set(kind, { left: at, opts });
  }

  due(kind: K): FaultOptions | undefined {
    const a = this.armed.get(kind);
    if (!a) return undefined;
    if (--a.left > 0) return undefined;
    this.armed.delete(kind);
    return a.opts;
  }

  disarm(kind: K): void {
    this.armed.delete(kind);
  }

  isArmed(kind: K): boolean {
    return this.armed.has(kind);
  }

  clear(): void {
    this.armed.clear();
  }
}

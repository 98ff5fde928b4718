// A pet's flash, read from images, by the device's own code: the NVS image
// and the SPIFFS storage image are loaded into a simulated device in RAM
// (nothing is written anywhere), the device boots on them (src/app/boot.ts),
// and its memory is read back through the memory tool and the archive. Every
// damage found on the way is reported: NVS pages and entries (desktop/image/nvs.ts),
// SPIFFS pages and files (desktop/image/spiffs.ts), and the device's boot line.

import { SimDevice } from "../../host-sim/device.js";
import "../../host-sim/trace.js";
import { setTraceSink } from "../../host-sim/trace-sink.js";
import { bootDevice } from "../../src/app/boot.js";
import { loadNvs, type NvsReport } from "./nvs.js";
import { readSpiffs, type SpiffsRead } from "./spiffs.js";
import { NVS_BYTES, STORAGE_BYTES } from "./boards.js";

// A file that is not an image of the right size or kind (exit 1, one line).
export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, "name", { value: "ImageError", configurable: true, writable: true });
  }
}

export interface ArchiveMonth {
  month: string; // YYYY-MM
  fact: number;
  moment: number;
  event: number;
}

export interface SpiffsSummary {
  format: SpiffsRead["format"];
  mountable: boolean;
  files: { name: string; bytes: number }[];
  unreadable: { name: string; size: number; readable: number; reason: string }[];
  damage: SpiffsRead["damage"];
  leftovers: SpiffsRead["leftovers"];
  stats: SpiffsRead["stats"];
  loaded: boolean; // false: the device would format the partition, so it booted on an empty one
}

export interface Inspection {
  nvs: NvsReport;
  storage?: SpiffsSummary;
  booted: boolean; // false: nvs_flash_init failed, the device would not boot
  boot?: string; // the device's boot line
  traces: string[]; // what the device traced while booting
  memory?: {
    read: unknown; // the tool's action=read
    schedules: unknown; // action=read type=schedule
    status: unknown; // action=status (counts, this boot's repairs, episodes)
    archive?: { counts: Record<string, number>; months: ArchiveMonth[]; records: Record<string, unknown[]> };
  };
}

export interface InspectOptions {
  now?: number; // the device clock (default: the real clock)
  records?: boolean; // include every archived record (for a comparison)
  names?: { nvs?: string; storage?: string }; // the files, for messages
}

function checkSize(what: string, nvs: boolean, bytes: Uint8Array): void {
  const want = nvs ? NVS_BYTES : STORAGE_BYTES;
  if (bytes.length === want) return;
  const hint = bytes.length === (nvs ? STORAGE_BYTES : NVS_BYTES) ? ` (the size of ${nvs ? "a storage" : "an NVS"} image: NVS.bin comes first)` : "";
  throw new ImageError(`${what}: ${bytes.length} bytes${hint}; ${nvs ? "an NVS partition image is 49152 bytes (esptool.py read_flash 0x9000 0xC000)" : "a storage partition image is 3145728 bytes (esptool.py read_flash <storage offset> 0x300000)"}`);
}

export function inspectImages(nvsBytes: Uint8Array, storageBytes: Uint8Array | undefined, opts: InspectOptions = {}): Inspection {
  const nvsName = opts.names?.nvs ?? "NVS image";
  const storageName = opts.names?.storage ?? "storage image";
  checkSize(nvsName, true, nvsBytes);
  if (storageBytes) checkSize(storageName, false, storageBytes);
  const sp = storageBytes ? readSpiffs(storageBytes) : undefined;
  if (sp && sp.format === "unknown") throw new ImageError(`${storageName}: not a SPIFFS partition (no block carries SPIFFS's magic for 256-byte pages on 3 MB)`);

  const dev = new SimDevice({ now: opts.now ?? Date.now() }).install();
  const nvs = loadNvs(dev.nvs, nvsBytes);
  if (nvs.format === "unknown") throw new ImageError(`${nvsName}: not an NVS partition (no page has a valid NVS header)`);
  const result: Inspection = { nvs, booted: false, traces: [] };
  if (sp) {
    const loaded = sp.mountable;
    result.storage = {
      format: sp.format,
      mountable: sp.mountable,
      files: sp.files.map((f) => ({ name: f.name, bytes: f.bytes.length })),
      unreadable: sp.unreadable.map((u) => ({ name: u.name, size: u.size, readable: u.readable.length, reason: u.reason })),
      damage: sp.damage,
      leftovers: sp.leftovers,
      stats: sp.stats,
      loaded,
    };
    if (loaded) {
      for (const f of sp.files) dev.spiffs.load(f.name, f.bytes);
      // found by name but not readable whole: present to the device, and every
      // open of it fails (host-sim's not-finalized state), as a read would there
      for (const u of sp.unreadable) {
        const b = new Uint8Array(u.size).fill(0xff);
        b.set(u.readable);
        dev.spiffs.load(u.name, b);
        dev.spiffs.notFinalized.add(u.name);
      }
    }
  }
  if (nvs.initError) return result; // the device stops at nvs_flash_init

  const traces: string[] = [];
  setTraceSink((t) => traces.push(t.replace(/\n$/, "")));
  try {
    const booted = bootDevice();
    result.booted = true;
    result.boot = booted.line;
    try {
      const tool = booted.service.tool;
      const call = (args: Record<string, unknown>) => JSON.parse(tool.call(args)) as unknown;
      const memory: NonNullable<Inspection["memory"]> = { read: call({ action: "read" }), schedules: call({ action: "read", type: "schedule" }), status: call({ action: "status" }) };
      const a = booted.archive;
      if (a) {
        const months = new Map<string, ArchiveMonth>();
        const records: Record<string, unknown[]> = {};
        const counts: Record<string, number> = {};
        for (const type of ["fact", "moment", "event"] as const) {
          const list: unknown[] = [];
          counts[type] = a.forEach(type, (item) => {
            const month = item.timestamp.slice(0, 7);
            let m = months.get(month);
            if (!m) months.set(month, (m = { month, fact: 0, moment: 0, event: 0 }));
            m[type]++;
            if (opts.records) list.push(item);
          });
          if (opts.records) records[type] = list;
        }
        memory.archive = { counts, months: [...months.values()].sort((x, y) => (x.month < y.month ? -1 : 1)), records };
      }
      result.memory = memory;
    } finally {
      booted.service.stop();
      booted.maintenance?.stop();
    }
  } finally {
    setTraceSink((s) => process.stderr.write(s));
    result.traces = traces;
  }
  return result;
}

// Keeps a simulated device's flash in a folder on the host, so `npm start`
// remembers across restarts:
//   DIR/nvs.bin         the NVS partition, byte for byte (48 KB, ESP-IDF's format):
//                       `esptool.py read_flash 0x9000 0xC000 nvs.bin` from a real pet
//                       runs here, and `esptool.py write_flash 0x9000 nvs.bin` puts
//                       this one on a pet (docs/FORMAT.md §2.7)
//   DIR/storage/NAME    one host file per SPIFFS object, NAME percent-encoded
// Every program or erase is written through to the host file before the device
// sees it complete. A folder from before nvs.bin (DIR/nvs.json, the old page
// model's snapshot) is converted once: its live items are replayed into a fresh
// image and nvs.json is renamed to nvs.json.converted.

import fs from "node:fs";
import path from "node:path";
import type { SimDevice } from "../host-sim/device.js";
import type { NvsType } from "../host-sim/nvs.js";

function hostName(object: string): string {
  return encodeURIComponent(object.slice(1));
}

function writeAtomic(file: string, data: Uint8Array): void {
  const tmp = file + ".tmp";
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

// ---- the old nvs.json (host-sim's page model before nvs.bin) ----

interface LegacyItem {
  id: number;
  ns: number;
  key: string;
  kind: "ns" | "u8" | "i32" | "str" | "blob_data" | "blob_idx";
  value: number | { b64: string };
  chunk: number;
  size: number;
  complete: boolean;
}

export interface LegacyValue {
  namespace: string;
  key: string;
  type: NvsType;
  value: number | string | Uint8Array;
  id: number;
}

function bytesOf(v: LegacyItem["value"]): Uint8Array {
  return typeof v === "number" ? new Uint8Array(0) : new Uint8Array(Buffer.from(v.b64, "base64"));
}

// The values the old model served: per namespace and key, the newest complete
// u8, i32, string or blob index (a blob with every chunk it counts, each older
// than the index), in the order they were written.
export function legacyValues(snap: unknown): LegacyValue[] {
  const s = snap as { pages?: { items?: LegacyItem[] }[] };
  if (!s || !Array.isArray(s.pages)) throw new Error("nvs.json: not a host-sim NVS snapshot");
  const items: LegacyItem[] = [];
  for (const p of s.pages) for (const it of p.items ?? []) if (it && it.complete) items.push(it);
  const nsName = new Map<number, { name: string; id: number }>();
  for (const it of items)
    if (it.kind === "ns" && typeof it.value === "number" && (nsName.get(it.value)?.id ?? -1) < it.id) nsName.set(it.value, { name: it.key, id: it.id });
  const byKey = new Map<string, LegacyItem[]>();
  for (const it of items) {
    if (it.kind === "ns" || it.kind === "blob_data" || !nsName.has(it.ns)) continue;
    const k = `${it.ns}\u0000${it.key}`;
    const list = byKey.get(k) ?? [];
    list.push(it);
    byKey.set(k, list);
  }
  const out: LegacyValue[] = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => b.id - a.id);
    for (const it of list) {
      const namespace = nsName.get(it.ns)!.name;
      if (it.kind === "u8" || it.kind === "i32") {
        out.push({ namespace, key: it.key, type: it.kind, value: it.value as number, id: it.id });
        break;
      }
      if (it.kind === "str") {
        out.push({ namespace, key: it.key, type: "str", value: new TextDecoder().decode(bytesOf(it.value)), id: it.id });
        break;
      }
      // blob_idx: chunk count in `chunk`, total size in `size`
      const chunks: Uint8Array[] = [];
      for (let c = 0; c < it.chunk; c++) {
        let best: LegacyItem | undefined;
        for (const d of items)
          if (d.kind === "blob_data" && d.ns === it.ns && d.key === it.key && d.chunk === c && d.id < it.id && (!best || d.id > best.id)) best = d;
        if (!best) break;
        chunks.push(bytesOf(best.value));
      }
      const total = chunks.reduce((n, c) => n + c.length, 0);
      if (chunks.length !== it.chunk || total !== it.size) continue; // incomplete: the old model did not serve it either
      const value = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        value.set(c, at);
        at += c.length;
      }
      out.push({ namespace, key: it.key, type: "blob", value, id: it.id });
      break;
    }
  }
  return out.sort((a, b) => a.id - b.id);
}

// Replays an old snapshot's values into the device's (fresh) NVS.
export function convertLegacy(dev: SimDevice, snap: unknown): number {
  const values = legacyValues(snap);
  for (const v of values) dev.nvs.set(v.namespace, v.key, v.type, v.value);
  return values.length;
}

export function persist(dev: SimDevice, dir: string): void {
  const storage = path.join(dir, "storage");
  fs.mkdirSync(storage, { recursive: true });
  const nvsBin = path.join(dir, "nvs.bin");
  const nvsJson = path.join(dir, "nvs.json");
  if (fs.existsSync(nvsBin)) {
    const bytes = new Uint8Array(fs.readFileSync(nvsBin));
    if (bytes.length !== dev.nvs.image.length)
      throw new Error(`${nvsBin}: ${bytes.length} bytes; an NVS partition image must be exactly ${dev.nvs.image.length} bytes (esptool.py read_flash 0x9000 0xC000)`);
    dev.nvs.load(bytes); // nvs_flash_init: throws, as the device fails to boot, on a partition it cannot use
    // what init repaired (a torn write, an unfinished garbage collection) is on flash now
    if (Buffer.compare(Buffer.from(bytes), Buffer.from(dev.nvs.image)) !== 0) writeAtomic(nvsBin, dev.nvs.image);
  } else if (fs.existsSync(nvsJson)) {
    const n = convertLegacy(dev, JSON.parse(fs.readFileSync(nvsJson, "utf8")));
    writeAtomic(nvsBin, dev.nvs.image);
    trace(`petmem: converted ${nvsJson} (${n} values) to ${nvsBin}\n`);
  } else writeAtomic(nvsBin, dev.nvs.image);
  // once nvs.bin holds the values, the old snapshot is kept aside, never read again
  if (fs.existsSync(nvsJson)) fs.renameSync(nvsJson, nvsJson + ".converted");

  for (const f of fs.readdirSync(storage)) {
    if (f.endsWith(".tmp")) continue;
    dev.spiffs.load("/" + decodeURIComponent(f), new Uint8Array(fs.readFileSync(path.join(storage, f))));
  }
  const at = (name: string) => path.join(storage, hostName(name));
  dev.spiffs.listener = {
    create: (name) => fs.writeFileSync(at(name), new Uint8Array(0)),
    write: (name, offset, bytes) => {
      const fd = fs.openSync(at(name), "r+");
      try {
        fs.writeSync(fd, bytes, 0, bytes.length, offset);
      } finally {
        fs.closeSync(fd);
      }
    },
    truncate: (name, length) => fs.truncateSync(at(name), length),
    remove: (name) => fs.rmSync(at(name), { force: true }),
    rename: (from, to) => fs.renameSync(at(from), at(to)),
  };
  // NVS: the bytes an operation touched go to the same offsets of nvs.bin
  dev.flash.onChange = (partition, offset, length) => {
    if (partition !== dev.nvs.partition) return;
    const image = dev.nvs.image;
    if (offset === undefined || length === undefined) return writeAtomic(nvsBin, image);
    const fd = fs.openSync(nvsBin, "r+");
    try {
      fs.writeSync(fd, image, offset, length, offset);
    } finally {
      fs.closeSync(fd);
    }
  };
}

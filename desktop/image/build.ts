// The two images a pet's flash needs, from a data folder as desktop/persist.ts
// keeps it (DIR/nvs.bin, the NVS partition byte for byte; DIR/storage/NAME,
// one host file per SPIFFS object, NAME percent-encoded): the NVS image as it
// is, and the files laid out as ESP-IDF's spiffsgen.py would
// (desktop/image/spiffs.ts). Nothing in the folder changes.

import fs from "node:fs";
import path from "node:path";
import { Flash } from "../../host-sim/flash.js";
import { Nvs, NvsError } from "../../host-sim/nvs.js";
import { writeSpiffs, spiffsPages, SpiffsImageError, type ImageFile } from "./spiffs.js";
import { NVS_BYTES, STORAGE_BYTES } from "./boards.js";

export interface Images {
  nvs: Uint8Array;
  storage: Uint8Array;
  files: number;
  fileBytes: number;
  pages: number; // SPIFFS pages the files take
  capacity: number; // SPIFFS pages of the partition (not counting lookup pages)
}

// What the folder holds. Throws SpiffsImageError (one line) when it cannot be imaged.
export function readDataFolder(dir: string): { nvs: Uint8Array; files: ImageFile[] } {
  const nvsBin = path.join(dir, "nvs.bin");
  if (!fs.existsSync(nvsBin)) {
    if (fs.existsSync(path.join(dir, "nvs.json"))) throw new SpiffsImageError(`${dir} is a data folder of an older petmem (nvs.json): open it once (petmem status --data ${dir}) to convert it`);
    throw new SpiffsImageError(`${dir}: no nvs.bin`);
  }
  const nvs = new Uint8Array(fs.readFileSync(nvsBin));
  if (nvs.length !== NVS_BYTES) throw new SpiffsImageError(`${nvsBin}: ${nvs.length} bytes, not the NVS partition's ${NVS_BYTES}`);
  try {
    new Nvs(new Flash(), NVS_BYTES).load(nvs); // a copy: what a pet's nvs_flash_init would do with it
  } catch (e) {
    if (e instanceof NvsError) throw new SpiffsImageError(`${nvsBin}: nvs_flash_init fails on it (${e.code}): a pet would not boot with it`);
    throw e;
  }
  const storage = path.join(dir, "storage");
  const names = fs.existsSync(storage) ? fs.readdirSync(storage).filter((f) => !f.endsWith(".tmp")) : [];
  const files: ImageFile[] = names
    .map((f) => ({ name: "/" + decodeURIComponent(f), bytes: new Uint8Array(fs.readFileSync(path.join(storage, f))) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { nvs, files };
}

export function buildImages(nvs: Uint8Array, files: readonly ImageFile[]): Images {
  const { pages, capacity } = spiffsPages(files, STORAGE_BYTES);
  if (pages > capacity) throw new SpiffsImageError(`the files take ${pages} SPIFFS pages; the partition has ${capacity}`);
  const storage = writeSpiffs(files, STORAGE_BYTES);
  return { nvs: nvs.slice(), storage, files: files.length, fileBytes: files.reduce((n, f) => n + f.bytes.length, 0), pages, capacity };
}

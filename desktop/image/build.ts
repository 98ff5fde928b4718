// The two images a pet's flash needs, from a simulated device (a data folder
// opened by desktop/host.ts): its NVS partition byte for byte, and its SPIFFS
// files laid out as ESP-IDF's spiffsgen.py would (desktop/image/spiffs.ts).

import type { SimDevice } from "../../host-sim/device.js";
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

export function buildImages(dev: SimDevice): Images {
  const nvs = dev.nvs.image.slice();
  if (nvs.length !== NVS_BYTES) throw new SpiffsImageError(`the device's NVS partition is ${nvs.length} bytes, not ${NVS_BYTES}`);
  const files: ImageFile[] = dev.spiffs
    .list()
    .map((f) => f.name)
    .sort()
    .map((name) => ({ name, bytes: dev.spiffs.content(name) }));
  const { pages, capacity } = spiffsPages(files, STORAGE_BYTES);
  if (pages > capacity) throw new SpiffsImageError(`the files take ${pages} SPIFFS pages; the partition has ${capacity}`);
  const storage = writeSpiffs(files, STORAGE_BYTES);
  return { nvs, storage, files: files.length, fileBytes: files.reduce((n, f) => n + f.bytes.length, 0), pages, capacity };
}

// The boards petmem builds for and where their partitions are: read from the
// same partition tables the firmware is built with (partitions/*.csv, the
// manifest's PARTITIONS_FILE), so the offsets printed for esptool are those.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsePartitions, type Partition } from "../partitions.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export const BOARDS = {
  esp32s3: { chip: "esp32s3", table: "esp32s3-16mb.csv" },
  esp32: { chip: "esp32", table: "esp32-8mb.csv" },
} as const;
export type Board = keyof typeof BOARDS;

export const NVS_BYTES = 0xc000; // both tables (test/image.test.ts checks)
export const STORAGE_BYTES = 0x300000;

export interface BoardLayout {
  board: Board;
  chip: string;
  table: string; // path of the CSV
  nvs: Partition;
  storage: Partition;
}

export function boardLayout(board: Board): BoardLayout {
  const b = BOARDS[board];
  const table = path.join(here, "..", "..", "partitions", b.table);
  const parts = parsePartitions(fs.readFileSync(table, "utf8"));
  const nvs = parts.find((p) => p.type === "data" && p.subtype === "nvs");
  // Moddable mounts the first data/spiffs partition (partition_label NULL in modFile.c)
  const storage = parts.find((p) => p.type === "data" && p.subtype === "spiffs");
  if (!nvs || !storage) throw new Error(`${table}: no nvs or spiffs partition`);
  return { board, chip: b.chip, table, nvs, storage };
}

const hex = (n: number) => "0x" + n.toString(16).toUpperCase();

// The command lines that put the images on a pet, and that read them from one.
export function esptoolLines(l: BoardLayout, dir: string): { write: string; read: string[] } {
  const q = (p: string) => (/^[\w./:@+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);
  return {
    write: `esptool.py --chip ${l.chip} write_flash ${hex(l.nvs.offset)} ${q(path.join(dir, "nvs.bin"))} ${hex(l.storage.offset)} ${q(path.join(dir, "storage.bin"))}`,
    read: [
      `esptool.py --chip ${l.chip} read_flash ${hex(l.nvs.offset)} ${hex(l.nvs.size)} nvs.bin`,
      `esptool.py --chip ${l.chip} read_flash ${hex(l.storage.offset)} ${hex(l.storage.size)} storage.bin`,
    ],
  };
}

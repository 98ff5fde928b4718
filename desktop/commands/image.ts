// `petmem image --out DIR`: the pet's flash as the two partition images a real
// pet takes (DIR/nvs.bin, ESP-IDF's NVS format, and DIR/storage.bin, SPIFFS as
// ESP-IDF lays it out), with the esptool command line that flashes them at the
// offsets of the board's partition table (partitions/*.csv).

import fs from "node:fs";
import path from "node:path";
import { DATA, Failure, UsageError, type Command } from "../command.js";
import { checkDataDir } from "../host.js";
import { lockDataFolder } from "../lock.js";
import { buildImages, readDataFolder } from "../image/build.js";
import { BOARDS, boardLayout, esptoolLines, type Board } from "../image/boards.js";
import { SpiffsImageError } from "../image/spiffs.js";

function writeAtomic(file: string, data: Uint8Array): void {
  const tmp = file + ".tmp";
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

const n = (x: number) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

export const image: Command = {
  name: "image",
  summary: "write the pet's flash as nvs.bin and storage.bin, for esptool to flash on a device",
  usage: "image --out DIR [--data DIR] [--board esp32s3|esp32]",
  options: [
    { name: "--out", value: "DIR", help: "the folder to write nvs.bin and storage.bin into (created if missing)" },
    DATA,
    { name: "--board", value: "esp32s3|esp32", help: "the board whose partition table gives the offsets", default: "esp32s3" },
  ],
  details:
    "nvs.bin is the 48 KB NVS partition (ESP-IDF's format), storage.bin the 3 MB SPIFFS\n" +
    "partition laid out as ESP-IDF's spiffsgen.py does (docs/FORMAT.md). `petmem inspect`\n" +
    "reads both back; so does a pet once they are flashed.",
  run(ctx) {
    const out = ctx.opts.out;
    if (typeof out !== "string" || !out) throw new UsageError("image: --out DIR is required: petmem image --out DIR [--data DIR] [--board esp32s3|esp32]");
    const boardOpt = (ctx.opts.board as string | undefined) ?? "esp32s3";
    if (!(boardOpt in BOARDS)) throw new UsageError(`--board: expected esp32s3 or esp32, got ${JSON.stringify(boardOpt)}`);
    const layout = boardLayout(boardOpt as Board);
    const data = (ctx.opts.data as string | undefined) ?? ".petmem";
    const outDir = path.resolve(out);
    if (outDir === path.resolve(data)) throw new UsageError("image: --out must not be the data folder (its nvs.bin would be replaced); give another folder");
    if (fs.existsSync(outDir) && !fs.statSync(outDir).isDirectory()) throw new Failure(`--out ${out}: not a folder`);
    // the folder as it is on disk, under its lock (no other process writes it
    // meanwhile); nothing in it changes
    const dir = checkDataDir(data, true);
    const lock = lockDataFolder(dir, "image");
    let images;
    try {
      const { nvs, files } = readDataFolder(dir);
      images = buildImages(nvs, files);
    } catch (e) {
      if (e instanceof SpiffsImageError) throw new Failure(`image: ${e.message}`);
      throw e;
    } finally {
      lock.release();
    }
    if (images.nvs.length !== layout.nvs.size || images.storage.length !== layout.storage.size)
      throw new Failure(`image: ${layout.table} gives nvs ${layout.nvs.size} and storage ${layout.storage.size} bytes; the images are ${images.nvs.length} and ${images.storage.length}`);
    fs.mkdirSync(outDir, { recursive: true });
    writeAtomic(path.join(outDir, "nvs.bin"), images.nvs);
    writeAtomic(path.join(outDir, "storage.bin"), images.storage);
    const lines = esptoolLines(layout, outDir);
    ctx.out(
      [
        `wrote ${path.join(outDir, "nvs.bin")} (${n(images.nvs.length)} bytes, the NVS partition)`,
        `wrote ${path.join(outDir, "storage.bin")} (${n(images.storage.length)} bytes, SPIFFS: ${images.files} files, ${n(images.fileBytes)} bytes in ${n(images.pages)} of ${n(images.capacity)} pages)`,
        `to flash them on a pet (${layout.board}, ${path.relative(process.cwd(), layout.table) || layout.table}):`,
        `  ${lines.write}`,
        `to read a pet's back: ${lines.read.join(" && ")}; then petmem inspect nvs.bin storage.bin`,
      ].join("\n") + "\n",
    );
  },
};

// `petmem inspect NVS.bin [STORAGE.bin]`: what a pet's flash holds, from the
// images `esptool.py read_flash` takes (or `petmem image` writes). Works on the
// files only, never on a data folder: the images go into a simulated device in
// RAM, the device's own code boots on them, and its memory is printed with
// every damage found (desktop/image/inspect.ts). Exit 0 when the images could
// be read, damaged or not; 1 when a file is not an image of the right size or kind.

import fs from "node:fs";
import { Failure, NOW, type Command } from "../command.js";
import { parseNow, machineTz } from "../host.js";
import { inspectImages, ImageError, type Inspection } from "../image/inspect.js";

function readImage(file: string): Uint8Array {
  try {
    if (!fs.statSync(file).isFile()) throw new Failure(`${file}: not a file`);
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    if (e instanceof Failure) throw e;
    throw new Failure(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

const n = (x: number) => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

export function formatInspection(r: Inspection, nvsFile: string, storageFile?: string): string {
  const L: string[] = [];
  const states: Record<string, number> = {};
  for (const p of r.nvs.pages) states[p.state] = (states[p.state] ?? 0) + 1;
  L.push(`NVS ${nvsFile}: ${r.nvs.format === "erased" ? "erased (a new NVS)" : `${r.nvs.pages.length} pages (${Object.entries(states).map(([k, v]) => `${v} ${k}`).join(", ")})`}${r.nvs.damage.length || r.nvs.repaired.length ? "" : ", no damage"}`);
  for (const d of r.nvs.damage) L.push(`  damage: ${d.message}`);
  for (const d of r.nvs.repaired) L.push(`  repaired: ${d.message}`);
  if (r.nvs.initError) L.push(`  nvs_flash_init fails (${r.nvs.initError}): the device would not boot with this NVS partition`);
  const s = r.storage;
  if (!s) L.push("storage: no image given: the device was booted on an empty storage partition (no archive, no episodes)");
  else {
    const st = s.stats;
    if (s.format === "erased") L.push(`storage ${storageFile}: erased, no SPIFFS yet: the device formats it at mount`);
    else {
      const clean = !s.damage.length && !s.unreadable.length;
      L.push(`storage ${storageFile}: SPIFFS, ${s.files.length} files (${n(st.bytes)} bytes), ${n(st.used)} of ${n(st.pages)} pages in use, ${n(st.deleted)} deleted${st.eraseCount ? `, erase counts ${st.eraseCount.min}–${st.eraseCount.max}` : ""}${clean ? ", no damage" : ""}`);
      for (const d of s.damage) L.push(`  damage: ${d.message}`);
      const lo = s.leftovers;
      if (lo.unfinished) L.push(`  left by a power cut: ${lo.unfinished} page${lo.unfinished === 1 ? "" : "s"} never finished (SPIFFS ignores them)`);
      if (lo.orphans) L.push(`  left by a power cut: ${lo.orphans} page${lo.orphans === 1 ? "" : "s"} of objects without a header (SPIFFS's check would reclaim them)`);
      if (lo.dirtyFree) L.push(`  left by a power cut: ${lo.dirtyFree} free page${lo.dirtyFree === 1 ? "" : "s"} not erased (a write cut before its lookup entry)`);
      if (!s.loaded) L.push("  the device cannot mount it: it formats the partition and boots with no files");
    }
  }
  if (!r.booted) return L.join("\n") + "\n";
  L.push(`boot: ${r.boot}`);
  for (const t of r.traces) if (!t.startsWith("petmem: boot")) L.push(`  trace: ${t}`);
  const m = r.memory;
  if (m) {
    const status = m.status as { this_boot?: { repaired: unknown[]; set_aside: unknown[]; lost: unknown[] }; episodes?: Record<string, number>; records?: Record<string, number> };
    const tb = status.this_boot;
    if (tb && (tb.repaired.length || tb.set_aside.length || tb.lost.length))
      L.push(`this boot: repaired ${JSON.stringify(tb.repaired)}, set aside ${JSON.stringify(tb.set_aside)}, lost ${JSON.stringify(tb.lost)}`);
    if (status.records) L.push(`records in NVS: ${Object.entries(status.records).map(([k, v]) => `${k} ${v}`).join(", ")}`);
    if (m.archive) {
      L.push(`archive: ${Object.entries(m.archive.counts).map(([k, v]) => `${k} ${v}`).join(", ")}`);
      for (const mo of m.archive.months) L.push(`  ${mo.month}  fact ${mo.fact}  moment ${mo.moment}  event ${mo.event}`);
    } else L.push("archive: not available on this boot");
    if (status.episodes) L.push(`episodes: ${Object.entries(status.episodes).map(([k, v]) => `${k} ${v}`).join(", ")}`);
    L.push("", "memory (action=read):", JSON.stringify(m.read, null, 2));
    L.push("", "schedules (action=read type=schedule):", JSON.stringify(m.schedules, null, 2));
  }
  return L.join("\n") + "\n";
}

export const inspect: Command = {
  name: "inspect",
  summary: "print the memory and any damage in a pet's flash images (nvs.bin [storage.bin])",
  usage: "inspect NVS.bin [STORAGE.bin] [--json] [--now T]",
  positionals: [
    { name: "NVS.bin", help: "the NVS partition: esptool.py read_flash 0x9000 0xC000 nvs.bin" },
    { name: "STORAGE.bin", help: "the storage partition (SPIFFS): esptool.py read_flash 0xC20000 0x300000 storage.bin (ESP32: 0x4E0000)", optional: true },
  ],
  options: [
    { name: "--json", help: "print one JSON document instead of text" },
    { ...NOW, help: "the device clock while it boots on the images (default: now)" },
  ],
  details:
    "Nothing is written: the images are loaded into a simulated device in RAM and the\n" +
    "device's own boot runs on them. Exit 0 when they could be read (damage is reported),\n" +
    "1 when a file is not an image of the right size or kind.",
  run(ctx) {
    const [nvsFile, storageFile] = ctx.args;
    const now = typeof ctx.opts.now === "string" ? parseNow(ctx.opts.now, machineTz()) : undefined;
    const nvs = readImage(nvsFile);
    const storage = storageFile ? readImage(storageFile) : undefined;
    let r: Inspection;
    try {
      r = inspectImages(nvs, storage, { now, names: { nvs: nvsFile, storage: storageFile } });
    } catch (e) {
      if (e instanceof ImageError) throw new Failure(e.message);
      throw e;
    }
    if (ctx.opts.json) ctx.out(JSON.stringify({ nvs_file: nvsFile, storage_file: storageFile ?? null, ...r }, null, 2) + "\n");
    else ctx.out(formatInspection(r, nvsFile, storageFile));
  },
};

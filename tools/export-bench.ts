// npm run bench:export: export (and import) of a pet with a 3-year archive.
//
// The archive is the bench's (tools/bench/data.ts: about 11 facts, 5.5 moments
// a day and 2 events a week from 2023-03-01, mostly Chinese), appended day by
// day on the real storage partition (partitions/*.csv, 3 MB) with the idle
// maintenance run after each day, so that moments retire into digests as on a
// device; then a few NVS memories and episodes through the memory tool. The
// device is booted again and exported through src/backup (exportMemory, one
// piece per item): one JSON line
//   {"archive_months","records","digests","episodes","bytes","pieces","largest_piece",
//    "export_ms","storage_bytes_read","storage_read_calls","export_device_ms",
//    "import_ms","same"}
// export_ms/import_ms: this machine (Node); export_device_ms: the storage reads
// at the slow end of PLATFORM.md §1 (0.45 MB/s, 0.1 ms a read call);
// largest_piece in bytes of UTF-8; same: the document imported into an empty
// device exports the same document. Options: --months N (default 36);
// --save DIR: also write the pet as a data folder (for `petmem export --data DIR`).
import { SimDevice } from "../host-sim/device";
import { setTraceSink } from "../host-sim/trace-sink";
import { bootDevice } from "../src/app/boot";
import { exportMemory, importMemory } from "../src/backup/index";
import { Life, START } from "./bench/data";
import { storageBytes, monthsAfterStart, deviceMs } from "./bench/run";
import { toolCaller } from "../test/scenarios/tool-call";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const i = args.indexOf("--months");
const months = i >= 0 ? Number(args[i + 1]) : 36;
if (!Number.isInteger(months) || months < 1) throw new Error("--months: a whole number of months");

setTraceSink(() => {});
const partition = storageBytes();
const dev = new SimDevice({ now: START, storageBytes: partition }).install();
let booted = bootDevice(undefined, { sink: { remind() {} } });
booted.maintenance?.stop();
const archive = booted.archive!;
const days = Math.round((monthsAfterStart(months) - START) / 86400000);
let records = 0;
const told: string[] = []; // the last days' moments, told again as episodes
for (const day of new Life().days(days)) {
  dev.clock.now = day.start + 22 * 3600000;
  archive.append("fact", day.facts);
  archive.append("moment", day.moments);
  if (day.events.length) archive.append("event", day.events);
  records += day.facts.length + day.moments.length + day.events.length;
  for (const m of day.moments) told.push(m.content);
  if (told.length > 60) told.splice(0, told.length - 60);
  archive.settle();
  if (day.day % 90 === 0) process.stderr.write(`export-bench: day ${day.day} of ${days}\n`);
}
const call = toolCaller(booted.service);
for (const [type, content] of [["name", "小明"], ["like", "恐龙"], ["dislike", "打雷"], ["family", "妈妈:李华"], ["trait", "personality:很爱笑"], ["habit", "睡前听故事:daily"], ["goal", "学会游泳"]])
  call({ action: "write", type, content });
for (let k = 0; k < 20; k++) call({ action: "write", type: "fact", content: `最近的第${k}件事，主人说了很多话` });
for (let k = 0; k < told.length; k++) call({ action: "write", type: "episode", content: told[k], e: 0.5, i: 0.5, p: (k % 10) / 10, j: 0.5 });
booted.service.stop();
const save = args.indexOf("--save") >= 0 ? args[args.indexOf("--save") + 1] : undefined;
if (save) {
  fs.mkdirSync(path.join(save, "storage"), { recursive: true });
  fs.writeFileSync(path.join(save, "nvs.bin"), dev.nvs.image);
  for (const e of dev.spiffs.list()) fs.writeFileSync(path.join(save, "storage", encodeURIComponent(e.name.slice(1))), dev.spiffs.content(e.name));
}

// the export, on a freshly booted device (what the desktop command does)
booted = bootDevice(undefined, { sink: { remind() {} } });
booted.maintenance?.stop();
const sp = () => dev.flash.partition("storage");
const before = { bytesRead: sp().bytesRead, readCalls: sp().readCalls, bytesWritten: sp().bytesWritten };
const parts: string[] = [];
let largest = 0;
const t0 = Date.now();
const r = exportMemory(booted, (c) => {
  parts.push(c);
  const n = Buffer.byteLength(c);
  if (n > largest) largest = n;
});
const exportMs = Date.now() - t0;
const traffic = { bytesRead: sp().bytesRead - before.bytesRead, readCalls: sp().readCalls - before.readCalls, bytesWritten: sp().bytesWritten - before.bytesWritten };
const text = parts.join("");
const doc = JSON.parse(text);

// the import into an empty device, and its export
const dev2 = new SimDevice({ now: dev.clock.now, storageBytes: partition }).install();
const b2 = bootDevice(undefined, { sink: { remind() {} } });
b2.maintenance?.stop();
const t1 = Date.now();
importMemory(b2, doc, { replace: false });
const importMs = Date.now() - t1;
const again: string[] = [];
exportMemory(b2, (c) => again.push(c));
const strip = (t: string) => t.replace(/"exported_at":"[^"]*"/, "");
void dev2;

process.stdout.write(
  JSON.stringify({
    archive_months: months,
    records,
    archived: doc.archive.facts.length + doc.archive.moments.length + doc.archive.events.length,
    digests: doc.archive.digests.length,
    episodes: doc.episodes.length,
    bytes: Buffer.byteLength(text),
    pieces: r.pieces,
    largest_piece: largest,
    export_ms: exportMs,
    storage_bytes_read: traffic.bytesRead,
    storage_read_calls: traffic.readCalls,
    storage_bytes_written: traffic.bytesWritten,
    export_device_ms: Math.round(deviceMs({ ...traffic, bytesWritten: 0 })),
    import_ms: importMs,
    same: strip(again.join("")) === strip(text),
  }) + "\n",
);

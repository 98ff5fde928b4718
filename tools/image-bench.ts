// `npm run bench:image`: what `petmem image` and `petmem inspect` cost on a
// full data folder. Fills a data folder through the memory tool, month by
// month (facts and moments past their NVS caps go to the archive, past events
// by the weekly move, episodes up to the preset's cap), then runs `image` and
// `inspect` in this process and prints one JSON line: their times, the images'
// bytes, the files and pages, the memory read back.
// Options: --months N (default 36), --facts N and --moments N a month (default
// 100 and 30), --episodes N in all (default 300), --keep (keep the folder).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import "../host-sim/trace.js";
import { setTraceSink } from "../host-sim/trace-sink.js";
import { openHost } from "../desktop/host.js";
import { runCli } from "../desktop/cli.js";
import { inspectImages } from "../desktop/image/inspect.js";
import { readSpiffs } from "../desktop/image/spiffs.js";

const args = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : d;
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name}: a whole number`);
  return v;
};
const months = opt("--months", 36), facts = opt("--facts", 100), moments = opt("--moments", 30), episodes = opt("--episodes", 300);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-image-bench-"));
const data = path.join(dir, "data");
setTraceSink(() => {});

const PLACES = ["公园", "动物园", "海边", "奶奶家", "图书馆", "游乐场", "博物馆", "植物园", "科技馆", "小河边"];
const THINGS = ["恐龙", "积木", "画画", "唱歌", "跳绳", "拼图", "风筝", "小猫", "足球", "故事书"];
const t0 = Date.now();
let written = 0;
let ep = 0;
for (let m = 0; m < months; m++) {
  const y = 2026 + Math.floor(m / 12), mo = (m % 12) + 1;
  const date = `${y}-${String(mo).padStart(2, "0")}`;
  const host = openHost({ data, command: "bench", now: Date.parse(`${date}-03T09:00:00+08:00`), tz: 480 });
  const call = (a: Record<string, unknown>) => {
    try {
      host.service.tool.call(a);
      written++;
    } catch {
      /* a refused write (a duplicate) changes nothing */
    }
  };
  if (m === 0) call({ action: "write", type: "name", content: "小明" });
  for (let i = 0; i < facts; i++) call({ action: "write", type: "fact", content: `${y}年${mo}月第${i + 1}件事：小明在${PLACES[i % 10]}玩${THINGS[(i * 3 + m) % 10]}，第${m * facts + i}次`, force: true });
  for (let i = 0; i < moments; i++) call({ action: "write", type: "moment", content: `${y}年${mo}月第${i + 1}个瞬间：和小明在${PLACES[(i + m) % 10]}一起${THINGS[i % 10]}`, force: true });
  for (let i = 0; i < 4; i++) call({ action: "write", type: "event", content: `${date}月的第${i + 1}次体检`, datetime: `${date}-0${i + 1}`, force: true });
  const perMonth = Math.ceil(episodes / months);
  for (let i = 0; i < perMonth && ep < episodes; i++, ep++)
    call({ action: "write", type: "episode", content: `第${ep + 1}次：小明和爷爷在${PLACES[ep % 10]}${THINGS[(ep * 7) % 10]}，说了${ep * 13 + 7}句悄悄话`, e: 0.6, i: 0.6, p: 0.9, j: 0.6 });
  host.booted.archiver?.weekly();
  host.close();
}
const fillMs = Date.now() - t0;
const storageBytes = fs.readdirSync(path.join(data, "storage")).reduce((n, f) => n + fs.statSync(path.join(data, "storage", f)).size, 0);

const out = path.join(dir, "img");
const sink = { out: () => {}, err: (t: string) => process.stderr.write(t), errIsTty: false };
let t = Date.now();
const code = await runCli(["image", "--out", out, "--data", data], sink);
const imageMs = Date.now() - t;
if (code !== 0) throw new Error(`image exited ${code}`);
const nvs = new Uint8Array(fs.readFileSync(path.join(out, "nvs.bin")));
const storage = new Uint8Array(fs.readFileSync(path.join(out, "storage.bin")));
t = Date.now();
const sp = readSpiffs(storage);
const readMs = Date.now() - t;
t = Date.now();
const r = inspectImages(nvs, storage);
const inspectMs = Date.now() - t;
const status = r.memory?.status as { records?: Record<string, number>; episodes?: Record<string, number> } | undefined;
console.log(
  JSON.stringify({
    bench: "image",
    months,
    writes: written,
    fill_ms: fillMs,
    data_folder: { nvs_bytes: 49152, storage_files: sp.files.length, storage_file_bytes: storageBytes },
    image_ms: imageMs,
    images: { nvs_bytes: nvs.length, storage_bytes: storage.length, spiffs_pages_used: sp.stats.used, spiffs_pages: sp.stats.pages },
    spiffs_read_ms: readMs,
    inspect_ms: inspectMs,
    inspected: { booted: r.booted, nvs_damage: r.nvs.damage.length, storage_damage: r.storage?.damage.length, archive: r.memory?.archive?.counts, nvs_records: status?.records, episodes: status?.episodes?.active },
  }),
);
if (!args.includes("--keep")) fs.rmSync(dir, { recursive: true, force: true });
else process.stderr.write(`kept ${dir}\n`);

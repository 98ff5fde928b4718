// npm run nvs-usage: NVS used by petmem, counted with the host-sim NVS entry
// model. Three JSON lines:
//  1. write_mix: the blob bytes written per store over a simulated day of five
//     conversations (ten exchanges each, two remembered lines, two tool writes,
//     the quiet-period flush between lines), i.e. how much of NVS's write
//     budget each store takes (and the bytes the mirrors wrote to the storage
//     partition, src/nvs/mirror.ts);
//  2. the neighbourhood (issue 28): what a xiaozhi board's firmware keeps in
//     NVS, petmem's peak share beside it, and what happens as it grows;
//  3. the budget: every store full (both copies), and the peak during a flush
//     that rewrites every store, against the usable pages (all but the one NVS
//     keeps free). Exits 1 when the peak passes PEAK_LIMIT of the usable bytes.
import Preference from "preference";
import { SimDevice } from "../host-sim/device";
import { ENTRY_BYTES } from "../host-sim/nvs";
import { fillEveryStore, touchEveryStore } from "../test/powercut/fill";
import { Memory } from "../src/memory/memory";
import { SPECS } from "../src/memory/types";
import { Service } from "../src/app/service";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { FLOOR_DOMAIN, FLOOR_KEY, UNTRUSTED_KEY } from "../src/time/floor";

export const PEAK_LIMIT = 0.75; // leaves a quarter of NVS to the firmware around petmem and to GC

setTraceSink(() => {});

// ---- 1. the write mix of a day ------------------------------------------------
// Each conversation: ten exchanges, two of the user's lines worth remembering
// (they go to the pending queue), two tool writes.
const SMALL_TALK = ["你好呀", "今天有点累", "哈哈真有意思", "我想听个故事", "嗯嗯好的", "再讲一个吧", "为什么天是蓝的", "好困呀", "谢谢你", "还有呢"];
const THINGS = ["恐龙", "画画", "小猫", "篮球", "钢琴"];
{
  const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 1, 0) }).install();
  const per: Record<string, number> = {};
  const set = Preference.set;
  Preference.set = (d: string, k: string, v: boolean | number | string | ArrayBuffer) => {
    const p = k.split(".")[0];
    per[p] = (per[p] ?? 0) + (v instanceof ArrayBuffer ? v.byteLength : 4);
    set.call(Preference, d, k, v);
  };
  const svc = new Service({ sink: { remind() {} } });
  svc.start();
  let id = 0;
  const call = (a: Record<string, unknown>) => svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: a } }));
  const nvsBefore = dev.flash.partition("nvs").bytesWritten;
  const storageBefore = dev.flash.partition("storage").bytesWritten;
  for (let c = 0; c < 5; c++) {
    call({ action: "read" });
    for (let i = 0; i < 10; i++) {
      svc.hear("user", i === 1 ? `我喜欢${THINGS[c]}` : i === 5 ? `我的好朋友叫小${THINGS[c]}` : SMALL_TALK[i]);
      dev.clock.advance(5000);
      svc.hear("assistant", `好的，我们接着聊第${i}件事吧`);
      dev.clock.advance(40000); // past the 30 s quiet period
      if (i === 3) call({ action: "write", type: "fact", content: `主人第${c}次说他喜欢的东西${i}` });
      if (i === 6) call({ action: "write", type: "like", content: `东西${c}` });
    }
    dev.clock.advance(600000); // the conversation ends when idle
  }
  Preference.set = set;
  svc.stop();
  let total = 0;
  for (const k of Object.keys(per)) total += per[k];
  const share: Record<string, number> = {};
  for (const k of Object.keys(per)) share[k] = Math.round((per[k] / total) * 1000) / 10;
  process.stdout.write(JSON.stringify({ write_mix: { conversations: 5, blob_bytes: total, nvs_bytes_written: dev.flash.partition("nvs").bytesWritten - nvsBefore, mirror_bytes_written: dev.flash.partition("storage").bytesWritten - storageBefore, per_store: per, percent: share } }) + "\n");
}

// petmem's own small NVS items besides the stores, counted at their worst:
// the clock's floor and untrusted mark (§2.8) and the give-back mark `room`.
function smallItems(): void {
  Preference.set(FLOOR_DOMAIN, FLOOR_KEY, 29500000);
  Preference.set(FLOOR_DOMAIN, UNTRUSTED_KEY, 29500000);
}

// ---- 2. the budget --------------------------------------------------------------
const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
const mem = new Memory();
mem.boot();
smallItems();
fillEveryStore(mem);
mem.flush();
const steady = dev.nvs.stats();
// a second full rewrite of every store: each copy is erased, then written
dev.nvs.peakLiveEntries = steady.liveEntries;
touchEveryStore(mem);
mem.flush();
const after = dev.nvs.stats();
const peak = dev.nvs.peakLiveEntries * ENTRY_BYTES;
const usable = steady.usableEntries * ENTRY_BYTES; // all pages but the one NVS keeps free
const record_bytes: Record<string, number> = {};
for (const s of Object.values(SPECS)) record_bytes[s.layout.name] = s.layout.size;
// where the bytes go: per store, its NVS copies and the NVS bytes they take
// (a blob: one index entry, one header entry, ceil(bytes / 32) data entries)
const usage = mem.usage();
const per_store: Record<string, { copies: number; blob_bytes: number; nvs_bytes: number }> = {};
const by_copies: Record<string, number> = { one_copy_stores: 0, two_copy_stores: 0 };
for (const name of Object.keys(usage.blobBytes)) {
  const blobs = usage.blobBytes[name];
  let blob = 0, entries = 0;
  for (const b of blobs) {
    blob += b;
    entries += 2 + Math.ceil(b / 32);
  }
  const copies = usage.copies[name];
  per_store[name] = { copies, blob_bytes: blob, nvs_bytes: entries * ENTRY_BYTES * copies };
  by_copies[copies === 1 ? "one_copy_stores" : "two_copy_stores"] += entries * ENTRY_BYTES * copies;
}
const out = {
  copies: "2 for the small tables, 1 (and the mirror file) for chat, facts, events, moments, pending",
  nvs_bytes_used: steady.liveBytes,
  nvs_peak_bytes: peak,
  partition_bytes: dev.nvs.bytes,
  percent: Math.round((steady.liveBytes / dev.nvs.bytes) * 1000) / 10,
  usable_bytes: usable,
  percent_of_usable: Math.round((steady.liveBytes / usable) * 1000) / 10,
  peak_percent_of_usable: Math.round((peak / usable) * 1000) / 10,
  margin_bytes: usable - peak,
  peak_limit_percent: PEAK_LIMIT * 100,
  peak_percent_of_partition: Math.round((peak / dev.nvs.bytes) * 1000) / 10,
  steady_after_rewrite_bytes: after.liveBytes,
  per_store,
  by_copies,
  record_bytes,
};

// ---- 3. the neighbourhood (printed before the budget, which stays the last line) -----------------------------------------------------
// NVS is shared with the firmware around petmem. What a xiaozhi board keeps
// there, written through host-sim's ESP-IDF set path (entry for entry as on
// the device): ESP-IDF's Wi-Fi driver (`nvs.net80211`, WIFI_STORAGE_FLASH: the
// station and soft-AP configuration, the last AP's info), the PHY calibration
// (`phy`: ESP32-S3 cal_data, 1904 bytes), and the companion firmware's own
// settings (78/xiaozhi-esp32's Settings namespaces: up to 10 saved networks,
// the websocket and MQTT endpoints and credentials, the board's uuid, volume,
// display, the assets URL). Then every petmem store full, a full rewrite (the
// peak), and the neighbourhood growing (more networks, a bigger AP list) until
// NVS refuses: how much room petmem leaves and what is left when it does.
function neighbourhood(set: (ns: string, key: string, type: "u8" | "i32" | "str" | "blob", v: number | string | Uint8Array) => void, grow = 0): void {
  const blob = (n: number) => new Uint8Array(n).fill(0x5a);
  const str = (n: number, c = "x") => c.repeat(n);
  // ESP-IDF Wi-Fi (esp_wifi_set_config with flash storage), about 40 items
  for (const k of ["opmode", "sta.authmode", "sta.chan", "sta.scan_method", "sta.sort_method", "sta.minrssi", "sta.minauth", "sta.pmf_e", "sta.pmf_r", "sta.btm_e", "sta.rrm_e", "sta.mbo_e", "sta.ft", "sta.owe", "sta.trans_d", "sta.sae_h2e", "sta.lis_intval", "ap.authmode", "ap.chan", "ap.hidden", "ap.max.conn", "bcn.interval", "ap.pmf_e", "ap.pmf_r", "ap.p_cipher", "ap.sae_h2e", "bw", "sta.phym", "sta.phybw", "ap.phym", "ap.phybw"])
    set("nvs.net80211", k, "u8", 1);
  set("nvs.net80211", "sta.ssid", "blob", blob(36));
  set("nvs.net80211", "sta.pswd", "blob", blob(65));
  set("nvs.net80211", "sta.bssid", "blob", blob(6));
  set("nvs.net80211", "sta.pmk", "blob", blob(32));
  set("nvs.net80211", "sta.apinfo", "blob", blob(700 + grow * 200));
  set("nvs.net80211", "ap.ssid", "blob", blob(36));
  set("nvs.net80211", "ap.passwd", "blob", blob(65));
  set("nvs.net80211", "country", "blob", blob(12));
  // PHY calibration
  set("phy", "cal_data", "blob", blob(1904));
  set("phy", "cal_mac", "blob", blob(6));
  set("phy", "cal_version", "i32", 1);
  // xiaozhi-esp32's settings
  const nets = Math.min(10, 3 + grow);
  for (let i = 0; i < nets; i++) {
    set("wifi", i ? `ssid${i}` : "ssid", "str", str(24, String.fromCharCode(97 + i)));
    set("wifi", i ? `password${i}` : "password", "str", str(20));
  }
  set("websocket", "url", "str", str(48));
  set("websocket", "token", "str", str(40));
  set("websocket", "version", "i32", 3);
  for (const k of ["endpoint", "client_id", "username", "password", "publish_topic"]) set("mqtt", k, "str", str(k === "password" ? 44 : 60));
  set("board", "uuid", "str", str(36));
  set("audio", "output_volume", "i32", 70);
  set("display", "brightness", "i32", 75);
  set("display", "theme", "str", str(5));
  set("assets", "download_url", "str", str(96));
}
{
  const dev3 = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
  const set = (ns: string, key: string, type: "u8" | "i32" | "str" | "blob", v: number | string | Uint8Array) => dev3.nvs.set(ns, key, type, v);
  neighbourhood(set);
  const n0 = dev3.nvs.stats().liveEntries;
  const mem3 = new Memory();
  mem3.boot();
  smallItems();
  fillEveryStore(mem3);
  mem3.flush();
  const withPetmem = dev3.nvs.stats().liveEntries;
  dev3.nvs.peakLiveEntries = withPetmem;
  touchEveryStore(mem3);
  mem3.flush();
  const peakAll = dev3.nvs.peakLiveEntries;
  const petmemPeak = peakAll - n0;
  // the neighbourhood grows (more saved networks, a bigger AP list) until NVS refuses
  let grow = 0, refused = "";
  for (grow = 1; grow <= 200 && !refused; grow++) {
    try {
      neighbourhood(set, grow);
    } catch (e) {
      refused = (e as Error).message;
    }
  }
  const st = dev3.nvs.stats();
  let petmemWrite = "ok";
  try {
    touchEveryStore(mem3);
    mem3.flush();
  } catch (e) {
    petmemWrite = (e as Error).message;
  }
  const entries = (n: number) => n * ENTRY_BYTES;
  process.stdout.write(
    JSON.stringify({
      neighbourhood: {
        namespaces: ["nvs.net80211", "phy", "wifi", "websocket", "mqtt", "board", "audio", "display", "assets"],
        bytes: entries(n0),
        percent_of_partition: Math.round((entries(n0) / dev3.nvs.bytes) * 1000) / 10,
      },
      petmem_peak_bytes: entries(petmemPeak),
      petmem_peak_percent_of_partition: Math.round((entries(petmemPeak) / dev3.nvs.bytes) * 1000) / 10,
      all_peak_percent_of_usable: Math.round((entries(peakAll) / (st.usableEntries * ENTRY_BYTES)) * 1000) / 10,
      headroom_bytes_at_peak: entries(st.usableEntries - peakAll),
      neighbourhood_grew_until: { rounds: grow - 1, refused: refused || "never", live_percent_of_usable: st.percent },
      petmem_flush_when_full: petmemWrite,
      petmem_status_after: mem3.health.writeErrors ? `write errors ${mem3.health.writeErrors}: ${mem3.health.lastWriteError}` : "no write error",
      second_copies: mem3.room.single ? "given back" : "kept",
      petmem_bytes_after: entries(dev3.nvs.stats().liveEntries) - entries(st.liveEntries - petmemPeak),
    }) + "\n",
  );
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(peak <= usable * PEAK_LIMIT ? 0 : 1);

// npm run nvs-usage: NVS used by petmem, counted with the host-sim NVS entry
// model. Two JSON lines:
//  1. write_mix: the blob bytes written per store over a simulated day of five
//     conversations (ten exchanges each, two remembered lines, two tool writes,
//     the quiet-period flush between lines), i.e. how much of NVS's write
//     budget each store takes (and the bytes the mirrors wrote to the storage
//     partition, src/nvs/mirror.ts);
//  2. the budget: every store full (both copies), and the peak during a flush
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

// ---- 2. the budget --------------------------------------------------------------
const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
const mem = new Memory();
mem.boot();
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
const out = {
  copies: 2,
  nvs_bytes_used: steady.liveBytes,
  nvs_peak_bytes: peak,
  partition_bytes: dev.nvs.bytes,
  percent: Math.round((steady.liveBytes / dev.nvs.bytes) * 1000) / 10,
  usable_bytes: usable,
  percent_of_usable: Math.round((steady.liveBytes / usable) * 1000) / 10,
  peak_percent_of_usable: Math.round((peak / usable) * 1000) / 10,
  margin_bytes: usable - peak,
  peak_limit_percent: PEAK_LIMIT * 100,
  steady_after_rewrite_bytes: after.liveBytes,
  record_bytes,
};
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(peak <= usable * PEAK_LIMIT ? 0 : 1);

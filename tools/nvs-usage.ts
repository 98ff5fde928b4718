// npm run nvs-usage: NVS used by petmem with every store full, and the peak
// during a flush of every store, counted with the host-sim NVS entry model.
import { SimDevice } from "../host-sim/device";
import { ENTRY_BYTES } from "../host-sim/nvs";
import { fillEveryStore, touchEveryStore } from "../test/powercut/fill";
import { Memory } from "../src/memory/memory";
import { SPECS } from "../src/memory/types";
import "../host-sim/trace";

const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
const mem = new Memory();
fillEveryStore(mem);
mem.flush();
const steady = dev.nvs.stats();
// a second full rewrite of every store: both copies of each store coexist while it swaps
dev.nvs.peakLiveEntries = steady.liveEntries;
touchEveryStore(mem);
mem.flush();
const after = dev.nvs.stats();
const peak = dev.nvs.peakLiveEntries * ENTRY_BYTES;
const record_bytes: Record<string, number> = {};
for (const s of Object.values(SPECS)) record_bytes[s.layout.name] = s.layout.size;
const out = {
  nvs_bytes_used: steady.liveBytes,
  nvs_peak_bytes: peak,
  partition_bytes: dev.nvs.bytes,
  percent: Math.round((steady.liveBytes / dev.nvs.bytes) * 1000) / 10,
  usable_bytes: steady.usableEntries * ENTRY_BYTES, // all pages but the one NVS keeps free
  peak_percent_of_usable: Math.round((peak / (steady.usableEntries * ENTRY_BYTES)) * 1000) / 10,
  steady_after_rewrite_bytes: after.liveBytes,
  record_bytes,
};
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(out.percent <= 30 && peak < out.usable_bytes ? 0 : 1);

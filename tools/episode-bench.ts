// npm run bench:episodes: the episode files with 800 episodes (the seed's cap)
// on the 3 MB storage partition. JSON lines: the store's own counters
// (src/episode/store.ts `stats`) and the flash traffic SPIFFS sees, for one
// header scan (what recall ranks), one scan with text, one read, one batch
// (a new episode; three uses, headers alone; a content change), one scrub pass
// and a rebuild of a lost copy; then the footprint.
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { EpisodeStore } from "../src/episode/store";
import { signature, similarity } from "../src/episode/sig";
import { EPISODE_SIG_BYTES, type Episode } from "../src/episode/types";

setTraceSink(() => {});
const N = Number(process.argv[2] ?? 800);
const T0 = 1767225600;
const TOPICS = ["篮球", "钢琴", "小猫", "下雨", "生日", "恐龙", "游泳", "画画", "北京", "奶奶"];
const dev = new SimDevice({ now: T0 * 1000 }).install();
const st = new EpisodeStore();
const ep = (slot: number, id: number): Episode => ({
  slot, id, state: "active", source: "ai", emotion: "happy", e: 40, i: 50, p: 30, j: 60, useCount: 0,
  createdAt: T0 + id * 3600, lastActiveAt: T0 + id * 3600, purgeAt: 0, sig: new Uint8Array(EPISODE_SIG_BYTES),
  content: `第${id}次聊天：我们说到了${TOPICS[id % 10]}，还有学校里的朋友和周末想去的地方，主人说下次还要一起去`,
  keywords: [TOPICS[id % 10], TOPICS[(id * 3) % 10]],
});
for (let s = 0; s < N; s += 8) {
  const b: Episode[] = [];
  for (let k = s; k < Math.min(N, s + 8); k++) b.push(ep(k, k + 1));
  st.write(b);
}

let cur = st; // the store measured
function measure(name: string, fn: () => unknown, extra: () => Record<string, unknown> = () => ({})): void {
  const st = cur;
  const s0 = { ...st.stats };
  const f0 = { ...dev.flash.partition("storage") };
  const t0 = process.hrtime.bigint();
  fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const f1 = dev.flash.partition("storage");
  process.stdout.write(
    JSON.stringify({
      bench: "episodes", op: name, episodes: N,
      bytes_read: st.stats.bytesRead - s0.bytesRead, reads: st.stats.reads - s0.reads,
      bytes_written: st.stats.bytesWritten - s0.bytesWritten, writes: st.stats.writes - s0.writes,
      flash_bytes_read: f1.bytesRead - f0.bytesRead, flash_read_calls: f1.readCalls - f0.readCalls,
      flash_bytes_written: f1.bytesWritten - f0.bytesWritten, flash_write_calls: f1.writeCalls - f0.writeCalls,
      node_ms: Math.round(ms * 10) / 10, ...extra(),
    }) + "\n",
  );
}

dev.reboot();
let st2 = (cur = new EpisodeStore());
measure("open", () => st2.open());
const probe = signature("今天和奶奶去打篮球了", []);
let best = 0;
measure("scan_headers", () => st2.scan((e) => void (best = Math.max(best, similarity(probe, e.sig)))), () => ({ best_similarity: Math.round(best * 100) / 100 }));
let texts = 0;
measure("scan_text", () => st2.scan((e) => void (texts += e.content.length), true));
measure("read_one", () => st2.read(N >> 1));
const next = st2.freeSlot();
measure("batch_new_episode", () => st2.write([ep(next, st2.nextId())]), () => ({ slot: next }));
const hits = [3, 300, 600].filter((s) => s < N).map((s) => st2.read(s)!);
measure("batch_three_uses", () => st2.write(hits.map((e) => ({ ...e, useCount: e.useCount + 1, lastActiveAt: T0 + 99 * 86400 }))));
const e5 = st2.read(5)!;
measure("batch_content_change", () => st2.write([{ ...e5, content: e5.content + "（后来又去了一次）" }]));
let steps = 0;
measure("scrub_pass", () => {
  while (st2.step()) steps++;
}, () => ({ steps }));
dev.spiffs.notFinalized.add("/ep.t1");
dev.reboot();
st2 = cur = new EpisodeStore();
let rsteps = 0;
measure("rebuild_lost_copy", () => {
  while (st2.step() && rsteps < 10000) {
    rsteps++;
    if (st2.notes.some((n) => n.indexOf("slot copy 1 rebuilt") === 0)) break;
  }
}, () => ({ steps: rsteps }));
const sp = dev.spiffs.stats();
process.stdout.write(JSON.stringify({ bench: "episodes", op: "footprint", episodes: N, slots: st2.slots, footprint_bytes: st2.footprint(), per_episode_bytes: Math.round(st2.footprint() / st2.slots), partition_used_percent: sp.percent, partition_bytes: sp.total }) + "\n");

// The cost of one search, recall and context (issue 25 item 5), printed by
// `npm run bench:recall`: a simulated device (src/app/boot.ts: NVS, the
// archive, the episode files) holding 800 episodes (written through the
// store, as months of conversations would) and a 3-year archive (2 facts and a
// moment a day, an event a week, appended month by month), a profile and a
// family. Each question goes through the tool as a model sends it; per call:
// flash bytes and read calls of the storage partition, bytes written (the use
// counts of the episodes shown), Node ms, and the device's time by the benches'
// model (tools/bench.ts: bytes read / 0.45 MB/s + bytes written / 0.035 MB/s +
// 0.1 ms per read call; SPIFFS's open walk not modelled).
import { SimDevice } from "../../host-sim/device";
import { prng } from "../../host-sim/flash";
import { bootDevice } from "../../src/app/boot";
import { signature } from "../../src/episode/sig";
import type { Episode } from "../../src/episode/types";
import { EpisodeStore } from "../../src/episode/store";
import { fromLocal } from "../../src/time/local";

export const EPISODES = 800;
export const YEARS = 3;
export const BUDGET_BYTES = 32 * 1024;
export const BUDGET_MS = 150;
const DAY = 86400;

const WHO = ["我", "我和妈妈", "我和爸爸", "我和同学", "我和小红", "全家人", "我和奶奶", "我和表哥"];
const DID = ["去公园放风筝", "在家包饺子", "去图书馆看书", "学游泳", "去动物园看熊猫", "练钢琴", "踢足球", "画了一幅画", "去海边捡贝壳", "做科学实验", "搭乐高城堡", "去爬山", "看了一场电影", "学做蛋糕", "骑自行车"];
const FELT = ["很开心", "有点累", "特别兴奋", "有点难过", "觉得很有意思", "想下次再去"];

export interface CostLine {
  bench: "recall-cost";
  action: string;
  question: string;
  hits: number;
  bytes_read: number;
  read_calls: number;
  bytes_written: number;
  node_ms: number;
  device_ms: number;
  within: boolean; // ≤ 32 KB read and ≤ 150 ms on the device
  partial: boolean; // the reply says the flash read budget was spent before the archive was searched whole
}

export function measureCost(now: () => number): CostLine[] {
  const T0 = fromLocal(2026, 6, 1, 12, 0);
  const dev = new SimDevice({ now: T0 }).install();
  const booted = bootDevice();
  booted.maintenance?.stop();
  const svc = booted.service;
  const r = prng(2025);
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)];
  let id = 0;
  const call = (args: Record<string, unknown>) => JSON.parse(JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!).result.content[0].text);
  // three years of archive, month by month, oldest first
  const archive = booted.archive!;
  const t0 = Math.floor(T0 / 1000) - YEARS * 365 * DAY;
  for (let m = 0; m < YEARS * 12; m++) {
    const facts = [], moments = [], events = [];
    for (let d = 0; d < 30; d++) {
      const t = t0 + (m * 30 + d) * DAY + 3600 * 10;
      facts.push({ timestamp: t, content: `主人说${pick(WHO)}${pick(DID)}，${pick(FELT)}（第${m}月${d}日）` });
      facts.push({ timestamp: t + 60, content: `主人提到${pick(DID)}的事，${pick(FELT)}（${m}-${d}）` });
      moments.push({ timestamp: t + 120, topic: "日常", content: `${pick(WHO)}${pick(DID)}，${pick(FELT)}（${m}/${d}）`, emotion: "happy", intensity: 2, importance: 2 });
      if (d % 7 === 0) {
        const dt = new Date((t + 8 * 3600) * 1000).toISOString().slice(0, 10);
        events.push({ date: dt, time: "", eventType: "plan", content: `${pick(DID)}的计划（${m}/${d}）`, reminded: 0, emotion: "neutral", intensity: 0, significance: 2, priority: 2, schedule: false, completed: true, repeat: "none", repeatInterval: 1, duration: 60 });
      }
    }
    dev.clock.now = (t0 + (m * 30 + 30) * DAY) * 1000;
    archive.append("fact", facts);
    archive.append("moment", moments as never);
    archive.append("event", events as never);
  }
  // the archive's steps (every few minutes on the device) seal the full
  // segments: their catalog entries and summaries
  archive.settle();
  dev.clock.now = T0;
  // 800 episodes through the store, over two years
  const store = (booted.episodes!.store as EpisodeStore);
  store.open();
  for (let k = 0; k < EPISODES; k++) {
    const content = `${pick(["今天", "昨天", "周末", "上个月"])}${pick(WHO)}${pick(DID)}，${pick(FELT)}。`;
    const keywords = [pick(DID).slice(-2)];
    const at = Math.floor(T0 / 1000) - Math.floor(r() * 730) * DAY;
    const ep: Episode = { slot: store.freeSlot(), id: store.nextId(), state: "active", content, keywords, emotion: "neutral", e: Math.floor(r() * 100), i: Math.floor(r() * 100), p: r() < 0.1 ? 100 : Math.floor(r() * 80) + 10, j: Math.floor(r() * 100), useCount: Math.floor(r() * 12), createdAt: at, lastActiveAt: at, purgeAt: 0, source: "ai", sig: signature(content, keywords) };
    store.write([ep]);
  }
  store.write([{ slot: store.freeSlot(), id: store.nextId(), state: "active", content: "主人的猫咪咪生病了，带它去看了兽医", keywords: ["咪咪", "兽医"], emotion: "worried", e: 70, i: 60, p: 30, j: 60, useCount: 0, createdAt: Math.floor(T0 / 1000) - 3 * DAY, lastActiveAt: Math.floor(T0 / 1000) - 3 * DAY, purgeAt: 0, source: "ai", sig: signature("主人的猫咪咪生病了，带它去看了兽医", ["咪咪", "兽医"]) }]);
  // the episodes' idle upkeep (the device runs it between conversations): the slot index written
  while (store.step()) {}
  call({ action: "write", type: "name", content: "王小明" });
  call({ action: "write", type: "birthday", content: "02-11" });
  call({ action: "write", type: "family", relation: "猫", name: "咪咪", member_type: "pet" });
  call({ action: "write", type: "fact", content: "主人对花生过敏" });
  call({ action: "write", type: "schedule", content: "去医院复查牙齿", datetime: "2026-06-09 09:30" });
  const questions: [string, Record<string, unknown>][] = [];
  for (const q of ["我的猫最近怎么样", "我生日是哪天来着", "上个月我和爸爸去哪儿玩了来着", "下周二我要去干嘛来着", "我去年在日本买了什么"]) {
    questions.push([q, { action: "context", message: q }]);
    questions.push([q, { action: "search", keyword: q }]);
  }
  questions.push(["猫", { action: "recall", type: "episode", keyword: "猫" }]);
  questions.push(["过敏", { action: "recall", type: "fact", keyword: "过敏" }]);
  questions.push(["上个月我和爸爸去哪儿玩了来着", { action: "recall", message: "上个月我和爸爸去哪儿玩了来着" }]);
  const out: CostLine[] = [];
  // the parts: one keyword lookup per archive stream, one header scan of the
  // episodes (what the first recall after boot reads when the slot index is
  // stale), the slot index (what it reads when it is current)
  const part = (name: string, fn: () => void) => {
    const a = { ...dev.flash.partition("storage") };
    const t = now();
    fn();
    const ms = now() - t;
    const b = dev.flash.partition("storage");
    const bytes = b.bytesRead - a.bytesRead, calls = b.readCalls - a.readCalls;
    out.push({ bench: "recall-cost", action: "part", question: name, hits: 0, bytes_read: bytes, read_calls: calls, bytes_written: 0, node_ms: Math.round(ms * 10) / 10, device_ms: Math.round((bytes / 450 + calls * 0.1) * 10) / 10, within: bytes <= BUDGET_BYTES, partial: false });
  };
  part("archive fact keyword 过敏", () => archive.recall("fact", { keyword: "过敏", limit: 4 }));
  part("archive fact keyword 爸爸", () => archive.recall("fact", { keyword: "爸爸", limit: 4 }));
  part("archive moment keyword 爸爸", () => archive.recall("moment", { keyword: "爸爸", limit: 4 }));
  part("archive event keyword 复查", () => archive.recall("event", { keyword: "复查", limit: 4 }));
  part("archive fact 2026-05", () => archive.recall("fact", { start: "2026-05-01", end: "2026-05-31", limit: 6 }));
  part("episode header scan", () => store.scan(() => {}));
  part("episode signatures into RAM (once per boot, then kept in step): the slot index", () => booted.episodes!.lookup(() => 0, 1));
  for (const [question, args] of questions) {
    const a = { ...dev.flash.partition("storage") };
    const t = now();
    const reply = call(args);
    const ms = now() - t;
    const b = dev.flash.partition("storage");
    const bytes = b.bytesRead - a.bytesRead, calls = b.readCalls - a.readCalls, written = b.bytesWritten - a.bytesWritten;
    const deviceMs = Math.round((bytes / 450 + written / 35 + calls * 0.1) * 10) / 10;
    const hits = (reply.hits ?? reply.items ?? []).length;
    out.push({ bench: "recall-cost", action: String(args.action) + (args.type ? " type=" + args.type : ""), question, hits, bytes_read: bytes, read_calls: calls, bytes_written: written, node_ms: Math.round(ms * 10) / 10, device_ms: deviceMs, within: bytes <= BUDGET_BYTES && deviceMs <= BUDGET_MS, partial: reply.partial === true });
  }
  return out;
}

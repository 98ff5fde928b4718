// The heap lane's workload (`npm run heap`, tools/heap.ts), run inside the
// heap-measuring XS worker (test/xs/heap-worker.ts).
//
// Preload is emulated: the whole bundle (every src module but main, the
// shims, this file) is loaded before anything is measured; what that costs is
// reported apart ("preloaded_*", flash on the device). Then, with a collection
// every `period` allocations so that XS's own counters track the live set:
//   boot       what src/main.ts does at boot (repeated here: main boots at its
//              top level and cannot be imported without running)
//   mcp        100 MCP messages through service.handle(): initialize,
//              tools/list, writes of every type (facts and moments past their
//              caps, so the archiver moves records to the archive), schedules,
//              reads, recalls, searches, a delete, a completion
//   archive    600 facts appended to the archive in batches of 5, recalls over
//              it, then a compaction to half its size
//   reminders  26 hours of virtual time: the 10-minute reminder checks
//              deliver the schedules, the quiet-period flush, the early-morning
//              maintenance (daily archiving, weekly event moves)
//   stop       service.stop() (the final flush)
// Each phase starts after a collection with its peaks reset; its peak is the
// most in use at once during the phase, and what stays after it, above the
// preloaded baseline.

import { setTimeSource } from "../../../src/time/clock";
import { fromLocal } from "../../../src/time/local";
import { Service } from "../../../src/app/service";
import { Archive } from "../../../src/archive/archive";
import { Archiver } from "../../../src/archive/archiver";
import { startMaintenance } from "../../../src/archive/maintenance";
import { call } from "./bridge";
import { advance, setNow, now } from "./timer";

declare function heapStats(out: ArrayBuffer, op?: number, arg?: number): void;
declare function gc(): void;

(globalThis as unknown as { trace: (s: string) => void }).trace = () => {};

const S = new ArrayBuffer(32);
const v = new Int32Array(S);

interface Use {
  slots: number;
  chunk_bytes: number;
}
interface PhaseResult {
  peak_slots: number;
  peak_chunk_bytes: number;
  stack_peak: number;
  after_slots: number;
  after_chunk_bytes: number;
}

const T0 = fromLocal(2026, 2, 5, 9, 0); // Thursday, 09:00 local

function mcpMessages(): string[] {
  const out: string[] = [];
  let id = 0;
  const rpc = (method: string, params?: object) => JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params });
  const tool = (args: object) => rpc("tools/call", { name: "memory", arguments: args });
  out.push(rpc("initialize", { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "heap", version: "1" } }));
  out.push(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  out.push(rpc("tools/list"));
  out.push(tool({ action: "write", type: "name", content: "王浩宇" }));
  out.push(tool({ action: "write", type: "age", content: "25" }));
  out.push(tool({ action: "write", type: "gender", content: "男" }));
  out.push(tool({ action: "write", type: "location", content: "北京市海淀区" }));
  out.push(tool({ action: "write", type: "birthday", content: "03-15" }));
  for (const like of ["打篮球", "草莓蛋糕", "科幻电影"]) out.push(tool({ action: "write", type: "like", content: like }));
  out.push(tool({ action: "write", type: "dislike", content: "香菜" }));
  out.push(tool({ action: "write", type: "family", relation: "妈妈", name: "李娟", closeness: 5 }));
  out.push(tool({ action: "write", type: "family", content: "弟弟:小明:一起踢球" }));
  out.push(tool({ action: "write", type: "family", relation: "奶奶", name: "王秀英", closeness: 4 }));
  for (let i = 0; i < 28; i++) out.push(tool({ action: "write", type: "fact", content: `主人说的第${i}件事：周末常去公园散步，喜欢看书和喝茶` }));
  for (let i = 0; i < 12; i++)
    out.push(tool({ action: "write", type: "moment", content: `第${i}个特别的时刻：一起看了日出，很感动`, topic: `日出${i}`, emotion: "touched", importance: 4 }));
  out.push(tool({ action: "write", type: "trait", content: "乐观", category: "personality" }));
  out.push(tool({ action: "write", type: "habit", content: "早上跑步", frequency: "daily" }));
  out.push(tool({ action: "write", type: "goal", content: "学会游泳", category: "health", priority: 4 }));
  out.push(tool({ action: "write", type: "goal", content: "每天读书半小时", category: "learning", priority: 3 }));
  const times = ["2026-02-05 10:30", "2026-02-05 14:00", "2026-02-05 16:00", "2026-02-05 19:30", "2026-02-06 08:00", "2026-02-06 09:30", "2026-02-06 12:00", "2026-02-06 15:00"];
  times.forEach((t, i) => out.push(tool({ action: "write", type: "schedule", content: `日程${i}：和同事开会讨论项目`, datetime: t, priority: 1 + (i % 5), force: true })));
  out.push(tool({ action: "write", type: "schedule", content: "吃药", datetime: "2026-02-05 21:00", repeat: "daily", priority: 5, force: true }));
  for (let i = 0; i < 8; i++) out.push(tool({ action: "read" }));
  for (const keyword of ["公园", "日出", "开会"]) out.push(tool({ action: "search", keyword }));
  out.push(tool({ action: "recall", type: "fact" }));
  out.push(tool({ action: "recall", type: "fact", keyword: "公园", limit: 20 }));
  out.push(tool({ action: "recall", type: "moment", keyword: "日出" }));
  out.push(tool({ action: "recall", type: "event" }));
  out.push(tool({ action: "recall", type: "fact", start_date: "2026-01-01", end_date: "2026-12-31" }));
  out.push(tool({ action: "delete", type: "like", content: "科幻电影" }));
  out.push(tool({ action: "pending" }));
  out.push(tool({ action: "write", type: "fact" })); // rejected: no content
  out.push(rpc("no/such/method"));
  out.push("{not json"); // 3 error replies so far, on purpose
  while (out.length < 99) out.push(tool({ action: "read" }));
  out.push(rpc("tools/list", {}));
  return out;
}

function main(opts: { period: number }): void {
  setNow(T0);
  setTimeSource(now);
  const messages = mcpMessages(); // built before measuring: the link hands them over
  let sink = 0;
  gc();
  heapStats(S, 1);
  const base: Use = { slots: v[0], chunk_bytes: v[2] };
  heapStats(S, 2, opts.period);
  const phases: Record<string, PhaseResult> = {};
  const phase = (name: string, fn: () => void) => {
    gc();
    heapStats(S, 1);
    fn();
    heapStats(S, 0);
    const r = { peak_slots: v[1] - base.slots, peak_chunk_bytes: v[3] - base.chunk_bytes, stack_peak: v[4], after_slots: 0, after_chunk_bytes: 0 };
    gc();
    heapStats(S, 0);
    r.after_slots = v[0] - base.slots;
    r.after_chunk_bytes = v[2] - base.chunk_bytes;
    phases[name] = r;
  };

  let service: Service | undefined;
  let archive: Archive | undefined;
  let replies = 0, errors = 0;
  phase("boot", () => {
    // src/main.ts, step by step
    archive = new Archive();
    archive.check();
    service = new Service({ archive, sink: { remind: () => void sink++ } });
    const archiver = new Archiver(service.memory, archive);
    archiver.resolveAtBoot();
    archiver.attach();
    const a = archive;
    service.schedules.onEvict = (e) => void a.append("event", [e]);
    startMaintenance(archiver);
    service.start();
  });
  phase("mcp", () => {
    for (const m of messages) {
      const r = service!.handle(m);
      if (r !== undefined) {
        replies++;
        if (r.includes('"error"') || r.includes('"isError":true')) errors++;
      }
    }
  });
  let compacted = 0;
  phase("archive", () => {
    const a = archive!;
    let ts = Math.floor(T0 / 1000) - 400 * 86400;
    const batch: { timestamp: number; content: string }[] = [];
    for (let n = 0; n < 600; n++) {
      batch.push({ timestamp: (ts += 3600), content: `第${n}条：主人每天做的事，一条用来填满归档的比较长的记录` });
      if (batch.length === 5) {
        if (a.append("fact", batch).compacted) compacted++;
        batch.length = 0;
      }
    }
    a.recallByKeyword("fact", "填满", 20);
    a.recallByTimeRange("fact", "2025-03-01", "2025-06-30", 20);
    a.recallRecent("fact", 10);
    const before = a.footprint();
    a.compact(Math.floor(before / 2));
    if (a.footprint() < before) compacted++;
  });
  phase("reminders", () => {
    advance(26 * 3600 * 1000);
  });
  phase("stop", () => {
    service!.stop();
  });

  let peak_slots = 0, peak_chunk_bytes = 0, stack_peak = 0;
  for (const p of Object.values(phases)) {
    peak_slots = Math.max(peak_slots, p.peak_slots);
    peak_chunk_bytes = Math.max(peak_chunk_bytes, p.peak_chunk_bytes);
    stack_peak = Math.max(stack_peak, p.stack_peak);
  }
  heapStats(S, 0);
  call([
    "result",
    {
      boot_slots: phases.boot.after_slots,
      boot_chunk_bytes: phases.boot.after_chunk_bytes,
      peak_slots,
      peak_chunk_bytes,
      stack_peak,
      phases,
      workload: {
        messages: messages.length,
        replies,
        error_replies: errors,
        reminders: sink,
        archive: archive!.counts(),
        compactions: compacted,
        collections: v[5],
      },
    },
  ]);
}

(globalThis as unknown as { __heap: unknown }).__heap = { main };

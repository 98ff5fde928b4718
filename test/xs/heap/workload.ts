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
//   listen     two conversations through service.hear() (the extractor, the
//              pending queue, the end-of-conversation batch)
//   archive    1500 facts appended to the archive in batches of 5, recalls over
//              it with upkeep steps (seal, forget's rewrite)
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
import { Episodes } from "../../../src/episode/episodes";
import { EpisodeStore } from "../../../src/episode/store";
import { presetOf } from "../../../src/config/presets";
import { call } from "./bridge";
import type { Booted } from "../../../src/app/boot";
import { sync } from "../../../src/sync/replicate";
import { encode, decode } from "../../../src/text/utf8";
import { mcpMessages, conversation, episodeMessages } from "./messages";
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

async function main(opts: { period: number }): Promise<void> {
  setNow(T0);
  setTimeSource(now);
  const messages = mcpMessages(); // built before measuring: the link hands them over
  const epMessages = episodeMessages();
  const lines = conversation();
  let sink = 0;
  gc();
  heapStats(S, 1);
  const base: Use = { slots: v[0], chunk_bytes: v[2] };
  heapStats(S, 2, opts.period);
  const phases: Record<string, PhaseResult> = {};
  const begin = () => {
    gc();
    heapStats(S, 1);
  };
  const end = (name: string) => {
    heapStats(S, 0);
    const r = { peak_slots: v[1] - base.slots, peak_chunk_bytes: v[3] - base.chunk_bytes, stack_peak: v[4], after_slots: 0, after_chunk_bytes: 0 };
    gc();
    heapStats(S, 0);
    r.after_slots = v[0] - base.slots;
    r.after_chunk_bytes = v[2] - base.chunk_bytes;
    phases[name] = r;
  };
  const phase = (name: string, fn: () => void) => {
    begin();
    fn();
    end(name);
  };

  let service: Service | undefined;
  let archive: Archive | undefined;
  let replies = 0, errors = 0;
  phase("boot", () => {
    // src/main.ts, step by step
    archive = new Archive();
    archive.check();
    service = new Service({ archive, sink: { remind: () => void sink++ } });
    const s = service;
    service.tool.episodes = new Episodes(new EpisodeStore(), { limits: () => presetOf(s.memory) });
    const archiver = new Archiver(service.memory, archive);
    archiver.resolveAtBoot();
    archiver.attach();
    const a = archive;
    service.schedules.onEvict = (e) => void a.append("event", [e]);
    const eps = service.tool.episodes;
    startMaintenance(archiver, { busy: () => s.listener.active, extra: () => eps.step() });
    service.start();
  });
  // MCP messages in, replies and error replies counted
  const send = (list: string[]) => {
    for (const m of list) {
      const r = service!.handle(m);
      if (r !== undefined) {
        replies++;
        if (r.includes('"error"') || r.includes('"isError":true')) errors++;
      }
    }
  };
  phase("mcp", () => send(messages));
  // episodes: written, recalled, in context, queried; snapshots, summary, config
  phase("episodes", () => send(epMessages));
  let heard = 0;
  phase("listen", () => {
    for (const [role, text] of lines) {
      if (role === "") service!.endConversation();
      else {
        service!.hear(role, text);
        heard++;
      }
      advance(5000);
    }
  });
  // sync: the whole memory pushed to a server (it lives in Node, off the
  // device), a second sync with nothing new, then another pet's changes pulled
  // through the memory's rules
  let syncs: Record<string, number>[] = [];
  const phaseAsync = async (name: string, fn: () => Promise<void>) => {
    begin();
    await fn();
    end(name);
  };
  const booted = { service: service!, episodes: service!.tool.episodes, archive, archiver: undefined, maintenance: undefined, episodeTimer: undefined, line: "" } as unknown as Booted;
  // as the device's http module: the request body goes out as bytes, the
  // reply comes in as bytes and is decoded to one string
  const transport = (_ep: unknown, method: string, path: string, body?: string) => {
    const r = call(["couch", method, path], body === undefined ? undefined : (encode(body).buffer as ArrayBuffer));
    return Promise.resolve({ status: r.value as number, body: r.payload ? decode(new Uint8Array(r.payload)) : "" });
  };
  const o = { transport, remote: { host: "couch.local", port: 5984 }, db: "heap-owner" };
  const report = (r: Record<string, unknown>) => void syncs.push({ pushed: r.pushed as number, pulled: r.pulled as number, requests: r.requests as number, received: r.received as number });
  await phaseAsync("sync-push", async () => {
    report((await sync(booted, o)) as unknown as Record<string, unknown>);
  });
  await phaseAsync("sync-idle", async () => {
    report((await sync(booted, o)) as unknown as Record<string, unknown>);
  });
  await phaseAsync("sync-pull", async () => {
    call(["couch-seed", 60]);
    report((await sync(booted, o)) as unknown as Record<string, unknown>);
  });
  let steps = 0;
  phase("archive", () => {
    const a = archive!;
    let ts = Math.floor(T0 / 1000) - 400 * 86400;
    const batch: { timestamp: number; content: string }[] = [];
    // enough facts for two sealed segments and an open one, upkeep between batches
    for (let n = 0; n < 1500; n++) {
      batch.push({ timestamp: (ts += 3600), content: `第${n}条：主人每天做的事，一条用来填满归档的比较长的记录` });
      if (batch.length === 5) {
        a.append("fact", batch);
        batch.length = 0;
        if (n % 100 === 99) while (a.step()) steps++;
      }
    }
    a.recallByKeyword("fact", "填满", 20);
    a.recallByKeyword("fact", "不存在的词", 20);
    a.recallByTimeRange("fact", "2025-03-01", "2025-06-30", 20);
    a.recallRecent("fact", 10);
    // forget one: the scrub rewrites its sealed segment in steps
    a.forget("fact", a.recallByKeyword("fact", "第7条", 1).map((x) => x.id));
    while (a.step()) steps++;
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
        messages: messages.length + epMessages.length,
        replies,
        error_replies: errors,
        reminders: sink,
        heard,
        archive: archive!.counts(),
        archive_steps: steps,
        syncs,
        collections: v[5],
      },
    },
  ]);
}

(globalThis as unknown as { __heap: unknown }).__heap = { main };

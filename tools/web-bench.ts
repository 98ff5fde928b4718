// How fast `petmem web` answers on a full pet: a data folder with two years
// of archived facts and moments (3,000 each), 20 facts in NVS and 400 episodes, then the page's
// requests over real HTTP on 127.0.0.1. Prints JSON lines:
//   {"setup": {...}}   what the folder holds
//   {"route": "/api/timeline", "ms": …, "bytes": …}   median of 5
//   npx tsx tools/web-bench.ts [--facts N] [--episodes N]

import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { openHost } from "../desktop/host";
import { startWeb } from "../desktop/web/server";

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

const FACTS = arg("--facts", 3000);
const EPISODES = arg("--episodes", 400);
const DAY = 86400;

// 24 characters drawn from 3,000 CJK ideographs: episodes that do not look alike (AUDN keeps them apart)
function words(seed: number): string {
  let x = (seed + 1) * 2654435761;
  let s = "";
  for (let k = 0; k < 24; k++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += String.fromCharCode(0x4e00 + (x % 3000));
  }
  return s;
}

function get(port: number, p: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: p, agent: false }, (res) => {
        let n = 0;
        res.on("data", (c: Buffer) => (n += c.length));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes: n }));
      })
      .on("error", reject);
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-webbench-"));
  const start = Date.parse("2024-03-01T10:00:00+08:00");
  const span = 730 * DAY;
  // the device clock starts at the end of the two years and is never advanced
  // (advancing it two years would run every idle tick of the device's timers)
  const host = openHost({ data: dir, command: "web-bench", now: start + span * 1000, tz: 480 });
  try {
    const archive = host.booted.archive!;
    const t0 = start / 1000;
    const topics = ["恐龙", "画画", "公园", "篮球", "游泳", "钢琴", "奶奶", "小红", "学校", "生日"];
    for (let k = 0; k < FACTS; k += 100) {
      const facts = [];
      const moments = [];
      for (let i = k; i < Math.min(FACTS, k + 100); i++) {
        const ts = Math.floor(t0 + (span * i) / FACTS);
        facts.push({ timestamp: ts, content: `主人第${i}次说起${topics[i % topics.length]}的事情` });
        moments.push({ timestamp: ts + 60, topic: topics[i % topics.length], content: `第${i}次一起${topics[(i * 7) % topics.length]}，很开心`, emotion: "happy" as const, intensity: 3, importance: 3 });
      }
      archive.append("fact", facts);
      archive.append("moment", moments);
    }
    archive.settle();
    const eps = host.booted.episodes!;
    for (let i = 0; i < EPISODES; i++) {
      eps.add({ content: words(i), e: 0.5, i: 0.5, p: 0.5, j: 0.5, keywords: topics[i % topics.length] }, "ai");
    }
    for (let i = 0; i < 20; i++) host.service.tool.call({ action: "write", type: "fact", content: `现在的事实${i}：${topics[i % 10]}` });
    const server = await startWeb(host, { port: 0 });
    const c = eps.counts();
    console.log(JSON.stringify({ setup: { archived_facts: archive.count("fact"), archived_moments: archive.count("moment"), episodes: c.active, storage_used_bytes: host.dev.spiffs.stats().used } }));
    for (const p of ["/", "/api/timeline", "/api/search?q=" + encodeURIComponent("恐龙"), "/api/search?q=" + encodeURIComponent("火星"), "/profile", "/stats"]) {
      const ms: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const r = await get(server.port, p);
        ms.push(performance.now() - t);
        bytes = r.bytes;
        if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
      }
      ms.sort((a, b) => a - b);
      console.log(JSON.stringify({ route: decodeURIComponent(p), ms: Math.round(ms[2]), bytes }));
    }
    await server.close();
  } finally {
    host.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

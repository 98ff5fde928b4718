// npm run bench:sync: a load run of simulated pets syncing with one local
// CouchDB-compatible server (pouchdb-server, in a child process, data on
// disk), through the device's own HTTP stack (src/net/http.ts over host-sim's
// `http`: real TCP to 127.0.0.1).
//
// --pets N (default 200) pets, two per owner (one database per owner). Each
// pet starts with a month of memory (profile, likes, family, 40 facts,
// moments, schedules, episodes, 300 archived facts), makes its first sync
// (the backfill), then lives a realistic day (6 facts, 3 moments, a like, a
// family change, 2 episodes, a schedule added and one completed, the nightly
// archiving) and syncs again (the second pet's day sync also pulls the
// first's day); the first pet then pulls the second's day.
// Prints one JSON line per phase with per-pet means and the 95th percentile:
//   {"phase","pets","owners","requests","bytes_up","bytes_down","ms","ms_p95","docs_pushed","docs_pulled","conflicts"}
// and a line with the server's totals (documents, disk bytes) and the wall
// time. ms is this machine's; bytes are HTTP bytes on the wire.
// Then the same phases over TLS for --tls-pets N (default 40) more pets,
// through a TLS terminator on 127.0.0.1 in front of the same server with a CA
// made for the run (test/couch/tls.ts; host-sim's `http` over node:tls, as
// the device's SecureSocket): the same lines with "tls":true, plus
// "tls_handshakes" (connections: one per request) and "tls_bytes_up"/"down"
// (TLS records on the wire, per pet).
import fs from "node:fs";
import path from "node:path";
import { SimDevice } from "../host-sim/device";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { httpControl } from "../host-sim/http";
import { bootDevice, type Booted } from "../src/app/boot";
import { request } from "../src/net/http";
import { sync, type SyncReport } from "../src/sync/replicate";
import { fromLocal } from "../src/time/local";
import { toolCaller } from "../test/scenarios/tool-call";
import { startCouch, removeCouch } from "../test/couch/server";
import { makePki, startTerminator, type Terminator } from "../test/couch/tls";
import type { Endpoint } from "../src/net/http";

const args = process.argv.slice(2);
const arg = (name: string, d: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const PETS = arg("--pets", 200);
const TLS_PETS = arg("--tls-pets", 40);
if (!Number.isInteger(PETS) || PETS < 2) throw new Error("--pets: a whole number, at least 2");

setTraceSink(() => {});
const T0 = fromLocal(2026, 5, 4, 9, 0);
const DAY = 86400000;

interface Pet {
  dev: SimDevice;
  booted: Booted;
  call: ReturnType<typeof toolCaller>;
}

function boot(dev: SimDevice): Booted {
  dev.install();
  const b = bootDevice(undefined, { sink: { remind() {} } });
  b.maintenance?.stop();
  return b;
}

function newPet(owner: number, k: number): Pet {
  const dev = new SimDevice({ now: T0, storageBytes: 512 * 1024 });
  const booted = boot(dev);
  const call = toolCaller(booted.service);
  const w = (a: Record<string, unknown>) => {
    const r = call({ action: "write", ...a });
    if (r.isError) throw new Error(`${JSON.stringify(a)}: ${r.text}`);
  };
  w({ type: "name", content: `主人${owner}` });
  w({ type: "birthday", content: `0${1 + (owner % 9)}-1${owner % 10}` });
  for (const x of ["恐龙", "西瓜", "画画", "足球"]) w({ type: "like", content: `${x}${k}` });
  w({ type: "family", relation: "妈妈", name: `妈妈${owner}`, closeness: 5 });
  w({ type: "family", relation: "好朋友", name: `朋友${owner}-${k}` });
  for (let i = 0; i < 40; i++) {
    w({ type: "fact", content: `第${i}件事：宠物${k}记得主人${owner}说过今天很开心，还提到了篮球` });
    dev.clock.now += 3600000;
  }
  for (let i = 0; i < 8; i++) w({ type: "moment", topic: `郊游${i}`, content: `宠物${k}和主人在公园放风筝，第${i}次`, emotion: "happy", intensity: 3 });
  w({ type: "schedule", content: `钢琴课${k}`, datetime: "2026-05-08 16:00", repeat: "weekly" });
  for (let i = 0; i < 4; i++) w({ type: "episode", content: `宠物${k}的第${i}段经历：主人${owner}和朋友去动物园看了熊猫`, e: 0.5, i: 0.5, p: 0.3, j: 0.5, keywords: "熊猫" });
  const old: { timestamp: number; content: string }[] = [];
  for (let i = 0; i < 300; i++) old.push({ timestamp: Math.floor(T0 / 1000) - (400 - i) * 86400, content: `很久以前的第${i}件事：宠物${k}记下主人${owner}做的事` });
  for (let i = 0; i < old.length; i += 25) booted.archive!.append("fact", old.slice(i, i + 25));
  booted.service.flush(true);
  return { dev, booted, call };
}

function day(p: Pet, owner: number, k: number, d: number): void {
  p.dev.install();
  const w = (a: Record<string, unknown>) => p.call({ action: "write", ...a });
  for (let i = 0; i < 6; i++) {
    w({ type: "fact", content: `第${d}天第${i}件事：宠物${k}听主人${owner}说学校里的事` });
    p.dev.clock.now += 1800000;
  }
  for (let i = 0; i < 3; i++) w({ type: "moment", topic: `第${d}天`, content: `宠物${k}和主人一起唱歌，第${i}首`, emotion: "happy", intensity: 2 });
  w({ type: "like", content: `新爱好${d}-${k}` });
  w({ type: "family", relation: "妈妈", name: `妈妈${owner}`, closeness: 4 });
  for (let i = 0; i < 2; i++) w({ type: "episode", content: `第${d}天宠物${k}的经历${i}：主人${owner}学会了骑车，很开心`, e: 0.6, i: 0.5, p: 0.4, j: 0.6, keywords: "骑车" });
  w({ type: "schedule", content: `看牙医${d}-${k}`, datetime: "2026-05-20 10:00" });
  p.call({ action: "complete_schedule", content: `钢琴课${k}` });
  p.dev.clock.now += 12 * 3600000;
  p.booted.archiver?.maintenance(p.dev.clock.now);
  p.booted.service.flush(true);
}

interface Row {
  tlsConns?: number;
  tlsUp?: number;
  tlsDown?: number;
  requests: number;
  up: number;
  down: number;
  ms: number;
  pushed: number;
  pulled: number;
  conflicts: number;
}

const couch = await startCouch();
const wall = Date.now();
let remote: Endpoint = { host: "127.0.0.1", port: couch.port };
let terminator: Terminator | undefined;

async function run(p: Pet, db: string, rows: Row[]): Promise<SyncReport> {
  p.dev.install();
  httpControl.reset();
  const tc = terminator ? [terminator.connections, terminator.bytesIn, terminator.bytesOut] : [0, 0, 0];
  const start = Date.now(), virt = p.dev.clock.now;
  const t = setInterval(() => p.dev.clock.advanceTo(virt + (Date.now() - start)), 5);
  try {
    const r = await sync(p.booted, { transport: request, remote, db });
    const row: Row = { requests: httpControl.requests, up: httpControl.sent, down: httpControl.received, ms: Date.now() - start, pushed: r.pushed, pulled: r.pulled, conflicts: r.conflicts };
    if (terminator) {
      await new Promise((res) => setTimeout(res, 20)); // the last connection's close is counted
      row.tlsConns = terminator.connections - tc[0];
      row.tlsUp = terminator.bytesIn - tc[1];
      row.tlsDown = terminator.bytesOut - tc[2];
    }
    rows.push(row);
    return r;
  } finally {
    clearInterval(t);
  }
}

function line(phase: string, rows: Row[], owners: number): string {
  const mean = (f: (r: Row) => number) => Math.round((rows.reduce((s, r) => s + f(r), 0) / rows.length) * 10) / 10;
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  return JSON.stringify({
    phase,
    pets: rows.length,
    owners,
    requests: mean((r) => r.requests),
    bytes_up: mean((r) => r.up),
    bytes_down: mean((r) => r.down),
    ms: mean((r) => r.ms),
    ms_p95: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))],
    docs_pushed: mean((r) => r.pushed),
    docs_pulled: mean((r) => r.pulled),
    conflicts: rows.reduce((s, r) => s + r.conflicts, 0),
    ...(terminator ? { tls: true, tls_handshakes: mean((r) => r.tlsConns ?? 0), tls_bytes_up: mean((r) => r.tlsUp ?? 0), tls_bytes_down: mean((r) => r.tlsDown ?? 0) } : {}),
  });
}

// Every phase for `pets` pets, two per owner, owners numbered from `first`.
async function phases(pets: number, first: number): Promise<void> {
  const initial: Row[] = [], catchup: Row[] = [], daily: Row[] = [], follow: Row[] = [];
  const owners = Math.ceil(pets / 2);
  for (let o = first; o < first + owners; o++) {
    const db = `owner-${o}`;
    const ps: Pet[] = [];
    for (let k = 0; k < 2 && (o - first) * 2 + k < pets; k++) {
      const p = newPet(o, k);
      await run(p, db, initial);
      ps.push(p);
    }
    // the first pet takes the second's backfill, then a day on each
    if (ps[1]) await run(ps[0], db, catchup);
    day(ps[0], o, 0, 1);
    await run(ps[0], db, daily);
    if (ps[1]) {
      day(ps[1], o, 1, 1);
      await run(ps[1], db, daily);
      await run(ps[0], db, follow);
    }
  }
  console.log(line("first sync (backfill)", initial, owners));
  console.log(line("first pet takes the second's backfill", catchup, owners));
  console.log(line("a day's sync", daily, owners));
  console.log(line("the other pet's day pulled", follow, owners));
}

const owners = Math.ceil(PETS / 2);
try {
  await phases(PETS, 0);
  const info = (await (await fetch(`${couch.url}/_all_dbs`)).json()) as string[];
  let docs = 0;
  for (const db of info) docs += ((await (await fetch(`${couch.url}/${db}`)).json()) as { doc_count: number }).doc_count;
  let disk = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else disk += fs.statSync(f).size;
    }
  };
  walk(couch.dir);
  console.log(JSON.stringify({ server: "pouchdb-server 4.2.0 (LevelDB)", databases: info.length, documents: docs, disk_bytes: disk, docs_per_owner: Math.round(docs / owners), wall_ms: Date.now() - wall }));
  if (TLS_PETS >= 2) {
    const pki = makePki();
    terminator = await startTerminator(pki.good, () => couch.port);
    remote = { host: "127.0.0.1", port: terminator.port, tls: { ca: pki.caDer } };
    const t0 = Date.now();
    await phases(TLS_PETS, owners);
    console.log(JSON.stringify({ tls: "TLS 1.2+ through a terminator on 127.0.0.1 (node:tls), a CA made for the run", pets: TLS_PETS, wall_ms: Date.now() - t0 }));
    await terminator.close();
    fs.rmSync(pki.dir, { recursive: true, force: true });
  }
} finally {
  await couch.stop();
  removeCouch(couch);
}

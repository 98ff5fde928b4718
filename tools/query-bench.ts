// npx tsx tools/query-bench.ts [--facts N] [--months M] [--episodes E] [--episode-chars C]: what action=query and
// recall type=snapshot read from flash (issue 16 items 7 and 8). Builds N
// archived facts (default 4,000: a year at seed 000's rate, 8-14 a day, one
// sentence each) and M months of digests (default 36: one of moments and one
// of events a month) on the simulated 3 MB storage partition through
// Archive.append, then runs each query through the memory tool and prints one
// JSON line per query; E episodes (default 800) are written to the real
// episode store (src/episode/store.ts) and read through the episodes domain
// (src/episode/episodes.ts). One
//   {"name","args","rows","bytes_read","read_calls","max_read","node_ms","device_ms"}
// device_ms = bytes / 0.45 MB/s + 0.1 ms per read call (PLATFORM.md §1, the slow end).
// A query whose where holds CONTAINS, LIKE or = on content (issue 29 item 4)
// adds, for facts, "matching_bytes" (the bytes of the segments' blocks, as
// their sidecars cut them, that hold a row meeting the conditions on content),
// "candidate_bytes" (the blocks whose signature holds every bit of the
// pattern's words: what no signature can rule out), "beyond" (bytes_read −
// matching_bytes), "beyond_candidates" (bytes_read − candidate_bytes: the
// summaries, sidecars and line ends read) and "within_64k" (beyond ≤
// 65,536); for episodes
// "matching_bytes" (per episode meeting them, its header, 128 bytes, and its
// text's passage lines), "matching_blocks" (the headers and the passages'
// blocks, as their sidecars cut them, holding such a text), "full_scan"
// (every header and every live text: what a pattern with nothing to rule out
// reads), "beyond", "within_64k" and "index" ("cold": the signatures in RAM
// are read by this query from the slot index; "warm": they were in RAM;
// "behind": a new reader after a cut took the index's last record: the
// index and the headers of the 8 slots /ep.w names; "stale": the slot index
// cannot be used and this query builds them by a header scan).
// --episode-chars C: episode texts padded to C characters (200: full size;
// default: short, about 25).
import "../host-sim/trace";
import config from "mc/config";
import { SimDevice } from "../host-sim/device";
import { Archive } from "../src/archive/archive";
import { encodeDigest } from "../src/archive/codec";
import { Service } from "../src/app/service";
import { fromLocal } from "../src/time/local";
import type { Fact } from "../src/memory/types";
import { EpisodeStore } from "../src/episode/store";
import { signature } from "../src/episode/sig";
import type { Episode } from "../src/episode/types";
import { Episodes } from "../src/episode/episodes";
import { reads } from "../test/scenarios/archive.scn";
import { matchingBytes } from "../test/scenarios/query-scan.scn";
import { parseQuery } from "../src/query/parse";
import { Runner } from "../src/query/run";
import { readSide, SIDE_MAX } from "../src/archive/segment";
import { encodePassage } from "../src/archive/codec";
import { measure as measureLines } from "../src/episode/passages";
import { headerRef } from "../src/episode/record";

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
const N = arg("--facts", 4000);
const M = arg("--months", 36);
const E = arg("--episodes", 800);
const EC = arg("--episode-chars", 0);
const PAD = "今天天气很好，我们在院子里晒太阳，听小鸟唱歌，吃了好吃的苹果，还看了一会儿云。";

const dev = new SimDevice({ now: fromLocal(2026, 2, 5, 13, 0) }).install();
const archive = new Archive(config.file.root);
archive.check();
const WORDS = ["篮球", "游泳", "猫", "画画", "数学", "钢琴", "恐龙", "海边", "火锅", "下雪", "电影", "跑步"];
const t0 = Math.floor(fromLocal(2025, 2, 1, 8, 0) / 1000);
const step = Math.floor((365 * 86400) / Math.max(1, N));
for (let i = 0; i < N; i += 5) {
  const batch: Fact[] = [];
  for (let k = i; k < Math.min(N, i + 5); k++) batch.push({ timestamp: t0 + k * step, content: `主人说第${k}件事：今天和朋友一起${WORDS[k % WORDS.length]}，很开心` });
  archive.append("fact", batch);
}
const digests = [];
for (let m = 0; m < M; m++) {
  const y = 2023 + Math.floor(m / 12), mo = (m % 12) + 1;
  const month = `${y}-${mo < 10 ? "0" : ""}${mo}`;
  const from = Math.floor(fromLocal(y, mo, 1, 12) / 1000), to = Math.floor(fromLocal(y, mo, 28, 12) / 1000);
  const kw = [WORDS[m % 12], WORDS[(m + 3) % 12], WORDS[(m + 7) % 12], "朋友", "学校"];
  digests.push(encodeDigest({ from, to, month, count: 150, keywords: kw, points: `${kw[0]}：和朋友一起${kw[0]}，第一次赢了；${kw[1]}：周末去${kw[1]}；${kw[2]}：学会了一点${kw[2]}`, source: m * 2 + 1, events: false }));
  digests.push(encodeDigest({ from, to, month, count: 6, keywords: ["生日", "纪念日"], points: "妈妈的生日；一起做了蛋糕", source: m * 2 + 2, events: true }));
}
for (let i = 0; i < digests.length; i += 8) archive.streams.digest.append(digests.slice(i, i + 8));
while (archive.step()) {}

const store = new EpisodeStore();
{
  let batch: Episode[] = [];
  for (let i = 0; i < E; i++) {
    let content = `和主人聊了${WORDS[i % 12]}，他说下次还想一起${WORDS[(i + 5) % 12]}（第${i}次）`;
    while (content.length < EC) content += PAD;
    if (EC) content = content.slice(0, EC);
    const keywords = [WORDS[i % 12], WORDS[(i + 5) % 12]];
    const slot = store.freeSlot() + batch.length;
    const t = t0 + i * 36000;
    batch.push({ slot, id: store.nextId() + batch.length, state: "active", content, keywords, emotion: "happy", e: i % 101, i: (i * 7) % 101, p: (i * 13) % 101, j: (i * 29) % 101, useCount: i % 9, createdAt: t, lastActiveAt: t, purgeAt: 0, source: "ai", sig: signature(content, keywords) });
    if (batch.length === 8 || i === E - 1) {
      store.write(batch);
      batch = [];
    }
  }
}
// the passages' upkeep the device runs when idle (a full segment sealed, its sidecar completed)
while (store.step()) {}
// then a recall's batch of use counts over 8 episodes: the index's last
// record (12 bytes: no entry changed), which "behind" lines take away
const indexBefore = dev.spiffs.length("/ep.i");
{
  const used: Episode[] = [];
  for (let s = store.slots - 8; s < store.slots; s++) {
    const e = store.read(s);
    if (e) used.push({ ...e, useCount: e.useCount + 1 });
  }
  store.write(used);
}
if (dev.spiffs.length("/ep.i") !== indexBefore + 12) throw new Error("query-bench: the batch of use counts did not append a 12-byte record");
const reader = new Episodes(store);
const svc = new Service({ sink: { remind() {} }, archive });
svc.tool.episodes = reader;
let id = 0;
function call(args: Record<string, unknown>): any {
  const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!);
  const text: string = r.result.content[0].text;
  if (r.result.isError) throw new Error(text);
  return JSON.parse(text);
}

// Does a row meet the query's conditions?
function holdsOf(from: string, where: string): (rec: Record<string, unknown>) => boolean {
  const q = parseQuery({ from, where, limit: 1 });
  return (rec) => {
    const r = new Runner(q, (x: Record<string, unknown>, f: string) => x[f] as never);
    r.take(rec);
    return r.rows().length > 0;
  };
}

// Episodes meeting `where` (read outside any measurement): their headers and
// texts' bytes, their headers and the passages' blocks holding their texts,
// and every header and live text (a full scan).
function episodesMeeting(where: string): { matching: number; blocks: number; full: number } {
  const holds = holdsOf("episode", where);
  let matching = 0, full = store.slots * 128;
  const blocks = new Set<string>();
  let blockBytes = 0;
  const sides = new Map<number, { offset: number; length: number }[]>();
  const p = store.texts.stream;
  store.scan((ep) => {
    const len = measureLines(encodePassage(ep.createdAt, ep.id, ep.content, ep.keywords.join(","))).len;
    full += len;
    if (!(ep.state === "active" && holds({ id: ep.id, content: ep.content, keywords: ep.keywords, e: ep.e / 100, i: ep.i / 100, p: ep.p / 100, j: ep.j / 100, state: ep.state }))) return;
    matching += 128 + len;
    blockBytes += 128;
    // the block(s) its header's pointer falls in
    const h = dev.spiffs.content("/ep.h0").subarray(ep.slot * 128, ep.slot * 128 + 128);
    const r = headerRef(h, 0);
    let bl = sides.get(r.seq);
    if (!bl) {
      const length = p.open && p.open.seq === r.seq ? p.open.validEnd : (p.segs.get(r.seq) ?? 0);
      const side = readSide(p.path(r.seq, "six"), "passage", r.seq, length, new Uint8Array(SIDE_MAX));
      bl = side.blocks.map((b) => ({ offset: b.offset, length: b.length }));
      const end = bl.length ? bl[bl.length - 1].offset + bl[bl.length - 1].length : 0;
      if (length > end) bl.push({ offset: end, length: length - end });
      sides.set(r.seq, bl);
    }
    for (const b of bl)
      if (b.offset < r.at + r.len && r.at < b.offset + b.length && !blocks.has(`${r.seq}:${b.offset}`)) {
        blocks.add(`${r.seq}:${b.offset}`);
        blockBytes += b.length;
      }
  }, true);
  return { matching, blocks: blockBytes, full };
}

function measure(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): void {
  let out: any;
  const t = performance.now();
  const r = reads(dev, () => (out = call(args)));
  const ms = performance.now() - t;
  const rows = out.count;
  const line: Record<string, unknown> = { name, args, rows, more: !!out.more, bytes_read: r.bytes, read_calls: r.calls, max_read: r.max, node_ms: Math.round(ms * 10) / 10, device_ms: Math.round(r.bytes / 450 + r.calls * 0.1) };
  const where = typeof args.where === "string" ? args.where : "";
  if (args.action === "query" && /content (CONTAINS|LIKE|=)/.test(where)) {
    if (args.from === "fact") {
      const m = matchingBytes(dev, archive, where);
      line.matching_bytes = m.matching;
      line.candidate_bytes = m.candidate;
      line.beyond_candidates = r.bytes - m.candidate;
    } else if (args.from === "episode") {
      const m = episodesMeeting(where);
      line.matching_bytes = m.matching;
      line.matching_blocks = m.blocks;
      line.full_scan = m.full;
      line.beyond_blocks = r.bytes - m.blocks;
    }
    line.beyond = r.bytes - (line.matching_bytes as number);
    line.within_64k = (line.beyond as number) <= 65536;
  }
  console.log(JSON.stringify({ ...line, ...extra }));
}

// an episodes query with the signatures in RAM read by it (a new reader: from
// the slot index /ep.i), already there, or built by it from every header (a
// new reader on a store whose slot index is stale: a batch cut before its
// record, until steps write it again)
function episodeQuery(name: string, args: Record<string, unknown>): void {
  svc.tool.episodes = new Episodes(store);
  measure(name, args, { index: "cold" });
  measure(name, args, { index: "warm" });
  const good = dev.spiffs.content("/ep.i");
  // a new reader on a store whose /ep.i holds `ix`
  const withIndex = (ix: Uint8Array, index: string) => {
    dev.spiffs.load("/ep.i", ix);
    const st = new EpisodeStore();
    st.open();
    svc.tool.episodes = new Episodes(st);
    measure(name, args, { index });
  };
  withIndex(good.subarray(0, good.length - 12), "behind");
  withIndex(new Uint8Array(8), "stale");
  dev.spiffs.load("/ep.i", good);
  svc.tool.episodes = new Episodes(store);
}

let segBytes = 0;
for (const e of dev.spiffs.list()) if (/(^|\/)f\d{6}\.jsonl$/.test(e.name)) segBytes += e.length;
let digestBytes = 0;
for (const e of dev.spiffs.list()) if (/(^|\/)d\d{6}\.jsonl$/.test(e.name)) digestBytes += e.length;
console.log(JSON.stringify({ facts: N, fact_segment_bytes: segBytes, digests: digests.length, digest_bytes: digestBytes }));
measure("episodes, scores only (headers)", { action: "query", from: "episode", where: "p >= 0.5 AND e >= 0.8", order_by: "j desc", limit: 10, select: "id, e, p, j, created_at" });
episodeQuery("episodes, with their text", { action: "query", from: "episode", where: "content CONTAINS '恐龙' AND p >= 0.5", order_by: "j desc", limit: 10, select: "id, content, keywords" });
episodeQuery("CONTAINS over all episode texts, a word present", { action: "query", from: "episode", where: "content CONTAINS '恐龙'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("CONTAINS over all episode texts, a word absent", { action: "query", from: "episode", where: "content CONTAINS '飞机'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("LIKE over all episode texts, a word present", { action: "query", from: "episode", where: "content LIKE '%一起恐龙%'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("LIKE over all episode texts, in every signature", { action: "query", from: "episode", where: "content LIKE '%第12_次%'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("CONTAINS over all episode texts, a common word (in every one)", { action: "query", from: "episode", where: "content CONTAINS '主人'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("CONTAINS over all episode texts, a word in one of 12", { action: "query", from: "episode", where: "content CONTAINS '钢琴'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("LIKE over all episode texts, '_' alone (nothing to look for)", { action: "query", from: "episode", where: "content LIKE '_%'", order_by: "j desc", limit: 10, select: "id, content" });
episodeQuery("CONTAINS over all episode texts, one ASCII character (nothing to look for)", { action: "query", from: "episode", where: "content CONTAINS 'x'", order_by: "j desc", limit: 10, select: "id, content" });
measure("latest facts", { action: "query", from: "fact", limit: 10 });
measure("facts of a month, newest first", { action: "query", from: "fact", where: "date >= '2025-06' AND date <= '2025-06'", limit: 10, select: "date, content" });
measure("facts of a month, ordered", { action: "query", from: "fact", where: "date = '2025-06'", order_by: "date asc", limit: 10, select: "date, content" });
measure("a word, newest 5", { action: "query", from: "fact", where: "content CONTAINS '恐龙'", limit: 5, select: "content" });
measure("a word absent", { action: "query", from: "fact", where: "content CONTAINS '飞机'", limit: 5 });
measure("LIKE, ordered by content", { action: "query", from: "fact", where: "content LIKE '%第1_件事%'", order_by: "content desc", limit: 50, select: "content" });
measure("CONTAINS over all facts, a word present", { action: "query", from: "fact", where: "content CONTAINS '恐龙'", order_by: "content desc", limit: 10, select: "content" });
measure("CONTAINS over all facts, a word in one fact", { action: "query", from: "fact", where: "content CONTAINS '第1234件事'", order_by: "content desc", limit: 10, select: "content" });
measure("CONTAINS over all facts, a word absent", { action: "query", from: "fact", where: "content CONTAINS '飞机'", order_by: "content desc", limit: 10, select: "content" });
measure("LIKE over all facts, a word present", { action: "query", from: "fact", where: "content LIKE '%一起恐龙%'", order_by: "content desc", limit: 10, select: "content" });
measure("LIKE over all facts, a rare pattern", { action: "query", from: "fact", where: "content LIKE '%第123_件事%'", order_by: "content desc", limit: 10, select: "content" });
measure("LIKE over all facts, a word absent", { action: "query", from: "fact", where: "content LIKE '%飞_机%'", order_by: "content desc", limit: 10, select: "content" });
measure("LIKE over all facts, one ASCII character (nothing to look for)", { action: "query", from: "fact", where: "content LIKE '%x%'", order_by: "content desc", limit: 10, select: "content" });
measure("digests about a word", { action: "query", from: "digest", where: "keywords = 钢琴", order_by: "month desc", limit: 5 });
measure("snapshot by keyword", { action: "recall", type: "snapshot", keyword: "钢琴" });
measure("snapshot by message with a time", { action: "recall", type: "snapshot", message: "你还记得去年三月我们一起做了什么吗" });

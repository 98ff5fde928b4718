// npm run bench: the deep archive against the seed's full scan (issue 4 §7).
//
// Builds about three years of archived facts, moments and events (> 3 MB of
// JSONL, mostly Chinese) on a simulated 16 MB storage partition through the
// real append path, then runs four recalls on the facts file, our way and the
// seed's way (tools/bench/queries.ts), counting flash reads and timing them on
// Node and inside XS (the XS lane's device-like xsnap worker, driven by
// test/xs/xsnap.ts). One JSON line per scenario:
//   {"bench", "archive_bytes", "bytes_read", "read_calls", "lines_parsed",
//    "results", "match_bytes", "node_ms", "xs_ms", "baseline": {…}, …}
// Exits 1 if a target is missed or the two ways (or the two engines) disagree.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { Archive } from "../src/archive/archive";
import { build } from "./bench/data";
import { QUERIES, measure, baseline, oursCounted, type Measured } from "./bench/queries";
import type { XsOptions } from "./bench/xs-entry";
import { ensureWorker, cacheRoot } from "../test/xs/build-worker";
import { Xsnap } from "../test/xs/xsnap";
import { bundleForXs } from "../test/xs/bundle";

setTraceSink(() => {});
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..");
const STORAGE = 16 * 1024 * 1024;
const NOW = Date.UTC(2026, 2, 1, 2, 0);
const BUDGET = Math.floor(STORAGE * 0.4);

const t0 = Date.now();
const dev = new SimDevice({ now: NOW, storageBytes: STORAGE }).install();
const archive = new Archive(undefined, { budget: BUDGET });
archive.check();
const built = build(archive);
const report = archive.check();
const archiveBytes = report.fact.bytes + report.moment.bytes + report.event.bytes;
process.stderr.write(`bench: built ${built.facts} facts, ${built.moments} moments, ${built.events} events: ${archiveBytes} bytes of JSONL in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);

// ---- Node --------------------------------------------------------------------------
const node = new Map<string, { ours: Measured; baseline: Measured }>();
for (const q of QUERIES) {
  const ours = measure(dev, oursCounted(archive, q), () => performance.now(), 300);
  const base = measure(dev, () => baseline(q), () => performance.now(), 300);
  node.set(q.bench, { ours, baseline: base });
}

// ---- XS ------------------------------------------------------------------------------
async function runXs(): Promise<Map<string, { ours: Measured; baseline: Measured }>> {
  const bin = await ensureWorker();
  const out = path.join(cacheRoot(), `bench-${process.pid}.js`);
  await bundleForXs(path.join(here, "bench/xs-entry.ts"), out);
  const names = dev.spiffs.list().map((e) => e.name);
  const results = new Map<string, { ours: Measured; baseline: Measured }>();
  const enc = new TextEncoder(), dec = new TextDecoder();
  let done = false;
  const worker = new Xsnap({
    bin,
    onCommand(bytes) {
      const msg = JSON.parse(dec.decode(bytes));
      if (msg.t === "list") return enc.encode(JSON.stringify(names));
      if (msg.t === "file") return dev.spiffs.content(msg.name);
      if (msg.t === "check" && msg.report.fact.records !== report.fact.records) throw new Error("XS sees another archive");
      if (msg.t === "result") results.set(msg.bench, { ours: msg.ours, baseline: msg.baseline });
      if (msg.t === "done") done = true;
      return new Uint8Array(0);
    },
  });
  try {
    await worker.script(out);
    const opts: XsOptions = { storageBytes: STORAGE, now: NOW, budget: BUDGET, minMs: 300 };
    await worker.evaluate(`__bench.main(${JSON.stringify(opts)})`);
    if (!done) throw new Error("the XS run did not finish");
  } finally {
    await worker.close();
    fs.rmSync(out, { force: true });
  }
  return results;
}

const xs = await runXs();

// ---- report ------------------------------------------------------------------------
let failed = 0;
const fileBytes = report.fact.bytes;
const counts = (m: Measured) => ({ bytes_read: m.bytes_read, read_calls: m.read_calls, lines_parsed: m.lines_parsed, results: m.results });
for (const q of QUERIES) {
  const n = node.get(q.bench)!, x = xs.get(q.bench);
  const problems: string[] = [];
  if (!x) problems.push("no XS result");
  else {
    if (JSON.stringify(counts(x.ours)) !== JSON.stringify(counts(n.ours)) || x.ours.ids.join() !== n.ours.ids.join()) problems.push("XS and Node disagree");
    if (JSON.stringify(counts(x.baseline)) !== JSON.stringify(counts(n.baseline))) problems.push("XS and Node disagree on the baseline");
  }
  if (n.ours.ids.join() !== n.baseline.ids.join()) problems.push("results differ from the seed's scan");
  let target: string, pass: boolean;
  if (q.bench === "archive.recent") {
    target = "bytes_read <= 16384";
    pass = n.ours.bytes_read <= 16384;
  } else if (q.bench === "archive.time_range_month") {
    target = "bytes_read <= match_bytes + 32768";
    pass = n.ours.bytes_read <= n.ours.match_bytes + 32768;
  } else if (q.bench === "archive.keyword_rare") {
    target = "found in <= 10 records and bytes_read <= 30% of the file";
    pass = archive.recallByKeyword(q.type, q.keyword!, 1000).length <= 10 && n.ours.bytes_read <= 0.3 * fileBytes;
  } else {
    target = "none";
    pass = true;
  }
  if (!pass) problems.push(`target missed: ${target}`);
  failed += problems.length;
  const line = {
    bench: q.bench,
    archive_bytes: archiveBytes,
    bytes_read: n.ours.bytes_read,
    read_calls: n.ours.read_calls,
    lines_parsed: n.ours.lines_parsed,
    results: n.ours.results,
    match_bytes: n.ours.match_bytes,
    node_ms: n.ours.ms,
    xs_ms: x ? x.ours.ms : null,
    baseline: { ...counts(n.baseline), node_ms: n.baseline.ms, xs_ms: x ? x.baseline.ms : null },
    type: q.type,
    query: q.keyword !== undefined ? { keyword: q.keyword, limit: q.limit } : q.start ? { start: q.start, end: q.end, limit: q.limit } : { limit: q.limit },
    file_bytes: fileBytes,
    read_percent: Math.round((n.ours.bytes_read / fileBytes) * 1000) / 10,
    target,
    pass: problems.length === 0,
    ...(problems.length ? { problems } : {}),
  };
  process.stdout.write(JSON.stringify(line) + "\n");
}
process.stderr.write(`bench: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
process.exit(failed ? 1 : 0);

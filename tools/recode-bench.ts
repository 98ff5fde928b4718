// A pet made with archive format 2 (UTF-8 lines, as a device from before the
// compact text wrote them) for N months at the seed's rate (tools/bench/data.ts,
// the bench's life), then updated: idle steps write its format-2 segments
// again as format 3, now 4 (src/archive/scrub.ts, docs/design/recode.md). Prints one
// JSON line: bytes before and after per stream, the partition's use, the steps
// by kind with the slowest of each at the device's flash speed, the flash
// traffic of the whole recode, and whether every record is still there
// (each stream's records, compared field by field).
//
//   npx tsx tools/recode-bench.ts [--months 36]
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { Archive } from "../src/archive/archive";
import { setWriteFormat, VERSION } from "../src/archive/codec";
import type { ArchiveType, ArchiveRecord } from "../src/archive/line";
import { Life, START } from "./bench/data";
import { storageBytes, deviceMs, monthsAfterStart } from "./bench/run";

setTraceSink(() => {});
const args = process.argv.slice(2);
const opt = (k: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};
const months = Number(opt("--months") ?? 36);
const t0 = Date.now();
const root = "/data/";
const partition = storageBytes();
const dev = new SimDevice({ now: START, storageBytes: partition }).install();
const STREAMS = ["fact", "moment", "event", "digest"] as const;

function streamBytes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of dev.spiffs.list()) {
    const m = /^\/([fmed])\d{6}\.(\w+)$/.exec(e.name);
    const k = m ? `${m[1]}.${m[2]}` : e.name.replace(/^\//, "");
    out[k] = (out[k] ?? 0) + e.length;
  }
  return out;
}
function segBytes(): Record<string, number> {
  const b = streamBytes();
  const out: Record<string, number> = {};
  for (const s of STREAMS) out[s] = b[`${s[0]}.jsonl`] ?? 0;
  return out;
}
function records(a: Archive): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of STREAMS) {
    const l: string[] = [];
    a.scan(s, (it) => {
      l.push(JSON.stringify(it));
    });
    out[s] = l.sort();
  }
  return out;
}
function formats(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of dev.spiffs.list()) {
    if (!/\.jsonl$/.test(e.name) || !/^\/[fmed]\d{6}/.test(e.name)) continue;
    const b = dev.spiffs.content(e.name);
    const nl = b.indexOf(10);
    const v = JSON.parse(new TextDecoder().decode(b.subarray(0, nl))).v;
    out[`v${v}`] = (out[`v${v}`] ?? 0) + 1;
  }
  return out;
}

// ---- the pet, in format 2 -------------------------------------------------------------
setWriteFormat(2);
let a = new Archive(root, { partitionBytes: partition });
a.check();
const end = monthsAfterStart(months);
const days = Math.round((end - START) / 86400000);
const pending: Record<ArchiveType, ArchiveRecord[]> = { fact: [], moment: [], event: [] };
let failures = 0;
for (const day of new Life().days(days)) {
  dev.clock.now = day.start + 22 * 3600000;
  for (const f of day.facts) {
    pending.fact.push(f);
    if (pending.fact.length === 5) a.append("fact", pending.fact.splice(0));
  }
  for (const m of day.moments) {
    pending.moment.push(m);
    if (pending.moment.length === 3) a.append("moment", pending.moment.splice(0));
  }
  if (day.events.length) a.append("event", day.events);
  for (let n = 0; n < 10000; n++) {
    const r = a.step();
    if (!r) break;
    if (/^failed/.test(r.did)) failures++;
  }
}
const before = { bytes: segBytes(), files: streamBytes(), used_percent: dev.spiffs.stats().percent, formats: formats() };
const recs = records(a);

// ---- the update: this code's format (4; 3 before it), then idle steps until there is nothing left to do ---------
setWriteFormat(VERSION as 4);
dev.reboot();
a = new Archive(root, { partitionBytes: partition });
a.check();
const kinds: Record<string, number> = {};
const worst: Record<string, number> = {};
let steps = 0, worstMs = 0, worstDid = "";
const tot = { bytesRead: 0, readCalls: 0, bytesWritten: 0 };
let recodeSteps = 0;
for (; steps < 100000; steps++) {
  dev.flash.resetTraffic();
  const r = a.step();
  if (!r) break;
  const t = dev.flash.partition("storage");
  const ms = deviceMs(t);
  const kind = /^failed/.test(r.did) ? "failed" : r.did.split(" ").filter((w) => !/^[0-9a-z]?\d+:?$/.test(w)).slice(0, 2).join(" ");
  kinds[kind] = (kinds[kind] ?? 0) + 1;
  worst[kind] = Math.round(Math.max(worst[kind] ?? 0, ms));
  if (/^recode/.test(r.did)) recodeSteps++;
  if (ms > worstMs) {
    worstMs = ms;
    worstDid = r.did;
  }
  tot.bytesRead += t.bytesRead;
  tot.readCalls += t.readCalls;
  tot.bytesWritten += t.bytesWritten;
  if (/^failed/.test(r.did)) failures++;
}
const after = { bytes: segBytes(), files: streamBytes(), used_percent: dev.spiffs.stats().percent, formats: formats() };
dev.reboot();
a = new Archive(root, { partitionBytes: partition });
a.check();
const recs2 = records(a);
const kept: Record<string, boolean> = {};
for (const s of STREAMS) kept[s] = recs[s].length === recs2[s].length && recs[s].every((x, i) => x === recs2[s][i]);
const sum = (o: Record<string, number>) => Object.values(o).reduce((x, y) => x + y, 0);
process.stdout.write(
  JSON.stringify({
    months,
    records: Object.fromEntries(STREAMS.map((s) => [s, recs[s].length])),
    every_record_kept: kept,
    segment_bytes_before: before.bytes,
    segment_bytes_after: after.bytes,
    segment_bytes_saved: sum(before.bytes) - sum(after.bytes),
    files_before: before.files,
    files_after: after.files,
    used_percent_before: before.used_percent,
    used_percent_after: after.used_percent,
    formats_before: before.formats,
    formats_after: after.formats,
    steps,
    recode_steps: recodeSteps,
    step_kinds: kinds,
    step_ms_max: worst,
    longest_step: { did: worstDid, ms: Math.round(worstMs) },
    traffic: tot,
    failed_steps: failures,
    seconds: Math.round((Date.now() - t0) / 100) / 10,
  }) + "\n",
);

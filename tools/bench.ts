// npm run bench: three years of a pet's archive on the real storage partition
// (issue 12 items 1 and 5). Pipeline: tools/bench/run.ts; data: tools/bench/data.ts.
//
// The partition: the `storage` entry of partitions/esp32s3-16mb.csv, read at
// run time (3 MB today), simulated by host-sim's SPIFFS (usable to 75%).
//
// The rate model (seed 000 §12.9 estimates 4,000 facts and 2,000 moments a
// year of archive; it gives no number for events):
//   facts    8-14 a day, uniform: 11.0 a day, about 4,000 a year; a fact is one
//            sentence, sometimes with a tail, about 20-40 characters, mostly Chinese;
//   moments  4-7 a day, uniform: 5.5 a day, about 2,000 a year; a topic and
//            about 30-60 characters;
//   events   2 a week (our assumption: the seed gives no rate), content within
//            the NVS field's 64 bytes.
// The archiver's batches: facts 5 at a time, moments 3 at a time, as soon as
// that many wait (what is left waits for the next day), the week's events in
// one batch on its last day, all through the real path, Archive.append. The
// clock advances day by day from 2023-03-01 (local); after each day's appends
// the device's idle maintenance runs: archive.step(now) until it returns
// undefined, every step measured.
//
// At ages 12, 24 and 36 months the SPIFFS files are snapshotted; on each a
// fresh Archive boots and four recalls on facts are measured on Node and
// inside XS (the XS lane's xsnap worker): recent (limit 10), month (the
// calendar month six months before that age, limit 1000), rare (a word in one
// fact of the first month), absent (a word in none). Bytes and read calls are
// the simulated SPIFFS's read counters; results are compared with a full scan
// of what was appended. One JSON line per scenario and age:
//   {"scenario","archive_months","bytes_read","read_calls","results","node_ms","xs_ms",
//    "lines_parsed","expected","match_bytes","query","target","bound","pass",…}
// then one line for the whole run:
//   {"retention_months","moments_verbatim_months","partition_bytes","used_percent",
//    "append_bytes_read_max","write_amplification","twin_write_factor",
//    "longest_step_ms_device","boot_ms_device","boot_opens",…,
//    "full_at_month","episodes","episodes_at_full","bytes_per_fact","bytes_per_episode",…}
// (issue 29 item 1) full_at_month: the month in progress (1-based) when the
// partition first reached its 75% line (SPIFFS's usable pages all taken, or a
// write refused for room), null if never; episodes: active episodes held at
// the end (episodes_at_full: when it filled); bytes_per_fact: every byte of
// the fact stream's files at the end (lines f*.jsonl, sidecars f*.six,
// summaries f.sum, f.bsc, catalog f.cat, the open segment's twin, the groups'
// parity f*.par) over the facts kept; bytes_per_episode: every byte of the
// episode files (/ep.*) over the episodes held. longest_step_traffic and
// step_ms_device_max_by_kind say what the slowest steps read and wrote;
// digest_files_sha256 identifies what the retires produced.
// Device time = bytes read / 0.45 MB/s + bytes written / 0.035 MB/s + 0.1 ms per
// read call (PLATFORM.md §1, the slow end, MB = 10^6 bytes); SPIFFS garbage
// collection and open()'s walk of the file system are not modelled (opens are
// counted). write_amplification = every storage byte written (lines, twins,
// parity, sidecars, catalogs, digests, episodes, SPIFFS metadata programs) over
// record_bytes, the records appended as format-2 lines (their bytes without
// compact text: line_bytes's meaning when the 1.3 target was set);
// twin_write_factor = the twins' share of it; written_per_line_byte = the same
// writes over the lines as written (compact text), upkeep_per_line_byte without
// the twins (what write_amplification was before 2026-11-28).
//
// Exits 1 if a target is missed (used ≤ 75%, append read ≤ 8 KB, write
// amplification ≤ 1.3, longest step ≤ 300 ms and boot ≤ 150 ms at the device's
// flash speed), a result differs from the full scan, or Node and XS disagree.
// Options: --months N (default 36; ages every 12 months and N), --no-xs,
// --min-ms N (timing per query and engine, default 200), --episodes N (N
// full-size episodes on the partition first: 200 CJK characters of content,
// 600 bytes, and 55 bytes of keywords, the limits of src/episode/types.ts).
import { runBench } from "./bench/run";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const months = Number(opt("--months") ?? 36);
if (!Number.isInteger(months) || months < 1) throw new Error("--months: a whole number of months");
const ages: number[] = [];
for (let m = 12; m < months; m += 12) ages.push(m);
ages.push(months);
const t0 = Date.now();
const { lines, problems } = await runBench({
  months,
  ages,
  xs: !args.includes("--no-xs"),
  minMs: Number(opt("--min-ms") ?? 200),
  episodes: Number(opt("--episodes") ?? 0),
  progress: (s) => process.stderr.write(s + "\n"),
});
for (const l of lines) process.stdout.write(JSON.stringify(l) + "\n");
for (const p of problems) process.stderr.write(`bench: ${p}\n`);
process.stderr.write(`bench: ${problems.length ? "FAILED" : "passed"} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
// exitCode, not exit(): exit() cuts a piped stdout at 64 KB (the summary with
// thousands of refused appends is longer)
process.exitCode = problems.length ? 1 : 0;

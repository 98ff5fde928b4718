// npm run bench in miniature: two months of the same pipeline (tools/bench/run.ts)
// on the real storage partition, recalls at 1 and 2 months on Node and in XS,
// so the bench cannot rot between its runs.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runBench, storageBytes, PARTITIONS, type BenchResult } from "../tools/bench/run";
import { Life, RARE, ABSENT } from "../tools/bench/data";
import { queriesAt, monthOf } from "../tools/bench/queries";

describe("bench (npm run bench, two months)", function () {
  this.timeout(240000); // the first run builds the XS worker

  let r: BenchResult;
  before(async () => {
    r = await runBench({ months: 2, ages: [1, 2], xs: true, minMs: 0 });
  });

  it("reads the storage partition's size from the partition table", () => {
    assert.equal(storageBytes(PARTITIONS), 0x300000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-bench-"));
    try {
      const csv = path.join(dir, "p.csv");
      fs.writeFileSync(csv, "# name, type, subtype, offset, size\nnvs, data, nvs, 0x9000, 0xC000,\nstorage, data, spiffs, , 1M,\n");
      assert.equal(storageBytes(csv), 1024 * 1024);
      fs.writeFileSync(csv, "nvs, data, nvs, 0x9000, 0xC000,\n");
      assert.throws(() => storageBytes(csv), /no storage partition/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("generates the seed's rate, one rare word, never the absent one", () => {
    let facts = 0, moments = 0, events = 0, rare = 0, absent = 0;
    for (const d of new Life().days(364)) {
      facts += d.facts.length;
      moments += d.moments.length;
      events += d.events.length;
      for (const f of d.facts) {
        if (f.content.includes(RARE)) rare++;
        if (f.content.includes(ABSENT)) absent++;
      }
      for (const m of d.moments) if ((m.content + m.topic).includes(ABSENT) || m.content.includes(RARE)) absent++;
    }
    assert.ok(facts > 3800 && facts < 4200, `facts ${facts}`);
    assert.ok(moments > 1900 && moments < 2100, `moments ${moments}`);
    assert.equal(events, 104);
    assert.equal(rare, 1);
    assert.equal(absent, 0);
  });

  it("one line per scenario and age, with the results of a full scan, the same in XS", () => {
    const scen = r.lines.filter((l) => "scenario" in l);
    assert.deepEqual(scen.map((l) => `${l.archive_months}/${l.scenario}`), ["1/recent", "1/month", "1/rare", "1/absent", "2/recent", "2/month", "2/rare", "2/absent"]);
    for (const l of scen) {
      assert.equal(l.results, l.expected, `${l.archive_months}/${l.scenario}`);
      assert.ok(typeof l.xs_ms === "number", "measured in XS");
      assert.ok((l.bytes_read as number) > 0 && (l.read_calls as number) > 0);
      assert.ok(!((l.problems as string[] | undefined) ?? []).some((p) => /full scan|disagree|XS/.test(p)), JSON.stringify(l));
    }
    const get = (m: number, s: string) => scen.find((l) => l.archive_months === m && l.scenario === s)!;
    assert.equal(get(2, "recent").results, 10);
    assert.equal(get(2, "rare").results, 1);
    assert.equal(get(2, "absent").results, 0);
    assert.deepEqual(queriesAt(2)[1].start, monthOf(0).start);
    assert.ok((get(2, "month").results as number) > 300, "the whole first month");
  });

  it("a last line for the whole run: every fact held, partition, amplification, steps, boot", () => {
    const s = r.lines[r.lines.length - 1];
    assert.equal(s.retention_months, 2);
    assert.equal(s.moments_verbatim_months, 2);
    assert.equal(s.partition_bytes, 0x300000);
    assert.ok((s.used_percent as number) > 0 && (s.used_percent as number) <= 75);
    assert.ok((s.append_bytes_read_max as number) > 0);
    assert.ok((s.written_per_line_byte as number) >= 1, "at least the lines themselves");
    // everything written over the records as format-2 lines, twins included
    const wa = (s.bytes_written as number) / (s.record_bytes as number);
    assert.equal(s.write_amplification, Math.round(wa * 100) / 100);
    assert.ok((s.record_bytes as number) > (s.line_bytes as number), "compact text writes fewer bytes than format 2");
    assert.ok((s.twin_write_factor as number) > 0 && (s.twin_write_factor as number) < (s.write_amplification as number));
    assert.ok((s.boot_ms_device as number) > 0 && (s.boot_opens as number) > 0);
    const rec = s.records as { fact: number; moment: number; event: number };
    assert.ok(rec.fact > 600 && rec.moment > 300 && rec.event === 16, JSON.stringify(rec));
  });

  it("the fields of issue 29: bytes per fact, the month the partition fills, the step budget", () => {
    const s = r.lines[r.lines.length - 1];
    const facts = (s.records as { fact: number }).fact;
    assert.equal(s.facts_kept, facts);
    assert.equal(s.facts_refused, 0);
    assert.equal(s.full_at_month, null, "two months do not fill the partition");
    assert.equal(s.episodes, 0);
    assert.equal(s.bytes_per_episode, null);
    // lines (about 110 bytes a fact) and their sidecar, summaries, twin or parity
    assert.ok((s.bytes_per_fact as number) > 100 && (s.bytes_per_fact as number) < 400, String(s.bytes_per_fact));
    assert.equal(s.bytes_per_fact, Math.round(((s.fact_file_bytes as number) / facts) * 100) / 100);
    assert.ok((s.longest_step_ms_device as number) <= 300, String(s.longest_step_ms_device));
    const t = s.longest_step_traffic as { bytes_read: number; bytes_written: number };
    // the longest step's traffic is what its device time is made of (with format-3
    // lines two months fill no fact segment: the steps may all be without traffic)
    assert.equal(t.bytes_read + t.bytes_written > 0, (s.longest_step_ms_device as number) > 0, JSON.stringify({ t, ms: s.longest_step_ms_device }));
  });

  it("full-size episodes: 200 characters of 600 bytes, and their bytes each", async () => {
    const e = await runBench({ months: 1, ages: [1], xs: false, minMs: 0, episodes: 16 });
    const s = e.lines[e.lines.length - 1];
    assert.equal(s.episodes, 16);
    assert.deepEqual(s.episode_sizes, { content_chars: [200, 200], content_bytes: [600, 600], keyword_bytes: [55, 55] });
    // lean episodes (FORMAT.md §4): two 128-byte headers and the text's lines
    // (with their twin while their segment is open): more than the headers, far
    // less than version 1's 1,600 (two 800-byte slots)
    assert.ok((s.bytes_per_episode as number) > 256 && (s.bytes_per_episode as number) < 1300, String(s.bytes_per_episode));
  });

  it("meets every target of issue 12", () => {
    assert.deepEqual(r.problems, []);
  });
});

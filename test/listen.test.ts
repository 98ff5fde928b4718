// The extractor's score (npm run eval:extract) and feeding a dialog to
// petmem (petmem dialog FILE, petmem dialog -).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";

describe("listening", function () {
  this.timeout(60000);

  it("npm run eval:extract: a JSON line per category, the listener's time, a last line with held_out (Node only here; XS in npm run eval:extract)", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "tools/eval-extract.ts", "--no-xs"], { encoding: "utf8" });
    const lines = out.trim().split("\n").map((l) => JSON.parse(l));
    const last = lines[lines.length - 1];
    assert.deepEqual(Object.keys(last), ["cases", "expected", "found", "forbidden_total", "forbidden_hits", "held_out", "late_held_out", "speech_held_out", "speech_categories"]);
    assert.deepEqual(Object.keys(last.held_out), ["cases", "expected", "found", "forbidden_total", "forbidden_hits"]);
    assert.ok(last.cases >= 400, `${last.cases} cases`);
    assert.ok(last.held_out.cases >= 100, "the held-out part is reported apart");
    const cats = lines.filter((l) => l.category && !l.part);
    assert.ok(cats.length >= 15);
    assert.equal(cats.reduce((n, l) => n + l.cases, 0), last.cases, "the categories add up");
    const late = lines.find((l) => l.part === "held_out_late");
    assert.ok(late && late.cases >= 80, "the late held-out part has its own line");
    // issue 24's held-out part: its own lines per category, its targets (found ≥ 0.92, forbidden hits ≤ 1%)
    const speech = lines.find((l) => l.part === "held_out_speech" && !l.category);
    assert.ok(speech && speech.cases >= 300, "the issue 24 part has its own line");
    assert.deepEqual({ ...speech, part: undefined }, { ...last.speech_held_out, part: undefined });
    assert.equal(lines.filter((l) => l.part === "held_out_speech" && l.category).reduce((n, l) => n + l.cases, 0), speech.cases);
    assert.ok(Object.keys(last.speech_categories).length >= 13, "per-category figures");
    assert.ok(speech.found / speech.expected >= 0.92, `found ${speech.found}/${speech.expected}`);
    assert.ok(speech.forbidden_hits / speech.forbidden_total <= 0.01, `forbidden ${speech.forbidden_hits}/${speech.forbidden_total}`);
    assert.deepEqual(late && { ...late, part: undefined }, { ...last.late_held_out, part: undefined });
    const bench = lines.find((l) => l.bench === "listener");
    assert.ok(bench && bench.engine === "node" && bench.utterances > last.cases && bench.worst_ms >= bench.mean_ms);
  });

  describe("petmem dialog", () => {
    let dir: string;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-"))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const start = (args: string[], input?: string) =>
      spawnSync(process.execPath, ["--import", "tsx", "desktop/main.ts", "dialog", ...args, "--data", dir, "--now", "2026-02-05T13:00", "--tz", "+08:00"], { encoding: "utf8", input });
    const events = (stderr: string) =>
      stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l));

    it("a dialog file: memories form as JSON lines on stderr and stay for the next run", () => {
      const r = start(["test/extract/dialog.txt"]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, "", "stdout stays free");
      const formed = events(r.stderr).filter((e) => e.memory).map((e) => `${e.memory.type}=${e.memory.content}:${e.memory.result}`);
      assert.deepEqual(formed, ["name=王小明:added", "age=8:added", "like=恐龙:added", "dislike=吃香菜:added", "schedule=去看牙医:added", "family=妈妈:李娟:added", "family=妈妈:李娟:是医生:updated"]);
      assert.deepEqual(events(r.stderr).filter((e) => e.end).map((e) => e.end.reason), ["farewell", "explicit"]);
      // the next run remembers: what memory holds is known, not queued again
      const again = start(["-"], "user: 我不喜欢吃香菜\n\n");
      assert.equal(again.status, 0, again.stderr);
      const heard = events(again.stderr).filter((e) => e.heard);
      assert.equal(heard[0].heard.outcome, "known");
      assert.deepEqual(events(again.stderr).filter((e) => e.memory), []);
    });

    it("a line that is neither user nor assistant is reported, not fatal", () => {
      const r = start(["-"], "hello\nuser: 我叫小美\n");
      assert.equal(r.status, 0, r.stderr);
      assert.ok(events(r.stderr).some((e) => e.error && e.error.includes("line 1")));
      assert.ok(events(r.stderr).some((e) => e.memory && e.memory.content === "小美"));
    });
  });
});

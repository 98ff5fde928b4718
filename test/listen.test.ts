// The extractor's score (npm run eval:extract) and feeding a dialog to
// npm start (--dialog FILE, --dialog -).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";

describe("listening", function () {
  this.timeout(60000);

  it("npm run eval:extract: one JSON line; precision >= 0.95 and recall >= 0.8, all and held out", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "tools/eval-extract.ts"], { encoding: "utf8" });
    const lines = out.trim().split("\n");
    assert.equal(lines.length, 1);
    const j = JSON.parse(lines[0]);
    assert.deepEqual(Object.keys(j).slice(0, 3), ["utterances", "precision", "recall"]);
    assert.ok(j.utterances >= 200);
    assert.ok(j.precision >= 0.95, `precision ${j.precision}`);
    assert.ok(j.recall >= 0.8, `recall ${j.recall}`);
    assert.ok(j.heldout.utterances >= 0.18 * j.utterances);
    assert.ok(j.heldout.precision >= 0.95, `held-out precision ${j.heldout.precision}`);
    assert.ok(j.heldout.recall >= 0.8, `held-out recall ${j.heldout.recall}`);
  });

  describe("npm start --dialog", () => {
    let dir: string;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-"))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const start = (args: string[], input?: string) =>
      spawnSync(process.execPath, ["--import", "tsx", "host-sim/node/start.ts", "--data", dir, "--now", "2026-02-05T13:00", ...args], { encoding: "utf8", input });
    const events = (stderr: string) =>
      stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l));

    it("a dialog file: memories form as JSON lines on stderr and stay for the next run", () => {
      const r = start(["--dialog", "test/extract/dialog.txt"]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, "", "stdout stays free");
      const formed = events(r.stderr).filter((e) => e.memory).map((e) => `${e.memory.type}=${e.memory.content}:${e.memory.result}`);
      assert.deepEqual(formed, ["name=王小明:added", "age=8:added", "schedule=去看牙医:added", "like=恐龙:added", "family=妈妈:李娟:added"]);
      assert.deepEqual(events(r.stderr).filter((e) => e.end).map((e) => e.end.reason), ["farewell", "explicit"]);
      // the next run remembers, and the dislike heard once is still pending
      const again = start(["--dialog", "-"], "user: 我不喜欢吃香菜\n\n");
      assert.equal(again.status, 0, again.stderr);
      const heard = events(again.stderr).filter((e) => e.heard);
      assert.equal(heard[0].heard.outcome, "confirmed");
      assert.equal(heard[0].heard.heard, 2);
      assert.deepEqual(events(again.stderr).filter((e) => e.memory).map((e) => e.memory.content), ["吃香菜"]);
    });

    it("a line that is neither user nor assistant is reported, not fatal", () => {
      const r = start(["--dialog", "-"], "hello\nuser: 我叫小美\n");
      assert.equal(r.status, 0, r.stderr);
      assert.ok(events(r.stderr).some((e) => e.error && e.error.includes("line 1")));
      assert.ok(events(r.stderr).some((e) => e.memory && e.memory.content === "小美"));
    });
  });
});

// Issue 26, the desktop's clock: --now without a zone is read in the data
// folder's zone; --now 1970-01-01T00:00 is a pet whose clock is not set
// (nothing timed happens, records are dated from the last trusted time); a
// run whose clock is earlier than the last trusted time the folder saw says
// so in one line and loses nothing.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { PETMEM } from "./web-server";

function run(dir: string, args: string[], input = ""): { out: string; err: string; code: number | null } {
  const r = spawnSync(process.execPath, [PETMEM, ...args, "--data", dir], { input, encoding: "utf8", cwd: os.tmpdir(), env: { ...process.env, TZ: "UTC" } });
  return { out: r.stdout, err: r.stderr, code: r.status };
}

const call = (id: number, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: args } }) + "\n";

describe("the desktop's clock (issue 26)", function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-clock-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("--now without a zone is read in the data folder's zone, not the machine's", () => {
    assert.equal(run(dir, ["serve", "--tz", "+08:00", "--now", "2026-02-05T10:00", "--exit"]).code, 0);
    const r = run(dir, ["serve", "--now", "2026-02-05T20:00"]); // the machine is in UTC; serve prints its boot line (--exit holds it back)
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /clock 2026-02-05T12:00:00\.000Z/, r.err);
  });

  it("--now 1970-01-01T00:00: the clock is not set; nothing is dated 1970 and nothing is lost; a later run says its clock is set", () => {
    assert.equal(run(dir, ["serve", "--tz", "+08:00", "--now", "2026-02-05T10:00"], call(1, { action: "write", type: "fact", content: "主人喜欢画画" })).code, 0);
    const r = run(dir, ["serve", "--now", "1970-01-01T00:00"], call(1, { action: "write", type: "moment", topic: "散步", content: "一起去公园散步" }) + call(2, { action: "read" }));
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /clock unset/);
    assert.match(r.err, /the clock is not set/);
    const read = JSON.parse(JSON.parse(r.out.trim().split("\n")[1]).result.content[0].text);
    assert.ok(JSON.stringify(read).includes("主人喜欢画画"));
    assert.ok(JSON.stringify(read).includes("一起去公园散步"));
    assert.ok(!JSON.stringify(read).includes("1970"), "nothing dated 1970");
  });

  it("a run whose clock is earlier than the last trusted time says so in one line and loses nothing", () => {
    assert.equal(run(dir, ["serve", "--tz", "+08:00", "--now", "2026-02-05T10:00"], call(1, { action: "write", type: "fact", content: "主人会游泳" })).code, 0);
    const r = run(dir, ["serve", "--now", "2025-04-01T10:00"], call(1, { action: "read" }));
    assert.equal(r.code, 0, r.err);
    const lines = r.err.split("\n").filter((l) => /earlier than the last trusted time/.test(l));
    assert.equal(lines.length, 1, r.err);
    assert.match(lines[0], /2025-04-01 10:00.*2026-02-05 10:00/);
    assert.ok(r.out.includes("主人会游泳"));
    // back on the later clock: still there
    const again = run(dir, ["serve", "--now", "2026-02-06T10:00"], call(1, { action: "read" }));
    assert.ok(again.out.includes("主人会游泳"));
    assert.ok(!/earlier than/.test(again.err));
  });
});

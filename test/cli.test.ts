// The petmem command line as a person meets it: help and version, exit codes
// (0 done, 1 failed, 2 wrong usage) with one line and no stack, the data
// folder's lock, one log line per MCP call, --quiet, --tz kept in the device.
// Run through the bin script from another working folder, as an MCP client
// without `cwd` does.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(repo, "desktop", "petmem.mjs");

function petmem(args: string[], opts: { input?: string; cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", input: opts.input ?? "", cwd: opts.cwd ?? os.tmpdir() });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const call = (id: number, args: object) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: args } });

function noStack(err: string): void {
  assert.doesNotMatch(err, /\n\s+at /, "no stack trace without --debug");
}

describe("petmem: the command line", function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-cli-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("--help lists every command and exits 0; each command has its own --help; --version prints the package's", () => {
    const h = petmem(["--help"]);
    assert.equal(h.code, 0, h.err);
    for (const c of ["serve", "dialog", "status", "export", "import", "image", "inspect", "reset", "web"]) assert.match(h.out, new RegExp(`^  ${c} `, "m"), c);
    const s = petmem(["serve", "--help"]);
    assert.equal(s.code, 0);
    for (const o of ["--data", "--now", "--speed", "--tz", "--quiet", "--debug"]) assert.ok(s.out.includes(o), o);
    assert.equal(petmem(["-h"]).out, h.out);
    const v = petmem(["--version"]);
    assert.equal(v.code, 0);
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
    assert.equal(v.out, `petmem ${pkg.version}\n`);
    assert.equal(pkg.bin.petmem, "desktop/petmem.mjs");
  });

  it("usage errors exit 2 with one line saying what is wrong and what is right", () => {
    const cases: [string[], RegExp][] = [
      [["bogus"], /unknown command "bogus"; the commands are serve, /],
      [["--speed", "fast"], /--speed: expected .* more than 0 and at most 100000/],
      [["--speed", "0"], /--speed: expected/],
      [["--now", "never"], /--now: expected a date such as 2026-02-05T13:00/],
      [["--tz", "8"], /--tz: expected ±HH:MM such as \+08:00/],
      [["--tz", "+15:00"], /not a UTC offset/],
      [["--data"], /--data needs a value: --data DIR/],
      [["--frobnicate"], /unknown option --frobnicate; `petmem serve --help` lists its options/],
      [["status", "extra"], /unexpected argument "extra"/],
      [["dialog"], /missing FILE\|-/],
    ];
    for (const [args, want] of cases) {
      const r = petmem([...args, "--data", dir]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
      assert.match(r.err, want, args.join(" "));
      assert.equal(r.err.trim().split("\n").length, 1, `one line: ${r.err}`);
      noStack(r.err);
    }
    assert.equal(fs.readdirSync(dir).length, 0, "a refused command line touches no data folder");
  });

  it("failures exit 1 with one line; --debug adds the stack", () => {
    const file = path.join(dir, "plain-file");
    fs.writeFileSync(file, "x");
    const r = petmem(["status", "--data", file]);
    assert.equal(r.code, 1);
    assert.match(r.err, /not a folder/);
    noStack(r.err);
    const none = petmem(["status", "--data", path.join(dir, "nothing")]);
    assert.equal(none.code, 1);
    assert.match(none.err, /no pet's memory there/);
    // a corrupt data folder: nvs.bin of the wrong size
    const bad = path.join(dir, "bad");
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, "nvs.bin"), Buffer.alloc(1000));
    const c = petmem(["status", "--data", bad]);
    assert.equal(c.code, 1);
    assert.match(c.err, /the data folder cannot be used: .*1000 bytes.*petmem reset/);
    noStack(c.err);
    assert.equal(fs.statSync(path.join(bad, "nvs.bin")).size, 1000, "left as it was");
    const d = petmem(["status", "--data", bad, "--debug"]);
    assert.equal(d.code, 1);
    assert.match(d.err, /\n\s+at /, "--debug shows the stack");
    assert.equal(fs.existsSync(path.join(bad, "lock")), false, "the lock is released on failure");
  });

  it("serve: one log line per call on stderr (time, method, action, type, result, ms); --quiet turns them off", () => {
    const input = [call(1, { action: "write", type: "name", content: "王浩宇" }), call(2, { action: "read", type: "nope" }), call(3, { action: "read" })].join("\n") + "\n";
    const r = petmem(["--data", dir, "--now", "2026-02-05T13:00", "--tz", "+08:00"], { input });
    assert.equal(r.code, 0, r.err);
    const replies = r.out.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(replies.length, 3);
    assert.ok(JSON.parse(replies[2].result.content[0].text).profile.name === "王浩宇");
    const logs = r.err.split("\n").filter((l) => /^\d{4}-\d\d-\d\dT/.test(l));
    assert.equal(logs.length, 3, r.err);
    assert.match(logs[0], /^2026-02-05T13:00:\d\d\.\d{3}\+08:00 tools\/call write type=name ok \d+ms$/);
    assert.match(logs[1], / tools\/call read type=nope error \d+ms$/);
    assert.match(logs[2], / tools\/call read ok \d+ms$/);
    const q = petmem(["--data", dir, "--quiet"], { input: call(4, { action: "read" }) + "\n" });
    assert.equal(q.code, 0, q.err);
    assert.equal(q.err.split("\n").filter((l) => /^\d{4}-\d\d-\d\dT/.test(l)).length, 0, q.err);
    assert.equal(q.out.trim().split("\n").length, 1);
  });

  it("--tz is kept in the device's configuration and used by later runs without it", () => {
    const w = petmem(["--data", dir, "--tz", "-05:00", "--now", "2026-02-05T09:00"], { input: call(1, { action: "config" }) + "\n" });
    assert.equal(w.code, 0, w.err);
    assert.equal(JSON.parse(JSON.parse(w.out).result.content[0].text).utc_offset_minutes, -300);
    const s = petmem(["status", "--data", dir]);
    assert.equal(s.code, 0, s.err);
    assert.equal(JSON.parse(s.out).time_zone, "-05:00", "a run without --tz keeps the device's zone");
    const t = petmem(["status", "--data", dir, "--tz", "+09:30"]);
    assert.equal(JSON.parse(t.out).time_zone, "+09:30");
  });

  it("a second process on the same data folder is refused with the holder's pid, and the folder is free again after", async () => {
    const first = spawn(process.execPath, [BIN, "--data", dir, "--quiet"], { stdio: ["pipe", "pipe", "pipe"], cwd: os.tmpdir() });
    const firstOut: string[] = [];
    first.stdout.on("data", (b) => firstOut.push(String(b)));
    first.stdin.write(call(1, { action: "write", type: "name", content: "小明" }) + "\n");
    const t0 = Date.now();
    while (!firstOut.join("").includes('"id":1') && Date.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 50));
    assert.ok(firstOut.join("").includes('"id":1'), "the first process answered");
    const second = petmem(["--data", dir], { input: call(2, { action: "write", type: "name", content: "小红" }) + "\n" });
    assert.equal(second.code, 1);
    assert.match(second.err, new RegExp(`in use by process ${first.pid} \\(petmem serve`));
    assert.equal(second.out, "", "the second process served nothing");
    const reset = petmem(["reset", "--yes", "--data", dir]);
    assert.equal(reset.code, 1, "reset refuses too");
    first.stdin.end();
    const code = await new Promise<number | null>((r) => first.on("exit", r));
    assert.equal(code, 0);
    assert.equal(fs.existsSync(path.join(dir, "lock")), false, "released at exit");
    const read = petmem(["--data", dir], { input: call(3, { action: "read" }) + "\n" });
    assert.equal(JSON.parse(JSON.parse(read.out).result.content[0].text).profile.name, "小明", "the first process's acknowledged write is kept");
  });

  it("a lock left by a process that died is taken over", () => {
    fs.writeFileSync(path.join(dir, "lock"), JSON.stringify({ pid: 2 ** 22 + 12345, command: "serve" }));
    const r = petmem(["--data", dir, "--exit"]);
    assert.equal(r.code, 0, r.err);
  });

  it("reset asks for --yes when not at a terminal, then erases the memory", () => {
    petmem(["--data", dir], { input: call(1, { action: "write", type: "name", content: "小明" }) + "\n" });
    const no = petmem(["reset", "--data", dir]);
    assert.equal(no.code, 1);
    assert.match(no.err, /add --yes/);
    assert.ok(fs.existsSync(path.join(dir, "nvs.bin")));
    const yes = petmem(["reset", "--yes", "--data", dir]);
    assert.equal(yes.code, 0, yes.err);
    const read = petmem(["--data", dir], { input: call(2, { action: "read" }) + "\n" });
    assert.equal(JSON.parse(JSON.parse(read.out).result.content[0].text).profile.name, undefined, "forgotten");
  });

  it("dialog: lines from stdin form memories; a missing file exits 1", () => {
    const r = petmem(["dialog", "-", "--data", dir, "--now", "2026-02-05T13:00", "--tz", "+08:00"], { input: "user: 我叫小美\n\n" });
    assert.equal(r.code, 0, r.err);
    assert.ok(r.err.includes('"content":"小美"'), r.err);
    const missing = petmem(["dialog", path.join(dir, "no-such-file"), "--data", dir]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no such file/);
  });
});

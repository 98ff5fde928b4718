// What a newcomer meets first, as they meet it: the README's MCP client block
// pasted into a client (a bare environment, another working folder), the
// CLI's --quiet and one-line failures, and the small traps a first hour
// found (issue 30).

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startWebProcess, request, tempData } from "./web-server";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(repo, "desktop", "petmem.mjs");
const README = fs.readFileSync(path.join(repo, "README.md"), "utf8");

function petmem(args: string[], opts: { input?: string; cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", input: opts.input ?? "", cwd: opts.cwd ?? os.tmpdir() });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const rpc = (id: number, method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const call = (id: number, args: object) => rpc(id, "tools/call", { name: "memory", arguments: args });

interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

// Starts the server as a desktop client does: the entry's command and args
// only, an empty environment, a working folder of its own; talks MCP to it.
async function runAsClient(entry: ServerEntry, cwd: string): Promise<{ replies: any[]; err: string; code: number | null }> {
  const child = spawn(entry.command, entry.args, { cwd, env: entry.env ?? {}, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const lines = [
    rpc(1, "initialize", { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "newcomer-test", version: "1" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    rpc(2, "tools/list", {}),
    call(3, { action: "write", type: "name", content: "林小雨" }),
    call(4, { action: "read" }),
  ];
  child.stdin.write(lines.join("\n") + "\n");
  const t0 = Date.now();
  while (!out.includes('"id":4') && Date.now() - t0 < 30000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  child.stdin.end();
  const code = await new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once("exit", r)));
  const replies = out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { replies, err, code };
}

function checkServed(r: { replies: any[]; err: string; code: number | null }): void {
  assert.equal(r.code, 0, r.err);
  assert.equal(r.replies.length, 4, r.err);
  assert.equal(r.replies[0].result.serverInfo.name, "petmem");
  assert.equal(r.replies[1].result.tools[0].name, "memory");
  assert.equal(JSON.parse(r.replies[3].result.content[0].text).profile.name, "林小雨");
}

describe("a newcomer's first hour", function () {
  this.timeout(90000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-new-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the README's client block works when pasted: absolute node, script and data, no PATH, another folder", async () => {
    const block = /```json\n(\{\s*"mcpServers"[\s\S]*?)```/.exec(README);
    assert.ok(block, "the README has a complete mcpServers block");
    const doc = JSON.parse(block[1]) as { mcpServers: Record<string, ServerEntry> };
    const entry = doc.mcpServers.petmem;
    assert.ok(path.isAbsolute(entry.command) && entry.args.every((a) => a.startsWith("-") || path.isAbsolute(a)), "every path in it is absolute");
    // the paths a person puts in: their node, their clone, their folder
    const data = path.join(dir, "pet-data");
    const pasted: ServerEntry = {
      command: process.execPath,
      args: entry.args.map((a) => a.replace("/home/you/petmem", repo).replace("/home/you/pet-data", data)),
    };
    assert.equal(pasted.args[0], BIN);
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-cwd-"));
    try {
      checkServed(await runAsClient(pasted, elsewhere));
      assert.ok(fs.existsSync(path.join(data, "nvs.bin")), "the memory is in the named folder");
      assert.deepEqual(fs.readdirSync(elsewhere), [], "nothing in the client's working folder");
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("petmem client-config prints that block with this machine's paths, and it runs as printed", async () => {
    const data = path.join(dir, "pet");
    const r = petmem(["client-config", "--data", data]);
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out) as { mcpServers: Record<string, ServerEntry> };
    assert.deepEqual(doc.mcpServers.petmem, { command: process.execPath, args: [BIN, "--data", data] });
    checkServed(await runAsClient(doc.mcpServers.petmem, os.tmpdir()));
    const vs = JSON.parse(petmem(["client-config", "--client", "vscode", "--data", data]).out);
    assert.equal(vs.servers.petmem.type, "stdio");
    const bad = petmem(["client-config", "--client", "notepad"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--client: expected one of claude, cursor, windsurf, vscode/);
  });

  it("petmem demo makes a pet with a year of memory through the device's paths, to try at once", function () {
    this.timeout(240000);
    const data = path.join(dir, "demo");
    const r = petmem(["demo", "--data", data, "--tz", "+08:00"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /a year of 林小雨's memory/);
    const ask = (id: number, args: object) => call(id, args);
    const s = petmem(["--data", data, "--quiet"], {
      input: [ask(1, { action: "read" }), ask(2, { action: "search", keyword: "咪咪" }), ask(3, { action: "context", message: "咪咪最近怎么样" }), ask(4, { action: "status" })].join("\n") + "\n",
    });
    assert.equal(s.code, 0, s.err);
    const [read, search, context, status] = s.out.trim().split("\n").map((l) => JSON.parse(JSON.parse(l).result.content[0].text.startsWith("{") ? JSON.parse(l).result.content[0].text : "{}"));
    assert.equal(read.profile.name, "林小雨");
    assert.ok(read.family.length >= 5 && read.preferences.likes.includes("恐龙"), "family and likes");
    assert.ok(read.facts.length >= 1 && read.moments.length >= 1, "this month's facts and moments in NVS");
    assert.ok(read.schedules.some((x: { content: string }) => x.content === "给咪咪喂药"), "a reminder due soon");
    assert.ok(status.archive.records.fact >= 20, `months of facts archived (${status.archive.records.fact})`);
    assert.ok(status.episodes.active >= 3, "episodes kept");
    assert.ok(JSON.stringify(search).includes("咪咪"), "search finds the cat");
    assert.ok(context !== undefined);
    const again = petmem(["demo", "--data", data]);
    assert.equal(again.code, 1, "never over a pet's memory");
    assert.match(again.err, /not empty/);
  });

  it("--quiet prints nothing but what was asked for", () => {
    const s = petmem(["--data", dir, "--quiet", "--tz", "+08:00"], { input: call(1, { action: "write", type: "name", content: "小明" }) + "\n" });
    assert.equal(s.code, 0, s.err);
    assert.equal(s.err, "", "serve --quiet: no boot line, no partitions, no log lines");
    assert.equal(s.out.trim().split("\n").length, 1);
    const st = petmem(["status", "--data", dir, "--quiet"]);
    assert.equal(st.code, 0);
    assert.equal(st.err, "");
    const ex = petmem(["export", "--data", dir, "--quiet"]);
    assert.equal(ex.err, "");
    const file = path.join(dir, "..", path.basename(dir) + "-export.json");
    fs.writeFileSync(file, ex.out);
    try {
      const other = path.join(dir, "copy");
      const im = petmem(["import", file, "--data", other, "--quiet"]);
      assert.equal(im.code, 0, im.err);
      assert.equal(im.err, "", "import --quiet says nothing on success");
    } finally {
      fs.rmSync(file, { force: true });
    }
    const exit = petmem(["--data", dir, "--exit", "--quiet"]);
    assert.equal(exit.err, "");
    assert.ok(JSON.parse(exit.out).partitions, "--exit prints what it was asked for on stdout");
  });

  it("a failure after boot is one line, without --quiet too; --debug adds the device's lines and the stack", () => {
    petmem(["--data", dir], { input: call(1, { action: "write", type: "name", content: "小明" }) + "\n" });
    const refused = "http://127.0.0.1:9/owner-1"; // the discard port: nothing listens
    const r = petmem(["sync", "--remote", refused, "--data", dir]);
    assert.equal(r.code, 1);
    assert.equal(r.err.trim().split("\n").length, 1, r.err);
    assert.match(r.err, /^petmem: .*no connection to the server/);
    const d = petmem(["sync", "--remote", refused, "--data", dir, "--debug"]);
    assert.match(d.err, /^petmem: boot \d+;/m, "--debug shows what the device traced");
    assert.match(d.err, /\n\s+at /, "and the stack");
  });

  it("import of a CSV export says CSV cannot be imported and what to use", () => {
    petmem(["--data", dir], { input: call(1, { action: "write", type: "name", content: "小明" }) + "\n" });
    const csv = petmem(["export", "--format", "csv", "--data", dir]).out;
    const file = path.join(dir, "exp.csv");
    fs.writeFileSync(file, csv);
    const other = path.join(dir, "other");
    const r = petmem(["import", file, "--data", other]);
    assert.equal(r.code, 1);
    assert.match(r.err, /a CSV export cannot be imported; import the JSON export/);
    assert.equal(r.err.trim().split("\n").length, 1);
    assert.equal(fs.existsSync(path.join(other, "nvs.bin")), false, "nothing made");
    const junk = path.join(dir, "junk.txt");
    fs.writeFileSync(junk, "hello");
    assert.match(petmem(["import", junk, "--data", other]).err, /not a JSON document .*import takes what `petmem export` writes/);
  });

  it("reset: answering n at the prompt changes nothing and exits 0", function () {
    petmem(["--data", dir], { input: call(1, { action: "write", type: "name", content: "小明" }) + "\n" });
    const before = fs.readFileSync(path.join(dir, "nvs.bin"));
    // a terminal, as a person has one (util-linux `script`)
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} reset --data ${JSON.stringify(dir)}`;
    const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { input: "n\n", encoding: "utf8", cwd: os.tmpdir() });
    if (r.error) this.skip();
    assert.match(r.stdout, /nothing erased/);
    assert.equal(r.status, 0, r.stdout);
    assert.deepEqual(fs.readFileSync(path.join(dir, "nvs.bin")), before);
  });

  it("status counts the schedules and names the next one", () => {
    const input = [
      call(1, { action: "write", type: "schedule", content: "练琴", datetime: "2026-02-05 19:00" }),
      call(2, { action: "write", type: "schedule", content: "看牙医", datetime: "2026-02-06 15:00" }),
    ].join("\n");
    assert.equal(petmem(["--data", dir, "--now", "2026-02-05T13:00", "--tz", "+08:00"], { input: input + "\n" }).code, 0);
    const s = JSON.parse(petmem(["status", "--data", dir, "--now", "2026-02-05T13:10+08:00"]).out);
    assert.equal(s.schedules.open, 2);
    assert.equal(s.schedules.next, "2026-02-05 19:00 练琴");
  });

  it("web --port on a busy port fails in one line before it makes or locks the data folder", async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const data = path.join(dir, "web-pet");
      const r = petmem(["web", "--port", String(port), "--data", data]);
      assert.equal(r.code, 1);
      assert.match(r.err, new RegExp(`port ${port} on 127.0.0.1 is in use; --port 0 picks a free one`));
      assert.equal(r.err.trim().split("\n").length, 1, r.err);
      assert.equal(fs.existsSync(data), false, "no data folder made");
    } finally {
      busy.close();
    }
  });

  it("an Authorization header without Bearer is told the form it needs", async () => {
    const w = await startWebProcess(tempData());
    try {
      const plain = await request(w, "POST", "/context", { body: { message: "你好" }, headers: { Authorization: w.token } });
      assert.equal(plain.status, 403);
      assert.match(plain.json.error, /must be `Bearer TOKEN`/);
      const wrong = await request(w, "POST", "/context", { body: { message: "你好" }, token: "nope" });
      assert.equal(wrong.status, 403);
      assert.match(wrong.json.error, /wrong token/);
    } finally {
      await w.stop();
      fs.rmSync(w.data, { recursive: true, force: true });
    }
  });

  it("the dialog file's own first line is a command that runs", () => {
    const file = path.join(repo, "test", "extract", "dialog.txt");
    const first = fs.readFileSync(file, "utf8").split("\n")[0];
    const m = /^# npx petmem (.*)$/.exec(first);
    assert.ok(m, first);
    const args = m[1]
      .split(/\s+/)
      .map((a) => (a === "test/extract/dialog.txt" ? file : a === "/tmp/petmem-demo" ? dir : a));
    const r = petmem(args);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /"memory"/);
  });

  it("the README's pouchdb-server lines leave nothing in the clone", async function () {
    const block = /```sh\n(mkdir -p \/tmp\/couch[^\n]*)\n(\(cd \/tmp\/couch[^\n]*)\n/.exec(README);
    assert.ok(block, "README: the server is started from its own folder");
    const couch = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-couch-"));
    const port = await new Promise<number>((r) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const script = `${block[1]}\n${block[2]}`.split("/tmp/couch").join(couch).replace("--port 5984 &", `--port ${port} -n > /dev/null 2>&1 &`);
    const before = new Set(fs.readdirSync(repo));
    const sh = spawnSync("bash", ["-c", script], { cwd: repo, stdio: "ignore", timeout: 20000 });
    assert.equal(sh.status, 0);
    try {
      const t0 = Date.now();
      let up = false;
      while (!up && Date.now() - t0 < 30000) {
        up = await new Promise<boolean>((r) => {
          const c = net.connect(port, "127.0.0.1", () => (c.destroy(), r(true)));
          c.on("error", () => r(false));
        });
        if (!up) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(up, "the server came up");
      await new Promise((r) => setTimeout(r, 500));
      const added = fs.readdirSync(repo).filter((f) => !before.has(f));
      assert.deepEqual(added, [], "files left in the clone");
    } finally {
      spawnSync("pkill", ["-f", `pouchdb-server --port ${port}`]);
      fs.rmSync(couch, { recursive: true, force: true });
    }
  });
});

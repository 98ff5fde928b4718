// Issue 26, "Done when": at --speed 60, a schedule written 2 device minutes
// before its time is reminded within 1 device minute of it, by the program a
// user runs: on stdout as an MCP notifications/message (`petmem serve`), as
// the device's listen/detect [device_call] message (`petmem serve --xiaozhi`),
// and on the HTTP API's server-sent event stream (`petmem web`); stderr keeps
// the trace line. Each reminder carries `at`, the device time it was
// delivered, which the test compares with the schedule's time.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { spawn } from "node:child_process";
import { PETMEM, startWebProcess, tempData } from "./web-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const START = "2026-02-05T07:58";
const DUE = "2026-02-05 08:00";
const dueMs = Date.parse("2026-02-05T08:00:00+08:00");

// device time (local ISO, +08:00) of a delivery, in ms
const atMs = (iso: string) => Date.parse(iso + "+08:00");

function child(args: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-remind-"));
  const proc = spawn(process.execPath, [PETMEM, ...args, "--data", dir, "--now", START, "--tz", "+08:00", "--speed", "60"], { cwd: os.tmpdir(), stdio: "pipe" });
  const out: string[] = [];
  const err: string[] = [];
  readline.createInterface({ input: proc.stdout }).on("line", (l) => out.push(l));
  readline.createInterface({ input: proc.stderr }).on("line", (l) => err.push(l));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (c) => resolve(c)));
  const waitFor = async (pred: (l: string) => boolean, ms = 15000) => {
    const t0 = Date.now();
    for (;;) {
      const hit = out.find(pred);
      if (hit) return hit;
      if (Date.now() - t0 > ms) throw new Error(`not seen in ${ms} ms; stdout:\n${out.join("\n")}\nstderr:\n${err.join("\n")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const send = (o: unknown) => proc.stdin.write(JSON.stringify(o) + "\n");
  const stop = async () => {
    proc.stdin.end();
    const code = await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    return code;
  };
  return { out, err, waitFor, send, stop };
}

const writeSchedule = (id: number, content: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: { action: "write", type: "schedule", content, datetime: DUE } } });

describe("issue 26: a reminder 2 minutes after its schedule was written, at --speed 60", function () {
  this.timeout(60000);

  it("petmem serve: an MCP notifications/message on stdout within a device minute of its time; the trace on stderr", async () => {
    const c = child(["serve"]);
    c.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } });
    const init = JSON.parse(await c.waitFor((l) => l.includes('"id":1')));
    assert.deepEqual(init.result.capabilities.logging, {});
    c.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    c.send(writeSchedule(2, "吃早饭"));
    const w = JSON.parse(await c.waitFor((l) => l.includes('"id":2')));
    assert.match(w.result.content[0].text, /"result":"added"/);
    const n = JSON.parse(await c.waitFor((l) => l.includes("notifications/message")));
    assert.equal(n.params.logger, "petmem.reminder");
    assert.equal(n.params.data.content, "吃早饭");
    assert.equal(n.params.data.datetime, DUE);
    const late = atMs(n.params.data.at) - dueMs;
    assert.ok(late >= -60000 && late <= 60000, `delivered at ${n.params.data.at}, ${late / 1000} s from its time`);
    assert.equal(await c.stop(), 0);
    assert.ok(c.err.some((l) => l.startsWith('{"reminder":') && l.includes("吃早饭")), "stderr keeps the trace line");
    assert.equal(c.out.filter((l) => l.includes("notifications/message")).length, 1, "once");
  });

  it("the official MCP SDK client receives it as a logging message (setLoggingLevel works)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-remind-sdk-"));
    const transport = new StdioClientTransport({ command: process.execPath, args: [PETMEM, "--data", dir, "--now", START, "--tz", "+08:00", "--speed", "60"], cwd: os.tmpdir(), stderr: "pipe" });
    const client = new Client({ name: "petmem-test", version: "1.0.0" });
    const got: { level: string; logger?: string; data: any }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(n.params as never));
    try {
      await client.connect(transport);
      assert.deepEqual(client.getServerCapabilities()?.logging, {});
      await client.setLoggingLevel("notice");
      const r = await client.callTool({ name: "memory", arguments: { action: "write", type: "schedule", content: "喝水", datetime: DUE } });
      assert.match((r.content as { text: string }[])[0].text, /"result":"added"/);
      const t0 = Date.now();
      while (!got.length && Date.now() - t0 < 15000) await new Promise((res) => setTimeout(res, 50));
      assert.equal(got.length, 1, "one logging message");
      assert.equal(got[0].level, "notice");
      assert.equal(got[0].logger, "petmem.reminder");
      assert.equal(got[0].data.content, "喝水");
      const late = atMs(got[0].data.at) - dueMs;
      assert.ok(late >= -60000 && late <= 60000, `delivered at ${got[0].data.at}`);
    } finally {
      await client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("petmem serve --xiaozhi: the device's listen/detect [device_call] message", async () => {
    const c = child(["serve", "--xiaozhi"]);
    await c.waitFor((l) => l.includes('"hello"'));
    c.send({ type: "hello", version: 1, transport: "websocket", session_id: "s1" });
    c.send({ type: "mcp", payload: writeSchedule(2, "开视频会议") });
    await c.waitFor((l) => l.includes('"id":2'));
    const t0 = Date.now();
    const m = JSON.parse(await c.waitFor((l) => l.includes('"type":"listen"')));
    assert.equal(m.state, "detect");
    assert.equal(m.session_id, "s1");
    assert.match(m.text, /^\[device_call\].*开视频会议/);
    // about 2 real seconds at --speed 60; the trace line says when in device time
    const trace = c.err.find((l) => l.startsWith('{"reminder":') && l.includes("开视频会议"));
    assert.ok(trace, c.err.join("\n"));
    assert.ok(Date.now() - t0 < 10000);
    assert.equal(await c.stop(), 0);
  });

  it("petmem web: the /api/reminders event stream; the page subscribes to it", async () => {
    const data = tempData();
    const w = await startWebProcess(data, ["--now", START, "--tz", "+08:00", "--speed", "60"]);
    try {
      const events: string[] = [];
      const req = http.get(`${w.url}/api/reminders`, (res) => {
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers["content-type"]), /^text\/event-stream/);
        res.setEncoding("utf8");
        res.on("data", (c: string) => events.push(c));
      });
      req.on("error", () => {});
      const page = await fetch(`${w.url}/`).then((r) => r.text());
      assert.match(page, /new EventSource\("\/api\/reminders"\)/);
      const post = (p: string, body: unknown) => fetch(`${w.url}${p}`, { method: "POST", headers: { Authorization: `Bearer ${w.token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, json: await r.json() }));
      // a schedule heard in a conversation, written at its end (2 device minutes before its time)
      assert.equal((await post("/session/start", {})).status, 200);
      await post("/session/message", { role: "user", text: "八点我要吃药" });
      await post("/session/message", { role: "assistant", text: "好的，八点提醒你吃药" });
      const end = await post("/session/end", {});
      assert.equal(end.status, 200, JSON.stringify(end.json));
      const t0 = Date.now();
      while (!events.join("").includes("event: reminder") && Date.now() - t0 < 15000) await new Promise((r) => setTimeout(r, 50));
      const text = events.join("");
      const m = /event: reminder\ndata: (.*)\n/.exec(text);
      assert.ok(m, `no reminder event; the stream: ${text}; formed: ${JSON.stringify(end.json)}; stderr: ${w.stderr()}`);
      const r = JSON.parse(m[1]);
      assert.equal(r.datetime, DUE);
      const late = atMs(r.at) - dueMs;
      assert.ok(late >= -60000 && late <= 60000, `delivered at ${r.at}, ${late / 1000} s from its time`);
      req.destroy();
    } finally {
      assert.equal(await w.stop(), 0, w.stderr());
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

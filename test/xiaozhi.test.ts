// `npm start -- --xiaozhi` driven by the double of the xiaozhi server
// (test/xiaozhi/double.ts) through the child's stdin/stdout, as the server's
// WebSocket would: a whole session, then a restart on the same data folder to
// see what was stored; and the replay of a recorded session file.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { XiaozhiServerDouble, type Wire } from "./xiaozhi/double";

const NOW = "2026-02-05T13:00";
const SESSION = path.join(path.dirname(new URL(import.meta.url).pathname), "xiaozhi", "session.jsonl");

function device(dir: string): { child: ChildProcessWithoutNullStreams; wire: Wire; stderr: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", "desktop/main.ts", "--xiaozhi", "--data", dir, "--now", NOW, "--tz", "+08:00"], { stdio: "pipe" });
  const lines: string[] = [];
  const waiting: ((l: string | undefined) => void)[] = [];
  let closed = false;
  readline.createInterface({ input: child.stdout }).on("line", (l) => {
    const w = waiting.shift();
    if (w) w(l);
    else lines.push(l);
  });
  child.stdout.on("close", () => {
    closed = true;
    for (const w of waiting.splice(0)) w(undefined);
  });
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr }).on("line", (l) => stderr.push(l));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const wire: Wire = {
    send(m) {
      child.stdin.write(m + "\n");
    },
    receive() {
      if (lines.length) return Promise.resolve(lines.shift());
      if (closed) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const t = setTimeout(() => resolve(undefined), 10000); // the server's call timeout, shortened
        waiting.push((l) => {
          clearTimeout(t);
          resolve(l);
        });
      });
    },
  };
  return { child, wire, stderr, exited };
}

const events = (stderr: string[], key: string) => stderr.filter((l) => l.startsWith(`{"${key}"`)).map((l) => JSON.parse(l)[key]);

describe("npm start -- --xiaozhi, driven by a double of the xiaozhi server", function () {
  this.timeout(60000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-xz-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a session: the model sees every answer, the device hears the conversation, memory survives a restart", async () => {
    const a = device(dir);
    const server = new XiaozhiServerDouble(a.wire);
    await server.connect();
    assert.equal(server.ready, true, "tools ready");
    assert.equal(server.initializeResult?.protocolVersion, "2024-11-05");
    const memory = server.functions().find((f) => f.name === "memory");
    assert.ok(memory, "the model is offered the memory tool");

    const [read] = await server.turn({ user: "你好呀，我叫王小明，今年八岁。", calls: [{ tool: "memory", args: { action: "read" } }], reply: ["你好小明！很高兴认识你。"] });
    assert.equal(read.action, "REQLLM");
    const [bad, good] = await server.turn({
      user: "记住，我最喜欢的动物是恐龙",
      calls: [
        { tool: "memory", args: { action: "write", type: "likes", content: "恐龙" } },
        { tool: "memory", args: { action: "write", type: "like", content: "恐龙" } },
      ],
      reply: ["好的，我记住了，你喜欢恐龙。"],
      emoji: "😆",
    });
    assert.equal(bad.action, "REQLLM", "the model reads the error");
    assert.match(bad.modelSaw!, /^error: .*type/);
    assert.equal(JSON.parse(good.modelSaw!).result, "added");
    const [missing] = await server.turn({ user: "帮我开灯", calls: [{ tool: "self_light_on", args: {} }], reply: ["我还不会开灯呢。"], emoji: "😔" });
    assert.equal(missing.action, "NOTFOUND");
    server.goodbye();
    a.child.stdin.end();
    assert.equal(await a.exited, 0, a.stderr.join("\n"));
    assert.deepEqual(server.crashes, []);
    const memories = events(a.stderr, "memory").map((m) => `${m.type}=${m.content}:${m.result}`);
    assert.ok(memories.includes("name=王小明:added"), memories.join(" "));
    assert.ok(memories.includes("age=8:added"), memories.join(" "));
    assert.deepEqual(events(a.stderr, "end").map((e) => e.reason), ["explicit"]);

    // the next boot: the model reads what was stored
    const b = device(dir);
    const again = new XiaozhiServerDouble(b.wire);
    await again.connect();
    const [r] = await again.turn({ user: "你还记得我吗", calls: [{ tool: "memory", args: { action: "read" } }], reply: ["当然记得"] });
    const doc = JSON.parse(r.modelSaw!);
    assert.deepEqual(doc.profile, { name: "王小明", age: 8 });
    assert.deepEqual(doc.preferences.likes, ["恐龙"]);
    b.child.stdin.end();
    assert.equal(await b.exited, 0);
  });

  it("issue 24: the model's write and the heard line in one conversation give one fact; its schedule and the heard reminder one schedule", async () => {
    const a = device(dir);
    const server = new XiaozhiServerDouble(a.wire);
    await server.connect();
    await server.turn({
      user: "我叫林小雨，我在读小学三年级。",
      calls: [
        { tool: "memory", args: { action: "write", type: "name", content: "林小雨" } },
        { tool: "memory", args: { action: "write", type: "fact", content: "林小雨在读小学三年级" } },
      ],
      reply: ["三年级啦，真厉害！"],
    });
    await server.turn({ user: "提醒我练琴", calls: [{ tool: "memory", args: { action: "write", type: "schedule", content: "练琴", datetime: "2026-02-05 19:00", repeat: "daily" } }], reply: ["好的，每天晚上七点提醒你练琴。"] });
    server.goodbye();
    a.child.stdin.end();
    assert.equal(await a.exited, 0, a.stderr.join("\n"));
    const b = device(dir);
    const again = new XiaozhiServerDouble(b.wire);
    await again.connect();
    const [r] = await again.turn({ user: "你还记得我吗", calls: [{ tool: "memory", args: { action: "read" } }], reply: ["记得"] });
    const doc = JSON.parse(r.modelSaw!);
    assert.deepEqual(doc.facts, ["林小雨在读小学三年级"], "one fact");
    assert.deepEqual(doc.events ?? [], [], "no todo beside the schedule");
    assert.deepEqual(doc.schedules.map((x: { content: string }) => x.content), ["练琴"]);
    b.child.stdin.end();
    assert.equal(await b.exited, 0);
  });

  it("a recorded session replays: every request answered in the envelope with its id, in order", () => {
    const input = fs.readFileSync(SESSION, "utf8");
    const r = spawnSync(process.execPath, ["--import", "tsx", "desktop/main.ts", "--xiaozhi", "--data", dir, "--now", NOW, "--tz", "+08:00"], { input, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(out[0].type, "hello");
    assert.deepEqual(out[0].features, { mcp: true });
    const asked = input
      .split("\n")
      .filter((l) => l.trim() && !l.startsWith("#"))
      .map((l) => JSON.parse(l))
      .filter((m) => m.type === "mcp" && m.payload.id !== undefined)
      .map((m) => m.payload.id);
    const answered = out.slice(1).map((m) => {
      assert.equal(m.type, "mcp");
      assert.equal(m.session_id, "replay-1", "the session id from the server's hello");
      return m.payload.id;
    });
    assert.deepEqual(answered, asked);
    for (const m of out.slice(1)) {
      assert.equal(m.payload.error, undefined, JSON.stringify(m));
      const c = m.payload.result.content;
      if (c) assert.equal(m.payload.result.isError, false);
    }
    const memories = events(r.stderr.split("\n"), "memory").map((m) => `${m.type}=${m.content}`);
    assert.ok(memories.includes("name=王小明"), r.stderr);
  });
});

// A real MCP client (issue 6 §5): the official TypeScript SDK's Client over
// StdioClientTransport drives the server that `npm start` runs (launched
// directly, so no npm banner reaches stdout), calls every action of the
// `memory` tool, restarts the process on the same data folder and finds the
// data still there.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = path.resolve(import.meta.dirname, "..");

interface Running {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

async function start(dir: string): Promise<Running> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "desktop/main.ts", "--data", dir, "--now", "2026-02-05T13:00", "--tz", "+08:00"],
    cwd: ROOT,
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (b: Buffer) => (log += b.toString("utf8")));
  const client = new Client({ name: "petmem-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, stderr: () => log };
}

async function stop(r: Running): Promise<void> {
  const pid = r.transport.pid;
  await r.client.close();
  assert.ok(pid, "the server had a pid");
  // the server ends on stdin's end: it flushed and exited by itself
  assert.throws(() => process.kill(pid, 0), /ESRCH/, "the server process is gone");
}

interface Reply {
  isError: boolean;
  text: string;
}

async function call(r: Running, args: Record<string, unknown>): Promise<Reply> {
  const res = await r.client.callTool({ name: "memory", arguments: args });
  const content = res.content as { type: string; text: string }[];
  assert.equal(content.length, 1, r.stderr());
  assert.equal(content[0].type, "text");
  return { isError: res.isError === true, text: content[0].text };
}

// A call that must succeed, its reply parsed.
async function ok(r: Running, args: Record<string, unknown>): Promise<any> {
  const reply = await call(r, args);
  assert.equal(reply.isError, false, `${JSON.stringify(args)} -> ${reply.text}\n${r.stderr()}`);
  return JSON.parse(reply.text);
}

describe("MCP client: the official SDK over stdio against npm start", function () {
  this.timeout(30000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-mcp-"))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("lists the tool, calls every action, restarts, and finds the data still there", async () => {
    const r = await start(dir);
    try {
      assert.equal(r.client.getServerVersion()?.name, "petmem");
      assert.deepEqual(r.client.getServerCapabilities()?.tools, {});

      // ---- tools/list ----
      const { tools } = await r.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["memory"]);
      const tool = tools[0];
      assert.match(tool.description ?? "", /action=read at the start of every conversation/);
      const props = tool.inputSchema.properties as Record<string, { enum?: string[] }>;
      assert.deepEqual(tool.inputSchema.required, ["action"]);
      assert.deepEqual(props.action.enum, ["read", "write", "delete", "complete_schedule", "recall", "search", "pending", "confirm", "drop", "status", "context", "query", "summary", "config"]);
      for (const t of ["name", "age", "like", "family", "moment", "goal", "schedule"]) assert.ok(props.type.enum!.includes(t), t);
      for (const k of ["datetime", "repeat", "priority", "duration", "force", "keyword", "start_date", "end_date", "limit"]) assert.ok(k in props, k);

      // ---- write, many types ----
      assert.deepEqual(await ok(r, { action: "write", type: "name", content: "小明" }), { result: "added", type: "name" });
      assert.equal((await ok(r, { action: "write", type: "age", content: "9" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "birthday", content: "03-15" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "location", content: "杭州" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "like", content: "恐龙" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "dislike", content: "下雨" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "family", relation: "妈妈", name: "李华", closeness: 5, memory: "一起去海边" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "fact", content: "养了一只叫豆豆的猫" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "trait", category: "personality", content: "好奇心强" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "habit", content: "睡前读书", frequency: "daily" })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "moment", topic: "比赛", content: "足球比赛赢了", emotion: "happy", importance: 4 })).result, "added");
      assert.equal((await ok(r, { action: "write", type: "goal", content: "学会游泳", category: "health", priority: 4 })).result, "added");

      // ---- schedules: datetime, repeat, priority; a conflict; force ----
      const piano = await ok(r, { action: "write", type: "schedule", content: "钢琴课", datetime: "2026-02-06 16:00", repeat: "weekly", priority: 4, duration: 60 });
      assert.equal(piano.result, "added");
      assert.deepEqual(piano.schedule, { content: "钢琴课", datetime: "2026-02-06 16:00", priority: 4, duration: 60, repeat: "weekly", reminded: false, completed: false });
      const clash = await ok(r, { action: "write", type: "schedule", content: "英语课", datetime: "2026-02-06 16:30" });
      assert.equal(clash.result, "conflict");
      assert.deepEqual(clash.conflicts_with, { content: "钢琴课", datetime: "2026-02-06 16:00", until: "2026-02-06 17:00" });
      assert.ok(Array.isArray(clash.suggested_times) && clash.suggested_times.length > 0, JSON.stringify(clash));
      for (const t of clash.suggested_times) assert.match(t, /^2026-02-\d\d \d\d:\d\d$/);
      const forced = await ok(r, { action: "write", type: "schedule", content: "英语课", datetime: "2026-02-06 16:30", force: true });
      assert.equal(forced.result, "added");
      assert.deepEqual(forced.overrode_conflicts, ["钢琴课 at 2026-02-06 16:00"]);
      assert.equal((await ok(r, { action: "write", type: "schedule", content: "看牙医", datetime: clash.suggested_times[0] })).result, "added");

      // ---- read: the seed's §6.1 document ----
      const doc = await ok(r, { action: "read" });
      for (const k of ["profile", "preferences", "family", "facts", "traits", "habits", "moments", "goals", "schedules", "total_coins_spent", "relationship"]) assert.ok(k in doc, k);
      assert.deepEqual(doc.profile, { name: "小明", age: 9, location: "杭州", birthday: "03-15" });
      assert.deepEqual(doc.preferences, { likes: ["恐龙"], dislikes: ["下雨"] });
      assert.deepEqual(doc.family, [{ relation: "妈妈", name: "李华", closeness: 5, memory: "一起去海边" }]);
      assert.deepEqual(doc.facts, ["养了一只叫豆豆的猫"]);
      assert.deepEqual(doc.moments, [{ topic: "比赛", content: "足球比赛赢了", emotion: "happy", importance: 4 }]);
      assert.deepEqual(doc.goals, [{ content: "学会游泳", progress: 0, priority: 4 }]);
      assert.deepEqual(doc.schedules.map((s: { content: string }) => s.content).sort(), ["看牙医", "英语课", "钢琴课"].sort());
      assert.equal(doc.total_coins_spent, 0);
      assert.equal(typeof doc.relationship.stage, "string");
      assert.equal(typeof doc.relationship.style, "string");

      // ---- delete ----
      assert.deepEqual(await ok(r, { action: "delete", type: "dislike", content: "下雨" }), { result: "deleted", type: "dislike" });
      assert.deepEqual(await ok(r, { action: "delete", type: "schedule", content: "看牙医" }), { result: "deleted", type: "schedule" });
      assert.deepEqual(await ok(r, { action: "delete", type: "fact", content: "没有这回事" }), { result: "not_found", type: "fact" });

      // ---- complete a repeating schedule: its next occurrence ----
      const done = await ok(r, { action: "complete_schedule", content: "钢琴课" });
      assert.equal(done.result, "completed");
      assert.equal(done.schedule.completed, true);
      assert.equal(done.next.datetime, "2026-02-13 16:00");
      assert.equal(done.next.completed, false);

      // ---- search ----
      const found = await ok(r, { action: "search", keyword: "豆豆" });
      assert.equal(found.count, 1);
      assert.deepEqual(found.items, [{ where: "fact", text: "养了一只叫豆豆的猫" }]);
      assert.equal((await ok(r, { action: "search", keyword: "钢琴" })).count >= 1, true);

      // ---- recall: 20 more facts roll the oldest 5 (豆豆 among them) into the archive ----
      for (let i = 0; i < 20; i++) await ok(r, { action: "write", type: "fact", content: `第${i}件小事` });
      const recall = await call(r, { action: "recall", type: "fact", keyword: "豆豆" });
      assert.equal(recall.isError, false, recall.text);
      const got = JSON.parse(recall.text);
      assert.equal(got.type, "fact");
      assert.equal(got.count, 1, recall.text);
      assert.equal(got.items[0].content, "养了一只叫豆豆的猫");
      assert.equal(got.items[0].archived, true, "found in the archive");
      // recall sees all memory: the latest facts are those still in NVS, newest first
      const recent = JSON.parse((await call(r, { action: "recall", type: "fact", limit: 3 })).text);
      assert.equal(recent.count, 3);
      assert.deepEqual(recent.items.map((x: { content: string }) => x.content), ["第19件小事", "第18件小事", "第17件小事"]);
      assert.ok(recent.items.every((x: { archived?: boolean }) => x.archived === undefined));
      const both = JSON.parse((await call(r, { action: "search", keyword: "豆豆" })).text);
      assert.equal(both.count, 0, "no longer in NVS");
      assert.equal(both.archived.fact.length, 1, "found in the archive");

      // ---- invalid calls: isError with what was wrong and what is accepted ----
      const bad = await call(r, { action: "write", type: "schedule", content: "游泳课", datetime: "tomorrow at 5" });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /datetime .*YYYY-MM-DD HH:MM/);
      const unknown = await call(r, { action: "forget", type: "like", content: "恐龙" });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /action must be one of read, write, delete, complete_schedule, recall, search/);
      const wrongType = await call(r, { action: "write", type: "like", content: 42 });
      assert.equal(wrongType.isError, true);
      assert.match(wrongType.text, /like must be a string/);
    } finally {
      await stop(r);
    }
    assert.equal(fs.statSync(path.join(dir, "nvs.bin")).size, 48 * 1024, "NVS is in the data folder, byte for byte");

    // ---- a new process on the same data folder remembers ----
    const r2 = await start(dir);
    try {
      const doc = await ok(r2, { action: "read" });
      assert.deepEqual(doc.profile, { name: "小明", age: 9, location: "杭州", birthday: "03-15" });
      assert.deepEqual(doc.preferences, { likes: ["恐龙"], dislikes: [] });
      assert.deepEqual(doc.family, [{ relation: "妈妈", name: "李华", closeness: 5, memory: "一起去海边" }]);
      assert.equal(doc.facts.length, 16);
      assert.ok(doc.facts.includes("第19件小事") && !doc.facts.includes("养了一只叫豆豆的猫"));
      const again = JSON.parse((await call(r2, { action: "recall", type: "fact", keyword: "豆豆" })).text);
      assert.equal(again.count, 1, "the archive survives the restart");
      assert.deepEqual(doc.traits, ["personality: 好奇心强"]);
      assert.deepEqual(doc.habits, ["睡前读书 (daily)"]);
      assert.deepEqual(doc.goals, [{ content: "学会游泳", progress: 0, priority: 4 }]);
      const schedules = doc.schedules.map((s: { content: string; datetime: string }) => `${s.content} ${s.datetime}`);
      assert.deepEqual(schedules, ["钢琴课 2026-02-13 16:00", "英语课 2026-02-06 16:30"], "by priority (4, 3), then time");
      // and it keeps working: a write after the restart, then the search sees it
      assert.equal((await ok(r2, { action: "write", type: "like", content: "画画" })).result, "added");
      assert.equal((await ok(r2, { action: "search", keyword: "画画" })).count, 1);
    } finally {
      await stop(r2);
    }
  });
});

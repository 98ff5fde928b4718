// Issue 25's examples through every path a question takes: the official MCP
// SDK over stdio (npm start), `npm start -- --xiaozhi` driven by the double
// of the xiaozhi server, and `petmem web`: POST /context and the timeline
// page's search (GET /api/search, which the page shows). One data folder:
// the owner's name, the birthday 02-11, the episode 主人的猫咪咪生病了，带它去看了兽医,
// the friend 小军's gift and the mother's operation.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { XiaozhiServerDouble, type Wire } from "./xiaozhi/double";
import { startWebProcess, request } from "./web-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const NOW = ["--now", "2026-02-05T13:00", "--tz", "+08:00"];
const EPISODE = "主人的猫咪咪生病了，带它去看了兽医";

describe("issue 25: the examples come back through stdio MCP, --xiaozhi, POST /context and the timeline's search", function () {
  this.timeout(120000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-recall-"))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("stdio MCP: 猫 and 生日 find what holds them; context brings the episode; 小君 and 爸爸's operation find nothing", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", "desktop/main.ts", "--data", dir, ...NOW], cwd: ROOT, stderr: "pipe" });
    const client = new Client({ name: "petmem-test", version: "1.0.0" });
    await client.connect(transport);
    const call = async (args: Record<string, unknown>) => {
      const r = await client.callTool({ name: "memory", arguments: args });
      const text = (r.content as { text: string }[])[0].text;
      assert.notEqual(r.isError, true, `${JSON.stringify(args)} → ${text}`);
      return JSON.parse(text);
    };
    await call({ action: "write", type: "name", content: "王小明" });
    await call({ action: "write", type: "birthday", content: "2月11日" }); // the form a model sends
    await call({ action: "write", type: "episode", content: EPISODE, e: 0.6, i: 0.5, p: 0.3, j: 0.6 });
    await call({ action: "write", type: "fact", content: "小军送了主人一个足球作为礼物" });
    await call({ action: "write", type: "fact", content: "妈妈上周做了一个小手术，恢复得不错" });
    const ep = await call({ action: "recall", type: "episode", keyword: "猫" });
    assert.equal(ep.items[0].content, EPISODE);
    const cat = await call({ action: "search", keyword: "猫" });
    assert.equal(cat.hits[0].text, EPISODE);
    assert.equal(cat.hits[0].kind, "episode");
    assert.equal(cat.hits[0].age, "今天");
    const birthday = await call({ action: "search", keyword: "生日" });
    assert.deepEqual(birthday.hits[0], { kind: "profile", text: "生日：02-11", age: "" });
    for (const message of ["我的猫最近怎么样", "咪咪最近身体好点了吗"]) {
      const c = await call({ action: "context", message });
      assert.ok(c.context.indexOf(`今天的对话摘要“${EPISODE}”`) > 0, c.context);
    }
    assert.deepEqual((await call({ action: "search", keyword: "小君送的礼物" })).hits, [], "小君 is not 小军");
    assert.deepEqual((await call({ action: "search", keyword: "爸爸的手术" })).hits, [], "爸爸's is not 妈妈's");
    assert.equal((await call({ action: "search", keyword: "妈妈的手术" })).hits[0].text, "妈妈上周做了一个小手术，恢复得不错");
    await client.close();
  });

  it("--xiaozhi: the model's search for 生日 and its context for 咪咪 come back through the xiaozhi server's double", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "desktop/main.ts", "--xiaozhi", "--data", dir, ...NOW], { cwd: ROOT, stdio: "pipe" });
    const lines: string[] = [];
    const waiting: ((l: string | undefined) => void)[] = [];
    readline.createInterface({ input: child.stdout }).on("line", (l) => {
      const w = waiting.shift();
      if (w) w(l);
      else lines.push(l);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const wire: Wire = {
      send: (m) => void child.stdin.write(m + "\n"),
      receive: () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve))),
    };
    const server = new XiaozhiServerDouble(wire);
    await server.connect();
    const [s] = await server.turn({ user: "你还记得我的生日吗", calls: [{ tool: "memory", args: { action: "search", keyword: "生日" } }], reply: ["记得，2月11日"] });
    assert.equal(JSON.parse(s.modelSaw!).hits[0].text, "生日：02-11");
    const [c] = await server.turn({ user: "咪咪最近身体好点了吗", calls: [{ tool: "memory", args: { action: "context", message: "咪咪最近身体好点了吗" } }], reply: ["咪咪去看过兽医了"] });
    assert.ok(JSON.parse(c.modelSaw!).context.indexOf(EPISODE) > 0, c.modelSaw);
    server.goodbye();
    child.stdin.end();
    assert.equal(await exited, 0);
  });

  it("petmem web: POST /context brings the episode; the timeline's search shows ranked hits with kind and age, and nothing for 小君", async () => {
    const w = await startWebProcess(dir, NOW);
    try {
      const c = await request(w, "POST", "/context", { token: w.token, body: { message: "我的猫最近怎么样" } });
      assert.equal(c.status, 200, c.text);
      assert.ok(c.json.context.indexOf(EPISODE) > 0, c.json.context);
      const s = await request(w, "GET", "/api/search?q=" + encodeURIComponent("猫"));
      assert.equal(s.status, 200, s.text);
      assert.equal(s.json.hits[0].text, EPISODE);
      assert.equal(s.json.hits[0].kind, "episode");
      const b = await request(w, "GET", "/api/search?q=" + encodeURIComponent("生日"));
      assert.equal(b.json.hits[0].text, "生日：02-11");
      const none = await request(w, "GET", "/api/search?q=" + encodeURIComponent("小君送的礼物"));
      assert.deepEqual(none.json.hits, []);
      const page = await request(w, "GET", "/");
      assert.match(page.text, /d\.hits/, "the page shows the ranked hits");
    } finally {
      assert.equal(await w.stop(), 0, w.stderr());
    }
  });
});

// `petmem web` over real HTTP: the program as a user starts it (its own
// process, port 0, a temporary data folder), every route of the page and of
// seed 004's API, the token rules, the refusals (400, 401, 403, 404, 405,
// 409, 413) each leaving the device's bytes as they were, and memory formed
// by a conversation showing in /profile.

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import { spawnSync } from "node:child_process";
import { startWebProcess, tempData, request, deviceBytes, sameBytes, converse, CONVERSATION, PETMEM, type WebProcess } from "./web-server";

const POSTS = ["/session/start", "/session/message", "/session/end", "/context", "/import", "/maintenance/forget", "/maintenance/cleanup"];

function notBuilt(r: { status: number; json: { error?: string } | undefined }): boolean {
  return r.status === 500 && /not built yet/.test(r.json?.error ?? "");
}

describe("petmem web: the HTTP server", function () {
  this.timeout(60000);
  let w: WebProcess;
  let data: string;

  before(async () => {
    data = tempData();
    w = await startWebProcess(data);
    const end = await converse(w, [
      ...CONVERSATION.slice(0, 6), // name, a like, a friend
      ["user", "我对花生过敏"],
      ["assistant", "记住了，不吃花生"],
      ["user", "明天下午三点去公园"],
      ["assistant", "好的"],
    ]);
    assert.equal(end.status, 200, end.text);
  });

  after(async () => {
    if (w) assert.equal(await w.stop(), 0, w.stderr());
    fs.rmSync(data, { recursive: true, force: true });
  });

  it("prints its address on 127.0.0.1 and a token, and listens on loopback only", async () => {
    assert.match(w.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(w.port > 0);
    assert.match(w.token, /^[0-9a-f]{32}$/);
    // another address of this machine does not answer on that port
    const others = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === "IPv4")
      .map((a) => a!.address);
    for (const addr of others) {
      const refused = await new Promise<boolean>((resolve) => {
        const s = net.connect({ host: addr, port: w.port });
        s.once("connect", () => {
          s.destroy();
          resolve(false);
        });
        s.once("error", () => resolve(true));
      });
      assert.equal(refused, true, `port ${w.port} answers on ${addr}`);
    }
  });

  it("a conversation forms memory and /profile shows it", async () => {
    const r = await request(w, "GET", "/profile");
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.profile.name, "小明");
    assert.deepEqual(r.json.preferences.likes, ["恐龙"]);
    assert.ok(r.json.family.some((f: { name: string }) => f.name === "小红"), r.text);
    assert.ok(r.json.facts.includes("主人对花生过敏"), r.text);
    assert.ok(r.json.schedules.some((s: { content: string; datetime: string }) => s.content === "去公园" && s.datetime === "2026-03-06 15:00"), r.text);
    assert.equal(r.json.pending.length, 0);
  });

  it("a session: start, messages heard, end with what was formed", async () => {
    const s = await request(w, "POST", "/session/start", { token: w.token, body: { user_id: "child_001" } });
    assert.equal(s.status, 200, s.text);
    assert.equal(s.json.user_id, "child_001");
    const id = s.json.session_id as string;
    const m = await request(w, "POST", "/session/message", { token: w.token, body: { session_id: id, role: "user", text: "我不喜欢下雨" } });
    assert.equal(m.status, 200, m.text);
    assert.equal(m.json.session_id, id);
    assert.deepEqual(
      m.json.heard.map((h: { type: string; content: string }) => [h.type, h.content]),
      [["dislike", "下雨"]],
    );
    // seed 004's name for the text is accepted too
    const c = await request(w, "POST", "/session/message", { token: w.token, body: { session_id: id, role: "assistant", content: "下雨天可以在家画画" } });
    assert.equal(c.status, 200, c.text);
    const e = await request(w, "POST", "/session/end", { token: w.token, body: { session_id: id } });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.json.ended, "explicit");
    assert.deepEqual(
      e.json.formed.map((f: { type: string; content: string; result: string }) => [f.type, f.content, f.result]),
      [["dislike", "下雨", "added"]],
    );
    const p = await request(w, "GET", "/profile");
    assert.deepEqual(p.json.preferences.dislikes, ["下雨"]);
    // that session is over: naming it again is a conflict, and ending nothing is one too
    const again = await request(w, "POST", "/session/message", { token: w.token, body: { session_id: id, role: "user", text: "你好" } });
    assert.equal(again.status, 409, again.text);
    const none = await request(w, "POST", "/session/end", { token: w.token, body: {} });
    assert.equal(none.status, 409, none.text);
  });

  it("a farewell answered ends the session by itself; /session/end then reports it", async () => {
    const s = await request(w, "POST", "/session/start", { token: w.token });
    const id = s.json.session_id as string;
    const say = (role: string, text: string) => request(w, "POST", "/session/message", { token: w.token, body: { session_id: id, role, text } });
    assert.equal((await say("user", "我喜欢画画")).json.ended, undefined);
    await say("assistant", "画画真好");
    await say("user", "拜拜");
    const last = await say("assistant", "再见！");
    assert.equal(last.status, 200, last.text);
    assert.equal(last.json.ended, "farewell");
    const e = await request(w, "POST", "/session/end", { token: w.token, body: { session_id: id } });
    assert.equal(e.status, 200, e.text);
    assert.equal(e.json.ended, "farewell");
    assert.deepEqual(
      e.json.formed.map((f: { type: string; content: string }) => [f.type, f.content]),
      [["like", "画画"]],
    );
  });

  it("GET / is the timeline page: self-contained, no CORS, a content security policy", async () => {
    const r = await request(w, "GET", "/");
    assert.equal(r.status, 200);
    assert.match(String(r.headers["content-type"]), /^text\/html; charset=utf-8/);
    assert.match(r.text, /<html lang="zh-CN">/);
    assert.match(r.text, /时间线/);
    assert.doesNotMatch(r.text, /<script[^>]+src=|<link[^>]+href=|https?:\/\//, "the page loads nothing from elsewhere");
    assert.match(String(r.headers["content-security-policy"]), /default-src 'none'/);
    assert.equal(r.headers["access-control-allow-origin"], undefined);
  });

  it("GET /api/timeline: profile, the months, storage use", async () => {
    const r = await request(w, "GET", "/api/timeline");
    assert.equal(r.status, 200, r.text);
    const d = r.json;
    assert.equal(d.profile.name, "小明");
    assert.equal(d.time_zone, "+08:00");
    const march = d.timeline.find((g: { month: string }) => g.month === "2026-03");
    assert.ok(march, r.text);
    const kinds = (k: string) => march.items.filter((i: { kind: string }) => i.kind === k).map((i: { text: string }) => i.text);
    assert.deepEqual(kinds("fact"), ["主人对花生过敏"]);
    assert.deepEqual(kinds("schedule"), ["去公园"]);
    assert.equal(kinds("episode").length, 1, "the five-round conversation formed an episode");
    assert.ok(d.storage.nvs.percent > 0 && d.storage.nvs.percent < 100);
    assert.ok(d.storage.storage.percent >= 0 && d.storage.storage.percent < 100);
    assert.equal(d.episodes.available, true);
    assert.equal(d.episodes.active, 1);
  });

  it("GET /api/search finds through the AI's search, and says when nothing is found", async () => {
    const hit = await request(w, "GET", "/api/search?q=" + encodeURIComponent("花生"));
    assert.equal(hit.status, 200, hit.text);
    assert.deepEqual(hit.json.items, [{ where: "fact", text: "主人对花生过敏" }]);
    assert.ok(hit.json.total >= 1);
    const miss = await request(w, "GET", "/api/search?q=" + encodeURIComponent("火星探险"));
    assert.equal(miss.status, 200, miss.text);
    assert.equal(miss.json.total, 0);
    assert.equal((await request(w, "GET", "/api/search?q=")).status, 400);
    assert.equal((await request(w, "GET", "/api/search?q=" + encodeURIComponent("长".repeat(65)))).status, 400);
  });

  it("GET /stats: the tool's status and the partitions", async () => {
    const r = await request(w, "GET", "/stats");
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status.records.profile, 1);
    assert.equal(r.json.partitions.nvs.partition_bytes, 48 * 1024);
    assert.equal(r.json.time_zone, "+08:00");
  });

  it("POST /context: the tool's context block for a message", async () => {
    const r = await request(w, "POST", "/context", { token: w.token, body: { message: "我们去看恐龙吧", budget: 600 } });
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.context, /【用户信息】/);
    assert.match(r.json.context, /小明/);
    assert.equal(r.json.budget, 600);
    assert.ok(r.json.bytes <= 600);
    const bad = await request(w, "POST", "/context", { token: w.token, body: { message: "x", budget: 100 } });
    assert.equal(bad.status, 400, bad.text);
  });

  it("POST /maintenance/forget and /maintenance/cleanup run, and never during a conversation", async () => {
    const f = await request(w, "POST", "/maintenance/forget", { token: w.token });
    assert.equal(f.status, 200, f.text);
    assert.deepEqual(f.json.forgotten, [], "an episode told today is not forgotten");
    assert.equal(f.json.episodes.active, 1);
    const c = await request(w, "POST", "/maintenance/cleanup", { token: w.token, body: {} });
    assert.equal(c.status, 200, c.text);
    assert.equal(typeof c.json.archive.steps, "number");
    assert.equal(typeof c.json.episodes.steps, "number");
    // a conversation under way: 409, and it goes on
    const s = await request(w, "POST", "/session/start", { token: w.token });
    await request(w, "POST", "/session/message", { token: w.token, body: { role: "user", text: "今天天气真好" } });
    const busy = await request(w, "POST", "/maintenance/forget", { token: w.token });
    assert.equal(busy.status, 409, busy.text);
    assert.equal((await request(w, "POST", "/maintenance/cleanup", { token: w.token })).status, 409);
    const e = await request(w, "POST", "/session/end", { token: w.token, body: { session_id: s.json.session_id } });
    assert.equal(e.status, 200, e.text);
  });

  it("refusals change nothing: token, Host, Origin, paths, methods, bodies", async () => {
    // settle the device: the upkeep done, so nothing moves by itself meanwhile
    assert.equal((await request(w, "POST", "/maintenance/cleanup", { token: w.token })).status, 200);
    const before = deviceBytes(data);
    const heardBefore = (await request(w, "GET", "/profile")).json;
    const line = { role: "user", text: "我喜欢草莓" };
    const cases: [string, string, Parameters<typeof request>[3], number][] = [];
    for (const p of POSTS) {
      cases.push(["POST", p, { body: p === "/session/message" ? line : {} }, 401]);
      cases.push(["POST", p, { body: p === "/session/message" ? line : {}, token: "0".repeat(32) }, 403]);
      cases.push(["POST", p, { body: {}, headers: { Authorization: "Basic eDp5" } }, 403]);
    }
    cases.push(["GET", "/export", {}, 401]);
    cases.push(["GET", "/export", { token: "wrong" }, 403]);
    // DNS rebinding and other origins
    cases.push(["GET", "/profile", { headers: { Host: "evil.example:80" } }, 403]);
    cases.push(["GET", "/", { headers: { Host: `attacker.test:${w.port}` } }, 403]);
    cases.push(["POST", "/session/message", { body: line, token: w.token, headers: { Host: "evil.example" } }, 403]);
    cases.push(["POST", "/session/message", { body: line, token: w.token, headers: { Origin: "http://evil.example" } }, 403]);
    cases.push(["GET", "/api/timeline", { headers: { Origin: "http://evil.example" } }, 403]);
    // paths and methods
    cases.push(["GET", "/nope", {}, 404]);
    cases.push(["GET", "//evil.example/profile", {}, 404]);
    cases.push(["GET", "/profile/", {}, 404]);
    cases.push(["POST", "/profile/child_001", { token: w.token, body: {} }, 404]);
    cases.push(["PUT", "/profile", { body: {} }, 405]);
    cases.push(["GET", "/session/message", {}, 405]);
    cases.push(["DELETE", "/session/start", { token: w.token }, 405]);
    cases.push(["OPTIONS", "/session/message", { headers: { Origin: `http://127.0.0.1:${w.port}`, "Access-Control-Request-Method": "POST" } }, 405]);
    // bodies
    const t = w.token;
    cases.push(["POST", "/session/message", { token: t, body: "not json" }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: "[1,2]" }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: "null" }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: "" }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "user" } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "robot", text: "我喜欢草莓" } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "user", text: 42 } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "user", text: "   " } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "user", text: "我喜欢草莓", content: "我喜欢草莓" } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "user", text: "我喜欢草莓", mood: "happy" } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { role: "user", text: "我喜欢草莓".repeat(500) } }, 400]);
    cases.push(["POST", "/session/message", { token: t, body: { ...line, session_id: "s-none" } }, 409]);
    cases.push(["POST", "/session/message", { token: t, body: JSON.stringify({ role: "user", text: "我喜欢草莓" + "啊".repeat(6000) }) }, 413]);
    cases.push(["POST", "/session/start", { token: t, body: { user_id: 7 } }, 400]);
    cases.push(["POST", "/context", { token: t, body: { message: ["x"] } }, 400]);
    cases.push(["POST", "/context", { token: t, body: { budget: 600 } }, 400]);
    cases.push(["POST", "/context", { token: t, body: { message: "恐龙", budget: "600" } }, 400]);
    cases.push(["POST", "/maintenance/forget", { token: t, body: { now: true } }, 400]);
    cases.push(["POST", "/maintenance/cleanup", { token: t, body: "{" }, 400]);
    cases.push(["POST", "/import", { token: t, body: "[]" }, 400]);
    cases.push(["POST", "/import?replace=maybe", { token: t, body: {} }, 400]);
    for (const [method, p, o, want] of cases) {
      const r = await request(w, method, p, o);
      assert.equal(r.status, want, `${method} ${p} ${JSON.stringify(o).slice(0, 120)}: ${r.status} ${r.text}`);
      assert.equal(typeof r.json?.error, "string", `${method} ${p}: a reason`);
      assert.equal(r.headers["access-control-allow-origin"], undefined);
      if (want === 401) assert.match(String(r.headers["www-authenticate"]), /^Bearer/);
      if (want === 405) assert.ok(r.headers.allow, `${method} ${p}: Allow`);
    }
    const after = deviceBytes(data);
    assert.equal(sameBytes(before, after), undefined, "a refused request changed the device");
    const heardAfter = (await request(w, "GET", "/profile")).json;
    assert.deepEqual(heardAfter, heardBefore, "nothing was heard");
    // the server still serves
    assert.equal((await request(w, "GET", "/stats")).status, 200);
  });

  it("GET /export and POST /import (src/backup)", async function () {
    const ex = await request(w, "GET", "/export", { token: w.token });
    if (notBuilt(ex)) {
      this.skip(); // pending: src/backup/index.ts is still the stub ("export is not built yet"); runs once the backup helper's module is merged
    }
    assert.equal(ex.status, 200, ex.text);
    const doc = JSON.parse(ex.text);
    assert.equal(doc.format, "petmem-export");
    // into an empty device: the same profile
    const data2 = tempData();
    const w2 = await startWebProcess(data2);
    try {
      const before = deviceBytes(data2);
      // a bad document is refused whole, with the path of its first error, and changes nothing
      const bad = structuredClone(doc);
      bad.version = "one";
      const b = await request(w2, "POST", "/import", { token: w2.token, body: bad });
      assert.equal(b.status, 400, b.text);
      assert.equal(typeof b.json.path, "string");
      assert.match(b.json.path, /^\$/);
      assert.equal(sameBytes(before, deviceBytes(data2)), undefined, "a refused import changed the device");
      const ok = await request(w2, "POST", "/import", { token: w2.token, body: ex.text });
      assert.equal(ok.status, 200, ok.text);
      const p1 = (await request(w, "GET", "/profile")).json;
      const p2 = (await request(w2, "GET", "/profile")).json;
      delete p1.relationship;
      delete p2.relationship;
      assert.deepEqual(p2, p1);
      // a second import without replace is refused (the device holds memory now) and changes nothing
      const held = deviceBytes(data2);
      const again = await request(w2, "POST", "/import", { token: w2.token, body: ex.text });
      assert.notEqual(again.status, 200, again.text);
      assert.equal(typeof again.json.error, "string");
      assert.equal(sameBytes(held, deviceBytes(data2)), undefined, "a refused import changed the device");
      // with replace it goes in
      const replaced = await request(w2, "POST", "/import?replace=true", { token: w2.token, body: ex.text });
      assert.equal(replaced.status, 200, replaced.text);
    } finally {
      await w2.stop();
      fs.rmSync(data2, { recursive: true, force: true });
    }
  });

  it("POST /import refuses a bad document with the path of its first error (src/backup)", async function () {
    const before = deviceBytes(data);
    const r = await request(w, "POST", "/import?replace=true", { token: w.token, body: { format: "petmem-export", version: 999 } });
    if (notBuilt(r)) {
      this.skip(); // pending: src/backup/index.ts is still the stub ("import is not built yet"); runs once the backup helper's module is merged
    }
    assert.equal(r.status, 400, r.text);
    assert.equal(typeof r.json.path, "string");
    assert.equal(sameBytes(before, deviceBytes(data)), undefined);
  });
});

describe("petmem web: the archive on the timeline", function () {
  this.timeout(60000);

  it("a fact the nightly run archived stays on the timeline under its month, counted in the archive's months and found by search", async () => {
    const data = tempData();
    try {
      const jan = await startWebProcess(data, ["--now", "2026-01-10T09:00", "--tz", "+08:00"]);
      assert.equal((await converse(jan, [["user", "我对花生过敏"], ["assistant", "记住了"]])).status, 200);
      assert.equal(await jan.stop(), 0, jan.stderr());
      // two seconds before the 03:30 run, 54 days later: the fact (older than 30 days) moves to the archive
      const w = await startWebProcess(data, ["--now", "2026-03-05T03:29:58", "--tz", "+08:00"]);
      try {
        let t = (await request(w, "GET", "/api/timeline")).json;
        for (let i = 0; i < 100 && !t.archive.months.length; i++) {
          await new Promise((r) => setTimeout(r, 100));
          t = (await request(w, "GET", "/api/timeline")).json;
        }
        assert.deepEqual(
          t.archive.months.map((m: { month: string; fact: number }) => [m.month, m.fact]),
          [["2026-01", 1]],
          JSON.stringify(t.archive),
        );
        const month = t.timeline.find((g: { month: string }) => g.month === "2026-01");
        assert.deepEqual(month?.items, [{ at: "2026-01-10 09:00", kind: "fact", text: "主人对花生过敏", archived: true }]);
        assert.deepEqual((await request(w, "GET", "/profile")).json.facts, [], "no longer in NVS");
        const s = await request(w, "GET", "/api/search?q=" + encodeURIComponent("花生"));
        assert.equal(s.json.total, 1, s.text);
        assert.equal(s.json.archived.fact[0].content, "主人对花生过敏");
      } finally {
        assert.equal(await w.stop(), 0, w.stderr());
      }
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

describe("petmem web: the process", function () {
  this.timeout(60000);

  it("a conversation under way when it is stopped is ended and flushed", async () => {
    const data = tempData();
    try {
      const w = await startWebProcess(data);
      await request(w, "POST", "/session/start", { token: w.token });
      const m = await request(w, "POST", "/session/message", { token: w.token, body: { role: "user", text: "我叫小刚" } });
      assert.equal(m.status, 200, m.text);
      assert.equal(await w.stop("SIGINT"), 0, w.stderr());
      assert.equal(fs.existsSync(`${data}/lock`), false, "the lock is released");
      const w2 = await startWebProcess(data);
      const p = await request(w2, "GET", "/profile");
      assert.equal(p.json.profile.name, "小刚", p.text);
      assert.equal(await w2.stop(), 0);
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  it("a second server on the same data folder is refused; a bad --port is a usage error", async () => {
    const data = tempData();
    try {
      const w = await startWebProcess(data);
      const r = spawnSync(process.execPath, [PETMEM, "web", "--port", "0", "--data", data], { encoding: "utf8", timeout: 30000 });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /in use by process \d+ \(petmem web/);
      assert.equal(await w.stop(), 0);
      const bad = spawnSync(process.execPath, [PETMEM, "web", "--port", "http", "--data", data], { encoding: "utf8", timeout: 30000 });
      assert.equal(bad.status, 2, bad.stderr);
      assert.match(bad.stderr, /--port: expected a port number/);
      const help = spawnSync(process.execPath, [PETMEM, "web", "--help"], { encoding: "utf8", timeout: 30000 });
      assert.equal(help.status, 0);
      for (const route of ["/session/start", "/session/message", "/session/end", "/context", "/profile", "/stats", "/export", "/import", "/maintenance/forget", "/maintenance/cleanup"])
        assert.ok(help.stdout.includes(route), `--help documents ${route}`);
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

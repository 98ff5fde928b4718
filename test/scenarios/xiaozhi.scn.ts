// The xiaozhi link (src/link/): MCP the way the xiaozhi server reads it, ids
// recovered from messages too large or broken to parse, hearing the
// conversation the server narrates, the end of a conversation; and a whole
// session against a double of the server (test/xiaozhi/double.ts) scripted
// from the server's real sequence.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { XiaozhiLink, isSpokenError, emotionOf, DUPLICATE_MS } from "../../src/link/xiaozhi";
import { scan, SCAN_CHARS } from "../../src/link/scan";
import { McpServer, PAGE_BYTES, ToolError } from "../../src/mcp/server";
import { IDLE_END_MS } from "../../src/listen/window";
import { fromLocal } from "../../src/time/local";
import { XiaozhiServerDouble, linkWire } from "../xiaozhi/double";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = fromLocal(2026, 2, 5, 13, 0);

function boot() {
  const dev = new SimDevice({ now: T0 }).install();
  const svc = new Service({ sink: { remind() {} } });
  const link = new XiaozhiLink(svc);
  const send = (m: unknown) => link.receive(typeof m === "string" ? m : JSON.stringify(m)).map((r) => JSON.parse(r));
  let id = 0;
  const call = (args: Record<string, unknown>) => {
    const r = send({ type: "mcp", payload: { jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } } });
    equal(r.length, 1, "one reply");
    return r[0].payload;
  };
  return { dev, svc, link, send, call };
}

// Preference.set calls while fn runs, per "domain:store key prefix"
function countSets(fn: () => void): Record<string, number> {
  const n: Record<string, number> = {};
  const set = Preference.set;
  Preference.set = (domain: string, key: string, value: boolean | number | string | ArrayBuffer) => {
    const k = `${domain}:${key.split(".")[0]}`;
    n[k] = (n[k] ?? 0) + 1;
    set.call(Preference, domain, key, value);
  };
  try {
    fn();
  } finally {
    Preference.set = set;
  }
  return n;
}

export const scenarios: Scenario[] = [
  {
    name: "xiaozhi: a tool error is a result with isError false and text 'error: …'; plain MCP keeps isError true",
    run() {
      const { svc, call } = boot();
      const r = call({ action: "write", type: "age", content: "好几岁" });
      equal(r.result.isError, false);
      ok(r.result.content[0].text.startsWith("error: "), r.result.content[0].text);
      ok(r.result.content[0].text.indexOf("age") >= 0, "says what is wrong");
      ok(r.result.content[0].text.indexOf("call memory again") >= 0, "and what to call instead");
      const plain = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "memory", arguments: { action: "write", type: "age", content: "好几岁" } } }))!);
      equal(plain.result.isError, true, "MCP over stdio: the spec's isError");
      equal(call({ action: "write", type: "age", content: "8" }).result.isError, false);
      equal(svc.memory.profile().age, 8);
    },
  },
  {
    name: "xiaozhi: initialize answers the asked version when we speak it, else 2024-11-05; replies in the envelope with the session id",
    run() {
      const { send } = boot();
      send({ type: "hello", session_id: "abc", transport: "websocket" });
      const a = send({ type: "mcp", payload: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {} } } })[0];
      deepEqual(Object.keys(a), ["session_id", "type", "payload"]);
      equal(a.session_id, "abc");
      equal(a.type, "mcp");
      equal(a.payload.id, 1);
      equal(a.payload.result.protocolVersion, "2024-11-05");
      deepEqual(a.payload.result.capabilities, { tools: {} });
      equal(send({ type: "mcp", payload: { jsonrpc: "2.0", id: 1, method: "initialize", params: { capabilities: {} } } })[0].payload.result.protocolVersion, "2024-11-05", "no version: the firmware's");
      equal(send({ type: "mcp", payload: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2099-01-01" } } })[0].payload.result.protocolVersion, "2024-11-05");
      equal(send({ type: "mcp", payload: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } } })[0].payload.result.protocolVersion, "2025-06-18");
      deepEqual(send({ type: "mcp", payload: { jsonrpc: "2.0", method: "notifications/initialized" } }), [], "notifications: no reply");
    },
  },
  {
    name: "xiaozhi: tools/list without params, with cursor \"\" and with nextCursor pages of at most 8,000 bytes",
    run() {
      new SimDevice({ now: T0 }).install();
      const svc = new Service({ sink: { remind() {} } });
      for (let i = 0; i < 6; i++) svc.server.addTool({ name: `self.t${i}`, description: "说明".repeat(600), inputSchema: { type: "object", properties: {} }, call: () => "ok" });
      const link = new XiaozhiLink(svc);
      const list = (params?: unknown) => JSON.parse(link.receive(JSON.stringify({ type: "mcp", payload: params === undefined ? { jsonrpc: "2.0", id: 2, method: "tools/list" } : { jsonrpc: "2.0", id: 2, method: "tools/list", params } }))[0]).payload;
      const first = list();
      deepEqual(list({ cursor: "" }), first, "an empty cursor is the first page");
      deepEqual(list({}), first);
      const names: string[] = [];
      let page = first;
      for (let n = 0; n < 10; n++) {
        ok(page.result, JSON.stringify(page.error));
        ok(JSON.stringify(page.result).length <= PAGE_BYTES * 3, "sanity");
        let bytes = 0;
        for (const c of JSON.stringify(page.result)) bytes += c.charCodeAt(0) < 0x80 ? 1 : 3;
        ok(bytes <= PAGE_BYTES, `page of ${bytes} bytes`);
        for (const t of page.result.tools) names.push(t.name);
        if (!page.result.nextCursor) break;
        page = list({ cursor: page.result.nextCursor });
      }
      deepEqual(names, ["memory", "self.t0", "self.t1", "self.t2", "self.t3", "self.t4", "self.t5"]);
      ok(list({ cursor: "nope" }).error, "an unknown cursor is a protocol fault");
      equal(list({ cursor: "nope" }).id, 2, "inside the envelope with the request's id");
    },
  },
  {
    name: "xiaozhi: an oversize or broken message is answered inside the envelope with the id recovered; none when there is no id",
    run() {
      const { link, send } = boot();
      const big = "很".repeat(6000);
      const r = send(`{"type":"mcp","payload":{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"memory","arguments":{"action":"write","type":"fact","content":"${big}"}}}}`);
      equal(r.length, 1);
      equal(r[0].type, "mcp");
      equal(r[0].payload.id, 17);
      equal(r[0].payload.error.code, -32600);
      ok(/16384/.test(r[0].payload.error.message));
      equal(send(`{"type":"mcp","payload":{"jsonrpc":"2.0","id":"a\\"b","method":"x","params":{"content":"${big}"}}}`)[0].payload.id, 'a"b', "string ids, escapes");
      // the id after a large argument is past the scan: nothing to answer
      deepEqual(send(`{"type":"mcp","payload":{"jsonrpc":"2.0","method":"tools/call","params":{"content":"${big}"},"id":5}}`), []);
      // an id inside the arguments is not the request's
      deepEqual(send(`{"type":"mcp","payload":{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":3,"content":"${big}"}}}}`), []);
      const broken = send('{"type":"mcp","payload":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory",');
      equal(broken[0].payload.id, 4);
      equal(broken[0].payload.error.code, -32700);
      deepEqual(send("{not json"), []);
      deepEqual(send({ type: "mcp", payload: { jsonrpc: "2.0", id: { x: 1 }, method: "ping" } }), [], "id null would crash the server's int(id)");
      deepEqual(send({ type: "stt", text: big + big }), [], "oversize non-MCP: dropped");
      // nested too deep for XS's recursive JSON.parse, or too many values: refused before parsing
      const deep = send(`{"type":"mcp","payload":{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":${"[".repeat(900)}${"]".repeat(900)}}}}`);
      equal(deep[0].payload.id, 8);
      ok(/nested deeper/.test(deep[0].payload.error.message), deep[0].payload.error.message);
      const wide = send(`{"type":"mcp","payload":{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":[${"{},".repeat(3000)}{}]}}}`);
      ok(/more than 512 values/.test(wide[0].payload.error.message));
      equal(send({ type: "mcp", payload: { jsonrpc: "2.0", id: 10, method: "ping", params: { a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]] } } })[0].payload.result !== undefined, true, "32 levels in all, the envelope included: fine");
      ok(link.stats.dropped >= 4);
    },
  },
  {
    name: "xiaozhi: the token scan finds type, id and method in the first 4 KB only",
    run() {
      deepEqual(scan('{"session_id":"s","type":"mcp","payload":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":9}}}'), { type: "mcp", id: 7, method: "tools/call" });
      deepEqual(scan('{"payload":{"id":-2.5e0,"params":{}},"type":"mcp"}'), { type: "mcp", id: -2.5 });
      deepEqual(scan('{"jsonrpc":"2.0","id":"x","method":"ping"}'), { id: "x", method: "ping" });
      deepEqual(scan('{"type":"stt","text":"{\\"id\\":1}"}'), { type: "stt" });
      deepEqual(scan('{"type":"mcp","payload":[{"id":1}]}'), { type: "mcp" }, "a batch has no single id");
      deepEqual(scan('{"type":"mcp","payload":{"params":"' + "x".repeat(SCAN_CHARS) + '","id":1}}'), { type: "mcp" });
    },
  },
  {
    name: "xiaozhi: no result text is JSON with a top-level action key",
    run() {
      new SimDevice({ now: T0 }).install();
      const svc = new Service({ sink: { remind() {} } });
      svc.server.addTool({ name: "cmd", description: "d", inputSchema: { type: "object", properties: {} }, call: () => JSON.stringify({ action: "RESPONSE", response: "hi" }) });
      svc.server.addTool({ name: "bad", description: "d", inputSchema: { type: "object", properties: {} }, call: () => { throw new ToolError("use x instead"); } });
      const link = new XiaozhiLink(svc);
      const r = JSON.parse(link.receive(JSON.stringify({ type: "mcp", payload: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "cmd", arguments: {} } } }))[0]).payload;
      const text = r.result.content[0].text;
      equal("action" in JSON.parse(text), false);
      deepEqual(JSON.parse(text), { result: { action: "RESPONSE", response: "hi" } });
      const b = JSON.parse(link.receive(JSON.stringify({ type: "mcp", payload: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bad" } } }))[0]).payload;
      deepEqual(b.result, { content: [{ type: "text", text: "error: use x instead" }], isError: false });
    },
  },
  {
    name: "xiaozhi hearing: stt is the user, sentence_start the assistant; tool echoes, spoken errors and repeats are not heard",
    run() {
      const { dev, svc, link, send } = boot();
      send({ type: "stt", text: "我叫王小明", session_id: "s" });
      send({ type: "tts", state: "start" });
      send({ type: "stt", text: "% memory" });
      send({ type: "llm", text: "😔", emotion: "sad" });
      equal(link.mood, "sad");
      send({ type: "tts", state: "sentence_start", text: "工具调用错误: 工具调用返回错误，但未提供具体错误信息" });
      send({ type: "tts", state: "sentence_start", text: "MCP错误: invalid params" });
      send({ type: "tts", state: "sentence_start", text: "工具 self_memory 不存在" });
      send({ type: "tts", state: "sentence_start", text: "你好小明" });
      send({ type: "tts", state: "sentence_start", text: "你好小明" }); // the same within 10 s
      send({ type: "tts", state: "stop" });
      deepEqual(svc.memory.chat().map((c) => `${c.role}:${c.content}`), ["user:我叫王小明", "assistant:你好小明"]);
      equal(link.stats.ignored, 5);
      dev.clock.advance(DUPLICATE_MS + 1);
      send({ type: "tts", state: "sentence_start", text: "你好小明" });
      equal(svc.memory.chat().length, 3, "said again later: heard");
      ok(isSpokenError("哎呀，网络遇到点问题，请稍后再试下"));
      ok(!isSpokenError("工具箱在哪里"));
      equal(emotionOf("laughing"), "happy");
      equal(emotionOf("loving"), "touched");
      equal(emotionOf("whatever"), "neutral");
    },
  },
  {
    name: "xiaozhi hearing: nothing is written while the conversation lasts; goodbye settles pending items and writes NVS once",
    run() {
      const { dev, svc, send } = boot();
      send({ type: "hello", session_id: "s1" });
      const writes = dev.flash.writes;
      send({ type: "stt", text: "我叫王小明，今年八岁" });
      send({ type: "llm", text: "🙂", emotion: "happy" });
      send({ type: "tts", state: "sentence_start", text: "你好小明" });
      send({ type: "stt", text: "我喜欢恐龙" });
      send({ type: "tts", state: "sentence_start", text: "恐龙很酷" });
      equal(dev.flash.writes, writes, "hearing alone writes nothing");
      equal(svc.memory.profile().name, "", "confirmed, not yet memory");
      const sets = countSets(() => send({ type: "goodbye", session_id: "s1" }));
      equal(svc.memory.profile().name, "王小明");
      equal(svc.memory.profile().age, 8);
      equal(svc.listener.pending.confirmedCount, 0, "every confirmed item settled");
      const a = svc.memory.affection();
      equal(a.mood, 1);
      equal(a.totalConversations, 1);
      equal(a.totalMessages, 4);
      // one flush: each store touched written once (per NVS namespace), the conversation's record included
      for (const k of Object.keys(sets)) equal(sets[k], 1, `${k} written once`);
      const stores = Object.keys(sets).map((k) => k.split(":")[1]);
      for (const want of ["prof", "chat", "aff"]) ok(stores.includes(want), `${want} written at the end: ${stores.join(",")}`);
      equal(svc.memory.dirty, false);
      deepEqual(countSets(() => send({ type: "goodbye" })), {}, "a second goodbye: nothing to end");
    },
  },
  {
    name: "xiaozhi hearing: the link's close, a new session and the listener's idle end each end the conversation",
    run() {
      const { dev, svc, link, send } = boot();
      const ends: string[] = [];
      link.onEnd = (r) => ends.push(r);
      send({ type: "stt", text: "记住，我喜欢画画" });
      link.close();
      deepEqual(svc.memory.preferences().likes, ["画画"]);
      send({ type: "stt", text: "记住，我喜欢跳舞" });
      send({ type: "hello", session_id: "s2" });
      deepEqual(svc.memory.preferences().likes, ["画画", "跳舞"]);
      send({ type: "stt", text: "记住，我喜欢唱歌" });
      send({ type: "llm", emotion: "crying" });
      const writes = dev.flash.writes;
      dev.clock.advance(IDLE_END_MS + 1000);
      ok(dev.flash.writes > writes);
      deepEqual(svc.memory.preferences().likes, ["画画", "跳舞", "唱歌"]);
      deepEqual(ends, ["close", "hello", "listener"]);
      const a = svc.memory.affection();
      equal(a.totalConversations, 3);
      equal(a.mood, -1 + 0, "two conversations without an emotion, one sad");
      equal(svc.memory.dirty, false, "the idle end flushed the conversation's record too");
    },
  },
  {
    name: "xiaozhi double: with the spec's replies (isError true, initialize without a version) the model never sees the error",
    async run() {
      const { svc } = boot();
      // a device answering as plain MCP would: the same server, the "mcp" reply mode
      const plain = {
        hello: () => JSON.stringify({ type: "hello", version: 1, features: { mcp: true }, transport: "websocket" }),
        receive(m: string): string[] {
          const env = JSON.parse(m);
          if (env.type !== "mcp") return [];
          const r = svc.server.handle(JSON.stringify(env.payload), "mcp");
          return r === undefined ? [] : [JSON.stringify({ type: "mcp", payload: JSON.parse(r) })];
        },
      };
      const server = new XiaozhiServerDouble(linkWire(plain));
      await server.connect();
      const [bad] = await server.turn({ user: "我八岁", calls: [{ tool: "memory", args: { action: "write", type: "age", content: "好几岁" } }], reply: [] });
      equal(bad.action, "ERROR");
      equal(bad.modelSaw, undefined, "the model never reads why");
      equal(bad.spoken, "工具调用错误: 工具调用返回错误，但未提供具体错误信息");
    },
  },
  {
    name: "xiaozhi session: hello → initialize → tools/list → turns with tool calls → goodbye, against the server's double",
    async run() {
      const { dev, svc, link } = boot();
      const wire = linkWire(link);
      const server = new XiaozhiServerDouble(wire);
      await server.connect();
      equal(server.initializeResult!.protocolVersion, "2024-11-05");
      ok(server.ready, "tools ready: the last page had no nextCursor");
      deepEqual(Object.keys(server.tools), ["memory"]);
      equal(server.listError, undefined);
      // turn 1: the model reads memory first
      const [read] = await server.turn({ user: "你好呀，我叫王小明，今年八岁。", calls: [{ tool: "memory", args: { action: "read" } }], reply: ["你好小明！很高兴认识你。"] });
      equal(read.action, "REQLLM");
      ok(JSON.parse(read.modelSaw!).profile, "the model reads the overview");
      // turn 2: a wrong call reaches the model as text; it corrects itself
      const [bad, good] = await server.turn({
        user: "我妈妈叫李娟",
        calls: [
          { tool: "memory", args: { action: "write", type: "family", closeness: 9, relation: "妈妈", name: "李娟" } },
          { tool: "memory", args: { action: "write", type: "family", closeness: 5, relation: "妈妈", name: "李娟" } },
        ],
        reply: ["记住啦，你妈妈叫李娟。"],
        emoji: "😍",
      });
      equal(bad.action, "REQLLM", "a tool error is for the model, not spoken");
      ok(bad.modelSaw!.startsWith("error: "), bad.modelSaw);
      ok(bad.modelSaw!.indexOf("closeness") >= 0, bad.modelSaw);
      equal(good.action, "REQLLM");
      equal(JSON.parse(good.modelSaw!).result, "added");
      // turn 3: a tool the device does not have: the server speaks an error, the device does not hear it
      const [missing] = await server.turn({ user: "帮我开灯", calls: [{ tool: "self_light_on", args: {} }], reply: ["我还不会开灯呢。"], emoji: "😔" });
      equal(missing.action, "NOTFOUND");
      // turn 4: a farewell
      await server.turn({ user: "好了，我去睡觉了，晚安", reply: ["晚安小明，明天见。"] });
      server.goodbye();
      deepEqual(server.crashes, []);
      deepEqual(server.outcomes.map((o) => o.action), ["REQLLM", "REQLLM", "REQLLM", "NOTFOUND"]);
      equal(server.nextId, 4, "tool-call ids counted from 1");
      // what ends up stored
      const p = svc.memory.profile();
      equal(p.name, "王小明");
      equal(p.age, 8);
      deepEqual(svc.memory.family().map((f) => [f.relation, f.name, f.closeness]), [["妈妈", "李娟", 5]]);
      const chat = svc.memory.chat().map((c) => `${c.role}:${c.content}`);
      ok(chat.indexOf("user:你好呀，我叫王小明，今年八岁") >= 0, chat.join("|"));
      ok(chat.every((c) => c.indexOf("% memory") < 0 && c.indexOf("不存在") < 0), "no echoes, no spoken errors");
      ok(chat.indexOf("assistant:晚安小明，明天见") >= 0);
      equal(svc.memory.affection().totalConversations, 1);
      equal(svc.memory.dirty, false, "all on flash");
      // and after a reboot
      dev.reboot();
      const again = new Service({ sink: { remind() {} } });
      equal(again.memory.profile().name, "王小明");
      equal(again.memory.affection().totalConversations, 1);
    },
  },
  {
    name: "xiaozhi session: the model's write and the heard line in one conversation give one fact; its schedule and the heard reminder give one schedule (issue 24)",
    async run() {
      const { svc, link } = boot();
      const server = new XiaozhiServerDouble(linkWire(link));
      await server.connect();
      const [w] = await server.turn({
        user: "我叫林小雨，我在读小学三年级。",
        calls: [
          { tool: "memory", args: { action: "write", type: "name", content: "林小雨" } },
          { tool: "memory", args: { action: "write", type: "fact", content: "林小雨在读小学三年级" } },
        ],
        reply: ["三年级啦，真厉害！"],
      });
      equal(w.action, "REQLLM");
      const [s] = await server.turn({
        user: "每天晚上七点提醒我练琴",
        calls: [{ tool: "memory", args: { action: "write", type: "schedule", content: "练琴", datetime: "2026-02-05 19:00", repeat: "daily" } }],
        reply: ["好的，每天晚上七点提醒你练琴。"],
      });
      equal(JSON.parse(s.modelSaw!).result, "added");
      await server.turn({ user: "好了，我去睡觉了，晚安", reply: ["晚安小雨。"] });
      server.goodbye();
      deepEqual(server.crashes, []);
      deepEqual(svc.memory.facts().map((f) => f.content), ["林小雨在读小学三年级"], "one fact, the model's");
      deepEqual(svc.memory.events().map((e) => `${e.content}:${e.repeat}`), ["练琴:daily"], "one schedule, no todo beside it");
      equal(svc.listener.pending.list().length, 0);
    },
  },
];

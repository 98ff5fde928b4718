// The JSON-RPC / MCP server core, transport-agnostic.
import { McpServer, ToolError, PAGE_BYTES, MAX_DEPTH, MAX_ITEMS, MAX_MESSAGE_BYTES } from "../../src/mcp/server";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

let calls = 0; // tool calls that reached a tool

function server(tools = 1) {
  const s = new McpServer({ name: "petmem", version: "test" });
  for (let i = 0; i < tools; i++)
    s.addTool({
      name: i ? `t${i}` : "echo",
      description: "d".repeat(i ? 1500 : 10),
      inputSchema: { type: "object", properties: {} },
      call(args) {
        calls++;
        if (args.fail) throw new ToolError("fail must be false; accepted: true or absent");
        return JSON.stringify(args);
      },
    });
  return s;
}
const rpc = (s: McpServer, m: unknown) => {
  const out = s.handle(typeof m === "string" ? m : JSON.stringify(m));
  return out === undefined ? undefined : JSON.parse(out);
};

export const scenarios: Scenario[] = [
  {
    name: "initialize negotiates 2024-11-05 and newer; unknown versions get our newest",
    run() {
      const s = server();
      const r = rpc(s, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
      deepEqual(r.result.capabilities, { tools: {}, logging: {} }, "logging: reminders arrive as notifications/message");
      equal(r.result.protocolVersion, "2024-11-05");
      equal(r.result.serverInfo.name, "petmem");
      equal(rpc(s, { jsonrpc: "2.0", id: "x", method: "initialize", params: { protocolVersion: "2025-06-18" } }).result.protocolVersion, "2025-06-18");
      equal(rpc(s, { jsonrpc: "2.0", id: 2, method: "initialize", params: { protocolVersion: "1999-01-01" } }).result.protocolVersion, "2025-06-18");
      equal(rpc(s, { jsonrpc: "2.0", method: "notifications/initialized" }), undefined, "notifications get no reply");
      ok(s.initialized);
    },
  },
  {
    name: "ids may be numbers or strings and are echoed; ping answers {}",
    run() {
      const s = server();
      deepEqual(rpc(s, { jsonrpc: "2.0", id: 7, method: "ping" }), { jsonrpc: "2.0", id: 7, result: {} });
      deepEqual(rpc(s, { jsonrpc: "2.0", id: "abc", method: "ping" }), { jsonrpc: "2.0", id: "abc", result: {} });
    },
  },
  {
    name: "standard error codes with clear messages",
    run() {
      const s = server();
      const code = (m: unknown) => rpc(s, m).error.code;
      equal(code("{not json"), -32700);
      equal(rpc(s, "{not json").id, null);
      equal(code("[]"), -32600);
      equal(code("42"), -32600);
      equal(code({ jsonrpc: "1.0", id: 1, method: "ping" }), -32600);
      equal(code({ jsonrpc: "2.0", id: 1 }), -32600);
      equal(code({ jsonrpc: "2.0", id: {}, method: "ping" }), -32600);
      equal(code({ jsonrpc: "2.0", id: 1, method: "ping", params: 5 }), -32600);
      equal(code({ jsonrpc: "2.0", id: 1, method: "nope" }), -32601);
      ok(rpc(s, { jsonrpc: "2.0", id: 1, method: "nope" }).error.message.includes("unknown method"));
      equal(code({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "missing" } }), -32602);
      equal(code({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: [1] } }), -32602);
      equal(code({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { cursor: "zz" } }), -32602);
      equal(code("x".repeat(20000)), -32600, "too large");
      equal(rpc(s, { jsonrpc: "2.0", method: "nope" }), undefined, "a notification never gets a reply, even an error");
      equal(rpc(s, { jsonrpc: "2.0", id: 3, result: {} }), undefined, "a client's response needs no reply");
    },
  },
  {
    name: "tools/call: text result; a tool failure is isError with what was wrong",
    run() {
      const s = server();
      const r = rpc(s, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { a: 1 } } });
      deepEqual(r.result, { content: [{ type: "text", text: '{"a":1}' }], isError: false });
      const f = rpc(s, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { fail: true } } });
      equal(f.result.isError, true);
      ok(f.result.content[0].text.includes("accepted"));
    },
  },
  {
    name: "a tool that returns no text gets an isError result, never a misshaped one",
    run() {
      const s = server();
      s.addTool({ name: "bad", description: "d", inputSchema: { type: "object" }, call: (args) => (args.n ? 42 : undefined) as unknown as string });
      for (const n of [0, 1]) {
        const r = rpc(s, { jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "bad", arguments: { n } } });
        deepEqual(r.result, { content: [{ type: "text", text: "error: tool bad returned no text" }], isError: true });
      }
    },
  },
  {
    name: "tools/list pages at most 8000 bytes with nextCursor",
    run() {
      const s = server(12);
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const r = rpc(s, { jsonrpc: "2.0", id: pages, method: "tools/list", params: cursor ? { cursor } : {} });
        ok(JSON.stringify(r.result.tools).length <= PAGE_BYTES, "page within 8000 bytes");
        for (const t of r.result.tools) names.push(t.name);
        cursor = r.result.nextCursor;
        pages++;
      } while (cursor);
      equal(names.length, 12);
      ok(pages >= 3, `pages ${pages}`);
    },
  },
  {
    name: "batches get an array of replies, notifications left out",
    run() {
      const s = server();
      const r = rpc(s, [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: 2, method: "nope" }]);
      equal(r.length, 2);
      equal(r[1].error.code, -32601);
    },
  },
  {
    name: "the xiaozhi envelope is accepted and answered in kind",
    run() {
      const s = server();
      const r = rpc(s, { session_id: "s1", type: "mcp", payload: { jsonrpc: "2.0", id: 5, method: "ping" } });
      deepEqual(r, { type: "mcp", payload: { jsonrpc: "2.0", id: 5, result: {} }, session_id: "s1" });
      equal(rpc(s, { session_id: "s1", type: "mcp", payload: { jsonrpc: "2.0", method: "notifications/initialized" } }), undefined);
    },
  },
  {
    // Found by the fuzzer in XS: JSON.parse there recurses per level on a
    // 1024-slot stack, and a message nested about 900 deep aborted the engine
    // (on the device: a reboot). This scenario ran without the guard would
    // abort the XS lane itself.
    name: "a message nested deeper than MAX_DEPTH is refused before it is parsed, whatever its depth",
    run() {
      const s = server();
      const call = (content: string) => `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":${content}}}}`;
      // the call itself is 3 levels deep: arguments at depth 3, its value inside
      const at = (depth: number) => call("[".repeat(depth - 3) + "1" + "]".repeat(depth - 3));
      const before = calls;
      const fine = rpc(s, at(MAX_DEPTH));
      equal(fine.id, 7);
      equal(fine.result.isError, false, "MAX_DEPTH levels are parsed and handled");
      equal(calls, before + 1);
      for (const depth of [MAX_DEPTH + 1, 100, 900, 1000, 5000]) {
        const text = at(depth);
        if (text.length > MAX_MESSAGE_BYTES) continue;
        const r = rpc(s, text);
        equal(r.id, null, `depth ${depth}`);
        equal(r.error.code, -32600, `depth ${depth}`);
        ok(r.error.message.includes(`deeper than ${MAX_DEPTH}`), r.error.message);
      }
      // never closed, objects, inside the xiaozhi envelope: the same
      for (const text of ["[".repeat(9000), '{"a":'.repeat(3000), `{"type":"mcp","payload":${"[".repeat(900)}1${"]".repeat(900)}}`]) {
        const r = rpc(s, text);
        equal(r.error.code, -32600);
        equal(r.id, null);
      }
      equal(calls, before + 1, "no refused message reached the tool");
    },
  },
  {
    name: "brackets, quotes and backslashes inside strings are text, not nesting",
    run() {
      const s = server();
      for (const content of ["[".repeat(2000), "{[".repeat(1000) + '\\"', '\\"' + "[".repeat(100), "数[".repeat(500) + "🦕"]) {
        const r = rpc(s, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { a: content } } });
        equal(r.result.isError, false);
        equal(JSON.parse(r.result.content[0].text).a, content);
      }
      // a string that ends in a backslash ("x\\" in JSON) is closed by its quote
      for (const end of ["x\\", "\\\\", "\\\"", "\\"]) {
        const r = rpc(s, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { a: end, b: "[".repeat(MAX_DEPTH + 8) } } });
        equal(r.result.isError, false, JSON.stringify(end));
      }
    },
  },
  {
    // A fixed heap of 4,928 slots: 16 KB of small values would need more.
    name: "a message of more than MAX_ITEMS values is refused; a batch of 32 full calls is not",
    run() {
      const s = server();
      const before = calls;
      const args: Record<string, unknown> = { action: "write", type: "schedule", content: "钢琴课", datetime: "2026-02-06 16:00", repeat: "weekly", priority: 4, duration: 60, force: true };
      const batch = Array.from({ length: 32 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: args } }));
      const r = rpc(s, batch);
      equal(r.length, 32);
      equal(calls, before + 32);
      for (const text of [`[${"0,".repeat(MAX_ITEMS)}0]`, `[${"{},".repeat(4000)}{}]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{${Array.from({ length: MAX_ITEMS }, (_, i) => `"k${i}":0`).join(",")}}}}`]) {
        const e = rpc(s, text);
        equal(e.error.code, -32600);
        equal(e.id, null);
        ok(e.error.message.includes(`more than ${MAX_ITEMS} values`), e.error.message);
      }
      equal(calls, before + 32);
      // "{", 3 ",", "{", "[" and k ",": exactly MAX_ITEMS passes, one more does not
      const ping = (k: number) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[${"0,".repeat(k)}0]}}`;
      deepEqual(rpc(s, ping(MAX_ITEMS - 6)), { jsonrpc: "2.0", id: 1, result: {} });
      equal(rpc(s, ping(MAX_ITEMS - 5)).error.code, -32600);
    },
  },
];

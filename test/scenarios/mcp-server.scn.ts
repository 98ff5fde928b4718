// The JSON-RPC / MCP server core, transport-agnostic.
import { McpServer, ToolError, PAGE_BYTES } from "../../src/mcp/server";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

function server(tools = 1) {
  const s = new McpServer({ name: "petmem", version: "test" });
  for (let i = 0; i < tools; i++)
    s.addTool({
      name: i ? `t${i}` : "echo",
      description: "d".repeat(i ? 1500 : 10),
      inputSchema: { type: "object", properties: {} },
      call(args) {
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
      deepEqual(r.result.capabilities, { tools: {} });
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
];

// A small MCP server: JSON-RPC 2.0 over whatever carries message strings (the
// companion's link on the device, stdio on the host). It takes one message and
// returns the reply, or undefined when none is due (a notification). It never
// throws on input: anything malformed gets the standard error code.

import { byteLength, encode } from "../text/utf8";
import { quote } from "../text/reply";
// ToolError and quote live in src/text/reply.ts (src/query checks arguments too)
export { ToolError, quote } from "../text/reply";

export const PROTOCOL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18"];
export const MAX_MESSAGE_BYTES = 16384;
// JSON.parse in XS recurses once per nesting level, on the XS stack (a level costs
// 1 or 2 of the manifest's 1024 slots) and on the native one (10 KB on the ESP32):
// an object nested about 400 deep or an array about 800 deep overflows it (less
// from deep inside the app), and XS aborts: the device reboots. Nothing catches
// that (XS 13 and XS 17 alike), so the raw text is measured before JSON.parse.
export const MAX_DEPTH = 32; // open arrays/objects at once; an MCP message needs 5
// Every value JSON.parse makes costs heap slots until the message is dropped
// (an object or array at least one, each element or member one more). 16 KB of
// `[{},{},...]` is 5,000 objects: more than the device's whole heap (4,928
// slots, fixed). A batch of 32 full tool calls is about 480 items.
export const MAX_ITEMS = 512; // "[", "{" and "," outside strings
export const PAGE_BYTES = 8000; // a tools/list page, as the xiaozhi device pages it

// How replies are shaped for the client at the other end. "mcp" follows the MCP
// spec (stdio to SDK clients): a tool error is a result with isError true.
// "xiaozhi" is what the xiaozhi server reads (src/link/xiaozhi.ts): it drops the
// text of an isError result, so a tool error is a result with isError false and
// text starting "error:"; initialize without a version we speak answers the
// firmware's 2024-11-05.
export type ReplyMode = "mcp" | "xiaozhi";
export const XIAOZHI_PROTOCOL_VERSION = "2024-11-05";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export interface ToolResult {
  content: { type: "text"; text: string }[];
  isError: boolean;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  // Returns the reply text (JSON or prose). Throwing ToolError (or any Error)
  // makes an isError result with its message.
  call(args: Record<string, unknown>): string;
}

type Id = string | number | null;
type Json = Record<string, unknown>;

function reply(id: Id, result: unknown): Json {
  return { jsonrpc: "2.0", id, result };
}

function error(id: Id, code: number, message: string): Json {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

// What makes JSON text too costly to parse on the device, read from its UTF-8
// bytes in one pass: nesting deeper than MAX_DEPTH or more than MAX_ITEMS
// values. Every byte of a multi-byte character is >= 0x80, so none looks like a
// bracket. Strings are skipped with indexOf (native, so a long text costs next
// to nothing; a byte loop in XS costs about 0.2 µs a byte even on a PC), their
// escapes honoured. Malformed text is measured the same way; JSON.parse then
// says what is wrong with it.
export function shapeProblem(b: Uint8Array): string | undefined {
  let depth = 0;
  let items = 0;
  const n = b.length;
  for (let i = 0; i < n; i++) {
    const c = b[i];
    if (c === 0x22) {
      // to the closing quote: the next one not escaped by an odd run of backslashes
      for (;;) {
        const q = b.indexOf(0x22, i + 1);
        if (q < 0) return undefined; // never closed: nothing after it can nest
        let k = q - 1;
        while (b[k] === 0x5c) k--;
        i = q;
        if ((q - 1 - k) % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return `invalid request: nested deeper than ${MAX_DEPTH} levels`;
      if (++items > MAX_ITEMS) return `invalid request: more than ${MAX_ITEMS} values`;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x2c && ++items > MAX_ITEMS) return `invalid request: more than ${MAX_ITEMS} values`;
  }
  return undefined;
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface ServerInfo {
  name: string;
  version: string;
}

// MCP's logging levels (RFC 5424's severities), least severe first.
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class McpServer {
  private tools: Tool[] = [];
  initialized = false;
  protocolVersion = PROTOCOL_VERSIONS[0];
  // called after every tools/call, so the device can flush after a quiet period
  onActivity: (() => void) | undefined;
  // the least severe level the client wants in notifications/message (logging/setLevel)
  logLevel: LogLevel = "debug";
  private mode: ReplyMode = "mcp"; // of the message being handled

  constructor(readonly info: ServerInfo) {}

  addTool(tool: Tool): void {
    if (this.tools.some((t) => t.name === tool.name)) throw new Error(`tool ${tool.name} exists`);
    this.tools.push(tool);
  }

  // One message in, the reply out (undefined: no reply is due). Accepts a
  // JSON-RPC message or batch, or the xiaozhi envelope
  // {"session_id", "type": "mcp", "payload": <JSON-RPC>}, answered in kind.
  handle(message: string, mode: ReplyMode = "mcp"): string | undefined {
    this.mode = mode;
    if (typeof message !== "string") return JSON.stringify(error(null, INVALID_REQUEST, "message must be a string"));
    // `length` first: it costs nothing and spares encoding a huge message
    if (message.length > MAX_MESSAGE_BYTES) return JSON.stringify(error(null, INVALID_REQUEST, `message larger than ${MAX_MESSAGE_BYTES} bytes`));
    const bytes = encode(message);
    if (bytes.length > MAX_MESSAGE_BYTES) return JSON.stringify(error(null, INVALID_REQUEST, `message larger than ${MAX_MESSAGE_BYTES} bytes`));
    const shape = shapeProblem(bytes);
    if (shape) return JSON.stringify(error(null, INVALID_REQUEST, shape));
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return JSON.stringify(error(null, PARSE_ERROR, "parse error: not valid JSON"));
    }
    if (isObject(parsed) && parsed.type === "mcp" && "payload" in parsed) {
      const out = this.dispatch(parsed.payload);
      if (out === undefined) return undefined;
      const env: Json = { type: "mcp", payload: out };
      if (typeof parsed.session_id === "string") env.session_id = parsed.session_id;
      return JSON.stringify(env);
    }
    const out = this.dispatch(parsed);
    return out === undefined ? undefined : JSON.stringify(out);
  }

  // An already parsed JSON-RPC message (a link's envelope payload), its reply
  // object out (undefined: none is due).
  handlePayload(payload: unknown, mode: ReplyMode = "mcp"): unknown {
    this.mode = mode;
    return this.dispatch(payload);
  }

  private dispatch(msg: unknown): unknown {
    if (Array.isArray(msg)) {
      if (msg.length === 0) return error(null, INVALID_REQUEST, "invalid request: empty batch");
      if (msg.length > 32) return error(null, INVALID_REQUEST, "invalid request: batch of more than 32");
      const out: unknown[] = [];
      for (const m of msg) {
        const r = this.one(m);
        if (r !== undefined) out.push(r);
      }
      return out.length ? out : undefined;
    }
    return this.one(msg);
  }

  private one(msg: unknown): Json | undefined {
    if (!isObject(msg)) return error(null, INVALID_REQUEST, "invalid request: expected a JSON-RPC object");
    const hasId = "id" in msg;
    const id = msg.id;
    const idOk = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
    const rid: Id = idOk ? (id as string | number) : null;
    if (msg.jsonrpc !== "2.0") return hasId ? error(rid, INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"') : undefined;
    if (typeof msg.method !== "string") {
      // a response from the client (result or error) needs no reply
      if (hasId && ("result" in msg || "error" in msg)) return undefined;
      return error(rid, INVALID_REQUEST, "invalid request: method must be a string");
    }
    if (hasId && !idOk) return error(null, INVALID_REQUEST, "invalid request: id must be a string or a number");
    if ("params" in msg && msg.params !== undefined && !isObject(msg.params) && !Array.isArray(msg.params))
      return hasId ? error(rid, INVALID_REQUEST, "invalid request: params must be an object") : undefined;
    const params = isObject(msg.params) ? msg.params : {};
    if (!hasId) {
      // notifications: act on the ones we know, never reply
      if (msg.method === "notifications/initialized") this.initialized = true;
      return undefined;
    }
    try {
      switch (msg.method) {
        case "initialize":
          return this.initialize(rid, params);
        case "ping":
          return reply(rid, {});
        case "tools/list":
          return this.list(rid, params);
        case "tools/call":
          return this.call(rid, params);
        case "logging/setLevel": {
          const level = params.level;
          if (typeof level !== "string" || LOG_LEVELS.indexOf(level as LogLevel) < 0) return error(rid, INVALID_PARAMS, `invalid params: level must be one of ${LOG_LEVELS.join(", ")}`);
          this.logLevel = level as LogLevel;
          return reply(rid, {});
        }
        default:
          return error(rid, METHOD_NOT_FOUND, `unknown method: ${quote(msg.method)}`);
      }
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      return error(rid, INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private initialize(id: Id, params: Json): Json {
    const asked = params.protocolVersion;
    if (asked !== undefined && typeof asked !== "string") return error(id, INVALID_PARAMS, "invalid params: protocolVersion must be a string");
    // the client's version if we speak it, else our newest (the client decides);
    // the xiaozhi firmware always answers 2024-11-05
    const fallback = this.mode === "xiaozhi" ? XIAOZHI_PROTOCOL_VERSION : PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.length - 1];
    this.protocolVersion = typeof asked === "string" && PROTOCOL_VERSIONS.includes(asked) ? asked : fallback;
    return reply(id, {
      protocolVersion: this.protocolVersion,
      // logging: reminders reach the client as notifications/message (README)
      capabilities: this.mode === "xiaozhi" ? { tools: {} } : { tools: {}, logging: {} },
      serverInfo: { name: this.info.name, version: this.info.version },
    });
  }

  // An MCP logging notification (notifications/message) for the client, as a
  // line to send; undefined when the client asked for a more severe level only.
  // The spec lets a server send these before `initialized`.
  notification(level: LogLevel, logger: string, data: unknown): string | undefined {
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(this.logLevel)) return undefined;
    return JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level, logger, data } });
  }

  // Pages of whole tools, each page's JSON at most PAGE_BYTES; the cursor is the
  // index of the next tool.
  private list(id: Id, params: Json): Json {
    let start = 0;
    if (params.cursor !== undefined && params.cursor !== "") {
      // "" is the first page, as on the xiaozhi firmware
      const c = params.cursor;
      if (typeof c !== "string" || !/^\d{1,4}$/.test(c) || Number(c) >= this.tools.length)
        return error(id, INVALID_PARAMS, "invalid params: unknown cursor");
      start = Number(c);
    }
    const page: Tool[] = [];
    let size = 2;
    let i = start;
    for (; i < this.tools.length; i++) {
      const t = this.tools[i];
      const n = byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })) + 1;
      if (page.length && size + n > PAGE_BYTES) break;
      page.push(t);
      size += n;
    }
    const result: Json = { tools: page.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })) };
    if (i < this.tools.length) result.nextCursor = String(i);
    return reply(id, result);
  }

  private call(id: Id, params: Json): Json {
    const name = params.name;
    if (typeof name !== "string") return error(id, INVALID_PARAMS, "invalid params: name must be a string");
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) return error(id, INVALID_PARAMS, `invalid params: unknown tool: ${quote(name)}`);
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isObject(args)) return error(id, INVALID_PARAMS, "invalid params: arguments must be an object");
    let result: ToolResult;
    try {
      const text: unknown = tool.call(args);
      // the reply must stay {type:"text", text: string}, whatever a tool returns
      if (typeof text !== "string") throw new Error(`tool ${quote(name)} returned no text`);
      result = { content: [{ type: "text", text }], isError: false };
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      const msg = e instanceof Error ? e.message : String(e);
      // xiaozhi: the server gives the model only the text of a result without isError
      // and, there, the text is all the model has: it also says what to call next
      const next = this.mode === "xiaozhi" && !/action=|instead|again|try /.test(msg) ? `; correct it and call ${name} again (action=read shows what is stored)` : "";
      result = { content: [{ type: "text", text: `error: ${msg}${next}` }], isError: this.mode !== "xiaozhi" };
    }
    this.onActivity?.();
    return reply(id, result);
  }
}

// One line on stderr per MCP message served: when, what was asked (method;
// for the memory tool its action and type), how it ended, how long it took.
//   2026-02-05T13:00:02.118+08:00 tools/call read type=fact ok 3ms
// Reads the request and the reply as JSON only to name them; what cannot be
// parsed is logged as such, never thrown.

import { formatOffset } from "../src/time/local.js";

export interface Call {
  method: string;
  action?: string;
  type?: string;
}

function payloadOf(m: unknown): Record<string, unknown> | undefined {
  if (!m || typeof m !== "object" || Array.isArray(m)) return undefined;
  const o = m as Record<string, unknown>;
  // a xiaozhi envelope: {"type":"mcp","payload":{...}}
  if (o.type === "mcp" && o.payload && typeof o.payload === "object") return o.payload as Record<string, unknown>;
  return o;
}

export function describeRequest(text: string): Call {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return { method: "unparsable" };
  }
  const p = payloadOf(m);
  if (!p) return { method: Array.isArray(m) ? "batch" : "invalid" };
  const method = typeof p.method === "string" ? p.method : typeof (m as Record<string, unknown>).type === "string" ? String((m as Record<string, unknown>).type) : "invalid";
  const params = p.params as Record<string, unknown> | undefined;
  const args = params && typeof params === "object" ? (params.arguments as Record<string, unknown> | undefined) : undefined;
  const call: Call = { method };
  if (args && typeof args === "object") {
    if (typeof args.action === "string") call.action = args.action.slice(0, 32);
    if (typeof args.type === "string") call.type = args.type.slice(0, 32);
  }
  return call;
}

// ok, error (a tool error or a JSON-RPC error), or - (a notification: no reply)
export function describeReply(reply: string | undefined): string {
  if (reply === undefined) return "-";
  try {
    const p = payloadOf(JSON.parse(reply));
    if (!p) return "?";
    if (p.error) return "error";
    const r = p.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
    if (r?.isError) return "error";
    const text = r?.content?.[0]?.text;
    if (typeof text === "string" && text.startsWith("error:")) return "error"; // the xiaozhi link's tool errors
    return "ok";
  } catch {
    return "?";
  }
}

function stamp(ms: number, offsetMin: number): string {
  return new Date(ms + offsetMin * 60000).toISOString().slice(0, 23) + formatOffset(offsetMin);
}

export function logLine(at: number, offsetMin: number, call: Call, result: string, ms: number): string {
  const what = [call.method];
  if (call.action) what.push(call.action);
  if (call.type) what.push(`type=${call.type}`);
  return `${stamp(at, offsetMin)} ${what.join(" ")} ${result} ${ms}ms\n`;
}

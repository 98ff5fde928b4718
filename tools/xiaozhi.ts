// `npm run xiaozhi`: what the xiaozhi server gets from petmem, as JSON lines:
//   {"tools_list": {reply_bytes, result_bytes, description_bytes, schema_bytes, pages, budget}}
//   {"session": {...}}  the recorded session (test/xiaozhi/session.jsonl) through the link:
//                       messages in and out, what was heard and stored, flash writes
//   {"oversize": {...}} a 20 KB tools/call: the id recovered by the scan, and its cost
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SimDevice } from "../host-sim/device";
import { Service } from "../src/app/service";
import { XiaozhiLink } from "../src/link/xiaozhi";
import { scan } from "../src/link/scan";
import { fromLocal } from "../src/time/local";
import "../host-sim/trace";

const here = path.dirname(fileURLToPath(import.meta.url));
const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const line = (o: object) => process.stdout.write(JSON.stringify(o) + "\n");

const dev = new SimDevice({ now: fromLocal(2026, 2, 5, 13, 0) }).install();
const svc = new Service({ sink: { remind() {} } });
const link = new XiaozhiLink(svc);
const recv = (m: object | string) => link.receive(typeof m === "string" ? m : JSON.stringify(m));

// tools/list as the server asks for it (no params), following nextCursor
let pages = 0;
let reply = "";
for (let cursor: string | undefined = undefined; pages < 10; pages++) {
  const out = recv({ type: "mcp", payload: cursor === undefined ? { jsonrpc: "2.0", id: 2, method: "tools/list" } : { jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor } } });
  reply = out[0];
  const r = JSON.parse(reply).payload.result;
  cursor = r.nextCursor;
  if (!cursor) {
    pages++;
    break;
  }
}
line({ tools_list: { reply_bytes: bytes(reply), result_bytes: bytes(JSON.stringify(JSON.parse(reply).payload.result)), description_bytes: bytes(svc.tool.description), schema_bytes: bytes(JSON.stringify(svc.tool.inputSchema)), pages, budget: 7500 } });

// the recorded session
const input = fs.readFileSync(path.join(here, "../test/xiaozhi/session.jsonl"), "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("#"));
const writes0 = dev.flash.writes;
let out = 0;
const t0 = process.hrtime.bigint();
for (const l of input) out += link.receive(l).length;
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const m = svc.memory;
line({
  session: {
    messages_in: input.length,
    messages_out: out,
    heard: link.stats.heard,
    ignored: link.stats.ignored,
    flash_writes: dev.flash.writes - writes0,
    stored: { name: m.profile().name, age: m.profile().age, family: m.family().length, schedules: svc.schedules.list().length, chat: m.chat().length },
    affection: { conversations: m.affection().totalConversations, mood: m.affection().mood },
    node_ms: Math.round(ms * 100) / 100,
  },
});

// an oversize call: its id comes back
const big = `{"type":"mcp","payload":{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"memory","arguments":{"action":"write","type":"fact","content":"${"很".repeat(7000)}"}}}}`;
const t1 = process.hrtime.bigint();
const r = recv(big);
const us = Number(process.hrtime.bigint() - t1) / 1e3;
const t2 = process.hrtime.bigint();
const s = scan(big);
const scanUs = Number(process.hrtime.bigint() - t2) / 1e3;
line({ oversize: { message_bytes: bytes(big), replies: r.length, id: r.length ? JSON.parse(r[0]).payload.id : null, scanned: s, receive_us: Math.round(us), scan_us: Math.round(scanUs) } });

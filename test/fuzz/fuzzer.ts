// The MCP fuzzer (issue 6 §3): random and malformed messages to a server's
// handle(message), each reply checked against the JSON-RPC / MCP contract, and
// the memory checked unchanged whenever nothing was accepted. Used by
// `npm run fuzz` (tools/fuzz.ts) and test/fuzz.test.ts.
//
// For every input:
//   crash                    handle() threw;
//   bad response             the reply is not what the contract allows: no reply
//                            where one is due (or one to a notification), not
//                            JSON, not a JSON-RPC 2.0 response, a wrong id, both
//                            or neither of result/error, a non-standard error
//                            code, a tools/call result not shaped
//                            {content:[{type:"text",text}],isError}, an envelope
//                            not answered in kind, lone surrogates in the text;
//   state changed on reject  no tools/call in the input succeeded (all were
//                            rejected, or there were none), yet the flash write
//                            count or the RAM copy of the memory changed.

import { rng } from "../powercut/rng";
import { SimDevice } from "../../host-sim/device";
import type { Service } from "../../src/app/service";
import { bootDevice } from "../../src/app/boot";
import { MAX_DEPTH, MAX_ITEMS, MAX_MESSAGE_BYTES } from "../../src/mcp/server";
import { ACTIONS, ARGS, TYPES } from "../../src/mcp/memory-tool";
import { EMOTIONS, GOAL_CATEGORIES, MEMBER_TYPES } from "../../src/memory/types";

export const START = Date.parse("2026-02-05T13:00:00+08:00");
export const ERROR_CODES = [-32700, -32600, -32601, -32602, -32603];

// What the fuzzer drives: a handler, and a fingerprint of the persistent state.
export interface Target {
  handle(message: string): string | undefined;
  flashWrites(): number;
  ram(): string;
  advance?(ms: number): void; // lets virtual time pass between inputs
}

export interface Report {
  kind: "crash" | "bad_response" | "state_changed_on_reject";
  input: string;
  output?: string;
  detail: string;
  at?: number; // the input's index in the run of its seed (replay: --n at+1 --seed S)
}

export interface FuzzResult {
  inputs: number;
  bad_responses: number;
  crashes: number;
  state_changed_on_reject: number;
  seed: number;
  valid_calls: number; // well-formed tools/call messages the generator meant to succeed
  accepted: number; // inputs with at least one successful tools/call
  rejected: number; // inputs with a JSON-RPC error or an isError result
  no_reply: number;
  flash_writes: number;
  // what the inputs held (measured on the text sent, whatever the generator meant):
  over_16k: number; // more than MAX_MESSAGE_BYTES of UTF-8
  too_deep: number; // nested deeper than MAX_DEPTH
  too_many_items: number; // more than MAX_ITEMS values
  deepest: number; // the deepest nesting sent (of messages within the size limit)
  surrogates: number; // a lone surrogate in the text, or a surrogate written as \uD8xx-\uDFxx
  huge_numbers: number; // 17 digits or more, or an exponent of 3 digits
  ms: number;
  reports: Report[]; // the first few failures, for reading
}

export interface FuzzOptions {
  n: number;
  seed: number;
  target?: Target; // default: makeTarget()
  // A fresh target (device) every `reset` inputs: inputs k·reset … (k+1)·reset−1
  // go to a device made for them (0 or absent: one device for the whole run).
  // The inputs and their order stay those of the seed; a finding replays with
  // the same `reset` (the device at input i is the same).
  reset?: number;
  makeTarget?(): Target; // default: serviceTarget()
  maxReports?: number;
  // Resuming after a crash of the engine itself (test/xs/fuzz.ts): inputs before
  // `from` are generated (so the run stays the same) but not sent.
  from?: number;
  onInput?(i: number, res: FuzzResult): void; // before input i is sent
  onReport?(r: Report): void; // every failure, also past maxReports
}

// ---- the target -------------------------------------------------------------------

export function toolCall(id: number | string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: args } });
}

const SEED_CALLS: Record<string, unknown>[] = [
  { action: "write", type: "name", content: "小明" },
  { action: "write", type: "age", content: "9" },
  { action: "write", type: "location", content: "杭州" },
  { action: "write", type: "like", content: "恐龙" },
  { action: "write", type: "dislike", content: "下雨" },
  { action: "write", type: "family", relation: "妈妈", name: "李华", closeness: 5 },
  { action: "write", type: "fact", content: "养了一只叫豆豆的猫" },
  { action: "write", type: "trait", category: "personality", content: "好奇心强" },
  { action: "write", type: "habit", content: "睡前读书", frequency: "daily" },
  { action: "write", type: "moment", topic: "比赛", content: "足球比赛赢了", emotion: "happy", importance: 4 },
  { action: "write", type: "goal", content: "学会游泳", category: "health", priority: 4 },
  { action: "write", type: "schedule", content: "钢琴课", datetime: "2026-02-06 16:00", repeat: "weekly", priority: 4 },
  { action: "write", type: "schedule", content: "dentist", datetime: "2026-02-07 10:00" },
];

// A fresh simulated device booted as the device boots (NVS, archive, episodes:
// src/app/boot.ts), seeded through valid tool calls.
export function serviceTarget(now = START): Target & { dev: SimDevice; service: Service } {
  const dev = new SimDevice({ now }).install();
  const service = bootDevice(undefined, { sink: { remind() {} } }).service;
  let id = 0;
  for (const args of SEED_CALLS) {
    const r = JSON.parse(service.handle(toolCall(`seed-${++id}`, args))!);
    if (r.error || r.result.isError) throw new Error(`seeding failed: ${JSON.stringify(args)} -> ${JSON.stringify(r)}`);
  }
  const names = Object.keys(service.memory.stores) as (keyof typeof service.memory.stores)[];
  return {
    dev,
    service,
    handle: (m) => service.handle(m),
    flashWrites: () => dev.flash.writes,
    ram: () => JSON.stringify(names.map((n) => service.memory.stores[n].all())),
    advance: (ms) => dev.clock.advanceTo(dev.clock.now + ms),
  };
}

// ---- the generator ------------------------------------------------------------------

type J = unknown;

class Gen {
  constructor(private readonly r: () => number) {}
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  range(a: number, b: number): number {
    return a + this.int(b - a + 1);
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
  // one of several generators, by weight
  choose<T>(table: [number, () => T][]): T {
    let total = 0;
    for (const [w] of table) total += w;
    let x = this.r() * total;
    for (const [w, f] of table) if ((x -= w) < 0) return f();
    return table[table.length - 1][1]();
  }
}

const CONTENTS = [
  "钢琴课", "dentist", "恐龙", "下雨", "养了一只叫豆豆的猫", "好奇心强", "睡前读书", "足球比赛赢了", "学会游泳",
  "数学作业", "去公园散步", "playing football", "reading before bed", "周末去爬山", "生日派对", "看电影", "画画", "swim",
  "英语课", "吃冰淇淋", "奶奶", "李华", "小红", "跳绳", "homework", "🦕 dinosaurs", "喜欢蓝色", "怕黑",
];
const RELATIONS = ["妈妈", "爸爸", "奶奶", "爷爷", "哥哥", "姐姐", "朋友", "老师"];
const NAMES = ["李华", "王芳", "小红", "Tom", "豆豆", "张伟", "Amy"];
const REPEATS = ["none", "daily", "weekly", "monthly"];
const METHODS = ["initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "resources/list", "prompts/list", "tools/get", "", "TOOLS/CALL", "notifications/cancelled"];
const CONTROL = "\u0000\u0001\u0007\b\t\n\u000b\f\r\u001b\u001f\u007f\u0085\u2028\u2029\ufeff\ufffe\uffff";

function datetime(g: Gen, valid = true): string {
  const t = START + g.range(-3, 40) * 86400000 + g.range(0, 23) * 3600000;
  const d = new Date(t + 8 * 3600000);
  const p = (n: number) => String(n).padStart(2, "0");
  const s = `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${g.pick(["00", "30", "15"])}`;
  if (valid) return s;
  return g.pick([
    s.replace(" ", "T"), s.slice(0, 10), s + ":00", "2026-02-30 10:00", "2026-13-01 10:00", "2026-02-05 25:00", "2026-02-05 10:60",
    "tomorrow", "2026/02/05 10:00", " " + s + " ", "0000-00-00 00:00", "9999-12-31 23:59", "2026-02-05 10:00Z", "2026-02-05 10:00+08:00",
    "２０２６-02-05 10:00", "1969-12-31 23:59", "",
  ]);
}

function date(g: Gen): string {
  return g.pick(["2026-02-01", "2026-02-05", "2025-12-31", "2026-03-01", "2026-02-29", "2026-2-5", "20260205", "2026-02-05 10:00", "", "x"]);
}

function someString(g: Gen): string {
  return g.choose<string>([
    [6, () => g.pick(CONTENTS)],
    [2, () => g.pick(CONTENTS) + g.pick(CONTENTS)],
    [1, () => ""],
    [1, () => "   "],
    [2, () => longText(g, g.range(30, 300))],
    [2, () => nasty(g)],
    [1, () => g.pick(["read", "write", "schedule", "null", "true", "0", "-1", "1e9", "NaN", "undefined", "__proto__", "constructor", "toString"])],
  ]);
}

function longText(g: Gen, n: number): string {
  const alphabet = g.pick(["a", "数", "é", "🦕", "ab ", "梦想"]);
  let s = "";
  while (s.length < n) s += alphabet;
  return s.slice(0, n);
}

// Unicode and control-character trouble.
function nasty(g: Gen): string {
  const base = g.pick(CONTENTS);
  return g.choose<string>([
    [2, () => base + "\ud800"], // lone high surrogate
    [2, () => "\udc00" + base], // lone low surrogate
    [1, () => base.slice(0, 1) + "\udfff\ud800" + base.slice(1)],
    [1, () => "🦕".slice(0, 1)],
    [2, () => base + CONTROL[g.int(CONTROL.length)] + base],
    [1, () => CONTROL],
    [2, () => lenient(g)],
    [1, () => "\u202e" + base + "\u200b\u200d"],
    [1, () => "e\u0301\u0301\u0301".repeat(g.range(1, 20))],
  ]);
}

// Byte strings decoded leniently: what a bad radio link or a careless firmware hands over.
function lenient(g: Gen): string {
  const n = g.range(1, 40);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = g.chance(0.5) ? g.pick([0xc0, 0xc1, 0xed, 0xf4, 0xf5, 0xff, 0xfe, 0x80, 0xbf, 0xe4, 0xb8]) : g.int(256);
  return g.chance(0.5) ? new TextDecoder("utf-8", { fatal: false }).decode(b) : String.fromCharCode(...b);
}

// A value of any JSON type (and shape).
function anyValue(g: Gen, depth = 0): J {
  return g.choose<J>([
    [3, () => null],
    [3, () => g.chance(0.5)],
    [4, () => g.pick([0, -0, 1, -1, 2, 3, 5, 6, 0.5, 1.5, -7, 1e9, 2 ** 31, 2 ** 53, 1e21, 1e308, -1e308, 5e-324, 150, 151, 1440, 1441, 50, 51])],
    [5, () => someString(g)],
    [2, () => (depth > 2 ? [] : Array.from({ length: g.int(4) }, () => anyValue(g, depth + 1)))],
    [2, () => (depth > 2 ? {} : Object.fromEntries(Array.from({ length: g.int(4) }, () => [someString(g), anyValue(g, depth + 1)])))],
  ]);
}

// Arguments of a valid call, by action and type.
function validArgs(g: Gen): Record<string, unknown> {
  const action = g.choose<string>([
    [10, () => "write"],
    [4, () => "delete"],
    [2, () => "complete_schedule"],
    [2, () => "read"],
    [2, () => "search"],
    [1, () => "recall"],
    [2, () => "context"],
    [2, () => "query"],
    [1, () => "summary"],
    [1, () => "config"],
  ]);
  const a: Record<string, unknown> = { action };
  if (action === "read") {
    if (g.chance(0.1)) a.type = "episode";
    return a;
  }
  if (action === "summary") return a;
  if (action === "config") {
    if (g.chance(0.5)) a.preset = g.pick(["minimal", "balanced", "full"]);
    return a;
  }
  if (action === "context") {
    a.message = g.pick(CONTENTS) + g.pick(["", "吗", "，你还记得吗"]);
    if (g.chance(0.3)) a.budget = g.pick([200, 600, 1200, 4000]);
    return a;
  }
  if (action === "query") {
    a.from = g.pick(["episode", "fact", "event", "digest"]);
    if (g.chance(0.7)) a.where = g.pick(QUERIES);
    if (g.chance(0.4)) a.order_by = g.pick(["created_at desc", "p desc", "content", "date asc", "month desc"]);
    if (g.chance(0.4)) a.limit = g.range(1, 50);
    if (g.chance(0.3)) a.select = g.pick(["id,content", "content", "content,p", "month,count"]);
    return a;
  }
  if (action === "search") {
    a.keyword = g.pick(CONTENTS).slice(0, g.range(1, 4));
    if (g.chance(0.3)) a.limit = g.range(1, 50);
    return a;
  }
  if (action === "recall") {
    a.type = g.pick(["fact", "moment", "event", "episode", "episode", "snapshot"]);
    if (a.type === "episode" || a.type === "snapshot") {
      if (g.chance(0.5)) a.message = g.pick(CONTENTS);
      else a.keyword = g.pick(CONTENTS);
      if (g.chance(0.3)) a.limit = g.range(1, 10);
      return a;
    }
    if (g.chance(0.5)) a.keyword = g.pick(CONTENTS);
    if (g.chance(0.3)) a.start_date = "2026-01-01";
    if (g.chance(0.3)) a.end_date = "2026-03-01";
    return a;
  }
  if (action === "complete_schedule") {
    a.content = g.pick(["钢琴课", "dentist", "英语课", "swim", "跳绳", "homework"]);
    return a;
  }
  const type = g.pick(TYPES);
  a.type = type;
  switch (type) {
    case "name":
    case "location":
      a.content = g.pick(NAMES.concat(["杭州", "上海", "Berlin"]));
      break;
    case "gender":
      a.content = g.pick(["男", "女", "boy", "girl"]);
      break;
    case "age":
      a.content = g.chance(0.5) ? String(g.range(3, 99)) : g.range(3, 99);
      break;
    case "birthday":
      a.content = g.pick(["03-15", "12-01", "07-30", "2017-03-15"]);
      break;
    case "family":
      a.relation = g.pick(RELATIONS);
      a.name = g.pick(NAMES);
      if (g.chance(0.5)) a.closeness = g.range(1, 5);
      if (g.chance(0.3)) a.memory = g.pick(CONTENTS);
      if (g.chance(0.2)) a.member_type = g.pick(MEMBER_TYPES);
      if (action === "delete") a.content = a.name;
      break;
    case "trait":
      a.content = g.pick(CONTENTS);
      if (g.chance(0.5)) a.category = g.pick(["personality", "emotion", "social"]);
      break;
    case "habit":
      a.content = g.pick(CONTENTS);
      if (g.chance(0.5)) a.frequency = g.pick(["daily", "weekly", "occasionally"]);
      break;
    case "moment":
      a.content = g.pick(CONTENTS);
      a.topic = g.pick(["比赛", "学校", "家", "旅行"]);
      if (g.chance(0.5)) a.emotion = g.pick(EMOTIONS);
      if (g.chance(0.5)) a.importance = g.range(1, 5);
      if (g.chance(0.3)) a.intensity = g.range(0, 5);
      break;
    case "goal":
      a.content = g.pick(CONTENTS);
      if (g.chance(0.5)) a.category = g.pick(GOAL_CATEGORIES);
      if (g.chance(0.5)) a.priority = g.range(1, 5);
      break;
    case "episode":
      a.content = g.pick(CONTENTS) + g.pick(["", "，很开心", "，有点难过", "，以后不喜欢了"]);
      for (const k of ["e", "i", "p", "j"]) if (g.chance(0.8)) a[k] = g.pick([0, 0.1, 0.3, 0.5, 0.8, 1]);
      if (g.chance(0.5)) a.keywords = g.pick(["篮球", "猫,豆豆", "学校,考试,数学", ""]);
      if (g.chance(0.5)) a.emotion = g.pick(EMOTIONS);
      break;
    case "schedule":
      a.content = g.pick(["钢琴课", "dentist", "英语课", "swim", "跳绳", "homework", "看电影"]);
      a.datetime = datetime(g);
      if (g.chance(0.5)) a.repeat = g.pick(REPEATS);
      if (g.chance(0.5)) a.priority = g.range(1, 5);
      if (g.chance(0.3)) a.duration = g.pick([15, 30, 60, 90, 120]);
      if (g.chance(0.3)) a.force = g.chance(0.5);
      break;
    default:
      a.content = g.pick(CONTENTS);
  }
  if (action === "delete") {
    for (const k of ["closeness", "memory", "member_type", "category", "frequency", "topic", "emotion", "importance", "intensity", "priority", "datetime", "repeat", "duration", "force", "e", "i", "p", "j", "keywords"]) delete a[k];
  }
  return a;
}

// An own member whatever the key: assigning "constructor" or "toString" throws
// where Object.prototype is frozen (XS, as on the device), and assigning
// "__proto__" would set the prototype instead.
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const ARG_NAMES = ARGS;

// where clauses: valid ones and broken ones (the tool must name what is wrong)
const QUERIES = [
  "p >= 0.5", "content CONTAINS '篮球'", "p >= 0.5 AND content CONTAINS '篮球'", "emotion = 'happy'", "use_count > 1",
  "content LIKE '%猫%'", "date >= '2026-01-01' AND content != 'x'", "month = '2026-02'", "count >= 3", "id = 1",
  "p >=", "AND", "content CONTAINS", "foo = 1", "p >= 'abc", "p >= 0.5 OR i >= 0.5", "content LIKE", "'unterminated", "p === 1", "",
];

// Valid arguments with something wrong: a type, a range, an enum, a date, an
// unknown key, a huge or nasty string.
function brokenArgs(g: Gen): Record<string, unknown> {
  const a = validArgs(g);
  const k = g.chance(0.7) ? g.pick(Object.keys(a)) : g.pick(ARG_NAMES);
  g.choose<void>([
    [5, () => (a[k] = anyValue(g))],
    [2, () => delete a[k]],
    [2, () => put(a, g.pick(["actions", "Action", "content ", "", "__proto__", "constructor", "toString", "extra", "数"]), anyValue(g))],
    [2, () => (a.action = g.pick(["Read", "WRITE", "remove", "update", "list", "complete", "recall ", "", "event"]))],
    [2, () => (a.type = g.pick(["event", "preference", "likes", "Schedule", "profile", "birthday ", "memo"]))],
    [2, () => (a.datetime = datetime(g, false))],
    [1, () => ((a.start_date = date(g)), (a.end_date = date(g)))],
    [2, () => (a[k] = nasty(g))],
    [2, () => (a[k] = longText(g, g.range(33, 3000)))],
    [1, () => (a[k] = g.pick([0, -1, 6, 1441, 51, 1.5, 1e308, "3", true]))],
  ]);
  return a;
}

function id(g: Gen): J {
  return g.choose<J>([
    [10, () => g.int(1000)],
    [4, () => "req-" + g.int(1000)],
    [1, () => ""],
    [1, () => g.pick([-1, 0.5, 1e300, -0, 2 ** 53 + 2])],
    [1, () => nasty(g)],
    [1, () => null],
    [1, () => g.chance(0.5)],
    [1, () => ({ id: 1 })],
    [1, () => [1]],
  ]);
}

const goodId = (g: Gen): J => (g.chance(0.7) ? g.int(100000) : "req-" + g.int(1000));

function validMessage(g: Gen): { msg: J; valid: boolean } {
  return g.choose<{ msg: J; valid: boolean }>([
    [20, () => ({ msg: { jsonrpc: "2.0", id: goodId(g), method: "tools/call", params: { name: "memory", arguments: validArgs(g) } }, valid: true })],
    [2, () => ({ msg: { jsonrpc: "2.0", id: g.int(100), method: "initialize", params: { protocolVersion: g.pick(["2024-11-05", "2025-03-26", "2025-06-18", "1.0", ""]), capabilities: {}, clientInfo: { name: "fuzz", version: "1" } } }, valid: false })],
    [1, () => ({ msg: { jsonrpc: "2.0", id: g.int(100), method: "ping" }, valid: false })],
    [2, () => ({ msg: { jsonrpc: "2.0", id: g.int(100), method: "tools/list", params: g.chance(0.5) ? {} : { cursor: g.pick(["0", "1", "x", "99999", "-1", 0, null]) } }, valid: false })],
    [1, () => ({ msg: { jsonrpc: "2.0", method: g.pick(METHODS), params: g.chance(0.5) ? { name: "memory", arguments: validArgs(g) } : undefined }, valid: false })],
  ]);
}

// A JSON-RPC message with something wrong in its frame.
function brokenFrame(g: Gen): J {
  const m: Record<string, unknown> = { jsonrpc: "2.0", id: id(g), method: g.pick(METHODS), params: { name: "memory", arguments: validArgs(g) } };
  g.choose<void>([
    [3, () => (m.jsonrpc = g.pick(["1.0", "2", 2, 2.0, null, "", "2.0 "]))],
    [2, () => delete m.jsonrpc],
    [2, () => delete m.id],
    [3, () => (m.method = anyValue(g))],
    [2, () => delete m.method],
    [4, () => (m.params = anyValue(g))],
    [3, () => ((m.method = "tools/call"), ((m.params as Record<string, unknown>).name = anyValue(g)))],
    [3, () => ((m.method = "tools/call"), ((m.params as Record<string, unknown>).arguments = anyValue(g)))],
    [1, () => ((m.method = "tools/call"), delete (m.params as Record<string, unknown>).arguments)],
    [2, () => ((m.result = anyValue(g)), g.chance(0.5) && delete m.method)],
    [1, () => ((m.error = { code: -32000, message: "x" }), delete m.method)],
    [2, () => put(m, someString(g), anyValue(g))],
    [1, () => (m.method = "tools/call" + g.pick(["\u0000", "\ud800", " ", "/"]))],
  ]);
  return m;
}

function batch(g: Gen): J {
  const n = g.choose<number>([
    [1, () => 0],
    [6, () => g.range(1, 5)],
    [1, () => g.range(6, 32)],
    [1, () => g.range(33, 40)],
  ]);
  return Array.from({ length: n }, () =>
    g.choose<J>([
      [4, () => validMessage(g).msg],
      [3, () => brokenFrame(g)],
      [1, () => anyValue(g)],
      [1, () => []],
      [1, () => ({ jsonrpc: "2.0", method: "notifications/initialized" })],
    ]),
  );
}

function envelope(g: Gen, payload: J): J {
  const e: Record<string, unknown> = { session_id: g.chance(0.8) ? "s-" + g.int(100) : anyValue(g), type: "mcp", payload };
  g.choose<void>([
    [6, () => {}],
    [1, () => delete e.session_id],
    [1, () => (e.type = g.pick(["MCP", "hello", "listen", "", null]))],
    [1, () => delete e.payload],
    [1, () => (e.payload = JSON.stringify(payload))],
  ]);
  return e;
}

// Nesting, from a few levels to thousands, around MAX_DEPTH above all: bare,
// inside a tool call's arguments, an id, params, an envelope or a batch, with
// brackets in strings that must not count; sometimes cut short (never closed).
function deep(g: Gen): string {
  const n = g.choose<number>([
    [3, () => g.range(MAX_DEPTH - 8, MAX_DEPTH + 3)],
    [2, () => g.pick([1, 2, 5, 10, 40, 64, 100])],
    [3, () => g.pick([500, 800, 900, 1000, 2000, 4000, 5000, 8000, 8191, 9000])],
  ]);
  const open = g.pick(["[", '{"a":', '[{"a":', '{"":[']);
  const close = open === "[" ? "]" : open === '{"a":' ? "}" : open === "[{\"a\":" ? "}]" : "]}";
  const v = open.repeat(n) + g.pick(["1", '"x"', "[]", "{}", "null", '"[[[{{{"']) + close.repeat(n);
  const call = (args: string) => `{"jsonrpc":"2.0","id":${g.int(1000)},"method":"tools/call","params":{"name":"memory","arguments":${args}}}`;
  const inner = g.choose<string>([
    [3, () => v],
    [4, () => call(`{"action":"write","type":"fact","content":${v}}`)],
    [1, () => call(v)],
    [1, () => `{"jsonrpc":"2.0","id":${v},"method":"ping"}`],
    [1, () => `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${v}}`],
    [2, () => `{"session_id":"s-1","type":"mcp","payload":${call(`{"action":"read","x":${v}}`)}}`],
    [1, () => `[{"jsonrpc":"2.0","id":1,"method":"ping"},${call(`{"action":"read","x":${v}}`)}]`],
    // brackets inside strings are text, not nesting
    [1, () => call(`{"action":"write","type":"fact","content":${JSON.stringify("[{".repeat(g.pick([40, 1000, 5000])) + "\\\"[")}}`)],
    // a string ending in backslashes, then brackets in the next string
    [2, () => call(`{"action":"write","type":"fact","content":${JSON.stringify(g.pick(["x\\", "\\\\", "\\\"", "\\", "\"", "数\\"]))},"memory":${JSON.stringify("[".repeat(g.pick([MAX_DEPTH + 1, 100, 1000])))}}`)],
  ]);
  return g.chance(0.2) ? inner.slice(0, g.int(inner.length)) : inner;
}

// Many values in a small message: flat arrays, objects with many members,
// argument lists and batches of hundreds or thousands of items.
function wide(g: Gen): string {
  const n = g.choose<number>([
    [3, () => g.range(MAX_ITEMS - 20, MAX_ITEMS + 5)],
    [2, () => g.pick([10, 100, 300])],
    [2, () => g.pick([1000, 2000, 4000, 5400, 8000])],
  ]);
  const unit = g.pick(["0", "{}", "[]", '"a"', "null", "[{}]", '{"a":1}']);
  const list = (k: number, f: (i: number) => string) => Array.from({ length: k }, (_, i) => f(i)).join(",");
  return g.choose<string>([
    [2, () => `[${list(n, () => unit)}]`],
    [2, () => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"write","type":"fact","content":[${list(n, () => unit)}]}}}`],
    [2, () => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"read",${list(n, (i) => `"k${i}":${unit}`)}}}}`],
    [1, () => `[${list(Math.min(n, 40), (i) => toolCall(i, validArgs(g)))}]`],
    [1, () => `{"type":"mcp","payload":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[${list(n, () => unit)}]}}}`],
  ]);
}

// Numbers JSON.stringify never writes: past the doubles' range, too long for
// XS's number buffer (256 bytes), too small, unsafe integers, and near misses.
function hugeNumber(g: Gen): string {
  const num = g.pick([
    "1e400", "-1e400", "1e-400", "2e308", "1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "4.9e-325",
    "9007199254740993", "-9007199254740993", "123456789012345678901234567890", "-0", "0e0", "1E+2", "1e+9999999999",
    "1" + "0".repeat(g.pick([20, 254, 255, 256, 300, 1000])), "0." + "0".repeat(300) + "1", "-" + "9".repeat(400),
    "01", "1.", ".5", "+1", "0x10", "Infinity", "NaN", "-", "1e", "--1", "1e1.5",
  ]);
  return g.pick([
    `{"jsonrpc":"2.0","id":${num},"method":"ping"}`,
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"write","type":"family","relation":"妈妈","name":"李华","closeness":${num}}}}`,
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory","arguments":{"action":"write","type":"age","content":${num}}}}`,
    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory","arguments":{"action":"search","keyword":"钢琴","limit":${num}}}}`,
    `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory","arguments":{"action":"write","type":"schedule","content":"钢琴课","datetime":"2026-02-06 16:00","priority":${num},"duration":${num}}}}`,
    `{"jsonrpc":${num},"id":5,"method":"ping"}`,
    `{"session_id":${num},"type":"mcp","payload":{"jsonrpc":"2.0","id":6,"method":"ping"}}`,
  ]);
}

// Breaks JSON text: truncation, a changed, dropped or added character, junk around it.
function mangle(g: Gen, s: string): string {
  return g.choose<string>([
    [4, () => s.slice(0, g.int(s.length))],
    [2, () => {
      const i = g.int(s.length);
      return s.slice(0, i) + s.slice(i + 1);
    }],
    [3, () => {
      const i = g.int(s.length);
      return s.slice(0, i) + g.pick(['"', "{", "}", "[", "]", ",", ":", "\\", "\u0000", "\n", "\ud800", "'", "x", "NaN", "-", "\\u12"]) + s.slice(i + 1);
    }],
    [1, () => s + g.pick(["}", "]", ",", " x", "\n{}", s])],
    [1, () => g.pick(["\ufeff", "// c\n", "x", ")]}'"]) + s],
    [1, () => s.replace(/"/g, "'")],
    [1, () => g.pick(["", " ", "\n", "null", "true", "0", '"x"', "{}", "[]", "[{}]", "NaN", "undefined", "{", "}", '{"jsonrpc":"2.0","id":1,"method":"ping"', "\u0000"])],
  ]);
}

function huge(g: Gen): string {
  // around the 16 KB limit, in bytes: ASCII, then 3-byte CJK whose char count stays under it
  const unit = g.pick(["a", "数", "🦕"]);
  const bytes = g.pick([1000, 8000, 16000, 16300, 16384, 16385, 17000, 40000, 200000]) + g.range(-200, 200);
  const per = new TextEncoder().encode(unit).length;
  const content = unit.repeat(Math.max(0, Math.floor((bytes - 120) / per)));
  const where = g.int(4);
  const m = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: validArgs(g) } } as Record<string, any>;
  if (where === 0) m.params.arguments.content = content;
  else if (where === 1) m.method = content;
  else if (where === 2) m.id = content;
  else m.params.arguments[content.slice(0, 5000)] = 1;
  return JSON.stringify(m);
}

export interface Input {
  text: string;
  valid: boolean; // a tools/call the generator meant to succeed
}

export function generate(g: Gen): Input {
  let valid = false;
  const json = (m: J) => JSON.stringify(m) ?? "null";
  const text = g.choose<string>([
    [30, () => {
      const v = validMessage(g);
      valid = v.valid;
      return json(v.msg);
    }],
    [20, () => json({ jsonrpc: "2.0", id: id(g), method: "tools/call", params: { name: g.chance(0.95) ? "memory" : someString(g), arguments: brokenArgs(g) } })],
    [12, () => json(brokenFrame(g))],
    [10, () => mangle(g, json(validMessage(g).msg))],
    [3, () => huge(g)],
    [4, () => json(anyValue(g))],
    [6, () => json(batch(g))],
    [7, () => json(envelope(g, g.choose<J>([[5, () => validMessage(g).msg], [2, () => brokenFrame(g)], [1, () => batch(g)], [1, () => anyValue(g)]])))],
    [1, () => mangle(g, json(envelope(g, validMessage(g).msg)))],
    [3, () => deep(g)],
    [2, () => wide(g)],
    [2, () => hugeNumber(g)],
    [3, () => {
      // raw trouble in the JSON text itself: unescaped controls, lone surrogates, lenient bytes
      const s = json({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: { action: "write", type: "fact", content: "X" } } });
      return s.replace("X", g.pick(["\u0000", "\n", "\t", "\ud800", "\udc00\ud800", "x\udbff", "\\ud800", "\\udc00\\ud800", "\\ud83e\\udd95", "\\ud83e\\u0041", "\\udbff\\udfff", "\\ud800\\", "\\u0000", "\\u001f", "\\x41", "\\'", lenient(g)]));
    }],
    [2, () => json({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: { action: g.pick(ACTIONS), type: g.pick(TYPES), content: g.pick(CONTENTS), [g.pick(ARG_NAMES)]: anyValue(g) } } })],
  ]);
  return { text, valid };
}

// ---- the checker ---------------------------------------------------------------------

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const validId = (id: unknown) => typeof id === "string" || (typeof id === "number" && Number.isFinite(id));

// What a single JSON-RPC member of the input calls for: a reply (and with which
// id), no reply, or either (cases the spec leaves to the server).
interface Expect {
  reply: "yes" | "no" | "maybe";
  id: unknown; // the id the reply must carry
  method?: string; // when the request is well formed
}

function expectOf(m: unknown): Expect {
  if (!isObject(m)) return { reply: "yes", id: null };
  if (!("id" in m)) {
    // a notification: never a reply. Without a method (or with a wrong jsonrpc) it
    // is an invalid request, which may get an error with id null.
    if (m.jsonrpc === "2.0" && typeof m.method === "string") return { reply: "no", id: null };
    return { reply: "maybe", id: null };
  }
  const rid = validId(m.id) ? m.id : null;
  if (typeof m.method !== "string" && ("result" in m || "error" in m)) return { reply: "maybe", id: rid }; // a client's response
  const wellFormed = m.jsonrpc === "2.0" && typeof m.method === "string" && validId(m.id) && (m.params === undefined || isObject(m.params) || Array.isArray(m.params));
  return { reply: "yes", id: rid, method: wellFormed ? (m.method as string) : undefined };
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const HUGE_NUMBER = /\d{17}|\d[eE][+-]?\d{3}/;
const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

// Strings in a reply, ids excepted (an id is echoed as it came).
function textsOf(v: unknown, out: string[], key = ""): string[] {
  if (typeof v === "string") {
    if (key !== "id" && key !== "session_id") out.push(v);
  } else if (Array.isArray(v)) for (const x of v) textsOf(x, out);
  else if (isObject(v)) for (const k of Object.keys(v)) textsOf(v[k], out, k);
  return out;
}

export interface Outcome {
  accepted: boolean; // a tools/call succeeded
  rejected: boolean; // an error or an isError result
  bytes?: number; // the input's UTF-8 length, set by the checker
  depth?: number; // its nesting and values (textShape), when within the size limit
  items?: number;
}

const RUNTIME_ERROR = /TypeError|RangeError|ReferenceError|SyntaxError|is not a function|Cannot read prop|is not iterable|undefined is not|null is not|Maximum call stack|\bof undefined\b|\bof null\b/;

// Checks one JSON-RPC response against what its request called for.
function checkResponse(r: unknown, e: Expect): string | undefined {
  if (!isObject(r)) return "a response is not an object";
  if (r.jsonrpc !== "2.0") return 'jsonrpc is not "2.0"';
  for (const k of Object.keys(r)) if (!["jsonrpc", "id", "result", "error"].includes(k)) return `unexpected member ${k}`;
  if (!("id" in r)) return "no id";
  if (("result" in r) === ("error" in r)) return "not exactly one of result and error";
  if ("error" in r) {
    if (r.id !== null && r.id !== e.id) return `error id ${JSON.stringify(r.id)}, expected ${JSON.stringify(e.id)} or null`;
    const err = r.error;
    if (!isObject(err)) return "error is not an object";
    if (!ERROR_CODES.includes(err.code as number)) return `error code ${String(err.code)} is not a standard one`;
    if (typeof err.message !== "string" || !err.message) return "error without a message";
    if (RUNTIME_ERROR.test(err.message)) return `a runtime error leaked: ${err.message.slice(0, 120)}`;
    return undefined;
  }
  if (r.id !== e.id) return `result id ${JSON.stringify(r.id)}, expected ${JSON.stringify(e.id)}`;
  if (!e.method) return "a result to an invalid request";
  const res = r.result;
  if (!isObject(res)) return "result is not an object";
  switch (e.method) {
    case "tools/call": {
      const c = res.content;
      if (!Array.isArray(c) || c.length === 0) return "tools/call: content is not a non-empty array";
      for (const x of c) if (!isObject(x) || x.type !== "text" || typeof x.text !== "string" || Object.keys(x).length !== 2) return "tools/call: content item is not {type:'text',text}";
      if (typeof res.isError !== "boolean") return "tools/call: isError is not a boolean";
      if (Object.keys(res).some((k) => k !== "content" && k !== "isError")) return "tools/call: unexpected member";
      // a tool failure says what was wrong: a JavaScript runtime error is a bug
      const text0 = String((c[0] as { text: string }).text);
      if ((res.isError || text0.startsWith("error:")) && RUNTIME_ERROR.test(text0)) return `tools/call: a runtime error leaked: ${(c[0] as { text: string }).text.slice(0, 120)}`;
      return undefined;
    }
    case "initialize":
      return typeof res.protocolVersion === "string" && isObject(res.capabilities) && isObject(res.serverInfo) ? undefined : "initialize: result misshaped";
    case "tools/list":
      return Array.isArray(res.tools) && (res.nextCursor === undefined || typeof res.nextCursor === "string") ? undefined : "tools/list: result misshaped";
    case "ping":
      return Object.keys(res).length === 0 ? undefined : "ping: result is not {}";
    default:
      return `a result to unknown method ${e.method}`;
  }
}

// Matches the replies to a batch's members in order: each member gets its reply,
// none, or (where the spec allows either) one or none.
function checkBatch(members: unknown[], replies: unknown[]): string | undefined {
  const ex = members.map(expectOf);
  // ok[i][j]: members from i on can account for replies from j on
  const n = ex.length, m = replies.length;
  const fits = (i: number, j: number) => checkResponse(replies[j], ex[i]) === undefined;
  const ok: boolean[][] = Array.from({ length: n + 1 }, () => new Array<boolean>(m + 1).fill(false));
  ok[n][m] = true;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m; j >= 0; j--) {
      const e = ex[i];
      const skip = e.reply !== "yes" && ok[i + 1][j];
      const take = e.reply !== "no" && j < m && ok[i + 1][j + 1] && fits(i, j);
      ok[i][j] = skip || take;
    }
  if (!ok[0][0]) {
    // say what is wrong with the first reply that fits nothing
    for (const r of replies) {
      const p = ex.map((e) => checkResponse(r, e));
      if (p.every((x) => x !== undefined)) return `batch: ${p[0]}`;
    }
    return `batch: ${m} replies do not match the ${n} members`;
  }
  return undefined;
}

// What the server must answer to a parsed JSON-RPC message (or batch).
function checkDispatch(msg: unknown, reply: unknown | undefined): string | undefined {
  if (Array.isArray(msg)) {
    if (msg.length === 0 || msg.length > 32) {
      // an empty batch is invalid; an oversized one may be refused as a whole
      if (reply === undefined) return "no reply to an invalid batch";
      if (Array.isArray(reply)) return msg.length === 0 ? "an array reply to an empty batch" : checkBatch(msg, reply);
      const p = checkResponse(reply, { reply: "yes", id: null });
      if (p) return p;
      return isObject(reply) && "error" in reply ? undefined : "a result to an invalid batch";
    }
    const due = msg.some((m) => expectOf(m).reply === "yes");
    if (reply === undefined) {
      return due ? "no reply to a batch with requests" : undefined;
    }
    if (!Array.isArray(reply)) return "a batch answered with a non-array";
    if (reply.length === 0) return "an empty array reply (should be no reply)";
    return checkBatch(msg, reply);
  }
  const e = expectOf(msg);
  if (reply === undefined) return e.reply === "yes" ? "no reply to a request" : undefined;
  if (e.reply === "no") return "a reply to a notification";
  return checkResponse(reply, e);
}

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

// Checks one reply to one input text.
export function checkReply(input: string, output: string | undefined, o: Outcome): string | undefined {
  if (output !== undefined && typeof output !== "string") return "the reply is not a string";
  let reply: unknown;
  if (output !== undefined) {
    if (hasLoneSurrogate(output)) return "the reply text has lone surrogates";
    const p = parses(output);
    if (!p.ok) return "the reply is not valid JSON";
    reply = p.value;
    outcome(reply, o);
  }
  const problem = checkShape(input, reply, o);
  if (problem) return problem;
  for (const s of textsOf(reply, [])) if (hasLoneSurrogate(s)) return `a text in the reply has a lone surrogate: ${JSON.stringify(s.slice(0, 80))}`;
  return undefined;
}

// Whether the reply accepted a tools/call (a result with isError false) and
// whether it rejected anything (an error, or isError true).
function outcome(reply: unknown, o: Outcome): void {
  const responses = isObject(reply) && reply.type === "mcp" ? reply.payload : reply;
  for (const r of Array.isArray(responses) ? responses : [responses]) {
    if (!isObject(r)) continue;
    if ("error" in r) o.rejected = true;
    const res = r.result;
    if (isObject(res) && Array.isArray(res.content) && typeof res.isError === "boolean") {
      // a refusal the model must read may come as plain text with isError false
      // ("error: …", what the xiaozhi server passes on): still a rejection
      const text = isObject(res.content[0]) ? res.content[0].text : undefined;
      if (res.isError || (typeof text === "string" && text.startsWith("error:"))) o.rejected = true;
      else o.accepted = true;
    }
  }
}

// How deep the JSON text nests and how many values it has ("[", "{" and ","
// outside strings), measured on its UTF-8 bytes. (The server measures the same
// thing its own way; this is the oracle's.)
export function textShape(bytes: Uint8Array): { depth: number; items: number } {
  let depth = 0, max = 0, items = 0;
  const OUT = 0, STR = 1, ESC = 2;
  let state = OUT;
  for (const c of bytes) {
    switch (state) {
      case ESC:
        state = STR;
        break;
      case STR:
        state = c === 0x5c ? ESC : c === 0x22 ? OUT : STR;
        break;
      default:
        if (c === 0x22) state = STR;
        else if (c === 0x5b || c === 0x7b) {
          items++;
          if (++depth > max) max = depth;
        } else if (c === 0x5d || c === 0x7d) depth = Math.max(0, depth - 1);
        else if (c === 0x2c) items++;
    }
  }
  return { depth: max, items };
}

function checkShape(input: string, reply: unknown, o: Outcome): string | undefined {
  const bytes = new TextEncoder().encode(input);
  const tooBig = bytes.length > MAX_MESSAGE_BYTES;
  const shape = tooBig ? { depth: 0, items: 0 } : textShape(bytes);
  o.bytes = bytes.length;
  o.depth = shape.depth;
  o.items = shape.items;
  const tooCostly = shape.depth > MAX_DEPTH || shape.items > MAX_ITEMS;
  // never JSON.parse what is refused unparsed: in XS, deep text would abort the checker too
  const p = tooBig || tooCostly ? { ok: false as const } : parses(input);
  if (tooBig || tooCostly || !p.ok) {
    // refused whole: one error with id null (parse error for bad JSON)
    const what = tooBig ? "an oversized message" : shape.depth > MAX_DEPTH ? `a message nested ${shape.depth} deep` : tooCostly ? `a message of ${shape.items} items` : "bad JSON";
    if (reply === undefined) return `no reply to ${what}`;
    const prob = checkResponse(reply, { reply: "yes", id: null });
    if (prob) return prob;
    if (!isObject(reply) || !("error" in reply) || reply.id !== null) return `${what} not answered by an error with id null`;
    if (!tooBig && !tooCostly && (reply.error as { code: number }).code !== -32700) return `bad JSON answered with ${(reply.error as { code: number }).code}, not -32700`;
    return undefined;
  }
  const msg = p.value;
  if (isObject(msg) && msg.type === "mcp" && "payload" in msg) {
    // the xiaozhi envelope, answered in kind
    if (reply === undefined) return checkDispatch(msg.payload, undefined);
    if (!isObject(reply) || reply.type !== "mcp" || !("payload" in reply)) return "an envelope not answered with an envelope";
    for (const k of Object.keys(reply)) if (!["type", "payload", "session_id"].includes(k)) return `envelope: unexpected member ${k}`;
    if (typeof msg.session_id === "string" ? reply.session_id !== msg.session_id : "session_id" in reply) return "envelope: session_id not echoed";
    return checkDispatch(msg.payload, reply.payload);
  }
  return checkDispatch(msg, reply);
}

// ---- the run -----------------------------------------------------------------------------

export function fuzz(opts: FuzzOptions): FuzzResult {
  const t0 = Date.now();
  const make = opts.makeTarget ?? (() => serviceTarget());
  let target = opts.target ?? make();
  const reset = opts.reset ?? 0;
  const g = new Gen(rng(opts.seed));
  const maxReports = opts.maxReports ?? 20;
  const res: FuzzResult = {
    inputs: 0, bad_responses: 0, crashes: 0, state_changed_on_reject: 0, seed: opts.seed,
    valid_calls: 0, accepted: 0, rejected: 0, no_reply: 0, flash_writes: 0,
    over_16k: 0, too_deep: 0, too_many_items: 0, deepest: 0, surrogates: 0, huge_numbers: 0, ms: 0, reports: [],
  };
  let writes0 = target.flashWrites();
  let writesBefore = 0; // flash writes of the devices a reset let go
  let at = 0;
  const report = (r: Report) => {
    const clipped = { ...r, at: r.at ?? at, input: clip(r.input), output: r.output === undefined ? undefined : clip(r.output) };
    if (res.reports.length < maxReports) res.reports.push(clipped);
    opts.onReport?.(clipped);
  };
  const from = opts.from ?? 0;
  // resuming at `from`: time passes only from the start of its device's span
  const live = reset > 0 ? from - (from % reset) : 0;
  for (let i = 0; i < opts.n; i++) {
    if (reset > 0 && i > from && i % reset === 0) {
      writesBefore += target.flashWrites() - writes0;
      target = make();
      writes0 = target.flashWrites();
    }
    if (g.chance(0.01)) {
      const ms = g.range(1, 180) * 60000;
      if (i >= live) target.advance?.(ms);
    }
    const input = generate(g);
    if (i < from) continue;
    at = i;
    opts.onInput?.(i, res);
    res.inputs++;
    if (input.valid) res.valid_calls++;
    const w0 = target.flashWrites();
    const ram0 = target.ram();
    let output: string | undefined;
    try {
      output = target.handle(input.text);
    } catch (e) {
      res.crashes++;
      report({ kind: "crash", input: input.text, detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
      continue;
    }
    if (output === undefined) res.no_reply++;
    const o: Outcome = { accepted: false, rejected: false };
    let problem: string | undefined;
    try {
      problem = checkReply(input.text, output, o);
    } catch (e) {
      problem = `checker: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (problem) {
      res.bad_responses++;
      report({ kind: "bad_response", input: input.text, output, detail: problem });
    }
    if (o.bytes !== undefined && o.bytes > MAX_MESSAGE_BYTES) res.over_16k++;
    if (o.depth !== undefined && o.depth > MAX_DEPTH) res.too_deep++;
    if (o.items !== undefined && o.items > MAX_ITEMS) res.too_many_items++;
    if (o.depth !== undefined && o.depth > res.deepest) res.deepest = o.depth;
    if (hasLoneSurrogate(input.text) || SURROGATE_ESCAPE.test(input.text)) res.surrogates++;
    if (HUGE_NUMBER.test(input.text)) res.huge_numbers++;
    if (o.accepted) res.accepted++;
    if (o.rejected) res.rejected++;
    if (!o.accepted) {
      const w1 = target.flashWrites();
      const changed = w1 !== w0 ? `${w1 - w0} flash writes` : target.ram() !== ram0 ? "memory in RAM changed" : undefined;
      if (changed) {
        res.state_changed_on_reject++;
        report({ kind: "state_changed_on_reject", input: input.text, output, detail: changed });
      }
    }
  }
  res.flash_writes = writesBefore + target.flashWrites() - writes0;
  res.ms = Date.now() - t0;
  return res;
}

// Input i of the run with this seed, as fuzz() sends it.
export function inputAt(seed: number, i: number): Input {
  const g = new Gen(rng(seed));
  for (let k = 0; ; k++) {
    if (g.chance(0.01)) g.range(1, 180);
    const input = generate(g);
    if (k === i) return input;
  }
}

export function clip(s: string): string {
  return s.length > 600 ? `${s.slice(0, 500)}…(${s.length} chars)…${s.slice(-80)}` : s;
}

// The last line of `npm run fuzz`: the engine, then the four counters.
export function summary(r: FuzzResult, engine: "node" | "xs"): string {
  return JSON.stringify({ engine, inputs: r.inputs, bad_responses: r.bad_responses, crashes: r.crashes, state_changed_on_reject: r.state_changed_on_reject });
}

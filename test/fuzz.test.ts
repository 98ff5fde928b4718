import assert from "node:assert/strict";
import { fuzz, serviceTarget, checkReply, toolCall, textShape, inputAt, type Target, type Outcome } from "./fuzz/fuzzer";
import { quote, MAX_DEPTH, MAX_ITEMS } from "../src/mcp/server";
import { fuzzXs } from "./xs/fuzz";
import { setTraceSink } from "../host-sim/trace-sink";
import "../host-sim/trace";

const SEED = 20260205;

// A handler made wrong on purpose, from a real seeded service: `spoil` sees each
// input, the real reply and the service, and returns what the broken handler says.
function broken(spoil: (input: string, reply: string | undefined, t: ReturnType<typeof serviceTarget>, n: number) => string | undefined): Target {
  const t = serviceTarget();
  let n = 0;
  return { ...t, handle: (m) => spoil(m, t.handle(m), t, n++) };
}

const rejected = (reply: string | undefined) => reply !== undefined && (/"error":\{/.test(reply) || /"isError":true/.test(reply));

// The inputs issue 11 names are in the mix: over 16 KB, nested to thousands,
// too many values, lone surrogates, huge numbers.
function coversTheIssue(r: ReturnType<typeof fuzz>): void {
  const { over_16k, too_deep, too_many_items, deepest, surrogates, huge_numbers } = r;
  const mix = JSON.stringify({ over_16k, too_deep, too_many_items, deepest, surrogates, huge_numbers });
  assert.ok(over_16k >= 10 && too_deep >= 20 && too_many_items >= 10 && surrogates >= 20 && huge_numbers >= 10, mix);
  assert.ok(deepest >= 5000, mix);
}

describe("fuzz: random and malformed MCP messages", () => {
  before(() => setTraceSink(() => {}));

  it("3000 inputs: no crash, no bad response, nothing changed on a rejected call", function () {
    this.timeout(60000);
    const r = fuzz({ n: 3000, seed: SEED });
    assert.deepEqual(r.reports, [], JSON.stringify(r.reports, null, 1));
    assert.equal(r.inputs, 3000);
    assert.equal(r.crashes, 0);
    assert.equal(r.bad_responses, 0);
    assert.equal(r.state_changed_on_reject, 0);
    // the mix does what it is for: state evolves and much is refused
    assert.ok(r.valid_calls > 500, `valid calls ${r.valid_calls}`);
    assert.ok(r.accepted > 500, `accepted ${r.accepted}`);
    assert.ok(r.rejected > 1000, `rejected ${r.rejected}`);
    assert.ok(r.no_reply > 20, `no reply ${r.no_reply}`);
    assert.ok(r.flash_writes > 100, `flash writes ${r.flash_writes}`);
    coversTheIssue(r);
  });

  it("replays: the same seed gives the same run", () => {
    const a = fuzz({ n: 300, seed: 7 });
    const b = fuzz({ n: 300, seed: 7 });
    const strip = ({ ms, reports, ...rest }: ReturnType<typeof fuzz>) => rest;
    assert.deepEqual(strip(a), strip(b));
  });

  it("a fresh device every `reset` inputs: each span starts on a new device, and a finding replays with the same reset", () => {
    // a handler that breaks on the 50th input its device handles
    const make = () => {
      const t = serviceTarget();
      let n = 0;
      return { ...t, handle: (m: string) => (++n === 50 ? (() => { throw new TypeError("tired"); })() : t.handle(m)) };
    };
    let made = 0;
    const counted = () => (made++, make());
    const r = fuzz({ n: 250, seed: 7, reset: 100, makeTarget: counted });
    assert.equal(made, 3, "one device per span of 100 inputs");
    assert.deepEqual(r.reports.map((x) => x.at), [49, 149, 249]);
    assert.equal(r.inputs, 250);
    assert.ok(r.flash_writes > 0);
    const once = fuzz({ n: 250, seed: 7, makeTarget: make });
    assert.deepEqual(once.reports.map((x) => x.at), [49], "without a reset: one device");
    const replay = fuzz({ n: 150, seed: 7, reset: 100, makeTarget: make });
    assert.deepEqual(replay.reports.map((x) => [x.at, x.input]), r.reports.slice(0, 2).map((x) => [x.at, x.input]));
    const strip = ({ ms, reports, ...rest }: ReturnType<typeof fuzz>) => rest;
    assert.deepEqual(strip(fuzz({ n: 250, seed: 7, reset: 100 })), strip(fuzz({ n: 250, seed: 7, reset: 100 })), "the same seed and reset, the same run");
  });

  it("the checker catches a handler that throws", () => {
    const r = fuzz({ n: 200, seed: SEED, target: broken((m, reply, _t, n) => (n % 10 === 3 ? (() => { throw new TypeError("boom"); })() : reply)) });
    assert.equal(r.crashes, 20);
    assert.equal(r.reports[0].kind, "crash");
    assert.match(r.reports[0].detail, /TypeError: boom/);
  });

  it("the checker catches garbage, wrong ids, odd codes, misshaped results and silence", () => {
    const spoils: ((reply: string) => string | undefined)[] = [
      () => "not json",
      (s) => s.replace(/"jsonrpc":"2.0"/, '"jsonrpc":"1.0"'),
      (s) => s.replace(/"id":(\d+|"[^"]*")/, '"id":"someone else"'),
      (s) => s.replace(/"code":-32\d+/, '"code":-32000'),
      (s) => s.replace(/"isError":(true|false)/, '"isError":"no"'),
      (s) => s.replace(/"type":"text"/, '"type":"image"'),
      () => undefined,
      (s) => s.replace(/"result":/, '"error":{"code":-32603,"message":"x"},"result":'),
      (s) => s.replace(/"message":"[^"]*"/, '"message":"\\ud800"'),
    ];
    for (const [i, spoil] of spoils.entries()) {
      // spoil only replies that have the part being broken, so every spoil counts
      const r = fuzz({ n: 300, seed: SEED + i, target: broken((m, reply) => (reply !== undefined ? spoil(reply) : reply)) });
      assert.ok(r.bad_responses > 10, `spoil ${i}: ${r.bad_responses} bad responses`);
      assert.equal(r.crashes, 0);
    }
  });

  it("the checker catches an answer to a notification and an envelope answered plainly", () => {
    const notify = fuzz({ n: 400, seed: SEED, target: broken((m, reply) => reply ?? '{"jsonrpc":"2.0","id":null,"result":{}}') });
    assert.ok(notify.bad_responses > 5, `${notify.bad_responses}`);
    const plain = fuzz({ n: 400, seed: SEED, target: broken((m, reply) => (reply?.startsWith('{"type":"mcp"') ? JSON.stringify(JSON.parse(reply).payload) : reply)) });
    assert.ok(plain.bad_responses > 5, `${plain.bad_responses}`);
  });

  it("a tool error as plain text (isError false, \"error: …\") still counts as a rejection", () => {
    // tool errors turned into results the model reads, as the xiaozhi server needs
    const plain = broken((m, reply) => reply?.replace('"isError":true', '"isError":false'));
    const r = fuzz({ n: 300, seed: SEED, target: plain });
    const base = fuzz({ n: 300, seed: SEED });
    assert.equal(r.rejected, base.rejected);
    assert.equal(r.accepted, base.accepted);
    // and a leak after such a refusal is still caught
    const leak = fuzz({
      n: 300, seed: SEED,
      target: broken((m, reply, t, n) => {
        const out = reply?.replace('"isError":true', '"isError":false');
        if (out?.includes('"text":"error:')) t.service.memory.addPreference("like", `leak ${n}`);
        return out;
      }),
    });
    assert.ok(leak.state_changed_on_reject > 10, `${leak.state_changed_on_reject}`);
  });

  it("the checker catches state changed by a rejected call, on flash and in RAM", () => {
    // flash: a rejected call that still writes
    const flash = fuzz({
      n: 300, seed: SEED,
      target: broken((m, reply, t, n) => {
        if (rejected(reply)) {
          t.service.memory.setProfile("location", `leak ${n}`);
          t.service.flush();
        }
        return reply;
      }),
    });
    assert.equal(flash.crashes, 0);
    assert.ok(flash.state_changed_on_reject > 50, `${flash.state_changed_on_reject}`);
    assert.match(flash.reports.find((r) => r.kind === "state_changed_on_reject")!.detail, /flash writes/);
    // RAM only: changed but not flushed
    const ram = fuzz({
      n: 300, seed: SEED,
      target: broken((m, reply, t, n) => {
        if (rejected(reply) && n % 3 === 0) t.service.memory.addPreference("like", `leak ${n}`);
        return reply;
      }),
    });
    assert.equal(ram.crashes, 0);
    assert.ok(ram.state_changed_on_reject > 10, `${ram.state_changed_on_reject}`);
    assert.match(ram.reports.find((r) => r.kind === "state_changed_on_reject")!.detail, /RAM/);
  });

  it("checkReply: hand-made cases", () => {
    const o = (): Outcome => ({ accepted: false, rejected: false });
    const ok = (input: unknown, reply: unknown) => checkReply(typeof input === "string" ? input : JSON.stringify(input), reply === undefined ? undefined : JSON.stringify(reply), o());
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    assert.equal(ok(ping, { jsonrpc: "2.0", id: 1, result: {} }), undefined);
    assert.match(ok(ping, undefined)!, /no reply/);
    assert.match(ok(ping, { jsonrpc: "2.0", id: 2, result: {} })!, /id/);
    assert.match(ok(ping, { jsonrpc: "2.0", id: 1, result: {}, error: { code: -32603, message: "x" } })!, /exactly one/);
    assert.equal(ok(ping, { jsonrpc: "2.0", id: null, error: { code: -32603, message: "x" } }), undefined);
    assert.match(ok({ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: null, result: {} })!, /notification/);
    assert.match(ok("{bad", { jsonrpc: "2.0", id: null, error: { code: -32600, message: "x" } })!, /-32700/);
    assert.equal(ok("{bad", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } }), undefined);
    const env = { session_id: "s1", type: "mcp", payload: ping };
    assert.equal(ok(env, { session_id: "s1", type: "mcp", payload: { jsonrpc: "2.0", id: 1, result: {} } }), undefined);
    assert.match(ok(env, { jsonrpc: "2.0", id: 1, result: {} })!, /envelope/);
    assert.match(ok(env, { session_id: "s2", type: "mcp", payload: { jsonrpc: "2.0", id: 1, result: {} } })!, /session_id/);
    // a batch: replies in order, none for the notification
    const batch = [ping, { jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: "b", method: "nope" }];
    const r1 = { jsonrpc: "2.0", id: 1, result: {} };
    const r2 = { jsonrpc: "2.0", id: "b", error: { code: -32601, message: "unknown method" } };
    assert.equal(ok(batch, [r1, r2]), undefined);
    assert.match(ok(batch, [r1])!, /batch/);
    assert.match(ok(batch, [r1, r2, r1])!, /batch/);
    // tools/call results
    const call = JSON.parse(toolCall(5, { action: "read" }));
    assert.equal(ok(call, { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "{}" }], isError: false } }), undefined);
    assert.match(ok(call, { jsonrpc: "2.0", id: 5, result: { content: "{}", isError: false } })!, /content/);
    assert.match(ok(call, { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "{}" }] } })!, /isError/);
  });

  it("checkReply: too deep or too many values must be refused whole, like too big", () => {
    const o = (): Outcome => ({ accepted: false, rejected: false });
    const refused = { jsonrpc: "2.0", id: null, error: { code: -32600, message: "too deep" } };
    const at = (depth: number) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(depth - 2)}${"]".repeat(depth - 2)}}}`;
    assert.deepEqual(textShape(new TextEncoder().encode(at(MAX_DEPTH))), { depth: MAX_DEPTH, items: MAX_DEPTH + 3 });
    // a string ending in a backslash, a key with an escaped quote and a bracket, a "]" value
    assert.deepEqual(textShape(new TextEncoder().encode(JSON.stringify(["[[[\\", { 'a\\"[': "]" }]))), { depth: 2, items: 3 });
    const pong = JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(checkReply(at(MAX_DEPTH), pong, o()), undefined);
    assert.match(checkReply(at(MAX_DEPTH + 1), pong, o())!, /result id 1, expected null/);
    assert.equal(checkReply(at(MAX_DEPTH + 1), JSON.stringify(refused), o()), undefined);
    assert.equal(checkReply("[".repeat(9000), JSON.stringify(refused), o()), undefined, "not -32700 required: it is not parsed");
    assert.match(checkReply("[".repeat(9000), undefined, o())!, /no reply/);
    const wide = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[${"0,".repeat(MAX_ITEMS)}0]}}`;
    assert.match(checkReply(wide, pong, o())!, /result id 1, expected null/);
  });

  it("inputAt(seed, i) regenerates the input fuzz() sent", () => {
    const seen: string[] = [];
    fuzz({ n: 60, seed: 11, target: { ...serviceTarget(), handle: (m) => (seen.push(m), undefined) } });
    for (const i of [0, 7, 59]) assert.equal(inputAt(11, i).text, seen[i]);
    const resumed: string[] = [];
    fuzz({ n: 60, seed: 11, from: 40, target: { ...serviceTarget(), handle: (m) => (resumed.push(m), undefined) } });
    assert.deepEqual(resumed, seen.slice(40));
  });

  it("quoted input in error messages never carries half a surrogate pair (found by the fuzzer)", () => {
    assert.equal(quote("a".repeat(63) + "🦕"), "a".repeat(63));
    assert.equal(quote("x\ud800y"), "x\ufffdy");
    assert.equal(quote("\udc00🦕"), "\ufffd🦕");
    const t = serviceTarget();
    const reply = t.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "m".repeat(63) + "🦕" }))!;
    assert.equal(checkReply(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "m".repeat(63) + "🦕" }), reply, { accepted: false, rejected: false }), undefined);
    const tool = t.handle(toolCall(2, { action: "read", ["k".repeat(31) + "🦕"]: 1 }))!;
    assert.doesNotMatch(JSON.parse(tool).result.content[0].text, /[\ud800-\udfff]/);
  });
});

// The same fuzzer inside the XS lane's device-like worker (test/xs/fuzz.ts):
// `npm run fuzz -- --xs` at CI size, and proof that its checks fail there too.
describe("fuzz inside XS (device-like xsnap worker)", () => {
  it("2000 inputs: no crash of the engine or the server, no bad response, nothing changed on reject", async function () {
    this.timeout(180000); // the first run may build the worker (about 15 s, 45 s with a fresh npm install)
    const r = await fuzzXs({ n: 2000, seed: SEED });
    assert.deepEqual(r.reports, [], JSON.stringify(r.reports, null, 1));
    assert.equal(r.engine, "xs");
    assert.equal(r.inputs, 2000);
    assert.equal(r.workers, 1);
    assert.equal(r.crashes + r.bad_responses + r.state_changed_on_reject, 0);
    assert.ok(r.accepted > 300 && r.rejected > 700 && r.flash_writes > 100, JSON.stringify(r));
    coversTheIssue(r);
  });

  it("a fresh device every `reset` inputs inside XS: the run goes on, nothing found", async function () {
    this.timeout(180000);
    const r = await fuzzXs({ n: 450, seed: SEED, reset: 200 });
    assert.deepEqual(r.reports, [], JSON.stringify(r.reports, null, 1));
    assert.equal(r.inputs, 450);
    assert.equal(r.workers, 1);
    assert.ok(r.accepted > 50 && r.flash_writes > 100, JSON.stringify(r));
  });

  it("an abort of the engine counts as a crash of its input, and the run goes on in a new worker", async function () {
    this.timeout(120000);
    const r = await fuzzXs({ n: 300, seed: SEED, mutant: "parse-first", maxReports: 50 });
    assert.equal(r.inputs, 300);
    assert.ok(r.crashes >= 1, `crashes ${r.crashes}`); // 6 with the manifest's 1,024-slot stack
    assert.equal(r.workers, r.crashes + 1);
    const c = r.reports.filter((x) => x.kind === "crash");
    assert.equal(c.length, r.crashes);
    for (const x of c) {
      assert.match(x.detail, /XS engine: xsnap-worker exited \(code 12: stack overflow\)/);
      assert.ok(textShape(new TextEncoder().encode(x.input)).depth > 100 || x.input.includes("…("), x.input.slice(0, 200));
    }
  });

  it("state changed by a rejected call is caught in XS, in RAM and on flash", async function () {
    this.timeout(120000);
    const r = await fuzzXs({ n: 300, seed: SEED, mutant: "leak-on-reject", maxReports: 300 });
    assert.equal(r.crashes, 0);
    assert.ok(r.state_changed_on_reject > 50, `${r.state_changed_on_reject}`);
    const kinds = new Set(r.reports.filter((x) => x.kind === "state_changed_on_reject").map((x) => (/flash writes/.test(x.detail) ? "flash" : /RAM/.test(x.detail) ? "ram" : x.detail)));
    assert.deepEqual([...kinds].sort(), ["flash", "ram"]);
  });
});

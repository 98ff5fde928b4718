// The device's HTTP (src/net/http.ts over host-sim's `http`, the SDK's
// Request for Node): bodies by content-length, chunked and until the close,
// UTF-8 cut between fragments, the limits (one request at a time, the reply's
// size, the timeout on a device timer) and the failures (refused, lost).
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import { httpControl } from "../host-sim/http";
import { request, base64, HttpError } from "../src/net/http";

let server: http.Server;
let port = 0;
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const BIG = "记忆".repeat(3000); // 18,000 bytes of UTF-8

before(async () => {
  server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const u = req.url!;
      if (u === "/length") {
        const b = Buffer.from(JSON.stringify({ ok: true, echo: body }), "utf8");
        res.writeHead(200, { "content-length": b.length, "content-type": "application/json" });
        res.end(b);
      } else if (u === "/chunked") {
        res.writeHead(200, { "content-type": "application/json" });
        const b = Buffer.from(JSON.stringify({ text: "小明喜欢恐龙" }), "utf8");
        // cut inside a character: 3-byte UTF-8 split across chunks
        res.write(b.subarray(0, 10));
        setTimeout(() => res.end(b.subarray(10)), 5);
      } else if (u === "/close") {
        res.socket!.write("HTTP/1.1 201 Created\r\ncontent-type: text/plain\r\n\r\n你好，世界");
        res.socket!.end();
      } else if (u === "/big") {
        res.writeHead(200);
        res.end(BIG);
      } else if (u === "/stall") {
        // never answers
      } else if (u === "/cut") {
        res.socket!.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"half\":");
        res.socket!.destroy();
      } else {
        res.writeHead(404);
        res.end('{"error":"not_found"}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((r) => server.close(() => r())));

// Runs fn with the device's clock following real time (timeouts are device timers).
async function live<T>(fn: () => Promise<T>): Promise<T> {
  const dev = new SimDevice().install();
  const start = Date.now(), virt = dev.clock.now;
  const t = setInterval(() => dev.clock.advanceTo(virt + (Date.now() - start)), 2);
  try {
    return await fn();
  } finally {
    clearInterval(t);
  }
}

describe("http (src/net/http.ts over the SDK's Request)", () => {
  beforeEach(() => httpControl.reset());

  it("sends the body as UTF-8 with its byte length, Basic auth and JSON headers; reads a content-length reply", async () => {
    const r = await live(() => request({ host: "127.0.0.1", port, auth: "宠物:密码" }, "POST", "/length", '{"name":"小明"}'));
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { ok: true, echo: '{"name":"小明"}' });
    const s = seen[seen.length - 1];
    assert.equal(s.headers["content-length"], String(Buffer.byteLength('{"name":"小明"}')));
    assert.equal(s.headers.authorization, "Basic " + Buffer.from("宠物:密码").toString("base64"));
    assert.equal(s.headers.connection, "close");
    assert.equal(s.headers.accept, "application/json");
  });

  it("a body larger than the socket's room goes out in pieces; the SDK's one-write body that large aborts, as on the device", async () => {
    const big = JSON.stringify({ text: "记忆".repeat(900) }); // 5.4 KB of UTF-8
    const r = await live(() => request({ host: "127.0.0.1", port }, "POST", "/length", big, { maxBody: 20000 }));
    assert.equal(JSON.parse(r.body).echo, big);
    assert.ok(httpControl.sent > big.length, "all of it went out");
    // the SDK's Request with the whole body at once: the socket cannot take it
    const { Request, WRITE_ROOM } = await import("../host-sim/http");
    const failures: unknown[] = [];
    const listener = (e: unknown) => void failures.push(e);
    const mochas = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", listener);
    try {
      const req = new Request({ host: "127.0.0.1", port, method: "POST", path: "/length", body: new ArrayBuffer(WRITE_ROOM + 1) });
      req.callback = () => undefined;
      await new Promise((res) => setTimeout(res, 200));
      req.close();
    } finally {
      process.removeListener("uncaughtException", listener);
      for (const l of mochas) process.on("uncaughtException", l);
    }
    assert.ok(failures.some((e) => e instanceof Error && e.message.includes("can't write all data")), "the oversized write throws in the socket callback");
  });

  it("reads chunked and close-delimited replies, with characters cut between fragments", async () => {
    const c = await live(() => request({ host: "127.0.0.1", port }, "GET", "/chunked"));
    assert.deepEqual(JSON.parse(c.body), { text: "小明喜欢恐龙" });
    const d = await live(() => request({ host: "127.0.0.1", port }, "GET", "/close"));
    assert.equal(d.status, 201);
    assert.equal(d.body, "你好，世界");
  });

  it("base64 as RFC 4648", () => {
    for (const s of ["", "f", "fo", "foo", "foob", "fooba", "foobar", "user:pässwörd"]) assert.equal(base64(s), Buffer.from(s).toString("base64"));
  });

  it("a reply longer than maxBody is refused (too big), one that stalls times out, a cut one is lost, no server is refused", async () => {
    await assert.rejects(live(() => request({ host: "127.0.0.1", port }, "GET", "/big", undefined, { maxBody: 16384 })), (e) => e instanceof HttpError && e.code === "too big");
    const ok = await live(() => request({ host: "127.0.0.1", port }, "GET", "/big", undefined, { maxBody: 20000 }));
    assert.equal(ok.body, BIG);
    await assert.rejects(live(() => request({ host: "127.0.0.1", port }, "GET", "/stall", undefined, { timeout: 300 })), (e) => e instanceof HttpError && e.code === "timeout");
    await assert.rejects(live(() => request({ host: "127.0.0.1", port }, "GET", "/cut")), (e) => e instanceof HttpError && e.code === "lost");
    await assert.rejects(live(() => request({ host: "127.0.0.1", port: 1 }, "GET", "/")), (e) => e instanceof HttpError && e.code === "refused");
  });

  it("injected faults: refuse, drop after N bytes, stall; one request at a time", async () => {
    httpControl.faults.set(0, { kind: "refuse" });
    httpControl.faults.set(1, { kind: "drop", after: 30 });
    httpControl.faults.set(2, { kind: "stall" });
    const ep = { host: "127.0.0.1", port };
    await assert.rejects(live(() => request(ep, "GET", "/length")), (e) => e instanceof HttpError && e.code === "refused");
    await assert.rejects(live(() => request(ep, "GET", "/length")), (e) => e instanceof HttpError && e.code === "lost");
    await assert.rejects(live(() => request(ep, "GET", "/length", undefined, { timeout: 200 })), (e) => e instanceof HttpError && e.code === "timeout");
    const both = await live(() => Promise.allSettled([request(ep, "GET", "/length"), request(ep, "GET", "/length")]));
    assert.equal(both[0].status, "fulfilled");
    assert.ok(both[1].status === "rejected" && (both[1].reason as HttpError).code === "busy");
    assert.equal(httpControl.maxLive, 1, "never two connections at once");
  });
});

// Sync over TLS (issue 27): the device's HTTP (src/net/http.ts) with the SDK's
// SecureSocket, here host-sim's `http` over node:tls with the same contract,
// against pouchdb-server behind a TLS terminator on 127.0.0.1 whose
// certificates come from a test CA made by the test (test/couch/tls.ts). A
// certificate from another CA, an expired one, or one for another host name
// is refused with a one-line reason, and nothing changes on either side.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import type { Booted } from "../src/app/boot";
import { request, fromBase64, type Endpoint } from "../src/net/http";
import { sync, SyncError, type SyncOptions, type SyncReport } from "../src/sync/replicate";
import { bodyOf, hashOf } from "../src/sync/docs";
import { bootOn } from "./scenarios/backup.scn";
import { smallPet, held, sameDocs } from "./scenarios/sync.scn";
import { startCouch, removeCouch, type Couch } from "./couch/server";
import { makePki, startTerminator, type TestPki, type Terminator } from "./couch/tls";

let couch: Couch;
let pki: TestPki;
let good: Terminator, expired: Terminator, wrongHost: Terminator;

async function run(dev: SimDevice, b: Booted, ep: Endpoint, o: Partial<SyncOptions> & { db: string }): Promise<SyncReport> {
  dev.install();
  const start = Date.now(), virt = dev.clock.now;
  const t = setInterval(() => dev.clock.advanceTo(virt + (Date.now() - start)), 5);
  try {
    return await sync(b, { transport: request, remote: ep, limits: { timeout: 10000 }, ...o });
  } finally {
    clearInterval(t);
    dev.clock.advanceTo(virt + (Date.now() - start));
  }
}

async function dbExists(db: string): Promise<boolean> {
  return (await fetch(`${couch.url}/${db}`)).status === 200;
}

describe("sync over TLS (pouchdb-server behind a TLS terminator, a test CA)", function () {
  this.timeout(300000);

  before(async () => {
    pki = makePki();
    couch = await startCouch();
    good = await startTerminator(pki.good, () => couch.port);
    expired = await startTerminator(pki.expired, () => couch.port);
    wrongHost = await startTerminator(pki.wrongHost, () => couch.port);
  });

  after(async () => {
    await good?.close();
    await expired?.close();
    await wrongHost?.close();
    await couch?.stop();
    if (couch) removeCouch(couch);
    if (pki) fs.rmSync(pki.dir, { recursive: true, force: true });
  });

  it("the build's configuration gives the CA in base64 (its PEM's lines): the device reads the same DER", () => {
    const text = fs.readFileSync(pki.caPem, "latin1");
    assert.deepEqual(Buffer.from(fromBase64(text)), Buffer.from(pki.caDer));
    const body = text.replace(/-----[^-]*-----/g, "").replace(/\s+/g, "");
    assert.deepEqual(Buffer.from(fromBase64(body)), Buffer.from(pki.caDer));
  });

  it("a pet's memory goes up and a new pet restores it, every request over TLS", async () => {
    const P = smallPet();
    const ep: Endpoint = { host: "127.0.0.1", port: good.port, tls: { ca: pki.caDer } };
    const before = good.connections;
    const r1 = await run(P.dev, P.booted, ep, { db: "tls-owner" });
    assert.ok(r1.pushed > 10, `pushed ${r1.pushed}`);
    assert.ok(good.connections - before >= r1.requests, "one TLS connection per request");
    const r2 = await run(P.dev, P.booted, ep, { db: "tls-owner" });
    assert.equal(`${r2.pushed}/${r2.pulled}`, "0/0", "second sync");
    const nd = new SimDevice({ now: P.dev.clock.now, storageBytes: 320 * 1024 }) /* as fillDevice (backup.scn STORAGE) */;
    const nb = bootOn(nd);
    const r = await run(nd, nb, { ...ep, host: "localhost" }, { db: "tls-owner", restore: true });
    assert.ok(r.pulled > 10, `restored ${r.pulled}`);
    nd.install();
    const hn = held(nb);
    P.dev.install();
    sameDocs(held(P.booted), hn, "the restored pet");
  });

  for (const c of [
    { what: "a certificate from another CA", ep: () => ({ host: "127.0.0.1", port: good.port, tls: { ca: pki.otherCaDer } }), why: /not signed by the configured CA/ },
    { what: "an expired certificate", ep: () => ({ host: "127.0.0.1", port: expired.port, tls: { ca: pki.caDer } }), why: /expired/ },
    { what: "a certificate for another host name", ep: () => ({ host: "127.0.0.1", port: wrongHost.port, tls: { ca: pki.caDer } }), why: /not for this host name/ },
  ])
    it(`${c.what} is refused with one line, and nothing changes`, async () => {
      const P = smallPet();
      const db = `tls-refused-${c.why.source.replace(/[^a-z]/g, "").slice(0, 12)}`;
      const files = () => {
        P.dev.install();
        return JSON.stringify([...held(P.booted).docs]);
      };
      const was = files();
      let err: unknown;
      try {
        await run(P.dev, P.booted, c.ep(), { db });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof SyncError && err.code === "net", `refused: ${String(err)}`);
      assert.match((err as Error).message, c.why);
      assert.equal((err as Error).message.split("\n").length, 1, "one line");
      assert.equal(files(), was, "the pet is unchanged");
      assert.equal(await dbExists(db), false, "the server is unchanged");
    });

  it("a TLS link the socket drops without a reason (as the SDK's SecureSocket reports every refusal) still says TLS in its one line", async () => {
    const net = await import("node:net");
    const server = net.createServer((c) => c.destroy());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const P = smallPet();
    let err: unknown;
    try {
      await run(P.dev, P.booted, { host: "127.0.0.1", port, tls: { ca: pki.caDer } }, { db: "tls-dropped" });
    } catch (e) {
      err = e;
    }
    server.close();
    assert.ok(err instanceof SyncError && err.code === "net", String(err));
    assert.match((err as Error).message, /TLS: no secure connection .* does not name 127\.0\.0\.1\)$/);
  });

  it("petmem sync --remote https://… --ca FILE prints the JSON line; a wrong CA is one line on stderr, exit 1", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-cli-tls-"));
    try {
      // asynchronously: the TLS terminator runs in this process
      const cli = (args: string[], input = "") =>
        new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
          const c = spawn(process.execPath, [path.resolve("desktop/petmem.mjs"), ...args], { stdio: "pipe" });
          let stdout = "", stderr = "";
          c.stdout.on("data", (d) => (stdout += d));
          c.stderr.on("data", (d) => (stderr += d));
          c.on("close", (status) => resolve({ status, stdout, stderr }));
          c.stdin.end(input);
        });
      const mcp = (id: number, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: args } });
      const w = await cli(["serve", "--data", `${dir}/pet`, "--quiet"], [mcp(1, { action: "write", type: "name", content: "小明" }), mcp(2, { action: "write", type: "like", content: "恐龙" })].join("\n") + "\n");
      assert.equal(w.status, 0, w.stderr);
      const url = `https://localhost:${good.port}/cli-tls`;
      const s1 = await cli(["sync", "--remote", url, "--ca", pki.caPem, "--data", `${dir}/pet`]);
      assert.equal(s1.status, 0, s1.stderr);
      const j1 = JSON.parse(s1.stdout);
      assert.equal(`${j1.pushed}/${j1.pulled}/${j1.rejected}`, "2/0/0");
      const otherPem = path.join(dir, "other.der");
      fs.writeFileSync(otherPem, Buffer.from(pki.otherCaDer));
      const bad = await cli(["sync", "--remote", url, "--ca", otherPem, "--data", `${dir}/pet`]);
      assert.equal(bad.status, 1);
      assert.equal(bad.stdout, "");
      assert.match(bad.stderr, /TLS: the server's certificate is not signed by the configured CA/);
      assert.equal(bad.stderr.trim().split("\n").filter((l) => l.indexOf("boot ") < 0).length, 1, `one line besides the boot line: ${bad.stderr}`);
      const plain = await cli(["sync", "--remote", `http://127.0.0.1:${couch.port}/cli-tls`, "--ca", pki.caPem, "--data", `${dir}/pet`]);
      assert.equal(plain.status, 2, "--ca with http is a usage error");
      // what the server holds is the pet's
      const all = (await (await fetch(`${couch.url}/cli-tls/_all_docs?include_docs=true`)).json()) as { rows: { id: string; doc: Record<string, unknown> }[] };
      assert.deepEqual(all.rows.filter((r) => !r.id.startsWith("_")).map((r) => [r.id, hashOf(bodyOf(r.doc)) > 0]).length, 2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

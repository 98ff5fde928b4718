// Sync against a real CouchDB-compatible server (issue 17): pouchdb-server
// from npm on 127.0.0.1, reached through the device's own HTTP stack
// (src/net/http.ts over host-sim's `http`, real TCP) and a proxy that cuts
// the link at any request in three places, and a server restarted in the
// middle of a sync. The oracle is absolute on both sides: afterwards the
// server holds exactly the pet's documents, with no open conflict, and a new
// pet restored from it holds exactly the server's.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import type { Booted } from "../src/app/boot";
import { SyncError, type SyncOptions, type SyncReport } from "../src/sync/replicate";
import { bootOn, fillDevice } from "./scenarios/backup.scn";
import { smallPet, held, sameDocs } from "./scenarios/sync.scn";
import { toolCaller } from "./scenarios/tool-call";
import { startCouch, removeCouch, type Couch } from "./couch/server";
import { syncAt, served as servedBy } from "./couch/device-sync";
import { startProxy, type Proxy, type CutAt } from "./couch/proxy";

let couch: Couch;
let proxy: Proxy;
let dbs = 0;

function newDb(): string {
  return `owner-${++dbs}`;
}

const run = (dev: SimDevice, b: Booted, o: Partial<SyncOptions> & { db: string }): Promise<SyncReport> => syncAt(proxy.port, 5000, dev, b, o);
const served = (db: string) => servedBy(couch.url, db);

async function oracle(dev: SimDevice, b: Booted, db: string, what: string): Promise<void> {
  dev.install();
  const s = await served(db);
  sameDocs(held(b), s, `${what}: server`);
  assert.deepEqual(s.conflicts, [], `${what}: open conflicts`);
  // a new pet restored from the server holds exactly what it serves
  const nd = new SimDevice({ now: dev.clock.now, storageBytes: 320 * 1024 }) /* as fillDevice (backup.scn STORAGE) */;
  const nb = bootOn(nd);
  await run(nd, nb, { db, restore: true });
  sameDocs(held(nb), s, `${what}: restored pet`);
  dev.install();
}

describe("sync with a real CouchDB-compatible server (pouchdb-server)", function () {
  this.timeout(600000);

  before(async () => {
    couch = await startCouch();
    proxy = await startProxy(() => couch.port);
  });

  after(async () => {
    await proxy?.close();
    await couch?.stop();
    if (couch) removeCouch(couch);
  });

  beforeEach(() => proxy.cuts.clear());

  it("pushes a pet's whole memory, then moves nothing; a new pet restored from it answers the same", async () => {
    const db = newDb();
    const A = fillDevice();
    const r1 = await run(A.dev, A.booted, { db });
    assert.ok(r1.pushed > 150, `pushed ${r1.pushed}`); // as sync.scn.ts (154: the fill sits at its partition's retire line)
    const r2 = await run(A.dev, A.booted, { db });
    assert.equal(`${r2.pushed}/${r2.pulled}`, "0/0", "second sync");
    await oracle(A.dev, A.booted, db, "after the push");
    const nd = new SimDevice({ now: A.dev.clock.now, storageBytes: 320 * 1024 }) /* as fillDevice (backup.scn STORAGE) */;
    const nb = bootOn(nd);
    const r = await run(nd, nb, { db, restore: true });
    assert.ok(r.pulled > 150, `pulled ${r.pulled}`);
    nd.install();
    // the same memory; the order of a store's items is the server's change
    // order on the new pet (docs/SYNC.md), so lists are compared as sets
    const read = (b: Booted) => {
      const j = toolCaller(b.service)({ action: "read" }).json;
      delete j.relationship;
      delete j.total_coins_spent;
      delete j.pending;
      const sorted = (v: unknown): unknown =>
        Array.isArray(v) ? v.map(sorted).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sorted(x)])) : v;
      return sorted(j);
    };
    const rb = read(nb);
    A.dev.install();
    assert.deepEqual(rb, read(A.booted), "the AI reads the same memory on the new pet");
  });

  it("a link cut before, after or in the middle of any request: after a reboot and a sync, both sides hold exactly the same", async () => {
    // how many requests a whole first sync takes
    const base = smallPet();
    const before = proxy.requests;
    await run(base.dev, base.booted, { db: newDb() });
    const n = proxy.requests - before;
    assert.ok(n >= 10, `a sync takes ${n} requests`);
    let failed = 0;
    for (let k = 0; k < n; k++)
      for (const where of ["before", "after", "middle"] as CutAt[]) {
        const db = newDb();
        const P = smallPet();
        proxy.cuts.clear();
        proxy.cuts.set(proxy.requests + k, where);
        try {
          await run(P.dev, P.booted, { db });
        } catch (e) {
          assert.ok(e instanceof SyncError && e.code === "net", `cut ${where} ${k}: ${String(e)}`);
          failed++;
        }
        proxy.cuts.clear();
        P.dev.reboot();
        const again = bootOn(P.dev);
        const r = await run(P.dev, again, { db });
        assert.equal(r.pulled, 0, `cut ${where} ${k}: nothing comes back as new`);
        await oracle(P.dev, again, db, `cut ${where} at request ${k}`);
        const q = await run(P.dev, again, { db });
        assert.equal(`${q.pushed}/${q.pulled}`, "0/0", `cut ${where} ${k}: then quiet`);
      }
    assert.ok(failed >= 2 * n, `the cuts failed syncs: ${failed} of ${3 * n}`);
  });

  it("the server restarted in the middle of a sync (and killed): the next sync finishes with nothing lost or doubled", async () => {
    for (const at of [3, 9, 20]) {
      const db = newDb();
      const A = fillDevice();
      const start = proxy.requests;
      // restart the server when the sync reaches request `at`
      const watch = setInterval(() => {
        if (proxy.requests - start >= at) {
          clearInterval(watch);
          couch.kill();
          void couch.start();
        }
      }, 1);
      try {
        await run(A.dev, A.booted, { db });
      } catch (e) {
        assert.ok(e instanceof SyncError, String(e));
      } finally {
        clearInterval(watch);
      }
      // wait until it is up again
      for (let i = 0; i < 200; i++) {
        try {
          if ((await fetch(`${couch.url}/`)).ok) break;
        } catch {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      await run(A.dev, A.booted, { db });
      await oracle(A.dev, A.booted, db, `restart at request ${at}`);
    }
  });

  it("petmem sync and petmem restore on the desktop print one JSON line; a second sync moves nothing; restore refuses a pet with memory", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-cli-sync-"));
    try {
      const cli = (args: string[], input = "") => spawnSync(process.execPath, [path.resolve("desktop/petmem.mjs"), ...args], { input, encoding: "utf8", timeout: 60000 });
      const mcp = (id: number, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: args } });
      const w = cli(["serve", "--data", `${dir}/pet`, "--quiet"], [mcp(1, { action: "write", type: "name", content: "小明" }), mcp(2, { action: "write", type: "like", content: "恐龙" })].join("\n") + "\n");
      assert.equal(w.status, 0, w.stderr);
      const url = `http://127.0.0.1:${couch.port}/cli-owner`;
      const s1 = cli(["sync", "--remote", url, "--data", `${dir}/pet`]);
      assert.equal(s1.status, 0, s1.stderr);
      const j1 = JSON.parse(s1.stdout);
      assert.deepEqual(Object.keys(j1), ["pushed", "pulled", "conflicts", "rejected", "checkpoint"]);
      assert.equal(j1.rejected, 0);
      assert.equal(j1.pushed, 2);
      const s2 = JSON.parse(cli(["sync", "--remote", url, "--data", `${dir}/pet`]).stdout);
      assert.equal(`${s2.pushed}/${s2.pulled}`, "0/0");
      const r = cli(["restore", "--remote", url, "--data", `${dir}/new`]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).pulled, 2);
      const again = cli(["restore", "--remote", url, "--data", `${dir}/new`]);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /already holds memory/);
      const bad = cli(["sync", "--remote", "http://127.0.0.1:1/x", "--data", `${dir}/pet`]);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /no connection/);
      assert.equal(cli(["sync", "--data", `${dir}/pet`]).status, 2, "--remote is needed");
      assert.equal(cli(["sync", "--remote", "http://127.0.0.1:1/Bad_Name", "--data", `${dir}/pet`]).status, 2, "a database name CouchDB refuses");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses during a conversation, before any request", async () => {
    const db = newDb();
    const P = smallPet();
    const before = proxy.requests;
    await assert.rejects(run(P.dev, P.booted, { db, busy: () => true }), (e) => e instanceof SyncError && e.code === "busy");
    assert.equal(proxy.requests, before, "no request during a conversation");
  });
});

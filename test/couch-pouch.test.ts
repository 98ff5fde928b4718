// PouchDB's own replicator (pouchdb-core, pouchdb-replication and its http and
// memory adapters) as an independent client: the owner's app, with its own
// database in memory, replicating with pouchdb-server the way an app does
// (replicate.from, edit with put, replicate.to), while a pet syncs with the
// same server through the device's replicator and HTTP (issue 27, items 1-7
// and restore). What the app sees afterwards is checked with the app's own
// reads: no conflict the pet made, its revisions kept.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import type { Booted } from "../src/app/boot";
import type { SyncOptions, SyncReport } from "../src/sync/replicate";
import { recordId } from "../src/archive/line";
import { keyId } from "../src/backup/schema";
import { bootOn } from "./scenarios/backup.scn";
import { smallPet, held, sameDocs } from "./scenarios/sync.scn";
import { startCouch, removeCouch, type Couch } from "./couch/server";
import { syncAt, served as servedBy } from "./couch/device-sync";

const require = createRequire(import.meta.url);
type Doc = Record<string, unknown> & { _id: string; _rev?: string };
interface AppDb {
  put(d: Doc): Promise<{ rev: string }>;
  get(id: string, o?: Record<string, unknown>): Promise<Doc>;
  bulkDocs(docs: Doc[], o?: Record<string, unknown>): Promise<unknown>;
  allDocs(o?: Record<string, unknown>): Promise<{ rows: { id: string; doc?: Doc }[] }>;
  replicate: { from(url: string): Promise<{ docs_written: number }>; to(url: string): Promise<{ docs_written: number }> };
  destroy(): Promise<void>;
}
const PouchDB = require("pouchdb-core").plugin(require("pouchdb-adapter-http")).plugin(require("pouchdb-adapter-memory")).plugin(require("pouchdb-replication")) as new (name: string, o: Record<string, unknown>) => AppDb;

let couch: Couch;
let apps = 0;

function app(): AppDb {
  return new PouchDB(`owner-app-${++apps}`, { adapter: "memory" });
}

const run = (dev: SimDevice, b: Booted, o: Partial<SyncOptions> & { db: string }): Promise<SyncReport> => syncAt(couch.port, 10000, dev, b, o);
const served = (db: string) => servedBy(couch.url, db);

// A pet synced with a new database, and the owner's app holding a replica of it.
async function setup(name: string): Promise<{ P: ReturnType<typeof smallPet>; db: string; url: string; a: AppDb; now: () => number }> {
  const db = `pouch-${name}`;
  const P = smallPet();
  await run(P.dev, P.booted, { db });
  const a = app();
  const url = `${couch.url}/${db}`;
  await a.replicate.from(url);
  return { P, db, url, a, now: () => Math.floor(P.dev.clock.now / 1000) };
}

// The owner's app sees no conflict anywhere and a resync both ways moves nothing.
async function appClean(a: AppDb, url: string, what: string): Promise<void> {
  await a.replicate.from(url);
  const all = await a.allDocs({ include_docs: true, conflicts: true });
  const open = all.rows.filter((r) => r.doc && (r.doc as Doc)._conflicts).map((r) => r.id);
  assert.deepEqual(open, [], `${what}: the app sees open conflicts`);
  const back = await a.replicate.to(url);
  assert.equal(back.docs_written, 0, `${what}: the app has nothing the server lacks`);
  const again = await a.replicate.from(url);
  assert.equal(again.docs_written, 0, `${what}: a resync moves nothing`);
}

describe("the owner's app is PouchDB's own replicator (pouchdb-core 9, pouchdb-server)", function () {
  this.timeout(300000);

  before(async () => {
    couch = await startCouch();
  });

  after(async () => {
    await couch?.stop();
    if (couch) removeCouch(couch);
  });

  it("1: a document too long for one reply is refused alone; the app's long facts come one by one; sync and restore move past it", async () => {
    const { P, db, url, a, now } = await setup("big");
    await a.put({ _id: "fact:0badf00d", type: "fact", timestamp: now() - 3600, content: "长".repeat(9000), at: now(), by: "owner-app" });
    for (let i = 0; i < 4; i++) {
      const f = { timestamp: now() - 7200 + i, content: `第${i}段：` + "主人讲了一个很长的故事。".repeat(70) };
      await a.put({ _id: `fact:${recordId("fact", f)}`, type: "fact", ...f, at: now(), by: "owner-app" });
    }
    await a.put({ _id: `like:${keyId("like", "长颈鹿")}`, type: "like", content: "长颈鹿", at: now(), by: "owner-app" });
    await a.replicate.to(url);
    const r = await run(P.dev, P.booted, { db });
    assert.equal(r.rejected, 1, "the 9,000-character fact");
    assert.ok(r.pulled >= 5, `pulled ${r.pulled}`);
    P.dev.install();
    assert.ok(P.booted.service.memory.preferences().likes.includes("长颈鹿"));
    const q = await run(P.dev, P.booted, { db });
    assert.equal(`${q.pushed}/${q.pulled}/${q.rejected}`, "0/0/0", "the checkpoint passed it");
    const nd = new SimDevice({ now: P.dev.clock.now, storageBytes: 320 * 1024 }) /* as fillDevice (backup.scn STORAGE) */;
    const nb = bootOn(nd);
    const rr = await run(nd, nb, { db, restore: true });
    assert.equal(rr.rejected, 1, "restore refuses it too");
    nd.install();
    assert.equal(nb.archive!.recallByKeyword("fact", "很长的故事", 10).length, 4, "and takes the long facts");
    await appClean(a, url, "after");
  });

  it("2: a goal with progress \"half\" is refused whole: no goal, no revision over the app's", async () => {
    const { P, db, url, a, now } = await setup("half");
    const id = `goal:${keyId("goal", "学会骑车")}`;
    const put = await a.put({ _id: id, type: "goal", content: "学会骑车", category: "hobby", status: "active", progress: "half", priority: 3, at: now(), by: "owner-app" });
    await a.replicate.to(url);
    P.dev.install();
    const goals = P.booted.service.memory.goals().length;
    const r = await run(P.dev, P.booted, { db });
    assert.equal(`${r.rejected}/${r.pulled}`, "1/0");
    P.dev.install();
    assert.equal(P.booted.service.memory.goals().length, goals, "no goal added");
    await run(P.dev, P.booted, { db });
    await a.replicate.from(url);
    assert.equal((await a.get(id))._rev, put.rev, "the app's revision stands");
    await appClean(a, url, "after");
  });

  it("3: a fact the app dated 40 days back (and one over 128 bytes) goes to the archive and is never sent back as the pet's", async () => {
    const { P, db, url, a, now } = await setup("archive");
    const f1 = { timestamp: now() - 40 * 86400, content: "四十天前：主人去了海边" };
    const f2 = { timestamp: now() - 3600, content: "主人说：" + "今天在学校里发生了很多有趣的事情。".repeat(5) };
    const p1 = await a.put({ _id: `fact:${recordId("fact", f1)}`, type: "fact", ...f1, at: now(), by: "owner-app" });
    const p2 = await a.put({ _id: `fact:${recordId("fact", f2)}`, type: "fact", ...f2, at: now(), by: "owner-app" });
    await a.replicate.to(url);
    const r = await run(P.dev, P.booted, { db });
    assert.equal(r.pulled, 2);
    const q = await run(P.dev, P.booted, { db });
    assert.equal(`${q.pushed}/${q.conflicts}`, "0/0", "nothing sent back, no conflict");
    await a.replicate.from(url);
    assert.equal((await a.get(`fact:${recordId("fact", f1)}`, { conflicts: true }))._rev, p1.rev);
    assert.equal((await a.get(`fact:${recordId("fact", f2)}`, { conflicts: true }))._rev, p2.rev);
    await appClean(a, url, "after");
    const s = await served(db);
    assert.deepEqual(s.conflicts, []);
    sameDocs(held(P.booted), s, "the pet and the server");
  });

  it("4, 5: the app edits in place (new content under the same id; a change keeping the pet's by): applied whole here and on a restored pet", async () => {
    const { P, db, url, a, now } = await setup("edit");
    const all = (await a.allDocs({ include_docs: true })).rows.map((r) => r.doc as Doc);
    const fact = all.find((d) => d._id.startsWith("fact:") && String(d.content).startsWith("第0件事"))!;
    const like = all.find((d) => d._id.startsWith("like:"))!;
    const fam = all.find((d) => d._id.startsWith("family:"))!;
    await a.put({ ...fact, content: "第0件事：主人更喜欢足球", at: now() + 60, by: "owner-app" });
    await a.put({ ...like, content: "三角龙", at: now() + 60, by: "owner-app" });
    await a.put({ ...fam, closeness: 1 }); // the app keeps every other field, `by` and `at` too
    await a.replicate.to(url);
    const r = await run(P.dev, P.booted, { db });
    assert.equal(`${r.pulled}/${r.rejected}/${r.conflicts}`, "3/0/0");
    P.dev.install();
    const m = P.booted.service.memory;
    assert.ok(m.facts().some((f) => f.content === "第0件事：主人更喜欢足球") && !m.facts().some((f) => f.content === "第0件事：主人喜欢篮球"));
    assert.deepEqual(m.preferences().likes, ["三角龙"]);
    assert.equal(m.family()[0].closeness, 1);
    const q = await run(P.dev, P.booted, { db });
    assert.equal(`${q.pushed}/${q.pulled}`, "0/0");
    const s = await served(db);
    sameDocs(held(P.booted), s, "the pet and the server");
    // the app deletes the edited fact: it leaves the pet
    await a.replicate.from(url);
    const cur = await a.get(fact._id);
    await a.put({ ...cur, _deleted: true });
    await a.replicate.to(url);
    await run(P.dev, P.booted, { db });
    P.dev.install();
    assert.ok(!m.facts().some((f) => f.content.startsWith("第0件事")), "deleted on the pet");
    const nd = new SimDevice({ now: P.dev.clock.now, storageBytes: 320 * 1024 }) /* as fillDevice (backup.scn STORAGE) */;
    const nb = bootOn(nd);
    await run(nd, nb, { db, restore: true });
    nd.install();
    assert.deepEqual(nb.service.memory.preferences().likes, ["三角龙"], "a restored pet holds the edit");
    sameDocs(held(nb), await served(db), "the restored pet");
    await appClean(a, url, "after");
  });

  it("6: the newest edit wins; a two-leaf conflict made by two apps is closed and its losing profile value noted with its time", async () => {
    const { P, db, url, a, now } = await setup("newest");
    const fam = (await a.allDocs({ include_docs: true })).rows.map((r) => r.doc as Doc).find((d) => d._id.startsWith("family:"))!;
    P.dev.install();
    P.dev.clock.now += 3600000;
    P.booted.service.memory.upsertFamily({ relation: "妈妈", name: "李华", closeness: 2 });
    P.booted.service.flush(true);
    await a.put({ ...fam, closeness: 5, at: now() + 3600, by: "owner-app" });
    await a.replicate.to(url);
    P.dev.clock.now += 2 * 3600000;
    const r = await run(P.dev, P.booted, { db });
    assert.equal(r.conflicts, 1);
    P.dev.install();
    assert.equal(P.booted.service.memory.family()[0].closeness, 5, "the app's newer edit wins");
    assert.ok(P.booted.service.memory.facts().some((f) => /another device had: family 妈妈 李华, closeness 2/.test(f.content)), "the pet's value is a dated note");
    // two apps change the name from the same revision
    const b = app();
    await b.replicate.from(url);
    await a.replicate.from(url);
    const n1 = await a.get("profile:name"), n2 = await b.get("profile:name");
    await a.put({ ...n1, value: "明明", at: now() - 100, by: "app-1" });
    await b.put({ ...n2, value: "亮亮", at: now() - 50, by: "app-2" });
    await a.replicate.to(url);
    await b.replicate.to(url);
    assert.ok((await served(db)).conflicts.includes("profile:name"), "the server holds the conflict");
    const c = await run(P.dev, P.booted, { db });
    assert.ok(c.conflicts >= 1);
    P.dev.install();
    assert.equal(P.booted.service.memory.profile().name, "亮亮", "the newer leaf");
    assert.ok(P.booted.service.memory.facts().some((f) => /^\d{4}-\d\d-\d\d \d\d:\d\d another device had: name 明明/.test(f.content)), "the older value, dated");
    assert.deepEqual((await served(db)).conflicts, [], "closed on the server");
    await appClean(a, url, "app 1");
    await appClean(b, url, "app 2");
    await b.destroy();
  });

  it("7: a document whose type is not its id's is refused", async () => {
    const { P, db, url, a, now } = await setup("type");
    await a.put({ _id: `like:${keyId("like", "火箭")}`, type: "spaceship", content: "火箭", at: now(), by: "owner-app" });
    await a.replicate.to(url);
    const r = await run(P.dev, P.booted, { db });
    assert.equal(`${r.rejected}/${r.pulled}`, "1/0");
    P.dev.install();
    assert.ok(!P.booted.service.memory.preferences().likes.includes("火箭"));
    await appClean(a, url, "after");
  });
});

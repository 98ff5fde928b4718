// Sync with a CouchDB-compatible server (issue 17; docs/SYNC.md), against the
// in-memory server of test/sync/mini-couch.ts so that it runs in XS too. The
// oracle is absolute: after any cut of the link or of the power and a run to
// the end, the server holds exactly the documents the device holds (every one,
// with the device's body, nothing else, no open conflict), and a device that
// took the owner's memory from the server holds exactly the server's.
import { SimDevice, PowerCut } from "../../host-sim/device";
import type { Booted } from "../../src/app/boot";
import { sync, SyncError, type SyncOptions, type SyncReport } from "../../src/sync/replicate";
import { forEachLocal, archivedDoc, bodyOf, hashOf } from "../../src/sync/docs";
import { SyncState } from "../../src/sync/state";
import { renamer } from "../../src/sync/apply";
import { hex8, recordId } from "../../src/archive/line";
import { keyId } from "../../src/backup/schema";
import { SyncRunner } from "../../src/sync/runner";
import { fromLocal } from "../../src/time/local";
import { MiniCouch } from "../sync/mini-couch";
import { fillDevice, bootOn } from "./backup.scn";
import { ok, equal } from "./assert";
import type { Scenario } from "./types";
import { toolCaller, type ToolReply } from "./tool-call";

const T0 = fromLocal(2026, 5, 4, 9, 0);
const DAY = 86400000;

export function options(couch: MiniCouch, extra: Partial<SyncOptions> = {}): SyncOptions {
  return { transport: couch.transport, remote: { host: "couch.test", port: 5984 }, db: "owner-1", ...extra };
}

function must(r: ToolReply, what: string): ToolReply {
  if (r.isError || r.text.indexOf("error") === 0) throw new Error(`${what}: ${r.text}`);
  return r;
}

// A small pet: every kind of memory, a few archived records, episodes.
export function smallPet(now = T0): { dev: SimDevice; booted: Booted; call: (a: Record<string, unknown>) => ToolReply } {
  const dev = new SimDevice({ now, storageBytes: 256 * 1024 });
  const booted = bootOn(dev);
  const call = toolCaller(booted.service);
  const w = (a: Record<string, unknown>) => must(call({ action: "write", ...a }), JSON.stringify(a));
  w({ type: "name", content: "小明" });
  w({ type: "birthday", content: "05-20" });
  w({ type: "like", content: "恐龙" });
  w({ type: "dislike", content: "打雷" });
  w({ type: "family", relation: "妈妈", name: "李华", closeness: 5 });
  w({ type: "trait", content: "很爱笑" });
  w({ type: "habit", content: "睡前听故事", frequency: "daily" });
  w({ type: "goal", content: "学会游泳", category: "health" });
  w({ type: "schedule", content: "钢琴课", datetime: "2026-05-06 16:00", repeat: "weekly" });
  for (let i = 0; i < 3; i++) w({ type: "fact", content: `第${i}件事：主人喜欢篮球` });
  w({ type: "moment", topic: "郊游", content: "在公园里放风筝", emotion: "happy", intensity: 3 });
  w({ type: "episode", content: "主人说最喜欢的恐龙是霸王龙", e: 0.6, i: 0.5, p: 1, j: 0.7, keywords: "恐龙" });
  w({ type: "episode", content: "主人第一次自己骑自行车", e: 0.7, i: 0.5, p: 0.5, j: 0.6, keywords: "自行车" });
  booted.archive!.append("fact", [
    { timestamp: Math.floor(now / 1000) - 90 * 86400, content: "很久以前：主人养过一只小乌龟" },
    { timestamp: Math.floor(now / 1000) - 80 * 86400, content: "很久以前：主人去过北京" },
  ]);
  booted.service.flush(true);
  return { dev, booted, call };
}

// What a device holds as documents: id → body hash, and its episodes' contents.
export function held(b: Booted, pet = 0): { docs: Map<string, number>; episodes: string[] } {
  const docs = new Map<string, number>();
  const st = new SyncState(b.archive!.root);
  st.load();
  const rename = renamer(st) ?? ((id: string) => id);
  forEachLocal(b, pet || st.pet, (l) => st.origin(l), (d) => void docs.set(d.id, d.hash), "nvs", undefined, undefined, rename);
  for (const s of ["fact", "moment", "event"] as const) b.archive!.since(s, { seq: 0, pos: 0 }, (it) => void docs.set(rename(archivedDoc(it).id), archivedDoc(it).hash));
  const episodes: string[] = [];
  b.episodes!.forEach((ep) => void episodes.push(ep.content), { text: true });
  return { docs, episodes: episodes.sort() };
}

// What the server serves: the same shape (digests and deletions left out).
export function served(couch: MiniCouch, db = "owner-1"): { docs: Map<string, number>; episodes: string[] } {
  const docs = new Map<string, number>();
  const episodes: string[] = [];
  for (const [id, body] of couch.live(db)) {
    if (id.indexOf("episode:") === 0) episodes.push(String(body.content));
    else if (id.indexOf("digest:") !== 0) docs.set(id, hashOf(bodyOf(body)));
  }
  return { docs, episodes: episodes.sort() };
}

export function sameDocs(a: { docs: Map<string, number>; episodes: string[] }, b: { docs: Map<string, number>; episodes: string[] }, what: string): void {
  for (const [id, h] of a.docs) {
    if (!b.docs.has(id)) throw new Error(`${what}: ${id} is missing`);
    if (b.docs.get(id) !== h) throw new Error(`${what}: ${id} has another body`);
  }
  for (const id of b.docs.keys()) if (!a.docs.has(id)) throw new Error(`${what}: ${id} appeared`);
  equal(b.episodes.join("|"), a.episodes.join("|"), `${what}: episodes`);
}

// A pet synced, and a second pet of the same owner restored from the server.
async function twoPets(couch: MiniCouch): Promise<{ A: ReturnType<typeof smallPet>; devB: SimDevice; B: Booted }> {
  const A = smallPet();
  await on(A.dev, A.booted, options(couch));
  const devB = new SimDevice({ now: T0, storageBytes: 256 * 1024 });
  const B = bootOn(devB);
  await on(devB, B, options(couch, { restore: true }));
  return { A, devB, B };
}

async function on(dev: SimDevice, b: Booted, o: SyncOptions): Promise<SyncReport> {
  dev.install();
  return sync(b, o);
}

async function fails(p: Promise<unknown>, code: string, what: string): Promise<SyncError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof SyncError && e.code === code) return e;
    throw new Error(`${what}: expected SyncError ${code}, got ${e instanceof Error ? `${e.name} ${e.message}` : String(e)}`);
  }
  throw new Error(`${what}: expected SyncError ${code}, it succeeded`);
}

export const scenarios: Scenario[] = [
  {
    name: "sync: a pet's whole memory goes up, one document per item, and a second sync moves nothing",
    async run() {
      const A = fillDevice();
      const couch = new MiniCouch();
      const r1 = await on(A.dev, A.booted, options(couch));
      // hundreds (399 with format-3 lines, 411 in format 2; 154 with lean episodes: the
      // fill ends at its small partition's edge, and 2 KB less of episode files keeps a
      // moment pair's parity one append longer, so an idle step retires one pair more)
      ok(r1.pushed > 150, `pushed ${r1.pushed}`);
      equal(r1.pulled, 0, "nothing to pull");
      sameDocs(held(A.booted), served(couch), "server after the first sync");
      equal(couch.conflicted("owner-1").length, 0, "no conflicts");
      const live = couch.live("owner-1");
      equal(live.get("profile:name")!.value, "小明", "profile field document");
      ok([...live.keys()].some((k) => k.indexOf("digest:") === 0), "digests go up too");
      const r2 = await on(A.dev, A.booted, options(couch));
      equal(`${r2.pushed}/${r2.pulled}`, "0/0", "second sync");
      const r3 = await on(A.dev, A.booted, options(couch));
      equal(`${r3.pushed}/${r3.pulled}/${r3.stateWrites}`, "0/0/1", "third sync: only the checkpoint's save");
    },
  },
  {
    name: "sync: restore brings an owner's memory onto a new pet, which then has nothing to push",
    async run() {
      const A = fillDevice();
      const couch = new MiniCouch();
      await on(A.dev, A.booted, options(couch));
      const dev = new SimDevice({ now: A.dev.clock.now, storageBytes: 320 * 1024 });
      const B = bootOn(dev);
      const r = await on(dev, B, options(couch, { restore: true }));
      ok(r.pulled > 150, `pulled ${r.pulled}`); // as pushed above
      equal(r.rejected, 0, "nothing refused");
      sameDocs(held(B), served(couch), "the new pet");
      // the AI reads the same memory on both (the relationship is the pet's own)
      const memoryOf = (d: SimDevice, b: Booted) => {
        d.install();
        const j = toolCaller(b.service)({ action: "read" }).json;
        delete j.relationship;
        delete j.total_coins_spent;
        delete j.pending;
        return JSON.stringify(j);
      };
      equal(memoryOf(dev, B), memoryOf(A.dev, A.booted), "read on the new pet");
      dev.install();
      const found = toolCaller(B.service)({ action: "search", keyword: "第5件事" });
      ok(found.text.indexOf("第5件事") >= 0, `an archived fact is found: ${found.text.slice(0, 200)}`);
      const again = await on(dev, B, options(couch));
      equal(`${again.pushed}/${again.pulled}`, "0/0", "the new pet's next sync");
      // each pet names itself (XS's Math.random is not seeded everywhere)
      const petOf = (d: SimDevice, b: Booted) => {
        d.install();
        const st = new SyncState(b.archive!.root);
        st.load();
        return st.pet;
      };
      ok(petOf(dev, B) !== petOf(A.dev, A.booted), "the new pet has its own name");
    },
  },
  {
    name: "sync: two pets of one owner converge in any order; a concurrent change to a core memory is resolved the same on both and noted",
    async run() {
      for (const order of ["ABAB", "BAAB"]) {
        const couch = new MiniCouch();
        const { A, devB, B } = await twoPets(couch);
        // both change things while apart
        A.dev.install();
        must(A.call({ action: "write", type: "like", content: "西瓜" }), "A like");
        must(A.call({ action: "delete", type: "dislike", content: "打雷" }), "A forgets a dislike");
        must(A.call({ action: "write", type: "name", content: "明明" }), "A name");
        devB.install();
        const callB = toolCaller(B.service);
        must(callB({ action: "write", type: "fact", content: "主人学会了游泳" }), "B fact");
        must(callB({ action: "write", type: "family", relation: "妈妈", name: "李华", closeness: 4 }), "B family");
        must(callB({ action: "write", type: "name", content: "小明同学" }), "B name");
        B.service.flush(true);
        A.booted.service.flush(true);
        let conflicts = 0;
        for (const who of order) conflicts += (who === "A" ? await on(A.dev, A.booted, options(couch)) : await on(devB, B, options(couch))).conflicts;
        // one more round each: all quiet
        const qa = await on(A.dev, A.booted, options(couch)), qb = await on(devB, B, options(couch));
        equal(`${qa.pushed}/${qa.pulled}/${qb.pushed}/${qb.pulled}`, "0/0/0/0", `${order}: quiet after converging`);
        ok(conflicts >= 1, `${order}: the name conflict is reported`);
        A.dev.install();
        const ha = held(A.booted);
        devB.install();
        const hb = held(B);
        sameDocs(ha, hb, `${order}: the pets`);
        sameDocs(ha, served(couch), `${order}: the server`);
        equal(couch.conflicted("owner-1").length, 0, `${order}: no open conflict`);
        const names = B.service.memory.profile().name;
        A.dev.install();
        equal(A.booted.service.memory.profile().name, names, `${order}: one name`);
        ok(A.booted.service.memory.facts().some((f) => f.content.indexOf("another device had: name") >= 0), `${order}: the other name is a dated note`);
        ok(A.booted.service.memory.preferences().dislikes.length === 0, `${order}: the deleted dislike stays deleted`);
        equal(A.booted.service.memory.family()[0].closeness, 4, `${order}: B's family change reached A`);
      }
    },
  },
  {
    name: "sync: a link cut before or after the server took any request resumes with nothing lost, doubled or conflicting",
    async run() {
      const base = smallPet();
      const couch0 = new MiniCouch();
      const whole = await on(base.dev, base.booted, options(couch0));
      const n = whole.requests;
      ok(n >= 8, `a sync takes ${n} requests`);
      for (let k = 0; k < n; k++)
        for (const where of ["before", "after"] as const) {
          const P = smallPet();
          const couch = new MiniCouch();
          couch.cuts.set(k, where);
          await fails(on(P.dev, P.booted, options(couch)), "net", `cut ${where} request ${k}`);
          // the device restarts (RAM gone), then syncs to the end
          P.dev.reboot();
          const again = bootOn(P.dev);
          const r = await on(P.dev, again, options(couch));
          equal(r.pulled, 0, `cut ${where} ${k}: nothing comes back as new`);
          sameDocs(held(again), served(couch), `cut ${where} ${k}`);
          equal(couch.conflicted("owner-1").length, 0, `cut ${where} ${k}: no conflicts`);
          const q = await on(P.dev, again, options(couch));
          equal(`${q.pushed}/${q.pulled}`, "0/0", `cut ${where} ${k}: then quiet`);
        }
    },
  },
  {
    name: "sync: a power cut at any flash write of a restore leaves a pet that boots and, synced again, holds exactly the server's memory",
    async run() {
      const A = smallPet();
      const couch = new MiniCouch();
      await on(A.dev, A.booted, options(couch));
      for (let n = 1; ; n++) {
        const dev = new SimDevice({ now: T0, storageBytes: 256 * 1024 });
        let B = bootOn(dev);
        dev.cutAfter(n);
        let cut = false;
        try {
          await on(dev, B, options(couch, { restore: true }));
        } catch (e) {
          if (!(e instanceof PowerCut)) throw e;
          cut = true;
        }
        dev.reboot();
        B = bootOn(dev);
        await on(dev, B, options(couch, { restore: true }));
        sameDocs(held(B), served(couch), `power cut at write ${n}`);
        if (!cut) break;
      }
    },
  },
  {
    name: "sync: a power cut at any flash write of a push (its state's saves) loses nothing: after a reboot the server holds exactly the pet's memory",
    async run() {
      for (let n = 1; ; n++) {
        const P = smallPet();
        must(P.call({ action: "write", type: "like", content: "西瓜" }), "a change");
        const couch = new MiniCouch();
        P.dev.cutAfter(n);
        let cut = false;
        try {
          await on(P.dev, P.booted, options(couch));
        } catch (e) {
          if (!(e instanceof PowerCut)) throw e;
          cut = true;
        }
        P.dev.reboot();
        const again = bootOn(P.dev);
        await on(P.dev, again, options(couch));
        sameDocs(held(again), served(couch), `power cut at write ${n}`);
        equal(couch.conflicted("owner-1").length, 0, `power cut at write ${n}: no conflicts`);
        if (!cut) break;
      }
    },
  },
  {
    name: "sync: deletions travel as tombstones with their reason; a forgotten archived record goes too",
    async run() {
      const couch = new MiniCouch();
      const { A, devB, B } = await twoPets(couch);
      A.dev.install();
      must(A.call({ action: "delete", type: "like", content: "恐龙" }), "delete like");
      must(A.call({ action: "delete", type: "fact", content: "很久以前：主人去过北京" }), "forget an archived fact");
      must(A.call({ action: "delete", type: "episode", content: "主人第一次自己骑自行车" }), "delete an episode");
      A.booted.service.flush(true);
      const r = await on(A.dev, A.booted, options(couch));
      ok(r.pushed >= 3, `deletions pushed: ${r.pushed}`);
      const db = couch.dbs.get("owner-1")!;
      const gone = [...db.docs.values()].filter((d) => [...d.revs.values()].some((x) => x.deleted));
      ok(gone.some((d) => d.id.indexOf("like:") === 0 && [...d.revs.values()].some((x) => x.body.reason === "user_delete")), "like tombstone with its reason");
      ok(gone.some((d) => d.id.indexOf("episode:") === 0), "episode tombstone");
      ok(gone.some((d) => d.id.indexOf("fact:") === 0), "archived fact tombstone");
      const rb = await on(devB, B, options(couch));
      ok(rb.pulled >= 3, `B applied the deletions: ${rb.pulled}`);
      equal(B.service.memory.preferences().likes.length, 0, "the like is gone on B");
      const s = toolCaller(B.service)({ action: "search", keyword: "北京" });
      equal(s.json.count, 0, `the forgotten fact is gone on B: ${s.text.slice(0, 120)}`);
      sameDocs(held(B), served(couch), "B after the deletions");
    },
  },
  {
    name: "sync: the trash scope is off by default; on, the trash goes up and is cleared here while its tombstones stay",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      must(A.call({ action: "delete", type: "episode", content: "主人第一次自己骑自行车" }), "trash an episode");
      await on(A.dev, A.booted, options(couch));
      equal(couch.dbs.has("owner-1_trash"), false, "no trash database unless asked");
      equal(A.booted.episodes!.counts().trash, 1, "the trash stays without the trash scope");
      const tombs = A.booted.episodes!.store.tombCount();
      const r = await on(A.dev, A.booted, options(couch, { trash: true }));
      equal(r.trashCleared, 1, "cleared");
      equal(couch.live("owner-1_trash").size, 1, "the trashed episode is in the trash database");
      equal([...couch.live("owner-1_trash").values()][0].content, "主人第一次自己骑自行车", "with its content");
      equal(A.booted.episodes!.counts().trash, 0, "the local trash is empty");
      equal(A.booted.episodes!.store.tombCount(), tombs, "tombstones kept");
      const q = await on(A.dev, A.booted, options(couch, { trash: true }));
      equal(`${q.pushed}/${q.pulled}`, "0/0", "then quiet");
    },
  },
  {
    name: "sync: never during a conversation; a document with a wrong field from the server is refused whole",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await fails(on(A.dev, A.booted, options(couch, { busy: () => true })), "busy", "during a conversation");
      equal(couch.requests, 0, "nothing was sent");
      await on(A.dev, A.booted, options(couch));
      // a foreign writer leaves bad documents
      const bad = [
        { _id: "like:00000000", _rev: "1-aa", _revisions: { start: 1, ids: ["aa"] }, type: "like", content: 42 },
        { _id: "profile:age", _rev: "1-bb", _revisions: { start: 1, ids: ["bb"] }, type: "profile", field: "age", value: 999 },
        { _id: "event:12345678", _rev: "1-cc", _revisions: { start: 1, ids: ["cc"] }, type: "event", date: "tomorrow", content: "x" },
      ];
      await couch.transport(null, "POST", "/owner-1/_bulk_docs", JSON.stringify({ docs: bad, new_edits: false }));
      const before = held(A.booted);
      const r = await on(A.dev, A.booted, options(couch));
      equal(r.rejected, 3, "three refused");
      equal(r.pulled, 0, "none applied");
      sameDocs(held(A.booted), before, "the pet is unchanged");
    },
  },
  {
    name: "sync: the device's runner syncs only when the pet is quiet, and backs off after a failure",
    async run() {
      const couch = new MiniCouch();
      const P = smallPet();
      const runner = new SyncRunner(P.booted, { ...options(couch), every: 3600000, quiet: 120000, retry: 60000 });
      P.booted.service.hear("user", "你好呀，今天天气真好");
      equal(runner.tick(), undefined, "not in a conversation");
      P.booted.service.endConversation();
      P.dev.clock.now += 60000;
      equal(runner.tick(), undefined, "not a minute after the last line");
      equal(couch.requests, 0, "nothing sent while busy");
      P.dev.clock.now += 120000;
      await runner.tick();
      ok(runner.last !== undefined && runner.last.pushed > 0, `synced: ${runner.lastError}`);
      equal(runner.tick(), undefined, "not due again before an hour");
      // the link fails: retried after 1, then 2 minutes
      P.dev.clock.now += 3600000;
      couch.cuts.set(couch.requests, "before");
      await runner.tick();
      ok(runner.lastError.indexOf("connection lost") >= 0, `the failure is kept: ${runner.lastError}`);
      P.dev.clock.now += 30000;
      equal(runner.tick(), undefined, "waits a minute");
      P.dev.clock.now += 31000;
      couch.cuts.set(couch.requests, "before");
      await runner.tick();
      P.dev.clock.now += 61000;
      equal(runner.tick(), undefined, "then two");
      P.dev.clock.now += 60000;
      await runner.tick();
      equal(runner.lastError, "", "then it syncs");
      sameDocs(held(P.booted), served(couch), "after the retries");
    },
  },
  {
    name: "sync: a full list's oldest like, pushed out by a pulled one, stays on the server; one pushed out by the owner's new like is a deletion with reason evicted",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      for (let i = 0; i < 7; i++) must(A.call({ action: "write", type: "like", content: `爱好${i}` }), "like"); // 8 with 恐龙
      await on(A.dev, A.booted, options(couch));
      const devB = new SimDevice({ now: T0, storageBytes: 256 * 1024 });
      const B = bootOn(devB);
      await on(devB, B, options(couch, { restore: true }));
      // B learns a new like: its oldest goes (evicted), and that goes to the server as such
      devB.install();
      must(toolCaller(B.service)({ action: "write", type: "like", content: "新爱好" }), "B like");
      B.service.flush(true);
      await on(devB, B, options(couch));
      const db = couch.dbs.get("owner-1")!;
      const evicted = [...db.docs.values()].filter((d) => d.id.indexOf("like:") === 0 && [...d.revs.values()].some((x) => x.deleted && x.body.reason === "evicted"));
      equal(evicted.length, 1, "B's pushed-out like is an eviction");
      const liveLikes = () => [...couch.live("owner-1").keys()].filter((k) => k.indexOf("like:") === 0).length;
      equal(liveLikes(), 8, "8 likes on the server");
      // A pulls it: its own oldest is pushed out locally, and not deleted on the server
      const r = await on(A.dev, A.booted, options(couch));
      ok(r.pulled >= 2, `A pulled the like and the eviction: ${r.pulled}`);
      await on(A.dev, A.booted, options(couch));
      equal(liveLikes(), 8, "still 8 on the server after A synced again");
      equal(A.booted.service.memory.preferences().likes.length, 8, "A keeps 8");
    },
  },
  {
    name: "sync: a restore whose pulled facts overflow NVS into the archive deletes nothing on the server",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      for (let i = 0; i < 30; i++) must(A.call({ action: "write", type: "fact", content: `最近的第${i}件事：主人学会了新的东西` }), "fact");
      A.booted.service.flush(true);
      await on(A.dev, A.booted, options(couch));
      const before = couch.live("owner-1").size;
      const dev = new SimDevice({ now: A.dev.clock.now, storageBytes: 256 * 1024 });
      const B = bootOn(dev);
      const r = await on(dev, B, options(couch, { restore: true }));
      equal(r.pushed, 0, "a restore pushes nothing");
      equal(couch.live("owner-1").size, before, "every document still on the server");
      const again = await on(dev, B, options(couch));
      equal(`${again.pushed}/${again.pulled}`, "0/0", "then quiet");
      sameDocs(held(B), served(couch), "the restored pet");
    },
  },
  {
    name: "sync: a document too long for one reply is refused alone with its reason and the checkpoint passes it; long ones fetched together are read one by one (sync and restore)",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const at = Math.floor(T0 / 1000);
      couch.write("owner-1", { _id: "fact:0badf00d", type: "fact", timestamp: at - 3600, content: "长".repeat(9000), at, by: "owner-app" });
      const long: string[] = [];
      for (let i = 0; i < 4; i++) {
        const content = `第${i}段：` + "主人讲了一个很长的故事。".repeat(70); // about 2.5 KB each: four are over one reply
        couch.write("owner-1", { _id: `fact:${hex8(0x1000 + i)}`, type: "fact", timestamp: at - 7200 + i, content, at, by: "owner-app" });
        long.push(content);
      }
      couch.write("owner-1", { _id: "like:0000abcd", type: "like", content: "长颈鹿", at, by: "owner-app" });
      const r = await on(A.dev, A.booted, options(couch));
      equal(r.rejected, 1, "the 9,000-character fact is refused");
      ok(r.pulled >= 5, `the others are taken: ${r.pulled}`);
      ok(A.booted.service.memory.preferences().likes.indexOf("长颈鹿") >= 0, "what came after it arrived");
      const arch = A.booted.archive!.recallByKeyword("fact", "很长的故事", 10);
      equal(arch.length, 4, "the four long facts are in the archive");
      const q = await on(A.dev, A.booted, options(couch));
      equal(`${q.pushed}/${q.pulled}/${q.rejected}/${q.conflicts}`, "0/0/0/0", "the next sync moves past it");
      equal(couch.conflicted("owner-1").length, 0, "no conflict");
      // a new pet restored from the server: the same
      const dev = new SimDevice({ now: A.dev.clock.now, storageBytes: 256 * 1024 });
      const B = bootOn(dev);
      const rb = await on(dev, B, options(couch, { restore: true }));
      equal(rb.rejected, 1, "the restore refuses it too");
      ok(B.service.memory.preferences().likes.indexOf("长颈鹿") >= 0, "and takes what came after it");
      equal(B.archive!.recallByKeyword("fact", "很长的故事", 10).length, 4, "the long facts, one by one");
    },
  },
  {
    name: "sync: a refused document changes nothing (a goal with progress \"half\" is not added, nothing goes back)",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const at = Math.floor(T0 / 1000);
      const rev = couch.write("owner-1", { _id: `goal:${keyId("goal", "学会骑车")}`, type: "goal", content: "学会骑车", category: "hobby", status: "active", progress: "half", priority: 3, at, by: "owner-app" });
      const goals = A.booted.service.memory.goals().length;
      const r = await on(A.dev, A.booted, options(couch));
      equal(r.rejected, 1, "refused");
      equal(r.pulled, 0, "not applied");
      equal(A.booted.service.memory.goals().length, goals, "no goal added");
      equal(couch.rev("owner-1", `goal:${keyId("goal", "学会骑车")}`), rev, "the server's revision stands: nothing pushed over it");
      const q = await on(A.dev, A.booted, options(couch));
      equal(`${q.pushed}/${q.rejected}`, "0/0", "and the next sync leaves it");
    },
  },
  {
    name: "sync: a pulled record that goes straight to the archive keeps the server's revision (the pet makes no conflict of it)",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const at = Math.floor(T0 / 1000);
      const f1 = { timestamp: at - 40 * 86400, content: "四十天前：主人去了海边" };
      const f2 = { timestamp: at - 3600, content: "主人说：" + "今天在学校里发生了很多有趣的事情。".repeat(5) };
      const id1 = `fact:${recordId("fact", f1)}`, id2 = `fact:${recordId("fact", f2)}`;
      const old = couch.write("owner-1", { _id: id1, type: "fact", ...f1, at, by: "owner-app" });
      const big = couch.write("owner-1", { _id: id2, type: "fact", ...f2, at, by: "owner-app" });
      const r = await on(A.dev, A.booted, options(couch));
      equal(r.pulled, 2, "both taken");
      equal(A.booted.archive!.recallByKeyword("fact", "海边", 5).length, 1, "into the archive");
      equal(couch.rev("owner-1", id1), old, "the old fact keeps the server's revision");
      equal(couch.rev("owner-1", id2), big, "the long fact too");
      const q = await on(A.dev, A.booted, options(couch));
      equal(`${q.pushed}/${q.pulled}/${q.conflicts}`, "0/0/0", "no conflict, nothing sent back");
      equal(couch.conflicted("owner-1").length, 0, "no open conflict on the server");
      sameDocs(held(A.booted), served(couch), "the pet and the server");
    },
  },
  {
    name: "sync: another client's edit in place (new content under the same id, even keeping the pet's by) replaces the item whole, here and on a restored pet",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const live = couch.live("owner-1");
      const pet = String(live.get("profile:name")!.by);
      const at = Math.floor(T0 / 1000) + 60;
      const likeId = [...live.keys()].find((k) => k.indexOf("like:") === 0)!;
      const factId = [...live.keys()].find((k) => k.indexOf("fact:") === 0 && String(live.get(k)!.content).indexOf("第0件事") === 0)!;
      const fact = live.get(factId)!;
      const famId = [...live.keys()].find((k) => k.indexOf("family:") === 0)!;
      // the owner's app edits three items in place; the family edit keeps the pet's `by`
      couch.write("owner-1", { ...live.get(likeId), _id: likeId, content: "三角龙", at, by: "owner-app" });
      couch.write("owner-1", { ...fact, _id: factId, content: "第0件事：主人更喜欢足球", at, by: "owner-app" });
      couch.write("owner-1", { ...live.get(famId), _id: famId, closeness: 2, at, by: pet });
      const r = await on(A.dev, A.booted, options(couch));
      equal(`${r.pulled}/${r.rejected}/${r.conflicts}`, "3/0/0", "three edits applied");
      const m = A.booted.service.memory;
      equal(m.preferences().likes.join(","), "三角龙", "the like replaced whole");
      ok(m.facts().some((f) => f.content === "第0件事：主人更喜欢足球"), "the new fact");
      ok(!m.facts().some((f) => f.content === "第0件事：主人喜欢篮球"), "the old one gone");
      equal(m.family()[0].closeness, 2, "an edit keeping the pet's by is applied");
      const q = await on(A.dev, A.booted, options(couch));
      equal(`${q.pushed}/${q.pulled}/${q.conflicts}`, "0/0/0", "nothing goes back");
      sameDocs(held(A.booted), served(couch), "the pet and the server");
      ok(couch.live("owner-1").has(likeId) && couch.live("owner-1").has(factId), "the server's ids stand");
      // the pet deletes the edited like: the deletion goes to the server's id
      A.dev.install();
      must(A.call({ action: "delete", type: "like", content: "三角龙" }), "delete");
      A.booted.service.flush(true);
      await on(A.dev, A.booted, options(couch));
      ok(!couch.live("owner-1").has(likeId), "deleted on the server under its id");
      sameDocs(held(A.booted), served(couch), "after the deletion");
      const dev = new SimDevice({ now: A.dev.clock.now, storageBytes: 256 * 1024 });
      const B = bootOn(dev);
      await on(dev, B, options(couch, { restore: true }));
      ok(B.service.memory.facts().some((f) => f.content === "第0件事：主人更喜欢足球"), "a restored pet holds the edit");
      sameDocs(held(B), served(couch), "the restored pet");
    },
  },
  {
    name: "sync: an edit by another client that keeps the pet's by is applied (own writes are known by revision)",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const live = couch.live("owner-1");
      const famId = [...live.keys()].find((k) => k.indexOf("family:") === 0)!;
      const goalId = [...live.keys()].find((k) => k.indexOf("goal:") === 0)!;
      const at = Math.floor(T0 / 1000) + 60;
      // the owner's app changes fields and keeps every other field as it found it, `by` too
      couch.write("owner-1", { ...live.get(famId), _id: famId, closeness: 1 });
      couch.write("owner-1", { ...live.get(goalId), _id: goalId, progress: 40, at });
      const r = await on(A.dev, A.booted, options(couch));
      equal(`${r.pulled}/${r.rejected}`, "2/0", "both applied");
      equal(A.booted.service.memory.family()[0].closeness, 1, "family");
      equal(A.booted.service.memory.goals()[0].progress, 40, "goal");
      const q = await on(A.dev, A.booted, options(couch));
      equal(`${q.pushed}/${q.pulled}/${q.conflicts}`, "0/0/0", "then quiet");
      sameDocs(held(A.booted), served(couch), "the pet and the server");
    },
  },
  {
    name: "sync: the newest edit wins; the losing value of a core memory is a note saying what and when",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const famId = [...couch.live("owner-1").keys()].find((k) => k.indexOf("family:") === 0)!;
      // the pet changes the family member first, the owner's app an hour later
      A.dev.clock.now += 3600000;
      must(A.call({ action: "write", type: "family", relation: "妈妈", name: "李华", closeness: 2 }), "pet edit");
      A.booted.service.flush(true);
      const later = Math.floor(A.dev.clock.now / 1000) + 3600;
      couch.write("owner-1", { ...couch.live("owner-1").get(famId), _id: famId, closeness: 5, sharedMemory: "一起包饺子", at: later, by: "owner-app" });
      A.dev.clock.now += 2 * 3600000;
      const r = await on(A.dev, A.booted, options(couch));
      equal(r.conflicts, 1, "a conflict");
      const m = A.booted.service.memory;
      equal(m.family()[0].closeness, 5, "the owner's newer edit wins");
      ok(m.facts().some((f) => /^\d{4}-\d\d-\d\d \d\d:\d\d another device had: family 妈妈 李华, closeness 2/.test(f.content)), `the pet's value is a dated note: ${m.facts().map((f) => f.content).join(" | ")}`);
      equal(couch.live("owner-1").get(famId)!.closeness, 5, "the server keeps it");
      // the owner's older edit loses to the pet's newer one
      couch.write("owner-1", { ...couch.live("owner-1").get(famId), _id: famId, closeness: 1, at: Math.floor(A.dev.clock.now / 1000) - 600, by: "owner-app" });
      must(A.call({ action: "write", type: "family", relation: "妈妈", name: "李华", closeness: 3 }), "pet edit 2");
      A.booted.service.flush(true);
      await on(A.dev, A.booted, options(couch));
      equal(m.family()[0].closeness, 3, "the pet's newer edit stands");
      equal(couch.live("owner-1").get(famId)!.closeness, 3, "and reaches the server");
      // a two-leaf conflict on a profile field: the loser is noted with its time
      const rev = couch.rev("owner-1", "profile:name")!;
      const t = Math.floor(A.dev.clock.now / 1000);
      couch.write("owner-1", { _id: "profile:name", _rev: rev, type: "profile", field: "name", value: "明明", at: t - 100, by: "app-1" });
      couch.write("owner-1", { _id: "profile:name", _rev: rev, type: "profile", field: "name", value: "亮亮", at: t - 50, by: "app-2" });
      const c = await on(A.dev, A.booted, options(couch));
      ok(c.conflicts >= 1, "the conflict is counted");
      equal(m.profile().name, "亮亮", "the newer leaf wins");
      ok(m.facts().some((f) => f.content.indexOf("another device had: name 明明") >= 0), "the older leaf's value is a dated note");
      equal(couch.conflicted("owner-1").length, 0, "closed on the server");
      await on(A.dev, A.booted, options(couch));
      sameDocs(held(A.booted), served(couch), "the pet and the server");
    },
  },
  {
    name: "sync: a document whose type is not its id's is refused",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      couch.write("owner-1", { _id: `like:${keyId("like", "火箭")}`, type: "spaceship", content: "火箭", at: 1, by: "x" });
      const r = await on(A.dev, A.booted, options(couch));
      equal(`${r.rejected}/${r.pulled}`, "1/0", "refused");
      ok(A.booted.service.memory.preferences().likes.indexOf("火箭") < 0, "not taken as a like");
    },
  },
  {
    name: "sync: an archived record another client named under its own id keeps that id here: forgotten on the pet, it is deleted under it",
    async run() {
      const couch = new MiniCouch();
      const A = smallPet();
      await on(A.dev, A.booted, options(couch));
      const at = Math.floor(T0 / 1000);
      const f = { timestamp: at - 50 * 86400, content: "五十天前：主人第一次去动物园" };
      couch.write("owner-1", { _id: "fact:0000abcd", type: "fact", ...f, at, by: "owner-app" });
      const r = await on(A.dev, A.booted, options(couch));
      equal(`${r.pulled}/${r.rejected}`, "1/0", "taken into the archive");
      const q = await on(A.dev, A.booted, options(couch));
      equal(`${q.pushed}/${q.pulled}`, "0/0", "nothing pushed under another id");
      sameDocs(held(A.booted), served(couch), "the pet and the server");
      A.dev.install();
      A.booted.archive!.forget("fact", [recordId("fact", f)]);
      await on(A.dev, A.booted, options(couch));
      ok(!couch.live("owner-1").has("fact:0000abcd"), "deleted under the server's id");
      ok(!couch.live("owner-1").has(`fact:${recordId("fact", f)}`), "nothing under the pet's own id");
      sameDocs(held(A.booted), served(couch), "after the deletion");
    },
  },
];

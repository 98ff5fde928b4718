// Lean episodes (issue 29 item 2; docs/design/lean-episodes.md, FORMAT.md
// §4.3): texts as passages in an archive stream of their own, read around
// damage as the archive's segments are; a version-1 store (two 672-byte text
// slots per episode) migrated to version 2 in steps, with a cut at every
// write of the migration.
import { SimDevice, PowerCut } from "../../host-sim/device";
import { tearHalf } from "../../host-sim/flash";
import { ALL_TEAR_MODES } from "../../host-sim/spiffs";
import type { FaultKind } from "../../host-sim/faults";
import { EpisodeStore } from "../../src/episode/store";
import { HEADER_BYTES, headerLean, headerValid } from "../../src/episode/record";
import { writeV1Episodes, loadImage, imageOf } from "../powercut/old-format";
import { type Episode } from "../../src/episode/types";
import { Episodes } from "../../src/episode/episodes";
import { encodePassage } from "../../src/archive/codec";
import { encode } from "../../src/text/utf8";
import { equal, ok, deepEqual } from "./assert";
import { episode, freshDevice, copiesEqual, cutAtEveryWrite, settle as settleStore } from "./episode-store.scn";
import type { Scenario } from "./types";

const T0 = 1767225600;

const settle = (st: EpisodeStore): number => settleStore(st, 20000);

// A fresh device whose SPIFFS tears a cut operation as the real library may.
function tearing(): SimDevice {
  const dev = freshDevice();
  dev.spiffs.tearModes = ["unchanged", "prefix", "holes"];
  return dev;
}

function view(e: Episode | undefined): string {
  if (!e) return "none";
  const { sig: _s, ...rest } = e;
  return JSON.stringify(rest);
}

// The pet's episodes: long and short texts, keywords, a trash one, a free slot.
function pet(n: number): Episode[] {
  const out: Episode[] = [];
  for (let k = 0; k < n; k++) {
    if (k === 5) continue; // a free slot
    const content = k % 3 === 0 ? `第${k}件事：` + "今天和主人一起去公园散步，看见了小鸟和松鼠。".repeat(8).slice(0, 190) : `短的第${k}件事😀`;
    out.push(episode(k, k + 1, content, { keywords: k % 2 ? ["公园", `鸟${k}`] : [], state: k === 7 ? "trash" : "active", purgeAt: k === 7 ? T0 + 86400 : 0, useCount: k * 3, p: k % 4 === 0 ? 100 : 20 }));
  }
  return out;
}

// A version-1 store (the format before this one: FORMAT.md §4.2 version 1 and
// §4.3's text records, both copies) and two tombstones.
const writeV1 = (dev: SimDevice, eps: Episode[], slots: number): void => writeV1Episodes(dev, eps, slots, 2, T0);

// Every episode of `eps` reads back exactly (read, scan with text), the free slot reads free.
function same(st: EpisodeStore, eps: Episode[], what: string): void {
  for (const e of eps) equal(view(st.read(e.slot)), view(e), `${what}: slot ${e.slot}`);
  const got: Episode[] = [];
  st.scan((e) => void got.push(e), true);
  const want = eps.filter((e) => e.state === "active" || e.state === "trash");
  deepEqual(got.map(view), want.map(view), `${what}: scan with text`);
  equal(st.read(5), undefined, `${what}: the free slot`);
  equal(st.tombCount(), 2, `${what}: tombstones`);
}

function allLean(dev: SimDevice, slots: number): boolean {
  for (let k = 0; k < 2; k++) {
    const h = dev.spiffs.content(`/ep.h${k}`);
    for (let s = 0; s < slots; s++) if (!headerValid(h, s * HEADER_BYTES) || !headerLean(h, s * HEADER_BYTES)) return false;
  }
  return true;
}

const DAY = 86400;
// power cuts spread over an owner-deleted text's purge and collection (as
// shares of its writes; the last ones inside the second segment's collection)
// (at 0.95 a cut found a retired segment brought back from its group's parity at boot: stream.ts loadProtection)
const CUT_AT = [0.3, 0.7, 0.95];
const CUTS = CUT_AT.length;

// The byte strings an owner-deleted text leaves on flash if any of it is
// left: its UTF-8 content, its compact-coded content (the line's "C" value),
// and each half of both (a remnant of either).
function traces(ep: Episode): Uint8Array[] {
  const line = encodePassage(ep.createdAt, ep.id, ep.content, ep.keywords.join(","))[0];
  const out: Uint8Array[] = [encode(ep.content)];
  const key = encode('"C":"');
  const at = findIn(line, key);
  if (at >= 0) {
    let e = at + key.length;
    while (e < line.length && !(line[e] === 34 && line[e - 1] !== 92)) e++;
    out.push(line.slice(at + key.length, e));
  }
  for (const b of out.slice()) out.push(b.slice(0, b.length >> 1), b.slice(b.length >> 1));
  return out.filter((b) => b.length >= 6);
}

function findIn(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

// The files of the simulated flash holding any of `bs`, raw bytes.
function filesHolding(dev: SimDevice, bs: Uint8Array[]): string[] {
  const out: string[] = [];
  for (const f of dev.spiffs.list()) {
    const c = dev.spiffs.content(f.name);
    if (bs.some((b) => findIn(c, b) >= 0)) out.push(f.name);
  }
  return out;
}

// A pet's episodes through the domain, with two owner-deleted among them:
// one whose text is in a sealed passages segment among 120 others (466-byte
// lines: 122 fill a segment), one in the segment taking appends.
const RARE = "龘靐齉爨麤鱻驫羴犇猋骉蟲厵灥燚垚赑淼焱森晶品磊鑫鱻";
function wipePet(dev: SimDevice): { st: EpisodeStore; eps: Episodes; all: Episode[]; secrets: Episode[] } {
  void dev;
  const st = new EpisodeStore();
  const all: Episode[] = [];
  const secret = (slot: number, id: number, c: string) => episode(slot, id, c, { keywords: ["秘密"], p: 100 });
  for (let k = 0; k < 126; k++) {
    let content = `第${k}段：`;
    for (let i = k; content.length < 140; i++) content += RARE[(i * 7) % RARE.length];
    all.push(k === 40 ? secret(k, k + 1, "秘密：邮箱密码藏在蓝色抽屉里，钥匙在猫窝下面，别告诉别人") : episode(k, k + 1, content, { keywords: ["好时光", `回忆${k % 10}`], p: 100 }));
  }
  all.push(secret(126, 127, "秘密二：周五晚上偷偷吃了三块巧克力蛋糕，牙齿有点疼"));
  for (let i = 0; i < all.length; i += 8) st.write(all.slice(i, i + 8));
  settle(st);
  return { st, eps: new Episodes(st), all, secrets: [all[40], all[126]] };
}

// A version-1 pet of `eps` (made by `make`, 12 slots) migrated with a power
// cut at every write: after the reboot every episode is there, then after
// steps too, the text files gone and every header version 2; `more` checks
// what else a case asks. At least 30 cut points.
function migrationCuts(eps: Episode[], make: () => SimDevice, more: (dev: SimDevice, st: EpisodeStore, at: number) => void): void {
  const cuts = cutAtEveryWrite(
    () => ({ dev: make(), state: new EpisodeStore() }),
    (st) => void settle(st),
    (dev, at) => {
      const st = new EpisodeStore();
      same(st, eps, `cut at ${at}`);
      settle(st);
      same(st, eps, `cut at ${at}, then steps`);
      ok(!dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1"), `cut at ${at}: the text files are gone in the end`);
      ok(allLean(dev, 12), `cut at ${at}: every header is version 2`);
      more(dev, st, at);
    },
    (dev) => ok(allLean(dev, 12), "the whole migration without a cut"),
  );
  ok(cuts >= 30, `cut points: ${cuts}`);
}

export const scenarios: Scenario[] = [
  {
    name: "episodes wipe: an owner-deleted episode's text is physically gone from every file once purged (a sealed segment's and the open one's), every other episode kept; 3 cuts spread over the purge and the collection lose none and leaves no byte of the text after the reboot's steps",
    run() {
      const dev = freshDevice();
      const { st, eps, all, secrets } = wipePet(dev);
      const sealed = st.texts.stream.open!.seq;
      ok(sealed > 1, `the texts are in ${sealed} segments (${Array.from(st.texts.stream.segs).join(" ")})`);
      const marks = secrets.map(traces);
      for (let i = 0; i < 2; i++) ok(filesHolding(dev, marks[i]).length > 0, `secret ${i}: its text is on flash before (the scan finds it)`);
      for (const s of secrets) equal(eps.remove({ id: s.id })!.state, "trash");
      // in the trash for 7 days (seed 001): restorable, the text still there
      const t0 = dev.clock.now;
      let steps = 0;
      const day = (n: number) => {
        dev.clock.now = t0 + n * DAY * 1000 + 1000;
        while (eps.step(dev.clock.now)) if (++steps > 20000) throw new Error("step() never ends");
      };
      day(6);
      for (let i = 0; i < 2; i++) ok(filesHolding(dev, marks[i]).length > 0, `secret ${i}: kept while in the trash`);
      equal(st.read(secrets[0].slot)!.content, secrets[0].content, "a trashed episode reads whole");
      // the files as they are when the purge is due: the cuts below start from them
      const now = t0 + 7 * DAY * 1000 + 1000;
      const files = dev.spiffs.list().map((f) => ({ name: f.name, bytes: dev.spiffs.content(f.name).slice() }));
      const before = steps;
      day(7);
      equal(eps.counts().trash, 0, "purged at day 7");
      for (let i = 0; i < 2; i++) deepEqual(filesHolding(dev, marks[i]), [], `secret ${i}: no byte of its text is left on flash`);
      ok(steps - before < 300, `steps of the purge and the collection: ${steps - before}`);
      ok(st.notes.some((n) => n.indexOf("owner-deleted text: collected") >= 0), "the store says so");
      // every other episode reads back, both copies equal; and after a reboot
      const check = (s: EpisodeStore, what: string) => {
        for (const e of all) if (secrets.indexOf(e) < 0) equal(view(s.read(e.slot)), view(e), `${what}: slot ${e.slot}`);
        for (const e of secrets) equal(s.read(e.slot), undefined, `${what}: slot ${e.slot} is free`);
      };
      check(st, "after");
      ok(copiesEqual(dev, st), "both copies equal");
      dev.reboot();
      const st2 = new EpisodeStore();
      check(st2, "after a reboot");
      settle(st2);
      for (let i = 0; i < 2; i++) deepEqual(filesHolding(dev, marks[i]), [], `secret ${i}: still gone after the steps that rebuild parity`);
      // the freed slots are given out again once the texts are gone
      ok(secrets.some((e) => e.slot === st2.freeSlot()), `a freed slot is reused: ${st2.freeSlot()}`);
      // cuts spread over the purge and the collection (its writes counted
      // once without a cut): after the reboot and its steps, nothing else is
      // lost and no byte of either text is left
      let total = 0;
      for (let k = 0; k <= CUTS; k++) {
        const d = freshDevice();
        for (const f of files) d.spiffs.load(f.name, f.bytes.slice());
        d.clock.now = now;
        const e1 = new Episodes(new EpisodeStore());
        const at = k === 0 ? 0 : Math.max(1, Math.round(CUT_AT[k - 1] * total));
        const w0 = d.flash.writes;
        if (at) d.cutAfter(at, tearHalf);
        let cut = false;
        try {
          let n = 0;
          while (e1.step(now)) if (++n > 5000) throw new Error("step() never ends");
        } catch (e) {
          if (!(e instanceof PowerCut)) throw e;
          cut = true;
        }
        d.flash.disarm();
        if (k === 0) total = d.flash.writes - w0;
        else ok(cut, `cut ${k} at write ${at} of ${total}`);
        d.reboot();
        const s3 = new EpisodeStore();
        const e2 = new Episodes(s3);
        let n = 0;
        while (e2.step(now)) if (++n > 5000) throw new Error("step() never ends after the reboot");
        check(s3, `cut at write ${at}`);
        for (let i = 0; i < 2; i++) deepEqual(filesHolding(d, marks[i]), [], `cut at write ${at}: secret ${i} is gone (${s3.notes.join("; ")})`);
      }
      ok(total > 100, `writes of the purge and the collection: ${total}`);
    },
  },
  {
    name: "episodes lean: a version-1 store reads as before, migrates in steps to passages, and its text files go",
    run() {
      const dev = freshDevice();
      const eps = pet(14);
      writeV1(dev, eps, 14);
      const before = dev.spiffs.length("/ep.t0") * 2;
      let st = new EpisodeStore();
      same(st, eps, "version 1");
      // a batch on a version-1 store writes version 2 at once (its text a passage)
      const changed = { ...eps[1], content: "改过的一件事", useCount: 99 };
      st.write([changed]);
      eps[1] = changed;
      same(st, eps, "a batch before the migration");
      const n = settle(st);
      ok(n >= 4, `steps: ${n}`);
      ok(!dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1") && !dev.spiffs.exists("/ep.m"), "the text files and the marker are gone");
      ok(allLean(dev, 14), "every header is version 2");
      ok(st.notes.some((x) => x.indexOf("migration to version 2 ended") >= 0), "the store says so");
      same(st, eps, "after the migration");
      ok(copiesEqual(dev, st), "both copies equal");
      ok(st.footprint() < 14 * 2 * HEADER_BYTES + before / 2, `the texts take less room: ${st.footprint()} bytes in all, ${before} of text slots before`);
      dev.reboot();
      st = new EpisodeStore();
      same(st, eps, "after a reboot");
      // the device goes on
      st.write([episode(14, 15, "迁移之后的新事")]);
      equal(st.read(14)!.content, "迁移之后的新事");
    },
  },
  {
    name: "episodes lean: the migration cut at every write keeps every episode, and finishes after the reboot",
    run() {
      const eps = pet(12);
      migrationCuts(eps, () => {
        const dev = tearing();
        writeV1(dev, eps, 12);
        return dev;
      }, (dev, st, at) => ok(copiesEqual(dev, st), `cut at ${at}: both copies equal`));
    },
  },
  {
    name: "episodes lean: on a partition at its line /ep.t1 goes first (checked, renamed, deleted); a cut at every write keeps every episode and finishes after the reboot",
    run() {
      const eps = pet(12);
      // the partition filled to about 30 KB under its 75% line (within a passages segment of it)
      const make = (): SimDevice => {
        const dev = tearing();
        writeV1(dev, eps, 12);
        const st = dev.spiffs.stats();
        // (a file's pages take 256 bytes for 251 of it, and index pages)
        dev.spiffs.load("/zz.fill", new Uint8Array(Math.floor((st.usable - st.used - 30000) * 0.97)));
        const after = dev.spiffs.stats();
        ok(after.used + 57344 > after.usable && after.used < after.usable - 20000, `filled: ${after.used} of ${after.usable}`);
        return dev;
      };
      {
        const dev = make();
        const st = new EpisodeStore();
        let single = false;
        for (let i = 0; i < 200 && !single; i++) {
          st.step();
          single = st.notes.join(" ").indexOf("single-text: /ep.t0 checked, /ep.t1 deleted") >= 0;
          st.notes.length = 0;
        }
        ok(single && dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1"), "single-text mode: /ep.t1 deleted before any passage");
        same(st, eps, "single-text, before the passages");
        dev.reboot();
        same(new EpisodeStore(), eps, "single-text, after a reboot");
      }
      migrationCuts(eps, make, (dev, _st, at) => ok(!dev.spiffs.exists("/ep.t1.d"), `cut at ${at}: /ep.t1.d is gone in the end`));
    },
  },
  {
    name: "episodes lean: a text is served around damage at rest: the open segment from its twin, a sealed one from its group's parity (and restored)",
    run() {
      const dev = freshDevice();
      let st = new EpisodeStore();
      // 560 texts of 190 characters: several segments of 56 KB
      const eps: Episode[] = [];
      for (let i = 0; i < 560; i += 8) {
        const b: Episode[] = [];
        for (let k = i; k < i + 8; k++) b.push(episode(k, k + 1, `第${k}件：` + "我们在河边钓鱼，风很大，主人给我讲了一个关于大海的故事。".repeat(7).slice(0, 185), { keywords: [`鱼${k % 9}`] }));
        st.write(b);
        eps.push(...b);
      }
      settle(st);
      const segs = dev.spiffs.list().map((e) => e.name).filter((n) => /^\/p\d{6}\.jsonl$/.test(n)).sort();
      ok(segs.length >= 3, `segments: ${dev.spiffs.list().map((e) => e.name + ":" + e.length).join(" ")}`);
      const sealed = segs[0], open = segs[segs.length - 1];
      // the sealed members' parity: <top>.par of their group (the open segment's .par is its twin)
      ok(segs.slice(0, -1).some((n) => dev.spiffs.exists(n.replace(".jsonl", ".par"))), `the group has parity: ${dev.spiffs.list().map((e) => e.name + ":" + e.length).join(" ")}`);
      const good = dev.spiffs.content(sealed).slice();
      // one bit flipped in the middle of each, at rest
      for (const name of [sealed, open]) {
        const b = dev.spiffs.content(name);
        b[Math.floor(b.length / 2)] ^= 0x20;
        dev.spiffs.load(name, b);
      }
      dev.reboot();
      st = new EpisodeStore();
      const got: Episode[] = [];
      st.scan((e) => void got.push(e), true);
      equal(got.length, eps.length, "every episode served");
      deepEqual(got.map((e) => e.content), eps.map((e) => e.content), "every text, exactly");
      // (a flipped bit is served around, by its second source or its line's
      // single-bit repair, FORMAT.md §3.13; a sealed segment is not written for it)
      settle(st);
      dev.reboot();
      const again = new EpisodeStore();
      deepEqual(eps.map((e) => again.read(e.slot)?.content), eps.map((e) => e.content), "after steps and a reboot");
      // a segment left not finalized: served from its group's parity
      dev.spiffs.notFinalized.add(sealed);
      dev.reboot();
      st = new EpisodeStore();
      deepEqual(eps.map((e) => st.read(e.slot)?.content), eps.map((e) => e.content), `${sealed} not finalized: served`);
      settle(st);
      const b = dev.spiffs.content(sealed);
      ok(!dev.spiffs.notFinalized.has(sealed) && b.length === good.length && b.every((x, i) => x === good[i]), `${sealed}: restored from its group's parity by steps, byte for byte (the bit flipped before it too)`);
      dev.reboot();
      st = new EpisodeStore();
      deepEqual(eps.map((e) => st.read(e.slot)?.content), eps.map((e) => e.content), `${sealed} restored by steps`);
    },
  },
  {
    name: "episodes lean: a segment of texts mostly replaced is collected by steps (its live texts moved, then it goes), nothing lost at a cut at any write",
    run() {
      // texts the compact table does not shorten (130 emoji, 520 bytes): about 100 a segment
      const long = (k: number, v: string) => `${k}${v}` + "🐟🌊🎣⛵🐚".repeat(26);
      // 110 texts (two segments), then 100 of the first ones changed: the first segment is mostly garbage
      const build = (dev: SimDevice): Episode[] => {
        const st = new EpisodeStore();
        const eps: Episode[] = [];
        for (let i = 0; i < 110; i += 8) {
          const b: Episode[] = [];
          for (let k = i; k < Math.min(110, i + 8); k++) b.push(episode(k, k + 1, long(k, "旧")));
          st.write(b);
          eps.push(...b);
        }
        for (let i = 0; i < 100; i += 8) {
          const b: Episode[] = [];
          for (let k = i; k < Math.min(100, i + 8); k++) b.push({ ...eps[k], content: long(k, "新") });
          st.write(b);
          for (const e of b) eps[e.slot] = e;
        }
        // the segments sealed and their parity made, as idle steps would have (not the collection)
        for (let n = 0; st.texts.step(true); n++) if (n > 1000) throw new Error("the texts' upkeep never ends");
        void dev;
        return eps;
      };
      const check = (st: EpisodeStore, eps: Episode[], what: string) => {
        const got: string[] = [];
        st.scan((e) => void got.push(e.content), true);
        deepEqual(got, eps.map((e) => e.content), `${what}: every text`);
      };
      {
        const dev = freshDevice();
        const eps = build(dev);
        ok(dev.spiffs.exists("/p000001.jsonl"), "the first segment");
        const st = new EpisodeStore();
        settle(st);
        ok(st.notes.some((n) => n.indexOf("p1 collected") >= 0), `collected: ${st.notes.filter((n) => n.indexOf("texts") === 0).join("; ")}`);
        ok(!dev.spiffs.exists("/p000001.jsonl") && !dev.spiffs.exists("/p000001.six"), "its files are gone");
        check(st, eps, "after the collection");
        ok(copiesEqual(dev, st), "both copies equal");
        dev.reboot();
        check(new EpisodeStore(), eps, "after a reboot");
      }
      // the state before the collection, built once and loaded for each cut
      const dev0 = freshDevice();
      const eps = build(dev0);
      const image = imageOf(dev0);
      const cuts = cutAtEveryWrite(
        () => {
          const dev = tearing();
          loadImage(dev, image);
          return { dev, state: new EpisodeStore() };
        },
        (st) => void settle(st),
        (dev, at) => {
          const st = new EpisodeStore();
          check(st, eps, `cut at ${at}`);
          settle(st);
          check(st, eps, `cut at ${at}, then steps`);
          ok(!dev.spiffs.exists("/p000001.jsonl"), `cut at ${at}: collected in the end`);
        },
      );
      ok(cuts >= 20, `cut points: ${cuts}`);
    },
  },
  {
    name: "episodes lean: the migration under every storage fault kind keeps every episode and finishes once the fault is gone",
    run() {
      const eps = pet(12);
      // the storage faults (host-sim/faults.ts); power cuts: the scenario above; NVS
      // faults and clock jumps cannot reach these files; mount_failure formats the partition
      const kinds: FaultKind[] = ["spiffs_read_error", "spiffs_not_finalized", "rename_false", "delete_false", "open_limit", "full", "bit_flip", "spiffs_rename_tear", "spiffs_header_tear", "spiffs_rewrite_tear"];
      let injected = 0;
      for (const kind of kinds) {
        const rest = kind === "bit_flip" || kind === "spiffs_not_finalized";
        for (const at of rest ? [1, 2, 3, 4, 5, 6, 7, 8] : [1, 2, 4, 8, 16, 32, 64]) {
          const dev = freshDevice();
          dev.spiffs.tearModes = ALL_TEAR_MODES;
          writeV1(dev, eps, 12);
          let st = new EpisodeStore();
          if (rest) {
            dev.reboot(); // at rest, before the store opens: one file of the version-1 store
            const what = dev.inject(kind, { seed: at * 7919 + 3, partition: "storage" });
            if (what.indexOf("no file") < 0) injected++;
            st = new EpisodeStore();
          } else dev.inject(kind, { at, partition: "storage" });
          let cut = false;
          for (let i = 0; i < 300 && !cut; i++) {
            try {
              if (!st.step()) break;
            } catch (e) {
              // a tear is a cut inside a file operation; other faults are errors the next step goes past
              if (e instanceof PowerCut) cut = true;
            }
          }
          dev.flash.disarm();
          if (!rest) {
            if (!dev.spiffs.isArmed(kind as never)) injected++;
            else dev.spiffs.disarm(kind as never);
          }
          dev.reboot();
          st = new EpisodeStore();
          same(st, eps, `${kind} at ${at}`);
          settle(st);
          same(st, eps, `${kind} at ${at}, then steps`);
          ok(allLean(dev, 12) && !dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1"), `${kind} at ${at}: migrated in the end`);
        }
      }
      ok(injected >= 40, `faults injected: ${injected}`);
    },
  },
  {
    name: "episodes lean: a pet's 400 full-size version-1 episodes migrate in steps, every one kept, in under 60% of the room (headers twice, texts once with their parity and open twin)",
    run() {
      const dev = freshDevice();
      const eps: Episode[] = [];
      for (let k = 0; k < 400; k++) {
        let content = `第${k}段：`;
        while (content.length < 200) content += "和主人一起度过的时光很开心，我们聊了恐龙、钢琴和下雨天";
        eps.push(episode(k, k + 1, content.slice(0, 200), { keywords: ["主人的生日", "一起去公园", "好时光", "开心", `回忆${k % 10}`], state: k % 50 === 7 ? "trash" : "active", useCount: k, p: k % 9 === 0 ? 100 : 40 }));
      }
      writeV1(dev, eps, 400);
      const bytes = () => dev.spiffs.list().filter((e) => e.name.indexOf("/ep.") === 0 || /^\/p[0-9.]/.test(e.name)).reduce((n, e) => n + e.length, 0);
      const before = bytes();
      let st = new EpisodeStore();
      const n = settle(st);
      ok(n >= 80, `steps: ${n} (5 slots a batch)`);
      ok(allLean(dev, 400) && !dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1"), "migrated");
      dev.reboot();
      st = new EpisodeStore();
      for (const e of eps) equal(view(st.read(e.slot)), view(e), `slot ${e.slot}`);
      equal(st.tombCount(), 2);
      const after = bytes();
      ok(after < before * 0.6, `${after} bytes after, ${before} before`);
    },
  },
];

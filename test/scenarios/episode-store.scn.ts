// The episode files (src/episode/store.ts, docs/FORMAT.md §4) and the
// similarity of their signatures (src/episode/sig.ts): every field read back
// exactly, bad input refused with nothing changed, slots reused and the files
// grown one slot at a time, scans with and without text, tombstones, and
// damage: a flipped bit in each file, a copy left not finalized or deleted,
// a rename that returns false, a full file system, a batch cut part way.
import { SimDevice, PowerCut } from "../../host-sim/device";
import { tearHalf } from "../../host-sim/flash";
import { EpisodeStore, EpisodeError } from "../../src/episode/store";
import { signature, similarity } from "../../src/episode/sig";
import { HEADER_BYTES, TEXT_BYTES, TOMB_BYTES, headerValid, headerState, headerRef } from "../../src/episode/record";
import { EPISODE_SIG_BYTES, type Episode, type Tombstone } from "../../src/episode/types";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const T0 = 1767225600; // 2026-01-01 UTC, unix seconds
// the slot files kept in two copies (version 2: the texts are passages, FORMAT.md §4.3)
const FILES = ["/ep.h0", "/ep.h1", "/ep.x0", "/ep.x1"];

export function freshDevice(storageBytes?: number): SimDevice {
  return new SimDevice({ now: T0 * 1000, storageBytes }).install();
}

export function episode(slot: number, id: number, content: string, more: Partial<Episode> = {}): Episode {
  return {
    slot,
    id,
    state: "active",
    content,
    keywords: [],
    emotion: "neutral",
    e: 10,
    i: 20,
    p: 30,
    j: 40,
    useCount: 0,
    createdAt: T0 + id,
    lastActiveAt: T0 + id,
    purgeAt: 0,
    source: "ai",
    sig: new Uint8Array(EPISODE_SIG_BYTES),
    ...more,
  };
}

// What a read gives back, without the signature (compared on its own).
function plain(e: Episode | undefined): unknown {
  if (!e) return e;
  const { sig: _s, ...rest } = e;
  return rest;
}

function image(dev: SimDevice): Map<string, Uint8Array> {
  const m = new Map<string, Uint8Array>();
  for (const e of dev.spiffs.list()) m.set(e.name, dev.spiffs.content(e.name));
  return m;
}

function sameImage(a: Map<string, Uint8Array>, b: Map<string, Uint8Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [n, x] of a) {
    const y = b.get(n);
    if (!y || y.length !== x.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Both copies hold the same bytes for every slot and tombstone (bytes past
// the last slot, a torn growth that was never acknowledged, may differ).
export function copiesEqual(dev: SimDevice, st?: EpisodeStore, prefix = "/ep"): boolean {
  const want = st ? { h: st.slots * HEADER_BYTES, t: st.slots * TEXT_BYTES, x: st.tombCount() * TOMB_BYTES } : undefined;
  for (const p of ["h", "t", "x"] as const) {
    // version 2 (lean): no slot text files; their texts are passages (FORMAT.md §4.3)
    if (p === "t" && !dev.spiffs.exists(`${prefix}.t0`) && !dev.spiffs.exists(`${prefix}.t1`)) continue;
    let a = dev.spiffs.exists(`${prefix}.${p}0`) ? dev.spiffs.content(`${prefix}.${p}0`) : new Uint8Array(0);
    let b = dev.spiffs.exists(`${prefix}.${p}1`) ? dev.spiffs.content(`${prefix}.${p}1`) : new Uint8Array(0);
    if (want) {
      if (a.length < want[p] || b.length < want[p]) return false;
      a = a.subarray(0, want[p]);
      b = b.subarray(0, want[p]);
    }
    if (!sameBytes(a, b)) return false;
  }
  return true;
}

export function settle(st: EpisodeStore, max = 5000): number {
  let n = 0;
  while (st.step()) if (++n > max) throw new Error("step() never ends");
  return n;
}

// Runs `work` on what `setup` makes (a fresh device each time) with a power
// cut after write 1, 2, … (torn halfway) until a run has no write left to
// cut; each cut device is rebooted and handed to `cut`, the run without a
// cut to `whole`. Returns the number of cuts.
export function cutAtEveryWrite<T>(setup: () => { dev: SimDevice; state: T }, work: (state: T) => void, cut: (dev: SimDevice, at: number, state: T) => void, whole?: (dev: SimDevice, state: T) => void): number {
  let cuts = 0;
  for (let at = 1; ; at++) {
    const { dev, state } = setup();
    dev.cutAfter(at, tearHalf);
    let was = false;
    try {
      work(state);
    } catch (e) {
      if (!(e instanceof PowerCut)) throw e;
      was = true;
    }
    dev.flash.disarm();
    if (!was) {
      whole?.(dev, state);
      return cuts;
    }
    cuts++;
    dev.reboot();
    cut(dev, at, state);
  }
}

function flip(dev: SimDevice, name: string, at: number, bit = 1): void {
  const b = dev.spiffs.content(name);
  b[at] ^= bit;
  dev.spiffs.load(name, b);
}

function all(st: EpisodeStore, text = true): Episode[] {
  const out: Episode[] = [];
  st.scan((e) => void out.push(e), text);
  return out;
}

export function fill(st: EpisodeStore, n: number, from = 0): Episode[] {
  const eps: Episode[] = [];
  for (let i = from; i < from + n; i += 8) {
    const batch: Episode[] = [];
    for (let k = i; k < Math.min(from + n, i + 8); k++) batch.push(episode(k, k + 1, `第${k}件事：我们一起去公园散步，看见了${k % 7}只小鸟`, { keywords: ["公园", `鸟${k % 7}`] }));
    st.write(batch);
    eps.push(...batch);
  }
  return eps;
}

export const scenarios: Scenario[] = [
  {
    name: "episodes: every field reads back exactly after a reboot (CJK, emoji, no keywords, the largest sizes)",
    run() {
      const dev = freshDevice();
      let st = new EpisodeStore();
      equal(st.slots, 0);
      equal(st.freeSlot(), 0);
      const big = "篮".repeat(200); // 200 characters, 600 bytes
      const kws = ["一二三四五", "abcdefghijklmnop", "🏀🎹", "猫", "x"]; // 15 + 16 + 8 + 3 + 1 + 4 commas = 47 bytes
      const a = episode(0, st.nextId(), big, { keywords: kws, emotion: "touched", e: 100, i: 0, p: 100, j: 55, useCount: 65535, createdAt: 0xffffffff, lastActiveAt: 1, purgeAt: 7, source: "listener", state: "trash" });
      const b = episode(1, st.nextId(), "今天和妈妈去打篮球😀 then ate ice cream!", { emotion: "happy", source: "sync" });
      const c = episode(2, st.nextId(), "x");
      equal(a.id, 1);
      equal(b.id, 2);
      st.write([a, b, c]);
      dev.reboot();
      st = new EpisodeStore();
      equal(st.slots, 3);
      deepEqual(plain(st.read(0)), plain(a));
      deepEqual(plain(st.read(1)), plain(b));
      deepEqual(plain(st.read(2)), plain(c));
      deepEqual(st.read(1)!.sig, signature(b.content, b.keywords), "the signature is derived from content and keywords");
      equal(st.read(3), undefined);
      equal(st.nextId(), 4, "ids go on after a reboot");
      // useCount saturates
      st.write([episode(2, 3, "x", { useCount: 70000 })]);
      equal(st.read(2)!.useCount, 65535);
      equal(dev.spiffs.length("/ep.h0"), 3 * HEADER_BYTES);
      ok(!dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1"), "no slot text files: the texts are passages");
      ok(dev.spiffs.length("/p000001.jsonl") < 3 * TEXT_BYTES, `the texts take the room their words need (${dev.spiffs.length("/p000001.jsonl")} bytes with the segment's header)`);
      ok(copiesEqual(dev), "both copies hold the same bytes");
    },
  },
  {
    name: "episodes: bad input gets EpisodeError('bad') naming the field and changes nothing",
    run() {
      const dev = freshDevice();
      const st = new EpisodeStore();
      st.write([episode(0, 1, "第一件事")]);
      const before = image(dev);
      const cases: [Partial<Episode> | Episode[] | string, string][] = [
        [{ content: "" }, "content"],
        [{ content: "篮".repeat(201) }, "content"],
        [{ content: "a".repeat(201) }, "content"],
        [{ content: "😀".repeat(151) }, "content"], // 151 characters, 604 bytes
        [{ keywords: ["a", "b", "c", "d", "e", "f"] }, "keywords"],
        [{ keywords: ["一二三四五六"] }, "keyword"], // 18 bytes
        [{ keywords: ["a,b"] }, "keyword"],
        [{ keywords: [""] }, "keywords"],
        [{ keywords: ["一二三四五", "一二三四五", "一二三四五", "一二三四五"] }, "keywords"], // 63 bytes joined
        [{ keywords: "篮球" as unknown as string[] }, "keywords"],
        [{ e: 101 }, "e must"],
        [{ i: -1 }, "i must"],
        [{ p: 0.5 }, "p must"],
        [{ j: NaN }, "j must"],
        [{ emotion: "angry" as never }, "emotion"],
        [{ source: "cloud" as never }, "source"],
        [{ state: "gone" as never }, "state"],
        [{ id: 0 }, "id"],
        [{ id: 2 ** 32 }, "id"],
        [{ slot: -1 }, "slot"],
        [{ slot: 1.5 }, "slot"],
        [{ slot: 5 }, "past the end"],
        [{ useCount: -1 }, "useCount"],
        [{ createdAt: -5 }, "createdAt"],
        [{ lastActiveAt: 2 ** 32 }, "lastActiveAt"],
        [{ purgeAt: 1.5 }, "purgeAt"],
      ];
      for (const [more, field] of cases) {
        const e = throws(() => st.write([episode(1, 2, "第二件事", more as Partial<Episode>)]), { name: "EpisodeError", message: field }, `refused: ${field}`) as EpisodeError;
        equal(e.code, "bad");
      }
      throws(() => st.write([episode(1, 2, "a"), episode(1, 3, "b")]), { message: "twice" });
      const nine: Episode[] = [];
      for (let k = 0; k < 9; k++) nine.push(episode(1 + k, 2 + k, "x"));
      throws(() => st.write(nine), { message: "at most 8" });
      throws(() => st.write("x" as unknown as Episode[]), { name: "EpisodeError" });
      // a bad episode anywhere in a batch: none of it is written
      throws(() => st.write([episode(1, 2, "好的"), episode(2, 3, "")]), { message: "content" });
      const t: Tombstone = { id: 1, reason: "evicted", cause: "cap", at: T0, payloadHash: 5, strength: 20 };
      for (const [more, field] of [[{ reason: "lost" }, "reason"], [{ cause: "age" }, "cause"], [{ id: 0 }, "id"], [{ strength: 101 }, "strength"], [{ at: -1 }, "at"], [{ payloadHash: 2 ** 32 }, "payloadHash"]] as [Partial<Tombstone>, string][])
        throws(() => st.addTombs([{ ...t, ...more }]), { name: "EpisodeError", message: field });
      ok(sameImage(before, image(dev)), "nothing on flash changed");
      equal(st.slots, 1);
      equal(st.tombCount(), 0);
      st.write([]);
      ok(sameImage(before, image(dev)), "an empty batch writes nothing");
    },
  },
  {
    name: "episodes: a freed slot is reused, its text erased; the files grow one slot at a time; a text left unchanged is not written again",
    run() {
      const dev = freshDevice();
      const st = new EpisodeStore();
      fill(st, 10);
      equal(st.slots, 10);
      equal(dev.spiffs.length("/ep.h1"), 10 * HEADER_BYTES);
      ok(!dev.spiffs.exists("/ep.t1"), "no slot text file");
      equal(st.freeSlot(), 10);
      st.write([{ ...episode(4, 5, "x"), state: "free" }]);
      equal(st.read(4), undefined);
      equal(st.freeSlot(), 4);
      // the freed slot's header points to no passage (its old line is garbage, FORMAT.md §4.3)
      const h0 = dev.spiffs.content("/ep.h0").subarray(4 * HEADER_BYTES, 5 * HEADER_BYTES);
      ok(headerValid(h0, 0) && headerState(h0, 0) === 0 && headerRef(h0, 0).len === 0 && headerRef(h0, 0).crc === 0, "the freed slot points to no text");
      const id = st.nextId();
      equal(id, 11);
      st.write([episode(4, id, "新的一件事")]);
      equal(st.read(4)!.content, "新的一件事");
      equal(st.freeSlot(), 10);
      equal(st.slots, 10, "no growth while a slot is free");
      // new slots must follow the last one
      throws(() => st.write([episode(11, 12, "跳过一个")]), { message: "past the end" });
      st.write([episode(10, 12, "a"), episode(11, 13, "b")]);
      equal(st.slots, 12);
      // a use (use count, last active) writes the headers alone
      const w = st.stats.bytesWritten;
      const e = st.read(3)!;
      st.write([{ ...e, useCount: e.useCount + 1, lastActiveAt: T0 + 999 }]);
      equal(st.stats.bytesWritten - w, 32 + 2 * HEADER_BYTES, "the batch file and two headers");
      equal(st.read(3)!.useCount, 1);
      equal(st.read(3)!.content, e.content);
      ok(copiesEqual(dev));
      dev.reboot();
      const again = new EpisodeStore();
      equal(again.read(3)!.lastActiveAt, T0 + 999);
      equal(again.freeSlot(), 12);
    },
  },
  {
    name: "episodes: scan streams headers (no text) or headers and texts, in slot order, skips free slots and stops when asked",
    run() {
      const dev = freshDevice();
      const st = new EpisodeStore();
      const eps = fill(st, 40);
      st.write([{ ...eps[7], state: "free" }]);
      const heads = all(st, false);
      equal(heads.length, 39);
      ok(heads.every((e) => e.content === "" && e.keywords.length === 0), "no text");
      equal(heads[7].slot, 8);
      deepEqual(heads[0].sig, signature(eps[0].content, eps[0].keywords));
      const full = all(st, true);
      equal(full.length, 39);
      deepEqual(full.map((e) => e.content), eps.filter((_e, i) => i !== 7).map((e) => e.content));
      deepEqual(full[30].keywords, eps[31].keywords);
      let seen = 0;
      st.scan(() => ++seen === 5);
      equal(seen, 5, "stopped");
      const r = st.stats.reads, b = st.stats.bytesRead;
      all(st, false);
      equal(st.stats.reads - r, 2, "40 headers: two reads of at most 4 KB");
      equal(st.stats.bytesRead - b, 40 * HEADER_BYTES);
      void dev;
    },
  },
  {
    name: "episodes: tombstones are appended to both copies and read back oldest first after a reboot",
    run() {
      const dev = freshDevice();
      let st = new EpisodeStore();
      const ts: Tombstone[] = [];
      for (let i = 0; i < 300; i++) ts.push({ id: 1000 + i, reason: ["evicted", "replaced", "user_delete", "conflict_patch"][i % 4] as Tombstone["reason"], cause: i % 4 === 0 ? (i % 8 ? "cap" : "decay") : "none", at: T0 + i, payloadHash: (i * 2654435761) >>> 0, strength: i % 101 });
      for (let i = 0; i < 300; i += 50) st.addTombs(ts.slice(i, i + 50));
      equal(st.tombCount(), 300);
      equal(dev.spiffs.length("/ep.x0"), 300 * TOMB_BYTES);
      ok(copiesEqual(dev));
      dev.reboot();
      st = new EpisodeStore();
      equal(st.tombCount(), 300);
      const got: Tombstone[] = [];
      st.tombs((t) => void got.push(t));
      deepEqual(got, ts);
      let n = 0;
      st.tombs(() => ++n === 3);
      equal(n, 3);
      equal(st.nextId(), 1300, "a tombstone's id is never given again");
    },
  },
  {
    name: "episodes: a flipped bit in each file is served around and healed by step()",
    run() {
      for (const name of [...FILES, "/ep.i"]) {
        const dev = freshDevice();
        let st = new EpisodeStore();
        const eps = fill(st, 20);
        st.addTombs([{ id: 99, reason: "user_delete", cause: "none", at: T0, payloadHash: 1, strength: 0 }, { id: 98, reason: "evicted", cause: "decay", at: T0, payloadHash: 2, strength: 15 }]);
        settle(st); // the slot index written
        ok(dev.spiffs.exists("/ep.i"), "the slot index is written by steps");
        const good = image(dev);
        const len = dev.spiffs.length(name);
        const at = name.indexOf(".x") > 0 ? TOMB_BYTES + 7 : Math.floor(len / 2) + 3;
        flip(dev, name, at, 0x10);
        dev.reboot();
        st = new EpisodeStore();
        deepEqual(all(st).map((e) => e.content), eps.map((e) => e.content), `${name}: every episode read`);
        equal(st.tombCount(), 2);
        const ids: number[] = [];
        st.tombs((t) => void ids.push(t.id));
        deepEqual(ids, [99, 98], `${name}: tombstones`);
        ok(!sameImage(good, image(dev)), "damaged");
        settle(st);
        ok(sameImage(good, image(dev)), `${name}: healed, byte for byte`);
        if (name !== "/ep.i") ok(st.notes.some((n) => n.indexOf("scrub") === 0), "the scrub says what it did");
      }
    },
  },
  {
    name: "episodes: with the clock, a scrub pass runs at boot and then a day after the last one ended, not at every idle step",
    run() {
      const dev = freshDevice();
      let st = new EpisodeStore();
      fill(st, 20);
      const H = 3600 * 1000;
      let t = T0 * 1000;
      // the steps that had work (a pass of 20 slots is 4 of them)
      const pass = (): number => {
        let n = 0;
        while (st.step(t)) if (++n > 5000) throw new Error("step() never ends");
        return n;
      };
      equal(pass(), 3 + 4, "the slot index written (3 steps), then the first pass: 4 steps of 5 slots");
      const read = st.stats.bytesRead;
      t += 60000;
      equal(pass(), 0, "a minute later: no pass");
      equal(st.stats.bytesRead, read, "and nothing read");
      t += 23 * H;
      equal(pass(), 0, "23 hours later: still nothing");
      // damage found by the pass that is due
      const good = image(dev);
      flip(dev, "/ep.h1", 3 * HEADER_BYTES + 9, 0x04);
      t += H;
      ok(pass() > 0, "a day after: a pass");
      ok(sameImage(good, image(dev)), "and it healed the flipped bit");
      equal(pass(), 0, "then rest again");
      t -= 5 * 24 * H; // the clock set back by days: the next pass is due at once
      ok(pass() > 0, "a clock set back does not postpone the scrub for days");
      dev.reboot();
      st = new EpisodeStore();
      ok(pass() > 0, "after a reboot, a pass at once");
    },
  },
  {
    name: "episodes: a copy left not finalized, or deleted, is served from the other and rebuilt by steps, with batches meanwhile",
    run() {
      for (const name of ["/ep.h0", "/ep.h1", "/ep.x0"]) {
        for (const how of ["not finalized", "deleted"]) {
          const dev = freshDevice();
          let st = new EpisodeStore();
          const eps = fill(st, 30);
          st.addTombs([{ id: 77, reason: "replaced", cause: "none", at: T0, payloadHash: 3, strength: 50 }]);
          if (how === "deleted") dev.spiffs.remove(name);
          else dev.spiffs.notFinalized.add(name);
          dev.reboot();
          st = new EpisodeStore();
          deepEqual(all(st).map((e) => e.content), eps.map((e) => e.content), `${name} ${how}: served`);
          equal(st.tombCount(), 1);
          // steps part of the way, then a batch over copied and uncopied slots, a tombstone, a new slot
          for (let i = 0; i < 4; i++) st.step();
          st.write([episode(2, 2, "改过的第二件事"), episode(25, 26, "改过的第二十五件事"), episode(30, 31, "新的")]);
          st.addTombs([{ id: 78, reason: "user_delete", cause: "none", at: T0, payloadHash: 4, strength: 0 }]);
          settle(st);
          ok(!dev.spiffs.notFinalized.has(name) && dev.spiffs.exists(name), `${name} ${how}: rebuilt`);
          ok(copiesEqual(dev), `${name} ${how}: both copies equal`);
          ok(!dev.spiffs.exists(name + ".n"), "no leftover");
          dev.reboot();
          st = new EpisodeStore();
          equal(st.read(2)!.content, "改过的第二件事");
          equal(st.read(25)!.content, "改过的第二十五件事");
          equal(st.read(30)!.content, "新的");
          equal(st.slots, 31);
          equal(st.tombCount(), 2);
        }
      }
    },
  },
  {
    name: "episodes: a rebuild whose rename or delete returns false tries again at the next step",
    run() {
      // the old files go at the first step; the new ones are renamed in after 3 steps of copying
      // (version 2: one rename, the header file's; no text file)
      for (const [fault, steps, at] of [["delete_false", 0, 1], ["delete_false", 0, 2], ["rename_false", 4, 1]] as const) {
        const dev = freshDevice();
        let st = new EpisodeStore();
        const eps = fill(st, 12);
        dev.spiffs.notFinalized.add("/ep.h0");
        dev.reboot();
        st = new EpisodeStore();
        for (let n = 0; n < steps; n++) st.step();
        dev.inject(fault, { at });
        st.step();
        ok(!dev.spiffs.isArmed(fault), `${fault} ${at} fired`);
        ok(st.notes.every((n) => n !== "slot copy 0 rebuilt"), `${fault} ${at}: not done yet`);
        settle(st);
        ok(st.notes.some((n) => n.indexOf("slot copy 0 rebuilt") === 0), `${fault} ${at}: done at a later step`);
        ok(copiesEqual(dev, st), `${fault}: both copies equal in the end`);
        dev.reboot();
        st = new EpisodeStore();
        deepEqual(all(st).map((e) => e.content), eps.map((e) => e.content));
      }
    },
  },
  {
    name: "episodes: a full file system refuses a growing batch with EpisodeError('full') and changes nothing; a full fault inside a batch reads back as before or after",
    run() {
      const dev = freshDevice(64 * 1024);
      let st = new EpisodeStore();
      let n = 0;
      let err: EpisodeError | undefined;
      for (; n < 200; n++) {
        try {
          st.write([episode(n, n + 1, `第${n}件事`)]);
        } catch (e) {
          err = e as EpisodeError;
          break;
        }
      }
      ok(err && err.code === "full", `full: ${err && err.message}`);
      ok(n > 10, "some fit");
      const before = image(dev);
      throws(() => st.write([episode(n, n + 1, "还是放不下")]), { name: "EpisodeError", message: "full" });
      ok(sameImage(before, image(dev)), "nothing changed");
      // in place still works
      st.write([episode(0, 1, "改写第一件")]);
      equal(st.read(0)!.content, "改写第一件");
      // a full fault at each write of a batch of two: the batch throws and nothing reads back changed, or it reads back whole
      for (let at = 1; at <= 9; at++) {
        const d = freshDevice();
        st = new EpisodeStore();
        fill(st, 4);
        const was = [st.read(1)!.content, st.read(2)!.content];
        d.inject("full", { at, partition: "storage" });
        let threw = false;
        try {
          st.write([episode(1, 2, "新一"), episode(2, 3, "新二")]);
        } catch (e) {
          threw = true;
          // the device reports a full write only as "file write failed": with room left it reads as io
          ok(e instanceof EpisodeError && (e.code === "full" || e.code === "io"), `full at write ${at}: ${String(e)}`);
        }
        const now = [st.read(1)!.content, st.read(2)!.content];
        if (threw) deepEqual(now, was, `full at write ${at}: a batch that threw changed nothing`);
        else deepEqual(now, ["新一", "新二"], `full at write ${at}: acknowledged`);
        settle(st);
        ok(copiesEqual(d, st), `full at write ${at}: copies equal after steps`);
        d.reboot();
        st = new EpisodeStore();
        deepEqual([st.read(1)!.content, st.read(2)!.content], now, `full at write ${at}: the same after a reboot`);
      }
    },
  },
  {
    name: "episodes: a batch cut at any write reads back per slot as before or after; open() puts the named slots in step",
    run() {
      const cuts = cutAtEveryWrite(
        () => {
          const dev = freshDevice();
          const st = new EpisodeStore();
          fill(st, 6);
          return { dev, state: { st, before: [1, 5, 6].map((s) => st.read(s)?.content) } };
        },
        ({ st }) => st.write([episode(1, 2, "新的第一件"), episode(5, 6, "新的第五件"), episode(6, 7, "第六个，新的")]),
        (dev, at, { before }) => {
          const st = new EpisodeStore();
          const after = ["新的第一件", "新的第五件", "第六个，新的"];
          [1, 5, 6].forEach((s, i) => {
            const c = st.read(s)?.content;
            ok(c === before[i] || c === after[i], `cut at ${at}: slot ${s} is ${c}`);
          });
          settle(st);
          ok(copiesEqual(dev, st), `cut at ${at}: copies equal after steps`);
        },
      );
      ok(cuts >= 5, `cut points ${cuts}`);
    },
  },
  {
    name: "episodes: while a copy is unreadable a batch finishes its rebuild first; else it goes whole through /ep.w and a cut in the one copy is finished by open()",
    run() {
      // the rebuild first: both copies whole when the batch returns
      let dev = freshDevice();
      let st = new EpisodeStore();
      fill(st, 12);
      dev.spiffs.notFinalized.add("/ep.h1");
      dev.reboot();
      st = new EpisodeStore();
      st.write([episode(3, 4, "改了第三件")]);
      ok(!dev.spiffs.notFinalized.has("/ep.h1"), "rebuilt by the batch");
      ok(copiesEqual(dev, st), "copies equal at once");
      // the fallback: cut at every write of a batch that goes through /ep.w
      let cuts = 0;
      for (let at = 1; ; at++) {
        dev = freshDevice();
        dev.spiffs.tearModes = ["unchanged", "prefix", "holes"];
        st = new EpisodeStore();
        fill(st, 12);
        dev.spiffs.notFinalized.add("/ep.h1");
        dev.reboot();
        st = new EpisodeStore();
        st.rebuildBeforeWrite = false;
        const before = [2, 5, 12].map((s) => st.read(s)?.content);
        dev.cutAfter(at, tearHalf);
        let cut = false;
        try {
          st.write([episode(2, 3, "新的第二件"), episode(5, 6, "新的第五件"), episode(12, 13, "第十二个")]);
        } catch (e) {
          if (!(e instanceof PowerCut)) throw e;
          cut = true;
        }
        dev.flash.disarm();
        if (!cut) {
          equal(st.read(5)!.content, "新的第五件");
          break;
        }
        cuts++;
        dev.reboot();
        st = new EpisodeStore();
        const after = ["新的第二件", "新的第五件", "第十二个"];
        const now = [2, 5, 12].map((s) => st.read(s)?.content);
        ok(now.every((c, i) => c === before[i] || c === after[i]), `cut at ${at}: ${JSON.stringify(now)}`);
        for (let s = 0; s < 12; s++) if (s !== 2 && s !== 5) ok(st.read(s) !== undefined, `cut at ${at}: slot ${s} is there`);
        // a cut after /ep.w was whole: open() finished the batch
        if (st.notes.some((n) => n.indexOf("finished a batch") === 0)) deepEqual(now, after, `cut at ${at}: finished`);
        settle(st);
        ok(copiesEqual(dev, st), `cut at ${at}: copies equal after steps`);
      }
      ok(cuts >= 5, `cut points ${cuts}`);
    },
  },
  {
    name: "episodes: a store whose view of the files is stale never writes over them blindly: it refuses once and learns them again",
    run() {
      const dev = freshDevice();
      const a = new EpisodeStore();
      fill(a, 4);
      const b = new EpisodeStore();
      b.write([episode(4, 5, "另一个实例写的"), episode(5, 6, "也是")]);
      const e = throws(() => a.write([episode(4, 7, "旧的视图")]), { name: "EpisodeError", message: "expected" }) as EpisodeError;
      equal(e.code, "io");
      equal(b.read(4)!.content, "另一个实例写的", "nothing written over");
      equal(a.slots, 6, "learnt again");
      equal(a.freeSlot(), 6);
      const id = a.nextId();
      ok(id > 6, `a new id: ${id}`);
      a.write([episode(6, id, "接着写")]);
      equal(a.read(6)!.content, "接着写");
      equal(b.read(5)!.content, "也是");
      void dev;
    },
  },
  {
    name: "episodes: signatures make 篮球, 打篮球 and 今天打了篮球 alike and 钢琴课 apart",
    run() {
      const s = ["篮球", "打篮球", "今天打了篮球", "钢琴课"].map((t) => signature(t, []));
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) if (i !== j) ok(similarity(s[i], s[j]) >= 0.5, `${i}~${j}: ${similarity(s[i], s[j])}`);
      for (let i = 0; i < 3; i++) ok(similarity(s[i], s[3]) <= 0.1, `${i} vs 钢琴课: ${similarity(s[i], s[3])}`);
      equal(similarity(s[0], s[0]), 1);
      equal(similarity(s[0], new Uint8Array(64)), 0, "an empty signature");
      equal(signature("", []).length, 64);
      // folding: case, full-width, punctuation and spaces do not matter
      deepEqual(signature("Ｂａｓｋｅｔｂａｌｌ！", []), signature("basketball", []));
      deepEqual(signature("打 篮球。", []), signature("打篮球", []));
      ok(similarity(signature("我们去打球", ["篮球"]), s[1]) > similarity(signature("我们去打球", []), s[1]), "keywords count");
      ok(similarity(signature("playing basketball today", []), signature("basketball", [])) > 0.4, "ASCII words");
    },
  },
];

// The record store mechanism on a synthetic layout: caching, flush discipline,
// corruption handling, migration, multi-part tables and power cuts.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Layout } from "../../src/nvs/layout";
import { Store, DOMAIN, HEADER_BYTES, type StoreSpec } from "../../src/nvs/store";
import { Health } from "../../src/nvs/health";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

interface Note {
  id: number;
  text: string;
  mood: string;
  pinned: boolean;
  level: string;
}
const noteLayout = new Layout<Note>("Note", [
  { name: "id", kind: "u16" },
  { name: "text", kind: "str", bytes: 12 },
  { name: "mood", kind: "enum", values: ["calm", "happy", "sad"] },
  { name: "flags", kind: "bits", parts: [{ name: "pinned", mask: 0x01 }, { name: "level", mask: 0x0c, values: ["none", "low", "mid", "high"] }] },
]);
const spec: StoreSpec<Note> = { name: "note", key: "note", code: 200, version: 2, layout: noteLayout, capacity: 8 };
const bigSpec: StoreSpec<Note> = { name: "big", key: "big", code: 201, version: 1, layout: noteLayout, capacity: 600 };

function boot(s: StoreSpec<Note> = spec) {
  const health = new Health();
  let cache: string[] | undefined;
  const store = new Store<Note>(s, health, () => (cache ??= Preference.keys(DOMAIN)));
  return { store, health };
}
const note = (id: number, text = "n" + id): Note => ({ id, text, mood: "happy", pinned: id % 2 === 0, level: "mid" });
const fresh = () => new SimDevice().install();

export const scenarios: Scenario[] = [
  {
    name: "layout: round-trip of every field kind; strings cut at a character boundary",
    run() {
      const b = new Uint8Array(noteLayout.size);
      equal(noteLayout.size, 16);
      noteLayout.encode({ id: 513, text: "我叫小明abc", mood: "sad", pinned: true, level: "high" }, b);
      const r = noteLayout.decode(b);
      // 12 bytes: 我叫小明 is 12 bytes exactly; "abc" does not fit
      deepEqual(r, { id: 513, text: "我叫小明", mood: "sad", pinned: true, level: "high" });
      equal(b[0], 1);
      equal(b[1], 2, "little-endian");
      equal(b[15], 0x01 | (3 << 2));
      noteLayout.encode({ id: 1, text: "ab我叫小明", mood: "calm", pinned: false, level: "none" }, b);
      equal(noteLayout.decode(b).text, "ab我叫小", "a 3-byte character that would be cut is dropped whole");
      throws(() => noteLayout.encode({ ...note(1), mood: "angry" }, b), { message: "not one of" });
      throws(() => noteLayout.encode({ ...note(70000) }, b), { message: "out of u16 range" });
    },
  },
  {
    name: "lazy load, and flush writes only what changed",
    run() {
      const dev = fresh();
      let { store } = boot();
      equal(store.loaded, false);
      equal(dev.flash.partition("nvs").readCalls, 0, "nothing read before first use");
      equal(store.flush(), false, "an untouched store writes nothing");
      store.set([note(1), note(2)]);
      const before = dev.flash.writes;
      ok(store.flush());
      ok(dev.flash.writes > before);
      const w = dev.flash.writes;
      equal(store.flush(), false, "a clean store writes nothing");
      store.set([note(1), note(2)]);
      equal(store.flush(), false, "the same content again writes nothing");
      equal(dev.flash.writes, w);
      ({ store } = boot());
      deepEqual(store.all(), [note(1), note(2)]);
      deepEqual([...store.keys], ["note.a0"]);
    },
  },
  {
    name: "copies alternate between slots; one copy remains after each flush",
    run() {
      fresh();
      const { store } = boot();
      for (let i = 1; i <= 5; i++) {
        store.set([note(i)]);
        store.flush();
        deepEqual(Preference.keys(DOMAIN), [i % 2 ? "note.a0" : "note.b0"]);
      }
      deepEqual(boot().store.all(), [note(5)]);
    },
  },
  {
    name: "a damaged copy is set aside: the other copy is used and the damage reported",
    run() {
      for (const damage of ["crc", "magic", "version", "length", "type", "string"] as const) {
        fresh();
        const { store } = boot();
        store.set([note(1)]);
        store.flush(); // a0, seq 1
        store.set([note(2)]);
        store.flush(); // b0, seq 2, a0 deleted
        const b = new Uint8Array(Preference.get(DOMAIN, "note.b0") as ArrayBuffer);
        if (damage === "crc") b[HEADER_BYTES + 3] ^= 0xff;
        else if (damage === "magic") b[0] = 0;
        else if (damage === "version") b[2] = 99;
        else if (damage === "length") Preference.set(DOMAIN, "note.b0", b.slice(0, b.length - 1).buffer);
        else if (damage === "type") b[3] = 7;
        if (damage === "string") Preference.set(DOMAIN, "note.b0", "garbage");
        else if (damage !== "length") Preference.set(DOMAIN, "note.b0", b.buffer);
        const { store: s2, health } = boot();
        deepEqual(s2.all(), [], `${damage}: no valid copy, starts empty`);
        ok(health.events.some((e) => e.key === "note.b0" && e.problem === (damage === "string" ? "type" : damage)), `${damage} reported`);
      }
    },
  },
  {
    name: "with both copies present the newest valid one wins, and a damaged newest falls back",
    run() {
      fresh();
      const { store } = boot();
      store.set([note(1)]);
      store.flush(); // a0 seq1
      const seq1 = Preference.get(DOMAIN, "note.a0") as ArrayBuffer;
      store.set([note(2)]);
      store.flush(); // b0 seq2
      Preference.set(DOMAIN, "note.a0", seq1); // as if a cut stopped the delete
      deepEqual(boot().store.all(), [note(2)], "newest wins");
      const b = new Uint8Array(Preference.get(DOMAIN, "note.b0") as ArrayBuffer);
      b[b.length - 1] ^= 1;
      Preference.set(DOMAIN, "note.b0", b.buffer);
      const { store: s, health } = boot();
      deepEqual(s.all(), [note(1)], "falls back to the older copy");
      deepEqual(health.events.map((e) => e.problem), ["crc"]);
      s.set([note(3)]);
      s.flush();
      deepEqual(Preference.keys(DOMAIN), ["note.b0"], "the damaged copy is overwritten, the old one deleted");
      deepEqual(boot().store.all(), [note(3)]);
    },
  },
  {
    name: "an older format version is migrated and rewritten at the next flush",
    run() {
      fresh();
      interface V1 { id: number; text: string }
      const v1 = new Layout<V1>("NoteV1", [{ name: "id", kind: "u8" }, { name: "text", kind: "str", bytes: 8 }]);
      const old = new Store<V1>({ name: "note", key: "note", code: 200, version: 1, layout: v1, capacity: 8 }, new Health(), () => Preference.keys(DOMAIN));
      old.set([{ id: 7, text: "seven" }]);
      old.flush();
      const migrations = [{ version: 1, layout: v1 as unknown as Layout<object>, up: (r: Record<string, unknown>) => ({ id: r.id, text: r.text, mood: "calm", pinned: false, level: "none" }) }];
      const health = new Health();
      const s = new Store<Note>({ ...spec, migrations }, health, () => Preference.keys(DOMAIN));
      deepEqual(s.all(), [{ id: 7, text: "seven", mood: "calm", pinned: false, level: "none" }]);
      deepEqual(health.events.map((e) => e.problem), ["migrated"]);
      ok(s.isDirty, "marked for rewrite");
      ok(s.flush());
      equal(new Uint8Array(Preference.get(DOMAIN, "note.b0") as ArrayBuffer)[2], 2, "now version 2");
    },
  },
  {
    name: "a table over 4000 bytes is split across keys; no blob exceeds 4000 bytes",
    run() {
      fresh();
      const { store } = boot(bigSpec);
      const recs = Array.from({ length: 600 }, (_, i) => note(i));
      store.set(recs);
      store.flush();
      const keys = Preference.keys(DOMAIN).sort();
      deepEqual(keys, ["big.a0", "big.a1", "big.a2"]);
      for (const k of keys) ok((Preference.get(DOMAIN, k) as ArrayBuffer).byteLength <= 4000);
      deepEqual(boot(bigSpec).store.all(), recs);
      store.set(recs.slice(0, 10));
      store.flush();
      deepEqual(Preference.keys(DOMAIN), ["big.b0"], "all three old parts deleted");
    },
  },
  {
    name: "a multi-part copy with a part missing is incomplete: the older copy is used",
    run() {
      fresh();
      const { store } = boot(bigSpec);
      store.set([note(1)]);
      store.flush(); // a0
      const a0 = Preference.get(DOMAIN, "big.a0") as ArrayBuffer;
      const recs = Array.from({ length: 600 }, (_, i) => note(i));
      store.set(recs);
      store.flush(); // b0..b2, a0 deleted
      Preference.set(DOMAIN, "big.a0", a0); // as if the delete had been cut
      Preference.delete(DOMAIN, "big.b2");
      const { store: s2, health } = boot(bigSpec);
      deepEqual(s2.all(), [note(1)], "the older complete copy");
      deepEqual(health.events.map((e) => `${e.key}:${e.problem}`), ["big.b0:incomplete"]);
      s2.set([note(2)]);
      s2.flush();
      deepEqual(Preference.keys(DOMAIN), ["big.b0"], "leftover parts cleaned up");
    },
  },
  {
    name: "power cut at every write of a flush: old or new table, never a mix or nothing",
    run() {
      const bigRecs = Array.from({ length: 400 }, (_, i) => note(i, "x" + i));
      for (const [oldRecs, newRecs] of [
        [[note(1), note(2)], [note(3)]],
        [[note(1)], bigRecs],
        [bigRecs, [note(9)]],
        [bigRecs, bigRecs.map((r) => ({ ...r, text: "y" + r.id }))],
      ] as const) {
        let cuts = 0;
        for (let n = 1; ; n++) {
          const dev = fresh();
          const s = boot(bigSpec).store;
          s.set(oldRecs);
          s.flush();
          s.set([...oldRecs]); // unchanged: must not write
          s.flush();
          s.set(newRecs);
          dev.cutAfter(n);
          const cut = SimDevice.survive(() => s.flush());
          dev.flash.disarm();
          dev.reboot();
          const after = boot(bigSpec).store.all();
          const isOld = JSON.stringify(after) === JSON.stringify(oldRecs);
          const isNew = JSON.stringify(after) === JSON.stringify(newRecs);
          ok(isOld || isNew, `cut at write ${n}: ${after.length} records, neither old nor new`);
          if (!cut) {
            ok(isNew, "a completed flush is durable");
            break;
          }
          cuts++;
        }
        ok(cuts >= 2, "the sweep cut at least the write and the delete");
      }
    },
  },
  {
    name: "NVS refusing a write leaves the store dirty and the old copy intact",
    run() {
      fresh();
      const { store } = boot();
      store.set([note(1)]);
      store.flush();
      // fill NVS with another domain until full
      throws(() => {
        for (let i = 0; i < 100; i++) Preference.set("filler", "k" + i, new ArrayBuffer(1000));
      });
      store.set([note(1), note(2), note(3), note(4), note(5), note(6), note(7), note(8)]);
      let failed = false;
      try {
        store.flush();
      } catch (e) {
        failed = true;
        equal((e as Error).name, "StoreError");
        ok((e as Error).message.includes("flush failed"));
      }
      if (failed) {
        ok(store.isDirty);
        deepEqual(boot().store.all(), [note(1)], "old copy intact");
      }
    },
  },
];

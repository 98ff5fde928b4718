// The record store mechanism on a synthetic layout: caching, flush discipline,
// two copies at rest, damage to either, NVS refusals, migration from format 1,
// multi-part tables and power cuts.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Layout } from "../../src/nvs/layout";
import { Store, DOMAIN, DOMAIN_B, HEADER_BYTES, MAGIC, blobCrc, type StoreSpec } from "../../src/nvs/store";
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
  const cache: Record<string, string[]> = {};
  const store = new Store<Note>(s, health, (ns) => (cache[ns] ??= Preference.keys(ns)));
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
      deepEqual([...store.keys], ["petmem/note.a0", "petmem_b/note.b0"]);
    },
  },
  {
    name: "two copies at rest: every flush leaves the same table, same seq, in both namespaces",
    run() {
      fresh();
      const { store } = boot();
      for (let i = 1; i <= 4; i++) {
        store.set([note(i)]);
        store.flush();
        deepEqual(Preference.keys(DOMAIN), ["note.a0"]);
        deepEqual(Preference.keys(DOMAIN_B), ["note.b0"]);
        const a = new Uint8Array(Preference.get(DOMAIN, "note.a0") as ArrayBuffer);
        const b = new Uint8Array(Preference.get(DOMAIN_B, "note.b0") as ArrayBuffer);
        equal(new DataView(a.buffer).getUint32(4, true), i, "seq +1 per flush");
        deepEqual(a, b, "byte for byte");
      }
      deepEqual(boot().store.all(), [note(4)]);
    },
  },
  {
    name: "one damaged copy costs nothing: the other is served, the damage reported and repaired",
    run() {
      for (const damage of ["crc", "magic", "version", "length", "type", "string", "gone", "unreadable"] as const)
        for (const ns of [DOMAIN, DOMAIN_B]) {
          fresh();
          const { store } = boot();
          store.set([note(1)]);
          store.flush();
          store.set([note(2)]);
          store.flush(); // seq 2 in both
          const key = ns === DOMAIN ? "note.a0" : "note.b0";
          const undo = damageKey(ns, key, damage);
          const { store: s2, health } = boot();
          deepEqual(s2.all(), [note(2)], `${damage} in ${ns}: the other copy is served`);
          const want = damage === "string" ? "type" : damage === "gone" ? "missing" : damage;
          ok(health.events.some((e) => e.key === `${ns}/${key}` && e.problem === want), `${damage} in ${ns} reported: ${JSON.stringify(health.events)}`);
          equal(health.lost.length, 0, "nothing lost");
          ok(s2.needsRepair && s2.isDirty, "marked for repair");
          ok(s2.flush(), "the repair writes");
          undo();
          const { store: s3, health: h3 } = boot();
          deepEqual(s3.all(), [note(2)]);
          deepEqual(h3.events, [], `${damage} in ${ns}: both copies whole again`);
        }
    },
  },
  {
    name: "both copies damaged: the store starts empty, is reported lost, and the others load",
    run() {
      fresh();
      const { store } = boot();
      store.set([note(1)]);
      store.flush();
      damageKey(DOMAIN, "note.a0", "crc");
      damageKey(DOMAIN_B, "note.b0", "crc");
      const { store: s2, health } = boot();
      deepEqual(s2.all(), []);
      deepEqual(health.lost, ["note"]);
      equal(s2.needsRepair, false, "nothing to repair from");
      s2.set([note(5)]);
      s2.flush();
      deepEqual(boot().store.all(), [note(5)], "the next write replaces the damaged copies");
      deepEqual(Preference.keys(DOMAIN), ["note.a0"]);
    },
  },
  {
    name: "the newest valid copy wins (seq, wrapping); an older one is repaired to it",
    run() {
      for (const [older, newer] of [[1, 2], [0xffffffff, 0], [0x7ffffff0, 0x80000001]]) {
        fresh();
        const { store } = boot();
        store.set([note(1)]);
        store.flush();
        const a = new Uint8Array(Preference.get(DOMAIN, "note.a0") as ArrayBuffer);
        setSeq(a, older);
        Preference.set(DOMAIN, "note.a0", a.buffer);
        store.set([note(2)]);
        store.flush();
        const b = new Uint8Array(Preference.get(DOMAIN_B, "note.b0") as ArrayBuffer);
        setSeq(b, newer);
        Preference.set(DOMAIN_B, "note.b0", b.buffer);
        Preference.set(DOMAIN, "note.a0", a.buffer); // as if the second write had been cut
        const { store: s2 } = boot();
        deepEqual(s2.all(), [note(2)], `seq ${newer} is newer than ${older}`);
        ok(s2.needsRepair);
        s2.flush();
        const a2 = new Uint8Array(Preference.get(DOMAIN, "note.a0") as ArrayBuffer);
        equal(new DataView(a2.buffer).getUint32(4, true), newer, "repaired with the same seq");
      }
    },
  },
  {
    name: "format 1 (both slots in one namespace) migrates to two copies with nothing lost",
    run() {
      for (const newest of ["a", "b"] as const) {
        fresh();
        // what format 1 left: slot a seq 1, slot b seq 2 (a cut before the delete of a), both in "petmem"
        const one = (n: Note, seq: number) => blob(spec, [n], seq);
        Preference.set(DOMAIN, "note.a0", one(note(newest === "a" ? 2 : 1), newest === "a" ? 2 : 1));
        Preference.set(DOMAIN, "note.b0", one(note(newest === "b" ? 2 : 1), newest === "b" ? 2 : 1));
        const { store, health } = boot();
        deepEqual(store.all(), [note(2)], `newest in slot ${newest}`);
        ok(store.needsRepair);
        ok(health.events.some((e) => e.problem === "missing"));
        store.flush();
        deepEqual(Preference.keys(DOMAIN), ["note.a0"]);
        deepEqual(Preference.keys(DOMAIN_B), ["note.b0"]);
        const { store: s2, health: h2 } = boot();
        deepEqual(s2.all(), [note(2)]);
        deepEqual(h2.events, []);
      }
    },
  },
  {
    name: "a lost namespace costs one copy; a namespace that comes back with old items cannot win over newer",
    run() {
      fresh();
      const { store } = boot();
      store.set([note(1)]);
      store.flush();
      const oldA = Preference.get(DOMAIN, "note.a0") as ArrayBuffer;
      store.set([note(2)]);
      store.flush();
      for (const k of Preference.keys(DOMAIN_B)) Preference.delete(DOMAIN_B, k); // the namespace entry is gone: no keys
      const { store: s2, health } = boot();
      deepEqual(s2.all(), [note(2)]);
      ok(health.events.some((e) => e.key === "petmem_b/note.b0" && e.problem === "missing"));
      s2.flush();
      // the old index comes back with an old item (NVS reused the namespace index)
      Preference.set(DOMAIN, "note.a0", oldA);
      const { store: s3 } = boot();
      deepEqual(s3.all(), [note(2)], "seq decides: the resurrected copy is older");
    },
  },
  {
    name: "an older format version is migrated and rewritten at the next flush",
    run() {
      fresh();
      interface V1 { id: number; text: string }
      const v1 = new Layout<V1>("NoteV1", [{ name: "id", kind: "u8" }, { name: "text", kind: "str", bytes: 8 }]);
      const old = new Store<V1>({ name: "note", key: "note", code: 200, version: 1, layout: v1, capacity: 8 }, new Health(), (ns) => Preference.keys(ns));
      old.set([{ id: 7, text: "seven" }]);
      old.flush();
      const migrations = [{ version: 1, layout: v1 as unknown as Layout<object>, up: (r: Record<string, unknown>) => ({ id: r.id, text: r.text, mood: "calm", pinned: false, level: "none" }) }];
      const health = new Health();
      const s = new Store<Note>({ ...spec, migrations }, health, (ns) => Preference.keys(ns));
      deepEqual(s.all(), [{ id: 7, text: "seven", mood: "calm", pinned: false, level: "none" }]);
      deepEqual(health.events.map((e) => e.problem), ["migrated", "migrated"], "both copies");
      ok(s.isDirty && s.needsRepair, "marked for rewrite");
      ok(s.flush());
      equal(new Uint8Array(Preference.get(DOMAIN, "note.a0") as ArrayBuffer)[2], 2, "now version 2");
      equal(new Uint8Array(Preference.get(DOMAIN_B, "note.b0") as ArrayBuffer)[2], 2, "both copies");
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
      deepEqual(Preference.keys(DOMAIN).sort(), ["big.a0", "big.a1", "big.a2"]);
      deepEqual(Preference.keys(DOMAIN_B).sort(), ["big.b0", "big.b1", "big.b2"]);
      for (const k of Preference.keys(DOMAIN)) ok((Preference.get(DOMAIN, k) as ArrayBuffer).byteLength <= 4000);
      deepEqual(boot(bigSpec).store.all(), recs);
      store.set(recs.slice(0, 10));
      store.flush();
      deepEqual(Preference.keys(DOMAIN), ["big.a0"], "the old parts deleted");
      deepEqual(Preference.keys(DOMAIN_B), ["big.b0"]);
    },
  },
  {
    name: "a multi-part copy with a part missing is incomplete: the other copy is used",
    run() {
      fresh();
      const { store } = boot(bigSpec);
      const recs = Array.from({ length: 600 }, (_, i) => note(i));
      store.set(recs);
      store.flush();
      Preference.delete(DOMAIN_B, "big.b2");
      const { store: s2, health } = boot(bigSpec);
      deepEqual(s2.all().length, 600, "copy a");
      deepEqual(health.events.map((e) => `${e.key}:${e.problem}`), ["petmem_b/big.b0:incomplete"]);
      s2.flush();
      deepEqual(Preference.keys(DOMAIN_B).sort(), ["big.b0", "big.b1", "big.b2"], "repaired");
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
    name: "format 2 to 3: a store that now keeps one NVS copy takes its table from either format-2 copy, a cut anywhere loses nothing, and petmem_b empties",
    run() {
      const one: StoreSpec<Note> = { ...spec, copies: 1 };
      // each case: what is left of format 2's two copies, then the first flushes of format 3
      for (const damaged of ["none", "a", "b"] as const) {
        let cuts = 0;
        for (let n = 1; ; n++) {
          const dev = fresh();
          const two = boot().store; // format 2: copy a in petmem, copy b in petmem_b
          two.set([note(1), note(2)]);
          two.flush();
          if (damaged === "a") damageKey(DOMAIN, "note.a0", "crc");
          if (damaged === "b") damageKey(DOMAIN_B, "note.b0", "crc");
          const s = boot(one).store;
          deepEqual(s.all(), [note(1), note(2)], `damaged ${damaged}: the table is read`);
          dev.cutAfter(n);
          const cut = SimDevice.survive(() => {
            s.flush(); // the repair (copy b only) and the deletes of petmem_b
            s.set([note(1), note(2), note(3)]);
            s.flush();
          });
          dev.flash.disarm();
          dev.reboot();
          const after = JSON.stringify(boot(one).store.all());
          ok(after === JSON.stringify([note(1), note(2)]) || after === JSON.stringify([note(1), note(2), note(3)]), `damaged ${damaged}, cut at write ${n}: ${after}`);
          if (!cut) {
            equal(after, JSON.stringify([note(1), note(2), note(3)]));
            deepEqual(Preference.keys(DOMAIN_B), [], "nothing left in petmem_b");
            equal(Preference.keys(DOMAIN).filter((k) => k.startsWith("note.")).length, 1, "one NVS copy");
            break;
          }
          cuts++;
        }
        ok(cuts >= 2, "the sweep cut the writes and the deletes");
      }
    },
  },
  {
    name: "a change while one copy is damaged writes over the damaged one first: a cut anywhere leaves the old or the new table",
    run() {
      for (const bad of [DOMAIN, DOMAIN_B]) {
        let cuts = 0;
        for (let n = 1; ; n++) {
          const dev = fresh();
          const { store } = boot();
          store.set([note(1)]);
          store.flush();
          damageKey(bad, bad === DOMAIN ? "note.a0" : "note.b0", "crc");
          const s = boot().store; // no repair yet: the next change must not erase the only good copy first
          deepEqual(s.all(), [note(1)]);
          s.set([note(2)]);
          dev.cutAfter(n);
          const cut = SimDevice.survive(() => s.flush());
          dev.flash.disarm();
          dev.reboot();
          const after = JSON.stringify(boot().store.all());
          ok(after === JSON.stringify([note(1)]) || after === JSON.stringify([note(2)]), `damaged ${bad}, cut at write ${n}: ${after}`);
          if (!cut) break;
          cuts++;
        }
        ok(cuts >= 2, "the sweep cut both copies' writes");
      }
    },
  },
  {
    name: "NVS refusing the first copy: not saved, old table on flash; refusing the second: saved in one copy, repaired later",
    run() {
      for (const failAt of [1, 2] as const) {
        fresh();
        const { store, health } = boot();
        store.set([note(1)]);
        store.flush();
        store.set([note(1), note(2)]);
        let sets = 0;
        const undo = patch(Preference, "set", (orig) => (d: string, k: string, v: unknown) => {
          if (++sets === failAt) throw new Error("nvs set fail");
          return orig(d, k, v);
        });
        let err: Error | undefined;
        try {
          store.flush();
        } catch (e) {
          err = e as Error;
        } finally {
          undo();
        }
        if (failAt === 1) {
          equal(err?.name, "StoreError", "the first copy failed: thrown");
          ok(err!.message.includes("NVS write failed"));
          ok(store.isDirty, "still dirty");
          deepEqual(boot().store.all(), [note(1)], "flash holds the old table");
        } else {
          equal(err, undefined, "the second copy failed: saved in one copy, not thrown");
          ok(store.degraded && store.needsRepair);
          equal(health.writeErrors, 1);
          deepEqual(boot().store.all(), [note(1), note(2)], "flash holds the new table");
        }
        ok(store.flush(), "the next flush repairs");
        equal(store.needsRepair, false);
        const { store: s2, health: h2 } = boot();
        deepEqual(s2.all(), failAt === 1 ? [note(1), note(2)] : [note(1), note(2)]);
        deepEqual(h2.events, [], "both copies whole");
      }
    },
  },
  {
    name: "write only what changed, with no copy of the table in RAM: equal records write nothing; a holding slot changed on flash is written again",
    run() {
      fresh();
      const { store } = boot();
      store.set([note(1), note(2)]);
      ok(store.flush(), "the first flush writes");
      const want = JSON.stringify(store.all());
      const a = new Uint8Array(Preference.get(DOMAIN, "note.a0") as ArrayBuffer);
      store.set([note(1), note(2)]);
      equal(store.flush(), false, "the same records: nothing written");
      deepEqual([...new Uint8Array(Preference.get(DOMAIN, "note.a0") as ArrayBuffer)], [...a], "copy a untouched");
      // both copies change behind the store's back: same length, one record byte flipped
      const bad = a.slice();
      bad[HEADER_BYTES] ^= 1;
      Preference.set(DOMAIN, "note.a0", bad.buffer);
      Preference.set(DOMAIN_B, "note.b0", bad.slice().buffer);
      store.set([note(1), note(2)]);
      ok(store.flush(), "the bytes read back are not the table's: written again");
      const { store: s2, health } = boot();
      equal(JSON.stringify(s2.all()), want);
      deepEqual(health.events.map((e) => `${e.key}:${e.problem}`), [], "both copies valid");
    },
  },
];

// Damages one key of a copy the way the device can: returns an undo for
// patches that live outside flash.
function damageKey(ns: string, key: string, damage: string): () => void {
  if (damage === "unreadable") {
    // on the device Preference.get throws `nvs get fail` for an item whose CRC fails
    return patch(Preference, "get", (orig) => (d: string, k: string) => {
      if (d === ns && k === key) throw new Error("nvs get fail");
      return orig(d, k);
    });
  }
  if (damage === "gone") {
    Preference.delete(ns, key);
    return () => {};
  }
  if (damage === "string") {
    Preference.set(ns, key, "garbage");
    return () => {};
  }
  const b = new Uint8Array(Preference.get(ns, key) as ArrayBuffer);
  if (damage === "crc") b[HEADER_BYTES + 3] ^= 0xff;
  else if (damage === "magic") b[0] = 0;
  else if (damage === "version") b[2] = 99;
  else if (damage === "type") b[3] = 7;
  Preference.set(ns, key, damage === "length" ? b.slice(0, b.length - 1).buffer : b.buffer);
  return () => {};
}

function patch<O extends object, K extends keyof O>(obj: O, name: K, make: (orig: (...a: unknown[]) => unknown) => unknown): () => void {
  const orig = obj[name] as unknown as (...a: unknown[]) => unknown;
  const bound = (...a: unknown[]) => orig.apply(obj, a);
  (obj as Record<K, unknown>)[name] = make(bound);
  return () => {
    (obj as Record<K, unknown>)[name] = orig;
  };
}

function setSeq(b: Uint8Array, seq: number): void {
  new DataView(b.buffer).setUint32(4, seq >>> 0, true);
  new DataView(b.buffer).setUint32(12, blobCrc(b), true);
}

// A one-part copy as the store writes it.
function blob(s: StoreSpec<Note>, recs: Note[], seq: number): ArrayBuffer {
  const size = s.layout.size;
  const b = new Uint8Array(HEADER_BYTES + recs.length * size);
  const v = new DataView(b.buffer);
  v.setUint16(0, MAGIC, true);
  b[2] = s.version;
  b[3] = s.code;
  v.setUint32(4, seq, true);
  v.setUint16(8, recs.length, true);
  b[10] = 0;
  b[11] = 1;
  recs.forEach((r, i) => s.layout.encode(r, b, HEADER_BYTES + i * size));
  v.setUint32(12, blobCrc(b), true);
  return b.buffer;
}

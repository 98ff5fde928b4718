// NVS shared with the firmware (issue 28): when another namespace has taken
// the partition to the last entry, a write of petmem's that fails gives back
// the two-copy stores' second copies (the mirror file keeps a copy), says so,
// and a later boot takes them back when they fit again.
import assert from "node:assert/strict";
import Preference from "preference";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import { Memory } from "../src/memory/memory";
import { DOMAIN_B } from "../src/nvs/store";

function bKeys(): string[] {
  try {
    return Preference.keys(DOMAIN_B);
  } catch {
    return [];
  }
}

describe("NVS shared with the firmware: second copies given back and taken back", () => {
  it("a write into a full NVS succeeds by giving back second copies; room back, they come back", () => {
    const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
    let mem = new Memory();
    mem.boot();
    for (let i = 0; i < 15; i++) assert.equal(mem.addFact(`主人的第${i}件事：喜欢在公园里放风筝`).action, "ADDED");
    for (let i = 0; i < 6; i++) mem.upsertFamily({ relation: `表哥${i}`, name: `小明${i}`, closeness: 3, sharedMemory: "一起去公园放风筝" });
    mem.flush();
    const before = bKeys().filter((k) => k.startsWith("fam."));
    assert.ok(before.length > 0, "two copies of the family before");
    assert.deepEqual(bKeys().filter((k) => k.startsWith("fact.")), [], "facts keep one NVS copy (format 3)");
    dev.inject("full", { partition: "nvs" }); // another namespace takes every entry
    assert.equal(mem.addFact("主人今天学会了骑自行车").action, "ADDED");
    mem.flush(); // would throw StoreError without the give-back
    assert.equal(mem.room.single, true);
    assert.ok(mem.health.writeErrors >= 1, "the first write did fail");
    const aFam = Preference.keys("petmem").filter((k) => k.startsWith("fam."));
    const bFam = bKeys().filter((k) => k.startsWith("fam."));
    assert.ok((aFam.length === 0) !== (bFam.length === 0), `one copy of the family: ${aFam} | ${bFam}`);
    assert.equal(Preference.get("petmem", "room"), 1);
    // NVS full again: a one-copy store's new table (no larger than the old)
    // needs room beside the old one; the mirror file holds the old table, so
    // the old NVS copy makes way (without it: StoreError, not saved)
    dev.inject("full", { partition: "nvs" });
    mem.removeFact("主人的第0件事：喜欢在公园里放风筝");
    assert.equal(mem.addFact("主人今天学会了游泳").action, "ADDED");
    mem.flush();
    assert.equal(Preference.keys("petmem").filter((k) => k.startsWith("fact.")).length, 1, "one NVS copy of the facts");
    // a reboot reads one copy as whole, not as damage
    dev.reboot();
    mem = new Memory();
    const r = mem.boot();
    assert.equal(mem.room.single, true);
    assert.deepEqual(r.setAside.filter((e) => e.problem === "missing"), []);
    assert.ok(mem.stores.facts.all().some((f) => (f as { content: string }).content === "主人今天学会了骑自行车"));
    assert.ok(mem.stores.facts.all().some((f) => (f as { content: string }).content === "主人今天学会了游泳"));
    // the firmware frees its entries: the next flush takes the second copies back
    for (const k of Preference.keys("zz_fill")) Preference.delete("zz_fill", k);
    dev.reboot();
    mem = new Memory();
    mem.boot();
    assert.equal(mem.addFact("主人喜欢吃西瓜").action, "ADDED");
    mem.flush();
    assert.equal(mem.room.single, false);
    assert.ok(bKeys().filter((k) => k.startsWith("fam.")).length > 0 && Preference.keys("petmem").filter((k) => k.startsWith("fam.")).length > 0, "both copies are back");
    let room: unknown;
    try {
      room = Preference.get("petmem", "room");
    } catch {
      room = undefined;
    }
    assert.equal(room, undefined);
  });

  it("when not even one NVS copy fits, the new table is saved in the mirror file alone and read back from it", () => {
    const dev = new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
    let mem = new Memory();
    mem.boot();
    assert.equal(mem.addFact("主人喜欢放风筝").action, "ADDED");
    mem.flush();
    dev.inject("full", { partition: "nvs" });
    // a store never written before (nothing of it to give back or make way)
    assert.equal(mem.addPreference("like", "恐龙").action, "ADDED");
    mem.flush(); // threw StoreError (preferences: NVS write failed) before
    assert.equal(mem.room.single, true);
    assert.deepEqual(Preference.keys("petmem").filter((k) => k.startsWith("pref.")), [], "no NVS copy: it did not fit");
    assert.match(mem.stores.preferences.degraded ?? "", /kept in the mirror file only/);
    dev.reboot();
    mem = new Memory();
    const r = mem.boot();
    assert.deepEqual(mem.preferences().likes, ["恐龙"]);
    assert.deepEqual(r.setAside.filter((e) => e.store === "preferences"), [], "kept in the mirror on purpose: not damage");
    assert.deepEqual(r.lost, []);
  });
});

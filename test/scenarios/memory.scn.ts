// The operations of seed 000 on the NVS stores: results, NOOP without flash
// writes, rules for full stores, validation, relationship stages.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Memory, MemoryError } from "../../src/memory/memory";
import { SPECS, SEED_RECORD_BYTES, stageIndex, STAGES, chatLayoutV1, type ChatMessage } from "../../src/memory/types";
import { DOMAIN, DOMAIN_B, Store, HEADER_BYTES } from "../../src/nvs/store";
import { Health } from "../../src/nvs/health";
import { ok, equal, deepEqual, throws } from "./assert";
import { dropMirror } from "./robust.scn";
import type { Scenario } from "./types";

const T0 = Date.UTC(2026, 1, 5, 5, 0);
function fresh() {
  const dev = new SimDevice({ now: T0 }).install();
  return { dev, mem: new Memory() };
}

export const scenarios: Scenario[] = [
  {
    name: "every layout fits the seed's size and capacities are the seed's",
    run() {
      for (const spec of Object.values(SPECS)) {
        const seed = SEED_RECORD_BYTES[spec.layout.name];
        ok(seed !== undefined, `${spec.layout.name} has a seed size`);
        ok(spec.layout.size <= seed, `${spec.layout.name}: ${spec.layout.size} > ${seed}`);
      }
      deepEqual(
        Object.fromEntries(Object.entries(SPECS).map(([k, s]) => [k, s.capacity])),
        { profile: 1, family: 8, preferences: 1, events: 16, facts: 20, traits: 10, habits: 10, moments: 10, goals: 5, chat: 30, affection: 1, config: 1, health: 1, pending: 20 },
      );
      equal(SPECS.events.layout.size, 106);
      const codes = Object.values(SPECS).map((s) => s.code);
      equal(new Set(codes).size, codes.length, "type codes unique");
      for (const s of Object.values(SPECS)) ok(`${s.key}.a0`.length <= 15);
    },
  },
  {
    name: "profile fields: ADDED, UPDATED, NOOP (no flash write), DELETED; survive a reboot",
    run() {
      const { dev, mem } = fresh();
      equal(mem.setProfile("name", "王浩宇").action, "ADDED");
      equal(mem.setProfile("age", 25).action, "ADDED");
      equal(mem.setProfile("birthday", "3-5").action, "ADDED");
      equal(mem.profile().birthday, "03-05");
      equal(mem.flush(), 1, "one store, one write");
      const w = dev.flash.writes;
      equal(mem.setProfile("name", "王浩宇").action, "NOOP");
      equal(mem.setProfile("name", "  王浩宇 ").action, "NOOP", "trimmed");
      equal(mem.flush(), 0);
      equal(dev.flash.writes, w, "NOOP writes no flash");
      equal(mem.setProfile("name", "小王").action, "UPDATED");
      equal(mem.clearProfile("age").action, "DELETED");
      equal(mem.clearProfile("age").action, "NOOP");
      mem.flush();
      const again = new Memory();
      deepEqual(again.profile(), { name: "小王", birthday: "03-05", age: 0, gender: "", location: "" });
    },
  },
  {
    name: "bad input throws a clear error and changes nothing",
    run() {
      const { dev, mem } = fresh();
      mem.setProfile("name", "A");
      mem.flush();
      const w = dev.flash.writes;
      const bad: [() => unknown, string][] = [
        [() => mem.setProfile("name", ""), "required"],
        [() => mem.setProfile("name", 5), "string"],
        [() => mem.setProfile("name", "a\u0000b"), "control"],
        [() => mem.setProfile("name", "a\ud800b"), "Unicode"],
        [() => mem.setProfile("age", 0), "integer from 1 to 150"],
        [() => mem.setProfile("age", 2.5), "integer"],
        [() => mem.setProfile("birthday", "02-30"), "real"],
        [() => mem.setProfile("birthday", "tomorrow"), "MM-DD"],
        [() => mem.setProfile("shoe" as never, "x"), "one of"],
        [() => mem.upsertFamily({}), "relation or a name"],
        [() => mem.upsertFamily({ name: "李娟", closeness: 9 }), "closeness"],
        [() => mem.addMoment({ content: "x", emotion: "angry" }), "emotion"],
        [() => mem.addGoal({ content: "x", priority: 0 }), "priority"],
        [() => mem.updateGoal("nope", { progress: 5 }), "no goal"],
      ];
      for (const [fn, msg] of bad) {
        const e = throws(fn, { message: msg });
        equal(e.name, "MemoryError");
      }
      equal(mem.dirty, false, "nothing changed in RAM");
      equal(mem.flush(), 0);
      equal(dev.flash.writes, w);
    },
  },
  {
    name: "text over its field is refused with the limit in bytes and characters; nothing changes",
    run() {
      const { dev, mem } = fresh();
      mem.setProfile("name", "一二三四五六七八九十"); // 30 bytes, field 32
      mem.flush();
      const w = dev.flash.writes;
      const cases: [() => unknown, string][] = [
        [() => mem.setProfile("name", "一二三四五六七八九十甲乙丙"), "name is too long (39 bytes): at most 32 bytes, about 10 Chinese characters"],
        [() => mem.addFact("事".repeat(43)), "fact is too long (129 bytes): at most 128 bytes"],
        [() => mem.addPreference("like", "a".repeat(33)), "like is too long (33 bytes): at most 32 bytes, about 10 Chinese characters or 32 letters"],
        [() => mem.addTrait("personality", "好".repeat(17)), "trait is too long (51 bytes): at most 48 bytes"],
        [() => mem.upsertFamily({ name: "李娟", sharedMemory: "一".repeat(22) }), "shared memory is too long (66 bytes): at most 64 bytes"],
        [() => mem.addGoal({ content: "g".repeat(65) }), "goal is too long (65 bytes): at most 64 bytes"],
      ];
      for (const [fn, msg] of cases) {
        const e = throws(fn, { name: "MemoryError", message: msg });
        equal((e as MemoryError).code, "too_long");
      }
      equal(mem.profile().name, "一二三四五六七八九十");
      equal(mem.facts().length, 0);
      equal(mem.dirty, false);
      equal(mem.flush(), 0);
      equal(dev.flash.writes, w, "nothing written");
      // exactly at the limit is fine; a later write that only shares the first 32 bytes is not a NOOP
      equal(mem.addPreference("like", "一二三四五六七八九十ab").action, "ADDED");
      equal(mem.addPreference("like", "一二三四五六七八九十ab").action, "NOOP");
      // the chat log (speech nobody typed) is still cut at a character boundary
      mem.appendChat("user", "我".repeat(30));
      equal(mem.chat()[0].content, "我".repeat(26));
    },
  },
  {
    name: "likes and dislikes: dedupe, a like becomes a dislike, a full list lets the oldest go",
    run() {
      const { mem } = fresh();
      equal(mem.addPreference("like", "篮球").action, "ADDED");
      equal(mem.addPreference("like", "篮球").action, "NOOP");
      equal(mem.addPreference("dislike", "篮球").action, "UPDATED");
      deepEqual(mem.preferences(), { likes: [], dislikes: ["篮球"] });
      for (let i = 1; i <= 8; i++) mem.addPreference("like", "like" + i);
      const r = mem.addPreference("like", "like9");
      deepEqual(r, { action: "ADDED", dropped: "like1" });
      equal(mem.preferences().likes.length, 8);
      equal(mem.removePreference("like", "like5").action, "DELETED");
      equal(mem.removePreference("like", "like5").action, "NOOP");
      mem.flush();
      deepEqual(new Memory().preferences(), { likes: ["like2", "like3", "like4", "like6", "like7", "like8", "like9"], dislikes: ["篮球"] });
    },
  },
  {
    name: "family: keyed by name (or relation), updates in place, a full family refuses",
    run() {
      const { mem } = fresh();
      equal(mem.upsertFamily({ relation: "妈妈", name: "李娟", closeness: 5 }).action, "ADDED");
      equal(mem.upsertFamily({ name: "李娟", closeness: 5 }).action, "NOOP");
      equal(mem.upsertFamily({ name: "李娟", sharedMemory: "一起包饺子" }).action, "UPDATED");
      equal(mem.upsertFamily({ relation: "弟弟" }).action, "ADDED");
      equal(mem.upsertFamily({ relation: "弟弟", closeness: 4 }).action, "UPDATED");
      for (let i = 0; i < 6; i++) mem.upsertFamily({ relation: "朋友", name: "友" + i });
      const e = throws(() => mem.upsertFamily({ relation: "朋友", name: "多余" }), { message: "family is full (8)" });
      equal((e as MemoryError).code, "full");
      equal(mem.family().length, 8);
      equal(mem.removeFamily("弟弟").action, "DELETED");
      equal(mem.removeFamily("李娟").action, "DELETED");
      throws(() => mem.removeFamily("朋友"), { message: "more than one" });
      mem.flush();
      equal(new Memory().family().length, 6);
    },
  },
  {
    name: "facts: dedupe; a full store without an archive refuses, with one the oldest 5 roll out",
    run() {
      const { dev, mem } = fresh();
      for (let i = 0; i < 20; i++) mem.addFact("事实" + i, 1000 + i);
      equal(mem.addFact("事实3").action, "NOOP");
      throws(() => mem.addFact("新的"), { message: "archive is not available" });
      equal(mem.facts().length, 20);
      const archived: string[] = [];
      mem.overflow = (type, recs) => {
        equal(type, "facts");
        for (const r of recs) archived.push(r.content);
      };
      equal(mem.addFact("新的").action, "ADDED");
      deepEqual(archived, ["事实0", "事实1", "事实2", "事实3", "事实4"]);
      equal(mem.facts().length, 16);
      // an archive that fails leaves everything as it was
      mem.overflow = () => {
        throw new Error("file system full");
      };
      for (let i = 0; i < 4; i++) mem.addFact("more" + i);
      throws(() => mem.addFact("one too many"), { message: "file system full" });
      equal(mem.facts().length, 20);
      ok(!mem.facts().some((f) => f.content === "one too many"));
      void dev;
    },
  },
  {
    name: "moments roll 3 at a time; traits and habits let the oldest go; goals and events refuse",
    run() {
      const { mem } = fresh();
      const out: string[] = [];
      mem.overflow = (_t, recs) => recs.forEach((r) => out.push(r.content));
      for (let i = 0; i < 11; i++) mem.addMoment({ topic: "t", content: "m" + i, emotion: "happy", intensity: 4, importance: 5, timestamp: 100 + i });
      deepEqual(out, ["m0", "m1", "m2"]);
      equal(mem.moments().length, 8);
      for (let i = 0; i < 11; i++) mem.addTrait("personality", "trait" + i);
      equal(mem.traits()[0].content, "trait1");
      equal(mem.addTrait("ability", "trait5").action, "UPDATED");
      for (let i = 0; i < 11; i++) mem.addHabit("habit" + i, "daily");
      equal(mem.habits().length, 10);
      for (let i = 0; i < 5; i++) mem.addGoal({ content: "goal" + i });
      throws(() => mem.addGoal({ content: "goal5" }), { message: "goals are full (5)" });
      equal(mem.updateGoal("goal1", { progress: 50 }).action, "UPDATED");
      equal(mem.updateGoal("goal1", { progress: 50 }).action, "NOOP");
      const ev = { date: "2026-02-05", time: "14:00", eventType: "schedule", content: "", reminded: 0, emotion: "neutral" as const, intensity: 0, significance: 3, priority: 3, schedule: true, completed: false, repeat: "none" as const, repeatInterval: 1, duration: 60 };
      for (let i = 0; i < 16; i++) equal(mem.addEvent({ ...ev, content: "e" + i }).action, "ADDED");
      throws(() => mem.addEvent({ ...ev, content: "e16" }), { message: "events are full (16)" });
      equal(mem.addEvent({ ...ev, content: "e3" }).action, "NOOP");
      mem.flush();
      const again = new Memory();
      equal(again.events().length, 16);
      deepEqual(again.events()[3], { ...ev, content: "e3" });
      equal(again.goals()[1].progress, 50);
    },
  },
  {
    name: "chat log keeps the last 30 messages",
    run() {
      const { mem } = fresh();
      for (let i = 0; i < 35; i++) mem.appendChat(i % 2 ? "assistant" : "user", "msg" + i);
      const c = mem.chat();
      equal(c.length, 30);
      equal(c[0].content, "msg5");
      equal(c[29].role, "user");
    },
  },
  {
    name: "relationship stage from total coins spent: 0-20, 21-50, 51-100, 101-200, 201+",
    run() {
      const at = (n: number) => STAGES[stageIndex(n)].stage;
      deepEqual([0, 20, 21, 50, 51, 100, 101, 200, 201, 99999].map(at), ["stranger", "stranger", "acquaintance", "acquaintance", "friend", "friend", "close_friend", "close_friend", "soulmate", "soulmate"]);
      const { mem } = fresh();
      equal(mem.relationship().stage, "stranger");
      equal(mem.addCoinsSpent(35).action, "ADDED");
      equal(mem.addCoinsSpent(0).action, "NOOP");
      deepEqual(mem.relationship(), { stage: "acquaintance", hint: STAGES[1].hint, total_coins_spent: 35 });
      mem.addCoinsSpent(200);
      equal(mem.affection().stage, 4);
      mem.flush();
      equal(new Memory().relationship().stage, "soulmate");
    },
  },
  {
    name: "one flush writes each changed store's copies (two NVS copies of a small table, one of a large one), in place of the old ones",
    run() {
      const { dev, mem } = fresh();
      mem.setProfile("name", "A");
      mem.addFact("f");
      mem.addPreference("like", "x");
      const nvsWrites = () => dev.nvs.itemOps; // items written or erased (a flash write is many operations)
      const w0 = nvsWrites();
      equal(mem.flush(), 3);
      deepEqual(Preference.keys(DOMAIN).sort(), ["fact.a0", "pref.a0", "prof.a0"]);
      deepEqual(Preference.keys(DOMAIN_B).sort(), ["pref.b0", "prof.b0"], "the facts keep one NVS copy (format 3) and the mirror");
      // a blob is two NVS items (data chunk, index); a namespace entry each
      equal(nvsWrites() - w0, 2 * 2 * 2 + 2 + 2, "two blobs in two copies, one in one copy, and the two namespace entries");
      mem.addFact("g");
      const w1 = nvsWrites();
      equal(mem.flush(), 1);
      equal(nvsWrites() - w1, 2 + 2, "the new table in the other slot (2) and the erase of the old one (2)");
      deepEqual(Preference.keys(DOMAIN).sort(), ["fact.b0", "pref.a0", "prof.a0"]);
      mem.addFact("h");
      mem.flush();
      deepEqual(Preference.keys(DOMAIN).sort(), ["fact.a0", "pref.a0", "prof.a0"], "the slots alternate");
    },
  },
  {
    name: "chat log version 1 (95-byte text) migrates to version 2 (79 bytes), cut at a character boundary",
    run() {
      fresh();
      // what the previous firmware wrote
      const v1 = new Store<ChatMessage>({ ...SPECS.chat, version: 1, layout: chatLayoutV1, migrations: undefined, copies: 1 }, new Health(), (ns) => Preference.keys(ns));
      const long = "我们今天一起去公园看了很多很多的花还有一只会唱歌的小鸟真开心呀"; // 31 characters, 93 bytes
      v1.set([{ timestamp: 1700000000, role: "user", content: long }, { timestamp: 1700000001, role: "assistant", content: "好呀" }]);
      v1.flush();
      const mem = new Memory();
      const chat = mem.chat();
      equal(chat[0].content, long.slice(0, 26), "26 whole characters (78 bytes) of 79");
      equal(chat[1].content, "好呀");
      deepEqual(mem.health.events.map((e) => e.problem), ["migrated"], "the chat log keeps one NVS copy: none missing");
      ok(mem.flush() >= 1, "rewritten in the new version");
      const key = Preference.keys(DOMAIN).find((k) => k.startsWith("chat."))!;
      equal(new Uint8Array(Preference.get(DOMAIN, key) as ArrayBuffer)[2], 2, "version 2 on flash");
      equal((Preference.get(DOMAIN, key) as ArrayBuffer).byteLength, HEADER_BYTES + 2 * 84);
      deepEqual(new Memory().chat(), chat, "and it reads back the same");
    },
  },
  {
    name: "boot: a flipped byte costs nothing, is repaired, and goes into the lifetime health record with the boot count",
    run() {
      const { dev } = fresh();
      let mem = new Memory();
      equal(mem.boot().boot, 1);
      mem.setProfile("name", "小王");
      mem.addFact("事实");
      mem.flush();
      // a bit flips in copy a of the facts
      const b = new Uint8Array(Preference.get(DOMAIN, "fact.a0") as ArrayBuffer);
      b[b.length - 1] ^= 0x10;
      Preference.set(DOMAIN, "fact.a0", b.buffer);
      dev.reboot();
      mem = new Memory();
      const r = mem.boot();
      equal(r.boot, 2);
      deepEqual(r.repaired, ["facts"]);
      deepEqual(r.setAside.map((e) => `${e.store} ${e.key} ${e.problem}`), ["facts petmem/fact.a0 crc"]);
      deepEqual(r.lost, []);
      deepEqual(mem.facts().map((f) => f.content), ["事实"], "served from copy b");
      equal(mem.profile().name, "小王", "the others are untouched");
      equal(mem.dirty, false, "the repair is written at boot");
      dev.reboot();
      mem = new Memory();
      const r3 = mem.boot();
      deepEqual(r3.setAside, [], "both copies whole again");
      const h = mem.healthRecord();
      equal(h.boots, 3);
      equal(h.crc, 1);
      equal(h.lastStore, "facts");
      equal(h.lastProblem, "crc");
      ok((h.lastSeen as number) > 0);
    },
  },
  {
    name: "boot: both copies of a store damaged: it starts empty, is counted lost, the rest is served",
    run() {
      const { dev } = fresh();
      let mem = new Memory();
      mem.boot();
      mem.setProfile("name", "小王");
      mem.addFact("事实");
      mem.flush();
      for (const [ns, key] of [[DOMAIN, "fact.a0"], [DOMAIN_B, "fact.b0"]]) Preference.set(ns, key, "not a blob");
      dropMirror("fact"); // and the third copy
      dev.reboot();
      mem = new Memory();
      const r = mem.boot();
      deepEqual(r.lost, ["facts"]);
      deepEqual(mem.facts(), []);
      equal(mem.profile().name, "小王");
      equal(mem.healthRecord().lost, 1);
      deepEqual(mem.untoldLoss(), { count: 1, stores: ["facts"] });
      equal(mem.untoldLoss(), undefined, "told once");
      mem.flush();
      dev.reboot();
      mem = new Memory();
      mem.boot();
      equal(mem.untoldLoss(), undefined, "still told after a reboot");
    },
  },
  {
    name: "boot: Preference.keys and get throwing are contained per key; the rest loads and boot goes on",
    run() {
      const { dev } = fresh();
      let mem = new Memory();
      mem.boot();
      mem.setProfile("name", "小王");
      mem.flush();
      const realGet = Preference.get, realKeys = Preference.keys;
      (Preference as unknown as Record<string, unknown>).get = (d: string, k: string) => {
        if (k.startsWith("prof.") && d === DOMAIN) throw new Error("nvs get fail");
        return realGet.call(Preference, d, k);
      };
      (Preference as unknown as Record<string, unknown>).keys = (d: string) => {
        if (d === DOMAIN_B) throw new Error("nvs keys fail");
        return realKeys.call(Preference, d);
      };
      dropMirror("prof");
      let r;
      try {
        dev.reboot();
        mem = new Memory();
        r = mem.boot();
      } finally {
        (Preference as unknown as Record<string, unknown>).get = realGet;
        (Preference as unknown as Record<string, unknown>).keys = realKeys;
      }
      // copy a of the profile unreadable, and every copy b unlisted: nothing readable for the profile
      deepEqual(r.lost, ["profile"]);
      ok(r.setAside.some((e) => e.key === "petmem/prof.a0" && e.problem === "unreadable"));
      ok(r.setAside.some((e) => e.store === "nvs" && e.problem === "unreadable"));
      dev.reboot();
      mem = new Memory();
      mem.boot();
      equal(mem.profile().name, "", "a lost store is settled at boot with an empty table: its loss is reported once");
      equal(mem.healthRecord().lost, 1);
    },
  },
];

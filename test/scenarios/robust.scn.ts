// No acknowledged loss, boot always, write only what changed, health you can
// see (issue 11, items 6, 7, 9): every single damage to NVS costs no record;
// a write NVS refuses is answered "not saved" and changes nothing; text over a
// field is refused; a tool call writes only the stores it touched and the chat
// log is written once per conversation; boot survives any archive failure;
// `status` and `read` say what happened.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Memory } from "../../src/memory/memory";
import { SPECS, type StoreName } from "../../src/memory/types";
import { DOMAIN, DOMAIN_B, HEADER_BYTES } from "../../src/nvs/store";
import { Service } from "../../src/app/service";
import { bootDevice } from "../../src/app/boot";
import { Archive } from "../../src/archive/archive";
import { fillEveryStore } from "../powercut/fill";
import { File, Iterator } from "file";
import config from "mc/config";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 +08:00
const NAMES = Object.keys(SPECS) as StoreName[];
// format 3: the small tables keep two NVS copies, the five large ones one (and the mirror)
const TWO = NAMES.filter((n) => (SPECS[n] as { copies?: number }).copies !== 1);

function device() {
  return new SimDevice({ now: T0 }).install();
}

const tool = toolCaller;

// Every store's records, as JSON, for comparing whole memories.
function contents(mem: Memory): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of NAMES) if (n !== "health") out[n] = JSON.stringify(mem.stores[n].all());
  return out;
}

// Replaces a static of Preference for the length of fn.
function patched<T>(name: "get" | "set" | "keys" | "delete", make: (orig: (...a: unknown[]) => unknown) => unknown, fn: () => T): T {
  const p = Preference as unknown as Record<string, unknown>;
  const orig = p[name] as (...a: unknown[]) => unknown;
  p[name] = make((...a: unknown[]) => orig.apply(Preference, a));
  try {
    return fn();
  } finally {
    p[name] = orig;
  }
}

function countSets(fn: () => void): Record<string, number> {
  const counts: Record<string, number> = {};
  patched("set", (orig) => (d: unknown, k: unknown, v: unknown) => {
    const prefix = String(k).split(".")[0];
    counts[prefix] = (counts[prefix] ?? 0) + 1;
    return orig(d, k, v);
  }, fn);
  return counts;
}

// Deletes the mirror file of a store (its third copy, in the storage partition).
export function dropMirror(prefix: string): number {
  const names: string[] = [];
  const it = new Iterator(config.file.root);
  for (let e = it.next(); e; e = it.next()) if (e.name.indexOf(`pm_${prefix}.`) === 0) names.push(e.name);
  for (const n of names) File.delete(config.file.root + n);
  return names.length;
}

// Fills NVS from another namespace until nothing more fits.
let fillRound = 0;
function fillNvs(): void {
  let i = 0;
  const round = fillRound++;
  for (const size of [1000, 200, 40, 4])
    for (;;) {
      try {
        Preference.set("filler", `f${round}.${i++}`, new ArrayBuffer(size));
      } catch {
        break;
      }
    }
}

export const scenarios: Scenario[] = [
  {
    name: "any single damage to any key of NVS (byte flipped, item gone, get throwing) costs no record",
    run() {
      const prepare = () => {
        const dev = device();
        const mem = new Memory();
        mem.boot();
        fillEveryStore(mem);
        mem.flush();
        return { dev, want: contents(mem) };
      };
      const keys: [string, string][] = [];
      prepare();
      for (const ns of [DOMAIN, DOMAIN_B]) for (const k of Preference.keys(ns)) keys.push([ns, k]);
      equal(keys.length, NAMES.length + TWO.length, "two NVS copies of every small store, one of every large one");
      ok(TWO.length >= 9 && TWO.length < NAMES.length);
      let runs = 0;
      for (const [ns, key] of keys)
        for (const damage of ["flip", "gone", "unreadable"] as const) {
          const { dev, want } = prepare();
          if (damage === "flip") {
            const b = new Uint8Array(Preference.get(ns, key) as ArrayBuffer);
            b[(runs * 7) % b.length] ^= 1 << runs % 8; // header or records, any bit
            Preference.set(ns, key, b.buffer);
          } else if (damage === "gone") Preference.delete(ns, key);
          dev.reboot();
          const m2 = new Memory();
          const r =
            damage === "unreadable"
              ? patched("get", (orig) => (d: unknown, k: unknown) => {
                  if (d === ns && k === key) throw new Error("nvs get fail");
                  return orig(d, k);
                }, () => m2.boot())
              : m2.boot();
          deepEqual(contents(m2), want, `${damage} ${ns}/${key}: every record served`);
          deepEqual(r.lost, [], `${damage} ${ns}/${key}: nothing lost`);
          ok(r.repaired.length >= 1, `${damage} ${ns}/${key}: repaired`);
          dev.reboot();
          const m3 = new Memory();
          deepEqual(m3.boot().lost, [], `${damage} ${ns}/${key}: nothing lost after the repair`);
          deepEqual(contents(m3), want);
          runs++;
        }
      equal(runs, keys.length * 3);
    },
  },
  {
    name: "a lost namespace (either one) costs no record; boot repairs every store from the other",
    run() {
      for (const ns of [DOMAIN, DOMAIN_B]) {
        const dev = device();
        const mem = new Memory();
        mem.boot();
        fillEveryStore(mem);
        mem.flush();
        const want = contents(mem);
        for (const k of Preference.keys(ns)) Preference.delete(ns, k);
        dev.reboot();
        const m2 = new Memory();
        const r = m2.boot();
        deepEqual(contents(m2), want);
        // petmem: the one-copy stores from the mirror, the others from petmem_b
        equal(r.repaired.length, ns === DOMAIN ? NAMES.length : TWO.length, `${ns}: every store repaired`);
        equal(Preference.keys(ns).length, ns === DOMAIN ? NAMES.length : TWO.length);
      }
    },
  },
  {
    name: "both NVS copies gone (a page dropped for its header CRC) or all of NVS wiped: the third copy restores every record",
    run() {
      for (const wipe of ["facts", "everything"] as const) {
        const dev = device();
        const mem = new Memory();
        mem.boot();
        fillEveryStore(mem);
        mem.flush();
        const want = contents(mem);
        if (wipe === "facts") {
          Preference.delete(DOMAIN, "fact.a0"); // one NVS copy (format 3)
          equal(Preference.keys(DOMAIN_B).filter((k) => k.startsWith("fact.")).length, 0);
        } else for (const ns of [DOMAIN, DOMAIN_B]) for (const k of Preference.keys(ns)) Preference.delete(ns, k);
        dev.reboot();
        const m2 = new Memory();
        const r = m2.boot();
        deepEqual(contents(m2), want, `${wipe}: every record`);
        deepEqual(r.lost, []);
        ok(r.repaired.includes("facts"), `${wipe}: facts repaired`);
        equal(Preference.keys(DOMAIN).length, NAMES.length, `${wipe}: the NVS copies written again`);
        equal(Preference.keys(DOMAIN_B).length, TWO.length);
        dev.reboot();
        const m3 = new Memory();
        deepEqual(m3.boot().setAside, []);
        deepEqual(contents(m3), want);
      }
      equal(dropMirror("fact"), 1, "one mirror file per store");
      // a torn mirror (same seq, short) is written again by the next boot
      const dev = device();
      const mem = new Memory();
      mem.boot();
      fillEveryStore(mem);
      mem.flush();
      const it = new Iterator(config.file.root);
      let name = "";
      for (let e = it.next(); e; e = it.next()) if (e.name.indexOf("pm_fact.") === 0) name = e.name;
      File.delete(config.file.root + name);
      const f = new File(config.file.root + name, true);
      f.write(new ArrayBuffer(100));
      f.close();
      dev.reboot();
      const m2 = new Memory();
      m2.boot();
      const g = new File(config.file.root + name);
      equal(g.length, 16 + 20 * 132, "rewritten whole");
      g.close();
    },
  },
  {
    name: "a device in format 1 (one copy, slot a or b in petmem) boots into two copies with nothing lost",
    run() {
      const dev = device();
      const mem = new Memory();
      mem.boot();
      fillEveryStore(mem);
      mem.flush();
      const want = contents(mem);
      // format 1: one copy in "petmem", under .a0 or .b0
      let i = 0;
      for (const k of Preference.keys(DOMAIN_B)) {
        const v = Preference.get(DOMAIN_B, k) as ArrayBuffer;
        Preference.delete(DOMAIN_B, k);
        if (i++ % 2) {
          Preference.delete(DOMAIN, k.replace(".b", ".a"));
          Preference.set(DOMAIN, k, v);
        }
      }
      equal(Preference.keys(DOMAIN_B).length, 0);
      dev.reboot();
      const m2 = new Memory();
      const r = m2.boot();
      deepEqual(contents(m2), want);
      equal(r.repaired.length, TWO.length, "every small store written in two copies (the large ones keep one)");
      deepEqual(r.lost, []);
      ok(Preference.keys(DOMAIN).every((k) => k.indexOf(".a") > 0), "no format-1 slot b left in petmem");
      equal(Preference.keys(DOMAIN_B).length, TWO.length);
      dev.reboot();
      const m3 = new Memory();
      // (host-sim's page model before nvsfmt can drop a blob that GC moved, at
      // reboot: the other copy serves it and boot repairs; nothing is lost)
      deepEqual(m3.boot().lost, []);
      deepEqual(contents(m3), want);
    },
  },
  {
    name: "a write neither NVS nor the mirror file can hold is answered 'not saved', changes neither RAM nor flash, and succeeds once there is room",
    run() {
      const dev = device();
      const svc = new Service({ sink: { remind() {} } });
      const call = tool(svc);
      equal(call({ action: "write", type: "name", content: "小王" }).json.result, "added");
      fillNvs();
      // NVS short of room: petmem first gives back its second copies (the
      // mirror file keeps a copy of each table) and the write goes through;
      // then the neighbourhood grows into that room too
      call({ action: "write", type: "fact", content: "主人喜欢下雨天" });
      fillNvs();
      // not even one NVS copy fits: the new table is saved in the mirror file alone
      equal(call({ action: "write", type: "fact", content: "主人会弹钢琴" }).json.result, "added");
      ok(String(call({ action: "status" }).json.last_write_error).includes("kept in the mirror file only"));
      // and the storage partition is full too: nothing can hold it
      dev.inject("full", { partition: "storage" });
      const held = svc.memory.facts().map((f) => f.content);
      ok(held.includes("主人会弹钢琴"));
      const before = call({ action: "read" }).text;
      const r = call({ action: "write", type: "fact", content: "主人在北京工作" });
      ok(r.isError, "an error");
      ok(r.text.startsWith("error: not saved: facts: NVS write failed"), r.text);
      ok(r.text.includes("nothing changed"), r.text);
      equal(call({ action: "read" }).text, before, "RAM as before");
      // nothing of it pending either (a store that gave back its second copy may still be due a rewrite: NVS room, src/memory/memory.ts)
      ok(!svc.memory.facts().some((f) => f.content === "主人在北京工作"), "not in RAM");
      dev.reboot();
      let svc2 = new Service({ sink: { remind() {} } });
      deepEqual(svc2.memory.facts().map((f) => f.content), held, "flash as before");
      equal(svc2.memory.profile().name, "小王");
      for (const k of Preference.keys("filler")) Preference.delete("filler", k);
      const again = tool(svc2)({ action: "write", type: "fact", content: "主人在北京工作" });
      equal(again.json.result, "added", "a retry succeeds");
      dev.reboot();
      svc2 = new Service({ sink: { remind() {} } });
      deepEqual(svc2.memory.facts().map((f) => f.content), [...held, "主人在北京工作"]);
    },
  },
  {
    name: "a write whose second copy fails is saved (one copy), said in status, and repaired at the next boot",
    run() {
      const dev = device();
      const svc = new Service({ sink: { remind() {} } });
      const call = tool(svc);
      const r = patched("set", (orig) => (d: unknown, k: unknown, v: unknown) => {
        if (d === DOMAIN && String(k).startsWith("pref.")) throw new Error("nvs set fail");
        return orig(d, k, v);
      }, () => call({ action: "write", type: "like", content: "画画" }));
      equal(r.json.result, "added", "the new table is on flash: saved");
      const st = call({ action: "status" }).json;
      equal(st.write_errors, 1);
      ok(String(st.last_write_error).includes("preferences"), st.last_write_error);
      dev.reboot();
      const svc2 = new Service({ sink: { remind() {} } });
      deepEqual(svc2.memory.preferences().likes, ["画画"]);
      deepEqual(svc2.boot.repaired, ["preferences"]);
      ok(svc2.bootLine().includes("repaired preferences"), svc2.bootLine());
    },
  },
  {
    name: "over-long text and a delete whose content does not match are refused through the tool; nothing changes",
    run() {
      const dev = device();
      const svc = new Service({ sink: { remind() {} } });
      const call = tool(svc);
      call({ action: "write", type: "name", content: "小王" });
      call({ action: "write", type: "age", content: "25" });
      const w = dev.flash.writes;
      const bad: [Record<string, unknown>, string][] = [
        [{ action: "write", type: "fact", content: "很".repeat(43) }, "fact is too long (129 bytes): at most 128 bytes, about 42 Chinese characters"],
        [{ action: "write", type: "like", content: "x".repeat(33) }, "like is too long (33 bytes): at most 32 bytes"],
        [{ action: "write", type: "schedule", content: "会".repeat(22), datetime: "2026-02-06 10:00" }, "content is too long (66 bytes): at most 64 bytes"],
        [{ action: "delete", type: "name", content: "小李" }, "name is 小王, not 小李: nothing deleted"],
        [{ action: "delete", type: "age", content: "30" }, "age is 25, not 30"],
      ];
      for (const [args, msg] of bad) {
        const r = call(args);
        ok(r.isError && r.text.includes(msg), `${JSON.stringify(args)}: ${r.text}`);
      }
      equal(dev.flash.writes, w, "nothing written");
      equal(call({ action: "delete", type: "name", content: "小王" }).json.result, "deleted", "the matching content deletes");
      equal(call({ action: "delete", type: "age" }).json.result, "deleted", "no content: the field goes");
    },
  },
  {
    name: "write only what changed: a tool call writes its own store; the chat log once, at the end of the conversation",
    run() {
      const dev = device();
      const svc = new Service({ sink: { remind() {} }, listen: { idleMs: 120000 } });
      svc.start();
      const call = tool(svc);
      const sets = countSets(() => {
        for (let i = 0; i < 6; i++) {
          svc.hear("user", `今天聊第${i}句`);
          dev.clock.advance(5000);
          svc.hear("assistant", `好的第${i}句`);
          dev.clock.advance(40000); // past the quiet period
          if (i === 2) {
            const s1 = countSets(() => call({ action: "write", type: "fact", content: "主人喜欢下雨天" }));
            deepEqual(s1, { fact: 1 }, "the fact store, one NVS copy (format 3), nothing else");
          }
        }
        dev.clock.advance(130000); // the conversation ends when idle
      });
      equal(sets.chat, 1, "the chat log: one write (one NVS copy) for the whole conversation");
      equal(svc.memory.chat().length, 12);
      dev.reboot();
      equal(new Service({ sink: { remind() {} } }).memory.chat().length, 12, "and it is on flash");
    },
  },
  {
    name: "status: NVS and archive use, records per type, boot count, last repair",
    run() {
      const dev = device();
      const archive = new Archive();
      archive.check();
      let svc = new Service({ sink: { remind() {} }, archive });
      let call = tool(svc);
      call({ action: "write", type: "fact", content: "事实一" });
      call({ action: "write", type: "like", content: "篮球" });
      let s = call({ action: "status" }).json;
      equal(s.boots, 1);
      equal(s.records.facts, 1);
      equal(s.records.preferences, 1);
      equal(s.records.health, undefined);
      ok(s.nvs.used_bytes > 0 && s.nvs.percent > 0 && s.nvs.percent < 5, JSON.stringify(s.nvs));
      equal(s.nvs.usable_bytes, 44352);
      equal(s.last_repair, "none");
      deepEqual(s.archive.records, { fact: 0, moment: 0, event: 0 });
      ok(s.archive.budget_bytes > 0);
      const b = new Uint8Array(Preference.get(DOMAIN, "fact.a0") as ArrayBuffer); // the one NVS copy: the mirror serves
      b[b.length - 1] ^= 1;
      Preference.set(DOMAIN, "fact.a0", b.buffer);
      dev.reboot();
      svc = new Service({ sink: { remind() {} }, archive: new Archive() });
      call = tool(svc);
      s = call({ action: "status" }).json;
      equal(s.boots, 2);
      equal(s.last_repair.store, "facts");
      equal(s.last_repair.problem, "crc");
      equal(s.last_repair.at, "2026-02-05 13:00");
      deepEqual(s.this_boot, { repaired: ["facts"], set_aside: ["petmem/fact.a0 (crc)"], lost: [] });
      // every store full: what nvs-usage measures, within a few entries
      fillEveryStore(svc.memory);
      svc.memory.flush();
      s = call({ action: "status" }).json;
      const real = dev.nvs.stats().liveBytes;
      ok(Math.abs(s.nvs.used_bytes - real) <= 64, `status ${s.nvs.used_bytes} vs NVS ${real}`);
    },
  },
  {
    name: "read says once, in one sentence, that memories were lost to damage",
    run() {
      const dev = device();
      let svc = new Service({ sink: { remind() {} } });
      tool(svc)({ action: "write", type: "fact", content: "事实一" });
      Preference.set(DOMAIN, "fact.a0", "x");
      Preference.set(DOMAIN_B, "fact.b0", "y"); // an orphan now (facts keep one NVS copy)
      dropMirror("fact");
      dev.reboot();
      svc = new Service({ sink: { remind() {} } });
      deepEqual(svc.boot.lost, ["facts"]);
      ok(svc.bootLine().includes("LOST facts"), svc.bootLine());
      const call = tool(svc);
      const r = call({ action: "read" }).json;
      equal(r.notice, "Some memories (facts) were damaged on this device's flash and are lost; please tell the owner.");
      equal(call({ action: "read" }).json.notice, undefined, "once");
      dev.reboot();
      svc = new Service({ sink: { remind() {} } });
      equal(tool(svc)({ action: "read" }).json.notice, undefined, "not again after a reboot");
    },
  },
  {
    name: "boot never fails on the archive: a constructor or check that throws, a resolve that throws; NVS memory is served",
    run() {
      const dev = device();
      let svc = new Service({ sink: { remind() {} } });
      tool(svc)({ action: "write", type: "like", content: "画画" });
      tool(svc)({ action: "write", type: "fact", content: "主人在北京工作" }); // resolveAtBoot asks the archive about it
      svc.stop();
      const failing: [string, () => Archive][] = [
        ["constructor", () => { throw new Error("file not found"); }],
        ["check", () => ({ check() { throw new Error("read past end of file"); } }) as unknown as Archive],
        [
          "resolve",
          () => {
            const a = new Archive();
            (a as unknown as { contains: () => never }).contains = () => {
              throw new Error("spiffs read failed");
            };
            return a;
          },
        ],
      ];
      for (const [what, make] of failing) {
        dev.reboot();
        const b = bootDevice(make, { sink: { remind() {} } });
        ok(b.line.includes(what === "resolve" ? "archive set aside" : "archive unavailable"), `${what}: ${b.line}`);
        equal(JSON.parse(b.service.tool.call({ action: "read" })).preferences.likes[0], "画画", `${what}: served`);
        equal(JSON.parse(b.service.tool.call({ action: "write", type: "like", content: "跑步" + what })).result, "added");
        b.maintenance?.stop();
        b.service.stop();
      }
      dev.reboot();
      const ok1 = bootDevice(undefined, { sink: { remind() {} } });
      ok(/^boot \d+; nvs ok; archive 0 segments/.test(ok1.line), ok1.line);
      ok1.maintenance?.stop();
      ok1.service.stop();
      svc = new Service({ sink: { remind() {} } });
      equal(svc.memory.preferences().likes.length, 4);
    },
  },
  {
    name: "boot never fails on a full NVS: the repairs and the archive's settling wait, the memory is served",
    run() {
      const dev = device();
      const archive = new Archive();
      archive.check();
      const svc = new Service({ sink: { remind() {} }, archive });
      tool(svc)({ action: "write", type: "fact", content: "主人在北京工作" });
      archive.append("fact", svc.memory.facts()); // as if a move had been cut after the archive's write
      svc.stop();
      dev.reboot();
      // NVS refuses every write (full, as the fault "full" leaves it)
      const b = patched("set", () => () => {
        throw new Error("nvs set fail");
      }, () => bootDevice(undefined, { sink: { remind() {} } }));
      ok(b.line.startsWith("boot ") && b.line.includes("archive 1 segments"), b.line);
      ok(b.service.memory.overflow !== undefined, "the archive stays in service");
      equal(b.service.memory.facts().length, 0, "settled in RAM: the archive holds it");
      ok(b.service.memory.health.writeErrors >= 1, "the refused writes are counted");
      const r = JSON.parse(b.service.tool.call({ action: "recall", type: "fact" }));
      equal(r.items.length, 1, "in the archive");
      b.maintenance?.stop();
    },
  },
  {
    name: "a power cut anywhere in a boot that repairs: the next boot still serves every record and finishes the repair",
    run() {
      const prepare = () => {
        const dev = device();
        const mem = new Memory();
        mem.boot();
        fillEveryStore(mem);
        mem.flush();
        const b = new Uint8Array(Preference.get(DOMAIN, "fact.a0") as ArrayBuffer);
        b[HEADER_BYTES + 5] ^= 0x80;
        Preference.set(DOMAIN, "fact.a0", b.buffer);
        Preference.delete(DOMAIN_B, "chat.b0");
        return { dev, want: contents(mem) };
      };
      let cuts = 0;
      for (let n = 1; ; n++) {
        const { dev, want } = prepare();
        dev.reboot();
        dev.cutAfter(n);
        const cut = SimDevice.survive(() => new Memory().boot());
        dev.flash.disarm();
        dev.reboot();
        const m2 = new Memory();
        const r = m2.boot();
        deepEqual(contents(m2), want, `cut at write ${n}: every record`);
        deepEqual(r.lost, []);
        if (!cut) break;
        cuts++;
        dev.reboot();
        const m3 = new Memory();
        deepEqual(m3.boot().lost, [], `cut at write ${n}: nothing lost by the boot after`);
        deepEqual(contents(m3), want);
      }
      ok(cuts >= 6, `the sweep cut the repair writes (${cuts})`);
    },
  },
];

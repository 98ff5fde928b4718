// The archive under every SPIFFS fault (issue 11, item 6): boot never fails
// and never takes a file it cannot read for an empty one; a failed rename or
// delete in recovery leaves the files for the next boot; reads that fail are
// a clear error or a retry, never a partial answer; an append never writes
// over a file it could not read; a flipped bit is reported, never served as a
// whole record; a full file system leaves records in NVS.
import { File } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import { Archiver } from "../../src/archive/archiver";
import { Memory } from "../../src/memory/memory";
import { Service } from "../../src/app/service";
import { foldString, sigProbe, SIG_BYTES } from "../../src/archive/fold";
import { IDX_HEADER, ENTRY_BYTES, SIG_HEADER } from "../../src/archive/sidecar";
import type { Fact, Moment } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { encode } from "../../src/text/utf8";
import { fresh, fillFacts } from "./archive.scn";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const sec = (ms: number) => Math.floor(ms / 1000);

function contents(a: Archive, type = "fact"): string[] {
  const out: string[] = [];
  a.forEach(type, (x) => out.push(x.content));
  return out;
}

function moment(i: number, more: Partial<Moment> = {}): Moment {
  return { timestamp: sec(fromLocal(2024, 3, 1, 8, 0)) + i * 3600, topic: "日常", content: `第${i}个时刻：和主人一起看书`, emotion: "happy", intensity: 3, importance: 4, ...more };
}

// The seed that makes spiffs_not_finalized pick `name` (it picks in name order).
function seedOf(dev: SimDevice, name: string): number {
  const names = dev.spiffs
    .list()
    .map((e) => e.name)
    .sort();
  const i = names.indexOf(name);
  ok(i >= 0, `${name} exists`);
  return i;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Flips bit `bit` of byte `at` of a file at rest (no flash traffic).
function flip(dev: SimDevice, name: string, at: number, bit: number): void {
  const b = dev.spiffs.content(name);
  b[at] ^= 1 << bit;
  dev.spiffs.load(name, b);
}

// The offset in a file of the first occurrence of `text` (UTF-8) at or after `from`.
function offsetOf(dev: SimDevice, name: string, text: string, from = 0): number {
  const hay = dev.spiffs.content(name), needle = encode(text);
  for (let i = from; i + needle.length <= hay.length; i++) {
    let k = 0;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

// Fills the storage partition with another file until a write fails.
function fillUp(): void {
  const f = new File(root + "other.bin", true);
  try {
    for (;;) {
      f.position = f.length;
      f.write(new Uint8Array(1024).buffer);
    }
  } catch {
    // full
  } finally {
    f.close();
  }
  // and the last page, a byte at a time
  const g = new File(root + "other.bin", true);
  try {
    for (;;) {
      g.position = g.length;
      g.write("x");
    }
  } catch {
    // full to the byte
  } finally {
    g.close();
  }
}

export const scenarios: Scenario[] = [
  {
    name: "a .jsonl that cannot be opened at boot is set aside, never taken as empty: its index stays, the next use reads it again",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 200);
      a.append("moment", [moment(1)]);
      const before = dev.spiffs.content("/facts.jsonl");
      const idx = dev.spiffs.content("/facts.idx");
      dev.reboot();
      dev.inject("spiffs_read_error", { at: 1 }); // the boot's first open: facts.jsonl
      a = new Archive(root);
      const r = a.check();
      ok(r.fact.unreadable !== undefined && r.fact.unreadable.indexOf("file not found") >= 0, `set aside: ${r.fact.unreadable}`);
      equal(r.moment.records, 1, "the other files are served");
      equal(r.moment.unreadable, undefined);
      ok(same(dev.spiffs.content("/facts.jsonl"), before), "nothing written over the file");
      ok(same(dev.spiffs.content("/facts.idx"), idx), "its index kept");
      // the fault was transient: the next use loads the file again
      equal(a.recallRecent("fact", 3)[0].content, facts[199].content);
      a.append("fact", [{ timestamp: facts[199].timestamp + 60, content: "启动之后的新事实" }]);
      equal(a.count("fact"), 201);
      equal(a.report().fact.unreadable, undefined);
      dev.reboot();
      a = new Archive(root);
      equal(a.check().fact.records, 201);
      const all = contents(a);
      equal(all[0], facts[0].content, "the start of the file is whole");
      equal(all[200], "启动之后的新事实");
    },
  },
  {
    name: "a read error anywhere in the boot's check rewrites nothing: the index is read again, the data file set aside and read again at its next use",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillFacts(a, 200);
      const files = dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name) }));
      let fired = 0;
      for (let at = 1; at <= 30; at++) {
        const d = fresh();
        for (const f of files) d.spiffs.load(f.name, f.bytes.slice());
        d.inject("spiffs_read_error", { at });
        a = new Archive(root);
        const r = a.check();
        if (d.spiffs.isArmed("spiffs_read_error")) break;
        fired++;
        equal(r.fact.rebuilt, undefined, `a read error at operation ${at} rebuilt nothing`);
        for (const f of files) ok(same(d.spiffs.content(f.name), f.bytes), `${f.name} unchanged (read error at ${at})`);
        equal(a.count("fact"), 200, `every record known again (read error at ${at})`);
      }
      ok(fired >= 4, `the check's reads were covered (${fired})`);
      void dev;
    },
  },
  {
    name: "a file left not finalized is set aside: recall and append refuse clearly, the rest is served, nothing is deleted, NVS keeps its facts",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillFacts(a, 50);
      a.append("moment", [moment(1), moment(2)]);
      const len = dev.spiffs.content("/facts.jsonl").length;
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/facts.jsonl") });
      a = new Archive(root);
      const r = a.check();
      ok(r.fact.unreadable !== undefined, "reported");
      equal(a.recallRecent("moment").length, 2);
      throws(() => a.recall("fact", { keyword: "学校" }), { name: "ArchiveError", message: "cannot be read now" });
      throws(() => a.append("fact", [{ timestamp: 1704067200, content: "一条" }]), { name: "ArchiveError", message: "cannot be read now" });
      ok(dev.spiffs.exists("/facts.jsonl") && dev.spiffs.length("/facts.jsonl") === len, "the file is kept as it was");
      // the memory: boot resolves what it can, a full facts store refuses the
      // next fact clearly and keeps its 20
      const mem = new Memory();
      const archiver = new Archiver(mem, a);
      const now = sec(fromLocal(2026, 2, 5, 13, 0));
      for (let i = 0; i < 20; i++) mem.addFact(`记住的第${i}件事`, now + i);
      mem.flush();
      const res = archiver.resolveAtBoot();
      ok(res.errors !== undefined && res.errors[0].indexOf("fact") === 0, `the fact archive is named: ${JSON.stringify(res.errors)}`);
      archiver.attach();
      throws(() => mem.addFact("第二十一件事", now + 100), { name: "ArchiveError", message: "facts are full" });
      equal(mem.facts().length, 20, "no fact was lost");
      equal(mem.facts()[0].content, "记住的第0件事");
    },
  },
  {
    name: "check() never throws when recovery cannot rename: the committed compaction waits for the next boot, no record lost",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 60);
      a.append("moment", [moment(1)]);
      // a compaction committed, cut before `.done` became the data file
      ok(File.rename(root + "facts.jsonl", "facts.done"));
      dev.reboot();
      dev.inject("rename_false", { at: 1 });
      a = new Archive(root);
      const r = a.check();
      ok(r.fact.unreadable !== undefined && r.fact.unreadable.indexOf("recovery") === 0, `set aside: ${r.fact.unreadable}`);
      equal(r.moment.records, 1);
      ok(dev.spiffs.exists("/facts.done"), "the committed copy is where it was");
      // the next use finishes the recovery
      equal(a.count("fact"), 60);
      deepEqual(a.report().fact.recovered, ["finished a compaction"]);
      dev.reboot();
      a = new Archive(root);
      a.check();
      deepEqual(contents(a), facts.map((f) => f.content));
    },
  },
  {
    name: "check() never throws when recovery cannot delete: the unfinished compaction is discarded at the next boot, the data untouched",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 60);
      const data = dev.spiffs.content("/facts.jsonl");
      for (const n of ["facts.new", "facts.nix"]) {
        const f = new File(root + n, true);
        f.write("half a compaction");
        f.close();
      }
      dev.reboot();
      dev.inject("delete_false", { at: 1 });
      a = new Archive(root);
      const r = a.check();
      ok(r.fact.unreadable !== undefined, "set aside while `.new` cannot be removed");
      ok(dev.spiffs.exists("/facts.new"));
      dev.reboot();
      a = new Archive(root);
      deepEqual(a.check().fact.recovered, ["discarded an unfinished compaction"]);
      ok(same(dev.spiffs.content("/facts.jsonl"), data));
      deepEqual(contents(a), facts.map((f) => f.content));
    },
  },
  {
    name: "a read that fails during recall is tried again once; one that keeps failing is a clear error, never a partial answer",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const facts = fillFacts(a, 200);
      a.check();
      const want = a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000).map((x) => x.id);
      equal(want.length, 200);
      for (let at = 1; at <= 12; at++) {
        dev.inject("spiffs_read_error", { at });
        const got = a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000).map((x) => x.id);
        deepEqual(got, want, `a read error at operation ${at}`);
      }
      // not finalized while running: every open fails
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/facts.jsonl") });
      throws(() => a.recallByKeyword("fact", "学校"), { name: "ArchiveError", message: "cannot" });
      throws(() => a.recallRecent("fact"), { name: "ArchiveError" });
      equal(facts.length, 200);
    },
  },
  {
    name: "an index entry damaged while running: the index is rebuilt and the query answered in full",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      fillFacts(a, 200);
      a.check();
      const want = a.recallByTimeRange("fact", undefined, undefined, 1000).length;
      flip(dev, "/facts.idx", IDX_HEADER + 2 * ENTRY_BYTES + 13, 3); // entry 2's min key
      equal(a.recallByTimeRange("fact", undefined, undefined, 1000).length, want);
      ok((a.report().fact.rebuilt ?? "").indexOf("entry 2 crc") === 0, `rebuilt: ${a.report().fact.rebuilt}`);
    },
  },
  {
    name: "whatever read fails during an append, no archived record is lost; only the device's wb+ window can empty the file, and it is reported",
    run() {
      // the archive once, then replayed from its bytes
      let dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 60);
      const files = dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name) }));
      let windows = 0, refused = 0, fired = 0;
      for (let at = 1; at <= 80; at++) {
        dev = fresh();
        for (const f of files) dev.spiffs.load(f.name, f.bytes.slice());
        a = new Archive(root);
        a.check();
        dev.inject("spiffs_read_error", { at });
        try {
          a.append("fact", [{ timestamp: facts[59].timestamp + 3600, content: "追加的一条" }]);
        } catch (e) {
          ok(e instanceof ArchiveError, `a clear error at ${at}: ${String(e)}`);
          refused++;
        }
        if (dev.spiffs.isArmed("spiffs_read_error")) break;
        fired++;
        const emptied = a.report().fact.emptied ?? 0;
        dev.reboot();
        a = new Archive(root);
        a.check();
        const got = contents(a);
        if (emptied > 0) {
          // the write open's fopen("rb+") failed and fopen("wb+") emptied the file: the device's, not avoidable here
          windows++;
          equal(emptied, files.filter((f) => f.name === "/facts.jsonl")[0].bytes.length, "the whole file, and it is said");
          continue;
        }
        for (let i = 0; i < 60; i++) equal(got[i], facts[i].content, `a read error at operation ${at}: record ${i}`);
      }
      ok(fired >= 6, `the sweep covered the append (${fired} operations)`);
      equal(windows, 1, "one operation of an append can empty the file: the write open itself");
      ok(refused <= 1, "a failed read is tried again once");
    },
  },
  {
    name: "a bit flipped in the index at rest: check() rebuilds it and nothing is hidden",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillFacts(a, 200);
      dev.reboot();
      flip(dev, "/facts.idx", IDX_HEADER + 3 * ENTRY_BYTES + 17, 6); // entry 3's max key
      a = new Archive(root);
      const r = a.check();
      ok((r.fact.rebuilt ?? "").indexOf("entry 3 crc") === 0, `rebuilt: ${r.fact.rebuilt}`);
      equal(a.recallByTimeRange("fact", undefined, undefined, 1000).length, 200);
      equal(a.recallByKeyword("fact", "第17条", 5).length, 1);
    },
  },
  {
    name: "a bit cleared in a signature: the signature fails its check and its block is read anyway (never hidden)",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillFacts(a, 200);
      a.append("fact", [{ timestamp: sec(fromLocal(2024, 1, 1, 9, 30)), content: "主人的小狗叫豆豆" }]); // in the tail
      dev.reboot();
      a = new Archive(root);
      a.check();
      // the record 第3条 is in block 0: clear one bit of its keyword in block 0's signature
      const probe = sigProbe(foldString("第3条"));
      const bit = probe[0];
      const sig = dev.spiffs.content("/facts.sig");
      ok((sig[SIG_HEADER + (bit >> 3)] & (1 << (bit & 7))) !== 0, "the bit is set before");
      flip(dev, "/facts.sig", SIG_HEADER + (bit >> 3), bit & 7);
      const got = a.recallByKeyword("fact", "第3条", 5);
      equal(got.length, 1, "found through a damaged signature");
      equal(a.lastRecall.damagedSigs, 1);
      ok(SIG_BYTES > 0);
    },
  },
  {
    name: "a bit flipped in a line at rest is never served as a whole record: its id no longer matches (tail), or its block's CRC fails (indexed)",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 200);
      const ms = [moment(1), moment(2), moment(3)];
      a.append("moment", ms);
      dev.reboot();
      // a content character of the last fact (the tail): the line still parses
      const lastAt = offsetOf(dev, "/facts.jsonl", "第199条");
      ok(lastAt > 0);
      flip(dev, "/facts.jsonl", lastAt + 3, 0); // a digit: 第199条 → 第189条 or similar
      // a content character of fact 5 (block 0)
      flip(dev, "/facts.jsonl", offsetOf(dev, "/facts.jsonl", "第5条") + 3, 0);
      // a moment's importance digit: not in its id
      const imp = offsetOf(dev, "/moments.jsonl", '"importance":4', offsetOf(dev, "/moments.jsonl", "第2个时刻"));
      flip(dev, "/moments.jsonl", imp + 13, 1); // 4 → 6
      a = new Archive(root);
      const r = a.check();
      const recent = a.recallRecent("fact", 3);
      equal(recent[0].content, facts[198].content, "the damaged last line is not served");
      equal(a.lastRecall.damaged, 1, "it is counted as damaged");
      const all = a.recallByTimeRange("fact", undefined, undefined, 1000);
      equal(all.length, 198, "the two damaged facts are not served");
      const marked = all.filter((x) => x.damaged === true);
      ok(marked.length > 1 && marked.every((x) => facts.findIndex((f) => f.content === x.content) < 40), "the rest of block 0 is served marked damaged (its CRC fails)");
      equal(a.lastRecall.damaged, 2, "both damaged lines are counted");
      ok(r.fact.bad >= 1, "the check counts the tail's damaged line as bad");
      // the moments file is small (no index): a digit that is not in the id
      // goes unseen there; documented (FORMAT.md §3.2), issue 12's per-segment CRC covers it
      equal(a.recallRecent("moment").length, 3);
    },
  },
  {
    name: "a bit flipped in an indexed block: check() keeps the index (no rebuild blesses it) and recall marks the block's records damaged",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const ms: Moment[] = [];
      for (let i = 0; i < 60; i++) ms.push(moment(i));
      for (let i = 0; i < 60; i += 5) a.append("moment", ms.slice(i, i + 5));
      ok(a.report().moment.blocks >= 2);
      dev.reboot();
      // an importance digit of moment 3 (block 0, the first indexed block)
      const at = offsetOf(dev, "/moments.jsonl", '"importance":4', offsetOf(dev, "/moments.jsonl", "第3个时刻"));
      flip(dev, "/moments.jsonl", at + 13, 1);
      a = new Archive(root);
      const r = a.check();
      equal(r.moment.rebuilt, undefined, "the index is kept");
      equal(r.moment.damaged, 1, "the damaged block is reported");
      const got = a.recallByTimeRange("moment", undefined, undefined, 100);
      equal(got.length, 60, "nothing hidden");
      const bad = got.filter((x) => x.damaged === true);
      ok(bad.length > 1 && bad.some((x) => x.content === ms[3].content), "block 0's records are marked damaged");
      equal(a.lastRecall.damagedBlocks, 1);
      equal(got.filter((x) => x.content === ms[40].content)[0].damaged, undefined, "other blocks are whole");
    },
  },
  {
    name: "a full file system at boot: the index cannot be written, check() does not throw, every record is served by scanning",
    run() {
      const dev = fresh(256 * 1024);
      let a = new Archive(root, { budget: 96 * 1024 });
      const facts = fillFacts(a, 150);
      ok(File.delete(root + "facts.idx") && File.delete(root + "facts.sig"));
      fillUp();
      dev.reboot();
      a = new Archive(root, { budget: 96 * 1024 });
      const r = a.check();
      ok(r.fact.index !== undefined, `the index could not be written: ${JSON.stringify(r.fact)}`);
      equal(r.fact.records, 150);
      equal(a.recallByTimeRange("fact", undefined, undefined, 1000).length, 150);
      equal(a.recallByKeyword("fact", "第77条").length, 1);
      equal(a.recallRecent("fact", 1)[0].content, facts[149].content);
    },
  },
  {
    name: "a full archive leaves moves in NVS: the daily move reports it and NVS keeps every record; a full facts store refuses clearly",
    run() {
      const T0 = fromLocal(2026, 2, 5, 13, 0);
      const dev = new SimDevice({ now: T0, storageBytes: 128 * 1024 }).install();
      const mem = new Memory();
      const a = new Archive(root, { budget: 40 * 1024 });
      a.check();
      const archiver = new Archiver(mem, a);
      archiver.resolveAtBoot();
      archiver.attach();
      const now = sec(T0);
      for (let i = 0; i < 20; i++) mem.addFact(`很久以前的第${i}件事`, now - 40 * 86400 + i);
      mem.flush();
      fillUp();
      const r = archiver.maintenance(T0 + 3600000);
      ok(r.errors !== undefined && r.errors.length >= 1 && r.errors[0].indexOf("fact") === 0, `reported: ${JSON.stringify(r.errors)}`);
      equal(r.fact, 0);
      equal(mem.facts().length, 20, "the facts stayed in NVS");
      throws(() => mem.addFact("新的一件事", now + 5), { name: "ArchiveError", message: "facts are full" });
      equal(mem.facts().length, 20);
      equal(mem.dirty, false, "nothing half changed");
      dev.reboot();
      const again = new Memory();
      equal(again.facts().length, 20);
    },
  },
  {
    name: "the memory tool with a fact archive set aside: read and writes work, recall and search answer from the rest marked partial, saying why",
    run() {
      const T0 = fromLocal(2026, 2, 5, 13, 0);
      const dev = new SimDevice({ now: T0 }).install();
      let a = new Archive(root);
      fillFacts(a, 30);
      a.append("moment", [moment(1, { content: "和主人在学校门口看雪" })]);
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/facts.jsonl") });
      a = new Archive(root);
      a.check();
      const svc = new Service({ sink: { remind() {} }, archive: a });
      let id = 0;
      const call = (args: Record<string, unknown>) => {
        const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!);
        return { isError: r.result.isError as boolean, text: r.result.content[0].text as string };
      };
      ok(!call({ action: "write", type: "fact", content: "主人在学校当老师" }).isError, "NVS takes the write");
      ok(!call({ action: "read" }).isError, "read is served");
      const recall = call({ action: "recall", type: "fact", keyword: "学校" });
      // recall sees NVS too (issue 12 item 6): its record is answered, marked partial with the reason
      ok(!recall.isError, recall.text);
      const rj = JSON.parse(recall.text);
      equal(rj.partial, true);
      ok(rj.archive_unreadable.indexOf("cannot be read now") >= 0, `says why: ${recall.text}`);
      deepEqual(rj.items.map((x: { content: string }) => x.content), ["主人在学校当老师"], "the NVS fact is found");
      const search = call({ action: "search", keyword: "学校" });
      ok(!search.isError, search.text);
      const j = JSON.parse(search.text);
      equal(j.partial, true);
      ok(typeof j.archive_unreadable.fact === "string");
      equal(j.items[0].text, "主人在学校当老师", "NVS is searched");
      equal(j.archived.moment.length, 1, "the readable archive files are searched");
    },
  },
];

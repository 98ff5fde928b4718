// Compaction near the budget, its recovery at boot from every intermediate
// state, and a genuinely full file system.
import { File } from "file";
import config from "mc/config";
import { SimDevice, PowerCut } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import { Memory } from "../../src/memory/memory";
import { Archiver } from "../../src/archive/archiver";
import type { Fact } from "../../src/memory/types";
import { fresh, fillFacts } from "./archive.scn";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;

function contents(a: Archive, type = "fact"): string[] {
  const out: string[] = [];
  a.forEach(type, (x) => out.push(x.content));
  return out;
}

function names(dev: SimDevice): string[] {
  return dev.spiffs
    .list()
    .map((e) => e.name)
    .sort();
}

export const scenarios: Scenario[] = [
  {
    name: "near the budget the oldest blocks go: counted, the newest kept, the index still matches",
    run() {
      const dev = fresh();
      const budget = 48 * 1024;
      const a = new Archive(root, { budget });
      const facts: Fact[] = [];
      let compactions = 0;
      for (let n = 0; n < 600; n++) {
        facts.push({ timestamp: 1704067200 + n * 600, content: `第${n}条：一条用来填满归档的比较长的记录，说的是主人每天做的事` });
        if (facts.length % 5 === 0) {
          const r = a.append("fact", facts.slice(-5));
          if (r.compacted) compactions++;
          ok(a.footprint() <= budget, `footprint ${a.footprint()} over the budget`);
        }
      }
      ok(compactions >= 2, `compactions ${compactions}`);
      const r = a.report();
      ok(r.fact.dropped > 0);
      equal(r.fact.records + r.fact.dropped, facts.length, "every record is kept or counted as dropped");
      // what is kept is the newest run, in order
      deepEqual(contents(a), facts.slice(r.fact.dropped).map((f) => f.content));
      equal(a.recallRecent("fact", 1)[0].content, facts[facts.length - 1].content);
      equal(a.lastCompaction!.files[0].type, "fact");
      dev.reboot();
      const b = new Archive(root, { budget });
      const r2 = b.check();
      equal(r2.fact.rebuilt, undefined, "the compacted index matches the compacted file");
      equal(r2.fact.dropped, r.fact.dropped, "the dropped count survives a reboot");
      equal(r2.fact.records, r.fact.records);
      equal(b.recallByKeyword("fact", `第${facts.length - 3}条`).length, 1);
      deepEqual(names(dev), ["/facts.idx", "/facts.jsonl", "/facts.sig"]);
    },
  },
  {
    name: "a compaction cut at any write recovers at boot: the old set or the new, a working index, no leftovers",
    run() {
      const build = () => {
        const dev = fresh();
        const a = new Archive(root, { budget: 1 << 20 });
        fillFacts(a, 150);
        a.append("moment", [{ timestamp: 1704067200, topic: "t", content: "一个时刻", emotion: "happy", intensity: 3, importance: 3 }]);
        return { dev, a };
      };
      const { dev: d0, a: a0 } = build();
      const before = contents(a0);
      const w0 = d0.flash.writes;
      const rep = a0.compact(a0.footprint() - 9000);
      const writes = d0.flash.writes - w0;
      const after = contents(a0);
      ok(rep.dropped > 0 && after.length === before.length - rep.dropped);
      ok(writes > 12, `a compaction of ${writes} writes`);
      const seen: Record<string, number> = {};
      for (let n = 1; n <= writes; n++) {
        const { dev, a } = build();
        dev.cutAfter(n);
        let cut = false;
        try {
          a.compact(a.footprint() - 9000);
        } catch (e) {
          if (!(e instanceof PowerCut)) throw e;
          cut = true;
        }
        ok(cut, `write ${n} reached`);
        dev.reboot();
        const b = new Archive(root, { budget: 1 << 20 });
        const r = b.check();
        for (const x of r.fact.recovered ?? []) seen[x] = (seen[x] ?? 0) + 1;
        const got = contents(b);
        const isOld = got.length === before.length && got.every((c, i) => c === before[i]);
        const isNew = got.length === after.length && got.every((c, i) => c === after[i]);
        ok(isOld || isNew, `cut at write ${n}: ${got.length} records`);
        equal(r.fact.records, got.length, `cut at write ${n}: counts`);
        equal(r.fact.dropped, isNew ? rep.dropped : 0, `cut at write ${n}: dropped count`);
        equal(b.recallByKeyword("fact", "第149条").length, 1);
        equal(b.recallByTimeRange("fact", "2024-01-06", "2024-01-06", 50).length, 24, "2024-01-06 is never dropped");
        equal(b.count("moment"), 1, "other files untouched");
        deepEqual(names(dev), ["/facts.idx", "/facts.jsonl", "/facts.sig", "/moments.jsonl"], `cut at write ${n}: files`);
        // and the next compaction works
        b.compact(b.footprint() - 9000);
        ok(b.recallRecent("fact", 1).length === 1);
      }
      ok(seen["discarded an unfinished compaction"] > 0, "cuts before the commit");
      ok(seen["finished a compaction"] > 0, "cuts after the commit");
      ok(seen["installed the compacted index"] > 0, "cuts while the index is swapped");
    },
  },
  {
    name: "boot recovery rules, state by state: .new discarded, .done finished over a shortened old file, .nix installed",
    run() {
      const dev = fresh();
      let a = new Archive();
      fillFacts(a, 60);
      const all = contents(a);
      const put = (name: string, text: string) => {
        const f = new File(root + name, true);
        f.write(text);
        f.close();
      };
      // an unfinished copy: discarded, the old file stays
      put("facts.new", '{"timestamp":"2024-01-02');
      put("facts.nix", "half an index");
      dev.reboot();
      a = new Archive();
      let r = a.check();
      deepEqual(r.fact.recovered, ["discarded an unfinished compaction"]);
      deepEqual(contents(a), all);
      ok(!File.exists(root + "facts.nix") && !File.exists(root + "facts.new"));
      // a finished copy and an old file cut short by its delete: the copy wins
      const keep = all.slice(30);
      const f = new File(root + "facts.jsonl");
      const text = f.read(String) as string;
      f.close();
      const lines = text.split("\n");
      put("facts.done", lines.slice(30).join("\n"));
      File.delete(root + "facts.jsonl");
      put("facts.jsonl", text.slice(0, 100));
      dev.reboot();
      a = new Archive();
      r = a.check();
      deepEqual(r.fact.recovered, ["finished a compaction"]);
      ok(r.fact.rebuilt !== undefined, "the old index does not match: rebuilt");
      deepEqual(contents(a), keep);
      deepEqual(names(dev), ["/facts.idx", "/facts.jsonl", "/facts.sig"]);
    },
  },
  {
    name: "a genuinely full file system is a clear error: nothing is lost and memory keeps its records",
    run() {
      const dev = fresh(96 * 1024);
      // someone else's file takes most of the space
      const other = new File(root + "other.bin", true);
      other.write(new Uint8Array(50 * 1024).buffer);
      other.close();
      const a = new Archive(root, { budget: 64 * 1024 });
      const mem = new Memory();
      new Archiver(mem, a).attach();
      let err: unknown;
      let i = 0;
      try {
        for (; i < 2000; i++) mem.addFact(`第${i}条：一条很长很长的事实，用来把文件系统填满，看看会发生什么事情`, 1704067200 + i * 60);
      } catch (e) {
        err = e;
      }
      ok(err instanceof ArchiveError, `got ${String(err)}`);
      equal((err as ArchiveError).code, "full");
      ok((err as Error).message.indexOf("full") >= 0);
      equal(mem.facts().length, 20, "the memory did not lose the records it could not archive");
      const archived = a.count("fact");
      equal(archived + a.report().fact.dropped + mem.facts().length, i, "every fact is in NVS, in the archive, or counted as dropped");
      throws(() => mem.addFact("再来一条", 1704067200 + 999999), { name: "ArchiveError" });
      ok(dev.spiffs.stats().used <= dev.spiffs.stats().usable);
    },
  },
];

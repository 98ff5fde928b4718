// The open segment's twin (docs/FORMAT.md §3.6, §3.11): whichever of the two
// files a power cut or SPIFFS leaves unreadable, every acknowledged line is
// still in the other; a missing or unreadable twin is copied again by steps;
// a cut anywhere in an append loses nothing acknowledged and, once the move is
// repeated, duplicates nothing.
import { File } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { tearNone } from "../../host-sim/flash";
import { ALL_TEAR_MODES } from "../../host-sim/spiffs";
import { Archive } from "../../src/archive/archive";
import type { Fact } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { fresh, fillFacts, image, moment, sec } from "./archive.scn";
import { fillLong, segName, segments } from "./archive-segments.scn";
import { contents, seedOf } from "./archive-faults.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;

function twinLevel(dev: SimDevice, seq = 1): boolean {
  const a = dev.spiffs.content(segName("f", seq)), b = dev.spiffs.exists(segName("f", seq, "par")) ? dev.spiffs.content(segName("f", seq, "par")) : undefined;
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const batchOf = (k: number): Fact[] => {
  const t0 = sec(fromLocal(2025, 6, 1, 8, 0));
  const out: Fact[] = [];
  for (let i = 0; i < 5; i++) out.push({ timestamp: t0 + k * 600 + i, content: `第${k}批的第${i}条：主人今天和朋友去图书馆看书，看了很久才回家` });
  return out;
};

export const scenarios: Scenario[] = [
  {
    name: "archive v2 twin: the open segment left not finalized: the next check puts the twin in its place, every acknowledged record is there, steps copy a new twin",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 60);
      a.append("moment", [moment(1, "日常", "看书")]);
      ok(twinLevel(dev), "the twin holds the segment's bytes");
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/f000001.jsonl") });
      a = new Archive(root);
      const r = a.check();
      ok((r.fact.repaired ?? []).join().indexOf("twin") >= 0, `the twin put in place: ${JSON.stringify(r.fact)}`);
      equal(r.fact.unreadable, undefined);
      deepEqual(contents(a), facts.map((f) => f.content), "every acknowledged record");
      equal(a.recallByKeyword("fact", "第7条").length, 1);
      ok(!dev.spiffs.exists("/f000001.par"), "the twin became the segment");
      a.settle();
      ok(twinLevel(dev), "steps copied a new twin");
      a.append("fact", [{ timestamp: facts[59].timestamp + 60, content: "之后的一条" }]);
      ok(twinLevel(dev));
      dev.reboot();
      a = new Archive(root);
      a.check();
      equal(a.count("fact"), 61);
    },
  },
  {
    name: "archive v2 twin: an unreadable twin is copied again by steps (before any append), so a later unreadable segment still loses nothing",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 60);
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/f000001.par") });
      a = new Archive(root);
      a.check();
      equal(a.count("fact"), 60);
      let steps = 0;
      while (a.step() && steps < 100) steps++;
      ok(steps >= 1 && steps < 100, `steps copied the twin (${steps})`);
      ok(!dev.spiffs.notFinalized.has("/f000001.par") && twinLevel(dev), "the twin is whole and readable again");
      // now the segment goes: the twin has everything
      dev.reboot();
      dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/f000001.jsonl") });
      a = new Archive(root);
      a.check();
      deepEqual(contents(a), facts.map((f) => f.content));
    },
  },
  {
    name: "archive v2 twin: a twin being copied again is never put in the segment's place: the segment stays the one whole copy",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      fillLong(a, 100); // about 30 KB: a copy takes several steps
      ok(File.delete(root + "f000001.par"));
      dev.reboot();
      a = new Archive(root);
      a.check();
      const r = a.step();
      ok(r !== undefined && r.did.indexOf("twin") === 0, `a twin step: ${r?.did}`);
      ok(dev.spiffs.length("/f000001.par") < dev.spiffs.length("/f000001.jsonl"), "half copied");
      // a read error anywhere in the next boot (the segment's open among them) is
      // transient: the half twin must never replace the segment
      const half = image(dev);
      let fired = 0;
      let last = dev;
      for (let at = 1; at <= 20; at++) {
        const d = (last = fresh());
        for (const [name, bytes] of half) d.spiffs.load(name, bytes.slice());
        d.inject("spiffs_read_error", { at });
        a = new Archive(root);
        a.check();
        if (d.spiffs.isArmed("spiffs_read_error")) break;
        fired++;
        d.reboot();
        a = new Archive(root);
        a.check();
        equal(a.count("fact"), 100, `a read error at operation ${at} of the boot: nothing lost`);
      }
      ok(fired >= 3, `the boot's reads were covered (${fired})`);
      a.settle(); // may stop at the step the still-armed read error fails
      a.settle();
      ok(twinLevel(last));
    },
  },
  {
    name: "archive v2 twin: a cut between the segment's write and the twin's: the next append or a step brings the twin level",
    run() {
      for (const by of ["append", "step"]) {
        const dev = fresh();
        let a = new Archive(root);
        fillFacts(a, 30);
        dev.cutAfter(2, tearNone); // the segment's write goes through, the twin's is cut
        ok(SimDevice.survive(() => a.append("fact", batchOf(0))), "cut");
        ok(dev.spiffs.length("/f000001.par") < dev.spiffs.length("/f000001.jsonl"), "the twin is behind");
        dev.reboot();
        a = new Archive(root);
        a.check();
        equal(a.count("fact"), 35, "the segment's lines are whole (not acknowledged, but there)");
        if (by === "append") equal(a.append("fact", batchOf(1)).appended, 5);
        else a.settle();
        ok(twinLevel(dev), `${by}: the twin is level`);
        // and it holds everything the segment does
        dev.reboot();
        dev.inject("spiffs_not_finalized", { seed: seedOf(dev, "/f000001.jsonl") });
        a = new Archive(root);
        a.check();
        equal(a.count("fact"), by === "append" ? 40 : 35, `${by}: whole from the twin`);
      }
    },
  },
  {
    name: "archive v2 twin: a power cut at any write of an append (a block's end, a new segment), in every tear mode: nothing acknowledged lost; repeated, the batch is there once",
    run() {
      // three starting points: the next append closes a block, or not, or starts a segment
      const bases: Map<string, Uint8Array>[] = [];
      const counts: number[] = [];
      for (const n of [30, 37]) {
        const dev = fresh();
        const a = new Archive(root);
        fillFacts(a, n);
        bases.push(image(dev));
        counts.push(n);
      }
      {
        const dev = fresh();
        const a = new Archive(root);
        let n = 0;
        while (segments(dev, "f").length < 2) {
          const before = image(dev);
          fillFacts(a, 5, undefined, n);
          n += 5;
          if (segments(dev, "f").length === 2) {
            bases.push(before);
            counts.push(n - 5);
          }
        }
      }
      let cuts = 0;
      for (let b = 0; b < bases.length; b++) {
        for (const mode of ALL_TEAR_MODES) {
          for (let at = 1; at <= 8; at++) {
            const dev = fresh();
            for (const [name, bytes] of bases[b]) dev.spiffs.load(name, bytes.slice());
            dev.spiffs.tearModes = [mode];
            let a = new Archive(root);
            a.check();
            const old = contents(a);
            equal(old.length, counts[b]);
            dev.inject("power_cut", { at, seed: at });
            const cut = SimDevice.survive(() => a.append("fact", batchOf(b)));
            if (!cut) break;
            cuts++;
            const what = `base ${b}, ${mode}, cut at write ${at}`;
            dev.reboot();
            a = new Archive(root);
            a.check();
            const got = contents(a);
            deepEqual(got.slice(0, old.length), old, `${what}: every acknowledged record`);
            ok(got.length <= old.length + 5, what);
            // the move is repeated (the records are still in NVS)
            a.append("fact", batchOf(b));
            const all = contents(a);
            equal(all.length, old.length + 5, `${what}: the batch once (${all.slice(old.length).join(" | ")})`);
            deepEqual(all.slice(old.length).sort(), batchOf(b).map((f) => f.content).sort(), what);
            a.settle();
            dev.reboot();
            a = new Archive(root);
            a.check();
            equal(a.count("fact"), old.length + 5, `${what}: after a reboot`);
          }
        }
      }
      ok(cuts >= 40, `cuts ${cuts}`);
    },
  },
];

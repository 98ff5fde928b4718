// Upkeep steps that meet each other (found by the archive power-cut workload,
// test/powercut/archive.workload.ts): a forgotten moment's segment is being
// rewritten without it (scrub, 8 KB a step) when the partition crosses the
// retire line, and retire takes that very segment (the oldest moments). The
// rewrite must end there, its temporary file gone, and upkeep go on; a
// rename of the rewrite's swap that returns false must lose nothing (the next
// step finishes it); and a step that keeps failing must not run every 250 ms
// for ever. (A power cut at every write of a forget's rewrite, read by block
// after it: archive-recode.scn.ts.)
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, RETIRE_AT } from "../../src/archive/archive";
import { recordId } from "../../src/archive/line";
import { startMaintenance, STEP_MS, IDLE_MS } from "../../src/archive/maintenance";
import type { Archiver } from "../../src/archive/archiver";
import { fromLocal } from "../../src/time/local";
import { ok, equal } from "./assert";
import type { Scenario } from "./types";
import { PAD } from "./archive-segments.scn";

const root = config.file.root;
// natural words, then a filler compact text leaves as it is (PAD): as many bytes as the words took in format 2
const FILL = "我们一边走一边聊天，" + PAD.slice(0, 25);

export const scenarios: Scenario[] = [
  {
    name: "archive v2: retire takes the segment a forget is rewriting: the rewrite ends, its .scr goes, upkeep goes on",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0), storageBytes: 400 * 1024 }).install();
      const a = new Archive(root);
      a.check();
      const t0 = Math.floor(fromLocal(2025, 1, 1, 10, 0) / 1000);
      const first = { timestamp: t0, topic: "散步", content: `秘密的时刻：${FILL}`, emotion: "happy" as const, intensity: 3, importance: 3 };
      // three full moment segments and a little of a fourth, sealed (below the retire line)
      for (let i = 0; i < 800; i += 8) {
        const b = [];
        for (let k = i; k < i + 8; k++) b.push(k === 0 ? first : { ...first, timestamp: t0 + k * 3600, content: `第${k}个时刻：${FILL}` });
        a.append("moment", b);
        while (a.step()) {
          // full segments sealed, their twins dropped
        }
      }
      const info = () => dev.spiffs.stats();
      ok(info().used < info().total * RETIRE_AT, `below the retire line: ${JSON.stringify(info())}`);
      equal(a.forget("moment", [recordId("moment", first)]), 1);
      // the oldest segment holds it: the scrub starts copying it
      let did = "";
      for (let i = 0; i < 20 && did.indexOf("copied") < 0; i++) did = a.step()?.did ?? "";
      ok(did.indexOf("scrub: moment 1 copied") === 0, `the rewrite is under way: ${did}`);
      // more moments cross the retire line: the next step retires the oldest segment, the one being rewritten
      // (far enough above it that sealing the open segment, which drops its twin, stays above)
      for (let k = 0; k < 600 && info().used <= info().total * (RETIRE_AT + 0.05); k += 10) {
        const more = [];
        for (let i = k; i < k + 10; i++) more.push({ ...first, timestamp: t0 + (800 + i) * 3600, content: `后来的第${i}个时刻：${FILL}` });
        a.append("moment", more);
      }
      ok(info().used > info().total * (RETIRE_AT + 0.05), `above the retire line: ${JSON.stringify(info())}`);
      const seen: string[] = [];
      let steps = 0;
      for (let r = a.step(); r && steps < 200; r = a.step(), steps++) seen.push(r.did);
      ok(seen.indexOf("retire") >= 0 && seen.indexOf("scrub: moment 1 rewritten") < 0, `retired before the rewrite ended: ${seen.join(", ")}`);
      ok(steps < 200, `upkeep ends: ${seen.slice(-3).join(", ")}`);
      ok(!seen.some((d) => d.indexOf("failed") === 0), `no step failed: ${seen.filter((d) => d.indexOf("failed") === 0).slice(0, 2).join(", ")}`);
      ok(!dev.spiffs.exists("/m000001.scr") && !dev.spiffs.exists("/m000001.jsonl"), "the retired segment and its rewrite are gone");
      equal(a.recallByKeyword("moment", "秘密", 10).length, 0, "the forgotten moment stays hidden");
      ok(a.recallByTimeRange("moment", "2025-01-01", "2025-01-01", 50).some((it) => it.digest === true), "its month has a digest");
    },
  },
  {
    name: "archive v2: the rename that puts a forget's rewrite in place returns false: the next step finishes the swap, nothing lost",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0) }).install();
      const a = new Archive(root);
      a.check();
      const t0 = Math.floor(fromLocal(2025, 1, 1, 10, 0) / 1000);
      const all: { timestamp: number; content: string }[] = [];
      for (let i = 0; i < 700; i += 10) {
        const b = [];
        for (let k = i; k < i + 10; k++) b.push({ timestamp: t0 + k * 3600, content: `第${k}件事：${FILL}` });
        a.append("fact", b);
        for (const x of b) all.push(x);
      }
      while (a.step()) {
        // the first segment sealed
      }
      const secret = all[3];
      equal(a.forget("fact", [recordId("fact", secret)]), 1);
      let did = "";
      for (let i = 0; i < 40 && did.indexOf("copied") < 0; i++) did = a.step()?.did ?? "";
      ok(did.indexOf("scrub: fact 1 copied") === 0, `the rewrite is under way: ${did}`);
      // the swap's second rename (the rewrite into place) returns false
      dev.inject("rename_false", { at: 2 });
      const seen: string[] = [];
      for (let r = a.step(), n = 0; r && n < 100; r = a.step(), n++) seen.push(r.did);
      ok(seen.some((d) => d.indexOf("failed") === 0), `the swap failed once: ${seen.join(", ")}`);
      ok(seen.indexOf("scrub: fact 1 rewritten") >= 0, `and was finished: ${seen.join(", ")}`);
      ok(!dev.spiffs.exists("/f000001.old") && !dev.spiffs.exists("/f000001.scr"), "no .old or .scr left");
      let n = 0;
      a.forEach("fact", (it) => {
        n++;
        ok(it.content !== secret.content, "the forgotten fact is gone");
      });
      equal(n, all.length - 1, "every other fact is there");
    },
  },
  {
    name: "archive v2: the catalog's summaries left not finalized: slicing and sealing start the catalog again instead of failing at every step",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0) }).install();
      const a = new Archive(root);
      a.check();
      const t0 = Math.floor(fromLocal(2024, 1, 1, 10, 0) / 1000);
      const long = FILL + FILL + FILL + FILL; // about 370 bytes a line: 9 segments from 1,400 facts
      let k = 0;
      const f = a.streams.fact;
      while (f.segs.size < 10 && k < 4000) {
        const b = [];
        for (const end = k + 20; k < end; k++) b.push({ timestamp: t0 + k * 3600, content: `第${k}件事${k === 5 ? "萤火虫" : ""}：${long}` });
        a.append("fact", b);
      }
      // sealed, the first group of 8 due for slicing: then its summaries become unreadable
      for (const seq of f.unsealed()) f.seal(seq);
      ok(f.cat.sliceDue, "a group is due");
      dev.spiffs.notFinalized.add("/f.sum");
      const seen: string[] = [];
      for (let r = a.step(), n = 0; r && n < 300; r = a.step(), n++) seen.push(r.did);
      const failed = seen.filter((d) => d.indexOf("failed") === 0);
      ok(failed.length <= 1, `${failed.length} failed steps: ${failed.slice(0, 2).join(", ")}`);
      ok(f.cat.sliced >= 1 && !f.unsealed().length, `sealed and sliced again: ${seen.slice(-4).join(", ")}`);
      equal(a.recallByKeyword("fact", "萤火虫", 5).length, 1, "an old fact is found by keyword");
      // and again, when the next full segment is sealed
      dev.spiffs.notFinalized.add("/f.sum");
      const before = f.segs.size;
      while (f.segs.size === before && k < 8000) {
        const b = [];
        for (const end = k + 20; k < end; k++) b.push({ timestamp: t0 + k * 3600, content: `第${k}件事：${long}` });
        a.append("fact", b);
      }
      const r = a.step();
      ok(r !== undefined && r.did.indexOf("seal fact") === 0, `sealed: ${r && r.did}`);
    },
  },
  {
    name: "archive v2: a step that keeps failing is tried again once a minute, not every 250 ms",
    run() {
      const dev = new SimDevice({ now: fromLocal(2026, 3, 1, 12, 0) }).install();
      let calls = 0;
      const archiver = { archive: { step: () => (calls++, { did: "failed: file not found" }) }, maintenance: () => ({ fact: 0, moment: 0, event: 0 }) } as unknown as Archiver;
      const m = startMaintenance(archiver);
      dev.clock.advanceTo(dev.clock.now + 10 * 60000);
      m.stop();
      ok(calls >= 5 && calls <= 1 + (10 * 60000) / IDLE_MS, `${calls} failing steps in 10 minutes (every ${STEP_MS} ms would be ${(10 * 60000) / STEP_MS})`);
    },
  },
];

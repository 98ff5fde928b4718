// A pet made with the formats from before issue 29 (archive format 2,
// version-1 episodes: test/powercut/old-format.ts), updated: idle steps
// migrate both in steps (the archive's sealed segments recoded to format 3,
// the episodes moved to version 2, their texts into passages) while the AI
// uses the device; every record is checked through the tool before, during
// and after, and after a reboot; the old formats' files are gone at the end.
// Under every fault kind: test/powercut/update.workload.ts (npm run powercut).
import { SimDevice } from "../../host-sim/device";
import { fromLocal } from "../../src/time/local";
import { Ai } from "../powercut/device";
import { check, blankVerdict, type Verdict } from "../powercut/oracle";
import { buildOldPet, loadImage, oldFormatLeft, segmentFormats, type OldPet } from "../powercut/old-format";
import { petBackground, verifyPet } from "../powercut/update.workload";
import { Archive } from "../../src/archive/archive";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

// (6 months took 10 s in mocha and minutes in XS; 2 hold a sealed fact
// segment and a sealed moment one for the recode, beside the open ones)
const MONTHS = 2;
const EPISODES = 40;
// a partition the 2-month pet with 200 episodes fills to its line (74.8%: 253 records refused);
// 200 episodes: their passages outgrow a segment, so that parity is a share of them as on 3 MB
const FULL_BYTES = 760 * 1024;
const FULL_EPISODES = 200;

// The update, in idle stretches of 3 s with the AI's traffic, until neither
// migration has anything left: every record checked halfway (old and new
// formats side by side), after a reboot, and the old formats' files gone
// then and a day later. `each` runs after every stretch. Returns the stretches.
function updateInSteps(dev: SimDevice, pet: OldPet, episodes: number, before: string[], each: () => void = () => {}): number {
  const ai = new Ai(dev);
  for (const x of petBackground(pet)) ai.ledger.background(x.kind, x.key, x.value, x.ts);
  const checkAll = (what: string) => {
    const v: Verdict = blankVerdict();
    check(ai, ai.booted, v);
    verifyPet(pet, new Set(), ai.booted, v);
    deepEqual(v.failures, [], `${what}: failures`);
    equal(v.ackedLost + v.wrongReplies, 0, `${what}: lost or wrong`);
    ok(v.checked >= pet.records.length + episodes, `${what}: ${v.checked} records checked`);
  };
  const start = dev.clock.now;
  let k = 0;
  let midway = false;
  for (let left = before.length; k < 3000 && left; k++) {
    ai.advanceTo(dev.clock.now + 3000); // about 12 steps
    if (k % 8 === 0) ai.call({ action: "write", type: "fact", content: `更新后的第${k}件事` });
    if (k % 8 === 4) ai.call({ action: "recall", type: "episode", message: pet.episodes[k % episodes].content.slice(0, 16) });
    each();
    left = oldFormatLeft(dev).length;
    if (!midway && left > 0 && left < before.length) {
      midway = true;
      checkAll("halfway");
    }
  }
  ok(midway, "checked halfway");
  deepEqual(oldFormatLeft(dev), [], `the old formats' files are gone after ${k} stretches of 3 s (${Math.round((dev.clock.now - start) / 60000)} min)`);
  const f = segmentFormats(dev);
  for (const s in f) ok(f[s].slice(0, -1).every((x) => x.v >= 3), `stream ${s}: ${JSON.stringify(f[s])}`);
  ok(!dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1") && dev.spiffs.list().some((e) => /^\/p\d{6}\.jsonl$/.test(e.name)), "episode texts are passages");
  dev.reboot();
  ai.boot();
  checkAll("after a reboot");
  // nothing more to migrate after the reboot: a day of steps writes no old format
  ai.advanceTo(dev.clock.now + 86400000);
  deepEqual(oldFormatLeft(dev), [], "a day later");
  return k;
}

export const scenarios: Scenario[] = [
  {
    name: "update: a 2-month pet of archive format 2 with 40 version-1 episodes migrates in steps, every fact, moment, event and episode kept, the old formats' files gone",
    run() {
      // a month after the old device's last day: its last events are long past (the oracle knows them by name only; verifyPet checks them)
      const dev = new SimDevice({ now: fromLocal(2023, 6, 5, 9, 0) }).install();
      const pet = buildOldPet(MONTHS, EPISODES, 3 * 1024 * 1024, dev);
      equal(pet.refused, 0, "the old device archived every record");
      loadImage(dev, pet.files);
      const before = oldFormatLeft(dev);
      ok(before.indexOf("/ep.t0") >= 0 && before.indexOf("/ep.t1") >= 0, `version-1 text files: ${before.join(" ")}`);
      ok(before.filter((n) => n.indexOf("(format 2)") > 0).length >= 2, `sealed format-2 segments: ${before.join(" ")}`);
      const counts = { fact: 0, moment: 0, event: 0 };
      for (const r of pet.records) counts[r.kind]++;
      ok(counts.fact > 600 && counts.moment > 300 && counts.event > 12, `records: ${JSON.stringify(counts)}`);

      updateInSteps(dev, pet, EPISODES, before);
    },
  },
  {
    name: "update-full: a 2-month pet with 200 version-1 episodes on a 760 KB partition at its 75% line (as a 3-year pet on 3 MB) migrates in steps, /ep.t1 dropped first, every record kept",
    run() {
      // a month after the old device's last day: its last events are long past (the oracle knows them by name only; verifyPet checks them)
      const dev = new SimDevice({ now: fromLocal(2023, 6, 5, 9, 0), storageBytes: FULL_BYTES }).install();
      const pet = buildOldPet(MONTHS, FULL_EPISODES, FULL_BYTES, dev);
      // at its line: the old device refused appends from then on (they stayed in NVS)
      ok(pet.refused > 0 && pet.usedPercent >= 74, `at the line: ${pet.usedPercent}% used, ${pet.refused} refused`);
      loadImage(dev, pet.files);
      const usedBefore = dev.spiffs.stats().percent;
      const before = oldFormatLeft(dev);
      ok(before.indexOf("/ep.t0") >= 0 && before.indexOf("/ep.t1") >= 0, `version-1 text files: ${before.join(" ")}`);
      ok(before.filter((n) => n.indexOf("(format 2)") > 0).length >= 1, `sealed format-2 segments: ${before.join(" ")}`);
      const counts = { fact: 0, moment: 0, event: 0 };
      for (const r of pet.records) counts[r.kind]++;
      ok(counts.fact > 300 && counts.event > 6, `records: ${JSON.stringify(counts)}`);

      let single = false;
      const k = updateInSteps(dev, pet, FULL_EPISODES, before, () => {
        if (dev.spiffs.exists("/ep.t0") && !dev.spiffs.exists("/ep.t1")) single = true;
      });
      ok(single, "the texts went single-copy (/ep.t1 deleted) before their passages");
      trace(`update-full: ${usedBefore}% used before, ${dev.spiffs.stats().percent}% after, ${k} stretches of 3 s\n`);
    },
  },
  {
    name: "update-full: at the line a twin copy that fails for room does not stop the archive's step before the recode (which makes room)",
    run() {
      const dev = new SimDevice({ now: fromLocal(2023, 6, 5, 9, 0), storageBytes: FULL_BYTES }).install();
      const pet = buildOldPet(MONTHS, FULL_EPISODES, FULL_BYTES, dev);
      loadImage(dev, pet.files);
      // the open fact segment's twin gone: the first step copies it again
      const open = dev.spiffs.list().map((e) => e.name).filter((n) => /^\/f\d{6}\.jsonl$/.test(n)).sort().pop() as string;
      ok(dev.spiffs.remove(open.replace(".jsonl", ".par")), `${open}'s twin removed`);
      dev.reboot();
      const a = new Archive("/data/", { partitionBytes: FULL_BYTES });
      a.check();
      // the twin's copy (4 KB a step) fails for room before its end
      let r = a.step();
      for (let i = 0; i < 8 && r && r.did === "twin fact"; i++) r = a.step();
      ok(r !== undefined && r.did.indexOf("recode") === 0, `the step went on to the recode: ${JSON.stringify(r)}`);
    },
  },
];

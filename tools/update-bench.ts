// The update of a full old pet, measured (docs/design/update.md): a pet of
// `--months` (default 36) at the seed's rate archived by format 2 with 400
// full-size version-1 episodes (test/powercut/old-format.ts: at 36 months at
// the 3 MB partition's 75% line), booted by the new code, then Archive.step
// and EpisodeStore.step alternately until no old format is left. One JSON
// line: the step pairs, the partition's use before and after, the step at
// which /ep.t1 went (single-text mode, FORMAT.md §4.8; -1: not needed), the
// longest archive and episode steps in device ms (tools/bench/run.ts
// deviceMs: bytes and read calls at the device's flash speed).
//   npx tsx tools/update-bench.ts [--months N]
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { fromLocal } from "../src/time/local";
import { Archive } from "../src/archive/archive";
import { EpisodeStore } from "../src/episode/store";
import { deviceMs } from "./bench/run";
import { buildOldPet, loadImage, oldFormatLeft } from "../test/powercut/old-format";
setTraceSink(() => {});
const mi = process.argv.indexOf("--months");
const months = mi > 0 ? Number(process.argv[mi + 1]) : 36;
const bytes = 3 * 1024 * 1024;
const dev = new SimDevice({ now: fromLocal(2026, 3, 2, 9, 0), storageBytes: bytes }).install();
const pet = buildOldPet(months, 400, bytes, dev);
loadImage(dev, pet.files);
dev.reboot();
const before = dev.spiffs.stats().percent;
const a = new Archive("/data/", { partitionBytes: bytes });
a.check();
const st = new EpisodeStore();
const worst = { archive: { ms: 0, did: "" }, episodes: { ms: 0, did: "" } };
let checkMs = 0, renameMs = 0;
let steps = 0, aFail = 0, eFail = 0, singleAt = -1;
for (; steps < 20000; steps++) {
  dev.flash.resetTraffic();
  const r = a.step();
  let ms = deviceMs(dev.flash.partition("storage"));
  if (r && ms > worst.archive.ms) worst.archive = { ms: Math.round(ms), did: r.did };
  if (r && r.did.indexOf("failed") === 0) aFail++;
  dev.flash.resetTraffic();
  let e: boolean | string = false;
  try { e = st.step(); } catch (x) { e = String(x); eFail++; }
  ms = deviceMs(dev.flash.partition("storage"));
  const notes = st.notes.splice(0).join(" | ");
  if (ms > worst.episodes.ms) worst.episodes = { ms: Math.round(ms), did: notes || String(e) };
  if (singleAt < 0 && notes.indexOf("single-text") < 0) checkMs = Math.max(checkMs, ms);
  if (singleAt < 0 && notes.indexOf("single-text") >= 0) { singleAt = steps; renameMs = ms; }
  if (steps % 25 === 0 && oldFormatLeft(dev).length === 0) break;
}
console.log(JSON.stringify({ months, episodes: 400, steps, used_percent_before: before, used_percent_after: dev.spiffs.stats().percent, left: oldFormatLeft(dev), single_text_at_step: singleAt, archive_failed_steps: aFail, episode_failed_steps: eFail, worst, check_step_ms_max: Math.round(checkMs), drop_step_ms: Math.round(renameMs) }));

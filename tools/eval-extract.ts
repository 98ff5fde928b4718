// npm run eval:extract: the speech set (test/extract/) through the device's
// whole path, each case on a fresh simulated device (test/extract/cases.ts).
// stdout, JSON lines:
//   {"category", "cases", "expected", "found", "forbidden_total", "forbidden_hits", "held_out": {…}}  one per category
//   {"part": "held_out_late", "cases", …}  the second held-out part, written after the rules (test/extract/heldout-late.ts)
//   {"part": "held_out_speech", "category", …}  the third held-out part (issue 24, test/extract/heldout-speech.ts), per category
//   {"part": "held_out_speech", "cases", …}  the same part, all categories
//   {"bench": "listener", "engine": "node"|"xs", "utterances", "mean_ms", "worst_ms"}  time per user utterance in Service.hear, the lesser of two passes
//   {"cases", "expected", "found", "forbidden_total", "forbidden_hits", "held_out": {…}, "late_held_out": {…},
//    "speech_held_out": {…}, "speech_categories": {category: {found, expected, forbidden_hits, forbidden_total}}}  last
// --show prints the development cases that miss or hit a forbidden item on
// stderr; held-out cases are never printed, so that nobody tunes on them.
// --no-xs skips the XS run (the listener bundled by the XS lane's bundler and
// timed inside the device-like xsnap worker).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { DEV } from "../test/extract/speech";
import { HELD_OUT } from "../test/extract/heldout";
import { HELD_OUT_LATE } from "../test/extract/heldout-late";
import { HELD_OUT_SPEECH } from "../test/extract/heldout-speech";
import { parseCase, runCase, tally, add, timings, lesser, type Tally } from "../test/extract/cases";

setTraceSink(() => {});
const show = process.argv.includes("--show");
// the late held-out part is measured apart and stays out of every other count
const cases = [...DEV.map((l) => parseCase(l)), ...HELD_OUT.map((l) => parseCase(l, true))];
const late = HELD_OUT_LATE.map((l) => parseCase(l, true));
const speech = HELD_OUT_SPEECH.map((l) => parseCase(l, true));
const total = tally(), held = tally(), lateTally = tally(), speechTally = tally();
const speechCats = new Map<string, Tally>();
const byCat = new Map<string, { all: Tally; held: Tally }>();
const times: number[] = [];
const outcomes: string[] = [];
for (const c of cases) {
  const o = runCase(c, () => performance.now());
  outcomes.push(`${o.found}/${o.hits.length}`);
  times.push(...o.hearMs);
  let t = byCat.get(c.category);
  if (!t) byCat.set(c.category, (t = { all: tally(), held: tally() }));
  add(total, c, o);
  add(t.all, c, o);
  if (c.heldOut) {
    add(held, c, o);
    add(t.held, c, o);
  } else if (show && (o.missing.length || o.hits.length)) process.stderr.write(JSON.stringify({ case: c.source, missing: o.missing, forbidden: o.hits }) + "\n");
}
const line = (o: object) => process.stdout.write(JSON.stringify(o) + "\n");
for (const [category, t] of byCat) line({ category, ...t.all, held_out: t.held });
const stats = (ms: number[]) => ({ utterances: ms.length, mean_ms: Math.round((ms.reduce((a, b) => a + b, 0) / ms.length) * 1000) / 1000, worst_ms: Math.round(Math.max(...ms) * 1000) / 1000 });
for (const c of late) {
  const o = runCase(c, () => performance.now());
  times.push(...o.hearMs);
  outcomes.push(`${o.found}/${o.hits.length}`);
  add(lateTally, c, o);
}
line({ part: "held_out_late", ...lateTally });
for (const c of speech) {
  const o = runCase(c, () => performance.now());
  times.push(...o.hearMs);
  outcomes.push(`${o.found}/${o.hits.length}`);
  add(speechTally, c, o);
  let t = speechCats.get(c.category);
  if (!t) speechCats.set(c.category, (t = tally()));
  add(t, c, o);
}
for (const [category, t] of speechCats) line({ part: "held_out_speech", category, ...t });
line({ part: "held_out_speech", ...speechTally });
lesser(times, timings(cases.concat(late, speech), () => performance.now()));
line({ bench: "listener", engine: "node", ...stats(times) });
if (!process.argv.includes("--no-xs")) {
  const xs = await runXs();
  const { found, forbidden_hits, outcomes: inXs, ...timing } = xs as { found: number; forbidden_hits: number; outcomes: string[] };
  line({ bench: "listener", engine: "xs", ...timing });
  if (found !== total.found || forbidden_hits !== total.forbidden_hits) {
    process.stderr.write(`XS disagrees with Node: found ${found} vs ${total.found}, forbidden hits ${forbidden_hits} vs ${total.forbidden_hits}\n`);
    // held-out cases are named only by their index
    cases.concat(late, speech).forEach((c, i) => {
      if (inXs[i] !== outcomes[i]) process.stderr.write(`  ${c.heldOut ? "held-out case " + i : c.source}: node ${outcomes[i]}, xs ${inXs[i]}\n`);
    });
    process.exitCode = 1;
  }
}
const speechCategories: Record<string, object> = {};
for (const [category, t] of speechCats) speechCategories[category] = { found: t.found, expected: t.expected, forbidden_hits: t.forbidden_hits, forbidden_total: t.forbidden_total };
line({ ...total, held_out: held, late_held_out: lateTally, speech_held_out: speechTally, speech_categories: speechCategories });

async function runXs(): Promise<object> {
  const { ensureWorker } = await import("../test/xs/build-worker");
  const { Xsnap } = await import("../test/xs/xsnap");
  const { bundleForXs, splitBundle } = await import("../test/xs/bundle");
  const here = path.dirname(fileURLToPath(import.meta.url));
  const worker = await ensureWorker();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-listen-"));
  const out = path.join(dir, "listen.js");
  try {
    await bundleForXs(path.join(here, "../test/extract/xs-entry.ts"), out);
    let result: object | undefined;
    const x = new Xsnap({
      bin: worker,
      onCommand: (bytes: Uint8Array) => {
        result = JSON.parse(new TextDecoder().decode(bytes));
        return new Uint8Array(0);
      },
    });
    try {
      // in parts, as the XS lane and `npm run heap` run theirs: each top-level
      // declaration of a script takes a slot of the 1,024-slot XS stack while
      // it runs, and the listener's bundle (the service, the tool and their
      // modules) has come to more than one script can hold
      for (const part of splitBundle(out)) await x.script(part);
      await x.evaluate("__petmemListen()");
    } finally {
      await x.close();
    }
    if (!result) throw new Error("the XS run reported nothing");
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

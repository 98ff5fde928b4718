// npm run eval:extract: precision and recall of the rule-based extractor on
// the labelled utterances, as one JSON line:
//   {"utterances":N,"precision":P,"recall":R,"dev":{…},"heldout":{…}}
// (all utterances first; then the development part and the held-out fifth).
// --show prints the development set's misses on stderr; held-out misses are
// never printed, so that the rules are not tuned on them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { score, type LabelledSet } from "../test/extract/score";
import "../host-sim/trace";

const here = path.dirname(fileURLToPath(import.meta.url));
const set = JSON.parse(fs.readFileSync(path.join(here, "../test/extract/utterances.json"), "utf8")) as LabelledSet;
const all = score(set).score;
const dev = score(set, (u) => !u.heldout);
const held = score(set, (u) => !!u.heldout).score;
const pick = (s: typeof all) => ({ utterances: s.utterances, precision: s.precision, recall: s.recall });
if (process.argv.includes("--show")) for (const m of dev.misses) process.stderr.write(JSON.stringify(m) + "\n");
process.stdout.write(JSON.stringify({ ...pick(all), dev: pick(dev.score), heldout: pick(held) }) + "\n");

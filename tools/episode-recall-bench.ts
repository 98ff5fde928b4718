// npm run bench:recall: one recall of episodes (S1 27: the top 3 of the 300
// most important, by similarity) on a simulated device holding 800 episodes,
// on Node and inside XS (the XS lane's device-like xsnap worker). Prints one
// JSON line per engine: {"bench":"episode-recall","engine","store",
// "episodes","recall_bytes_read","recall_reads","recall_ms",…}
// (tools/episode-recall/measure.ts says what each number is); then the cost
// of the one retrieval: {"bench":"recall-cost","action","question","hits",
// "bytes_read","read_calls","bytes_written","node_ms","device_ms","within"}
// (tools/recall-bench/cost.ts: 800 episodes and a 3-year archive).
// Usage: npx tsx tools/episode-recall-bench.ts [--no-xs]
import path from "node:path";
import { fileURLToPath } from "node:url";
import "../host-sim/trace";
import { measure, type RecallBench } from "./episode-recall/measure";
import { makeStore, signer, STORE } from "./episode-recall/setup";
import { runOnceInXs } from "../test/xs/once";
import { measureCost } from "./recall-bench/cost";

const here = path.dirname(fileURLToPath(import.meta.url));
const quiet = (globalThis as unknown as { trace: (s: string) => void });
quiet.trace = () => {};

process.stdout.write(JSON.stringify({ bench: "episode-recall", engine: "node", store: STORE, ...measure(() => performance.now(), makeStore, signer) }) + "\n");

// issue 25 item 5: one search, recall and context on a device with 800
// episodes and a 3-year archive (tools/recall-bench/cost.ts), on Node
for (const l of measureCost(() => performance.now())) process.stdout.write(JSON.stringify(l) + "\n");

if (process.argv.indexOf("--no-xs") < 0) {
  const xs = await runOnceInXs<RecallBench>(path.join(here, "episode-recall/xs-entry.ts"), `globalThis.trace = function () {}; __recall.main()`, { quiet: true });
  process.stdout.write(JSON.stringify({ bench: "episode-recall", engine: "xs", store: STORE, ...xs }) + "\n");
}

// npx tsx tools/repair-bench.ts: how long a single-bit repair takes (src/archive/repair.ts),
// on Node and inside XS (the XS lane's device-like xsnap worker). Prints one JSON line
// per engine: {"bench":"repair","engine","block_first_bit_ms",…} (tools/repair/measure.ts).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measure, type RepairTimes } from "./repair/measure";
import { ensureWorker, cacheRoot } from "../test/xs/build-worker";
import { Xsnap } from "../test/xs/xsnap";
import { bundleForXs } from "../test/xs/bundle";

const here = path.dirname(fileURLToPath(import.meta.url));
const MIN_MS = 1000;

process.stdout.write(JSON.stringify({ bench: "repair", engine: "node", ...measure(() => performance.now(), MIN_MS) }) + "\n");

const bin = await ensureWorker();
const out = path.join(cacheRoot(), `repair-bench-${process.pid}.js`);
await bundleForXs(path.join(here, "repair/xs-entry.ts"), out);
let xs: RepairTimes | undefined;
const worker = new Xsnap({
  bin,
  onCommand(bytes) {
    xs = JSON.parse(new TextDecoder().decode(bytes));
    return new Uint8Array(0);
  },
});
try {
  await worker.script(out);
  await worker.evaluate(`__repair.main(${MIN_MS})`);
} finally {
  await worker.close();
  fs.rmSync(out, { force: true });
}
if (!xs) throw new Error("the XS run gave no result");
process.stdout.write(JSON.stringify({ bench: "repair", engine: "xs", ...xs }) + "\n");

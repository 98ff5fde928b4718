// npx tsx tools/repair-bench.ts [--triples N]: how long a single-bit repair takes
// (src/archive/repair.ts), on Node and inside XS (the XS lane's device-like xsnap
// worker). Prints one JSON line per engine: {"bench":"repair","engine",
// "block_first_bit_ms",…} (tools/repair/measure.ts). With --triples N, first one line
// {"bench":"repair.triples","triples","miscorrected","expected"}: N seeded three-bit
// errors in a 4 KB block, how many were "repaired" into other data (HD 4 allows it;
// expected about N * 32,800 / 2^32).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measure, type RepairTimes } from "./repair/measure";
import { crc32 } from "../src/nvs/crc32";
import { repairBit } from "../src/archive/repair";
import { prng } from "../host-sim/flash";
import { runOnceInXs } from "../test/xs/once";

const here = path.dirname(fileURLToPath(import.meta.url));
const MIN_MS = 1000;

const ti = process.argv.indexOf("--triples");
if (ti >= 0) {
  const n = Number(process.argv[ti + 1]);
  if (!Number.isInteger(n) || n <= 0) throw new Error("usage: repair-bench.ts [--triples N]");
  const r = prng(4242);
  const block = new Uint8Array(4096);
  for (let i = 0; i < block.length; i++) block[i] = Math.floor(r() * 256);
  const crc = crc32(block);
  let tried = 0, mis = 0;
  while (tried < n) {
    const p = [Math.floor(r() * 32768), Math.floor(r() * 32768), Math.floor(r() * 32768)];
    if (p[0] === p[1] || p[1] === p[2] || p[0] === p[2]) continue;
    tried++;
    for (const q of p) block[q >> 3] ^= 1 << (q & 7);
    const got = repairBit(block, 0, 4096, crc);
    if (got >= 0) {
      mis++;
      block[got >> 3] ^= 1 << (got & 7);
    }
    for (const q of p) block[q >> 3] ^= 1 << (q & 7);
  }
  process.stdout.write(JSON.stringify({ bench: "repair.triples", triples: n, miscorrected: mis, expected: Math.round(((n * 32800) / 2 ** 32) * 100) / 100 }) + "\n");
}

process.stdout.write(JSON.stringify({ bench: "repair", engine: "node", ...measure(() => performance.now(), MIN_MS) }) + "\n");

const xs = await runOnceInXs<RepairTimes>(path.join(here, "repair/xs-entry.ts"), `__repair.main(${MIN_MS})`);
process.stdout.write(JSON.stringify({ bench: "repair", engine: "xs", ...xs }) + "\n");

// `npx tsx tools/digest.ts`: what folding a retired segment into monthly
// digests costs (src/archive/digest.ts), inside XS. Two segments of 400
// records of ~240 bytes: "dense", moments over three months; "sparse", past
// events one a month over 33 years (the builder holds 12 months and hands the
// others to its emit callback, as the archive core would write them).
// Heap: the heap-measuring worker (test/xs/heap-worker.ts), a full collection
// every 32 allocations as `npm run heap` does, peaks above what was live
// before the builder was made (the records are made first). Time: the XS
// lane's device-like worker (test/xs/build-worker.ts) on this host, not the device.
// Output: one JSON line per case
//   {"case","records","digests","largest_digest_bytes","held_strings",
//    "peak_slots","peak_chunk_bytes","xs_ms"}
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHeapWorker } from "../test/xs/heap-worker";
import { ensureWorker } from "../test/xs/build-worker";
import { Xsnap } from "../test/xs/xsnap";
import { bundleForXs } from "../test/xs/bundle";

type Result = Record<string, Record<string, number>>;
const here = path.dirname(fileURLToPath(import.meta.url));

async function run(bin: string, script: string, period: number): Promise<Result> {
  let result: Result | undefined;
  const xs = new Xsnap({
    bin,
    onCommand: (bytes) => {
      result = JSON.parse(new TextDecoder().decode(bytes));
      return new Uint8Array(0);
    },
  });
  try {
    await xs.script(script);
    await xs.evaluate(`__digest.main({ period: ${period} })`);
  } finally {
    await xs.close().catch(() => {});
  }
  if (!result) throw new Error("the digest workload reported nothing");
  return result;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-digest-"));
try {
  const script = path.join(dir, "digest.js");
  await bundleForXs(path.join(here, "digest/xs-workload.ts"), script);
  const heap = await run(ensureHeapWorker(), script, 32);
  const time = await run(await ensureWorker(), script, 0);
  for (const k of Object.keys(heap)) console.log(JSON.stringify({ case: k, ...heap[k], xs_ms: time[k].xs_ms }));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

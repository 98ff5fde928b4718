// Runs one entry of tools/ inside the XS lane's device-like worker and returns
// the one JSON result the entry sends back (its `call([...])` or
// `issueCommand` of a JSON text): the benches that time the same code on
// Node and in XS (tools/repair-bench.ts, tools/episode-recall-bench.ts).
import fs from "node:fs";
import path from "node:path";
import { ensureWorker, cacheRoot } from "./build-worker";
import { Xsnap } from "./xsnap";
import { bundleForXs } from "./bundle";

export async function runOnceInXs<T>(entry: string, expression: string, opts: { quiet?: boolean } = {}): Promise<T> {
  const bin = await ensureWorker({ quiet: opts.quiet });
  const out = path.join(cacheRoot(), `${path.basename(path.dirname(entry))}-${process.pid}.js`);
  await bundleForXs(entry, out);
  let result: T | undefined;
  const worker = new Xsnap({
    bin,
    onCommand(bytes) {
      result = JSON.parse(new TextDecoder().decode(bytes));
      return new Uint8Array(0);
    },
  });
  try {
    await worker.script(out);
    await worker.evaluate(expression);
  } finally {
    await worker.close();
    fs.rmSync(out, { force: true });
  }
  if (result === undefined) throw new Error("the XS run gave no result");
  return result;
}

// The benchmark inside XS (bundled and run by tools/bench.ts through the XS
// lane's xsnap driver): the archive files come from the Node side through
// issueCommand, are loaded into a simulated device here, and the same
// queries are counted and timed with XS's own clock.
import "../../host-sim/trace.js";
import { setTraceSink } from "../../host-sim/trace-sink.js";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { QUERIES, measure, baseline, oursCounted } from "./queries";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

const G = globalThis as unknown as { TextEncoder: typeof TextEncoder; TextDecoder: typeof TextDecoder };
const enc = new G.TextEncoder();
const dec = new G.TextDecoder();

function ask(msg: object): ArrayBuffer {
  const b = enc.encode(JSON.stringify(msg));
  return issueCommand(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
}

setTraceSink(() => {});

export interface XsOptions {
  storageBytes: number;
  now: number;
  budget: number;
  minMs: number;
}

function main(o: XsOptions): void {
  const dev = new SimDevice({ storageBytes: o.storageBytes, now: o.now }).install();
  const names = JSON.parse(dec.decode(ask({ t: "list" }))) as string[];
  for (const name of names) dev.spiffs.load(name, new Uint8Array(ask({ t: "file", name })));
  const a = new Archive(config.file.root, { budget: o.budget });
  const report = a.check();
  ask({ t: "check", report });
  for (const q of QUERIES) {
    const ours = measure(dev, oursCounted(a, q), () => Date.now(), o.minMs);
    const base = measure(dev, () => baseline(q), () => Date.now(), 0);
    ask({ t: "result", bench: q.bench, ours, baseline: base });
  }
  ask({ t: "done" });
}

(globalThis as unknown as { __bench: unknown }).__bench = { main };

// The bench's recalls inside XS (bundled and run by tools/bench/run.ts through
// the XS lane's xsnap driver): for each snapshot of the archive (one per age),
// its files come from the Node side through issueCommand, are loaded into a
// fresh simulated device here, the archive boots on them, and the same queries
// are counted and timed with XS's own clock.
import "../../host-sim/trace.js";
import { setTraceSink } from "../../host-sim/trace-sink.js";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { bootArchive, measure, type QuerySpec } from "./queries";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

const G = globalThis as unknown as { TextEncoder: typeof TextEncoder; TextDecoder: typeof TextDecoder };
const enc = new G.TextEncoder();
const dec = new G.TextDecoder();

function ask(msg: object): ArrayBuffer {
  const b = enc.encode(JSON.stringify(msg));
  return issueCommand(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
}

setTraceSink(() => {});

export interface XsSnapshot {
  months: number;
  now: number;
  queries: QuerySpec[];
}

export interface XsOptions {
  storageBytes: number;
  minMs: number;
  snapshots: XsSnapshot[];
}

function main(o: XsOptions): void {
  for (const s of o.snapshots) {
    const dev = new SimDevice({ storageBytes: o.storageBytes, now: s.now }).install();
    const names = JSON.parse(dec.decode(ask({ t: "list", months: s.months }))) as string[];
    for (const name of names) dev.spiffs.load(name, new Uint8Array(ask({ t: "file", months: s.months, name })));
    const a = bootArchive(config.file.root, o.storageBytes);
    for (const q of s.queries) ask({ t: "result", months: s.months, scenario: q.scenario, m: measure(dev, a, q, () => Date.now(), o.minMs) });
  }
  ask({ t: "done" });
}

(globalThis as unknown as { __bench: unknown }).__bench = { main };

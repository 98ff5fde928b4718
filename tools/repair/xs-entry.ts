// The repair timing inside XS (bundled and run by tools/repair-bench.ts through
// the XS lane's xsnap driver): the same measure() as on Node, XS's own clock.
import { measure, type RepairTimes } from "./measure";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

const G = globalThis as unknown as { TextEncoder: typeof TextEncoder };
const enc = new G.TextEncoder();

function main(minMs: number): void {
  const r: RepairTimes = measure(() => Date.now(), minMs);
  const b = enc.encode(JSON.stringify(r));
  issueCommand(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
}

(globalThis as unknown as { __repair: unknown }).__repair = { main };

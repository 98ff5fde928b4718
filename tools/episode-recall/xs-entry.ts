// The recall bench inside XS (bundled and run by tools/episode-recall-bench.ts
// through the XS lane's xsnap driver): the same measure() as on Node, XS's own clock.
import { measure } from "./measure";
import { makeStore, signer } from "./setup";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

const G = globalThis as unknown as { TextEncoder: typeof TextEncoder };

function main(): void {
  const r = measure(() => Date.now(), makeStore, signer);
  const b = new G.TextEncoder().encode(JSON.stringify(r));
  issueCommand(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
}

(globalThis as unknown as { __recall: unknown }).__recall = { main };

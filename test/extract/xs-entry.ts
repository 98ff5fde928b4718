// The speech set inside XS (bundled and run by tools/eval-extract.ts through
// the XS lane's bundler and xsnap driver): every case on a fresh simulated
// device, Service.hear timed with XS's clock; the tallies come back too, so
// the eval can check that XS agrees with Node.
import "../../host-sim/trace.js";
import { setTraceSink } from "../../host-sim/trace-sink.js";
import { DEV } from "./speech";
import { HELD_OUT } from "./heldout";
import { HELD_OUT_LATE } from "./heldout-late";
import { HELD_OUT_SPEECH } from "./heldout-speech";
import { parseCase, runCase, tally, add, timings, lesser } from "./cases";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;

setTraceSink(() => {});

function utf8(s: string): ArrayBuffer {
  const G = globalThis as unknown as { TextEncoder: typeof TextEncoder };
  const b = new G.TextEncoder().encode(s);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

function main(): void {
  const t = tally();
  const times: number[] = [];
  const outcomes: string[] = []; // per case: found and forbidden hits, for the comparison with Node
  for (const line of DEV.concat(HELD_OUT)) {
    const c = parseCase(line);
    const o = runCase(c, () => Date.now());
    for (const ms of o.hearMs) times.push(ms);
    add(t, c, o);
    outcomes.push(`${o.found}/${o.hits.length}`);
  }
  for (const line of HELD_OUT_LATE.concat(HELD_OUT_SPEECH)) {
    const c = parseCase(line, true);
    const o = runCase(c, () => Date.now());
    for (const ms of o.hearMs) times.push(ms);
    outcomes.push(`${o.found}/${o.hits.length}`);
  }
  lesser(times, timings(DEV.concat(HELD_OUT).map((l) => parseCase(l)).concat(HELD_OUT_LATE.concat(HELD_OUT_SPEECH).map((l) => parseCase(l, true))), () => Date.now()));
  let sum = 0, worst = 0;
  for (const ms of times) {
    sum += ms;
    if (ms > worst) worst = ms;
  }
  issueCommand(utf8(JSON.stringify({ utterances: times.length, mean_ms: Math.round((sum / times.length) * 1000) / 1000, worst_ms: worst, found: t.found, forbidden_hits: t.forbidden_hits, outcomes })));
}

(globalThis as unknown as { __petmemListen: unknown }).__petmemListen = main;

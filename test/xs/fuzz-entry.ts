// Entry of the XS fuzz bundle (built and driven by test/xs/fuzz.ts): the
// fuzzer of test/fuzz/fuzzer.ts, generator, simulated device, service and
// checker all inside the device-like XS worker, with the built-ins frozen as
// on the device. Messages to the driver go through issueCommand as UTF-8 JSON
// (each answered with an empty reply):
//   {t:"i", i, c:[...]}   input i is about to be sent; c: the counters so far
//                         (COUNTERS order), so a crash loses nothing
//   {t:"report", r}       a failure the checker found
//   {t:"done", res}       the run's result (without reports)
// __fuzz.main(opts) runs inputs opts.from..opts.n-1 of the run with opts.seed;
// __fuzz.input(seed, i) returns input i's text (UTF-8 JSON {text, valid} in an
// ArrayBuffer), to name the input a crash came from.
import "../../host-sim/trace.js";
import { setTraceSink } from "../../host-sim/trace-sink.js";
import { freezeIntrinsics } from "./intrinsics.js";
import { COUNTERS } from "./fuzz-counters.js";
import { clip, fuzz, inputAt, serviceTarget, type FuzzResult, type Target } from "../fuzz/fuzzer.js";

declare function issueCommand(bytes: ArrayBuffer): ArrayBuffer;


export interface XsFuzzOptions {
  n: number;
  seed: number;
  from: number;
  maxReports: number;
  reset?: number; // a fresh device every `reset` inputs (test/fuzz/fuzzer.ts FuzzOptions)
  // A handler made wrong on purpose, to prove the checks work in XS:
  //   "parse-first"     JSON.parse on the raw message before the server measures
  //                     it, as the server did before its depth guard: deep input
  //                     aborts the engine, which must count as crashes;
  //   "leak-on-reject"  after a rejected call, a change to the memory in RAM
  //                     (every third time flushed to flash as well), which must
  //                     count as state changed on reject.
  mutant?: "parse-first" | "leak-on-reject";
}

const enc = new (globalThis as unknown as { TextEncoder: typeof TextEncoder }).TextEncoder();
const bytesOf = (msg: object): ArrayBuffer => {
  const b = enc.encode(JSON.stringify(msg));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
};
const send = (msg: object): void => void issueCommand(bytesOf(msg));

setTraceSink(() => {});
freezeIntrinsics();

function main(o: XsFuzzOptions): void {
  let leaks = 0;
  const make = (): Target => {
    const t = serviceTarget();
    return o.mutant === "parse-first"
      ? {
          ...t,
          handle(m) {
            try {
              JSON.parse(m);
            } catch {
              // bad JSON: the server answers it
            }
            return t.handle(m);
          },
        }
      : o.mutant === "leak-on-reject"
        ? {
            ...t,
            handle(m) {
              const reply = t.handle(m);
              if (reply !== undefined && (reply.includes('"error":{') || reply.includes('"isError":true'))) {
                t.service.memory.addPreference("like", `leak ${++leaks}`);
                if (leaks % 3 === 0) t.service.flush();
              }
              return reply;
            },
          }
        : t;
  };
  const counters = (r: FuzzResult) => COUNTERS.map((k) => r[k]);
  const res = fuzz({
    n: o.n,
    seed: o.seed,
    from: o.from,
    makeTarget: make,
    reset: o.reset,
    maxReports: o.maxReports,
    onInput: (i, r) => send({ t: "i", i, c: counters(r) }),
    onReport: (r) => send({ t: "report", r }),
  });
  const { reports, ...stats } = res;
  send({ t: "done", res: stats });
}

function input(seed: number, i: number): ArrayBuffer {
  const x = inputAt(seed, i);
  return bytesOf({ text: clip(x.text), valid: x.valid });
}

(globalThis as unknown as { __fuzz: unknown }).__fuzz = { main, input };

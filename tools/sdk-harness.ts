// A small shim of the globals the Moddable SDK's test harness gives a test
// (tools/testmc/main.js and tools/test262/harness.js in the SDK): assert,
// assert.sameValue, assert.notSameValue, assert.throws (the thrown value's
// constructor must be the expected one, exactly, as test262 checks),
// assert.compareArray, Test262Error, $DONE, $DO and $TESTMC. No Node APIs:
// tools/sdk-tests.ts uses it under Node and bundles it into XS.
import { SimDevice } from "../host-sim/device";

export class Test262Error extends Error {
  constructor(message?: string) {
    super(message ?? "");
    Object.defineProperty(this, "name", { value: "Test262Error", configurable: true, writable: true });
  }
}

function show(v: unknown): string {
  try {
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "bigint") return `${v}n`;
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

type AssertFn = ((cond: unknown, message?: string) => void) & Record<string, unknown>;

export function makeAssert(): AssertFn {
  const assert = ((cond: unknown, message?: string) => {
    if (cond === true) return;
    throw new Test262Error(message ?? `Expected true but got ${show(cond)}`);
  }) as AssertFn;
  assert.sameValue = (actual: unknown, expected: unknown, message?: string) => {
    if (Object.is(actual, expected)) return;
    throw new Test262Error(`${message ? message + " " : ""}Expected SameValue(«${show(actual)}», «${show(expected)}») to be true`);
  };
  assert.notSameValue = (actual: unknown, unexpected: unknown, message?: string) => {
    if (!Object.is(actual, unexpected)) return;
    throw new Test262Error(`${message ? message + " " : ""}Expected SameValue(«${show(actual)}», «${show(unexpected)}») to be false`);
  };
  assert.throws = (expected: { name: string }, fn: () => unknown, message?: string) => {
    const prefix = message ? message + " " : "";
    if (typeof fn !== "function") throw new Test262Error("assert.throws requires two arguments: the error constructor and a function to run");
    try {
      fn();
    } catch (thrown) {
      if (typeof thrown !== "object" || thrown === null) throw new Test262Error(`${prefix}Thrown value was not an object!`);
      const ctor = (thrown as { constructor?: { name?: string } }).constructor;
      if (ctor !== expected) throw new Test262Error(`${prefix}Expected a ${expected.name} but got a ${ctor?.name} (${(thrown as Error).message})`);
      return;
    }
    throw new Test262Error(`${prefix}Expected a ${expected.name} to be thrown but no exception was thrown at all`);
  };
  assert.compareArray = (actual: ArrayLike<unknown>, expected: ArrayLike<unknown>, message?: string) => {
    let eq = actual.length === expected.length;
    for (let i = 0; eq && i < actual.length; i++) eq = Object.is(actual[i], expected[i]);
    if (!eq) throw new Test262Error(`Actual [${Array.from(actual).map(String).join(", ")}] and expected [${Array.from(expected).map(String).join(", ")}] should have the same contents. ${message ?? ""}`);
  };
  return assert;
}

// Installs the globals on a fresh simulated device; `done(error?)` gets $DONE's call.
export function install(done: (err?: unknown) => void): void {
  const g = globalThis as Record<string, unknown>;
  g.assert = makeAssert();
  g.Test262Error = Test262Error;
  g.$DONE = (err?: unknown) => done(err);
  g.$DO = (f: (...a: unknown[]) => void) => (...args: unknown[]) => {
    try {
      f(...args);
      done();
    } catch (e) {
      done(e);
    }
  };
  g.$TESTMC = Object.freeze({ config: {}, wifiConnectionTimeout: 5000 });
  new SimDevice().install();
}

export function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

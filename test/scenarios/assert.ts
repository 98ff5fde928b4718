// A tiny assertion library with no Node dependency, so the same scenarios run
// under mocha on Node and inside the XS engine (test/xs).

export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "AssertionError", configurable: true, writable: true });
  }
}

function show(v: unknown): string {
  try {
    if (v instanceof Uint8Array) return `Uint8Array[${Array.prototype.join.call(v, ",")}]`;
    if (v instanceof ArrayBuffer) return `ArrayBuffer[${Array.prototype.join.call(new Uint8Array(v), ",")}]`;
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

export function ok(value: unknown, message = "expected truthy"): asserts value {
  if (!value) throw new AssertionError(`${message}: got ${show(value)}`);
}

export function equal<T>(actual: T, expected: T, message = "not equal"): void {
  if (!Object.is(actual, expected)) throw new AssertionError(`${message}: expected ${show(expected)}, got ${show(actual)}`);
}

export function notEqual<T>(actual: T, expected: T, message = "should differ"): void {
  if (Object.is(actual, expected)) throw new AssertionError(`${message}: both ${show(actual)}`);
}

function deepEq(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof ArrayBuffer && b instanceof ArrayBuffer) return deepEq(new Uint8Array(a), new Uint8Array(b));
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object), kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEq((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

export function deepEqual(actual: unknown, expected: unknown, message = "not deep-equal"): void {
  if (!deepEq(actual, expected)) throw new AssertionError(`${message}: expected ${show(expected)}, got ${show(actual)}`);
}

// Asserts that fn throws; `match` checks the error's constructor name and/or a substring of its message.
export function throws(fn: () => unknown, match?: { name?: string; message?: string | RegExp }, message = "expected a throw"): Error {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  if (caught === undefined) throw new AssertionError(message);
  const err = caught as Error;
  if (match?.name !== undefined && err?.name !== match.name && err?.constructor?.name !== match.name)
    throw new AssertionError(`${message}: expected ${match.name}, got ${err?.name}: ${err?.message}`);
  if (match?.message !== undefined) {
    const m = String(err?.message);
    const hit = typeof match.message === "string" ? m.includes(match.message) : match.message.test(m);
    if (!hit) throw new AssertionError(`${message}: expected message ${String(match.message)}, got ${show(m)}`);
  }
  return err;
}

// A Moddable device runs with its built-ins frozen (the preload step freezes
// them), so an assignment such as `this.name = "X"` in an Error subclass
// throws there ("set name: not writable"). Code bundled for XS (the scenario
// harness, the fuzzer) freezes them too before it runs anything.
export function freezeIntrinsics(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  const names = [
    "Object", "Function", "Array", "String", "Number", "Boolean", "Symbol", "Date", "RegExp", "Map", "Set", "WeakMap", "WeakSet",
    "Promise", "ArrayBuffer", "DataView", "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array",
    "Float32Array", "Float64Array", "BigInt", "Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError",
    "URIError", "AggregateError", "JSON", "Math", "Reflect", "TextEncoder", "TextDecoder",
  ];
  for (const n of names) {
    const v = g[n] as { prototype?: object } | undefined;
    if (!v) continue;
    Object.freeze(v);
    const proto = (v as { prototype?: object }).prototype;
    if (typeof v === "function" && proto) Object.freeze(proto);
  }
  const typed = Object.getPrototypeOf(Uint8Array) as { prototype: object };
  Object.freeze(typed);
  Object.freeze(typed.prototype);
}

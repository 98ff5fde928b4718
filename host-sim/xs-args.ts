// How a Moddable host function sees its arguments through XS's C API: the
// errors device code gets for a missing argument or a Symbol.

// xsArg(n) on a call with fewer arguments (XS is built with mxBoundsCheck)
export function arg(args: IArguments, n: number): unknown {
  if (args.length <= n) throw new SyntaxError(`C: xsArg(${n}): invalid index`);
  return args[n];
}

// xsmcToString: a Symbol throws TypeError, an object goes through ToPrimitive
export function toStr(v: unknown): string {
  if (typeof v === "symbol") throw new TypeError("cannot coerce symbol to string");
  return `${v as string}`;
}

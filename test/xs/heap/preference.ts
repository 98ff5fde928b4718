// `preference` for the heap lane: forwards to host-sim's in Node (bridge.ts).
import { call } from "./bridge";

export default class Preference {
  static set(domain: string, key: string, value: boolean | number | string | ArrayBuffer): void {
    if (value instanceof ArrayBuffer) call(["pset", domain, key, "ab"], value);
    else call(["pset", domain, key, value === undefined ? "undef" : "v", value]);
  }
  static get(domain: string, key: string): boolean | number | string | ArrayBuffer | undefined {
    const r = call(["pget", domain, key]);
    return r.payload ?? (r.value === null ? undefined : (r.value as boolean | number | string));
  }
  static delete(domain: string, key: string): void {
    call(["pdel", domain, key]);
  }
  static keys(domain: string): string[] {
    return call(["pkeys", domain]).value as string[];
  }
}

// The Moddable `preference` module with the ESP32 port's behaviour
// (modules/files/preference/esp32): static API over NVS, strict argument and
// type checks, and set = erase the key, then write it.

import { SimDevice } from "./device.js";
import { NvsError } from "./nvs.js";

export const MAX_NAME_BYTES = 15;
export const MAX_VALUE_BYTES = 4000;

const enc = new TextEncoder();

function need(args: IArguments, n: number): void {
  if (args.length < n) throw new SyntaxError("no such argument");
}

function name(v: unknown, what: string): string {
  const s = String(v);
  if (enc.encode(s).length > MAX_NAME_BYTES) throw new RangeError(`${what} too long`);
  return s;
}

function fail(e: unknown, op: string): never {
  if (e instanceof NvsError) throw new Error(`${op} failed: ${e.message}`);
  throw e;
}

export default class Preference {
  static set(domain: string, key: string, value: boolean | number | string | ArrayBuffer): void {
    need(arguments, 3);
    const dev = SimDevice.current;
    const d = name(domain, "domain"), k = name(key, "key");
    let type: "u8" | "i32" | "str" | "blob";
    let v: number | string | Uint8Array;
    switch (typeof value) {
      case "boolean":
        type = "u8";
        v = value ? 1 : 0;
        break;
      case "number":
        if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) throw new TypeError("float unsupported");
        type = "i32";
        v = value;
        break;
      case "string":
        if (enc.encode(value).length > MAX_VALUE_BYTES) throw new RangeError("value too long");
        type = "str";
        v = value;
        break;
      default:
        if (!(value instanceof ArrayBuffer)) throw new TypeError("unsupported type");
        if (value.byteLength > MAX_VALUE_BYTES) throw new RangeError("value too long");
        type = "blob";
        v = new Uint8Array(value.slice(0));
    }
    dev.flash.assertPowered();
    try {
      // the ESP32 port erases first (to dodge an ESP-IDF type-change bug): a
      // power cut between the two loses both old and new value
      dev.nvs.erase(d, k);
      dev.nvs.set(d, k, type, v);
    } catch (e) {
      fail(e, "nvs_set");
    }
  }

  static get(domain: string, key: string): boolean | number | string | ArrayBuffer | undefined {
    need(arguments, 2);
    const d = name(domain, "domain"), k = name(key, "key");
    const got = SimDevice.current.nvs.get(d, k);
    if (!got) return undefined;
    switch (got.type) {
      case "u8":
        return got.value !== 0;
      case "i32":
        return got.value as number;
      case "str":
        return got.value as string;
      default: {
        const b = got.value as Uint8Array;
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      }
    }
  }

  static delete(domain: string, key: string): void {
    need(arguments, 2);
    const d = name(domain, "domain"), k = name(key, "key");
    try {
      SimDevice.current.nvs.erase(d, k);
    } catch (e) {
      fail(e, "nvs_erase_key");
    }
  }

  static keys(domain: string): string[] {
    need(arguments, 1);
    return SimDevice.current.nvs.keys(name(domain, "domain"));
  }
}

// The Moddable `preference` module with the ESP32 port's behaviour
// (modules/files/preference/esp32): static API over NVS, strict argument and
// type checks, and set = erase the key, then write it.

import { SimDevice } from "./device.js";
import { NvsError } from "./nvs.js";

export const MAX_NAME_BYTES = 15;
export const MAX_VALUE_BYTES = 4000;

const enc = new TextEncoder();

// XS's own message for a missing argument of a host function
function need(args: IArguments, n: number): void {
  if (args.length < n) throw new SyntaxError(`C: xsArg(${args.length}): invalid index`);
}

// Moddable copies names into 64-byte C buffers; NVS itself takes 15 bytes.
function bytes(v: unknown): number {
  return enc.encode(String(v)).length;
}

function buffered(v: unknown): string {
  if (bytes(v) >= 64) throw new RangeError("cannot buffer string");
  return String(v);
}

// The device's message is all device code sees; the host keeps NVS's reason.
class PreferenceError extends Error {
  constructor(message: string, readonly reason?: string) {
    super(message);
  }
}

function fail(e: unknown, message: string): never {
  if (e instanceof NvsError) throw new PreferenceError(message, e.code);
  throw e;
}

export default class Preference {
  static set(domain: string, key: string, value: boolean | number | string | ArrayBuffer): void {
    need(arguments, 3);
    const dev = SimDevice.current;
    const d = String(domain), k = buffered(key);
    let type: "u8" | "i32" | "str" | "blob";
    let v: number | string | Uint8Array;
    switch (typeof value) {
      case "boolean":
        type = "u8";
        v = value ? 1 : 0;
        break;
      case "number":
        if (!Number.isInteger(value)) throw new Error("float unsupported");
        // past int32 the device's C cast is undefined behaviour: refuse it here
        if (value < -2147483648 || value > 2147483647) throw new RangeError("integer out of int32 range");
        type = "i32";
        v = value;
        break;
      case "string":
        // Moddable documents 4000 bytes; refused before the erase, so nothing changes
        if (enc.encode(value).length > MAX_VALUE_BYTES) throw new RangeError("value too long");
        type = "str";
        v = value;
        break;
      default:
        if (!(value instanceof ArrayBuffer)) throw new Error("unsupported type");
        if (value.byteLength > MAX_VALUE_BYTES) throw new RangeError("value too long");
        type = "blob";
        v = new Uint8Array(value.slice(0));
    }
    dev.flash.assertPowered();
    if (bytes(d) > MAX_NAME_BYTES) throw new Error("nvs_open fail");
    try {
      // the ESP32 port erases first (to dodge an ESP-IDF type-change bug): a
      // power cut between the two, or a set that NVS refuses, loses the old value
      if (bytes(k) <= MAX_NAME_BYTES) dev.nvs.erase(d, k);
      dev.nvs.set(d, k, type, v);
    } catch (e) {
      fail(e, "nvs set fail");
    }
  }

  static get(domain: string, key: string): boolean | number | string | ArrayBuffer | undefined {
    need(arguments, 2);
    const k = buffered(key);
    const d = String(domain);
    SimDevice.current.flash.assertPowered();
    if (bytes(d) > MAX_NAME_BYTES) return undefined; // nvs_open fails: "domain doesn't exist yet"
    if (bytes(k) > MAX_NAME_BYTES) throw new Error("nvs get fail");
    let got;
    try {
      got = SimDevice.current.nvs.get(d, k); // any NVS error but "not found" (a blob missing a chunk) throws
    } catch (e) {
      fail(e, "nvs get fail");
    }
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
    const d = buffered(domain), k = buffered(key);
    SimDevice.current.flash.assertPowered();
    if (bytes(d) > MAX_NAME_BYTES) return;
    if (bytes(k) > MAX_NAME_BYTES) throw new Error("nvs erase fail");
    try {
      SimDevice.current.nvs.erase(d, k);
    } catch (e) {
      fail(e, "nvs erase fail");
    }
  }

  static keys(domain: string): string[] {
    need(arguments, 1);
    SimDevice.current.flash.assertPowered();
    const d = String(domain);
    return bytes(d) > MAX_NAME_BYTES ? [] : SimDevice.current.nvs.keys(d);
  }
}

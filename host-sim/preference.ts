// The Moddable `preference` module with the ESP32 port's behaviour
// (modules/files/preference/esp32/modPreference.c): static API over NVS, the
// C code's order of argument conversions and its errors, and set = erase the
// key, then write it (whatever NVS then refuses, the old value is gone).

import { arg, toStr } from "./xs-args.js";
import { SimDevice } from "./device.js";
import { NvsError } from "./nvs.js";

export const MAX_NAME_BYTES = 15;
// Moddable documents 4000 bytes; the device enforces only NVS's own limits
// (a string of 4000 bytes with its NUL; a blob as large as a multi-page blob).
export const MAX_VALUE_BYTES = 4000;

const enc = new TextEncoder();


// xsmcToStringBuffer(v, buf, 64): toStr, then the bytes and a NUL must fit 64 bytes
function toBuffer(v: unknown): string {
  const s = toStr(v);
  if (bytes(s) >= 64) throw new RangeError("cannot buffer string");
  return s;
}

function bytes(s: string): number {
  return enc.encode(s).length;
}

// nvs_open: a name NVS cannot hold fails (READWRITE would also create the namespace)
function opens(domain: string): boolean {
  return bytes(domain) <= MAX_NAME_BYTES;
}

// The device throws a plain Error (xsUnknownError) with only its message; the
// host keeps NVS's reason in a non-enumerable `reason`, for failure messages.
function deviceError(message: string, reason: string): Error {
  const e = new Error(message);
  Object.defineProperty(e, "reason", { value: reason, configurable: true, writable: true });
  return e;
}

function fail(e: unknown, message: string): never {
  if (e instanceof NvsError) throw deviceError(message, e.code);
  throw e;
}

function notFound(e: unknown): boolean {
  return e instanceof NvsError && e.code === "ESP_ERR_NVS_NOT_FOUND";
}

export default class Preference {
  // xs_preference_set: domain (ToString), nvs_open, key (64-byte buffer), then the
  // value's type; the key is erased (errors ignored) before nvs_set_*.
  static set(domain: string, key: string, value: boolean | number | string | ArrayBuffer): void {
    const d = toStr(arg(arguments, 0));
    const dev = SimDevice.current;
    dev.flash.assertPowered();
    if (!opens(d)) throw new Error("nvs_open fail");
    const k = toBuffer(arg(arguments, 1));
    const v = arg(arguments, 2);
    let type: "u8" | "i32" | "str" | "blob";
    let data: number | string | Uint8Array;
    switch (typeof v) {
      case "boolean":
        type = "u8";
        data = v ? 1 : 0;
        break;
      case "number":
        // an integer kind, or a number whose (int) cast gives it back
        if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw new Error("float unsupported");
        type = "i32";
        data = v | 0;
        break;
      case "string":
        type = "str";
        data = v;
        break;
      default:
        if (!(v instanceof ArrayBuffer)) throw new Error("unsupported type");
        type = "blob";
        data = new Uint8Array(v.slice(0));
    }
    // ERASE_KEY: nvs_erase_key's result is not checked
    try {
      dev.nvs.erase(d, k);
    } catch (e) {
      if (!(e instanceof NvsError)) throw e;
    }
    try {
      dev.nvs.set(d, k, type, data);
    } catch (e) {
      fail(e, "nvs set fail");
    }
  }

  // xs_preference_get: key (64-byte buffer) first, then domain; a domain that
  // does not open reads as missing; nvs_get_u8, _i32, _str, _blob in turn: any
  // error other than "not found" is "nvs get fail".
  static get(domain: string, key: string): boolean | number | string | ArrayBuffer | undefined {
    const k = toBuffer(arg(arguments, 1));
    const d = toStr(arg(arguments, 0));
    const dev = SimDevice.current;
    dev.flash.assertPowered();
    if (!opens(d)) return undefined;
    if (bytes(k) > MAX_NAME_BYTES) throw new Error("nvs get fail"); // ESP_ERR_NVS_KEY_TOO_LONG
    let got: ReturnType<typeof dev.nvs.get>;
    try {
      got = dev.nvs.get(d, k);
    } catch (e) {
      if (notFound(e)) return undefined;
      if (e instanceof NvsError) throw deviceError("nvs get fail", e.code);
      throw e;
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

  // xs_preference_delete: domain and key (64-byte buffers), nvs_open (failure:
  // nothing to do), nvs_erase_key (not found is fine).
  static delete(domain: string, key: string): void {
    const d = toBuffer(arg(arguments, 0));
    const k = toBuffer(arg(arguments, 1));
    const dev = SimDevice.current;
    dev.flash.assertPowered();
    if (!opens(d)) return;
    try {
      dev.nvs.erase(d, k);
    } catch (e) {
      if (notFound(e)) return;
      fail(e, "nvs erase fail");
    }
  }

  // xs_preference_keys: nvs_entry_find over the namespace; none is [].
  static keys(domain: string): string[] {
    const d = toStr(arg(arguments, 0));
    const dev = SimDevice.current;
    dev.flash.assertPowered();
    if (!opens(d)) return [];
    try {
      return dev.nvs.keys(d);
    } catch (e) {
      if (e instanceof NvsError) return [];
      throw e;
    }
  }
}

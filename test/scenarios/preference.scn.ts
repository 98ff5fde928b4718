// The preference contract of the ESP32 port, as the Moddable SDK's own
// preference tests exercise it, plus erase-then-write under power loss.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const fresh = () => new SimDevice().install();
const D = "test";

export const scenarios: Scenario[] = [
  {
    name: "missing arguments throw SyntaxError",
    run() {
      fresh();
      const P = Preference as unknown as Record<string, (...a: unknown[]) => unknown>;
      throws(() => P.set(), { name: "SyntaxError", message: "C: xsArg(0): invalid index" });
      throws(() => P.get(), { name: "SyntaxError", message: "C: xsArg(1): invalid index" }, "get reads the key first");
      throws(() => P.set(D), { name: "SyntaxError" });
      throws(() => P.set(D, "k"), { name: "SyntaxError" });
      throws(() => P.get(D), { name: "SyntaxError" });
      throws(() => P.delete(D), { name: "SyntaxError" });
      throws(() => P.keys(), { name: "SyntaxError" });
    },
  },
  {
    name: "int32, boolean, string and ArrayBuffer round-trip",
    run() {
      fresh();
      Preference.set(D, "i", 2147483647);
      Preference.set(D, "n", -2147483648);
      Preference.set(D, "t", true);
      Preference.set(D, "f", false);
      Preference.set(D, "s", "宠物 pet");
      Preference.set(D, "e", "");
      Preference.set(D, "b", Uint8Array.of(1, 2, 3).buffer);
      equal(Preference.get(D, "i"), 2147483647);
      equal(Preference.get(D, "n"), -2147483648);
      equal(Preference.get(D, "t"), true);
      equal(Preference.get(D, "f"), false);
      equal(Preference.get(D, "s"), "宠物 pet");
      equal(Preference.get(D, "e"), "");
      deepEqual(new Uint8Array(Preference.get(D, "b") as ArrayBuffer), Uint8Array.of(1, 2, 3));
      deepEqual(Preference.keys(D).sort(), ["b", "e", "f", "i", "n", "s", "t"]);
    },
  },
  {
    name: "floats, out-of-range numbers, undefined, null, objects, functions and BigInt throw",
    run() {
      fresh();
      const set = Preference.set as (d: string, k: string, v: unknown) => void;
      for (const v of [1.5, NaN, Infinity, 2147483648, -2147483649, undefined, null, {}, [], () => 1, BigInt(1), Symbol("x"), new Uint8Array(2)])
        throws(() => set(D, "x", v), undefined, `value ${String(typeof v)} ${String(v as string)}`);
      throws(() => set(D, "x", 1.5), { message: "float unsupported" });
      throws(() => set(D, "x", {}), { message: "unsupported type" });
      equal(Preference.get(D, "x"), undefined, "nothing was stored");
      deepEqual(Preference.keys(D), []);
    },
  },
  {
    name: "domain and key: 15 bytes work, 16 fail (UTF-8 bytes, not characters)",
    run() {
      fresh();
      const k15 = "k".repeat(15), k16 = "k".repeat(16), d15 = "d".repeat(15), d16 = "d".repeat(16);
      Preference.set(d15, k15, 1);
      equal(Preference.get(d15, k15), 1);
      // the ESP32 port's own errors: nvs_open refuses the domain, NVS the key
      throws(() => Preference.set(d16, "k", 1), { message: "nvs_open fail" });
      throws(() => Preference.set(D, k16, 1), { message: "nvs set fail" });
      throws(() => Preference.get(D, k16), { message: "nvs get fail" });
      throws(() => Preference.delete(D, k16), { message: "nvs erase fail" });
      equal(Preference.get(d16, "k"), undefined, "an unknown (over-long) domain reads as missing");
      deepEqual(Preference.keys(d16), []);
      throws(() => Preference.set(D, "k".repeat(64), 1), { name: "RangeError", message: "cannot buffer string" });
      throws(() => Preference.set(D, "名字名字名字", 1), { message: "nvs set fail" }); // 18 bytes, 6 characters
      Preference.set(D, "名字名字名", 2); // 15 bytes
      equal(Preference.get(D, "名字名字名"), 2);
      deepEqual(Preference.keys(D).sort(), ["名字名字名"], "nothing else was stored");
    },
  },
  {
    name: "a value NVS refuses is refused after the erase: the old value is lost, as on the device",
    run() {
      fresh();
      Preference.set(D, "b", new ArrayBuffer(4000));
      equal((Preference.get(D, "b") as ArrayBuffer).byteLength, 4000);
      // the ESP32 port checks no size: NVS stores a larger blob in several chunks
      Preference.set(D, "b", new ArrayBuffer(4001));
      equal((Preference.get(D, "b") as ArrayBuffer).byteLength, 4001, "a multi-page blob");
      // a string takes 4000 bytes with its NUL: longer ones fail after the erase
      Preference.set(D, "s", "x".repeat(3999));
      equal((Preference.get(D, "s") as string).length, 3999);
      throws(() => Preference.set(D, "s", "x".repeat(4000)), { name: "Error", message: "nvs set fail" });
      equal(Preference.get(D, "s"), undefined, "erase-then-write lost the old value");
      Preference.set(D, "s", "old");
      throws(() => Preference.set(D, "s", "汉".repeat(1334)), { message: "nvs set fail" }); // 4002 bytes
      equal(Preference.get(D, "s"), undefined, "a multi-byte string over the limit too");
      // a blob larger than NVS can hold at all: erased, then refused
      Preference.set(D, "b", Uint8Array.of(7).buffer);
      throws(() => Preference.set(D, "b", new ArrayBuffer(50000)), { message: "nvs set fail" }); // over ESP-IDF's 11 pages x 4000 for 12 pages
      equal(Preference.get(D, "b"), undefined, "the old blob is gone");
      deepEqual(Preference.keys(D), [], "nothing else was stored");
    },
  },
  {
    name: "missing key or domain gets undefined; keys of unknown domain is []",
    run() {
      fresh();
      equal(Preference.get("nodomain", "k"), undefined);
      Preference.set(D, "a", 1);
      equal(Preference.get(D, "zz"), undefined);
      deepEqual(Preference.keys("nodomain"), []);
      Preference.delete(D, "a");
      Preference.delete(D, "a"); // deleting twice is fine
      equal(Preference.get(D, "a"), undefined);
      deepEqual(Preference.keys(D), []);
    },
  },
  {
    name: "a key can change type",
    run() {
      fresh();
      Preference.set(D, "k", 5);
      Preference.set(D, "k", "five");
      equal(Preference.get(D, "k"), "five");
      Preference.set(D, "k", new ArrayBuffer(10));
      equal((Preference.get(D, "k") as ArrayBuffer).byteLength, 10);
      Preference.set(D, "k", true);
      equal(Preference.get(D, "k"), true);
      deepEqual(Preference.keys(D), ["k"]);
    },
  },
  {
    name: "set erases then writes: a cut between the two loses the key",
    run() {
      const dev = fresh();
      Preference.set(D, "k", "old");
      // write 1 of the next set is the erase, write 2 the new value
      dev.cutAfter(2, () => 0);
      ok(SimDevice.survive(() => Preference.set(D, "k", "new")), "the cut happened");
      dev.reboot();
      equal(Preference.get(D, "k"), undefined, "neither old nor new survives");
    },
  },
  {
    name: "a cut at the erase keeps the old value; after the write, the new one",
    run() {
      const dev = fresh();
      Preference.set(D, "k", "old");
      dev.cutAfter(1, () => 0);
      ok(SimDevice.survive(() => Preference.set(D, "k", "new")));
      dev.reboot();
      equal(Preference.get(D, "k"), "old");
      // the erase (1 bitmap word), then the string (entry, bitmap, data entry, bitmap)
      dev.cutAfter(1 + 4 + 1);
      ok(!SimDevice.survive(() => Preference.set(D, "k", "new")), "five flash writes, the sixth is not reached");
      dev.flash.disarm();
      dev.reboot();
      equal(Preference.get(D, "k"), "new");
    },
  },
  {
    name: "a torn multi-chunk blob is dropped at boot, the other keys are kept",
    run() {
      const dev = fresh();
      Preference.set(D, "keep", "yes");
      // fill most of the active page so a 3000-byte blob needs two chunks
      Preference.set(D, "pad", "p".repeat(2000));
      dev.cutAfter(3); // erase of "big" is skipped (absent): 1 chunk, 2 chunk, 3 index
      ok(SimDevice.survive(() => Preference.set(D, "big", new ArrayBuffer(3000))));
      dev.reboot();
      equal(Preference.get(D, "big"), undefined);
      equal(Preference.get(D, "keep"), "yes");
      equal((Preference.get(D, "pad") as string).length, 2000);
    },
  },
  {
    name: "every call fails while the power is off",
    run() {
      const dev = fresh();
      dev.cutAfter(1);
      SimDevice.survive(() => Preference.set(D, "k", 1));
      throws(() => Preference.get(D, "k"), { name: "PowerCut" });
      throws(() => Preference.set(D, "k", 1), { name: "PowerCut" });
      dev.reboot();
      equal(Preference.get(D, "k"), undefined);
    },
  },
];

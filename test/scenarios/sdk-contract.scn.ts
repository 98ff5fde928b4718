// The contract of the ESP32 port's C code (modPreference.c, modFile.c) in the
// places where a lenient simulator differs: the order in which arguments are
// converted, what each failure throws or returns, and the five file descriptors.
import Preference from "preference";
import { File, Iterator, System } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { NvsError } from "../../host-sim/nvs";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const fresh = () => new SimDevice().install();
const root = config.file.root;
const D = "test";
type Any = (...a: unknown[]) => unknown;
const P = Preference as unknown as Record<string, Any>;
const F = File as unknown as Record<string, Any> & (new (...a: unknown[]) => File);

// exactly this constructor, as test262's assert.throws checks
function throwsExactly(fn: () => unknown, ctor: ErrorConstructor, message?: string): void {
  const e = throws(fn, undefined, `expected ${ctor.name}`);
  equal((e as object).constructor, ctor as unknown, `${ctor.name} expected, got ${e.name}: ${e.message}`);
  if (message !== undefined) equal(e.message, message);
}

function write(path: string, text: string): void {
  const f = new File(path, true);
  f.write(text);
  f.close();
}

export const scenarios: Scenario[] = [
  {
    name: "preference: a Symbol argument throws TypeError, before a missing argument is noticed",
    run() {
      fresh();
      const s = Symbol("x");
      throwsExactly(() => P.delete(s), TypeError, "cannot coerce symbol to string");
      throwsExactly(() => P.delete("1", s), TypeError);
      throwsExactly(() => P.set(s), TypeError);
      throwsExactly(() => P.set(D, s, 1), TypeError);
      throwsExactly(() => P.get(D, s), TypeError);
      throwsExactly(() => P.get(s), SyntaxError, "C: xsArg(1): invalid index"); // the key is read first
      throwsExactly(() => P.keys(s), TypeError);
      throwsExactly(() => P.delete(), SyntaxError, "C: xsArg(0): invalid index");
      throwsExactly(() => P.delete("1"), SyntaxError, "C: xsArg(1): invalid index");
      // a Symbol as the value is just an unsupported type
      throwsExactly(() => P.set(D, "k", s), Error, "unsupported type");
      deepEqual(Preference.keys(D), []);
    },
  },
  {
    name: "preference: names are converted like strings (numbers, objects with toString)",
    run() {
      fresh();
      P.set("foo", 1, 1);
      P.set("foo", { toString: () => "two" }, 2);
      equal(Preference.get("foo", "1"), 1);
      equal(P.get("foo", { toString: () => "two" }), 2);
      deepEqual(Preference.keys("foo").sort(), ["1", "two"]);
      P.delete("foo", 1);
      equal(Preference.get("foo", "1"), undefined);
    },
  },
  {
    name: "preference: every failure is a plain Error with the device's message",
    run() {
      fresh();
      for (const [fn, msg] of [
        [() => P.set(D, "k", 1.5), "float unsupported"],
        [() => P.set(D, "k", 2 ** 31), "float unsupported"],
        [() => P.set(D, "k", NaN), "float unsupported"],
        [() => P.set(D, "k", null), "unsupported type"],
        [() => P.set(D, "k", 1n), "unsupported type"],
        [() => P.set(D, "k", new Uint8Array(1)), "unsupported type"],
        [() => P.set("d".repeat(16), "k", 1), "nvs_open fail"],
        [() => P.set(D, "k".repeat(16), 1), "nvs set fail"],
        [() => P.set(D, "k", "x".repeat(4000)), "nvs set fail"],
        [() => P.get(D, "k".repeat(16)), "nvs get fail"],
        [() => P.delete(D, "k".repeat(16)), "nvs erase fail"],
      ] as [() => unknown, string][])
        throwsExactly(fn, Error, msg);
      throwsExactly(() => P.set(D, "k".repeat(64), 1), RangeError, "cannot buffer string");
      P.set(D, "z", -0);
      ok(Object.is(Preference.get(D, "z"), 0), "-0 is stored as 0");
    },
  },
  {
    name: "preference: set erases the old value before NVS refuses the new one",
    run() {
      fresh();
      Preference.set(D, "k", "old value");
      throwsExactly(() => Preference.set(D, "k", "n".repeat(5000)), Error, "nvs set fail");
      equal(Preference.get(D, "k"), undefined, "the device lost the old value");
      Preference.set(D, "k", 7);
      throwsExactly(() => P.set(D, "k", 0.5), Error, "float unsupported");
      equal(Preference.get(D, "k"), 7, "a type error comes before the erase");
    },
  },
  {
    name: "preference: get maps an NVS error other than not-found to 'nvs get fail'",
    run() {
      const dev = fresh();
      Preference.set(D, "k", "v");
      const nvs = dev.nvs as unknown as { get: (...a: unknown[]) => unknown };
      const orig = nvs.get;
      try {
        nvs.get = () => {
          throw new NvsError("ESP_ERR_NVS_CORRUPT_DATA", "data crc");
        };
        throwsExactly(() => Preference.get(D, "k"), Error, "nvs get fail");
        nvs.get = () => {
          throw new NvsError("ESP_ERR_NVS_NOT_FOUND", "not found");
        };
        equal(Preference.get(D, "k"), undefined, "not found is undefined");
      } finally {
        nvs.get = orig;
      }
      equal(Preference.get(D, "k"), "v");
    },
  },
  {
    name: "file: arguments are converted in the C code's order, with XS's errors",
    run() {
      fresh();
      throwsExactly(() => new F(), SyntaxError, "C: xsArg(0): invalid index");
      throwsExactly(() => new F(Symbol()), TypeError);
      throwsExactly(() => new F({}), Error, "file not found");
      throwsExactly(() => (F as unknown as Any)(root + "x"), TypeError);
      throwsExactly(() => F.exists(), SyntaxError);
      throwsExactly(() => F.exists(Symbol()), TypeError);
      throwsExactly(() => F.delete(Symbol()), TypeError);
      throwsExactly(() => F.rename(root + "a"), SyntaxError, "C: xsArg(1): invalid index");
      throwsExactly(() => F.rename(Symbol(), "b"), TypeError);
      throwsExactly(() => F.rename(root + "a", Symbol()), TypeError);
      throwsExactly(() => new (Iterator as unknown as new (...a: unknown[]) => unknown)(""), Error, "bad path");
      throwsExactly(() => new Iterator("/elsewhere/"), Error, "failed to open directory");
      equal(System.config().maxPathLength, 32);
    },
  },
  {
    name: "file: read into a buffer, a count of 0, counts converted to integers",
    run() {
      fresh();
      write(root + "r", "0123456789");
      const f = new File(root + "r");
      const into = new Uint8Array(4);
      equal(f.read(into), into, "returns the buffer it filled");
      deepEqual(into, Uint8Array.of(48, 49, 50, 51));
      equal(f.position, 4);
      const big = new ArrayBuffer(20);
      equal(f.read(big, 3), big);
      deepEqual(new Uint8Array(big, 0, 4), Uint8Array.of(52, 53, 54, 0));
      equal(f.read(String, 0), "", "a count of 0 reads nothing");
      equal(f.read(String, 1.9 as number), "7", "a count is truncated");
      equal(f.read(String, "2" as unknown as number), "89");
      equal(f.read(String, 0), "", "at the end, a count of 0 does not throw");
      throwsExactly(() => f.read(String), Error, "read past end of file");
      throwsExactly(() => f.read({} as ArrayBuffer), Error, "read past end of file"); // the end is checked before the type
      f.position = 0;
      throwsExactly(() => f.read({} as ArrayBuffer), TypeError);
      throwsExactly(() => f.read(new Uint16Array(2)), TypeError);
      f.close();
    },
  },
  {
    name: "file: position clamps to the end and ignores a negative offset; numbers write one byte",
    run() {
      fresh();
      const f = new File(root + "p", true);
      f.write("abc");
      f.position = 100;
      equal(f.position, 3, "past the end: SPIFFS_lseek leaves the end");
      f.position = -5;
      equal(f.position, 3, "negative: unchanged");
      f.position = 1.7;
      equal(f.position, 1);
      f.write(0x141, -1, "Z", new DataView(Uint8Array.of(9).buffer));
      equal(f.length, 5);
      f.position = 0;
      deepEqual(new Uint8Array(f.read(ArrayBuffer)), Uint8Array.of(97, 0x41, 0xff, 90, 9));
      throwsExactly(() => f.write(true as unknown as string), TypeError);
      f.close();
      const r = new File(root + "p");
      throwsExactly(() => r.write("x"), Error, "file write failed");
      r.write(""); // nothing to write: no error, as fwrite of 0 bytes
      r.close();
    },
  },
  {
    name: "file: at most 5 files open; the 6th open, and delete and rename, fail until one closes",
    run() {
      const dev = fresh();
      const open: File[] = [];
      for (let i = 0; i < 5; i++) open.push(new File(`${root}f${i}`, true));
      throwsExactly(() => new File(root + "f5", true), Error, "file not found");
      equal(File.exists(root + "f5"), false, "nothing was created");
      throwsExactly(() => new File(root + "f0"), Error, "file not found");
      equal(File.delete(root + "f1"), false, "SPIFFS_remove needs a descriptor");
      equal(File.rename(root + "f1", "g1"), false, "SPIFFS_rename needs a descriptor");
      ok(File.exists(root + "f0"), "exists needs none");
      const it = new Iterator(root);
      let n = 0;
      while (it.next()) n++;
      equal(n, 5, "neither does the iterator");
      open[0].close();
      open[0] = new File(root + "f5", true);
      open[1].close();
      equal(File.delete(root + "f1"), true);
      for (const f of open.slice(2)) f.close();
      open[0].close();
      for (let i = 0; i < 5; i++) new File(`${root}g${i}`, true).close(); // closed files free their descriptor
      // a reboot closes everything
      for (let i = 0; i < 5; i++) new File(`${root}g${i}`);
      dev.reboot();
      new File(root + "g0").close();
    },
  },
  {
    name: "file: Iterator on a folder lists the objects named under it (SPIFFS is flat)",
    run() {
      fresh();
      write(root + "top", "1");
      write(root + "sub/a", "22");
      write(root + "sub//b", "333");
      const names = (p: string) => {
        const out: string[] = [];
        for (const e of new Iterator(p) as unknown as Iterable<{ name: string; length: number }>) out.push(`${e.name}:${e.length}`);
        return out.sort();
      };
      deepEqual(names(root), ["sub//b:3", "sub/a:2", "top:1"]);
      deepEqual(names(root.slice(0, -1)), ["sub//b:3", "sub/a:2", "top:1"], "the mount point without its slash");
      // esp_spiffs.c matches "/sub/" and then wants one more "/": "sub//b" shows as "b"
      deepEqual(names(root + "sub/"), ["b:3"]);
      const it = new Iterator(root);
      while (it.next());
      equal(it.next(), undefined, "after the end, undefined again");
    },
  },
];

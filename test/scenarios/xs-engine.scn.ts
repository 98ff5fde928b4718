// Engine facts device code relies on. Every scenario passes on Node (mocha) and
// in the XS lane (test/xs, an xsnap worker built without mxCESU8,
// mxStringNormalize and mxRegExpUnicodePropertyEscapes, like a device build).
// Facts that differ are asserted per engine. Never write a \p{…} regex literal
// here or in src/: on the device it makes the whole bundle fail to parse.
import { deepEqual, equal, ok, throws } from "./assert.js";
import { engine } from "./engine.js";
import type { Scenario } from "./types.js";

const xs = engine() === "xs";
const g = globalThis as Record<string, unknown>;

export const scenarios: Scenario[] = [
  {
    name: "JSON round-trips objects, numbers and non-ASCII text",
    run() {
      const v = { a: 1, b: [true, null, "x"], s: "été 中文 😀", n: -0.5, big: 2 ** 53 - 1 };
      deepEqual(JSON.parse(JSON.stringify(v)), v);
      equal(JSON.stringify("😀"), '"😀"');
      equal(JSON.stringify({ k: undefined, f() {} }), "{}");
      throws(() => JSON.parse("{bad"), { name: "SyntaxError" });
    },
  },
  {
    name: "typed arrays, DataView and ArrayBuffer.slice",
    run() {
      const buf = new ArrayBuffer(8);
      const dv = new DataView(buf);
      dv.setUint32(0, 0x01020304, true);
      dv.setInt16(4, -2, false);
      deepEqual(Array.from(new Uint8Array(buf)), [4, 3, 2, 1, 0xff, 0xfe, 0, 0]);
      equal(dv.getUint32(0, true), 0x01020304);
      const s = buf.slice(1, 3);
      equal(s.byteLength, 2);
      const u = new Uint8Array(buf, 2, 4);
      equal(u.subarray(1).byteOffset, 3);
      const copy = new Uint8Array(4);
      copy.set(u);
      deepEqual(Array.from(copy), [2, 1, 0xff, 0xfe]);
      equal(new Uint32Array(3).fill(7).reduce((a, b) => a + b, 0), 21);
      throws(() => new Uint8Array(-1), { name: "RangeError" });
    },
  },
  {
    name: "Date, Math.random and number formatting",
    run() {
      equal(typeof Date.now(), "number");
      ok(Date.now() > Date.UTC(2020, 0, 1), "Date.now is a real wall time");
      equal(Date.UTC(2026, 0, 1), 1767225600000);
      equal(new Date(1767225600000).toISOString(), "2026-01-01T00:00:00.000Z");
      equal(new Date("2026-01-01T00:00:00Z").getTime(), 1767225600000);
      const r = Math.random();
      ok(r >= 0 && r < 1, "Math.random in [0, 1)");
      equal((0.1 + 0.2).toString(), "0.30000000000000004");
      equal((1.005).toFixed(2), "1.00");
      equal((255).toString(16), "ff");
      equal(Number.parseInt("08", 10), 8);
    },
  },
  {
    name: "promises and async functions settle",
    async run() {
      const order: number[] = [];
      const p = (async () => {
        order.push(1);
        await null;
        order.push(3);
        return 4;
      })();
      order.push(2);
      equal(await p, 4);
      await Promise.all([Promise.resolve(), new Promise<void>((r) => r())]);
      deepEqual(order, [1, 2, 3]);
    },
  },
  {
    name: "Map/Set keep insertion order; sort is stable",
    run() {
      const m = new Map<string, number>([["b", 1], ["a", 2]]);
      m.set("c", 3);
      deepEqual([...m.keys()], ["b", "a", "c"]);
      deepEqual([...new Set([3, 1, 3, 2])], [3, 1, 2]);
      const items = [{ k: 1, i: 0 }, { k: 0, i: 1 }, { k: 1, i: 2 }, { k: 0, i: 3 }];
      deepEqual(items.sort((a, b) => a.k - b.k).map((x) => x.i), [1, 3, 0, 2]);
      equal([1, 2, 3].at(-1), 3);
      ok(Object.hasOwn({ x: 1 }, "x"));
    },
  },
  {
    name: "string length: code points on XS (UTF-8 strings), UTF-16 code units on Node",
    run() {
      const s = "a😀b";
      equal(s.codePointAt(1), 0x1f600);
      equal([...s].length, 3);
      equal(s.length, xs ? 3 : 4);
      equal("😀".charCodeAt(0), xs ? 0x1f600 : 0xd83d);
      equal("é中".length, 2);
    },
  },
  {
    name: "no Intl on XS; localeCompare/toLocaleString are not locale-aware there",
    run() {
      if (!xs) return ok(typeof g.Intl === "object");
      equal(typeof g.Intl, "undefined");
      ok("a".localeCompare("B") > 0, "XS localeCompare compares code units");
      equal((1234567.5).toLocaleString(), "1234567.5");
    },
  },
  {
    name: "String.prototype.normalize: ASCII only on XS",
    run() {
      equal("abc".normalize("NFC"), "abc");
      if (!xs) return equal("\u00e9".normalize("NFD").length, 2);
      throws(() => "\u4e2d".normalize(), { name: "RangeError" });
      throws(() => "\u00e9".normalize("NFD"), { name: "RangeError" });
    },
  },
  {
    name: "regex \\p{…} property escapes: absent on XS",
    run() {
      // Built with the constructor: a literal would break parsing of the whole XS bundle.
      const make = () => new RegExp("\\p{L}", "u");
      if (xs) throws(make, { name: "SyntaxError" });
      else ok(make().test("é"));
      ok(/[a-z]+/iu.test("ABC"), "ordinary u-flag regexps work");
    },
  },
];

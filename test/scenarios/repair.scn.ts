// Single-bit repair (src/archive/repair.ts; docs/FORMAT.md "Single-bit repair"):
// a flipped bit in a 4 KB block is found from its CRC-32 and flipped back, one in
// a format 2 line (body, CRC digits or constant suffix) from the line's own CRC;
// two flips are never "repaired" into other data. Runs in mocha and in XS; every
// one of the 32,768 positions of a block is flipped in test/repair.test.ts.
import { crc32 } from "../../src/nvs/crc32";
import { prng } from "../../host-sim/flash";
import { encode } from "../../src/text/utf8";
import { repairBit, repairLine, lineCrcOk, crcOneBitOff, REPAIR_MAX_BYTES, LINE_CRC_SUFFIX, LINE_CRC_SUFFIX4 } from "../../src/archive/repair";
import { sealLine, lineOk } from "../../src/archive/codec";
import { ok, equal, throws } from "./assert";
import type { Scenario } from "./types";

export function randomBytes(n: number, seed: number): Uint8Array {
  const r = prng(seed);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

// Index of the first byte where a and b differ, or -1.
export function firstDiff(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

const decodeTail = (b: Uint8Array, k: number) => String.fromCharCode(...Array.from(b.subarray(b.length - k)));

export const flip = (b: Uint8Array, bit: number) => {
  b[bit >> 3] ^= 1 << (bit & 7);
};

const hex8 = (n: number) => {
  let s = (n >>> 0).toString(16);
  while (s.length < 8) s = "0" + s;
  return s;
};

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
// The CRC's 32 bits and 4 zero bits, 6 at a time from the most significant (FORMAT.md §3.18).
export const b64crc = (c: number) => {
  let s = "";
  for (let i = 0; i < 5; i++) s += B64URL[Math.floor((c >>> 0) / 2 ** (26 - 6 * i)) % 64];
  return s + B64URL[(c & 3) * 16];
};

// A line without its "\n": the body, then `,"z":"` + its CRC-32 as `crcText` writes it + `"}`.
function framed(body: string, crcText: (crc: number) => string): Uint8Array {
  const b = encode(body);
  const suffix = encode(`,"z":"${crcText(crc32(b))}"}`);
  const out = new Uint8Array(b.length + suffix.length);
  out.set(b, 0);
  out.set(suffix, b.length);
  return out;
}

// A format 4 line: the CRC-32 in 6 base64url characters.
export const makeLine4 = (body: string): Uint8Array => framed(body, b64crc);

// A format 2 line: the CRC-32 in lowercase hex.
export const makeLine = (body: string): Uint8Array => framed(body, hex8);

export const LINES = [
  '{"t":"2026-03-01T08:15:00","i":"1a2b3c4d","c":"likes green tea in the morning"',
  '{"t":"2026-03-02T21:40:12","i":"9f00e1c7","c":"今天和小明去公园放风筝，很开心","e":"happy"',
  '{"t":"2026-02-28T00:00:00","i":"00000000","c":"x"',
];

// Two flips at distinct positions (seeded), never in the same bit.
function pairs(bits: number, n: number, seed: number): number[] {
  const r = prng(seed);
  const out: number[] = [];
  while (out.length < 2 * n) {
    const a = Math.floor(r() * bits), b = Math.floor(r() * bits);
    if (a !== b) out.push(a, b);
  }
  return out;
}

// Each pair of bits of `list` (list[0] and list[1], list[2] and list[3], …)
// flipped in a copy of the line `orig`: repairLine gives -1 and leaves the copy
// as it was, and neither check passes it.
function pairsRefused(orig: Uint8Array, list: number[]): void {
  const n = orig.length;
  for (let i = 0; i < list.length; i += 2) {
    const b = orig.slice();
    flip(b, list[i]);
    flip(b, list[i + 1]);
    const damaged = b.slice();
    equal(repairLine(b, 0, n), -1, `flips at ${list[i]} and ${list[i + 1]}`);
    equal(firstDiff(b, damaged), -1, "untouched");
    ok(!lineCrcOk(b, 0, n) && !lineOk(b, 0, n));
  }
}

export const scenarios: Scenario[] = [
  {
    name: "repairBit: a 4 KB block, 520 positions spread over every bit of a byte: each flip is found, fixed in place, its index returned",
    run() {
      const orig = randomBytes(4096, 7);
      const crc = crc32(orig);
      const b = orig.slice();
      const positions: number[] = [0, 1, 2, 3, 4, 5, 6, 7, 32760, 32761, 32762, 32763, 32764, 32765, 32766, 32767];
      for (let k = 0; k < 504; k++) positions.push(k * 65 + ((k * 37) % 64));
      for (const p of positions) {
        flip(b, p);
        equal(repairBit(b, 0, 4096, crc), p, `flip at bit ${p}`);
        equal(firstDiff(b, orig), -1, `block restored after bit ${p}`);
      }
      equal(repairBit(b, 0, 4096, crc), -2, "a whole block: -2");
    },
  },
  {
    name: "repairBit: a block inside a larger buffer; the index is absolute and bytes outside [s, e) are never touched",
    run() {
      const orig = randomBytes(4096 + 40, 11);
      const s = 17, e = 17 + 4096;
      const crc = crc32(orig, s, e);
      const b = orig.slice();
      for (const p of [s * 8, s * 8 + 5, (s + 1000) * 8 + 3, e * 8 - 1]) {
        flip(b, p);
        equal(repairBit(b, s, e, crc), p);
        equal(firstDiff(b, orig), -1);
      }
      // a flip outside the range is not in the CRC: the range still checks
      flip(b, (s - 1) * 8);
      equal(repairBit(b, s, e, crc), -2);
      flip(b, (s - 1) * 8);
      // a wrong range is a clear error, nothing changes
      throws(() => repairBit(b, -1, e, crc), { name: "RangeError" });
      throws(() => repairBit(b, s, b.length + 1, crc), { name: "RangeError" });
      throws(() => repairBit(b, e, s, crc), { name: "RangeError" });
      throws(() => repairBit(b, 1.5, e, crc), { name: "RangeError" });
      equal(firstDiff(b, orig), -1);
    },
  },
  {
    name: "repairBit: two flips in a 4 KB block (160 seeded pairs) and three (40) are never repaired: -1, buffer untouched",
    run() {
      const orig = randomBytes(4096, 23);
      const crc = crc32(orig);
      const p2 = pairs(32768, 160, 5);
      for (let i = 0; i < p2.length; i += 2) {
        const b = orig.slice();
        flip(b, p2[i]);
        flip(b, p2[i + 1]);
        const damaged = b.slice();
        equal(repairBit(b, 0, 4096, crc), -1, `flips at ${p2[i]} and ${p2[i + 1]}`);
        equal(firstDiff(b, damaged), -1, "untouched");
      }
      const p3 = pairs(32768, 60, 9);
      for (let i = 0; i + 2 < p3.length; i += 3) {
        if (p3[i + 2] === p3[i] || p3[i + 2] === p3[i + 1]) continue;
        const b = orig.slice();
        flip(b, p3[i]);
        flip(b, p3[i + 1]);
        flip(b, p3[i + 2]);
        equal(repairBit(b, 0, 4096, crc), -1, `flips at ${p3[i]}, ${p3[i + 1]}, ${p3[i + 2]}`);
      }
    },
  },
  {
    name: "repairBit: a flip in the stored CRC itself gives -1 and crcOneBitOff names its bit; spans past REPAIR_MAX_BYTES are not repaired",
    run() {
      const orig = randomBytes(4096, 31);
      const crc = crc32(orig);
      const b = orig.slice();
      for (const k of [0, 1, 13, 30, 31]) {
        const stored = (crc ^ (1 << k)) >>> 0;
        equal(repairBit(b, 0, 4096, stored), -1);
        equal(firstDiff(b, orig), -1);
        equal(crcOneBitOff(crc32(b), stored), k);
      }
      equal(crcOneBitOff(crc, crc), -1);
      equal(crcOneBitOff(crc, crc ^ 3), -1);
      // the longest span repaired: its first bit is the farthest from the end
      const big = randomBytes(REPAIR_MAX_BYTES + 1, 3);
      const bigCrc = crc32(big, 0, REPAIR_MAX_BYTES);
      flip(big, 0);
      equal(repairBit(big, 0, REPAIR_MAX_BYTES, bigCrc), 0);
      const longer = crc32(big);
      flip(big, 0);
      equal(repairBit(big, 0, REPAIR_MAX_BYTES + 1, longer), -1, "one byte too long");
      flip(big, 0);
      equal(repairBit(big, 0, REPAIR_MAX_BYTES + 1, longer), -2);
    },
  },
  {
    name: "repairLine: every bit of three lines (body, CRC digits, `,\"z\":\"` and `\"}`) flipped is fixed in place",
    run() {
      for (const text of LINES) {
        const orig = makeLine(text);
        ok(lineCrcOk(orig, 0, orig.length), "a whole line checks");
        equal(repairLine(orig.slice(), 0, orig.length), -2);
        const b = orig.slice();
        for (let p = 0; p < orig.length * 8; p++) {
          flip(b, p);
          ok(!lineCrcOk(b, 0, b.length), `bit ${p} flipped no longer checks`);
          equal(repairLine(b, 0, b.length), p, `${text.slice(0, 20)}…: bit ${p} (byte ${p >> 3} of ${orig.length})`);
          equal(firstDiff(b, orig), -1);
        }
      }
    },
  },
  {
    name: "repairLine on lines the archive seals (codec.sealLine, format 4's frame and format 3's): lineCrcOk agrees with codec.lineOk, every flip of a record line is repaired",
    run() {
      const bodies = ['{"t":1772330400,"c":"主人会游泳"', '{"T":194493601,"c":"likes green tea","p":"drink","e":"happy","i":3,"m":2', '{"v":2,"s":"f"'];
      for (const [body, fmt] of bodies.flatMap((x) => [[x, 4], [x, 3]] as [string, 2 | 3 | 4][])) {
        const sealed = sealLine(body, fmt);
        equal(sealed.length, encode(body).length + (fmt === 4 ? LINE_CRC_SUFFIX4 : LINE_CRC_SUFFIX) + 1, `format ${fmt}'s frame`);
        const e = sealed.length - 1; // without its "\n"
        equal(sealed[e], 10);
        ok(lineOk(sealed, 0, e) && lineCrcOk(sealed, 0, e), body);
        const b = sealed.slice();
        for (let p = 0; p < e * 8; p++) {
          flip(b, p);
          equal(lineCrcOk(b, 0, e), lineOk(b, 0, e), `bit ${p}: the two checks agree`);
          equal(repairLine(b, 0, e), p, `${body}: bit ${p}`);
          ok(lineOk(b, 0, e));
        }
        equal(firstDiff(b, sealed), -1);
      }
    },
  },
  {
    name: "repairLine: a line inside a segment buffer (s > 0), other lines untouched",
    run() {
      const l1 = makeLine(LINES[0]), l2 = makeLine(LINES[1]);
      const orig = new Uint8Array(l1.length + 1 + l2.length + 1);
      orig.set(l1, 0);
      orig[l1.length] = 10;
      orig.set(l2, l1.length + 1);
      orig[orig.length - 1] = 10;
      const s = l1.length + 1, e = orig.length - 1;
      const b = orig.slice();
      for (const p of [s * 8, (s + 7) * 8 + 6, (e - LINE_CRC_SUFFIX) * 8 + 1, (e - 10) * 8 + 2, e * 8 - 1]) {
        flip(b, p);
        equal(repairLine(b, s, e), p);
        equal(firstDiff(b, orig), -1);
      }
      equal(repairLine(b, 0, l1.length), -2);
    },
  },
  {
    name: "repairLine: two flips (seeded pairs and body+digit, digit+digit, digit+suffix, suffix+suffix, body+suffix) give -1, untouched",
    run() {
      const orig = makeLine(LINES[1]);
      const n = orig.length, b0 = n - LINE_CRC_SUFFIX;
      const bits = n * 8;
      const list = pairs(bits, 300, 17);
      const body = 3 * 8 + 2, digit = (b0 + 7) * 8 + 1, digit2 = (b0 + 11) * 8 + 0, pre = (b0 + 2) * 8 + 4, post = (n - 1) * 8 + 1;
      list.push(body, digit, digit, digit2, digit, pre, pre, post, body, pre, body, post, digit2, post);
      // two bits of one digit: stays a digit ('3' -> '0') or not
      list.push((b0 + 6) * 8 + 0, (b0 + 6) * 8 + 1, (b0 + 9) * 8 + 2, (b0 + 9) * 8 + 6);
      pairsRefused(orig, list);
    },
  },
  {
    name: "repairLine, format 4: every flip of a line found (body, base64url characters, padding bits, constant bytes); two flips (seeded pairs and body+char, char+char, char+padding, char+suffix) give -1, untouched",
    run() {
      for (const body of LINES) {
        const orig = makeLine4(body);
        const n = orig.length;
        ok(lineCrcOk(orig, 0, n) && lineOk(orig, 0, n), "it checks");
        equal(decodeTail(orig, LINE_CRC_SUFFIX4).slice(0, 6), ',"z":"', "format 4's frame");
        const b = orig.slice();
        for (let p = 0; p < n * 8; p++) {
          flip(b, p);
          equal(repairLine(b, 0, n), p, `${body}: bit ${p}`);
        }
        equal(firstDiff(b, orig), -1);
      }
      const orig = makeLine4(LINES[1]);
      const n = orig.length, b0 = n - LINE_CRC_SUFFIX4;
      const list = pairs(n * 8, 300, 19);
      const body = 3 * 8 + 2, ch = (b0 + 7) * 8 + 1, ch2 = (b0 + 9) * 8 + 0, pad = (b0 + 11) * 8 + 0, pre = (b0 + 2) * 8 + 4, post = (n - 1) * 8 + 1;
      list.push(body, ch, ch, ch2, ch, pad, ch, pre, pre, post, body, pre, body, pad, ch2, post);
      // two bits of one character: stays base64url or not
      list.push((b0 + 6) * 8 + 0, (b0 + 6) * 8 + 1, (b0 + 8) * 8 + 5, (b0 + 8) * 8 + 6);
      pairsRefused(orig, list);
      // the same body in format 3's frame: another line, both check, neither is read in the other's frame
      const l3 = makeLine(LINES[1]);
      ok(lineCrcOk(l3, 0, l3.length) && lineOk(l3, 0, l3.length));
      equal(l3.length, n + 2);
    },
  },
  {
    name: "repairLine: what is not a line gives -1 and is untouched; lineCrcOk is false for it",
    run() {
      const cases = [
        encode("hello world, this is not an archive line at all"),
        encode('{"t":"2026-03-01T08:15:00","id":"1a2b3c4d","content":"a format 1 line"}'),
        encode(',"z":"0000000'),
        new Uint8Array(0),
        encode('{"c":"upper case digits","z":"' + "ABCDEF12" + '"}'),
      ];
      // a line whose CRC is written in upper case: several digits off, not repairable
      const upper = makeLine(LINES[0]);
      for (let i = upper.length - 10; i < upper.length - 2; i++) if (upper[i] >= 0x61) upper[i] -= 0x20;
      if (firstDiff(upper, makeLine(LINES[0])) >= 0) cases.push(upper);
      for (const c of cases) {
        const b = c.slice();
        equal(repairLine(b, 0, b.length), -1);
        equal(firstDiff(b, c), -1);
        equal(lineCrcOk(b, 0, b.length), false);
      }
      const line = makeLine(LINES[2]);
      equal(lineCrcOk(line, 0, line.length - 1), false, "without its last byte");
      equal(repairLine(line, 1, line.length), -1, "without its first byte");
      throws(() => repairLine(line, 0, line.length + 1), { name: "RangeError" });
      throws(() => lineCrcOk(line, -1, 3), { name: "RangeError" });
    },
  },
];

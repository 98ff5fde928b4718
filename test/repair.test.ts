// Single-bit repair, exhaustively on Node (the scenario test/scenarios/repair.scn.ts
// runs a spread of it in XS too): every bit of a 4 KB block, every pair of bits of
// a line, and the properties of CRC-32 the rules of src/archive/repair.ts rest on.
import assert from "node:assert/strict";
import { crc32 } from "../src/nvs/crc32";
import { repairBit, repairLine, lineCrcOk, REPAIR_MAX_BYTES, LINE_REPAIR_MAX_BYTES, LINE_CRC_SUFFIX } from "../src/archive/repair";
import { randomBytes, firstDiff, flip, makeLine, makeLine4, LINES } from "./scenarios/repair.scn";
import { prng } from "../host-sim/flash";

const POLY = 0xedb88320 | 0;
// crc0 of a single 1 bit at distance d from the end, for d < n (the syndrome walk, written again here)
function syndromes(n: number): Int32Array {
  const out = new Int32Array(n);
  let r = POLY;
  for (let d = 0; d < n; d++) {
    out[d] = r;
    r = r & 1 ? (r >>> 1) ^ POLY : r >>> 1;
  }
  return out;
}
const weight = (x: number) => {
  let c = 0;
  for (x >>>= 0; x; x >>>= 1) c += x & 1;
  return c;
};

// Every pair of flipped bits of a line: repairLine gives -1 and leaves the line as it was.
function everyPairRefused(orig: Uint8Array): void {
  const bits = orig.length * 8;
  let pairs = 0;
  for (let p = 0; p < bits; p++)
    for (let q = p + 1; q < bits; q++) {
      const b = orig.slice();
      flip(b, p);
      flip(b, q);
      const got = repairLine(b, 0, b.length);
      if (got !== -1) assert.fail(`flips at ${p} and ${q}: repaired ${got}`);
      flip(b, p);
      flip(b, q);
      if (firstDiff(b, orig) !== -1) assert.fail(`flips at ${p} and ${q}: buffer changed`);
      pairs++;
    }
  assert.equal(pairs, (bits * (bits - 1)) / 2);
}

// A body that makes a line of 500 to 511 bytes (MAX_LINE_BYTES: 512) in either frame.
const MAX_BODY = `{"c":"${"今天天气很好".repeat(27)}"`;

// Every single flip of a long line (a checking one) is found and fixed.
function everyFlipFixed(orig: Uint8Array): void {
  assert.ok(orig.length >= 500 && orig.length < 512, String(orig.length));
  assert.ok(lineCrcOk(orig, 0, orig.length));
  const b = orig.slice();
  for (let p = 0; p < orig.length * 8; p++) {
    flip(b, p);
    const got = repairLine(b, 0, b.length);
    if (got !== p) assert.fail(`bit ${p}: repaired ${got}`);
  }
  assert.equal(firstDiff(b, orig), -1);
}

describe("archive repair (src/archive/repair.ts)", () => {
  it("the syndrome of a bit is crc(x) ^ crc(x with that bit flipped), for any x", () => {
    const syn = syndromes(64 * 8);
    for (const seed of [1, 2, 3]) {
      const x = randomBytes(64, seed);
      const c = crc32(x);
      for (let p = 0; p < 64 * 8; p++) {
        flip(x, p);
        assert.equal((crc32(x) ^ c) | 0, syn[64 * 8 - 1 - p], `bit ${p}`);
        flip(x, p);
      }
    }
  });

  it("every one of the 32,768 bits of a 4 KB block flipped is found and fixed", () => {
    const orig = randomBytes(4096, 101);
    const crc = crc32(orig);
    const b = orig.slice();
    for (let p = 0; p < 32768; p++) {
      flip(b, p);
      const got = repairBit(b, 0, 4096, crc);
      if (got !== p || b[p >> 3] !== orig[p >> 3]) assert.fail(`bit ${p}: repaired ${got}`);
    }
    assert.equal(firstDiff(b, orig), -1);
  });

  it("every bit of a 4,097-byte block at an odd offset, and a spread over the longest span (REPAIR_MAX_BYTES)", () => {
    const orig = randomBytes(4097 + 8, 102);
    const s = 3, e = 3 + 4097;
    const crc = crc32(orig, s, e);
    const b = orig.slice();
    for (let p = s * 8; p < e * 8; p++) {
      flip(b, p);
      const got = repairBit(b, s, e, crc);
      if (got !== p) assert.fail(`bit ${p}: repaired ${got}`);
    }
    assert.equal(firstDiff(b, orig), -1);
    const big = randomBytes(REPAIR_MAX_BYTES, 103);
    const bigCrc = crc32(big);
    const copy = big.slice();
    for (let p = 0; p < REPAIR_MAX_BYTES * 8; p += 97) {
      flip(copy, p);
      assert.equal(repairBit(copy, 0, REPAIR_MAX_BYTES, bigCrc), p);
    }
    assert.equal(firstDiff(copy, big), -1);
  });

  // Pairs are never repaired (HD 4); triples can be, rarely (about 1 in 130,000, tools/repair-bench.ts
  // --triples): this seeded sample has none, and a change of seed could meet one.
  it("5,000 seeded pairs and 2,000 triples of flips in a 4 KB block: never repaired, untouched", () => {
    const orig = randomBytes(4096, 104);
    const crc = crc32(orig);
    const r = prng(105);
    const pick = () => Math.floor(r() * 32768);
    for (let i = 0; i < 7000; i++) {
      const ps = i < 5000 ? [pick(), pick()] : [pick(), pick(), pick()];
      if (new Set(ps).size !== ps.length) continue;
      const b = orig.slice();
      for (const p of ps) flip(b, p);
      const damaged = b.slice();
      const got = repairBit(b, 0, 4096, crc);
      if (got !== -1) assert.fail(`flips at ${ps}: repaired ${got}`);
      if (firstDiff(b, damaged) !== -1) assert.fail(`flips at ${ps}: buffer changed`);
    }
  });

  it("every pair of flipped bits of a line gives -1 and leaves it untouched", () => everyPairRefused(makeLine(LINES[0])));

  it("a body flip changes the CRC in at least 6 bits within REPAIR_MAX_BYTES, so never in one hex digit alone", () => {
    const syn = syndromes(REPAIR_MAX_BYTES * 8);
    let min = 32;
    for (let d = 0; d < syn.length; d++) min = Math.min(min, weight(syn[d]));
    assert.ok(min >= 6, `min weight ${min}`);
  });

  // A hex digit flipped into another digit changes the stored value by one of these in one nibble.
  const DIGIT_DELTAS: number[] = [];
  const hexOf = (v: number) => (v < 10 ? 0x30 + v : 0x57 + v);
  for (let a = 0; a < 16; a++)
    for (let b = a + 1; b < 16; b++) if (weight(hexOf(a) ^ hexOf(b)) === 1 && !DIGIT_DELTAS.includes(a ^ b)) DIGIT_DELTAS.push(a ^ b);

  function firstBodyDigitCollision(bits: number): [number, number, number] | undefined {
    const syn = syndromes(bits);
    const seen = new Map<number, number>();
    for (let d = 0; d < bits; d++) {
      for (let k = 0; k < 8; k++)
        for (const v of DIGIT_DELTAS) {
          const delta = (v << (4 * k)) | 0;
          const o = seen.get(syn[d] ^ delta);
          if (o !== undefined) return [o, d, delta];
        }
      seen.set(syn[d], d);
    }
    return undefined;
  }

  it("up to LINE_REPAIR_MAX_BYTES, a body flip plus a digit flipped into another digit never looks like one body flip", () => {
    assert.deepEqual(DIGIT_DELTAS.sort((a, b) => a - b), [1, 2, 3, 4, 6, 7, 8]);
    assert.equal(firstBodyDigitCollision(LINE_REPAIR_MAX_BYTES * 8), undefined);
  });

  it("past it one does (bits 15,496 and 22,406 from the end, top digit a <-> c): such a line is not repaired", () => {
    const hit = firstBodyDigitCollision(24000);
    assert.deepEqual(hit, [15496, 22406, 0x60000000 | 0]);
    // a 2,900-byte body whose CRC starts with "a" or "c"
    let line: Uint8Array | undefined;
    for (let i = 0; !line; i++) {
      const l = makeLine(`{"c":"${"x".repeat(2880)}","n":${i}`);
      const top = l[l.length - 10];
      if (top === 0x61 || top === 0x63) line = l;
    }
    const b = line.length - LINE_CRC_SUFFIX;
    assert.ok(b * 8 > 22406 && b > LINE_REPAIR_MAX_BYTES);
    const damaged = line.slice();
    flip(damaged, b * 8 - 1 - 15496);
    damaged[b + 6] ^= 2; // "a" <-> "c"
    // the syndrome walk alone would "repair" the other body bit: wrong data with a CRC that checks
    const stored = parseInt(new TextDecoder().decode(damaged.subarray(b + 6, b + 14)), 16);
    const wrong = damaged.slice();
    assert.equal(repairBit(wrong, 0, b, stored), b * 8 - 1 - 22406);
    assert.ok(lineCrcOk(wrong, 0, wrong.length) && firstDiff(wrong, line) >= 0);
    // repairLine refuses
    const copy = damaged.slice();
    assert.equal(repairLine(copy, 0, copy.length), -1);
    assert.equal(firstDiff(copy, damaged), -1);
  });

  it("digits that are not all hex are never read as a CRC, even when the body's CRC would then point at a bit", () => {
    // a body whose CRC c has ~c equal to the syndrome of one of its bits: read as -1, the
    // digits would "point" at that bit (c ^ -1 = ~c)
    const prefix = new TextEncoder().encode(`{"c":"${"y".repeat(1990)}","n":`);
    const head = crc32(prefix);
    const bits = (prefix.length + 7) * 8;
    const syn = new Set(syndromes(bits));
    let n = 0;
    for (; n < 5_000_000; n++) {
      const tail = new TextEncoder().encode(String(n));
      if (syn.has(~crc32(tail, 0, tail.length, head) | 0)) break;
    }
    const line = makeLine(`{"c":"${"y".repeat(1990)}","n":${n}`);
    const b = line.length - LINE_CRC_SUFFIX;
    line[b + 12] = 0x67; // "g": not a hex digit
    line[b + 13] = 0x67;
    const damaged = line.slice();
    assert.equal(repairLine(line, 0, line.length), -1);
    assert.equal(firstDiff(line, damaged), -1);
  });

  it("a single flip in a line of MAX_LINE_BYTES is fixed wherever it is", () => everyFlipFixed(makeLine(MAX_BODY)));
  // Format 4's frame (FORMAT.md §3.18): the CRC in 6 base64url characters, 6 bits each, the
  // last one holding the CRC's 2 lowest bits and 4 zero bits.
  const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const GROUPS: [number, number][] = [[26, 63], [20, 63], [14, 63], [8, 63], [2, 63], [0, 3]]; // shift, mask of the CRC's bits per character
  // A base64url character flipped in one bit into another changes its 6-bit value by one of these.
  const CHAR_DELTAS: number[] = [];
  for (let a = 0; a < 64; a++)
    for (let b = a + 1; b < 64; b++) if (weight(B64URL.charCodeAt(a) ^ B64URL.charCodeAt(b)) === 1 && !CHAR_DELTAS.includes(a ^ b)) CHAR_DELTAS.push(a ^ b);

  it("format 4: a body flip never changes the CRC within one base64url character's bits, within REPAIR_MAX_BYTES", () => {
    const syn = syndromes(REPAIR_MAX_BYTES * 8);
    for (let d = 0; d < syn.length; d++) {
      const x = syn[d] >>> 0;
      for (const [sh, m] of GROUPS) if ((((x >>> sh) & m) << sh) >>> 0 === x) assert.fail(`bit ${d} from the end: syndrome ${x.toString(16)} within one character`);
    }
  });

  function firstBodyCharCollision(bits: number): [number, number, number] | undefined {
    const syn = syndromes(bits);
    const seen = new Map<number, number>();
    for (let d = 0; d < bits; d++) {
      for (let k = 0; k < 6; k++)
        for (const v of CHAR_DELTAS) {
          if (k === 5 && v & 15) continue; // the last character's padding bits must stay zero
          const delta = k < 5 ? (v << (26 - 6 * k)) | 0 : v >> 4;
          const o = seen.get(syn[d] ^ delta);
          if (o !== undefined) return [o, d, delta];
        }
      seen.set(syn[d], d);
    }
    return undefined;
  }

  it("format 4: up to LINE_REPAIR_MAX_BYTES, a body flip plus a character flipped into another never looks like one body flip (the first pair: bits 15,495 and 22,405)", () => {
    assert.equal(firstBodyCharCollision(LINE_REPAIR_MAX_BYTES * 8), undefined);
    assert.deepEqual(firstBodyCharCollision(24000), [15495, 22405, 0xc0000000 | 0]);
  });

  it("format 4: every pair of flipped bits of a line gives -1 and leaves it untouched", () => everyPairRefused(makeLine4(LINES[2]))); // the shortest: 126,756 pairs

  it("format 4: a single flip in a line of MAX_LINE_BYTES is fixed wherever it is", () => everyFlipFixed(makeLine4(MAX_BODY)));

  it("one flip never turns a line of one frame into a line of the other: every flip of a format 3 and a format 4 line is repaired in its own frame", () => {
    for (const mk of [makeLine, makeLine4])
      for (const body of LINES) {
        const orig = mk(body);
        const b = orig.slice();
        for (let p = 0; p < orig.length * 8; p++) {
          flip(b, p);
          assert.equal(lineCrcOk(b, 0, b.length), false, `bit ${p}`);
          if (repairLine(b, 0, b.length) !== p) assert.fail(`${body}: bit ${p}`);
        }
        assert.equal(firstDiff(b, orig), -1);
      }
  });
});

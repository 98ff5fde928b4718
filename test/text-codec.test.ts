// The read path's hot loops against their definitions, on Node (the XS lane
// runs the same comparisons in test/scenarios/compact-text.scn.ts):
// - compact text's one-pass encoder and decoder (src/text/compact.ts) give what
//   the plain forms give (encodeSlow, decodeSlow), and every held-out text comes back;
// - sigAdd (src/archive/fold.ts) sets the bits of the element-by-element
//   definition (a bigram or a non-ASCII character, two bits each).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compactEncode, compactDecode, encodeSlow, decodeSlow, TABLE1 } from "../src/text/compact";
import { sigAdd, foldString } from "../src/archive/fold";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

// the held-out texts (never in the table's corpus) and the table's own corpus, one text a line
function texts(): string[] {
  const out = read("test/text/heldout-speech.txt").split("\n").filter((l) => l && !l.startsWith("#"));
  for (const f of ["test/extract/heldout-speech.ts", "tools/recall-eval/heldout.ts"])
    for (const line of read(f).split("\n")) {
      const m = line.match(/[\u0800-\uffff][^`"'|]*[\u0800-\uffff]/g);
      if (m) out.push(...m);
    }
  out.push(...read("tools/text-table/speech.txt").split("\n").filter(Boolean));
  return out;
}

describe("compact text: one pass over bytes", () => {
  it("every held-out text (and the table's corpus) encodes as the plain form does and comes back", () => {
    const all = texts();
    assert.ok(all.length > 800, `texts: ${all.length}`);
    let chars = 0;
    for (const s of all) {
      const c = compactEncode(s);
      assert.equal(c, encodeSlow(s), s);
      assert.equal(compactDecode(c), s, s);
      assert.equal(decodeSlow(c), s, s);
      chars += s.length;
    }
    // one string of them all: many times the decoder's scratch
    const joined = all.join("\n");
    assert.equal(compactDecode(compactEncode(joined)), joined);
    assert.ok(chars > 10000, `chars: ${chars}`);
  });

  it("a string of every code, each code alone, and damaged copies decode as the plain form does", () => {
    const n = TABLE1.n1 + TABLE1.n2 + TABLE1.np;
    const codes: string[] = [];
    for (let e = 0; e < n; e++) codes.push(compactEncode(TABLE1.entries[e]));
    for (let e = 0; e < n; e++) assert.equal(compactDecode(codes[e]), TABLE1.entries[e], `entry ${e}`);
    const s = codes.join("");
    assert.equal(compactDecode(s), TABLE1.entries.join(""));
    // every code point of the BMP after an escape and on its own (most are refused)
    for (let cp = 0; cp < 0x10000; cp++) {
      const c = String.fromCharCode(cp);
      assert.equal(compactDecode("\u0080" + c + "我"), decodeSlow("\u0080" + c + "我"), `escape + U+${cp.toString(16)}`);
      assert.equal(compactDecode("a" + c), decodeSlow("a" + c), `U+${cp.toString(16)}`);
    }
  });
});

// the definition of a signature's bits (before sigAdd was written as one loop)
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
const elementHash = (a: number, b: number) => fmix(Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 1, 0x85ebca77));
// element set 1 as docs/FORMAT.md §3.4 words it: printable ASCII alone; per
// maximal digit run its first digit, its last digit and (8 digits at most) the
// whole run, each a = 0x110000 + 16·kind + m, b = the value, with a third bit
function refSigAdd(sig: Uint8Array, off: number, text: string, mask: number, elementSet: number): void {
  let prev = -1;
  const bit = (p: number) => (sig[off + (p >> 3)] |= 1 << (p & 7));
  const set = (h: number) => {
    bit(h & mask);
    bit((h >>> 16) & mask);
  };
  const set3 = (h: number) => {
    set(h);
    bit((Math.imul(h, 0x9e3779b1) >>> 11) & mask);
  };
  const cps = Array.from(new TextDecoder().decode(foldString(text)), (ch) => ch.codePointAt(0)!);
  for (const cp of cps) {
    if (cp >= 0x80 || (elementSet === 1 && cp >= 0x21 && cp <= 0x7e)) set(elementHash(0, cp));
    if (prev >= 0) set(elementHash(prev, cp));
    prev = cp;
  }
  if (elementSet !== 1) return;
  const digits = cps.map((cp) => (cp >= 0x30 && cp <= 0x39 ? String.fromCharCode(cp) : " ")).join("");
  for (const run of digits.split(" ").filter((r) => r)) {
    set3(elementHash(0x110000 + 16 + 1, Number(run[0])));
    set3(elementHash(0x110000 + 32 + 1, Number(run[run.length - 1])));
    if (run.length <= 8) set3(elementHash(0x110000 + 48 + run.length, Number(run)));
  }
}

describe("signatures: sigAdd in one loop", () => {
  it("sets the same bits as the element-by-element definition (block and summary sizes, element sets 0 and 1)", () => {
    const all = texts().slice(0, 400);
    all.push("", "a", "AbC Ｘｙ ÀÉ 😀 é", "主人\u00ff\u0100Ω", "full-width ＡＢＣ１２３", "7", "电话13812345678，3月15日", "007和0", "123456789 12345678", "x1y22z333");
    for (const elementSet of [0, 1])
      for (const mask of [2047, 16383]) {
        const a = new Uint8Array(mask / 8 + 9), b = new Uint8Array(mask / 8 + 9);
        for (const s of all) {
          sigAdd(a, 5, s, mask, elementSet);
          refSigAdd(b, 5, s, mask, elementSet);
          assert.deepEqual(a, b, `set ${elementSet}: ${s}`);
        }
      }
  });
});

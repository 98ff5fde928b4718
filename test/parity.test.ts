// The parity math of src/archive/parity.ts (docs/FORMAT.md §3.15): the parity
// is the XOR of the members padded with zeros, any one member is the parity
// XOR the others, read back chunk by chunk from the files.
import assert from "node:assert/strict";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import { xorInto, XorReader, groupOf, firstOf, PARITY } from "../src/archive/parity";

function rand(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => ((x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6b43a9b5) >>> 0) / 2 ** 32);
}
function bytes(n: number, r: () => number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

describe("parity (FORMAT.md §3.15)", () => {
  it("any one member is the XOR of the body and the others; bytes past a member's end are zeros", () => {
    const r = rand(28);
    for (let round = 0; round < 20; round++) {
      const n = 1 + Math.floor(r() * 8);
      const ms = Array.from({ length: n }, () => bytes(Math.floor(r() * 9000), r));
      const L = Math.max(...ms.map((m) => m.length));
      const body = new Uint8Array(L);
      for (const m of ms) xorInto(body, m, m.length);
      for (let j = 0; j < n; j++) {
        const x = body.slice();
        for (let k = 0; k < n; k++) if (k !== j) xorInto(x, ms[k], ms[k].length);
        assert.deepEqual(x.subarray(0, ms[j].length), ms[j], `member ${j} of ${n}`);
        assert.ok(x.subarray(ms[j].length).every((b) => b === 0), "the padding");
      }
    }
    // and it is not a copy: one member alone does not give another
    const a = bytes(100, r), b = bytes(100, r);
    const body = a.slice();
    xorInto(body, b, 100);
    assert.notDeepEqual(body, a);
  });

  it("groups: numbers 1..16 are group 0, 17..32 group 1; the first live number after a migration (100000) ends a group", () => {
    assert.equal(PARITY.group, 16);
    assert.deepEqual([1, 16, 17, 32, 33].map((q) => groupOf(q)), [0, 0, 1, 1, 2]);
    assert.deepEqual([1, 2, 3, 4, 5].map((q) => groupOf(q, PARITY.pair)), [0, 0, 1, 1, 2], "pairs");
    assert.deepEqual([0, 1, 2].map((g) => firstOf(g)), [1, 17, 33]);
    assert.equal(groupOf(100000) + 1, groupOf(100001));
  });

  it("a member is read back chunk by chunk as the XOR of the parity file and the other members, whatever the read sizes", () => {
    const dev = new SimDevice({}).install();
    const r = rand(7);
    const ms = [9000, 12345, 4096, 1].map((n) => bytes(n, r));
    const path = (q: number) => `/data/f${String(q).padStart(6, "0")}.jsonl`;
    ms.forEach((m, i) => dev.spiffs.load(path(i + 1).slice("/data".length), m));
    const body = new Uint8Array(12345);
    for (const m of ms) xorInto(body, m, m.length);
    dev.spiffs.load("/f000004.par", body);
    const info = { path: "/data/f000004.par", body: body.length, members: ms.map((m, i) => ({ seq: i + 1, length: m.length })) };
    ms.forEach((m, i) => {
      const x = new XorReader(info, info.members[i], path);
      assert.equal(x.length, m.length);
      const got = new Uint8Array(m.length);
      for (let at = 0; at < m.length; ) {
        x.position = at;
        const part = new Uint8Array(x.read(ArrayBuffer, 1 + Math.floor(r() * 6000)));
        got.set(part, at);
        at += part.length;
      }
      assert.deepEqual(got, m, `member ${i} rebuilt`);
    });
    // a second member that cannot be read: the read fails, never serves wrong bytes
    dev.spiffs.remove("/f000002.jsonl");
    assert.throws(() => new XorReader(info, info.members[0], path).read(ArrayBuffer, 100), /unreadable/);
  });
});

// The parity math of src/archive/parity.ts (docs/FORMAT.md §3.15): the body is
// the XOR of the members padded with zeros, any one member is the body XOR the
// others, the trailer round-trips and refuses a flipped bit or a wrong length,
// and a file built by steps (4 KB a step) rebuilds each member on the fly.
import assert from "node:assert/strict";
import "../host-sim/trace";
import { File } from "file";
import { SimDevice } from "../host-sim/device";
import { crc32 } from "../src/nvs/crc32";
import { xorInto, encodeTrailer, decodeTrailer, readParity, startBuild, buildStep, XorReader, groupOf, firstOf, PARITY, TAIL } from "../src/archive/parity";

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

  it("the trailer round-trips; a flipped bit or a wrong file length is not a parity file", () => {
    const members = [
      { seq: 9, length: 57000, crc: 0x12345678 },
      { seq: 10, length: 100, crc: 0xdeadbeef },
    ];
    const t = encodeTrailer(members, 57000, 0xcafef00d, "m");
    assert.equal(t.length, 2 * 12 + TAIL);
    const info = decodeTrailer(t, 57000 + t.length, "/data/m000009.par");
    assert.deepEqual(info, { path: "/data/m000009.par", body: 57000, members, bodyCrc: 0xcafef00d });
    assert.equal(decodeTrailer(t, 57001 + t.length, "x"), undefined, "length");
    for (let i = 0; i < t.length; i++) {
      const u = t.slice();
      u[i] ^= 0x10;
      assert.equal(decodeTrailer(u, 57000 + t.length, "x"), undefined, `bit flipped in byte ${i}`);
    }
    // read from the file's last bytes with anything before them
    const pre = new Uint8Array(50 + t.length);
    pre.set(t, 50);
    assert.equal(decodeTrailer(pre, 57000 + t.length, "x")?.members.length, 2);
  });

  it("groups: numbers 1..8 are group 0, 9..16 group 1", () => {
    assert.equal(PARITY.group, 8);
    assert.deepEqual([1, 8, 9, 16, 17].map(groupOf), [0, 0, 1, 1, 2]);
    assert.deepEqual([0, 1, 2].map(firstOf), [1, 9, 17]);
  });

  it("built by steps of 4 KB, the file checks out and rebuilds every member chunk by chunk", () => {
    const dev = new SimDevice({}).install();
    const r = rand(7);
    const ms = [9000, 12345, 4096, 1].map((n) => bytes(n, r));
    const path = (q: number) => `/data/f${String(q).padStart(6, "0")}.jsonl`;
    ms.forEach((m, i) => dev.spiffs.load(path(i + 1).slice("/data".length), m));
    const b = startBuild("/data/f000001.par", "f", ms.map((m, i) => ({ seq: i + 1, length: m.length })));
    let steps = 0;
    while (!buildStep(b, (q) => new File(path(q)))) steps++;
    assert.equal(steps, Math.ceil(12345 / 4096), "one step a chunk of the body, then the trailer");
    const info = readParity("/data/f000001.par");
    assert.ok(info);
    assert.equal(info.body, 12345);
    info.members.forEach((m, i) => assert.equal(m.crc, crc32(ms[i]), `member ${i}'s CRC`));
    ms.forEach((m, i) => {
      const x = new XorReader(info, info.members[i], path);
      assert.equal(x.length, m.length);
      const got = new Uint8Array(m.length);
      for (let at = 0; at < m.length; ) {
        x.position = at;
        const part = new Uint8Array(x.read(ArrayBuffer, 3000));
        got.set(part, at);
        at += part.length;
      }
      assert.deepEqual(got, m, `member ${i} rebuilt`);
    });
    // a build cut before its trailer is not a parity file
    const c = startBuild("/data/f000009.par", "f", [{ seq: 1, length: ms[0].length }]);
    buildStep(c, (q) => new File(path(q)));
    assert.equal(readParity("/data/f000009.par"), undefined);
  });
});

// What tools/repair-bench.ts times, the same code on Node and in XS: one repair
// of a 4 KB block with the flip at its first bit (the longest syndrome walk),
// at its last bit (the shortest: the CRC of the block and little more), the
// check of a whole block (-2), a two-flip block (-1: the whole walk), and one
// repaired line of 512 bytes (the longest line) with the flip at its first bit.
import { crc32 } from "../../src/nvs/crc32";
import { prng } from "../../host-sim/flash";
import { repairBit, repairLine } from "../../src/archive/repair";

export interface RepairTimes {
  block_first_bit_ms: number; // per repair
  block_last_bit_ms: number;
  block_whole_ms: number;
  block_two_flips_ms: number;
  line512_first_bit_ms: number;
  crc32_4k_ms: number;
}

function bytes(n: number, seed: number): Uint8Array {
  const r = prng(seed);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

// ms per call of fn: the best of 5 rounds, each repeated until minMs / 5 has passed
// (at least 3 calls); the best, as other processes share the machine
function per(now: () => number, minMs: number, fn: () => void): number {
  fn();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    let n = 0;
    const t0 = now();
    let t = t0;
    while (n < 3 || t - t0 < minMs / 5) {
      fn();
      n++;
      t = now();
    }
    best = Math.min(best, (t - t0) / n);
  }
  return Math.round(best * 1000) / 1000;
}

export function measure(now: () => number, minMs: number): RepairTimes {
  const block = bytes(4096, 1);
  const crc = crc32(block);
  const expect = (got: number, want: number) => {
    if (got !== want) throw new Error(`repair bench: got ${got}, expected ${want}`);
  };
  const line = new Uint8Array(512 - 1); // without its "\n"
  const body = line.length - 16;
  for (let i = 0; i < body; i++) line[i] = 0x61 + (i % 26);
  const hex = crc32(line, 0, body).toString(16);
  const suffix = `,"z":"${"00000000".slice(hex.length)}${hex}"}`;
  for (let i = 0; i < 16; i++) line[body + i] = suffix.charCodeAt(i);
  return {
    block_first_bit_ms: per(now, minMs, () => {
      block[0] ^= 1;
      expect(repairBit(block, 0, 4096, crc), 0);
    }),
    block_last_bit_ms: per(now, minMs, () => {
      block[4095] ^= 0x80;
      expect(repairBit(block, 0, 4096, crc), 32767);
    }),
    block_whole_ms: per(now, minMs, () => expect(repairBit(block, 0, 4096, crc), -2)),
    block_two_flips_ms: per(now, minMs, () => {
      block[10] ^= 4;
      block[3000] ^= 16;
      expect(repairBit(block, 0, 4096, crc), -1);
      block[10] ^= 4;
      block[3000] ^= 16;
    }),
    line512_first_bit_ms: per(now, minMs, () => {
      line[0] ^= 1;
      expect(repairLine(line, 0, line.length), 0);
    }),
    crc32_4k_ms: per(now, minMs, () => {
      crc32(block);
    }),
  };
}

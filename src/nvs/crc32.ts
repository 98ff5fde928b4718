// CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320, init and xorout 0xFFFFFFFF),
// the same as zlib's crc32, so a dump can be checked with any standard tool.

function makeTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

// Made at load: when the module is preloaded (manifest.json) the table is built
// at build time and lives in flash, not in the device's RAM.
export const CRC32_TABLE = makeTable();

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, seed = 0): number {
  const t = CRC32_TABLE;
  let c = ~seed >>> 0;
  for (let i = start; i < end; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

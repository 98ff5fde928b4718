// What petmem's stores occupy in the NVS partition, by ESP-IDF's entry model:
// 4 KB pages of 126 entries of 32 bytes, one page kept free; a blob costs one
// index entry plus, per chunk, one header entry and ceil(chunk / 32) data
// entries; a namespace costs one entry. The device's preference module offers
// no statistics, so the `status` action counts what petmem wrote
// (`npm run nvs-usage` checks the same numbers on the simulator).

export const NVS_PARTITION_BYTES = 0xc000; // partitions/*.csv "nvs" (docs/FORMAT.md §1)
export const NVS_PAGE_BYTES = 4096;
export const NVS_ENTRY_BYTES = 32;
export const NVS_ENTRIES_PER_PAGE = 126;
export const NVS_USABLE_BYTES = (NVS_PARTITION_BYTES / NVS_PAGE_BYTES - 1) * NVS_ENTRIES_PER_PAGE * NVS_ENTRY_BYTES;
const CHUNK_BYTES = (NVS_ENTRIES_PER_PAGE - 1) * NVS_ENTRY_BYTES; // 4000: the most one page holds

export function blobEntries(bytes: number): number {
  let n = 1; // index
  for (let left = bytes; ; left -= CHUNK_BYTES) {
    const chunk = Math.min(left, CHUNK_BYTES);
    n += 1 + Math.ceil(chunk / NVS_ENTRY_BYTES);
    if (left <= CHUNK_BYTES) break;
  }
  return n;
}

// The ledger: what this device last pushed or pulled for each document it
// tracks by body (docs/FORMAT.md §6), sorted by the document's key so that a
// lookup is a binary search. A key is the document id in 9 bytes (type code
// and two numbers, see src/sync/ids.ts), so a deletion can be pushed for a
// document the device no longer holds. 20 bytes an entry in one Uint32Array:
// about 26 KB for a full device, in RAM only while a sync runs.

export const ENTRY_WORDS = 5; // code, k1, k2, bodyHash, at
export const ABSORBED = 0x80000000; // in `at`: a pulled document this device keeps inside another one

export class Ledger {
  words: Uint32Array;
  count = 0;

  constructor(capacity = 64) {
    this.words = new Uint32Array(Math.max(4, capacity) * ENTRY_WORDS);
  }

  // the index of the entry, or -(insertion point) - 1
  find(c: number, k1: number, k2: number): number {
    let lo = 0, hi = this.count - 1;
    const w = this.words;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const o = mid * ENTRY_WORDS;
      const d = w[o] - c || w[o + 1] - k1 || w[o + 2] - k2;
      if (d < 0) lo = mid + 1;
      else if (d > 0) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  word(i: number, k: number): number {
    return this.words[i * ENTRY_WORDS + k];
  }

  set(c: number, k1: number, k2: number, body: number, at: number): void {
    let i = this.find(c, k1, k2);
    if (i < 0) {
      i = -i - 1;
      if ((this.count + 1) * ENTRY_WORDS > this.words.length) {
        // by half (at least 64 entries): a pull adding a page at a time
        // does not hold twice the ledger while it grows
        const grown = new Uint32Array(this.words.length + Math.max(64 * ENTRY_WORDS, (this.words.length >> 1) - ((this.words.length >> 1) % ENTRY_WORDS)));
        grown.set(this.words);
        this.words = grown;
      }
      this.words.copyWithin((i + 1) * ENTRY_WORDS, i * ENTRY_WORDS, this.count * ENTRY_WORDS);
      this.count++;
    }
    const o = i * ENTRY_WORDS;
    this.words[o] = c;
    this.words[o + 1] = k1 >>> 0;
    this.words[o + 2] = k2 >>> 0;
    this.words[o + 3] = body >>> 0;
    this.words[o + 4] = at >>> 0;
  }

  removeAt(i: number): void {
    this.words.copyWithin(i * ENTRY_WORDS, (i + 1) * ENTRY_WORDS, this.count * ENTRY_WORDS);
    this.count--;
  }

  clear(): void {
    this.count = 0;
  }
}

// A RAM implementation of EpisodeStoreApi (src/episode/types.ts) and a
// stand-in signature, for the episode domain's scenarios until the real store
// (src/episode/store.ts) and signatures (src/episode/sig.ts) are on main. It
// keeps the contract's rules: whole episodes per batch, at most 8 per batch,
// at most EPISODE_SLOTS slots, headers without text unless asked. `failNext`
// makes the next write or addTombs throw an EpisodeError-like error
// (nothing changes), as the real store does on an io failure.

import { EPISODE_SIG_BYTES, EPISODE_SLOTS, type Episode, type EpisodeStoreApi, type Tombstone } from "../../src/episode/types";

const HEADER = 128; // bytes a header scan is taken to read per slot
const TEXT = 660;

export class FakeEpisodeError extends Error {
  constructor(readonly code: "full" | "io" | "bad", message: string) {
    super(message);
    Object.defineProperty(this, "name", { value: "EpisodeError", configurable: true, writable: true });
  }
}

function copy(ep: Episode): Episode {
  return { ...ep, keywords: ep.keywords.slice(), sig: ep.sig.slice() };
}

export class FakeEpisodeStore implements EpisodeStoreApi {
  private eps: (Episode | undefined)[] = [];
  private tombList: Tombstone[] = [];
  private last = 0;
  failNext: "write" | "tombs" | undefined;
  writes = 0; // batches written
  readonly stats = { bytesRead: 0, reads: 0, bytesWritten: 0, writes: 0 };

  // limit: slots the files may have (EPISODE_SLOTS; smaller to test full files)
  constructor(readonly limit = EPISODE_SLOTS) {}

  open(): void {}
  get slots(): number {
    return this.eps.length;
  }
  nextId(): number {
    return ++this.last;
  }
  freeSlot(): number {
    for (let s = 0; s < this.eps.length; s++) if (!this.eps[s]) return s;
    return this.eps.length >= this.limit ? EPISODE_SLOTS : this.eps.length;
  }
  scan(fn: (ep: Episode) => boolean | void, text?: boolean): void {
    this.stats.reads += Math.ceil((this.eps.length * HEADER) / 4096);
    this.stats.bytesRead += this.eps.length * HEADER;
    for (const ep of this.eps) {
      if (!ep) continue;
      const c = copy(ep);
      if (!text) {
        c.content = "";
        c.keywords = [];
      } else {
        this.stats.reads++;
        this.stats.bytesRead += TEXT;
      }
      if (fn(c) === true) return;
    }
  }
  read(slot: number): Episode | undefined {
    this.stats.reads++;
    this.stats.bytesRead += HEADER + TEXT;
    const ep = this.eps[slot];
    return ep ? copy(ep) : undefined;
  }
  write(batch: Episode[]): void {
    if (batch.length > 8) throw new FakeEpisodeError("bad", "at most 8 episodes per batch");
    if (this.failNext === "write") {
      this.failNext = undefined;
      throw new FakeEpisodeError("io", "write failed");
    }
    let grown = this.eps.length; // the files grow slot by slot
    for (const ep of batch) {
      if (ep.slot < 0 || ep.slot >= EPISODE_SLOTS || ep.slot > grown) throw new FakeEpisodeError("bad", `slot ${ep.slot}`);
      if (ep.slot === grown) grown++;
      if (ep.sig.length !== EPISODE_SIG_BYTES) throw new FakeEpisodeError("bad", "sig");
    }
    for (const ep of batch) {
      this.eps[ep.slot] = ep.state === "free" ? undefined : copy(ep);
      if (ep.id > this.last) this.last = ep.id;
    }
    this.writes++;
    this.stats.writes++;
    this.stats.bytesWritten += batch.length * (HEADER + TEXT);
  }
  addTombs(t: Tombstone[]): void {
    if (this.failNext === "tombs") {
      this.failNext = undefined;
      throw new FakeEpisodeError("io", "tombstones not written");
    }
    for (const x of t) this.tombList.push({ ...x });
  }
  tombs(fn: (t: Tombstone) => boolean | void): void {
    for (const t of this.tombList) if (fn({ ...t }) === true) return;
  }
  tombCount(): number {
    return this.tombList.length;
  }
  step(): boolean {
    return false;
  }
  footprint(): number {
    return this.eps.length * (HEADER + TEXT) + this.tombList.length * 20;
  }
}

// A stand-in for src/episode/sig.ts: hashed character unigrams and bigrams
// (and Latin words) of content and keywords, 512 bits; similarity is the
// cosine of the two bit sets.
export function fakeSignature(text: string, keywords: readonly string[]): Uint8Array {
  const out = new Uint8Array(EPISODE_SIG_BYTES);
  const set = (s: string) => {
    let h = 0x811c9dc5;
    for (const c of s) {
      h ^= c.codePointAt(0) as number;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h ^= h >>> 16; // murmur3's finaliser: the low bits FNV leaves poorly mixed
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
    const bit = h % (EPISODE_SIG_BYTES * 8);
    out[bit >> 3] |= 1 << (bit & 7);
  };
  for (const t of [text, ...keywords]) {
    const chars: string[] = [];
    for (const c of t.toLowerCase()) {
      const n = c.codePointAt(0) as number;
      chars.push((n >= 0x4e00 && n <= 0x9fff) || (n >= 0x30 && n <= 0x39) || (n >= 0x61 && n <= 0x7a) ? c : " ");
    }
    for (let i = 0; i < chars.length; i++) {
      if (chars[i] === " ") continue;
      set(chars[i]);
      if (i + 1 < chars.length && chars[i + 1] !== " ") set(chars[i] + chars[i + 1]);
    }
  }
  return out;
}

function bits(a: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) for (let v = a[i]; v; v &= v - 1) n++;
  return n;
}

export function fakeSimilarity(a: Uint8Array, b: Uint8Array): number {
  let common = 0;
  for (let i = 0; i < a.length; i++) for (let v = a[i] & b[i]; v; v &= v - 1) common++;
  const d = Math.sqrt(bits(a) * bits(b));
  return d ? common / d : 0;
}

export const fakeSigner = { signature: fakeSignature, similarity: fakeSimilarity };

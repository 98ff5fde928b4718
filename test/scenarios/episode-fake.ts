// A RAM implementation of EpisodeStoreApi (src/episode/types.ts) for the
// episode domain's scenarios: fast, with failures on demand and files that
// can be made full early (the real store, src/episode/store.ts, is tested in
// episode-store.scn.ts and under the whole device below). It keeps the
// contract's rules: whole episodes per batch, at most 8 per batch,
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

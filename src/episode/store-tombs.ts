// The episode store's tombstones (docs/FORMAT.md §4.5): 20-byte records
// appended to /ep.x0 then /ep.x1, learnt at first use, read from the copy
// that checks out. Below: store-batch.ts; above: store.ts (the upkeep).

import { File } from "file";
import { crc32 } from "../nvs/crc32";

import { TOMB_REASONS, EVICT_CAUSES, type Tombstone } from "./types";
import {
  EpisodeError,
  TOMB_BYTES,
  tombValid,
  u32,
  put32,
} from "./record";

import {
  CHUNK,
  fatal,
  messageOf,
  Emptied,
  Opening,
} from "./store-files";

import { EpisodeBatch } from "./store-batch";

export abstract class EpisodeTombs extends EpisodeBatch {
  // ---- tombstones -------------------------------------------------------------------------------

  protected learnTombs(): void {
    if (this.nTombs >= 0) return;
    let n = 0;
    for (let k = 0; k < 2; k++) if (!this.xbad[k]) n = Math.max(n, Math.floor(this.xLen[k] / TOMB_BYTES));
    const r = new Uint8Array(TOMB_BYTES);
    // a record torn in both copies at the end was never acknowledged
    while (n > 0) {
      let valid = false;
      for (let k = 0; k < 2 && !valid; k++) {
        if (this.xbad[k] || this.xLen[k] < n * TOMB_BYTES) continue;
        let f: File | undefined;
        try {
          f = this.openCopy("x", k);
          this.rd(f, (n - 1) * TOMB_BYTES, TOMB_BYTES, r);
          valid = tombValid(r, 0);
        } catch (e) {
          if (fatal(e)) throw e;
        } finally {
          this.close(f);
        }
      }
      if (valid) break;
      n--;
    }
    this.nTombs = n;
  }

  tombCount(): number {
    this.open();
    this.learnTombs();
    return this.nTombs;
  }

  addTombs(list: Tombstone[]): void {
    this.open();
    this.learnTombs();
    if (!Array.isArray(list)) throw new EpisodeError("bad", "tombstones must be a list");
    if (!list.length) return;
    if (list.length > 64) throw new EpisodeError("bad", "at most 64 tombstones at once");
    const out = new Uint8Array(list.length * TOMB_BYTES);
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      const bad = (m: string) => new EpisodeError("bad", `tombstone ${m}`);
      if (!t || typeof t !== "object") throw bad("must be an object");
      if (!Number.isInteger(t.id) || t.id <= 0 || t.id > 0xffffffff) throw bad("id must be an integer 1..4294967295");
      const reason = TOMB_REASONS.indexOf(t.reason), cause = EVICT_CAUSES.indexOf(t.cause);
      if (reason < 0) throw bad(`reason must be one of ${TOMB_REASONS.join(", ")}`);
      if (cause < 0) throw bad(`cause must be one of ${EVICT_CAUSES.join(", ")}`);
      if (!Number.isInteger(t.strength) || t.strength < 0 || t.strength > 100) throw bad("strength must be an integer 0..100 (hundredths)");
      if (!Number.isInteger(t.at) || t.at < 0 || t.at > 0xffffffff) throw bad("at must be unix seconds");
      if (!Number.isInteger(t.payloadHash) || t.payloadHash < 0 || t.payloadHash > 0xffffffff) throw bad("payloadHash must be a u32");
      const a = i * TOMB_BYTES;
      put32(out, a, t.id);
      out[a + 4] = reason;
      out[a + 5] = cause;
      out[a + 6] = t.strength;
      put32(out, a + 8, t.at);
      put32(out, a + 12, t.payloadHash);
      put32(out, a + 16, crc32(out, a, a + 16));
    }
    if (this.xbad[0] && this.xbad[1]) throw new EpisodeError("io", "episodes: neither tombstone copy can be written");
    this.roomFor(out.length * 2);
    // never appended to the only readable copy while the other can be rebuilt first
    if (this.xbad[0] || this.xbad[1]) this.finishRebuild(true);
    // an id above every id written (a tombstone of an episode from elsewhere) goes into /ep.w first
    this.ensureKnown();
    let top = this.maxId;
    for (const t of list) if (t.id > top) top = t.id;
    if (top > this.maxId) {
      this.writeW(this.seq, top, this.lastSlots);
      this.maxId = top;
    }
    const at = this.nTombs * TOMB_BYTES;
    let wrote = 0;
    let err: unknown;
    for (let k = 0; k < 2; k++) {
      if (this.xbad[k]) continue;
      let f: File | undefined;
      try {
        f = this.openWrite(this.path("x", k), this.xLen[k]);
        if (this.xLen[k] < at) this.xLen[k] = this.levelTombs(f, k, at);
        this.xLen[k] = this.wr(f, this.xLen[k], at, out);
        wrote++;
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.markXBad(k, "emptied by a write open");
        err = e;
      } finally {
        this.close(f);
      }
    }
    if (!wrote) throw err instanceof EpisodeError ? err : new EpisodeError("io", `episodes: the tombstones were not written (${messageOf(err)})`);
    this.nTombs += list.length;
    for (const t of list) if (t.id > this.maxId) this.maxId = t.id;
  }

  // Brings copy k (open in f) up to `at` bytes with the other copy's records (zeros where it has none).
  protected levelTombs(f: File, k: number, at: number): number {
    let len = Math.floor(this.xLen[k] / TOMB_BYTES) * TOMB_BYTES;
    const o = 1 - k;
    const buf = new Uint8Array(CHUNK - (CHUNK % TOMB_BYTES));
    let src: File | undefined;
    try {
      while (len < at) {
        const n = Math.min(buf.length, at - len);
        buf.fill(0);
        const have = this.xbad[o] ? 0 : Math.max(0, Math.min(n, this.xLen[o] - len));
        if (have > 0) {
          src ??= this.openCopy("x", o);
          this.rd(src, len, have, buf);
        }
        len = this.wr(f, len, len, buf, 0, n);
      }
    } finally {
      this.close(src);
    }
    return len;
  }

  tombs(fn: (t: Tombstone) => boolean | void): void {
    this.open();
    this.learnTombs();
    if (!this.nTombs) return;
    try {
      this.tombsFrom(fn);
    } catch (e) {
      if (!(e instanceof Opening)) throw e;
      this.tombsFrom(fn);
    }
  }

  protected tombsFrom(fn: (t: Tombstone) => boolean | void): void {
    const n = this.nTombs;
    if (this.xbad[0] && this.xbad[1]) throw new EpisodeError("io", "episodes: neither tombstone copy can be read");
    const p = this.xbad[0] ? 1 : 0, q = 1 - p;
    const per = Math.floor(CHUNK / TOMB_BYTES);
    const b = new Uint8Array(per * TOMB_BYTES);
    let ob: Uint8Array | undefined;
    let f: File | undefined, g: File | undefined;
    try {
      const have0 = Math.floor(this.xLen[p] / TOMB_BYTES), have1 = this.xbad[q] ? 0 : Math.floor(this.xLen[q] / TOMB_BYTES);
      try {
        if (have0 > 0) f = this.openCopy("x", p);
      } catch (e) {
        if (e instanceof EpisodeError && this.xbad[p] && !this.xbad[q]) throw new Opening();
        throw e;
      }
      for (let first = 0; first < n; first += per) {
        const c = Math.min(per, n - first);
        const c0 = Math.max(0, Math.min(c, have0 - first));
        this.rd(f as File, first * TOMB_BYTES, c0 * TOMB_BYTES, b);
        let otherRead = false;
        for (let i = 0; i < c; i++) {
          let src: Uint8Array = b;
          const at = i * TOMB_BYTES;
          if (i >= c0 || !tombValid(b, at)) {
            if (!otherRead) {
              otherRead = true;
              ob ??= new Uint8Array(per * TOMB_BYTES);
              const c1 = Math.max(0, Math.min(c, have1 - first));
              if (c1 > 0) {
                g ??= this.openCopy("x", q);
                this.rd(g, first * TOMB_BYTES, c1 * TOMB_BYTES, ob);
              }
              if (c1 < c) ob.fill(0, c1 * TOMB_BYTES);
            }
            src = ob as Uint8Array;
            if (!tombValid(src, at)) continue;
          }
          const t: Tombstone = {
            id: u32(src, at),
            reason: TOMB_REASONS[src[at + 4]] ?? "evicted",
            cause: EVICT_CAUSES[src[at + 5]] ?? "none",
            strength: src[at + 6],
            at: u32(src, at + 8),
            payloadHash: u32(src, at + 12),
          };
          if (fn(t) === true) return;
        }
      }
    } finally {
      this.close(f);
      this.close(g);
    }
  }
}

// The episode store (docs/FORMAT.md §4; the why in docs/design/episodes.md):
// slots put in step, tombstones and the upkeep (the rebuild of an unreadable
// copy and the scrub), on top of the files (store-files.ts) and the batches
// (store-batch.ts).

import { File, System } from "file";

import { EPISODE_SLOTS, type Episode, type EpisodeStoreApi } from "./types";
import {
  EpisodeError,
  HEADER_BYTES,
  TEXT_BYTES,
  TOMB_BYTES,
  encodeText,
  encodeHeader,
  headerValid,
  headerSeq,
  headerTextCrc,
  textValid,
  textCrcOf,
  tombValid,
  headerLean,
  headerState,
  headerRef,
  headerWipe,
} from "./record";

import {
  CHUNK,
  W_BYTES,
  SCRUB_SLOTS,
  SCRUB_TOMBS,
  SCRUB_EVERY_MS,
  REBUILD_SLOTS,
  TEXTS_PER_READ,
  fatal,
  Emptied,
  USABLE,
  sameHeader,
} from "./store-files";
import { EpisodeTombs } from "./store-tombs";
import { crc32 } from "../nvs/crc32";
import { entryOf, headOf, trailOf, loadIndex, IX_ENTRY, IX_HEAD, IX_TRAIL, type SlotTable } from "./slot-index";

export { EpisodeError };
export { CHUNK, MAX_BATCH, W_BYTES } from "./store-files";

// version-1 slots a migration step writes again (a batch: 5 passages appended, 10 headers written)
export const MIGRATE_SLOTS = 5;
// new parity and twins of the passages only while the partition is below this (the archive's retire line)
const TEXT_ROOMY = 0.68;
const SEGMENT_BYTES = 57344;
const MARK = new Uint8Array([0x45, 0x50, 0x4d, 0x32]); // "EPM2": the migration's end (/ep.m)
// a sealed passages segment whose lines headers point to are under this share of its bytes is collected
const GC_SHARE = 0.5;
// steps a census waits for a segment holding an owner-deleted text to be sealed
const WIPE_WAITS = 64;

export class EpisodeStore extends EpisodeTombs implements EpisodeStoreApi {
  // ---- putting slots in step -------------------------------------------------------------------

  // Compares the slots in both copies and writes the winner over the other:
  // the copy that checks out, the higher seq when both do (copy 0 on a tie);
  // `prefer`: that copy wins whenever it checks out (a rollback). A slot whose
  // copies both fail is left as it is (it reads as free). Returns the slots repaired.
  protected settle(list: number[], prefer = -1): number {
    if (!list.length) return 0;
    const n = list.length;
    const h = [new Uint8Array(n * HEADER_BYTES), new Uint8Array(n * HEADER_BYTES)];
    const ok = [new Uint8Array(n), new Uint8Array(n)];
    const tcrc = [new Uint32Array(n), new Uint32Array(n)];
    const tb = new Uint8Array(TEXTS_PER_READ * TEXT_BYTES);
    for (let k = 0; k < 2; k++) {
      const hs = Math.floor(this.hLen[k] / HEADER_BYTES), tsl = Math.floor(this.tLen[k] / TEXT_BYTES);
      let f: File | undefined;
      try {
        if (hs > 0) {
          f = this.openCopy("h", k);
          this.readRuns(f, list, HEADER_BYTES, hs, h[k], 0);
        }
        this.close(f);
        f = undefined;
        // a version-2 header is whole by itself: its text is a passage (read when served)
        let v1 = false;
        for (let i = 0; i < n; i++) {
          if (list[i] < hs && headerValid(h[k], i * HEADER_BYTES)) {
            if (headerLean(h[k], i * HEADER_BYTES)) ok[k][i] = 1;
            else v1 = true;
          }
        }
        if (tsl > 0 && v1) {
          f = this.openCopy("t", k);
          for (let i = 0; i < n; ) {
            // up to 6 consecutive slots per read
            let m = 1;
            while (i + m < n && m < TEXTS_PER_READ && list[i + m] === list[i] + m) m++;
            const have = Math.max(0, Math.min(m, tsl - list[i]));
            this.rd(f, list[i] * TEXT_BYTES, have * TEXT_BYTES, tb);
            for (let j = 0; j < m; j++) {
              const at = j * TEXT_BYTES;
              const hv = list[i + j] < hs && headerValid(h[k], (i + j) * HEADER_BYTES) && !headerLean(h[k], (i + j) * HEADER_BYTES);
              if (j < have && hv && textValid(tb, at) && textCrcOf(tb, at) === headerTextCrc(h[k], (i + j) * HEADER_BYTES)) {
                ok[k][i + j] = 1;
                tcrc[k][i + j] = textCrcOf(tb, at);
              }
            }
            i += m;
          }
        }
      } catch (e) {
        // a copy listed and opened whose reads fail (a cut while a slot was
        // written in place, on the real SPIFFS): rebuilt from the other by steps
        if (fatal(e) || this.bad[1 - k]) throw e;
        this.markBad(k, `copy ${k} unreadable`);
        return 0;
      } finally {
        this.close(f);
      }
    }
    // per copy and slot: 0 as it is, 1 takes the other copy's records, 2 a blank free slot
    const act = [new Uint8Array(n), new Uint8Array(n)];
    const top = Math.max(this.hLen[0], this.hLen[1]);
    let fixed = 0;
    for (let i = 0; i < n; i++) {
      const a = ok[0][i], b = ok[1][i];
      const s = list[i];
      if (prefer >= 0) {
        // a rollback: the preferred copy stands; the other gets its slot, or a free one
        const k = 1 - prefer;
        if (ok[prefer][i]) {
          if (ok[k][i] && sameHeader(h[0], h[1], i)) continue;
          act[k][i] = 1;
        } else if ((s + 1) * HEADER_BYTES <= this.hLen[k]) act[k][i] = 2;
        else continue;
      } else if (a && b) {
        if (sameHeader(h[0], h[1], i)) continue;
        const w = headerSeq(h[1], i * HEADER_BYTES) > headerSeq(h[0], i * HEADER_BYTES) ? 1 : 0;
        act[1 - w][i] = 1;
      } else if (a || b) act[a ? 1 : 0][i] = 1;
      else if ((s + 1) * HEADER_BYTES <= top) {
        // whole in neither copy: a slot whose growth a cut tore (never
        // acknowledged), or damaged beyond repair in both: it reads as free,
        // and both copies say so
        act[0][i] = 2;
        act[1][i] = 2;
      } else continue;
      fixed++;
    }
    if (!fixed) return 0;
    this.free = undefined; // a slot may change state: the next census learns them again
    // a blank free slot: a version-2 header without a passage
    const blank = new Uint8Array(HEADER_BYTES);
    encodeHeader(blank, 0, { state: "free" } as Episode, this.seq, 0, 0, undefined, { seq: 0, at: 0, len: 0 });
    for (let k = 0; k < 2; k++) {
      // version-1 texts first (read from the other copy), then headers
      const todo: number[] = [];
      for (let i = 0; i < n; i++) if (act[k][i]) todo.push(i);
      if (!todo.length) continue;
      let fr: File | undefined, fw: File | undefined;
      const t = new Uint8Array(TEXT_BYTES);
      try {
        for (const i of todo) {
          const s = list[i];
          // single-text mode: both copies' texts are /ep.t0 (nothing to copy)
          if (act[k][i] !== 1 || this.single || headerLean(h[1 - k], i * HEADER_BYTES)) continue;
          fw ??= this.openWrite(this.path("t", k), this.tLen[k]);
          fr ??= this.openCopy("t", 1 - k);
          this.rd(fr, s * TEXT_BYTES, TEXT_BYTES, t);
          this.tLen[k] = this.wr(fw, this.tLen[k], s * TEXT_BYTES, t);
        }
        this.close(fw);
        fw = undefined;
        this.close(fr);
        fr = undefined;
        fw = this.openWrite(this.path("h", k), this.hLen[k]);
        for (const i of todo) {
          const s = list[i];
          if (act[k][i] === 2) this.hLen[k] = this.wr(fw, this.hLen[k], s * HEADER_BYTES, blank);
          else this.hLen[k] = this.wr(fw, this.hLen[k], s * HEADER_BYTES, h[1 - k], i * HEADER_BYTES, (i + 1) * HEADER_BYTES);
        }
      } catch (e) {
        if (e instanceof Emptied) this.markBad(k, "emptied by a write open");
        throw e;
      } finally {
        this.close(fw);
        this.close(fr);
      }
    }
    this.countSlots();
    return fixed;
  }

  // Reads the records of `list` (slot numbers, ascending) into out, consecutive ones in one read of at most 4 KB.
  protected readRuns(f: File, list: number[], size: number, have: number, out: Uint8Array, _at: number): void {
    const per = Math.floor(CHUNK / size);
    for (let i = 0; i < list.length; ) {
      let m = 1;
      while (i + m < list.length && m < per && list[i + m] === list[i] + m) m++;
      const c = Math.max(0, Math.min(m, have - list[i]));
      if (c > 0) {
        const tmp = new Uint8Array(c * size);
        this.rd(f, list[i] * size, c * size, tmp);
        out.set(tmp, i * size);
      }
      i += m;
    }
  }

  // ---- upkeep -----------------------------------------------------------------------------------

  // nowMs: the wall clock, which paces the scrub (SCRUB_EVERY_MS); without it
  // a pass starts whenever the last has ended (tests that walk the store)
  step(nowMs?: number): boolean {
    this.open();
    if (this.redoLater) {
      const r = this.redoLater;
      this.redo(r.seq, r.maxId, r.slots);
      this.redoLater = undefined;
      return true;
    }
    if (this.pending.length && !this.bad[0] && !this.bad[1]) {
      this.settlePending();
      return true;
    }
    if (this.bad[0] || this.bad[1]) return this.rebuildStep();
    if (this.xbad[0] || this.xbad[1]) return this.rebuildTombStep();
    if (this.textStep()) return true;
    if (this.migrateStep()) return true;
    if (this.ixStep()) return true;
    return this.scrubStep(nowMs);
  }

  // ---- the slot index (FORMAT.md §4.9, slot-index.ts) -------------------------------------------

  // The slot index when it runs to the last batch, else undefined (read
  // once per open while it is not known to be stale; the caller keeps it).
  slotTable(): SlotTable | undefined {
    return this.ixLoad(true);
  }

  // Whether the index is current, one behind, torn or stale (its state), with
  // no table kept.
  protected ixCheck(): void {
    this.ixLoad(false);
  }

  private ixLoad(keep: boolean): SlotTable | undefined {
    this.open();
    const ix = this.ix;
    if (ix.state === "stale" || ix.state === "absent") return undefined;
    if (!this.known || this.redoLater || this.nSlots === 0) return undefined;
    const r = loadIndex(this.ixPath(), this.seq, this.nSlots, this.stats, this.lastSlots.length ? () => this.lagEntries(this.lastSlots) : undefined, keep);
    ix.state = !r ? "stale" : r.torn ? "torn" : r.behind ? "behind" : "ok";
    ix.behind = r?.behind;
    return r?.t;
  }

  // The entries of the last batch's slots as the headers say them (the
  // primary copy's, the other's when it does not check out, free when
  // neither does: as the header scan and the index's writing take a slot),
  // for an index whose only missing record is that batch's.
  private lagEntries(slots: readonly number[]): { slots: readonly number[]; entries: Uint8Array } | undefined {
    const p = this.primary();
    const h = new Uint8Array(HEADER_BYTES);
    const entries = new Uint8Array(slots.length * IX_ENTRY);
    let f: File | undefined;
    try {
      if (!this.bad[p]) f = this.openCopy("h", p);
      for (let i = 0; i < slots.length; i++) {
        let ok = false;
        if (f && (slots[i] + 1) * HEADER_BYTES <= this.hLen[p]) {
          try {
            this.rd(f, slots[i] * HEADER_BYTES, HEADER_BYTES, h);
            ok = headerValid(h, 0);
          } catch (e) {
            if (fatal(e)) throw e;
          }
        }
        if (ok || this.readHeader(1 - p, slots[i], h)) entryOf(h, 0, entries, i * IX_ENTRY);
      }
    } catch (e) {
      if (fatal(e)) throw e;
      return undefined;
    } finally {
      this.close(f);
    }
    return { slots, entries };
  }

  // One step of the slot index: learning whether it is current (one read of
  // it), or writing it again into /ep.i.n from the headers (32 slots, 768
  // bytes, a step) and renaming that into place. Written only while the
  // partition has room for both; a stale one is deleted when it has not.
  // Any batch meanwhile starts the writing again (its record would follow a
  // base that does not hold it).
  protected ixStep(): boolean {
    const ix = this.ix;
    const nPath = this.ixPath() + ".n";
    if (this.redoLater || this.pending.length || this.bad[0] || this.bad[1] || !this.known) return false;
    if (ix.state === "unknown") {
      if (!this.nSlots) return false;
      this.ixCheck();
      return true;
    }
    if (ix.state === "behind") {
      // the last batch's record, from its slots' headers: current again
      // without writing the whole index
      this.ixAppend(new Uint8Array(0));
      return true;
    }
    const b = this.ixBuild;
    if (!b) {
      // current, and its records at most a quarter of its base or 4 KB (what
      // a cold query reads of it stays within 1.25 bases; a rewrite is paid
      // by 4 KB of records at least)
      const base = IX_HEAD + this.nSlots * IX_ENTRY + IX_TRAIL;
      if (!this.nSlots || (ix.state === "ok" && ix.len - base <= Math.max(base >> 2, 4096))) return false;
      // (room not told, as the lin port's System.info() tells none: as roomFor, room)
      let roomy = true;
      try {
        const i = System.info();
        roomy = !(Number(i.used) + 2 * base + 4096 > Number(i.total) * USABLE);
      } catch (e) {
        if (fatal(e)) throw e;
      }
      if (!roomy) {
        if (ix.state !== "absent" && ix.state !== "ok" && this.remove(this.ixPath())) this.ix = { state: "absent", len: 0 };
        return false;
      }
      if (!this.remove(nPath)) return false;
      const head = headOf(this.nSlots, this.seq);
      if (!this.ixWrite(nPath, 0, head)) return false;
      this.ixBuild = { seq: this.seq, n: this.nSlots, at: 0, crc: 0, len: head.length };
      return true;
    }
    if (b.seq !== this.seq || b.n > this.nSlots) {
      this.ixBuild = undefined;
      this.remove(nPath);
      return true;
    }
    if (b.at < b.n) {
      const per = CHUNK / HEADER_BYTES;
      const c = Math.min(per, b.n - b.at);
      const hb = new Uint8Array(c * HEADER_BYTES);
      const oh = new Uint8Array(HEADER_BYTES);
      const out = new Uint8Array(c * IX_ENTRY);
      let f: File | undefined;
      try {
        const p = this.primary();
        const have = Math.max(0, Math.min(c, Math.floor(this.hLen[p] / HEADER_BYTES) - b.at));
        let got = 0;
        if (have > 0) {
          f = this.openCopy("h", p);
          got = this.rdOr(f, p, "h", b.at * HEADER_BYTES, have, HEADER_BYTES, hb);
        }
        for (let i = 0; i < c; i++) {
          // as the scan reads a slot: this copy's header, else the other's, else free
          if (i < got && headerValid(hb, i * HEADER_BYTES)) entryOf(hb, i * HEADER_BYTES, out, i * IX_ENTRY);
          else if (this.readHeader(1 - p, b.at + i, oh)) entryOf(oh, 0, out, i * IX_ENTRY);
        }
      } catch (e) {
        if (fatal(e)) throw e;
        this.ixBuild = undefined;
        this.remove(nPath);
        return false;
      } finally {
        this.close(f);
      }
      if (!this.ixWrite(nPath, b.len, out)) return false;
      b.crc = crc32(out, 0, out.length, b.crc);
      b.len += out.length;
      b.at += c;
      return true;
    }
    const trail = trailOf(b.crc);
    if (!this.ixWrite(nPath, b.len, trail)) return false;
    this.ixBuild = undefined;
    // the old one first (a SPIFFS rename does not replace a file); a cut
    // between leaves /ep.i.n alone, deleted at open: the index is made again
    if (!this.remove(this.ixPath())) {
      this.remove(nPath);
      return false;
    }
    if (!File.rename(nPath, this.ixPath())) {
      this.remove(nPath);
      this.ix = { state: "absent", len: 0 };
      return false;
    }
    this.ix = { state: "ok", len: b.len + trail.length };
    return true;
  }

  // bytes at `pos` of the index being written (its length so far); false
  // (the writing dropped) when it cannot be written
  private ixWrite(path: string, pos: number, bytes: Uint8Array): boolean {
    let f: File | undefined;
    try {
      f = new File(path, true);
      if (f.length !== pos) throw new Error("not the length written");
      f.position = pos;
      f.write(bytes.buffer as ArrayBuffer);
      this.stats.bytesWritten += bytes.length;
      return true;
    } catch (e) {
      if (fatal(e)) throw e;
      this.close(f);
      f = undefined;
      this.ixBuild = undefined;
      this.remove(path);
      return false;
    } finally {
      this.close(f);
    }
  }

  // The passages' upkeep (as the archive's steps do for its streams): the open
  // segment's twin brought level, a full segment sealed, its group's parity
  // made, a damaged segment restored from it.
  protected textStep(): boolean {
    try {
      this.ensureTexts();
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    }
    let roomy = true;
    try {
      const i = System.info();
      roomy = Number(i.used) + SEGMENT_BYTES <= Number(i.total) * TEXT_ROOMY;
    } catch (e) {
      if (fatal(e)) throw e;
    }
    return this.texts.step(roomy);
  }

  // One step of the migration from version 1 (FORMAT.md §4.8): the headers of
  // 32 slots of both copies looked at; up to MIGRATE_SLOTS version-1 slots
  // among them written again as one batch (their texts appended as passages,
  // then both headers as version 2: a cut leaves each slot as before or as
  // after). When a pass finds none left, the text files go: the marker
  // `/ep.m` first, so that a cut between the deletes is finished by open().
  protected migrateStep(): boolean {
    if (this.lean || this.bad[0] || this.bad[1] || this.pending.length) return false;
    const per = CHUNK / HEADER_BYTES;
    if (!this.single && !this.singleNo && (this.migFull || this.pastLine())) return this.singleStep();
    if (this.migAt < this.nSlots) {
      const first = this.migAt, n = Math.min(per, this.nSlots - first);
      const b = new Uint8Array(n * HEADER_BYTES);
      const v1: number[] = [];
      for (let k = 0; k < 2; k++) {
        const have = Math.max(0, Math.min(n, Math.floor(this.hLen[k] / HEADER_BYTES) - first));
        if (!have) continue;
        let f: File | undefined;
        try {
          f = this.openCopy("h", k);
          this.rd(f, first * HEADER_BYTES, have * HEADER_BYTES, b);
        } finally {
          this.close(f);
        }
        for (let i = 0; i < have; i++) if (b[i * HEADER_BYTES + 1] === 1 && headerValid(b, i * HEADER_BYTES) && v1.indexOf(first + i) < 0) v1.push(first + i);
      }
      if (!v1.length) {
        this.migAt += n;
        return true;
      }
      // the first write of a store /ep.w could not tell its seq and highest id
      // reads every header of both copies first (census): a step of its own,
      // not one with a batch (FORMAT.md §4.8: 300 ms a step)
      if (!this.known) {
        this.census();
        return true;
      }
      v1.sort((x, y) => x - y);
      const batch: Episode[] = [];
      for (const s of v1.slice(0, MIGRATE_SLOTS)) batch.push(this.read(s) ?? ({ slot: s, state: "free" } as Episode));
      try {
        this.write(batch);
      } catch (e) {
        // no room for the passages: the second text copy goes first (singleStep)
        if (e instanceof EpisodeError && e.code === "full" && !this.single && !this.singleNo) this.migFull = true;
        throw e;
      }
      this.notes.push(`migrated ${batch.length} slot(s) from ${batch[0].slot} to version 2`);
      return true;
    }
    // every header is version 2: the text files go, the marker first, then
    // one file a step (deleting a 268,800-byte file is most of a step's time)
    if (!File.exists(this.mPath())) {
      let f: File | undefined;
      try {
        f = this.openWrite(this.mPath(), 0);
        this.put(f, 0, MARK, 0, MARK.length);
      } finally {
        this.close(f);
      }
    }
    for (let k = 0; k < 2; k++)
      for (const p of [this.tmp("t", k), this.path("t", k)])
        if (File.exists(p)) {
          this.remove(p); // (one that fails is tried again by the next step)
          return true;
        }
    this.remove(this.mPath());
    this.single = false;
    this.lean = true;
    this.tLen = [0, 0];
    this.notes.push("the migration to version 2 ended: text files deleted");
    return true;
  }

  // The partition at or above its line (the archive's and SPIFFS's 75%,
  // less a passages segment): no room for the migration's passages.
  protected pastLine(): boolean {
    try {
      const i = System.info();
      return Number(i.used) + SEGMENT_BYTES > Number(i.total) * USABLE;
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    }
  }

  // Single-text mode (FORMAT.md §4.8; docs/design/update.md): before the
  // migration of a full partition, /ep.t1 (the second copy of every text) is
  // deleted to make room. First every version-1 slot's text record in /ep.t0
  // is checked, 32 slots a step: it must check out and its CRC equal the
  // textCrc of every header copy of the slot that checks out as version 1.
  // A slot that fails is put in step from copy 1 (settle) and checked again
  // at the next pass; one whose texts fail in both copies keeps both files
  // (the migration goes on as before). Then /ep.s is written and /ep.t1
  // deleted (a cut in between: open() finishes the delete).
  protected singleStep(): boolean {
    const per = CHUNK / HEADER_BYTES;
    const tpr = Math.floor(CHUNK / TEXT_BYTES);
    if (this.singleAt < this.nSlots) {
      const first = this.singleAt, n = Math.min(per, this.nSlots - first);
      const hb = [new Uint8Array(n * HEADER_BYTES), new Uint8Array(n * HEADER_BYTES)];
      const hv = [0, 0];
      for (let k = 0; k < 2; k++) {
        const have = Math.max(0, Math.min(n, Math.floor(this.hLen[k] / HEADER_BYTES) - first));
        hv[k] = have;
        if (!have) continue;
        let f: File | undefined;
        try {
          f = this.openCopy("h", k);
          this.rd(f, first * HEADER_BYTES, have * HEADER_BYTES, hb[k]);
        } finally {
          this.close(f);
        }
      }
      const tl = Math.max(0, Math.min(n, Math.floor(this.tLen[0] / TEXT_BYTES) - first));
      const tb = new Uint8Array(n * TEXT_BYTES);
      if (tl > 0) {
        let f: File | undefined;
        try {
          f = this.openCopy("t", 0);
          for (let i = 0; i < tl; i += tpr) {
            const m = Math.min(tpr, tl - i);
            this.rd(f, (first + i) * TEXT_BYTES, m * TEXT_BYTES, tb, i * TEXT_BYTES);
          }
        } finally {
          this.close(f);
        }
      }
      const fail: number[] = [];
      for (let i = 0; i < n; i++) {
        let v1 = false, ok = true;
        for (let k = 0; k < 2; k++) {
          const at = i * HEADER_BYTES;
          if (i >= hv[k] || hb[k][at + 1] !== 1 || !headerValid(hb[k], at)) continue;
          v1 = true;
          if (i >= tl || !textValid(tb, i * TEXT_BYTES) || textCrcOf(tb, i * TEXT_BYTES) !== headerTextCrc(hb[k], at)) ok = false;
        }
        if (v1 && !ok) fail.push(first + i);
      }
      if (fail.length) {
        this.singleFails++;
        if (this.singleFails > 1 || !this.settle(fail, 1)) {
          // the texts of these slots do not check out in both copies: both files stay
          this.singleNo = true;
          this.notes.push(`single-text: slot(s) ${fail.join(",")} fail in /ep.t0; both text files kept`);
          return true;
        }
        return true; // put in step from copy 1: checked again
      }
      this.singleFails = 0;
      this.singleAt += n;
      return true;
    }
    // renamed first (no room needed: the partition may be at its line), then
    // deleted; a cut leaves /ep.t1.d, which open() deletes
    if (!this.remove(this.tmp("t", 1))) return true;
    if (!File.rename(this.path("t", 1), this.dPath()) && File.exists(this.path("t", 1))) return true; // the next step tries again
    this.single = true;
    this.tLen[1] = this.tLen[0];
    if (!this.remove(this.dPath())) return true; // open() deletes it
    this.migFull = false;
    this.notes.push("single-text: /ep.t0 checked, /ep.t1 deleted");
    return true;
  }

  // Writes copy k again from the other, REBUILD_SLOTS slots per step, into
  // `.h<k>.n` and `.t<k>.n`, then renames them into place. Copy k's old files
  // go first (they cannot be read, or are stale: the other copy holds every
  // slot), which also frees their room. A reboot before the last rename finds
  // the header file missing and starts again. Batches meanwhile also go to the
  // part already copied.
  protected rebuildStep(): boolean {
    const k = this.bad[0] ? 0 : 1, o = 1 - k;
    const hN = this.tmp("h", k), tN = this.tmp("t", k);
    let rb = this.rebuild;
    if (!rb) {
      const own = !this.lean && !this.single; // single-text mode: /ep.t0 is both copies' texts, never deleted here
      // (single-text mode: the `.n` header file is made before the old one goes,
      // so that copy 1 always has a header file: open() tells the mode by it)
      for (const p of own ? [this.path("h", k), this.path("t", k), hN, tN] : this.single ? [hN] : [this.path("h", k), hN, tN]) if (!this.remove(p)) return true; // a delete that failed: the next step tries again
      this.hLen[k] = 0;
      this.tLen[k] = 0;
      for (const p of own ? [hN, tN] : [hN]) this.close(this.openWrite(p, 0));
      if (this.single && !this.remove(this.path("h", k))) return true;
      this.nLen = { h: 0, t: 0 };
      rb = this.rebuild = { k, at: 0, phase: 0 };
      return true;
    }
    const total = Math.min(Math.floor(this.hLen[o] / HEADER_BYTES), EPISODE_SLOTS);
    if (rb.phase === 0 && rb.at < total) {
      const n = Math.min(REBUILD_SLOTS, total - rb.at);
      const tl = Math.max(0, Math.min(n, Math.floor(this.tLen[o] / TEXT_BYTES) - rb.at));
      const hb = new Uint8Array(n * HEADER_BYTES), tb = new Uint8Array(n * TEXT_BYTES);
      let f: File | undefined;
      try {
        f = this.openCopy("h", o);
        this.rd(f, rb.at * HEADER_BYTES, n * HEADER_BYTES, hb);
        this.close(f);
        f = undefined;
        if (tl > 0) {
          f = this.openCopy("t", o);
          this.rd(f, rb.at * TEXT_BYTES, tl * TEXT_BYTES, tb);
          this.close(f);
          f = undefined;
        }
        if (!this.lean && !this.single) {
          f = this.openWrite(tN, this.nLen.t);
          this.nLen.t = this.wr(f, this.nLen.t, rb.at * TEXT_BYTES, tb);
          this.close(f);
          f = undefined;
        }
        f = this.openWrite(hN, this.nLen.h);
        this.nLen.h = this.wr(f, this.nLen.h, rb.at * HEADER_BYTES, hb);
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.rebuild = undefined;
        throw e;
      } finally {
        this.close(f);
      }
      rb.at += n;
      return true;
    }
    if (rb.phase === 0) rb.phase = this.lean || this.single ? 3 : 2;
    if (rb.phase === 2) {
      if (!File.rename(tN, this.path("t", k))) return true; // false: the next step tries again
      rb.phase = 3;
    }
    if (!File.rename(hN, this.path("h", k))) return true;
    this.hLen[k] = this.nLen.h;
    if (!this.lean && !this.single) this.tLen[k] = this.nLen.t;
    this.bad[k] = false;
    this.rebuild = undefined;
    this.countSlots();
    this.notes.push(`slot copy ${k} rebuilt`);
    return true;
  }

  // Runs the rebuild of an unreadable copy to its end (a batch never writes the
  // only readable copy in place while it can help it: a cut could leave that
  // file not finalized too). False when it cannot finish now.
  protected finishRebuild(xs: boolean): boolean {
    if (!this.rebuildBeforeWrite) return false;
    this.learnTombs();
    const most = xs ? Math.ceil((this.nTombs * TOMB_BYTES) / CHUNK) + 8 : Math.ceil(EPISODE_SLOTS / REBUILD_SLOTS) + 8;
    for (let i = 0; i < most; i++) {
      if (xs ? !(this.xbad[0] || this.xbad[1]) : !(this.bad[0] || this.bad[1])) return true;
      try {
        if (xs) this.rebuildTombStep();
        else this.rebuildStep();
      } catch (e) {
        if (fatal(e)) throw e;
        return false;
      }
    }
    return xs ? !(this.xbad[0] || this.xbad[1]) : !(this.bad[0] || this.bad[1]);
  }

  protected rebuildTombStep(): boolean {
    this.learnTombs();
    const k = this.xbad[0] ? 0 : 1, o = 1 - k;
    const xN = this.tmp("x", k);
    let rb = this.xrebuild;
    if (!rb) {
      if (!this.remove(this.path("x", k)) || !this.remove(xN)) return true;
      this.xLen[k] = 0;
      this.close(this.openWrite(xN, 0));
      rb = this.xrebuild = { k, at: 0 };
      return true;
    }
    const end = this.nTombs * TOMB_BYTES;
    if (rb.at < end) {
      const n = Math.min(CHUNK - (CHUNK % TOMB_BYTES), end - rb.at);
      const b = new Uint8Array(n);
      const have = Math.max(0, Math.min(n, this.xLen[o] - rb.at));
      let f: File | undefined;
      try {
        if (have > 0) {
          f = this.openCopy("x", o);
          this.rd(f, rb.at, have, b);
          this.close(f);
          f = undefined;
        }
        f = this.openWrite(xN, rb.at);
        this.wr(f, rb.at, rb.at, b);
      } finally {
        this.close(f);
      }
      rb.at += n;
      return true;
    }
    if (!File.rename(xN, this.path("x", k))) return true;
    this.xLen[k] = rb.at;
    this.xbad[k] = false;
    this.xrebuild = undefined;
    this.notes.push(`tomb copy ${k} rebuilt`);
    return true;
  }

  // One piece of a scrub pass: SCRUB_SLOTS slots of both copies compared (and
  // repaired), then, after the last slot, the tombstones SCRUB_TOMBS at a time.
  // Returns false when a pass has just ended, or the next is not due yet: a
  // clock set back by more than a pass's rest counts as due.
  protected scrubStep(nowMs?: number): boolean {
    // the texts' collection: moving the live texts of a segment, a step each
    if (this.gcMove()) return true;
    // an owner-deleted episode's slot was freed: a census of its own (not
    // waiting for the next pass) finds the segments its text is in
    if (this.wipeDue && this.lean && !this.gc) {
      this.wipeDue = false;
      this.gc = { phase: 0, at: 0, live: new Map(), victim: -1, found: 0, wipe: [], waits: 0, own: true };
    }
    if (this.gc && this.gc.phase === 0 && (this.gc.own || (this.scrubAt < 0 && this.gc.at >= this.nSlots))) {
      this.gcCount();
      return true;
    }
    if (this.scrubAt < 0) {
      if (nowMs !== undefined && nowMs < this.scrubDue && nowMs >= this.scrubDue - SCRUB_EVERY_MS) return false;
      this.scrubAt = 0;
      this.scrubTomb = 0;
      this.hadWork = false;
      // a census of the texts' live bytes rides along with the pass
      if (this.lean && !this.gc) this.gc = { phase: 0, at: 0, live: new Map(), victim: -1, found: 0, wipe: [], waits: 0, own: false };
    }
    this.gcCount();
    const maxSlots = Math.min(EPISODE_SLOTS, Math.max(Math.floor(this.hLen[0] / HEADER_BYTES), Math.floor(this.hLen[1] / HEADER_BYTES)));
    if (this.scrubAt < maxSlots) {
      const list: number[] = [];
      for (let s = this.scrubAt; s < Math.min(maxSlots, this.scrubAt + SCRUB_SLOTS); s++) list.push(s);
      const fixed = this.settle(list);
      if (fixed) {
        this.hadWork = true;
        this.notes.push(`scrub: ${fixed} slot(s) repaired from ${list[0]}`);
      }
      this.scrubAt += list.length;
      return true;
    }
    this.learnTombs();
    if (this.scrubTomb < this.nTombs) {
      const fixed = this.scrubTombs(this.scrubTomb, Math.min(SCRUB_TOMBS, this.nTombs - this.scrubTomb));
      if (fixed) {
        this.hadWork = true;
        this.notes.push(`scrub: ${fixed} tombstone(s) repaired from ${this.scrubTomb}`);
      }
      this.scrubTomb += SCRUB_TOMBS;
      return true;
    }
    this.scrubAt = -1;
    if (nowMs !== undefined) this.scrubDue = nowMs + SCRUB_EVERY_MS;
    // the census's collection goes on after the pass (a segment waited for, a segment to move)
    return !!this.gc;
  }

  // ---- collecting the passages no header points to (FORMAT.md §4.3.1) --------------------

  // Both copies' headers of slots [first, first + n) into b (copy k at k·n·128); how many each copy has.
  private headersOf(first: number, n: number, b: Uint8Array): number[] {
    const have = [0, 0];
    for (let k = 0; k < 2; k++) {
      have[k] = Math.max(0, Math.min(n, Math.floor(this.hLen[k] / HEADER_BYTES) - first));
      if (!have[k]) continue;
      let f: File | undefined;
      try {
        f = this.openCopy("h", k);
        this.rd(f, first * HEADER_BYTES, have[k] * HEADER_BYTES, b, k * n * HEADER_BYTES);
      } finally {
        this.close(f);
      }
    }
    return have;
  }

  // The census: 32 slots of both copies a step (with the scrub's pieces), the
  // bytes of lines headers point to, per segment. At its end, the sealed
  // segment with the least live share, if under half, is the one to collect.
  protected gcCount(): void {
    const g = this.gc;
    if (!g || g.phase !== 0 || !this.lean || this.bad[0] || this.bad[1]) return;
    const per = CHUNK / HEADER_BYTES;
    if (g.at < this.nSlots) {
      const n = Math.min(per, this.nSlots - g.at);
      const b = new Uint8Array(2 * n * HEADER_BYTES);
      const have = this.headersOf(g.at, n, b);
      for (let i = 0; i < n; i++) {
        let seen = -1;
        for (let k = 0; k < 2; k++) {
          const at = (k * n + i) * HEADER_BYTES;
          if (i >= have[k] || !headerValid(b, at) || !headerLean(b, at)) continue;
          if (headerState(b, at) === 0) {
            // a freed owner-deleted episode's text: its segment is collected whatever its live share
            const w = headerWipe(b, at) ? headerRef(b, at) : undefined;
            if (w && w.seq > 0 && w.len > 0 && g.wipe.indexOf(w.seq) < 0) g.wipe.push(w.seq);
            continue;
          }
          const r = headerRef(b, at);
          if (r.seq === seen) continue;
          seen = r.seq;
          g.live.set(r.seq, (g.live.get(r.seq) ?? 0) + r.len);
        }
      }
      g.at += n;
      return;
    }
    try {
      this.ensureTexts();
    } catch (e) {
      if (fatal(e)) throw e;
      this.gc = undefined;
      return;
    }
    const st = this.texts.stream;
    const unsealed = st.unsealed();
    // an owner-deleted text's segment first (the oldest): the one taking
    // appends is closed (the next append starts another), then sealed by the
    // passages' steps; a damaged one is restored first. Waited for at most
    // WIPE_WAITS steps, else the next census tries again.
    const forced = g.wipe.filter((q) => st.segs.has(q)).sort((a, b) => a - b);
    if (forced.length) {
      const v = forced[0];
      if (st.open && st.open.seq === v) {
        st.startNext();
        this.notes.push(`texts: p${v} holds an owner-deleted text: closed, to be collected`);
      }
      if (this.unready(v, st.unsealed())) {
        if (++g.waits > WIPE_WAITS) {
          this.notes.push(`texts: p${v} not collected yet: it is not sealed, or damaged`);
          this.gc = undefined;
        }
        return;
      }
      g.phase = 1;
      g.at = 0;
      g.victim = v;
      g.found = 0;
      this.notes.push(`texts: p${v} holds an owner-deleted text: collected by steps`);
      return;
    }
    let best = -1, bestShare = GC_SHARE;
    st.segs.forEach((len, seq) => {
      if (this.unready(seq, unsealed) || len <= 0) return;
      const share = (g.live.get(seq) ?? 0) / len;
      if (share < bestShare) {
        bestShare = share;
        best = seq;
      }
    });
    if (best < 0) {
      this.gc = undefined;
      return;
    }
    g.phase = 1;
    g.at = 0;
    g.victim = best;
    g.found = 0;
    this.notes.push(`texts: p${best} holds ${Math.round(bestShare * 100)}% live lines: collected by steps`);
  }

  // Is passages segment `seq` not to be collected now: taking appends,
  // waiting to be sealed (`unsealed`), damaged or being restored?
  private unready(seq: number, unsealed: readonly number[]): boolean {
    const st = this.texts.stream;
    return (st.open !== undefined && st.open.seq === seq) || unsealed.indexOf(seq) >= 0 || st.restoring.has(seq) || st.damaged.has(seq);
  }

  // Collecting segment `victim`: a pass over both copies' headers, 32 slots a
  // step, writes the slots that point into it again (at most 5 a step, an
  // ordinary batch: their texts appended anew, then both headers); a pass that
  // finds none retires the segment (its group's parity goes first and is made
  // again by steps). A cut anywhere leaves every header pointing to a whole text.
  protected gcMove(): boolean {
    const g = this.gc;
    if (!g || g.phase !== 1) return false;
    if (!this.lean || this.bad[0] || this.bad[1] || this.pending.length || this.redoLater) return false;
    const st = this.texts.stream;
    if (!st.segs.has(g.victim) || (st.open && st.open.seq === g.victim)) {
      this.gc = undefined;
      return false;
    }
    // a victim the stream is restoring, or has marked damaged (a read met
    // damage that the passages' upkeep, which runs first, could not restore):
    // deferred with its group's parity kept; a later census picks it when whole
    if (st.restoring.has(g.victim) || st.damaged.has(g.victim)) {
      this.notes.push(`texts: p${g.victim} not collected yet: damaged or being restored`);
      this.deferGc(g);
      return false;
    }
    const per = CHUNK / HEADER_BYTES;
    if (g.at < this.nSlots) {
      const n = Math.min(per, this.nSlots - g.at);
      const b = new Uint8Array(2 * n * HEADER_BYTES);
      const have = this.headersOf(g.at, n, b);
      const slots: number[] = [];
      for (let i = 0; i < n && slots.length < MIGRATE_SLOTS; i++) {
        for (let k = 0; k < 2; k++) {
          const at = (k * n + i) * HEADER_BYTES;
          if (i < have[k] && headerValid(b, at) && headerLean(b, at) && headerState(b, at) !== 0 && headerRef(b, at).seq === g.victim) {
            if (slots.indexOf(g.at + i) < 0) slots.push(g.at + i);
          }
        }
      }
      if (!slots.length) {
        g.at += n;
        return true;
      }
      const batch: Episode[] = [];
      for (const s of slots) {
        const ep = this.read(s);
        if (!ep) {
          // a text that cannot be read now: its segment stays
          this.notes.push(`texts: p${g.victim} not collected: slot ${s} cannot be read`);
          this.gc = undefined;
          return true;
        }
        batch.push(ep);
      }
      this.moving = slots;
      try {
        this.write(batch);
      } catch (e) {
        // (no room, an I/O error): the collection stops; the next census tries again
        if (!fatal(e)) this.gc = undefined;
        throw e;
      } finally {
        this.moving = [];
      }
      g.found += slots.length;
      return true;
    }
    if (g.found) {
      // moved some: one more pass finds none before the segment goes
      g.found = 0;
      g.at = 0;
      return true;
    }
    // the open segment's twin XORed with this group's parity is made plain
    // first, by steps (passages.ts unkey): never left without a twin
    try {
      if (this.texts.unkey(g.victim)) return true;
    } catch (e) {
      if (!fatal(e)) this.gc = undefined;
      throw e;
    }
    // the group's parity goes only when every sealed member opens (the
    // victim too: one left not finalized at rest will not rename): one that
    // does not is marked damaged and restored from that parity by the
    // passages' upkeep; the collection waits for a later census
    const bad = this.unopenable(g.victim);
    if (bad >= 0) {
      this.notes.push(`texts: p${g.victim} not collected yet: p${bad} of its group cannot be opened`);
      this.deferGc(g);
      return true;
    }
    try {
      st.dropParityOf(g.victim);
      // a rename that fails all the same deletes the segment (stream.ts
      // retire): the pass above found no header pointing into it
      st.retire(g.victim);
    } catch (e) {
      // (a delete that failed too): the parity is made again by steps, the
      // next census tries again
      if (!fatal(e)) this.gc = undefined;
      throw e;
    }
    this.notes.push(`texts: p${g.victim} collected`);
    // another segment may hold an owner-deleted text: a census of its own looks at once
    if (g.wipe.some((q) => q !== g.victim && st.segs.has(q))) this.wipeDue = true;
    this.gc = undefined;
    return true;
  }

  // A collection deferred: an owner-deleted text's segment is looked for
  // again by a census of its own (which waits for a restore, at most
  // WIPE_WAITS steps), not a scrub pass later
  private deferGc(g: { wipe: number[]; victim: number }): void {
    if (g.wipe.indexOf(g.victim) >= 0) this.wipeDue = true;
    this.gc = undefined;
  }

  // The first sealed member of `victim`'s group (the victim included) that
  // is damaged, being restored, or cannot be opened (it is then marked
  // damaged: the passages' upkeep restores it from the group's parity), or -1.
  // One open a member, as a parity step opens them.
  private unopenable(victim: number): number {
    const st = this.texts.stream;
    const grp = st.gOf(victim);
    for (let q = st.fOf(grp); q < st.fOf(grp + 1); q++) {
      if (!st.segs.has(q) || (st.open && st.open.seq === q)) continue;
      if (st.damaged.has(q) || st.restoring.has(q)) return q;
      let f: File | undefined;
      try {
        f = st.openRead(q); // (marks it damaged when it will not open: served from a second source)
      } catch (e) {
        if (fatal(e)) throw e;
      } finally {
        this.close(f);
      }
      if (!f || st.damaged.has(q)) {
        st.damaged.set(q, true);
        return q;
      }
    }
    return -1;
  }

  protected scrubTombs(first: number, n: number): number {
    const b = [new Uint8Array(n * TOMB_BYTES), new Uint8Array(n * TOMB_BYTES)];
    const have = [0, 0];
    for (let k = 0; k < 2; k++) {
      have[k] = Math.max(0, Math.min(n, Math.floor(this.xLen[k] / TOMB_BYTES) - first));
      if (!have[k]) continue;
      let f: File | undefined;
      try {
        f = this.openCopy("x", k);
        this.rd(f, first * TOMB_BYTES, have[k] * TOMB_BYTES, b[k]);
      } finally {
        this.close(f);
      }
    }
    let fixed = 0;
    for (let k = 0; k < 2; k++) {
      let f: File | undefined;
      try {
        for (let i = 0; i < n; i++) {
          const at = i * TOMB_BYTES;
          const mine = i < have[k] && tombValid(b[k], at);
          const theirs = i < have[1 - k] && tombValid(b[1 - k], at);
          if (!theirs) continue;
          if (mine) {
            let same = true;
            for (let x = at; x < at + TOMB_BYTES && same; x++) same = b[k][x] === b[1 - k][x];
            if (same || k === 1) continue; // two valid, different records (never written so): copy 0 stands
          }
          f ??= this.openWrite(this.path("x", k), this.xLen[k]);
          this.xLen[k] = this.wr(f, this.xLen[k], (first + i) * TOMB_BYTES, b[1 - k], at, at + TOMB_BYTES);
          b[k].set(b[1 - k].subarray(at, at + TOMB_BYTES), at);
          if (i >= have[k]) have[k] = i + 1;
          fixed++;
        }
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.markXBad(k, "emptied by a write open");
        else throw e;
      } finally {
        this.close(f);
      }
    }
    return fixed;
  }

  footprint(): number {
    this.open();
    let n = this.seq > 0 ? W_BYTES : 0;
    for (let k = 0; k < 2; k++) n += this.hLen[k] + this.tLen[k] + this.xLen[k];
    if (this.rebuild) n += this.nLen.h + this.nLen.t;
    n += this.ix.state === "absent" ? 0 : this.ix.len;
    if (this.ixBuild) n += this.ixBuild.len;
    return n + this.texts.footprint();
  }
}

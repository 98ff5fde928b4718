// The episode store's ids, reads and batches (docs/FORMAT.md §4): a census of
// the headers when needed, a slot read from the copy that checks out, a batch
// written through /ep.w to copy 0 then copy 1. The files and open() are in
// store-files.ts, the upkeep in store.ts.

import { File, System } from "file";

import { EPISODE_SLOTS, EPISODE_SIG_BYTES, type Episode, type TextFilterApi } from "./types";
import {
  EpisodeError,
  HEADER_BYTES,
  TEXT_BYTES,
  checkEpisode,
  encodeText,
  encodeHeader,
  headerValid,
  headerSeq,
  headerState,
  headerId,
  headerTextCrc,
  headerTextSeq,
  textValid,
  textCrcOf,
  decodeHeader,
  decodeText,
  headerLean,
  headerRef,
  headerWipe,
  H_SIG,
  type Checked,
} from "./record";
import { encodePassage } from "../archive/codec";
import { crc32 } from "../nvs/crc32";
import { ArchiveError } from "../archive/file";
import { measure, TextFilter, type TextRef } from "./passages";
import { recordOf, entryOf, sameEntry, IX_ENTRY } from "./slot-index";
import { signature } from "./sig";
import {
  CHUNK,
  MAX_BATCH,
  SLOT_BYTES,
  TEXTS_PER_READ,
  USABLE,
  fatal,
  messageOf,
  Emptied,
  Stale,
  Opening,
  EpisodeFiles,
} from "./store-files";

export abstract class EpisodeBatch extends EpisodeFiles {
  // ---- ids, free slots: a census of the headers when needed -------------------------------

  nextId(): number {
    this.open();
    this.ensureKnown();
    if (this.given < this.maxId) this.given = this.maxId;
    return ++this.given;
  }

  freeSlot(): number {
    this.open();
    if (!this.free) this.census();
    const fm = this.free as Uint8Array;
    for (let s = 0; s < this.nSlots; s++) if (fm[s >> 3] & (1 << (s & 7))) return s;
    return this.nSlots;
  }

  protected ensureKnown(): void {
    if (!this.known) this.census();
  }

  // One pass over the headers: which slots are free; and, when /ep.w could not
  // tell them, the highest seq and id (both copies and the tombstones are read).
  protected census(): void {
    const both = !this.known;
    const fm = new Uint8Array(EPISODE_SLOTS >> 3);
    let maxSeq = 0, maxId = 0;
    const p = this.bad[0] ? 1 : 0;
    const q = 1 - p;
    const per = CHUNK / HEADER_BYTES;
    const b0 = new Uint8Array(CHUNK);
    let b1: Uint8Array | undefined;
    let f0: File | undefined, f1: File | undefined;
    try {
      if (this.hLen[p] > 0) f0 = this.openCopy("h", p);
      for (let first = 0; first < this.nSlots; first += per) {
        const n = Math.min(per, this.nSlots - first);
        const have0 = f0 ? Math.max(0, Math.min(n, Math.floor(this.hLen[p] / HEADER_BYTES) - first)) : 0;
        this.rd(f0 as File, first * HEADER_BYTES, have0 * HEADER_BYTES, b0);
        let need = both && !this.bad[q];
        for (let i = 0; i < n && !need; i++) if (i >= have0 || !headerValid(b0, i * HEADER_BYTES)) need = !this.bad[q];
        let have1 = 0;
        if (need) {
          b1 ??= new Uint8Array(CHUNK);
          if (!f1 && this.hLen[q] > 0) f1 = this.openCopy("h", q);
          have1 = f1 ? Math.max(0, Math.min(n, Math.floor(this.hLen[q] / HEADER_BYTES) - first)) : 0;
          this.rd(f1 as File, first * HEADER_BYTES, have1 * HEADER_BYTES, b1);
        }
        for (let i = 0; i < n; i++) {
          const at = i * HEADER_BYTES;
          const v0 = i < have0 && headerValid(b0, at);
          const v1 = need && i < have1 && headerValid(b1 as Uint8Array, at);
          if (v0) {
            maxSeq = Math.max(maxSeq, headerSeq(b0, at));
            maxId = Math.max(maxId, headerId(b0, at));
          }
          if (v1) {
            maxSeq = Math.max(maxSeq, headerSeq(b1 as Uint8Array, at));
            maxId = Math.max(maxId, headerId(b1 as Uint8Array, at));
          }
          const state = v0 ? headerState(b0, at) : v1 ? headerState(b1 as Uint8Array, at) : 0;
          const s = first + i;
          // (a free slot whose text waits to be collected is not given out: its header keeps the pointer)
          if (state === 0 && !(v0 ? this.wipePending(b0, at) : v1 && this.wipePending(b1 as Uint8Array, at))) fm[s >> 3] |= 1 << (s & 7);
        }
      }
    } finally {
      this.close(f0);
      this.close(f1);
    }
    this.free = fm;
    if (both) {
      this.tombs((t) => {
        if (t.id > maxId) maxId = t.id;
      });
      this.seq = Math.max(this.seq, maxSeq);
      this.maxId = Math.max(this.maxId, maxId);
      this.known = true;
      this.notes.push(`census: seq ${this.seq}, highest id ${this.maxId}`);
    }
  }

  protected setFree(slot: number, isFree: boolean): void {
    if (!this.free) return;
    if (isFree) this.free[slot >> 3] |= 1 << (slot & 7);
    else this.free[slot >> 3] &= ~(1 << (slot & 7));
  }

  // ---- reading ------------------------------------------------------------------------------

  protected primary(): number {
    if (this.bad[0] && this.bad[1]) throw new EpisodeError("io", "episodes: neither copy can be read");
    return this.bad[0] ? 1 : 0;
  }

  // n records of `size` bytes of copy p at pos, or none (0) when they cannot be
  // read and the other copy can serve them (copy p is then marked unreadable).
  protected rdOr(f: File, p: number, part: "h" | "t", pos: number, n: number, size: number, buf: Uint8Array): number {
    if (this.bad[p] && !this.bad[1 - p]) return 0;
    try {
      this.rd(f, pos, n * size, buf);
      return n;
    } catch (e) {
      if (fatal(e) || this.bad[1 - p]) throw e;
      this.markBad(p, `${part}${p} unreadable`);
      return 0;
    }
  }

  // One slot's header from copy k into h[0..128), and its episode with its text
  // into into[0] (when given); false when not whole there. A version-2
  // header's text is its passage, a version-1 one's its text record.
  protected readSlot(k: number, slot: number, h: Uint8Array, into?: Episode[]): boolean {
    const t = this.lean ? undefined : new Uint8Array(TEXT_BYTES);
    if (this.bad[k] || (slot + 1) * HEADER_BYTES > this.hLen[k]) return false;
    let f: File | undefined;
    try {
      f = this.openCopy("h", k);
      this.rd(f, slot * HEADER_BYTES, HEADER_BYTES, h);
      if (!headerValid(h, 0)) return false;
      if (headerLean(h, 0)) {
        this.close(f);
        f = undefined;
        return this.passageOf(h, 0, slot, into);
      }
      if (!t || (slot + 1) * TEXT_BYTES > this.tLen[k]) return false;
      this.close(f);
      f = this.openCopy("t", k);
      this.rd(f, slot * TEXT_BYTES, TEXT_BYTES, t);
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    } finally {
      this.close(f);
    }
    if (!(textValid(t, 0) && textCrcOf(t, 0) === headerTextCrc(h, 0))) return false;
    if (into) {
      const ep = decodeHeader(h, 0, slot);
      decodeText(t, 0, ep);
      into[0] = ep;
    }
    return true;
  }

  // A version-2 header's episode with its text (the passage it points to) into
  // into[0]; a free slot's needs none. False when the text cannot be read.
  protected passageOf(h: Uint8Array, at: number, slot: number, into?: Episode[]): boolean {
    const ep = decodeHeader(h, at, slot);
    if (headerState(h, at) !== 0) {
      this.ensureTexts();
      const x = this.texts.read(headerRef(h, at));
      if (!x) return false;
      ep.content = x.content;
      ep.keywords = x.keywords;
    }
    if (into) into[0] = ep;
    return true;
  }

  read(slot: number): Episode | undefined {
    this.open();
    if (typeof slot !== "number" || !Number.isInteger(slot) || slot < 0 || slot >= this.nSlots) return undefined;
    const h = new Uint8Array(HEADER_BYTES);
    const p = this.primary();
    const got: Episode[] = [];
    if (!this.readSlot(p, slot, h, got) && !this.readSlot(1 - p, slot, h, got)) return undefined;
    if (headerState(h, 0) === 0) return undefined;
    return got[0];
  }

  // read(slot) when `may` holds for its header's signature: the header is read
  // first (128 bytes), the text only then. The primary copy's header decides
  // (the scan serves that copy whenever its slot checks out; the copies hold
  // the same episodes once open() has settled them); one that does not check
  // out: the slot is read whole, as read() does.
  readIf(slot: number, may: (h: Uint8Array, sigAt: number) => boolean): Episode | undefined {
    this.open();
    if (typeof slot !== "number" || !Number.isInteger(slot) || slot < 0 || slot >= this.nSlots) return undefined;
    const h = new Uint8Array(HEADER_BYTES);
    const p = this.primary();
    if (!this.readHeader(p, slot, h)) return this.read(slot);
    if (headerState(h, 0) === 0 || !may(h, H_SIG)) return undefined;
    if (headerLean(h, 0)) {
      const got: Episode[] = [];
      return this.passageOf(h, 0, slot, got) ? got[0] : this.read(slot);
    }
    // its text from the same copy, as read() would take it
    const t = new Uint8Array(TEXT_BYTES);
    let ok = false;
    if ((slot + 1) * TEXT_BYTES <= this.tLen[p]) {
      let f: File | undefined;
      try {
        f = this.openCopy("t", p);
        this.rd(f, slot * TEXT_BYTES, TEXT_BYTES, t);
        ok = textValid(t, 0) && textCrcOf(t, 0) === headerTextCrc(h, 0);
      } catch (e) {
        if (fatal(e)) throw e;
      } finally {
        this.close(f);
      }
    }
    if (!ok) return this.read(slot);
    const ep = decodeHeader(h, 0, slot);
    decodeText(t, 0, ep);
    return ep;
  }

  // Every episode that is not free, in slot order: the header file streamed in
  // 4 KB reads (with text, the text file alongside, 6 slots a read); a slot
  // whose copy does not check out is read from the other copy.
  // `want` (with text, a lean store): a valid header whose text is not wanted
  // (want(header bytes, its offset) false) comes without it (withText false).
  scan(fn: (ep: Episode, withText?: boolean, textLen?: number) => boolean | void, text?: boolean, want?: (h: Uint8Array, at: number) => boolean): void {
    this.open();
    if (!this.nSlots) return;
    try {
      this.scanFrom(this.primary(), fn, text, want);
    } catch (e) {
      // a copy that could not be opened (now marked so) before anything was served: the other one
      if (!(e instanceof Opening)) throw e;
      this.scanFrom(this.primary(), fn, text, want);
    }
  }

  // Which texts may hold every one of `words` (folded): asked with a
  // version-2 header (h, at), its passage's block signatures (TextFilter).
  // Undefined when they can rule out nothing (no element, not a lean store).
  textFilter(words: readonly Uint8Array[]): TextFilterApi | undefined {
    this.open();
    if (!this.lean) return undefined;
    try {
      this.ensureTexts();
    } catch (e) {
      if (fatal(e)) throw e;
      return undefined;
    }
    const f = new TextFilter(this.texts, words);
    if (!f.probe.length) return undefined;
    return { may: (h, at) => !headerLean(h, at) || f.may(headerRef(h, at)), times: () => f.times(), cost: () => f.cost(), eager: () => (f.eager = true) };
  }

  protected scanFrom(p: number, fn: (ep: Episode, withText?: boolean, textLen?: number) => boolean | void, text?: boolean, want?: (h: Uint8Array, at: number) => boolean): void {
    // a lean store's scan that picks texts streams its headers 32 a read
    const per = text && (!want || !this.lean) ? TEXTS_PER_READ : CHUNK / HEADER_BYTES;
    const hb = new Uint8Array(per * HEADER_BYTES);
    // version-1 texts are read side by side; a lean store's are passages (read one by one)
    const tb = text && !this.lean ? new Uint8Array(per * TEXT_BYTES) : undefined;
    const oh = new Uint8Array(HEADER_BYTES);
    const fm = new Uint8Array(EPISODE_SLOTS >> 3);
    const got: Episode[] = [];
    let fh: File | undefined, ft: File | undefined;
    const n = this.nSlots;
    if (text) this.texts.begin();
    try {
      const hs = Math.floor(this.hLen[p] / HEADER_BYTES), ts = Math.floor(this.tLen[p] / TEXT_BYTES);
      try {
        if (hs > 0) fh = this.openCopy("h", p);
        if (text && ts > 0) ft = this.openCopy("t", p);
      } catch (e) {
        if (e instanceof EpisodeError && this.bad[p] && !this.bad[1 - p]) throw new Opening();
        throw e;
      }
      for (let first = 0; first < n; first += per) {
        const c = Math.min(per, n - first);
        let hc = Math.max(0, Math.min(c, hs - first));
        // a copy listed and opened whose reads fail (the real SPIFFS, cut while
        // a slot was written in place, leaves its index on deleted pages): its
        // slots come from the other copy, and it is rebuilt by steps
        hc = this.rdOr(fh as File, p, "h", first * HEADER_BYTES, hc, HEADER_BYTES, hb);
        let tc = 0;
        if (tb) {
          tc = Math.max(0, Math.min(c, ts - first));
          tc = this.rdOr(ft as File, p, "t", first * TEXT_BYTES, tc, TEXT_BYTES, tb);
        }
        for (let i = 0; i < c; i++) {
          const s = first + i;
          const ha = i * HEADER_BYTES, ta = i * TEXT_BYTES;
          let h = hb, hAt = ha;
          let ok = i < hc && headerValid(hb, ha);
          got.length = 0;
          // a text not wanted: the header alone (the slot is not free)
          const skip = ok && text && !!want && headerLean(hb, ha) && headerState(hb, ha) !== 0 && !want(hb, ha);
          if (skip) {
            if (fn(decodeHeader(hb, ha, s), false, headerRef(hb, ha).len) === true) return;
            continue;
          }
          if (ok && text) ok = headerLean(hb, ha) ? this.passageOf(hb, ha, s, got) : !!tb && i < tc && textValid(tb, ta) && textCrcOf(tb, ta) === headerTextCrc(hb, ha);
          if (!ok) {
            // the other copy (opened for this slot alone: at most 3 files open)
            got.length = 0;
            ok = text ? this.readSlot(1 - p, s, oh, got) : this.readHeader(1 - p, s, oh);
            h = oh;
            hAt = 0;
          }
          if (!ok || headerState(h, hAt) === 0) {
            if (!(ok && this.wipePending(h, hAt))) fm[s >> 3] |= 1 << (s & 7);
            continue;
          }
          const ep = got.length ? got[0] : decodeHeader(h, hAt, s);
          if (text && !got.length && tb) decodeText(tb, ta, ep);
          // (the bytes of its passage's lines: a version-1 header's text is not a passage, -1)
          if (fn(ep, !!text, headerLean(h, hAt) ? headerRef(h, hAt).len : -1) === true) return;
        }
      }
      this.free = fm; // a whole scan is a census of the free slots
    } finally {
      this.close(fh);
      this.close(ft);
      if (text) this.texts.end();
    }
  }

  protected readHeader(k: number, slot: number, h: Uint8Array): boolean {
    if (this.bad[k] || (slot + 1) * HEADER_BYTES > this.hLen[k]) return false;
    let f: File | undefined;
    try {
      f = this.openCopy("h", k);
      this.rd(f, slot * HEADER_BYTES, HEADER_BYTES, h);
    } catch (e) {
      if (fatal(e)) throw e;
      return false;
    } finally {
      this.close(f);
    }
    return headerValid(h, 0);
  }

  // ---- writing ------------------------------------------------------------------------------

  write(batch: Episode[]): void {
    this.open();
    if (!Array.isArray(batch)) throw new EpisodeError("bad", "batch must be a list of episodes");
    if (!batch.length) return;
    if (batch.length > MAX_BATCH) throw new EpisodeError("bad", `at most ${MAX_BATCH} episodes per batch`);
    batch = batch.slice(); // prepare() may mark a free one `wipe` (its text still to be collected)
    const slots: number[] = [];
    let top = -1;
    for (const ep of batch) {
      if (ep && ep.slot === EPISODE_SLOTS) throw new EpisodeError("full", `episodes: all ${EPISODE_SLOTS} slots are in use`);
      checkEpisode(ep); // throws for bad input (its bytes are not kept: the text goes as a passage)
      if (slots.indexOf(ep.slot) >= 0) throw new EpisodeError("bad", `slot ${ep.slot} twice in one batch`);
      slots.push(ep.slot);
      if (ep.slot > top) top = ep.slot;
    }
    // new slots extend the files one after the other
    let grow = 0;
    for (const s of slots) if (s >= this.nSlots) grow++;
    if (top >= this.nSlots + grow) throw new EpisodeError("bad", `slot ${top} is past the end (${this.nSlots} slots)`);
    if (this.bad[0] && this.bad[1]) throw new EpisodeError("io", "episodes: neither copy can be written");
    this.ensureKnown();
    if (grow) this.roomFor(grow * HEADER_BYTES * 2);
    if (this.pending.length) this.settlePending();
    if (this.redoLater) {
      // a batch /ep.w holds whole goes first: this one would write over it
      const r = this.redoLater;
      this.redo(r.seq, r.maxId, r.slots);
      this.redoLater = undefined;
    }
    // the slot index checked against the seq before this batch (once an
    // open): a record this batch appends must follow the last one
    if (this.ix.state === "unknown") this.ixCheck();
    const seq = this.seq + 1;
    let maxId = this.maxId;
    for (const ep of batch) if (ep.state !== "free" && ep.id > maxId) maxId = ep.id;
    // the texts first (passages no header points to yet), then the headers
    const same: boolean[] = [];
    const recs = this.prepare(batch, seq, same);
    // a batch that throws may have moved the seq with no record: the index
    // is checked again before the next one (one behind is taken)
    let noted = false;
    try {
      this.writeBoth(batch, recs, seq, maxId, slots, same);
      noted = true;
    } finally {
      if (!noted && (this.ix.state === "ok" || this.ix.state === "behind")) {
        this.ix.state = "unknown";
        this.ix.behind = undefined;
      }
    }
  }

  private writeBoth(batch: Episode[], recs: Uint8Array, seq: number, maxId: number, slots: number[], same: boolean[]): void {
    if ((this.bad[0] || this.bad[1]) && !this.finishRebuild(false)) {
      // the rebuild cannot finish now (no room, a rename refused): the batch goes whole through /ep.w
      this.writeAlone(batch, recs, seq, maxId, slots);
      this.learnt(batch);
      this.ixNote(seq, slots, recs, same);
      return;
    }
    this.writeW(seq, maxId, slots); // throws: nothing written
    this.lastSlots = slots;
    this.seq = seq;
    this.maxId = maxId;
    let done = 0; // copies that hold the batch whole
    let err: unknown;
    for (let k = 0; k < 2; k++) {
      const rebuilding = this.bad[k];
      if (rebuilding && !(this.rebuild && this.rebuild.k === k)) continue;
      try {
        this.writeCopy(k, batch, recs);
        if (!rebuilding) done++;
      } catch (e) {
        if (fatal(e)) throw e;
        if (rebuilding) {
          this.rebuild = undefined; // its files failed: the rebuild starts again
          continue;
        }
        if (e instanceof Emptied) {
          // nothing of the batch reached copy k, which lost its bytes: the
          // other copy takes the batch, copy k is rebuilt from it
          this.markBad(k, "emptied by a write open");
          err = e;
          continue;
        }
        if (done === 0) {
          // the first copy failed part way: it gets the other copy's slots back
          if (!this.bad[1 - k] && !(e instanceof Stale)) this.rollBack(k, slots);
          throw e instanceof EpisodeError ? e : new EpisodeError("io", `episodes: the batch was not written (${messageOf(e)})`);
        }
        // copy 0 holds the batch whole: copy 1 is put in step by steps
        for (const s of slots) if (this.pending.indexOf(s) < 0) this.pending.push(s);
        this.notes.push(`copy ${k} missed a batch (${messageOf(e)}): put in step by steps`);
      }
    }
    if (!done) throw err instanceof EpisodeError ? err : new EpisodeError("io", `episodes: the batch was not written (${messageOf(err)})`);
    this.learnt(batch);
    this.ixNote(seq, slots, recs, same);
  }

  // The slot index's record of batch `seq` (FORMAT.md §4.9), appended after
  // the batch is whole in a copy; same[i]: slot i's entry is what it was
  // (prepare()). A failure leaves the index stale (a torn record, or none:
  // the next batch's would follow a gap), never the batch unwritten: the
  // headers are the truth, the index is made again by steps.
  protected ixNote(seq: number, slots: readonly number[], recs: Uint8Array, same: readonly boolean[]): void {
    const ix = this.ix;
    if (ix.state !== "ok" && ix.state !== "unknown" && ix.state !== "behind") return;
    // the slots whose entry changed (an entry is left out only when the
    // header it was read from is the one the index holds: copies in step)
    const steady = !this.pending.length && !this.bad[0] && !this.bad[1];
    const changed: number[] = [];
    const at: number[] = [];
    for (let i = 0; i < slots.length; i++)
      if (!(steady && same[i])) {
        changed.push(slots[i]);
        at.push(i);
      }
    this.ixAppend(recordOf(seq, changed, recs, at));
  }

  // Appends `rec` to the index, after the record of the batch it lacks when
  // it is "behind" (one write: both or neither). A failure makes it stale.
  protected ixAppend(rec: Uint8Array): void {
    const ix = this.ix;
    if (ix.state === "behind" && ix.behind) {
      const both = new Uint8Array(ix.behind.length + rec.length);
      both.set(ix.behind, 0);
      both.set(rec, ix.behind.length);
      rec = both;
    }
    let f: File | undefined;
    try {
      f = new File(this.ixPath(), true);
      // (a write open whose read open failed empties the file: Moddable's "wb+")
      if (f.length !== ix.len) throw new Error("not the index this store knows");
      if (rec.length) {
        f.position = ix.len;
        f.write(rec.buffer as ArrayBuffer);
      }
      ix.len += rec.length;
      this.stats.bytesWritten += rec.length;
      if (ix.state === "behind") ix.state = "ok";
    } catch (e) {
      if (fatal(e)) throw e;
      ix.state = "stale";
    } finally {
      ix.behind = undefined;
      this.close(f);
    }
  }

  // While one copy is being rebuilt, a batch goes whole into /ep.w first (the
  // copy that stands is then written in place: a cut there is finished by the
  // next open from /ep.w), then into that copy, and into the part of the
  // rebuild already copied.
  protected writeAlone(batch: Episode[], recs: Uint8Array, seq: number, maxId: number, slots: number[]): void {
    const o = this.bad[0] ? 1 : 0, k = 1 - o;
    // a read open first: a write open whose read open fails empties the file (Moddable's "wb+")
    this.close(this.openCopy("h", o));
    // the redo form: slot i's header then 672 bytes of zeros at i·800
    const redo = new Uint8Array(batch.length * SLOT_BYTES);
    for (let i = 0; i < batch.length; i++) redo.set(recs.subarray(i * HEADER_BYTES, (i + 1) * HEADER_BYTES), i * SLOT_BYTES);
    this.writeW(seq, maxId, slots, redo); // throws: nothing written
    this.lastSlots = slots;
    this.seq = seq;
    this.maxId = maxId;
    for (let c = 0; c < 2; c++) {
      if (c === k) {
        if (!this.rebuild || this.rebuild.k !== k) continue;
        try {
          this.writeCopy(k, batch, recs);
        } catch (e) {
          if (fatal(e)) throw e;
          this.rebuild = undefined; // its files failed: the rebuild starts again
        }
        continue;
      }
      try {
        this.writeCopy(o, batch, recs);
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof Emptied) this.notes.push("the only readable copy was emptied by a write open");
        try {
          this.writeCopy(o, batch, recs); // the batch is in /ep.w: forwards, once more
        } catch (e2) {
          if (fatal(e2)) throw e2;
          this.redoLater = { seq, maxId, slots };
          throw e2 instanceof EpisodeError ? e2 : new EpisodeError("io", `episodes: the batch was not written (${messageOf(e2)})`);
        }
      }
    }
  }

  // After a batch: the free map and the slot count.
  protected learnt(batch: Episode[]): void {
    for (let i = 0; i < batch.length; i++) {
      this.setFree(batch[i].slot, batch[i].state === "free" && !batch[i].wipe);
      if (batch[i].slot >= this.nSlots) this.nSlots = batch[i].slot + 1;
    }
    if (this.nSlots > EPISODE_SLOTS) this.nSlots = EPISODE_SLOTS;
  }

  // A batch that would grow the files past what SPIFFS fills reliably is refused before anything is written.
  protected roomFor(bytes: number): void {
    let info: { used: number; total: number } | undefined;
    try {
      info = System.info();
    } catch (e) {
      if (fatal(e)) throw e;
      return;
    }
    const pages = Math.ceil(bytes / 240) * 256 + 4 * 256; // data pages, index pages, the batch file
    if (info.used + pages > info.total * USABLE) throw new EpisodeError("full", `episodes: the file system is full (${info.used} of ${info.total} bytes used)`);
  }

  // The headers of a batch (version 2), each at i·128 of the result: a text that
  // changed is appended as a passage first (one append for the batch); one
  // that is already the one the slot's header points to keeps its passage
  // and signature. same[i] (filled here): slot i's slot index entry is what
  // its header read here gave (FORMAT.md §4.9). Throws EpisodeError; the
  // passages appended are then garbage.
  protected prepare(batch: Episode[], seq: number, same: boolean[]): Uint8Array {
    const n = batch.length;
    const recs = new Uint8Array(n * HEADER_BYTES);
    const refs: (TextRef | undefined)[] = [];
    const sigs: (Uint8Array | undefined)[] = [];
    const fresh: { t: number; lines: Uint8Array[] }[] = [];
    const which: number[] = [];
    const old = new Uint8Array(HEADER_BYTES);
    const p = this.primary();
    // the slot index's entries of the headers read here, to tell the ones a batch leaves as they were
    const was = new Uint8Array(n * IX_ENTRY);
    const wasKnown: boolean[] = [];
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const ep = batch[i];
      if (ep.state === "free") {
        // an owner-deleted episode's free header keeps its text's pointer: steps collect that segment
        const w = this.wipeOf(ep.slot, old);
        refs.push(w ?? { seq: 0, at: 0, len: 0, crc: 0 });
        sigs.push(undefined);
        if (w) {
          batch[i] = { ...ep, wipe: true };
          this.wipeDue = true;
        }
        continue;
      }
      const lines = encodePassage(ep.createdAt, ep.id, ep.content, ep.keywords.join(","));
      const m = measure(lines);
      if (this.moving.indexOf(ep.slot) < 0 && this.readHeader(p, ep.slot, old) && headerLean(old, 0) && headerState(old, 0) !== 0 && headerId(old, 0) === ep.id) {
        entryOf(old, 0, was, i * IX_ENTRY);
        wasKnown[i] = true;
        const r = headerRef(old, 0);
        if (r.crc === m.crc && r.len === m.len) {
          refs.push(r);
          sigs.push(old.slice(H_SIG, H_SIG + EPISODE_SIG_BYTES));
          continue;
        }
      }
      refs.push(undefined);
      sigs.push(undefined);
      fresh.push({ t: ep.createdAt, lines });
      which.push(i);
      bytes += m.len;
    }
    if (fresh.length) {
      this.ensureTexts();
      this.roomFor(2 * bytes);
      let got: TextRef[];
      try {
        got = this.texts.append(fresh);
      } catch (e) {
        if (fatal(e)) throw e;
        if (e instanceof EpisodeError) throw e;
        // what reached flash (and a view another writer made stale) is learnt again at the next call
        this.relearn();
        const full = e instanceof ArchiveError && e.code === "full";
        throw new EpisodeError(full ? "full" : "io", `episodes: the texts were not written (${messageOf(e)})`);
      }
      for (let j = 0; j < which.length; j++) refs[which[j]] = got[j];
    }
    for (let i = 0; i < n; i++) {
      const ep = batch[i];
      const r = refs[i] as TextRef;
      const sig = ep.state === "free" ? undefined : sigs[i] ?? signature(ep.content, ep.keywords);
      encodeHeader(recs, i * HEADER_BYTES, ep, seq, r.crc, 0, sig, r);
    }
    for (let i = 0; i < n; i++) same.push(wasKnown[i] === true && sameEntry(was, i * IX_ENTRY, recs, i * HEADER_BYTES));
    return recs;
  }

  // The text an owner-deleted episode's header (either copy) points to, or
  // still points to once freed, while its segment is on flash: undefined else.
  protected wipeOf(slot: number, h: Uint8Array): TextRef | undefined {
    for (let k = 0; k < 2; k++) {
      const c = k === 0 ? this.primary() : 1 - this.primary();
      if (!this.readHeader(c, slot, h) || !this.wipePending(h, 0)) continue;
      return headerRef(h, 0);
    }
    return undefined;
  }

  // A header (valid) whose text must still be collected: the owner deleted
  // its episode and the segment it points to is on flash (or not known yet).
  protected wipePending(h: Uint8Array, at: number): boolean {
    if (!headerLean(h, at) || !headerWipe(h, at)) return false;
    const r = headerRef(h, at);
    if (r.seq <= 0 || r.len <= 0) return false;
    return !this.texts.loaded || this.texts.stream.segs.has(r.seq);
  }

  // Writes the batch's headers into copy k (its `.n` file while a rebuild
  // writes it: only the slots the rebuild has passed).
  protected writeCopy(k: number, batch: Episode[], recs: Uint8Array): void {
    const rb = this.bad[k] ? this.rebuild : undefined;
    const hp = rb ? this.tmp("h", k) : this.path("h", k);
    let hl = rb ? this.nLen.h : this.hLen[k];
    const idx: number[] = [];
    // a rebuild takes the slots it has copied (all of them once it has copied every slot)
    for (let i = 0; i < batch.length; i++) if (!rb || rb.phase > 0 || batch[i].slot < rb.at) idx.push(i);
    if (!idx.length) return;
    let fh: File | undefined;
    try {
      fh = this.openWrite(hp, hl);
      for (const i of idx) hl = this.wr(fh, hl, batch[i].slot * HEADER_BYTES, recs, i * HEADER_BYTES, (i + 1) * HEADER_BYTES);
    } finally {
      if (rb) this.nLen.h = Math.max(this.nLen.h, hl);
      else this.hLen[k] = Math.max(this.hLen[k], hl);
      this.close(fh);
    }
  }

  // A batch that failed part way through copy k (nothing of it in the other
  // copy yet): copy k's slots of the batch are put back as the other copy has
  // them, so that nothing the batch did reads back. If that fails too, copy k's
  // header file goes (the copy is rebuilt from the other).
  protected rollBack(k: number, slots: number[]): void {
    try {
      this.settle(slots, 1 - k);
      this.notes.push(`copy ${k}: a failed batch rolled back`);
    } catch (e) {
      if (fatal(e)) throw e;
      // the other copy is whole (the caller checked): copy k goes and is rebuilt from it
      this.remove(this.path("h", k));
      this.markBad(k, `could not be rolled back (${messageOf(e)})`);
    }
  }

  protected settlePending(): void {
    const list = this.pending.splice(0, MAX_BATCH);
    if (this.bad[0] || this.bad[1]) return; // the rebuild covers them
    try {
      this.settle(list);
    } catch (e) {
      if (fatal(e)) throw e;
      for (const s of list) this.pending.push(s);
    }
  }

}

// One stream of the archive (facts, moments, events or digests): its segment
// files, the open segment that takes appends, its twin, and sealing
// (docs/FORMAT.md §3.3–3.6).
//
// Appends go to the open segment and then, byte for byte at the same offsets,
// to its twin: a cut that leaves either file unreadable (SPIFFS can leave a file
// not finalized) still leaves one whole copy of every acknowledged line. A
// segment that is full is sealed by a maintenance step: its last block is
// indexed, its summary joins the catalog, and its twin goes. Sealed segments
// are never written again; retiring deletes them whole.

import { File } from "file";
import { CHUNK, ArchiveError, validEnd, scanRange, readInto, writeAt, openAppend, openWrite, remove, rename, rethrowFatal, messageOf } from "./file";
import { lineT, headerLine, parseRecord, textsOf, NL, STREAM_CHAR, type Line, type Stream } from "./codec";
import { sigAdd } from "./fold";
import { copyInto, removeAll } from "./settle";
import { Catalog, SUMMARY_BYTES, SUMMARY_MASK } from "./catalog";
import { groupOf, firstOf, readParity, startBuild, buildStep, XorReader, type Build, type ParityInfo, type Member } from "./parity";
import { crc32 } from "../nvs/crc32";
import { SEGMENT_BLOCKS, RECORD, NO_MIN, segName, parseName, readSide, createSide, writeSideRecords, BlockBuilder, decodeRecords, lineKind, KIND_RECORD, type BlockInfo } from "./segment";

// Segments hold at most 56 KB: blocks of whole lines of at most 512 bytes are
// at least 3,585 bytes, so a segment never needs more than its 16 block records.
export const SEGMENT_BYTES = 57344;

export interface OpenSeg {
  seq: number;
  length: number; // bytes on flash
  validEnd: number; // end of the last complete line
  blocks: BlockInfo[]; // indexed blocks (the sidecar's entries)
  indexedEnd: number;
  sideOk: boolean; // the sidecar holds exactly `blocks`
  twin: number; // bytes of the twin equal to the segment's; -1: no usable twin
  tailRecords: number; // records after the indexed blocks
}

// The archive's only long-lived buffers (8.7 KB of the device's chunk heap),
// shared by every operation: none runs inside another.
export class Buffers {
  prot = new Map<number, unknown>(); // damage at rest, every stream's: twins, parity, damaged, restoring (View)
  chunk = new Uint8Array(CHUNK); // a block or a chunk of lines
  side = new Uint8Array(32 + SEGMENT_BLOCKS * RECORD); // a sidecar; or summaries (two per read) before any sidecar is read
}

export class ArchiveStream {
  segs = new Map<number, number>(); // seq → length of every segment file
  open: OpenSeg | undefined;
  cat: Catalog;
  unreadable: string[] = []; // segments that could not be read (named, never deleted)
  repaired: string[] = []; // what boot did (a twin put in place, a retire finished)
  twinsToDrop: number[] = [];
  reindex: number[] | undefined; // sealed segments whose sidecar a read found damaged: a step indexes them again (seal); made when needed
  // damage at rest (parity.ts, FORMAT.md §3.15): sealed segments' twins kept
  // until their group has parity; the groups' parity files; segments found
  // damaged, and those being restored (seq → the length they are restored to)
  // (kept in the archive's one shared map, Buffers.prot: no collection per
  // stream, the XS heap budget is tight)
  get twins(): View<number> {
    return new View(this.bufs.prot, keyBase(1, this.stream));
  }
  get pars(): View<ParityInfo> {
    return new View(this.bufs.prot, keyBase(2, this.stream));
  }
  get damaged(): View<boolean> {
    return new View(this.bufs.prot, keyBase(3, this.stream));
  }
  get restoring(): View<{ len: number; at: number; crc: number; from: number }> {
    return new View(this.bufs.prot, keyBase(4, this.stream));
  }
  private get build(): { g: number; b: Build } | undefined {
    return this.bufs.prot.get(keyBase(5, this.stream)) as { g: number; b: Build } | undefined;
  }
  private set build(v: { g: number; b: Build } | undefined) {
    if (v) this.bufs.prot.set(keyBase(5, this.stream), v);
    else this.bufs.prot.delete(keyBase(5, this.stream));
  }
  private get twinCopy(): { seq: number; at: number } | undefined {
    return this.bufs.prot.get(keyBase(6, this.stream)) as { seq: number; at: number } | undefined;
  }
  private set twinCopy(v: { seq: number; at: number } | undefined) {
    if (v) this.bufs.prot.set(keyBase(6, this.stream), v);
    else this.bufs.prot.delete(keyBase(6, this.stream));
  }
  skip = -1; // a segment a migration is writing: not the stream's until sealed (migrate.ts)

  constructor(
    readonly root: string,
    readonly stream: Stream,
    readonly bufs: Buffers,
  ) {
    this.cat = new Catalog(root, stream);
  }

  path(seq: number, ext: "jsonl" | "six" | "twn" | "ret" | "par" = "jsonl"): string {
    return segName(this.root, this.stream, seq, ext);
  }

  // Segment sequence numbers, newest first.
  newestFirst(): number[] {
    const a: number[] = [];
    this.segs.forEach((_l, s) => a.push(s));
    return a.sort((x, y) => y - x);
  }

  // Segments that are full and not summarized yet (the open one never is).
  unsealed(): number[] {
    const out: number[] = [];
    for (const s of this.newestFirst()) {
      if (this.open && s === this.open.seq) continue;
      if (this.restoring.has(s)) continue;
      const e = this.cat.entries.get(s);
      if (!e || e.bytes !== this.segs.get(s)) out.push(s);
    }
    out.reverse();
    if (this.reindex) for (const s of this.reindex) if (this.segs.has(s) && !this.restoring.has(s) && s !== this.open?.seq && out.indexOf(s) < 0) out.push(s);
    return out;
  }

  // ---- boot ---------------------------------------------------------------------------

  // Learns the stream from a listing of the root (names relative to it).
  // Never throws for the file system: what cannot be read is named and kept.
  load(files: Map<string, number>): void {
    const segs = new Map<number, number>();
    const twins = new Map<number, number>();
    const rets: number[] = [];
    const parNames: number[] = [];
    const c = STREAM_CHAR[this.stream];
    this.repaired = [];
    this.unreadable = [];
    files.forEach((len, name) => {
      if (name[0] !== c) return;
      const p = parseName(name);
      if (!p) return;
      if (p.seq === this.skip) return;
      if (p.ext === "jsonl") segs.set(p.seq, len);
      else if (p.ext === "twn") twins.set(p.seq, len);
      else if (p.ext === "ret") rets.push(p.seq);
      else if (p.ext === "par") parNames.push(p.seq);
    });
    for (const seq of rets) {
      // a retire cut after its digest was written: finish it. A cut inside
      // its rename leaves the segment on the same object: it goes too (its
      // records are in the digest), never left listed on freed pages.
      const name = `${c}${String(seq).padStart(6, "0")}`;
      if (File.delete(this.path(seq, "ret"))) this.repaired.push(`retired ${name}.ret`);
      if (segs.has(seq) && removeAll(this.path(seq))) segs.delete(seq);
      if (files.has(`${name}.six`)) File.delete(this.path(seq, "six"));
    }
    // a twin whose segment is gone (a cut between the delete and the rename
    // of a repair) becomes the segment
    twins.forEach((len, seq) => {
      if (segs.has(seq)) return;
      // a copy, not a rename: a cut inside a rename leaves both names on one
      // object, and the twin's later delete would free the segment's pages
      if (copyInto(this.path(seq, "twn"), this.path(seq))) {
        File.delete(this.path(seq, "twn")); // two objects: the twin's delete frees none of the segment's pages
        twins.delete(seq);
        segs.set(seq, len);
        this.repaired.push(`${c}${seq}: the twin copied into the segment's place`);
      }
    });
    this.cat.load(this.bufs.chunk, files.has(`${c}.cat`));
    this.cat.loadSliced(files.get(`${c}.bsl`));
    this.segs = segs;
    this.open = undefined;
    let top = -1;
    segs.forEach((_l, s) => (top = Math.max(top, s)));
    this.twinsToDrop = [];
    this.reindex = undefined;
    // the top segment is the open one unless it is sealed (its twin is then a sealed one's)
    this.loadProtection(segs, twins, parNames, top >= 0 && this.cat.entries.get(top)?.bytes !== segs.get(top) ? top : -1);
    this.nextSeq = top + 1;
    // a sealed segment is never written again: the next append starts a new one
    if (top >= 0 && this.cat.entries.get(top)?.bytes !== segs.get(top)) this.loadOpen(top, twins.has(top) ? (twins.get(top) as number) : -1);
  }

  // The open segment: its valid end, its sidecar, its twin. A segment that
  // cannot be opened is replaced by its twin when there is one.
  private loadOpen(seq: number, twinLen: number): void {
    const segLen = this.segs.get(seq) ?? 0;
    // a failed open is tried once more: SPIFFS read errors are mostly transient
    let f = this.tryOpen(this.path(seq)) ?? this.tryOpen(this.path(seq));
    // The twin takes the segment's place when the segment cannot be opened, or
    // when the twin is longer (the segment lost bytes: a write open that fell
    // back to "wb+" emptied it); never when the twin holds less than the
    // segment (it is being copied again: the segment is the only whole copy).
    if (twinLen > 0 && twinLen >= segLen && (!f || twinLen > segLen)) {
      if (f) f.close();
      if (removeAll(this.path(seq)) && copyInto(this.path(seq, "twn"), this.path(seq)) && File.delete(this.path(seq, "twn"))) {
        this.repaired.push(`${STREAM_CHAR[this.stream]}${seq}: ${f ? "shorter than its twin" : "unreadable"}, its twin put in its place`);
        this.segs.set(seq, twinLen);
        twinLen = -1;
      }
      f = this.tryOpen(this.path(seq));
    } else if (f && twinLen >= 0) {
      // a twin that cannot be opened is copied again by steps
      const t = this.tryOpen(this.path(seq, "twn"));
      if (t) t.close();
      else twinLen = -1;
    }
    if (!f) {
      this.unreadable.push(`${STREAM_CHAR[this.stream]}${seq}`);
      // appends go on in a new segment; this one is kept as it is
      this.open = undefined;
      this.segs.delete(seq);
      this.nextSeq = seq + 1;
      return;
    }
    try {
      const length = f.length;
      const validEnd = validEndOf(f, length, this.bufs.chunk);
      const side = readSide(this.path(seq, "six"), this.stream, seq, validEnd, this.bufs.side);
      const o: OpenSeg = { seq, length, validEnd, blocks: side.blocks.slice(), indexedEnd: side.indexedEnd, sideOk: side.why === undefined || side.why.indexOf("entry") > 0, twin: twinLen < 0 ? -1 : Math.min(twinLen, length), tailRecords: 0 };
      if (side.why === "no sidecar" || side.why === "sidecar header" || side.why === "sidecar unreadable") o.sideOk = false;
      this.open = o;
      this.segs.set(seq, length);
      this.catchUp(f);
    } catch (e) {
      rethrowFatal(e);
      this.unreadable.push(`${STREAM_CHAR[this.stream]}${seq}: ${messageOf(e)}`);
      this.open = undefined;
      this.segs.delete(seq);
      this.nextSeq = seq + 1;
    } finally {
      f.close();
    }
  }

  // Boot, for damage at rest (FORMAT.md §3.15): parity files (one whose
  // trailer does not check out is a cut build: deleted), sealed segments'
  // twins, and restorations a cut interrupted.
  private loadProtection(segs: Map<number, number>, twins: Map<number, number>, parNames: number[], openTop: number): void {
    this.twins.clear();
    this.pars.clear();
    this.damaged.clear();
    this.restoring.clear();
    this.build = undefined;
    this.twinCopy = undefined;
    for (const q of parNames) {
      const info = readParity(this.path(q, "par"));
      if (!info || groupOf(info.members[0].seq) !== groupOf(q) || this.pars.has(groupOf(q))) {
        File.delete(this.path(q, "par"));
        continue;
      }
      this.pars.set(groupOf(q), info);
      for (const m of info.members) {
        // a member shorter than it was, or gone, with no twin: its
        // restoration was cut (scrub and retire delete the parity first)
        const have = segs.get(m.seq);
        if ((have === undefined || have < m.length) && m.seq !== this.skip && !((twins.get(m.seq) ?? -1) >= m.length)) {
          this.restoring.set(m.seq, { len: m.length, at: have ?? 0, crc: 0, from: have ?? 0 });
          segs.set(m.seq, m.length);
        }
      }
    }
    twins.forEach((len, s) => {
      if (s === openTop) return; // the open segment's (loadOpen)
      const have = segs.get(s) ?? 0;
      if (len > have) {
        // the segment is being restored from its twin (or lost bytes)
        this.restoring.set(s, { len, at: have, crc: 0, from: have });
        segs.set(s, len);
        this.twins.set(s, len);
      } else if (len === have) this.twins.set(s, len);
      else File.delete(this.path(s, "twn")); // a copy a cut interrupted: copied again
    });
  }

  // Opens a segment for reading. A sealed segment that cannot be opened, or
  // whose reads fail, is read from its twin or rebuilt on the fly from its
  // group's parity, and is restored by steps (protectStep).
  openRead(seq: number): File {
    const restoring = this.restoring.has(seq);
    if (!restoring)
      for (let i = 0; i < 2; i++) {
        try {
          const f = new File(this.path(seq));
          if (this.open && this.open.seq === seq) return f;
          return new Guarded(f, this, seq) as unknown as File;
        } catch (e) {
          rethrowFatal(e);
        }
      }
    if (!restoring && this.cat.entries.get(seq)?.bytes === this.segs.get(seq)) this.damaged.set(seq, true);
    const fb = this.fallback(seq);
    if (fb) return fb;
    throw new ArchiveError("io", `archive: ${STREAM_CHAR[this.stream]}${seq} cannot be opened`);
  }

  // A whole second source of a sealed segment's bytes: its twin, or its
  // group's parity with every other member whole.
  fallback(seq: number): File | undefined {
    const want = this.restoring.get(seq)?.len ?? this.segs.get(seq);
    const tl = this.twins.get(seq);
    if (tl !== undefined && tl === want) {
      try {
        return new File(this.path(seq, "twn"));
      } catch (e) {
        rethrowFatal(e);
      }
    }
    const x = this.xorOf(seq);
    return x ? (x as unknown as File) : undefined;
  }

  private xorOf(seq: number): XorReader | undefined {
    const info = this.pars.get(groupOf(seq));
    if (!info) return undefined;
    let me: Member | undefined;
    for (const m of info.members) {
      if (m.seq === seq) me = m;
      else if (this.segs.get(m.seq) !== m.length || this.restoring.has(m.seq) || this.damaged.has(m.seq)) return undefined;
    }
    return me ? new XorReader(info, me, (q) => this.path(q)) : undefined;
  }

  // One step of keeping sealed segments protected (FORMAT.md §3.15), or
  // undefined when there is nothing to do: a damaged segment checked again
  // and restored 4 KB a step, a closed group's parity built 4 KB a step, the
  // twins a parity covers dropped, and a sealed segment with neither twin nor
  // parity (a migrated one, a rewritten one, one of a device from before)
  // given a twin 8 KB a step.
  protectStep(roomy = true): string | undefined {
    const c = STREAM_CHAR[this.stream];
    for (const seq of this.damaged.keys()) {
      if (this.restoring.has(seq)) continue;
      if (!this.segs.has(seq)) {
        this.damaged.delete(seq);
        continue;
      }
      const fb = this.fallback(seq);
      if (!fb) continue; // no second source: named, kept
      fb.close();
      if (this.readsWhole(seq)) {
        this.damaged.delete(seq); // a read error that passed
        return `${c}${seq}: reads again`;
      }
      const len = this.segs.get(seq) as number;
      removeAll(this.path(seq));
      this.restoring.set(seq, { len, at: 0, crc: 0, from: 0 });
      this.repaired.push(`${c}${seq}: damaged, restored by steps`);
      return `${c}${seq}: damaged, restoring`;
    }
    for (const [seq, r] of this.restoring.entries()) {
      const src = this.fallback(seq);
      if (!src) continue;
      try {
        const k = Math.min(CHUNK, r.len - r.at);
        if (k > 0) {
          src.position = r.at;
          const got = new Uint8Array(src.read(ArrayBuffer, k) as ArrayBuffer);
          if (got.length !== k) throw new ArchiveError("io", "archive: short read");
          const w = r.at === 0 ? openWrite(this.path(seq)) : openAppend(this.path(seq), r.at);
          try {
            writeAt(w, got, r.at);
          } finally {
            w.close();
          }
          if (r.from === 0) r.crc = crc32(got, 0, k, r.crc);
          r.at += k;
        }
      } finally {
        src.close();
      }
      if (r.at < r.len) return `${c}${seq}: restored ${r.at}`;
      const m = this.pars.get(groupOf(seq))?.members.find((x) => x.seq === seq);
      if (m && r.from === 0 && this.twins.get(seq) !== r.len && r.crc !== m.crc) {
        // not the bytes the parity was made of: left unreadable, named
        removeAll(this.path(seq));
        this.restoring.delete(seq);
        this.segs.delete(seq);
        this.unreadable.push(`${c}${seq}: its rebuild failed its CRC`);
        return `${c}${seq}: rebuild failed its CRC`;
      }
      this.restoring.delete(seq);
      this.damaged.delete(seq);
      this.segs.set(seq, r.len);
      return `${c}${seq}: restored`;
    }
    // twins a parity covers go
    for (const [seq, len] of this.twins.entries()) {
      const m = this.pars.get(groupOf(seq))?.members.find((x) => x.seq === seq);
      if (m && m.length === len && this.segs.get(seq) === len && !this.restoring.has(seq)) {
        File.delete(this.path(seq, "twn"));
        this.twins.delete(seq);
        return `${c}${seq}: twin dropped (parity)`;
      }
    }
    if (this.build) {
      const { g, b } = this.build;
      try {
        if (buildStep(b, (q) => this.openRead(q))) {
          this.build = undefined;
          const info = readParity(b.path);
          if (info) this.pars.set(g, info);
          return `${c} parity ${g} written`;
        }
      } catch (e) {
        rethrowFatal(e);
        this.build = undefined;
        File.delete(b.path);
        throw e;
      }
      return `${c} parity ${g}: ${b.pos} of ${b.body}`;
    }
    if (!roomy) return undefined;
    const limit = this.open ? this.open.seq : this.nextSeq;
    // parity only for streams never retired (facts, digests): a retire would
    // take a member out of its group's parity; moments and events keep twins
    if (this.stream === "moment" || this.stream === "event") return this.copyTwinStep(c);
    let lastG = -1;
    for (const q0 of this.newestFirst().reverse()) {
      const g = groupOf(q0);
      if (g === lastG) continue;
      lastG = g;
      if (this.pars.has(g) || firstOf(g + 1) > limit) continue;
      const members: { seq: number; length: number }[] = [];
      let ready = true;
      for (let q = firstOf(g); q < firstOf(g + 1); q++) {
        const len = this.segs.get(q);
        if (len === undefined || q === this.skip) continue;
        if (this.cat.entries.get(q)?.bytes !== len || this.damaged.has(q) || this.restoring.has(q)) ready = false;
        members.push({ seq: q, length: len });
      }
      if (!ready || !members.length) continue;
      this.build = { g, b: startBuild(this.path(firstOf(g), "par"), c, members) };
      return `${c} parity ${g} started`;
    }
    return this.copyTwinStep(c);
  }

  // A sealed segment with neither twin nor parity: a twin, 8 KB a step.
  private copyTwinStep(c: string): string | undefined {
    if (!this.twinCopy)
      for (const seq of this.newestFirst()) {
        if ((this.open && this.open.seq === seq) || seq === this.skip || this.twins.has(seq) || this.restoring.has(seq) || this.damaged.has(seq)) continue;
        if (this.cat.entries.get(seq)?.bytes !== this.segs.get(seq)) continue; // sealed first
        const m = this.pars.get(groupOf(seq))?.members.find((x) => x.seq === seq);
        if (m && m.length === this.segs.get(seq)) continue;
        // a closed group of a stream with parity gets its parity instead
        if (this.stream !== "moment" && this.stream !== "event" && firstOf(groupOf(seq) + 1) <= (this.open ? this.open.seq : this.nextSeq)) continue;
        File.delete(this.path(seq, "twn"));
        this.twinCopy = { seq, at: 0 };
        break;
      }
    const tc = this.twinCopy;
    if (tc) {
      const len = this.segs.get(tc.seq);
      if (len === undefined) {
        this.twinCopy = undefined;
        return `${c}${tc.seq}: gone`;
      }
      const src = this.openRead(tc.seq);
      try {
        const w = tc.at === 0 ? openWrite(this.path(tc.seq, "twn")) : openAppend(this.path(tc.seq, "twn"), tc.at);
        try {
          const end = Math.min(len, tc.at + 8192);
          while (tc.at < end) {
            const k = readInto(src, tc.at, Math.min(CHUNK, end - tc.at), this.bufs.chunk);
            if (k <= 0) throw new ArchiveError("io", "archive: short read");
            writeAt(w, this.bufs.chunk.subarray(0, k), tc.at);
            tc.at += k;
          }
        } finally {
          w.close();
        }
      } catch (e) {
        rethrowFatal(e);
        this.twinCopy = undefined;
        File.delete(this.path(tc.seq, "twn"));
        throw e;
      } finally {
        src.close();
      }
      if (tc.at < len) return `${c}${tc.seq}: twin ${tc.at}`;
      this.twins.set(tc.seq, len);
      this.twinCopy = undefined;
      return `${c}${tc.seq}: twin copied`;
    }
    return undefined;
  }

  // Deletes the oldest sealed segment's twin (the partition is full of records
  // that are never retired: records come before their second copies).
  dropOldTwin(): boolean {
    let oldest = -1;
    this.twins.forEach((_l, q) => {
      if (!(this.open && this.open.seq === q) && !this.restoring.has(q) && (oldest < 0 || q < oldest)) oldest = q;
    });
    if (oldest < 0) return false;
    File.delete(this.path(oldest, "twn"));
    this.twins.delete(oldest);
    if (this.twinCopy && this.twinCopy.seq === oldest) this.twinCopy = undefined;
    return true;
  }

  // Reads a sealed segment through (at most 56 KB): true when every read works.
  private readsWhole(seq: number): boolean {
    try {
      const f = new File(this.path(seq));
      try {
        const len = f.length;
        if (len !== this.segs.get(seq)) return false;
        for (let at = 0; at < len; ) {
          const k = readInto(f, at, Math.min(CHUNK, len - at), this.bufs.chunk);
          if (k <= 0) return false;
          at += k;
        }
        return true;
      } finally {
        f.close();
      }
    } catch (e) {
      rethrowFatal(e);
      return false;
    }
  }

  // Before a sealed segment changes (a rewrite, a retire): its group's parity
  // no longer holds; it goes (built again once the group is sealed again).
  dropParityOf(seq: number): void {
    const g = groupOf(seq);
    const info = this.pars.get(g);
    if (this.build && this.build.g === g) {
      File.delete(this.build.b.path);
      this.build = undefined;
    }
    if (!info || !info.members.some((m) => m.seq === seq)) return;
    remove(info.path);
    this.pars.delete(g);
  }

  nextSeq = 1;

  private tryOpen(path: string): File | undefined {
    try {
      return new File(path);
    } catch (e) {
      rethrowFatal(e);
      return undefined;
    }
  }

  // Indexes the open segment's closed blocks not yet indexed; counts its tail.
  private catchUp(f: File): void {
    const o = this.open as OpenSeg;
    const room = SEGMENT_BLOCKS - o.blocks.length;
    const b = new BlockBuilder(this.stream, o.indexedEnd, room);
    scanRange(f, o.indexedEnd, o.validEnd, this.bufs.chunk, (buf, s, e, size) => b.add(buf, s, e, size));
    const out = b.flush(false);
    const closed = decodeRecords(out, b.count);
    o.tailRecords = b.tailRecords + recordsOf(closed); // every record after the indexed blocks
    if (!b.count) return;
    if (!o.sideOk) {
      if (o.blocks.length) return; // a sidecar that cannot be trusted is rebuilt when sealing
      try {
        createSide(this.path(o.seq, "six"), this.stream, o.seq);
        o.sideOk = true;
      } catch (e) {
        rethrowFatal(e);
        return;
      }
    }
    this.commitBlocks(o, out, closed, b);
  }

  // ---- appending ------------------------------------------------------------------------

  // Appends lines (each with its "\n") in one write to the open segment, then to
  // its twin; starts a new segment when they do not fit. Lines whose id is
  // already in the open segment's tail are skipped (a move repeated after a
  // cut). Returns the lines written. Throws ArchiveError; nothing is
  // acknowledged then.
  append(lines: Line[]): { written: number; bytes: number } {
    let o = this.open;
    // the tail: the bytes after the indexed blocks (less than a block, plus a torn append)
    let tail = o ? this.readTail(o) : undefined;
    let fresh = lines;
    if (o && tail) {
      const t = tail, oo = o;
      fresh = lines.filter((l) => !tailHas(t, oo.indexedEnd, oo.validEnd, l, this.stream));
      // a repeated batch may straddle the end of the last indexed block: that
      // block is read (4 KB) only when a line's time falls in its range
      const last = o.blocks[o.blocks.length - 1];
      if (last && fresh.some((l) => l.t >= last.min && l.t <= last.max)) {
        const b = this.readBlock(o, last.offset, last.length);
        fresh = fresh.filter((l) => !tailHas(b, 0, b.length, l, this.stream));
      }
    }
    if (!fresh.length) return { written: 0, bytes: 0 };
    let total = 0;
    for (const l of fresh) total += l.line.length;
    // the lines that are not there yet decide whether they fit (a batch cut
    // short is completed in the segment that holds its first part)
    if (!o || !tail || o.validEnd + total + 2 > SEGMENT_BYTES) {
      o = this.rollover();
      tail = headerLine(this.stream, o.seq); // all a new segment holds: no read
    }
    const repair = o.length > o.validEnd;
    let n = repair ? 2 : 0;
    for (const l of fresh) n += l.line.length;
    const out = new Uint8Array(n);
    let at = 0;
    if (repair) {
      out[0] = 35; // "#": a torn line followed by this never parses
      out[1] = NL;
      at = 2;
    }
    for (const l of fresh) {
      out.set(l.line, at);
      at += l.line.length;
    }
    const pos = o.length;
    const f = openAppend(this.path(o.seq), pos);
    try {
      writeAt(f, out, pos);
    } finally {
      f.close();
    }
    o.length = pos + n;
    o.validEnd = o.length;
    this.segs.set(o.seq, o.length);
    this.writeTwin(o, pos, out, tail);
    this.index(o, tail, out);
    return { written: fresh.length, bytes: n };
  }

  // Starts the next segment: its header line, its twin, its sidecar.
  private rollover(): OpenSeg {
    let seq = Math.max(this.nextSeq, (this.open?.seq ?? 0) + 1);
    // a segment this stream did not know of (learnt before a listing that
    // missed it) is never overwritten: the next number is taken
    while (File.exists(this.path(seq)) && this.lengthOf(seq) > 64) {
      this.segs.set(seq, this.lengthOf(seq));
      seq++;
    }
    const head = headerLine(this.stream, seq);
    for (const p of [this.path(seq), this.path(seq, "twn")]) {
      remove(p); // a leftover of a cut rollover
      const f = openWrite(p);
      try {
        writeAt(f, head, 0);
      } finally {
        f.close();
      }
    }
    let sideOk = true;
    try {
      createSide(this.path(seq, "six"), this.stream, seq);
    } catch (e) {
      rethrowFatal(e);
      sideOk = false;
    }
    this.open = { seq, length: head.length, validEnd: head.length, blocks: [], indexedEnd: 0, sideOk, twin: head.length, tailRecords: 0 };
    this.segs.set(seq, head.length);
    this.nextSeq = seq + 1;
    return this.open;
  }

  // Bytes [at, at+n) of the open segment (n <= 4 KB).
  private readBlock(o: OpenSeg, at: number, n: number): Uint8Array {
    const out = new Uint8Array(n);
    const f = new File(this.path(o.seq));
    try {
      const k = readInto(f, at, n, this.bufs.chunk);
      out.set(this.bufs.chunk.subarray(0, k), 0);
      return out.subarray(0, k);
    } finally {
      f.close();
    }
  }

  private lengthOf(seq: number): number {
    try {
      const f = new File(this.path(seq));
      try {
        return f.length;
      } finally {
        f.close();
      }
    } catch (e) {
      rethrowFatal(e);
      return 65536; // cannot be opened: taken as holding records
    }
  }

  // The open segment's bytes after its indexed blocks, read once (less than 4 KB
  // but for a torn append).
  private readTail(o: OpenSeg): Uint8Array {
    const n = o.length - o.indexedEnd;
    const out = new Uint8Array(Math.max(0, n));
    if (n <= 0) return out;
    const f = new File(this.path(o.seq));
    try {
      for (let at = 0; at < n; ) {
        const k = readInto(f, o.indexedEnd + at, Math.min(CHUNK, n - at), this.bufs.chunk);
        if (k <= 0) throw new ArchiveError("io", "archive: short read");
        out.set(this.bufs.chunk.subarray(0, k), at);
        at += k;
      }
    } finally {
      f.close();
    }
    return out;
  }

  // The twin gets the same bytes at the same offset; bytes it lacks before them
  // (the previous append reached the segment only) come from the tail read.
  // A twin that cannot be written is dropped and rebuilt by a step.
  private writeTwin(o: OpenSeg, pos: number, out: Uint8Array, tail: Uint8Array): void {
    if (o.twin < 0) return;
    try {
      const before = pos - o.twin; // segment bytes the twin misses
      if (before < 0 || o.twin < o.indexedEnd) {
        o.twin = -1;
        return;
      }
      const f = openAppend(this.path(o.seq, "twn"), o.twin);
      try {
        if (before > 0) writeAt(f, tail.subarray(o.twin - o.indexedEnd, pos - o.indexedEnd), o.twin);
        writeAt(f, out, pos);
      } finally {
        f.close();
      }
      o.twin = pos + out.length;
    } catch (e) {
      rethrowFatal(e);
      o.twin = -1;
    }
  }

  // Indexes the blocks the append closed, from the bytes in RAM (no read).
  private index(o: OpenSeg, tail: Uint8Array, out: Uint8Array): void {
    const all = new Uint8Array(tail.length + out.length);
    all.set(tail, 0);
    all.set(out, tail.length);
    const b = new BlockBuilder(this.stream, o.indexedEnd, SEGMENT_BLOCKS - o.blocks.length);
    let s = 0;
    // the torn bytes the tail may end with are not lines: `all` holds them
    // followed by "#\n", which makes them one bad line
    for (;;) {
      const i = all.indexOf(NL, s);
      if (i < 0) break;
      b.add(all, s, i, i + 1 - s);
      s = i + 1;
    }
    const recs = b.flush(false);
    const closed = decodeRecords(recs, b.count);
    o.tailRecords = b.tailRecords + recordsOf(closed); // every record after the indexed blocks
    if (!b.count || !o.sideOk) return;
    this.commitBlocks(o, recs, closed, b);
  }

  // Writes the block records of blocks just closed to the sidecar; a write that
  // fails leaves them unindexed (queries scan them; sealing indexes them).
  private commitBlocks(o: OpenSeg, recs: Uint8Array, closed: BlockInfo[], b: BlockBuilder): void {
    try {
      writeSideRecords(this.path(o.seq, "six"), o.blocks.length, recs);
      for (const x of closed) o.blocks.push(x);
      o.indexedEnd = b.end;
      o.tailRecords = b.tailRecords;
    } catch (e) {
      rethrowFatal(e);
      o.sideOk = false;
    }
  }

  // ---- maintenance steps --------------------------------------------------------------------

  // Copies up to `max` bytes of the open segment into its twin; a twin that is
  // missing or unreadable is started again. Returns true when it did work.
  twinStep(max = 8192): boolean {
    const o = this.open;
    if (!o) return false;
    if (o.twin >= 0 && o.twin >= o.length) return false;
    if (o.twin < 0) {
      File.delete(this.path(o.seq, "twn"));
      o.twin = 0;
    }
    const src = new File(this.path(o.seq));
    try {
      const f = o.twin === 0 ? openWrite(this.path(o.seq, "twn")) : openAppend(this.path(o.seq, "twn"), o.twin);
      try {
        const end = Math.min(o.length, o.twin + max);
        for (let at = o.twin; at < end; ) {
          const k = readInto(src, at, Math.min(CHUNK, end - at), this.bufs.chunk);
          writeAt(f, this.bufs.chunk.subarray(0, k), at);
          at += k;
          o.twin = at;
        }
      } finally {
        f.close();
      }
    } catch (e) {
      rethrowFatal(e);
      // a full file system keeps what was copied (the copy goes on when room
      // returns); anything else starts the twin again
      if (!(e instanceof ArchiveError && e.code === "full")) o.twin = -1;
      throw e;
    } finally {
      src.close();
    }
    return true;
  }

  // Seals one full segment: indexes its last block (or the whole file when its
  // sidecar is missing or damaged), adds its summary to the catalog, drops its
  // twin. One read of the segment (at most 56 KB) and a few KB written.
  seal(seq: number): void {
    // tried once: a read that finds the sidecar damaged again asks again
    const r = this.reindex ? this.reindex.indexOf(seq) : -1;
    if (r >= 0) (this.reindex as number[]).splice(r, 1);
    const f = this.openRead(seq);
    let side;
    const summary = new Uint8Array(SUMMARY_BYTES);
    let min = NO_MIN, max = 0, records = 0, blocks = 0;
    try {
      const length = f.length;
      const end = validEndOf(f, length, this.bufs.chunk);
      side = readSide(this.path(seq, "six"), this.stream, seq, end, this.bufs.side);
      if (side.why && side.why.indexOf("entry") < 0) side = { blocks: [], indexedEnd: 0, why: side.why, sigs: side.sigs };
      const b = new BlockBuilder(this.stream, side.indexedEnd, SEGMENT_BLOCKS - side.blocks.length);
      scanRange(f, 0, end, this.bufs.chunk, (buf, s, e, size, pos) => {
        if (pos >= side!.indexedEnd) b.add(buf, s, e, size);
        if (size > e - s && lineKind(buf, s, e) === KIND_RECORD) {
          const it = parseRecord(buf, s, e, this.stream);
          if (!it) return;
          const t = lineT(buf, s, e);
          records++;
          if (t < min) min = t;
          if (t > max) max = t;
          for (const x of textsOf(it)) sigAdd(summary, 0, x, SUMMARY_MASK);
        }
      });
      const recs = b.flush(true);
      if (!side.blocks.length) createSide(this.path(seq, "six"), this.stream, seq);
      if (b.count) writeSideRecords(this.path(seq, "six"), side.blocks.length, recs);
      blocks = side.blocks.length + b.count;
      // a sealed segment indexed again (its sidecar was damaged) keeps its catalog entry
      const had = this.cat.entries.get(seq);
      if (!had || had.bytes !== length) this.cat.add({ seq, min, max, records, bytes: length, blocks }, summary);
      this.segs.set(seq, length);
    } finally {
      f.close();
    }
    // the twin stays until the group's parity covers the segment (protectStep)
    const tl = File.exists(this.path(seq, "twn")) ? fileLengthOf(this.path(seq, "twn")) : -1;
    const m = this.pars.get(groupOf(seq))?.members.find((x) => x.seq === seq);
    if (tl >= 0 && (tl !== this.segs.get(seq) || (m && m.length === tl))) {
      File.delete(this.path(seq, "twn"));
      this.twins.delete(seq);
    } else if (tl >= 0) this.twins.set(seq, tl);
  }

  // Retires a whole segment: renamed first (the point after which it is gone),
  // then deleted with its sidecar. The caller has folded it into a digest.
  retire(seq: number): void {
    // a twin goes first: left behind a segment that is gone, boot would take
    // it for the segment (a repair's half-done swap) and bring it back
    this.dropParityOf(seq);
    if (File.exists(this.path(seq, "twn"))) remove(this.path(seq, "twn"));
    this.twins.delete(seq);
    this.damaged.delete(seq);
    rename(this.path(seq), this.path(seq, "ret"));
    this.segs.delete(seq);
    File.delete(this.path(seq, "ret"));
    File.delete(this.path(seq, "six"));
  }

  dropTwins(): boolean {
    const s = this.twinsToDrop.pop();
    if (s === undefined) return false;
    File.delete(this.path(s, "twn"));
    return true;
  }
}

// Part of Buffers.prot as a map from segment (or group) numbers: keys are
// numbers (no string in the heap), kind and stream times a million plus n.
const KEY_STREAMS: Stream[] = ["fact", "moment", "event", "digest"];
function keyBase(kind: number, stream: Stream): number {
  return (kind * 4 + KEY_STREAMS.indexOf(stream)) * 1000000;
}
class View<V> {
  constructor(
    private m: Map<number, unknown>,
    private p: number,
  ) {}
  get(n: number): V | undefined {
    return this.m.get(this.p + n) as V | undefined;
  }
  has(n: number): boolean {
    return this.m.has(this.p + n);
  }
  set(n: number, v: V): void {
    this.m.set(this.p + n, v);
  }
  delete(n: number): boolean {
    return this.m.delete(this.p + n);
  }
  entries(): [number, V][] {
    const out: [number, V][] = [];
    const p = this.p;
    this.m.forEach((v, k) => {
      if (k >= p && k < p + 1000000) out.push([k - p, v as V]);
    });
    return out;
  }
  keys(): number[] {
    return this.entries().map((e) => e[0]);
  }
  forEach(fn: (v: V, n: number) => void): void {
    for (const [n, v] of this.entries()) fn(v, n);
  }
  clear(): void {
    for (const [n] of this.entries()) this.delete(n);
  }
}

function fileLengthOf(path: string): number {
  try {
    const f = new File(path);
    try {
      return f.length;
    } finally {
      f.close();
    }
  } catch (e) {
    rethrowFatal(e);
    return -1;
  }
}

// A sealed segment's file: a read that fails (an unreadable page) goes on
// from its twin or its group's parity, and the segment is marked damaged.
class Guarded {
  position = 0;
  private fb: File | undefined;
  constructor(
    private f: File,
    private s: ArchiveStream,
    private seq: number,
  ) {}
  get length(): number {
    return this.f.length;
  }
  read(t: typeof ArrayBuffer, n: number): ArrayBuffer {
    if (!this.fb) {
      try {
        this.f.position = this.position;
        const got = this.f.read(t, n) as ArrayBuffer;
        this.position += got.byteLength;
        return got;
      } catch (e) {
        rethrowFatal(e);
        const fb = this.s.fallback(this.seq);
        if (!fb) throw e;
        this.fb = fb;
        this.s.damaged.set(this.seq, true);
      }
    }
    this.fb.position = this.position;
    const got = this.fb.read(t, n) as ArrayBuffer;
    this.position += got.byteLength;
    return got;
  }
  close(): void {
    this.f.close();
    this.fb?.close();
  }
}

function recordsOf(blocks: BlockInfo[]): number {
  let n = 0;
  for (const b of blocks) n += b.records;
  return n;
}

// ---- helpers -----------------------------------------------------------------------------

// The end of the last complete line, and the forward line scan (file.ts).
export const validEndOf = validEnd;
export { scanRange };


// Is the line's record already among the tail's lines (same time and bytes)?
function tailHas(tail: Uint8Array, from: number, validEnd: number, l: Line, _stream: Stream): boolean {
  const n = Math.min(tail.length, validEnd - from);
  const len = l.line.length;
  for (let s = 0; s < n; ) {
    let i = tail.indexOf(NL, s);
    if (i < 0 || i >= n) break;
    if (i + 1 - s === len && lineT(tail, s, i) === l.t) {
      let same = true;
      for (let k = 0; k < len && same; k++) same = tail[s + k] === l.line[k];
      if (same) return true;
    }
    s = i + 1;
  }
  return false;
}

// One stream of the archive (facts, moments, events or digests): its segment
// files, the open segment that takes appends, its twin, and sealing
// (docs/FORMAT.md §3.3–3.6).
//
// Appends go to the open segment and then, at the same offsets, to its twin
// (XORed with its group's parity so far: §3.15): a cut that leaves either file
// unreadable (SPIFFS can leave a file not finalized) still leaves every
// acknowledged line readable. When the next segment starts, the twin becomes
// its group's parity. A full segment is sealed by a maintenance step: its last
// block is indexed and its summary joins the catalog. Sealed segments are
// never written again; retiring deletes them whole (moments, events: a pair).

import { File } from "file";
import { CHUNK, ArchiveError, validEnd, scanRange, readInto, writeAt, openAppend, openWrite, remove, rename, rethrowFatal, messageOf } from "./file";
import { lineT, lineOk, headerLine, parseRecords, mayBePacked, packFacts, textsOf, NL, STREAM_CHAR, type Line, type Rec, type Stream } from "./codec";
import { sigAdd, ELEMENTS } from "./fold";
import { copyInto, removeAll, withFile } from "./settle";
import { Catalog, SUMMARY_BYTES, SUMMARY_MASK } from "./catalog";
import { crc32 } from "../nvs/crc32";
import { PARITY, groupOf, firstOf, XorReader, type ParityInfo, type Member } from "./parity";
import { SEGMENT_BLOCKS, RECORD, NO_MIN, segName, parseName, readSide, createSide, writeSideRecords, BlockBuilder, decodeRecords, lineKind, KIND_RECORD, type BlockInfo, type OpenBlock } from "./segment";

// Segments hold at most 56 KB: blocks of whole lines of at most 512 bytes are
// at least 3,585 bytes, so a segment never needs more than its 16 block records.
export const SEGMENT_BYTES = 57344;
// a seal as a step indexes at most this many bytes of blocks; more are
// indexed first, INDEX_STEP_BLOCKS a step (seal(seq, true))
export const SEAL_UNINDEXED = 3 * CHUNK;
export const INDEX_STEP_BLOCKS = 8;

export interface OpenSeg {
  seq: number;
  length: number; // bytes on flash
  validEnd: number; // end of the last complete line
  blocks: BlockInfo[]; // indexed blocks (the sidecar's entries)
  indexedEnd: number;
  sideOk: boolean; // the sidecar holds exactly `blocks`
  twin: number; // bytes of the twin equal to the segment's (XORed with the key); -1: no usable twin
  par: boolean; // the twin is <seq>.par (facts, digests: it becomes the group's parity), else <seq>.twn
  key: number; // the member whose .par the twin is XORed with; -1: none
  tailRecords: number; // records after the indexed blocks
}

// The archive's only long-lived buffers (8.7 KB of the device's chunk heap),
// shared by every operation: none runs inside another. The scratch arrays
// (chunk, side) are one set for the whole program: the episode store's
// passages stream (src/episode/passages.ts) uses them too, and none of its
// operations runs inside an archive's operation or the other way round.
let scratch: { chunk: Uint8Array; side: Uint8Array } | undefined;

// The open block of the open segment an append wrote last (one for the
// program: 256 bytes of signature and its entry), so that the next append to
// it indexes only its own lines (index()).
let kept: { owner: object; seq: number; block: OpenBlock } | undefined;
export class Buffers {
  prot = new Map<number, unknown>(); // damage at rest, every stream's: twins, parity, damaged, restoring (View)
  chunk: Uint8Array; // a block or a chunk of lines
  side: Uint8Array; // a sidecar; or summaries (two per read) before any sidecar is read
  constructor() {
    scratch ??= { chunk: new Uint8Array(CHUNK), side: new Uint8Array(32 + SEGMENT_BLOCKS * RECORD) };
    this.chunk = scratch.chunk;
    this.side = scratch.side;
  }
}

export class ArchiveStream {
  segs = new Map<number, number>(); // seq → length of every segment file
  open: OpenSeg | undefined;
  cat: Catalog;
  unreadable: string[] = []; // segments that could not be read (named, never deleted)
  repaired: string[] = []; // what boot did (a twin put in place, a retire finished)
  reindex: number[] | undefined; // sealed segments whose sidecar a read found damaged: a step indexes them again (seal); made when needed
  // damage at rest (parity.ts, FORMAT.md §3.15): sealed segments' twins kept
  // until their group has parity; the groups' parity files; segments found
  // damaged, and those being restored (seq → the length they are restored to)
  // (kept in the archive's one shared map, Buffers.prot: no collection per
  // stream, the XS heap budget is tight)
  get twins(): View<number> {
    return new View(this.bufs.prot, keyBase(1, this.stream));
  }
  get pars(): View<number> {
    return new View(this.bufs.prot, keyBase(2, this.stream)); // member → length of its .par
  }
  get damaged(): View<boolean> {
    return new View(this.bufs.prot, keyBase(3, this.stream));
  }
  get restoring(): View<{ len: number; at: number }> {
    return new View(this.bufs.prot, keyBase(4, this.stream));
  }
  skip = -1; // a segment a migration is writing: not the stream's until sealed (migrate.ts)

  constructor(
    readonly root: string,
    readonly stream: Stream,
    readonly bufs: Buffers,
  ) {
    this.cat = new Catalog(root, stream);
  }

  path(seq: number, ext: "jsonl" | "six" | "twn" | "ret" | "par" | "rst" = "jsonl"): string {
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
    const parLens = new Map<number, number>();
    const rsts: number[] = [];
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
      else if (p.ext === "par") parLens.set(p.seq, len);
      else if (p.ext === "rst") rsts.push(p.seq);
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
    // the twin of the segment taking appends, XORed with its key, whose segment
    // is gone (a cut while it was put in the segment's place): put there
    let above = -1;
    segs.forEach((_l, s) => (above = Math.max(above, s)));
    parLens.forEach((len, seq) => {
      if (seq <= above) return;
      this.segs = segs;
      this.open = undefined;
      const key = this.keyFor(seq);
      if (key !== -1 && this.twinIntoPlace(this.path(seq, "par"), key, this.path(seq))) {
        File.delete(this.path(seq, "par"));
        parLens.delete(seq);
        segs.set(seq, len);
        this.repaired.push(`${c}${seq}: the twin put in the segment's place`);
      }
    });
    this.cat.recover(files);
    this.cat.load(this.bufs.chunk, files.has(`${c}.cat`));
    this.cat.loadSliced(files.get(`${c}.bsc`));
    if (files.has(`${c}.bsl`)) File.delete(`${this.root}${c}.bsl`); // format 2's groups, without records: built again as .bsc
    this.segs = segs;
    this.open = undefined;
    let top = -1;
    segs.forEach((_l, s) => (top = Math.max(top, s)));
    this.reindex = undefined;
    // the top segment is the open one unless it is sealed (its twin is then a sealed one's)
    const openTop = top >= 0 && this.cat.entries.get(top)?.bytes !== segs.get(top) ? top : -1;
    this.loadProtection(segs, twins, parLens, openTop, rsts);
    this.nextSeq = top + 1;
    // a sealed segment is never written again: the next append starts a new one
    if (openTop >= 0) {
      if (parLens.has(top)) {
        twins.delete(top);
        File.delete(this.path(top, "twn"));
        this.loadOpen(top, parLens.get(top) as number, true);
      } else this.loadOpen(top, twins.has(top) ? (twins.get(top) as number) : -1, false);
    }
  }

  // The open segment: its valid end, its sidecar, its twin. A segment that
  // cannot be opened is replaced by its twin when there is one.
  private loadOpen(seq: number, twinLen: number, par: boolean): void {
    const segLen = this.segs.get(seq) ?? 0;
    const tpath = this.path(seq, par ? "par" : "twn");
    let key = -1;
    if (par) {
      key = this.keyFor(seq);
      if (key === -1) {
        // its key is not whole (a cut in the rollover): the twin cannot be read back; made again by steps
        File.delete(tpath);
        twinLen = -1;
      }
      if (key < 0) key = -1;
    }
    // a failed open is tried once more: SPIFFS read errors are mostly transient
    let f = this.tryOpen(this.path(seq)) ?? this.tryOpen(this.path(seq));
    // The twin takes the segment's place when the segment cannot be opened, or
    // when the twin is longer (the segment lost bytes: a write open that fell
    // back to "wb+" emptied it); never when the twin holds less than the
    // segment (it is being copied again: the segment is the only whole copy).
    if (twinLen > 0 && twinLen >= segLen && (!f || twinLen > segLen)) {
      if (f) f.close();
      if (removeAll(this.path(seq)) && this.twinIntoPlace(tpath, key, this.path(seq)) && File.delete(tpath)) {
        this.repaired.push(`${STREAM_CHAR[this.stream]}${seq}: ${f ? "shorter than its twin" : "unreadable"}, its twin put in its place`);
        this.segs.set(seq, twinLen);
        twinLen = -1;
      }
      f = this.tryOpen(this.path(seq));
    } else if (f && twinLen >= 0) {
      // a twin that cannot be opened is copied again by steps
      const t = this.tryOpen(tpath);
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
      const o: OpenSeg = { seq, length, validEnd, blocks: side.blocks.slice(), indexedEnd: side.indexedEnd, sideOk: side.why === undefined || side.why.indexOf("entry") > 0, twin: twinLen < 0 ? -1 : Math.min(twinLen, length), par, key, tailRecords: 0 };
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

  // ---- damage at rest (FORMAT.md §3.15, docs/design/rest.md) -----------------------------

  // Segments are protected by XOR parity per group (parity.ts): 16 for facts
  // and digests (never retired), pairs for moments and events (retired oldest
  // first: a pair is retired together).
  get size(): number {
    return this.stream === "moment" || this.stream === "event" ? PARITY.pair : PARITY.group;
  }
  gOf(seq: number): number {
    return groupOf(seq, this.size);
  }
  fOf(g: number): number {
    return firstOf(g, this.size);
  }

  // The members of group g below `below`: its segments no longer taking
  // appends (never written again), in number order, with their lengths.
  members(g: number, below = Infinity): Member[] {
    const out: Member[] = [];
    for (let q = this.fOf(g); q < this.fOf(g + 1) && q < below; q++) {
      const len = this.segs.get(q);
      if (len === undefined || q === this.skip || (this.open && this.open.seq === q)) continue;
      out.push({ seq: q, length: len });
    }
    return out;
  }

  // Group g's parity: `<top>.par`, top its newest member, the XOR of the
  // members padded to the longest (`want` bytes); whole when `have` is that.
  groupPar(g: number, below = Infinity): { top: number; want: number; have: number; ms: Member[] } | undefined {
    const ms = this.members(g, below);
    if (!ms.length) return undefined;
    let want = 0;
    for (const m of ms) want = Math.max(want, m.length);
    const top = ms[ms.length - 1].seq;
    return { top, want, have: this.pars.get(top) ?? -1, ms };
  }

  // What the twin of segment `seq` (taking appends) is XORed with: -2 nothing
  // (no member before it in its group: the twin is a plain copy named .par), a
  // member whose .par is whole, or -1 when that .par is not whole (the twin is
  // then a plain copy named .twn, and the group's parity is built by steps).
  keyFor(seq: number): number {
    const p = this.groupPar(this.gOf(seq), seq);
    if (!p) return this.ghostBelow(seq) ?? -2;
    return p.have === p.want ? p.top : -1;
  }

  // A pair's older member retired while the newer one took appends keeps its
  // .par (its bytes: a plain copy) as long as the newer one lives: the newer
  // one's twin, then its parity, was XORed with it (a *ghost*, FORMAT.md §3.15).
  private ghostBelow(seq: number): number | undefined {
    for (let q = this.fOf(this.gOf(seq)); q < seq; q++) if (this.pars.has(q) && !this.segs.has(q)) return q;
    return undefined;
  }

  // A twin started for segment `seq`: <seq>.par XORed with its key (none for
  // a group's first segment), or a plain <seq>.twn when the key is not whole.
  // A twin started anew is never XORed with a ghost (the ghost would have to
  // stay as long as it): it is a plain .twn then (FORMAT.md §3.15).
  private twinOf(seq: number): { par: boolean; key: number } {
    const k = this.keyFor(seq);
    if (k >= 0 && !this.segs.has(k)) return { par: false, key: -1 };
    return k === -1 ? { par: false, key: -1 } : { par: true, key: Math.max(k, -1) };
  }

  // XORs `b` (bytes at offset `pos` of a twin) with the key's .par at the same
  // offsets, in place; bytes past the key's end are XORed with zeros.
  private xorKey(key: number, b: Uint8Array, pos: number): void {
    if (key < 0) return;
    const n = Math.min(b.length, (this.pars.get(key) ?? 0) - pos);
    if (n <= 0) return;
    const f = new File(this.path(key, "par"));
    try {
      for (let at = 0; at < n; ) {
        const k = readInto(f, pos + at, Math.min(CHUNK, n - at), this.bufs.chunk);
        if (k <= 0) throw new ArchiveError("io", "archive: short read");
        const c = this.bufs.chunk;
        for (let i = 0; i < k; i++) b[at + i] ^= c[i];
        at += k;
      }
    } finally {
      f.close();
    }
  }

  // The open segment's bytes [pos, pos + n) as its twin holds them (XORed
  // back with its key), or undefined when the twin does not hold them (the
  // episode store's passages: a line damaged in the open segment).
  twinBytes(seq: number, pos: number, n: number): Uint8Array | undefined {
    const o = this.open;
    if (!o || o.seq !== seq || o.twin < pos + n) return undefined;
    // (its own arrays, not the shared chunk: a passage may be read while a
    // scan of the archive holds a block there)
    const part = (path: string, len: number): Uint8Array => {
      const b = new Uint8Array(n);
      const m = Math.min(n, len - pos);
      if (m <= 0) return b;
      const f = new File(path);
      try {
        for (let at = 0; at < m; ) {
          const k = readInto(f, pos + at, Math.min(CHUNK, m - at), b, at);
          if (k <= 0) throw new ArchiveError("io", "archive: short read");
          at += k;
        }
      } finally {
        f.close();
      }
      return b;
    };
    try {
      const b = part(this.path(seq, o.par ? "par" : "twn"), pos + n);
      if (o.par && o.key >= 0) {
        const k = part(this.path(o.key, "par"), this.pars.get(o.key) ?? 0);
        for (let i = 0; i < n; i++) b[i] ^= k[i];
      }
      return b;
    } catch (e) {
      rethrowFatal(e);
      return undefined;
    }
  }

  // Puts a twin's bytes, XORed back with its key, in the segment's place.
  private twinIntoPlace(from: string, key: number, to: string): boolean {
    if (key < 0) return copyInto(from, to);
    try {
      const src = new File(from);
      try {
        const len = src.length;
        if (!removeAll(to)) return false;
        const w = openWrite(to);
        try {
          for (let at = 0; at < len; ) {
            const k = readInto(src, at, Math.min(CHUNK, len - at), this.bufs.chunk);
            if (k <= 0) return false;
            const part = this.bufs.chunk.slice(0, k);
            this.xorKey(key, part, at);
            writeAt(w, part, at);
            at += k;
          }
        } finally {
          w.close();
        }
        return true;
      } finally {
        src.close();
      }
    } catch (e) {
      rethrowFatal(e);
      return false;
    }
  }

  // Boot: the parity files of members (the open segment's is its twin:
  // loadOpen), sealed segments' twins, and restorations a cut interrupted.
  private loadProtection(segs: Map<number, number>, twins: Map<number, number>, parLens: Map<number, number>, openTop: number, rsts: number[]): void {
    this.twins.clear();
    this.pars.clear();
    this.damaged.clear();
    this.restoring.clear();
    const open = this.open;
    this.open = openTop >= 0 ? ({ seq: openTop } as OpenSeg) : undefined; // members() leaves it out
    // restorations a cut interrupted (the marker is written before the
    // segment is deleted, and deleted once it is whole again)
    for (const q of rsts) {
      const len = readMarker(this.path(q, "rst"));
      if (len < 0 || q === openTop) {
        File.delete(this.path(q, "rst"));
        continue;
      }
      const have = segs.get(q) ?? 0;
      this.restoring.set(q, { len, at: Math.min(have, len) });
      segs.set(q, len);
    }
    // facts and digests (never retired): a sealed member gone, or shorter than
    // its catalog entry, that a parity of its group covers: damage, restored
    // from the parity (a rewrite deletes the parity before it changes a member).
    // Passages: the census collects whole segments and their entries stay, so
    // only a member still listed (SPIFFS damage leaves the object: not
    // finalized, short) is damage; one not listed was collected.
    if (this.size !== PARITY.pair)
      this.cat.entries.forEach((e, q) => {
        const have = segs.get(q) ?? 0;
        if (q === openTop || q === this.skip || have >= e.bytes || this.restoring.has(q) || (twins.get(q) ?? -1) >= e.bytes) return;
        if (this.stream === "passage" && !segs.has(q)) return;
        let covered = false;
        parLens.forEach((len, pq) => {
          if (pq !== openTop && pq >= q && this.gOf(pq) === this.gOf(q) && len >= e.bytes) covered = true;
        });
        if (!covered) return;
        this.restoring.set(q, { len: e.bytes, at: have });
        segs.set(q, e.bytes);
      });
    parLens.forEach((len, q) => {
      if (q === openTop) return;
      let mate = false; // a ghost: a pair's older member retired, the newer one there
      if (!segs.has(q) && this.size === PARITY.pair) for (let x = q + 1; x < this.fOf(this.gOf(q) + 1); x++) if (segs.has(x)) mate = true;
      if ((!segs.has(q) && !mate) || len > SEGMENT_BYTES) File.delete(this.path(q, "par"));
      else this.pars.set(q, len);
    });
    for (const g of this.groupsOf(segs)) {
      const p = this.groupPar(g);
      if (p && p.have > p.want) {
        File.delete(this.path(p.top, "par")); // not this group's bytes: built again
        this.pars.delete(p.top);
      }
    }
    this.open = open;
    twins.forEach((len, s) => {
      if (s === openTop) return; // the open segment's (loadOpen)
      const have = segs.get(s) ?? 0;
      if (len > have) {
        // the segment is being restored from its twin (or lost bytes)
        this.restoring.set(s, { len, at: have });
        segs.set(s, len);
        this.twins.set(s, len);
      } else if (len === have) this.twins.set(s, len);
      else File.delete(this.path(s, "twn")); // a copy a cut interrupted: copied again
    });
  }

  private groupsOf(segs: Map<number, number>): number[] {
    const gs: number[] = [];
    segs.forEach((_l, s) => {
      const g = this.gOf(s);
      if (gs.indexOf(g) < 0) gs.push(g);
    });
    return gs;
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
    if (!restoring && !(this.open && this.open.seq === seq)) this.damaged.set(seq, true);
    const fb = this.fallback(seq);
    if (fb) return fb;
    throw new ArchiveError("io", `archive: ${STREAM_CHAR[this.stream]}${seq} cannot be opened`);
  }

  // A whole second source of a member's bytes: its twin, or its group's
  // parity with every other member whole.
  fallback(seq: number): File | undefined {
    if (this.open && this.open.seq === seq) return undefined;
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
    const p = this.groupPar(this.gOf(seq));
    if (!p || p.have !== p.want) return undefined;
    let me: Member | undefined;
    for (const m of p.ms) {
      if (m.seq === seq) me = m;
      else if (this.restoring.has(m.seq) || this.damaged.has(m.seq)) return undefined;
    }
    const ms = p.ms.slice();
    const ghost = this.ghostBelow(p.top);
    if (ghost !== undefined) ms.push({ seq: ghost, length: this.pars.get(ghost) as number });
    const info: ParityInfo = { path: this.path(p.top, "par"), body: p.want, members: ms };
    return me ? new XorReader(info, me, (q) => this.path(q, q === ghost ? "par" : "jsonl")) : undefined;
  }

  // One step of keeping members protected, or undefined when there is nothing
  // to do: a damaged member checked again and restored 4 KB a step; a group's
  // parity completed 4 KB a step (after a cut, a rewrite, a migration: the XOR
  // of the members at those offsets); the files it makes stale dropped; a
  // sealed moment or event segment without a twin given one 8 KB a step.
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
      writeNew(this.path(seq, "rst"), marker(len));
      removeAll(this.path(seq));
      this.restoring.set(seq, { len, at: 0 });
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
          r.at += k;
        }
      } finally {
        src.close();
      }
      if (r.at < r.len) return `${c}${seq}: restored ${r.at}`;
      File.delete(this.path(seq, "rst"));
      this.restoring.delete(seq);
      this.damaged.delete(seq);
      this.segs.set(seq, r.len);
      return `${c}${seq}: restored`;
    }
    for (const g of this.groupsOf(this.segs)) {
      const p = this.groupPar(g);
      if (!p) continue;
      if (p.have === p.want) {
        // the group's parity is whole: what it makes stale goes
        for (const m of p.ms) {
          if (m.seq !== p.top && this.pars.has(m.seq)) {
            File.delete(this.path(m.seq, "par"));
            this.pars.delete(m.seq);
            return `${c}${m.seq}: parity ${p.top} whole, ${m.seq}'s dropped`;
          }
          if (this.twins.has(m.seq) && !this.restoring.has(m.seq)) {
            File.delete(this.path(m.seq, "twn"));
            this.twins.delete(m.seq);
            return `${c}${m.seq}: twin dropped (parity)`;
          }
        }
        continue;
      }
      // members still sealing, damaged or being restored wait; so does a
      // parity that takes room above the retire line
      if (!roomy && p.have < 0) continue;
      let ready = true;
      for (const m of p.ms) if (this.cat.entries.get(m.seq)?.bytes !== m.length || this.damaged.has(m.seq) || this.restoring.has(m.seq)) ready = false;
      if (!ready) continue;
      // members that all keep a whole plain twin are protected already
      if (p.have < 0 && p.ms.every((m) => this.twins.get(m.seq) === m.length)) continue;
      return this.parityStep(p, c);
    }
    return undefined;
  }

  // 4 KB of a group's parity from its current end: the XOR of every member
  // (the twin of one that cannot be read) at those offsets.
  private parityStep(p: { top: number; want: number; have: number; ms: Member[] }, c: string): string {
    const path = this.path(p.top, "par");
    const at = Math.max(0, p.have);
    const k = Math.min(CHUNK, p.want - at);
    const out = new Uint8Array(k);
    for (const m of p.ms) {
      const n = Math.min(k, m.length - at);
      if (n <= 0) continue;
      const f = this.openRead(m.seq);
      try {
        f.position = at;
        const got = new Uint8Array(f.read(ArrayBuffer, n) as ArrayBuffer);
        if (got.length !== n) throw new ArchiveError("io", "archive: short read");
        for (let i = 0; i < n; i++) out[i] ^= got[i];
      } finally {
        f.close();
      }
    }
    try {
      if (at === 0) {
        File.delete(path);
        // a ghost belongs to the parity the open twin made: not to this one
        const ghost = this.ghostBelow(p.top);
        if (ghost !== undefined) {
          remove(this.path(ghost, "par"));
          this.pars.delete(ghost);
        }
      }
      const w = at === 0 ? openWrite(path) : openAppend(path, at);
      try {
        writeAt(w, out, at);
      } finally {
        w.close();
      }
    } catch (e) {
      rethrowFatal(e);
      File.delete(path); // what it holds is unknown: built again from the start
      this.pars.delete(p.top);
      throw e;
    }
    this.pars.set(p.top, at + k);
    return `${c} parity ${p.top}: ${at + k} of ${p.want}`;
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
    return true;
  }

  // Deletes a ghost and the twin XORed with it (no room, nothing to retire:
  // records come before their second copies; the twin is made again, plain,
  // by steps when there is room).
  dropGhost(): boolean {
    const o = this.open;
    let ghost: number | undefined;
    this.pars.forEach((_l, q) => {
      if (!this.segs.has(q) && !(o && o.seq === q)) ghost = q;
    });
    if (ghost === undefined) return false;
    // what is XORed with it goes first: a cut before the ghost's delete
    // leaves a ghost no key needs (dropped by ghostStep), never a twin or a
    // parity read back without its key
    if (o && o.par && o.key === ghost) {
      remove(this.path(o.seq, "par"));
      const p = this.plain;
      // a plain copy under way beside it becomes the twin (twinStep completes it)
      if (p && p.seq === o.seq && fileLengthOf(this.path(o.seq, "twn")) === p.at) o.twin = p.at;
      else o.twin = -1;
      o.par = false;
      o.key = -1;
    }
    for (let x = ghost + 1; x < this.fOf(this.gOf(ghost) + 1); x++)
      if (this.segs.has(x) && this.pars.has(x) && !(o && o.seq === x)) {
        remove(this.path(x, "par")); // its parity made from a twin XORed with the ghost: made again by steps
        this.pars.delete(x);
      }
    this.plain = undefined;
    remove(this.path(ghost, "par"));
    this.pars.delete(ghost);
    return true;
  }

  // ---- ghosts (FORMAT.md §3.15, docs/design/ghosts.md) -----------------------------------

  // A plain copy of a segment written by steps beside the keyed file that
  // protects it (the open segment's twin XORed with a key, or a sealed pair
  // member's parity XORed with a ghost): the segment and the bytes copied.
  // Not kept across a boot: boot deletes a .twn beside the open segment's
  // .par, and a sealed segment's .twn shorter than it.
  private plain: { seq: number; at: number } | undefined;

  // A ghost of this stream (pairs only): a .par whose segment is gone.
  ghost(): number {
    let g = -1;
    if (this.size !== PARITY.pair) return g;
    const o = this.open;
    this.pars.forEach((_l, q) => {
      if (!this.segs.has(q) && !(o && o.seq === q)) g = q;
    });
    return g;
  }

  // What holds a ghost's bytes as its key: the open segment (its twin XORed
  // with it), or its sealed mate (whose parity is); -1 when none does.
  private keyedBy(ghost: number): number {
    const o = this.open;
    if (o && o.par && o.key === ghost) return o.seq;
    for (let x = ghost + 1; x < this.fOf(this.gOf(ghost) + 1); x++) if (this.segs.has(x) && this.pars.has(x) && !(o && o.seq === x)) return x;
    return -1;
  }

  // One step of dropping a ghost without leaving its mate unprotected at any
  // cut: a plain copy of the mate written beside the file XORed with the
  // ghost, 4 KB a step; when it is whole it takes that file's place (the
  // keyed file deleted); then the ghost, which no key needs any more, is
  // deleted. `fits(bytes)`: whether the copy's bytes fit (the partition's
  // hard line); undefined when there is nothing to do.
  ghostStep(fits: (bytes: number) => boolean = () => true): string | undefined {
    const c = STREAM_CHAR[this.stream];
    const ghost = this.ghost();
    if (ghost < 0) return undefined;
    const mate = this.keyedBy(ghost);
    if (mate < 0) {
      remove(this.path(ghost, "par"));
      this.pars.delete(ghost);
      return `${c}${ghost}: ghost dropped`;
    }
    if (this.damaged.has(mate) || this.restoring.has(mate)) return undefined; // read from it meanwhile
    return this.plainStep(mate, fits);
  }

  // One step of making the open segment's twin plain when it is XORed with a
  // key in group g (before that group's parity goes: the passages' collection,
  // src/episode/store.ts); false when it is not (any more).
  unkeyStep(g: number, fits: (bytes: number) => boolean = () => true): boolean {
    const o = this.open;
    if (!o || !o.par || o.key < 0 || o.twin < 0 || this.gOf(o.seq) !== g) return false;
    return this.plainStep(o.seq, fits) !== undefined;
  }

  // 4 KB of a plain copy of segment `seq` (`<seq>.twn`), or its switch when
  // whole: the open segment's twin becomes the plain copy (its .par goes), a
  // sealed segment's parity goes (its plain twin protects it).
  private plainStep(seq: number, fits: (bytes: number) => boolean): string | undefined {
    const c = STREAM_CHAR[this.stream];
    const o = this.open && this.open.seq === seq ? this.open : undefined;
    const len = o ? o.length : (this.segs.get(seq) as number);
    const tpath = this.path(seq, "twn");
    let p = this.plain;
    // a copy that is not where it was left (a seal, a rewrite) starts again
    if (p && (p.seq !== seq || (p.at > 0 && fileLengthOf(tpath) !== p.at))) p = undefined;
    // a sealed segment's whole plain twin (found at boot: a cut before the switch)
    if (!p && !o && this.twins.get(seq) === len) p = { seq, at: len };
    if (!p) {
      if (!fits(len)) return undefined;
      p = { seq, at: 0 };
    }
    this.plain = p;
    if (p.at < len) {
      const k = Math.min(CHUNK, len - p.at);
      const src = o ? new File(this.path(seq)) : this.openRead(seq);
      try {
        if (readInto(src, p.at, k, this.bufs.chunk) !== k) throw new ArchiveError("io", "archive: short read");
      } finally {
        src.close();
      }
      const w = p.at === 0 ? openWrite(tpath) : openAppend(tpath, p.at);
      try {
        writeAt(w, this.bufs.chunk.subarray(0, k), p.at);
      } catch (e) {
        this.plain = undefined;
        throw e;
      } finally {
        w.close();
      }
      p.at += k;
      if (p.at < len || !o) return `${c}${seq}: plain twin ${p.at} of ${len}`;
    }
    // whole: the keyed file goes (the plain copy is whole before it does)
    remove(this.path(seq, "par"));
    this.plain = undefined;
    if (o) {
      o.par = false;
      o.key = -1;
      o.twin = p.at;
    } else {
      this.pars.delete(seq);
      this.twins.set(seq, p.at);
    }
    return `${c}${seq}: plain twin in place of its .par`;
  }

  // Reads a sealed segment through (at most 56 KB): true when every read works.
  private readsWhole(seq: number): boolean {
    return (
      withFile(this.path(seq), (f, len) => {
        if (len !== this.segs.get(seq)) return 0;
        for (let at = 0; at < len; ) {
          const k = readInto(f, at, Math.min(CHUNK, len - at), this.bufs.chunk);
          if (k <= 0) return 0;
          at += k;
        }
        return 1;
      }) === 1
    );
  }

  // Before a member changes (a rewrite): its group's parity no longer holds
  // and goes, with the twin of the segment taking appends that was XORed with
  // it; both are built again by steps.
  dropParityOf(seq: number): boolean {
    const g = this.gOf(seq);
    let did = false;
    if (this.plain && this.gOf(this.plain.seq) === g && this.plain.seq !== this.open?.seq) this.plain = undefined;
    for (let q = this.fOf(g); q < this.fOf(g + 1); q++) {
      if (!this.pars.has(q) || (this.open && this.open.seq === q)) continue;
      remove(this.path(q, "par"));
      this.pars.delete(q);
      did = true;
    }
    const o = this.open;
    if (o && this.gOf(o.seq) === g && o.key >= 0) {
      remove(this.path(o.seq, "par"));
      o.twin = -1;
      o.key = -1;
    }
    return did;
  }

  // The segment that took appends is full and another takes them: its twin
  // becomes its group's parity (the bytes of the key past its end are
  // appended: the segment counts as zeros there) and the key goes.
  private closeTwin(o: OpenSeg): void {
    if (!o.par) {
      // a plain .twn (no whole key when it started): kept until the group's
      // parity is built by steps
      if (o.twin >= 0 && o.twin === o.length) this.twins.set(o.seq, o.twin);
      else File.delete(this.path(o.seq, "twn"));
      return;
    }
    if (o.twin < 0) {
      File.delete(this.path(o.seq, "par")); // what it holds is unknown
      return;
    }
    this.pars.set(o.seq, o.twin);
    if (o.twin < o.length || o.key < 0) return; // parity steps complete it
    if (!this.segs.has(o.key)) return; // a ghost's: it stays with this segment (ghostBelow)
    const klen = this.pars.get(o.key) ?? 0;
    try {
      if (klen > o.twin) {
        const src = new File(this.path(o.key, "par"));
        try {
          const w = openAppend(this.path(o.seq, "par"), o.twin);
          try {
            for (let at = o.twin; at < klen; ) {
              const k = readInto(src, at, Math.min(CHUNK, klen - at), this.bufs.chunk);
              if (k <= 0) throw new ArchiveError("io", "archive: short read");
              writeAt(w, this.bufs.chunk.subarray(0, k), at);
              at += k;
              this.pars.set(o.seq, at);
            }
          } finally {
            w.close();
          }
        } finally {
          src.close();
        }
      }
      File.delete(this.path(o.key, "par"));
      this.pars.delete(o.key);
    } catch (e) {
      rethrowFatal(e); // parity steps complete it
    }
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
  // `seq` and `at`: where the first line written went (passages, whose
  // lines are never skipped: an episode's header points to them).
  append(lines: Line[]): { written: number; bytes: number; seq: number; at: number } {
    let o = this.open;
    // the tail: the bytes after the indexed blocks (less than a block, plus a torn append)
    let tail = o ? this.readTail(o) : undefined;
    let fresh = lines;
    if (o && tail && this.stream !== "passage") {
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
    if (!fresh.length) return { written: 0, bytes: 0, seq: -1, at: -1 };
    const records = fresh.length;
    // facts of one append share lines (FORMAT.md §3.19)
    if (this.stream === "fact") fresh = packFacts(fresh);
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
    return { written: records, bytes: n, seq: o.seq, at: pos + (repair ? 2 : 0) };
  }

  // The next append goes to a new segment: the one taking appends now is done
  // and sealed by steps (the episode store's collection of an owner-deleted
  // text in it: docs/FORMAT.md §4.3.1).
  startNext(): void {
    this.rollover();
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
    remove(this.path(seq)); // a leftover of a cut rollover
    // the twin: for facts and digests XORed with the group's parity so far,
    // which the previous segment's twin becomes (its key's bytes past its end
    // appended: closeTwin); at the next rollover this twin is the group's
    // parity, with no write more
    const prev = this.open;
    let par = false, key = -1;
    if (prev && this.gOf(prev.seq) === this.gOf(seq) && prev.par && prev.twin >= 0 && prev.twin === prev.length) {
      par = true;
      key = prev.seq;
      this.pars.set(prev.seq, prev.twin);
    } else if (!prev || this.gOf(prev.seq) !== this.gOf(seq)) ({ par, key } = this.twinOf(seq));
    try {
      writeNew(this.path(seq), head);
      remove(this.path(seq, "par"));
      remove(this.path(seq, "twn"));
      const t = head.slice();
      this.xorKey(key, t, 0);
      writeNew(this.path(seq, par ? "par" : "twn"), t);
    } catch (e) {
      rethrowFatal(e);
      // nothing changed: the segment that took appends still takes them
      if (prev) this.pars.delete(prev.seq);
      File.delete(this.path(seq, "par"));
      File.delete(this.path(seq, "twn"));
      File.delete(this.path(seq));
      throw e;
    }
    // the segment that took appends is done: its twin becomes what protects it
    this.open = undefined;
    let twin = head.length;
    if (prev) {
      this.closeTwin(prev);
      if (key >= 0 && key === prev.seq && this.keyFor(seq) !== key) {
        // its key is not whole (a write failed): this twin is made again by steps
        File.delete(this.path(seq, "par"));
        twin = -1;
      }
    }
    let sideOk = true;
    try {
      createSide(this.path(seq, "six"), this.stream, seq);
    } catch (e) {
      rethrowFatal(e);
      sideOk = false;
    }
    this.open = { seq, length: head.length, validEnd: head.length, blocks: [], indexedEnd: 0, sideOk, twin, par, key, tailRecords: 0 };
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
      const f = openAppend(this.path(o.seq, o.par ? "par" : "twn"), o.twin);
      try {
        if (before > 0) {
          const b = tail.slice(o.twin - o.indexedEnd, pos - o.indexedEnd);
          this.xorKey(o.key, b, o.twin);
          writeAt(f, b, o.twin);
        }
        const b = o.key >= 0 ? out.slice() : out;
        this.xorKey(o.key, b, pos);
        writeAt(f, b, pos);
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
  // The open block's lines were indexed by the appends that wrote them: when
  // the tail is still those bytes (kept: same segment, start and length, and
  // the CRC of its bytes), the builder goes on from that block and indexes only
  // the lines appended now, instead of parsing every line of the tail again at
  // each append (up to a 4 KB block of lines: most of an append's time in XS).
  private index(o: OpenSeg, tail: Uint8Array, out: Uint8Array): void {
    const b = new BlockBuilder(this.stream, o.indexedEnd, SEGMENT_BLOCKS - o.blocks.length);
    const lines = (all: Uint8Array): void => {
      for (let s = 0; ; ) {
        const i = all.indexOf(NL, s);
        if (i < 0) break;
        b.add(all, s, i, i + 1 - s);
        s = i + 1;
      }
    };
    const k = kept;
    if (k && k.owner === this && k.seq === o.seq && k.block.info.offset === o.indexedEnd && k.block.info.length === tail.length && tail.length && tail[tail.length - 1] === NL && !b.full && crc32(tail) === k.block.crc) {
      b.resume(k.block);
      lines(out);
    } else if (!tail.length || tail[tail.length - 1] === NL) {
      // whole lines in each (the common case): no copy of both (heap)
      lines(tail);
      lines(out);
    } else {
      // the torn bytes the tail ends with are not lines: `all` holds them
      // followed by "#\n", which makes them one bad line
      const all = new Uint8Array(tail.length + out.length);
      all.set(tail, 0);
      all.set(out, tail.length);
      lines(all);
    }
    const recs = b.flush(false);
    const closed = decodeRecords(recs, b.count);
    o.tailRecords = b.tailRecords + recordsOf(closed); // every record after the indexed blocks
    if (b.count && o.sideOk) this.commitBlocks(o, recs, closed, b);
    // the open block, kept for the next append when it is the whole tail
    const ob = b.keepOpen(k?.block);
    kept = ob && ob.info.offset === o.indexedEnd && ob.info.offset + ob.info.length === o.length ? { owner: this, seq: o.seq, block: ob } : undefined;
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
  // 4 KB a step: written once, with the segment and the group's parity (the
  // key) read at those offsets, about 140 ms at the device's flash speed (8 KB
  // took 310 ms, over the 300 ms step budget: docs/design/steps.md).
  twinStep(max = 4096): boolean {
    const o = this.open;
    if (!o) return false;
    if (o.twin >= 0 && o.twin >= o.length) return false;
    if (o.twin < 0) {
      File.delete(this.path(o.seq, "twn"));
      File.delete(this.path(o.seq, "par"));
      // XORed with the group's parity when it is whole
      const t = this.twinOf(o.seq);
      o.par = t.par;
      o.key = t.key;
      o.twin = 0;
    }
    const tpath = this.path(o.seq, o.par ? "par" : "twn");
    const src = new File(this.path(o.seq));
    try {
      const f = o.twin === 0 ? openWrite(tpath) : openAppend(tpath, o.twin);
      try {
        const end = Math.min(o.length, o.twin + max);
        for (let at = o.twin; at < end; ) {
          const k = readInto(src, at, Math.min(CHUNK, end - at), this.bufs.chunk);
          const b = this.bufs.chunk.slice(0, k);
          this.xorKey(o.key, b, at);
          writeAt(f, b, at);
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
  // sidecar is missing or damaged), adds its summary to the catalog; a plain
  // twin of another length goes. One read of the segment (at most 56 KB) and a
  // few KB written.
  //
  // As a step (`piecewise`), a segment with more than SEAL_UNINDEXED bytes not
  // indexed (after its rewrite by a forget, a migration, a damaged sidecar)
  // gets INDEX_STEP_BLOCKS of its blocks indexed instead, and false is
  // returned (sealed by a later step): indexing all 14 blocks in the seal
  // wrote about 6 KB, 315 ms at the device's flash speed, over the 300 ms step
  // budget (docs/design/steps.md). The records are those the seal would write,
  // appended to the sidecar as appends do for the open segment; a cut leaves
  // a torn last record, which readSide stops at (indexed again, FORMAT.md §3.4).
  seal(seq: number, piecewise = false): boolean {
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
      if (piecewise && end - side.indexedEnd > SEAL_UNINDEXED) {
        const b = new BlockBuilder(this.stream, side.indexedEnd, Math.min(INDEX_STEP_BLOCKS, SEGMENT_BLOCKS - side.blocks.length));
        scanRange(f, side.indexedEnd, end, this.bufs.chunk, (buf, s, e, size) => {
          b.add(buf, s, e, size);
          return b.full ? false : undefined;
        });
        const recs = b.flush(false);
        if (b.count) {
          if (!side.blocks.length) createSide(this.path(seq, "six"), this.stream, seq);
          writeSideRecords(this.path(seq, "six"), side.blocks.length, recs);
          if (r >= 0) (this.reindex as number[]).push(seq); // still to be sealed
          return false;
        }
      }
      const b = new BlockBuilder(this.stream, side.indexedEnd, SEGMENT_BLOCKS - side.blocks.length);
      const lineRecs: Rec[] = [];
      // a segment written again (docs/design/recode.md) is summarized with its
      // entry's element set: the same records then keep their slot
      const had = this.cat.entries.get(seq);
      const set = had && had.bytes !== length ? had.set : ELEMENTS;
      scanRange(f, 0, end, this.bufs.chunk, (buf, s, e, size, pos) => {
        if (pos >= side!.indexedEnd) b.add(buf, s, e, size);
        if (size > e - s && lineKind(buf, s, e) === KIND_RECORD && parseRecords(buf, s, e, this.stream, lineRecs))
          for (const { it, t } of lineRecs) {
            records++;
            if (t < min) min = t;
            if (t > max) max = t;
            for (const x of textsOf(it)) sigAdd(summary, 0, x, SUMMARY_MASK, set);
          }
      });
      const recs = b.flush(true);
      if (!side.blocks.length) createSide(this.path(seq, "six"), this.stream, seq);
      if (b.count) writeSideRecords(this.path(seq, "six"), side.blocks.length, recs);
      blocks = side.blocks.length + b.count;
      // a sealed segment indexed again (its sidecar was damaged) keeps its catalog entry
      if (had && had.bytes !== length && had.slot < this.cat.slots && had.records === records && had.min === min && had.max === max && had.sumCrc === crc32(summary, 0, SUMMARY_BYTES)) this.cat.restate(had, length, blocks);
      else if (!had || had.bytes !== length) this.cat.add({ seq, min, max, records, bytes: length, blocks, set }, summary);
      this.segs.set(seq, length);
    } finally {
      f.close();
    }
    // a plain twin stays (moments, events; facts and digests until their
    // group's parity is whole: protectStep)
    const tl = File.exists(this.path(seq, "twn")) ? fileLengthOf(this.path(seq, "twn")) : -1;
    const copying = this.plain && this.plain.seq === seq && this.plain.at === tl; // a ghost's mate's plain copy, under way
    if (copying) {
      /* kept: ghostStep completes it */
    } else if (tl >= 0 && tl !== this.segs.get(seq)) {
      File.delete(this.path(seq, "twn"));
      this.twins.delete(seq);
    } else if (tl >= 0) this.twins.set(seq, tl);
    return true;
  }

  // A sealed segment's summary made again from its lines, as seal makes it
  // (one read of at most 56 KB): a group of the catalog below `.sum`'s base
  // being sliced again (docs/design/summaries.md), with its entry's element
  // set (so that it gives the entry's CRC). False when it cannot be read.
  summarize(seq: number, out: Uint8Array, set: number): boolean {
    if (!this.segs.has(seq)) return false;
    const f = this.openRead(seq);
    const lineRecs: Rec[] = [];
    try {
      const end = validEndOf(f, f.length, this.bufs.chunk);
      scanRange(f, 0, end, this.bufs.chunk, (buf, s, e, size) => {
        if (size > e - s && lineKind(buf, s, e) === KIND_RECORD && parseRecords(buf, s, e, this.stream, lineRecs))
          for (const { it } of lineRecs) for (const x of textsOf(it)) sigAdd(out, 0, x, SUMMARY_MASK, set);
      });
    } finally {
      f.close();
    }
    return true;
  }

  // Retires a whole segment: renamed first (the point after which it is gone),
  // then deleted with its sidecar. The caller has folded it into a digest.
  retire(seq: number): void {
    // a twin goes first: left behind a segment that is gone, boot would take
    // it for the segment (a repair's half-done swap) and bring it back
    // the older member of the pair whose newer one takes appends: its .par
    // stays, a ghost the newer one's twin is XORed with
    const o = this.open;
    if (!(o && o.key === seq && this.gOf(o.seq) === this.gOf(seq))) this.dropParityOf(seq);
    if (File.exists(this.path(seq, "twn"))) remove(this.path(seq, "twn"));
    this.twins.delete(seq);
    this.damaged.delete(seq);
    try {
      rename(this.path(seq), this.path(seq, "ret"));
    } catch (e) {
      // a segment damaged at rest (not finalized) will not rename but deletes:
      // what it held is already elsewhere (a digest, moved texts), so it goes
      // now rather than fail every step after
      if (!File.delete(this.path(seq)) && File.exists(this.path(seq))) throw e;
    }
    this.segs.delete(seq);
    File.delete(this.path(seq, "ret"));
    File.delete(this.path(seq, "six"));
  }
}

// Part of Buffers.prot as a map from segment (or group) numbers: keys are
// numbers (no string in the heap), kind and stream times a million plus n.
const KEY_STREAMS: Stream[] = ["fact", "moment", "event", "digest", "passage"];
function keyBase(kind: number, stream: Stream): number {
  return (kind * 5 + KEY_STREAMS.indexOf(stream)) * 1000000;
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
  return withFile(path, (_f, len) => len) ?? -1;
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


// Is the line's record already among the tail's lines (same time and bytes,
// or a fact of a packed line with its id: FORMAT.md §3.19)?
function tailHas(tail: Uint8Array, from: number, validEnd: number, l: Line, stream: Stream): boolean {
  const tailRecs: Rec[] = [];
  const n = Math.min(tail.length, validEnd - from);
  const len = l.line.length;
  for (let s = 0; s < n; ) {
    let i = tail.indexOf(NL, s);
    if (i < 0 || i >= n) break;
    const t = lineT(tail, s, i);
    if (i + 1 - s === len && t === l.t) {
      let same = true;
      for (let k = 0; k < len && same; k++) same = tail[s + k] === l.line[k];
      if (same) return true;
    }
    if (stream === "fact" && t >= 0 && t <= l.t && mayBePacked(tail, s, i) && lineOk(tail, s, i) && parseRecords(tail, s, i, stream, tailRecs))
      for (const r of tailRecs) if (r.it.id === l.id) return true;
    s = i + 1;
  }
  return false;
}

// A new file holding `b`.
function writeNew(path: string, b: Uint8Array): void {
  const f = openWrite(path);
  try {
    writeAt(f, b, 0);
  } finally {
    f.close();
  }
}

// A restore marker (`.rst`): the length the segment is restored to, u32 LE.
function marker(len: number): Uint8Array {
  return new Uint8Array([len & 0xff, (len >>> 8) & 0xff, (len >>> 16) & 0xff, (len >>> 24) & 0xff]);
}
function readMarker(path: string): number {
  return (
    withFile(path, (f, n) => {
      if (n !== 4) return -1;
      const b = new Uint8Array(f.read(ArrayBuffer, 4) as ArrayBuffer);
      const len = (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
      return len > 0 && len <= SEGMENT_BYTES ? len : -1;
    }) ?? -1
  );
}

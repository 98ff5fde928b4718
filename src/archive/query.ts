// Recall over a stream's segments (docs/FORMAT.md §3.8): newest first, one
// chunk of flash in RAM at a time, and as little read as the catalog and the
// sidecars allow.
//
// - recent: segments read backwards from their end, newest segment first.
// - time range: the catalog's (or the sidecar's) time ranges pick segments and
//   blocks; lines are tested on their raw time before parsing.
// - keyword: the catalog's 2 KB summaries pick segments, the sidecar's block
//   signatures blocks.
// Segments are visited newest (highest time) first; once `limit` results are
// held and no remaining segment can beat the oldest of them, reading stops.
// Every line is trusted only when its block's CRC holds (a single flipped bit
// is repaired in RAM) or its own CRC does.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { ArchiveError, readInto, scanBackward, rethrowFatal, messageOf, CHUNK, type OnSegment } from "./file";
import { lineT, parseRecord, parseRecords, lineMayHold, textsOf, NL, STREAM_CODE, STREAM_CHAR, type Rec, type Stream } from "./codec";
import { containsFolded, probeOf, probePositions, sigHas, SIG_BYTES } from "./fold";
import { SUMMARY_MASK, SUMMARY_BYTES, GROUP, type CatEntry } from "./catalog";
import { readSide, lineKind, KIND_RECORD, SIDE_MAX, SIDE_HEADER, RECORD, type BlockInfo, type Side } from "./segment";
import { scanRange, validEndOf, SEGMENT_BYTES as SEGMENT_MAX, type ArchiveStream } from "./stream";
import { repairBit } from "./repair";
import type { ArchivedItem } from "./line";
import { parseLocal } from "../time/local";

export interface RecallStats {
  segments: number; // segments looked into
  blocksRead: number;
  linesParsed: number;
  summaries: number; // catalog summaries read
  groups: number; // sliced groups of 8 summaries consulted (a byte per bit position)
  damaged: number; // lines not served: their CRC fails and one flipped bit does not explain it
  repaired: number; // blocks or lines repaired in RAM (one flipped bit)
  unreadable: string[]; // segments that could not be opened: the answer is partial
}

// A line's time; a line that does not start like a record is checked first
// (one flipped bit in its "t" is repaired in place).
function tOf(buf: Uint8Array, s: number, e: number): number {
  const t = lineT(buf, s, e);
  return t >= 0 || lineKind(buf, s, e) !== KIND_RECORD ? t : lineT(buf, s, e);
}

export const blankStats = (): RecallStats => ({ segments: 0, blocksRead: 0, linesParsed: 0, summaries: 0, groups: 0, damaged: 0, repaired: 0, unreadable: [] });

export interface Query {
  lo: number; // unix seconds, inclusive
  hi: number;
  folded?: Uint8Array; // keyword, folded (fold.ts)
  limit: number;
  hidden: (code: number, id: string) => boolean;
  budget?: Budget; // flash bytes this recall may still read (shared with the caller's other lookups)
}

// A flash read budget shared by the lookups of one call (issue 25: one
// context, search or recall reads at most 32 KB). Each read is charged
// before it is made, by its size or an upper bound of it; a read that does
// not fit is not made and the budget is marked cut: the answer is partial
// (newest first, so what was left out is older than what was served).
export interface Budget {
  left: number;
  cut: boolean;
}

function afford(q: Query, n: number): boolean {
  const b = q.budget;
  if (!b) return true;
  if (b.left >= n) {
    b.left -= n;
    return true;
  }
  b.cut = true;
  return false;
}

// A sidecar's bytes at most for a segment of `len` bytes: blocks hold at
// least 3,585 bytes (a block ends where the next line, at most 512 bytes,
// would not fit), the last one less, and one torn record may follow.
function sideCost(len: number): number {
  return Math.min(SIDE_MAX, SIDE_HEADER + RECORD * (Math.floor(len / 3585) + 2));
}

// The end of a sealed or unsealed segment's last whole line, kept per stream
// object in RAM (a few bytes a segment) while the segment's length is the
// same: it costs a read of up to 4 KB otherwise. Derived from flash, never
// written.
// (Made at the first lookup, not at load: this module is preloaded, and a
// WeakMap made during preload is in ROM, where `set` throws.)
let ends: WeakMap<ArchiveStream, Map<number, number[]>> | undefined;

// Only a read that is made is charged: where a budget runs out may then
// depend on which ends earlier calls left in RAM (an answer cut short says so).
function endOf(s: ArchiveStream, f: File, seq: number, q: Query): number {
  const length = f.length;
  if (!ends) ends = new WeakMap();
  const c = ends.get(s)?.get(seq);
  if (c && c[0] === length) return c[1];
  if (!afford(q, Math.min(length, CHUNK))) return -1;
  return segmentEnd(s, f, seq);
}

// The end of segment `seq`'s last whole line (as validEndOf), from RAM when
// the segment's length has not changed since it was last looked for.
export function segmentEnd(s: ArchiveStream, f: File, seq: number): number {
  const length = f.length;
  if (!ends) ends = new WeakMap();
  let m = ends.get(s);
  const c = m?.get(seq);
  if (c && c[0] === length) return c[1];
  const end = validEndOf(f, length, s.bufs.chunk);
  if (!m) ends.set(s, (m = new Map()));
  m.set(seq, [length, end]);
  return end;
}

export interface Hit {
  it: ArchivedItem;
  t: number;
  seq: number;
  pos: number;
}

// The best `limit` hits, newest first (time, then segment, then position), one per id.
export class TopK {
  hits: Hit[] = [];
  constructor(readonly limit: number) {}
  get full(): boolean {
    return this.hits.length >= this.limit;
  }
  get oldest(): number {
    return this.hits.length ? this.hits[this.hits.length - 1].t : -1;
  }
  add(h: Hit): void {
    const i = this.hits.findIndex((x) => x.it.id === h.it.id && x.it.type === h.it.type && !!x.it.digest === !!h.it.digest);
    if (i >= 0) return; // the newer position was seen first or is as good
    if (this.full && !newer(h, this.hits[this.hits.length - 1])) return;
    let at = this.hits.length;
    while (at > 0 && newer(h, this.hits[at - 1])) at--;
    this.hits.splice(at, 0, h);
    if (this.hits.length > this.limit) this.hits.length = this.limit;
  }
  items(): ArchivedItem[] {
    return this.hits.map((h) => h.it);
  }
}

function newer(a: Hit, b: Hit): boolean {
  return a.t !== b.t ? a.t > b.t : a.seq !== b.seq ? a.seq > b.seq : a.pos > b.pos;
}

function matches(it: ArchivedItem, q: Query, t: number): boolean {
  if (t < q.lo || t > q.hi) return false;
  if (!q.folded) return true;
  for (const x of textsOf(it)) if (containsFolded(x, q.folded)) return true;
  return false;
}

// A line to hand back: checked (block CRC or its own), parsed, not forgotten.
function take(buf: Uint8Array, s: number, e: number, trusted: boolean, stream: Stream, q: Query, st: RecallStats): ArchivedItem | undefined {
  if (!checked(buf, s, e, trusted, st)) return undefined;
  const it = parseRecord(buf, s, e, stream);
  if (!it) return undefined;
  if (q.hidden(STREAM_CODE[it.digest ? (it.type as Stream) : stream], it.id)) return undefined;
  return it;
}

// Is the line one to parse: its CRC checked (unless its block's held), a record's?
function checked(buf: Uint8Array, s: number, e: number, trusted: boolean, st: RecallStats): boolean {
  if (!trusted) {
    const k = lineKind(buf, s, e);
    if (k !== KIND_RECORD) {
      if (k === 2 && e > s && buf[s] === 123) st.damaged++;
      return false;
    }
  } else if (buf[s] !== 123 || (buf[s + 2] !== 116 && buf[s + 2] !== 84)) return false; // a header or repair line ({"t": or format 4's {"T":)
  st.linesParsed++;
  return true;
}

// take for every record of a line (a packed fact line holds several, FORMAT.md
// §3.19): those not forgotten, into `out`, in the line's order.
function takeAll(buf: Uint8Array, s: number, e: number, trusted: boolean, stream: Stream, q: Query, st: RecallStats, out: Rec[]): boolean {
  if (!checked(buf, s, e, trusted, st) || !parseRecords(buf, s, e, stream, out)) {
    out.length = 0;
    return false;
  }
  let n = 0;
  for (const r of out) if (!q.hidden(STREAM_CODE[r.it.digest ? (r.it.type as Stream) : stream], r.it.id)) out[n++] = r;
  out.length = n;
  return n > 0;
}

// ---- recent --------------------------------------------------------------------------------

// Opens segment `seq` and runs fn on it. SPIFFS read errors are mostly
// transient: an open or a read that fails is tried once more (what the first
// try added is added again at most once, by id). A segment that still cannot
// be opened is named in the stats (the answer is partial, and says so); a read
// that fails again is ArchiveError("io"), never an answer that looks whole.
function withSegment(s: ArchiveStream, seq: number, st: RecallStats, fn: (f: File) => void): void {
  for (let attempt = 0; ; attempt++) {
    let f: File;
    try {
      f = s.openRead(seq);
    } catch (e) {
      rethrowFatal(e);
      if (attempt === 0) continue;
      st.unreadable.push(s.path(seq)); // kept; the answer says it is partial
      return;
    }
    if (attempt === 0) st.segments++;
    try {
      fn(f);
      return;
    } catch (e) {
      rethrowFatal(e);
      if (attempt > 0) throw e instanceof ArchiveError ? e : new ArchiveError("io", `archive: ${STREAM_CHAR[s.stream]}${seq} cannot be read now (${messageOf(e)})`);
    } finally {
      f.close();
    }
  }
}

export function recent(st0: ArchiveStream, limit: number, q: Query, st: RecallStats): ArchivedItem[] {
  const out: ArchivedItem[] = [];
  const seen = new Set<string>();
  const recs: Rec[] = [];
  for (const seq of st0.newestFirst()) {
    if (out.length >= limit) break;
    withSegment(st0, seq, st, (f) => {
      const end = st0.open && st0.open.seq === seq ? st0.open.validEnd : validEndOf(f, f.length, st0.bufs.chunk);
      scanBackward(f, end, st0.bufs.chunk, (buf, s, e) => {
        if (tOf(buf, s, e) < 0 || !takeAll(buf, s, e, false, st0.stream, q, st, recs)) return;
        // a line's records newest first (a packed line's are in time order)
        for (let i = recs.length - 1; i >= 0 && out.length < limit; i--) {
          const it = recs[i].it;
          if (seen.has(it.id)) continue;
          seen.add(it.id);
          out.push(it);
        }
        return out.length < limit;
      });
    });
  }
  return out;
}

// ---- range and keyword -----------------------------------------------------------------------

// One query of a lookup of several (the words of one question): each keeps its
// own best `limit`; the reads are shared (a summary, a sidecar, a block is
// read once for all of them). Their `hidden` and `budget` are the first's.
interface Want {
  q: Query;
  top: TopK;
  probe?: Uint16Array; // a block signature's bits
  sp?: Uint16Array; // a summary's bits
  pos?: Uint16Array; // the bit positions sp reads (sliced groups)
}

const cutOf = (q: Query) => !!q.budget && q.budget.cut;
// a want that holds `limit` hits all newer than `max`: nothing older can enter
const done = (w: Want, max: number) => w.top.full && max < w.top.oldest;

// Range and keyword recall over one stream, into `top`.
export function search(s: ArchiveStream, q: Query, top: TopK, st: RecallStats): void {
  searchMany(s, [q], [top], st);
}

// Several keyword (or range) queries over one stream in one pass, each into its top.
export function searchMany(s: ArchiveStream, qs: readonly Query[], tops: readonly TopK[], st: RecallStats): void {
  if (!qs.length) return;
  const ws: Want[] = qs.map((q, i) => {
    const w: Want = { q, top: tops[i] };
    if (q.folded) {
      w.probe = probeOf([q.folded]);
      w.sp = probeOf([q.folded], SUMMARY_MASK);
      w.pos = probePositions(w.sp);
    }
    return w;
  });
  const q0 = qs[0];
  const inRange = (w: Want, min: number, max: number) => max >= w.q.lo && min <= w.q.hi;
  const unknown: number[] = [];
  const summarized: CatEntry[] = [];
  for (const seq of s.newestFirst()) {
    const e = s.cat.entries.get(seq);
    const open = s.open && s.open.seq === seq;
    if (!open && e && e.bytes === s.segs.get(seq)) {
      if (e.records && ws.some((w) => inRange(w, e.min, e.max))) summarized.push(e);
    } else unknown.push(seq);
  }
  // segments the catalog does not know yet (the open one, unsealed ones) first: they are the newest
  for (const seq of unknown) if (!cutOf(q0)) segment(s, seq, ws, st);
  if (cutOf(q0) || !summarized.length) return;
  if (ws.every((w) => summarized.every((e) => done(w, e.max)))) return;
  // per sealed segment: the wants (bit i) its summary may hold
  const masks = new Map<number, number>();
  const mark = (seq: number, bits: number) => masks.set(seq, (masks.get(seq) ?? 0) | bits);
  let probed = 0;
  ws.forEach((w, i) => {
    if (w.sp) probed |= 1 << i;
    else for (const e of summarized) if (inRange(w, e.min, e.max)) mark(e.seq, 1 << i);
  });
  if (probed) {
    let bySlot = summarized.slice().sort((a, b) => a.slot - b.slot);
    // sliced groups first: a byte per bit position and group
    const sliced = s.cat.sliced * GROUP;
    if (sliced && bySlot.length && bySlot[0].slot < sliced) {
      let f: File | undefined;
      try {
        f = new File(s.cat.bslPath);
      } catch (e) {
        rethrowFatal(e);
      }
      const rest: CatEntry[] = [];
      let g = -1;
      let gm: number[] = []; // per want: the group's mask (-1: unreadable, its summary decides)
      for (const e of bySlot) {
        if (!f || e.slot >= sliced) {
          rest.push(e);
          continue;
        }
        const eg = Math.floor(e.slot / GROUP);
        if (eg !== g) {
          g = eg;
          gm = ws.map((w) => (w.pos ? (afford(q0, w.pos.length) ? s.cat.sliceCandidates(f as File, g, w.sp as Uint16Array, w.pos, s.bufs.side) : 0) : 0));
          st.groups++;
        }
        let unread = false;
        ws.forEach((w, i) => {
          if (!w.pos || !inRange(w, e.min, e.max)) return;
          if (gm[i] < 0) unread = true;
          else if ((gm[i] >> (e.set ? 8 : 0)) & (1 << (e.slot % GROUP))) mark(e.seq, 1 << i);
        });
        if (unread) rest.push(e);
      }
      f?.close();
      bySlot = rest;
    }
    // summaries after the last complete group: 2 KB each (those below
    // `.sum`'s base, of a group that cannot be used, are not there: their
    // sidecars are read instead, each within the budget)
    const inSum = bySlot.length && bySlot[0].slot < s.cat.base() ? bySlot.filter((e) => e.slot >= s.cat.base()).length : bySlot.length;
    if (!afford(q0, SUMMARY_BYTES * inSum)) bySlot = [];
    const failed = s.cat.summaries(
      bySlot,
      s.bufs.side,
      (e, buf, off) => {
        st.summaries++;
        ws.forEach((w, i) => {
          if (w.sp && inRange(w, e.min, e.max) && sigHas(buf, off, w.sp, e.set)) mark(e.seq, 1 << i);
        });
      },
      // a damaged summary: the segment is no longer taken as summarized, so a step seals it again
      (e) => s.cat.entries.delete(e.seq),
    );
    for (const e of failed) mark(e.seq, probed); // read its sidecar instead
  }
  const cands = summarized.filter((e) => masks.get(e.seq));
  cands.sort((a, b) => b.max - a.max || b.seq - a.seq);
  for (const c of cands) {
    if (cutOf(q0)) break;
    if (ws.every((w) => done(w, c.max))) break;
    const m = masks.get(c.seq) as number;
    const active = ws.filter((w, i) => m & (1 << i) && !done(w, c.max));
    if (active.length) segment(s, c.seq, active, st);
  }
}

// A segment's sidecar as a read uses it: its valid blocks in order, a damaged
// record's valid successors too (only the damaged record's block is scanned).
// A sealed segment's sidecar that fails a check is queued for a step to index
// it again.
function sideFor(s: ArchiveStream, seq: number, length: number, sealed: boolean): { side: Side; blocks: BlockInfo[] } {
  const side = readSide(s.path(seq, "six"), s.stream, seq, length, s.bufs.side);
  if (side.why && sealed) {
    if (!s.reindex) s.reindex = [];
    if (s.reindex.indexOf(seq) < 0) s.reindex.push(seq);
  }
  return { side, blocks: side.after ? side.blocks.concat(side.after) : side.blocks };
}

// Whether block i of sideFor's blocks may hold every bit of `probe`.
function blockMay(side: Side, i: number, probe: Uint16Array): boolean {
  const k = side.blocks.length;
  return i < k ? sigHas(side.sigs, i * SIG_BYTES, probe, side.blocks[i].set) : sigHas(side.afterSigs as Uint8Array, (i - k) * SIG_BYTES, probe, (side.after as BlockInfo[])[i - k].set);
}

// One segment: its sidecar's blocks that may match, then its unindexed rest.
function segment(s: ArchiveStream, seq: number, ws: Want[], st: RecallStats): void {
  withSegment(s, seq, st, (f) => segmentIn(s, f, seq, ws, st));
}

function segmentIn(s: ArchiveStream, f: File, seq: number, ws: Want[], st: RecallStats): void {
  const q0 = ws[0].q;
  const open = s.open && s.open.seq === seq ? s.open : undefined;
  const end = open ? open.validEnd : endOf(s, f, seq, q0);
  if (end < 0 || !afford(q0, sideCost(end))) return;
  const { side, blocks } = sideFor(s, seq, end, !open);
  const recs: Rec[] = [];
  // newest blocks first
  const order: number[] = [];
  for (let i = blocks.length - 1; i >= 0; i--) order.push(i);
  order.sort((a, b) => blocks[b].max - blocks[a].max || b - a);
  for (const i of order) {
    const b = blocks[i];
    if (ws.every((w) => done(w, b.max))) break;
    if (!b.records) continue;
    const want = ws.filter((w) => b.max >= w.q.lo && b.min <= w.q.hi && !done(w, b.max) && (!w.probe || blockMay(side, i, w.probe)));
    if (!want.length) continue;
    if (!afford(q0, b.length)) return;
    block(s, f, seq, b, want, st, recs);
  }
  // the rest: lines after the indexed blocks (the open segment's tail), and
  // the block of a damaged sidecar record
  const last = blocks[blocks.length - 1];
  for (let r = side.after ? 0 : 1; r < 2; r++) {
    const from = side.after ? (r === 0 ? side.indexedEnd : last.offset + last.length) : side.indexedEnd;
    const to = side.after && r === 0 ? side.after[0].offset : end;
    if (from < to && afford(q0, to - from))
      scanRange(f, from, to, s.bufs.chunk, (buf, ls, le, size, pos) => {
        if (size === le - ls) return;
        const t = tOf(buf, ls, le);
        if (t < 0) return;
        offer(buf, ls, le, false, t, s.stream, ws, seq, pos, st, recs);
      });
  }
}

// A line's records to each want whose range holds their time and whose
// keyword they hold (parsed once). `t` is the line's first time: a packed
// fact line's others are not before it (FORMAT.md §3.19).
function offer(buf: Uint8Array, ls: number, le: number, trusted: boolean, t: number, stream: Stream, ws: Want[], seq: number, pos: number, st: RecallStats, recs: Rec[]): void {
  let parsed = false;
  for (const w of ws) {
    if (!lineMayHold(buf, ls, le, stream, t, w.q.lo, w.q.hi)) continue;
    if (!parsed) {
      parsed = true;
      // takeAll, inline: this is the deepest call chain on the device's stack (npm run heap)
      if (!checked(buf, ls, le, trusted, st) || !parseRecords(buf, ls, le, stream, recs)) return;
    }
    for (let i = 0; i < recs.length; i++) {
      const r = recs[i];
      if (matches(r.it, w.q, r.t) && !w.q.hidden(STREAM_CODE[r.it.digest ? (r.it.type as Stream) : stream], r.it.id)) w.top.add({ it: r.it, t: r.t, seq, pos: pos + i });
    }
  }
}

function block(s: ArchiveStream, f: File, seq: number, b: BlockInfo, ws: Want[], st: RecallStats, recs: Rec[]): void {
  const buf = s.bufs.chunk;
  const n = readInto(f, b.offset, b.length, buf);
  st.blocksRead++;
  // a block whose CRC holds as read is trusted whole; one repaired from its CRC
  // is not (three flips can pass for one): its lines are each checked too
  const trusted = n === b.length && crc32(buf, 0, n) === b.crc;
  if (!trusted && n === b.length && repairBit(buf, 0, n, b.crc) >= 0) st.repaired++;
  for (let ls = 0; ls < n; ) {
    const i = buf.indexOf(NL, ls);
    if (i < 0) break;
    offer(buf, ls, i, trusted, tOf(buf, ls, i), s.stream, ws, seq, b.offset + ls, st, recs);
    ls = i + 1;
  }
}

// ---- digests -----------------------------------------------------------------------------

// Digests of moments or events (the digest stream is small: read whole) that
// match a keyword, or whose span overlaps the range.
export function digests(d: ArchiveStream, events: boolean, q: Query, top: TopK, st: RecallStats): void {
  digestsMany(d, events, [q], [top], st);
}

export function digestsMany(d: ArchiveStream, events: boolean, qs: readonly Query[], tops: readonly TopK[], st: RecallStats): void {
  if (!qs.length) return;
  for (const seq of d.newestFirst()) {
    const len = d.segs.get(seq) ?? SEGMENT_MAX;
    // the segment whole, and the search for its last line's end (unless open)
    if (!afford(qs[0], len + (d.open && d.open.seq === seq ? 0 : Math.min(len, CHUNK)))) break;
    withSegment(d, seq, st, (f) => digestsIn(d, f, seq, events, qs, tops, st));
  }
}

function digestsIn(d: ArchiveStream, f: File, seq: number, events: boolean, qs: readonly Query[], tops: readonly TopK[], st: RecallStats): void {
  const end = d.open && d.open.seq === seq ? d.open.validEnd : validEndOf(f, f.length, d.bufs.chunk);
  scanRange(f, 0, end, d.bufs.chunk, (buf, ls, le, size, pos) => {
    if (size === le - ls || tOf(buf, ls, le) < 0) return;
    const it = take(buf, ls, le, false, "digest", qs[0], st);
    if (!it || (it.type === "event") !== events) return;
    const t = lineT(buf, ls, le);
    // `until` is the line's "u" as local time (formatIso): parseLocal gives it back exactly
    const until = it.until ? Math.floor((parseLocal(it.until) ?? t * 1000) / 1000) : t;
    qs.forEach((q, i) => {
      if (until < q.lo || t > q.hi) return;
      if (q.folded) {
        let hit = false;
        for (const x of textsOf(it)) if (containsFolded(x, q.folded)) hit = true;
        if (!hit) return;
      }
      tops[i].add({ it, t, seq, pos });
    });
  });
}

// ---- the query language's CONTAINS, LIKE and = on content (src/query/run.ts) -----------------
//
// Archive.scan with words: every record a full scan would give whose texts
// may hold every word comes, in the same order (newest segment first, each
// segment from its end back); the others may be left out. Only what provably
// holds none is skipped: a sealed segment whose summary (CRC-checked: the
// bytes of a bit-sliced group `.bsc` with their records' CRCs, else the 2 KB
// summary in `.sum`; summaryFilter) lacks a word's bits, a block whose sidecar signature
// (CRC-checked) lacks them. What cannot be checked is read: a missing,
// damaged or stale summary, a sidecar record that fails its CRC (its block),
// the bytes no valid record covers. docs/design/query-scan.md.

// The bits a block signature (or, with SUMMARY_MASK, a summary) holds for every
// text holding all `words` (folded; fold.ts probeOf); empty when no word has
// an element: nothing can be skipped.
export function wordsProbe(words: readonly Uint8Array[], mask?: number): Uint16Array {
  return mask === undefined ? probeOf(words) : probeOf(words, mask);
}

// Whether a sealed segment's summary may hold `sp`, asked segment by segment
// as a scan reaches them (a scan that stops early reads no more). A slot in a
// sliced group is decided by the group's records (read once a scan, a byte
// per bit position, each record's CRC checked); any other slot, or one of a
// group whose records fail, by its 2 KB summary in `.sum`, or, below `.sum`'s
// base (docs/design/summaries.md), by its segment's sidecar (maybe: true). A summary that
// cannot be read or fails its CRC may hold anything (a summary read whole
// that fails takes its segment out of the catalog in RAM, as recall does, so
// that a step seals it again).
export function summaryFilter(s: ArchiveStream, sp: Uint16Array): (e: CatEntry) => boolean {
  const pos = probePositions(sp);
  const groups = new Map<number, number>(); // group → mask of its slots (-1: use the summaries)
  const group = (g: number): number => {
    let m = groups.get(g);
    if (m !== undefined) return m;
    m = -1;
    let f: File | undefined;
    try {
      f = new File(s.cat.bslPath);
      m = s.cat.sliceCandidatesChecked(f, g, sp, pos, s.bufs.side);
    } catch (e) {
      rethrowFatal(e);
    } finally {
      f?.close();
    }
    groups.set(g, m);
    return m;
  };
  return (e) => {
    if (e.slot < s.cat.sliced * GROUP) {
      const m = group(Math.floor(e.slot / GROUP));
      if (m >= 0) return !!((m >> (e.set ? 8 : 0)) & (1 << e.slot % GROUP));
    }
    let maybe = false;
    const failed = s.cat.summaries(
      [e],
      s.bufs.side,
      (_e, buf, off) => {
        if (sigHas(buf, off, sp, e.set)) maybe = true;
      },
      (x) => s.cat.entries.delete(x.seq),
    );
    return maybe || failed.length > 0;
  };
}

// One segment's lines, from its end back, as scanBackward gives them over
// [0, end) (end: its last whole line, as Archive.scan takes it), but for the
// blocks of its sidecar whose signature lacks `probe` (or whose records' times
// miss [lo, hi], or that hold no record): those are not read. Lines without
// their "\n" inside a block (a damaged run) are not given: none is a record.
// Returns false when `on` stopped it. `probe` undefined: the sidecar is not
// read, every line is given. `ruled.blocks` counts the blocks its signatures ruled out.
export function scanWords(s: ArchiveStream, f: File, seq: number, probe: Uint16Array | undefined, lo: number, hi: number, on: OnSegment, ruled: { blocks: number }): boolean {
  const open = s.open && s.open.seq === seq ? s.open : undefined;
  const length = open ? open.validEnd : f.length;
  // every line, from the end: the bytes after the last "\n" (a torn append) are none
  if (!probe) return scanBackward(f, length, s.bufs.chunk, (b, ls, le, pos, size) => (size === le - ls && pos + size === length ? undefined : on(b, ls, le, pos, size)));
  const { side, blocks } = sideFor(s, seq, length, !open);
  const covered = blocks.length ? blocks[blocks.length - 1].offset + blocks[blocks.length - 1].length : 0;
  // the end of the last whole line: the open segment's is known; a sidecar that
  // covers the whole file gives it too (a torn tail there is no "\n"-ended line)
  const end = open ? open.validEnd : blocks.length && covered === length ? length : segmentEnd(s, f, seq);
  // pieces of [0, end) in order: [from, to, block index or -1 (scan it)]
  const pieces: number[] = [];
  let at = 0;
  for (let i = 0; i < blocks.length && at < end; i++) {
    const b = blocks[i];
    if (b.offset > at) pieces.push(at, Math.min(b.offset, end), -1);
    if (b.offset >= end) {
      at = end;
      break;
    }
    if (b.offset + b.length <= end) pieces.push(b.offset, b.offset + b.length, i);
    else pieces.push(b.offset, end, -1);
    at = Math.min(end, b.offset + b.length);
  }
  if (at < end) pieces.push(at, end, -1);
  const buf = s.bufs.chunk;
  for (let p = pieces.length - 3; p >= 0; p -= 3) {
    const from = pieces[p], to = pieces[p + 1], i = pieces[p + 2];
    if (i < 0) {
      if (!scanBackward(f, to, buf, on, from)) return false;
      continue;
    }
    const b = blocks[i];
    if (!b.records || b.max < lo || b.min > hi) continue;
    if (!blockMay(side, i, probe)) {
      ruled.blocks++;
      continue;
    }
    const n = readInto(f, from, to - from, buf);
    if (n !== to - from) throw new ArchiveError("io", `archive: ${STREAM_CHAR[s.stream]}${seq} short read`);
    // its "\n"-ended lines, last first
    let le = n - 1;
    while (le >= 0 && buf[le] !== NL) le--;
    while (le >= 0) {
      const j = le > 0 ? buf.lastIndexOf(NL, le - 1) : -1;
      const ls = j + 1;
      if (on(buf, ls, le, from + ls, le + 1 - ls) === false) return false;
      le = j;
    }
  }
  return true;
}

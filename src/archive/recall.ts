// Recall over one archive file: newest first, bounded memory (one 4 KB chunk
// plus the results), and as little flash read as the index allows.
//
// - recent: reads backwards from the end of the file and stops at `limit`.
// - time range: the index's min/max keys pick the blocks that can match;
//   lines are tested on their timestamp prefix before any parsing.
// - keyword: block signatures pick the blocks that can match; each line's
//   raw bytes are tested before it is parsed.
// Blocks are read newest (highest max key) first; once `limit` results are
// held and no remaining block can beat the oldest of them, reading stops.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { CHUNK, scanForward, scanBackward, readInto } from "./file";
import { foldBytes, findBytes, containsFolded, sigProbe, sigHas, SIG_BYTES } from "./fold";
import { lineKey, isoKey, parseLine, lineIdOk, idAt, idEquals, MAX_LINE_BYTES, NL, type ArchivedItem, type ArchiveType, type Encoded } from "./line";
import { Sidecar, SIG_HEADER, ENTRY_BYTES, type BlockInfo } from "./sidecar";

export interface Target {
  type: ArchiveType;
  path: string;
  side: Sidecar;
  validEnd: number;
}

export interface RecallStats {
  linesTested: number; // lines looked at
  linesParsed: number; // lines given to JSON.parse
  blocksRead: number; // indexed blocks read
  candidates: number; // indexed blocks that could match
  bad: number; // lines that looked like records and did not parse
  damaged: number; // lines whose id no longer matches their fields: damaged at rest, not served
  damagedBlocks: number; // indexed blocks whose CRC failed: their records are served marked `damaged`
  damagedSigs: number; // signatures that failed their check: the block was read anyway
}

export const blankStats = (): RecallStats => ({ linesTested: 0, linesParsed: 0, blocksRead: 0, candidates: 0, bad: 0, damaged: 0, damagedBlocks: 0, damagedSigs: 0 });

// A line callback that can ask whether the line's block fails its CRC
// (undefined: the line is in the unindexed tail, which has no CRC).
type Damaged = (() => boolean) | undefined;
type OnLine = (buf: Uint8Array, s: number, e: number, pos: number, damaged: Damaged) => boolean | void;

// Reads the indexed block at [off, off + len) whole (len <= CHUNK) and passes
// its lines on, in file order or backwards, with a check of the block against
// its CRC, made once, the first time a line to be returned asks (most blocks a
// keyword query reads return nothing). Returns false if stopped.
export function readBlock(f: File, off: number, len: number, crc: number, buf: Uint8Array, st: RecallStats, on: OnLine, backward = false): boolean {
  const n = readInto(f, off, len, buf);
  let state = -1;
  const damaged = (): boolean => {
    if (state < 0) {
      state = n !== len || crc32(buf, 0, n) !== crc ? 1 : 0;
      if (state) st.damagedBlocks++;
    }
    return state === 1;
  };
  if (!backward) {
    for (let s = 0; s < n; ) {
      let i = buf.indexOf(NL, s);
      if (i < 0 || i >= n) i = n;
      if (on(buf, s, i, off + s, damaged) === false) return false;
      s = i + 1;
    }
    return true;
  }
  let end = n > 0 && buf[n - 1] === NL ? n - 1 : n; // end of the current line, before its "\n"
  while (end >= 0 && n > 0) {
    const j = end > 0 ? buf.lastIndexOf(NL, end - 1) : -1;
    if (on(buf, j + 1, end, off + j + 1, damaged) === false) return false;
    if (j < 0) break;
    end = j;
  }
  return true;
}

// Scratch memory of one Archive, reused by every query.
export class Buffers {
  readonly chunk = new Uint8Array(CHUNK);
  readonly fold = new Uint8Array(MAX_LINE_BYTES * 8);
  readonly sigs = new Uint8Array(CHUNK);
}

// The best `limit` records by (key, file position), newest first; one per id
// (a record has one timestamp, so a second copy has an equal key).
export class TopK {
  readonly items: ArchivedItem[] = [];
  private keys: number[] = [];
  private pos: number[] = [];

  constructor(readonly limit: number) {}

  get n(): number {
    return this.items.length;
  }

  get full(): boolean {
    return this.items.length >= this.limit;
  }

  get worstKey(): number {
    const n = this.keys.length;
    return n ? this.keys[n - 1] : -1;
  }

  accepts(key: number, pos: number): boolean {
    const w = this.keys.length - 1;
    if (w + 1 < this.limit) return true;
    return key > this.keys[w] || (key === this.keys[w] && pos > this.pos[w]);
  }

  add(item: ArchivedItem, key: number, pos: number): void {
    if (!this.accepts(key, pos)) return;
    // first index whose (key, pos) is below the new one
    let lo = 0, hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const k = this.keys[mid];
      if (k > key || (k === key && this.pos[mid] > pos)) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo - 1; i >= 0 && this.keys[i] === key; i--) if (this.items[i].id === item.id) return;
    for (let i = lo; i < this.keys.length && this.keys[i] === key; i++) if (this.items[i].id === item.id) return;
    this.keys.splice(lo, 0, key);
    this.pos.splice(lo, 0, pos);
    this.items.splice(lo, 0, item);
    if (this.items.length > this.limit) {
      this.keys.pop();
      this.pos.pop();
      this.items.pop();
    }
  }

  result(): ArchivedItem[] {
    return this.items.slice();
  }
}

type LineTest = (buf: Uint8Array, s: number, e: number, key: number) => boolean;
type ItemTest = (item: ArchivedItem) => boolean;

// The record of a line (its id not yet checked), or undefined (counted as bad).
function parseCounted(t: Target, st: RecallStats, buf: Uint8Array, s: number, e: number): ArchivedItem | undefined {
  st.linesParsed++;
  const item = parseLine(buf, s, e, t.type, false);
  if (!item) st.bad++;
  return item;
}

// Checks a record about to be returned. In an indexed block that passes its
// CRC every line is whole; in the unindexed tail (no CRC) or a block that
// fails it, a line whose id no longer matches is counted as damaged and
// dropped, and the other records of a failing block are marked `damaged`.
function whole(t: Target, st: RecallStats, item: ArchivedItem, buf: Uint8Array, s: number, e: number, damaged: Damaged): boolean {
  const blockBad = damaged !== undefined && damaged();
  if (damaged !== undefined && !blockBad) return true;
  if (!lineIdOk(item, t.type, buf, s, e)) {
    st.damaged++;
    return false;
  }
  if (blockBad) item.damaged = true;
  return true;
}

// Offers one line to the results.
function offer(t: Target, top: TopK, st: RecallStats, buf: Uint8Array, s: number, e: number, pos: number, lineTest: LineTest, itemTest: ItemTest, damaged: Damaged): void {
  st.linesTested++;
  const key = lineKey(buf, s, e);
  if (key < 0) {
    st.bad++;
    return;
  }
  if (!top.accepts(key, pos) || !lineTest(buf, s, e, key)) return;
  const item = parseCounted(t, st, buf, s, e);
  if (item && itemTest(item) && whole(t, st, item, buf, s, e, damaged)) top.add(item, key, pos);
}

// Runs a query: the tail first, then the blocks the index allows, newest
// first. `later` is a second test of a block, made only when the block's turn
// comes (a signature, read on demand).
function run(
  t: Target,
  bufs: Buffers,
  st: RecallStats,
  top: TopK,
  candidate: (e: BlockInfo) => boolean,
  lineTest: LineTest,
  itemTest: ItemTest,
  later?: (i: number, sck: number) => boolean,
): ArchivedItem[] {
  if (t.validEnd === 0) return [];
  const f = new File(t.path);
  try {
    const buf = bufs.chunk;
    const on = (b: Uint8Array, s: number, e: number, pos: number, damaged: Damaged) => offer(t, top, st, b, s, e, pos, lineTest, itemTest, damaged);
    // candidates from the index: entry, offset, length, max key, CRC, signature check
    const n = t.side.entries;
    const ix = new Uint32Array(n), off = new Uint32Array(n), len = new Uint16Array(n), max = new Uint32Array(n), crc = new Uint32Array(n), sck = new Uint16Array(n);
    let c = 0;
    t.side.forEach(buf, (i, e) => {
      if (e.records > 0 && candidate(e)) {
        ix[c] = i;
        off[c] = e.offset;
        len[c] = e.length;
        max[c] = e.max;
        crc[c] = e.crc;
        sck[c] = e.sck;
        c++;
      }
    });
    scanForward(f, t.side.indexedEnd, t.validEnd, buf, (b, s, e, pos) => on(b, s, e, pos, undefined));
    // newest first: a file in time order just reads backwards
    const order = new Uint32Array(c);
    let sorted = true;
    for (let i = 0; i < c; i++) {
      order[i] = c - 1 - i;
      if (i > 0 && max[i] < max[i - 1]) sorted = false;
    }
    if (!sorted) order.sort((a, b) => max[b] - max[a] || off[b] - off[a]);
    for (let k = 0; k < c; k++) {
      const i = order[k];
      if (top.full && max[i] < top.worstKey) break;
      if (later && !later(ix[i], sck[i])) continue;
      st.candidates++;
      st.blocksRead++;
      readBlock(f, off[i], len[i], crc[i], buf, st, on);
    }
  } finally {
    f.close();
  }
  return top.result();
}

// The signatures of one file, read a chunk at a time on demand; a chunk ends
// at the entry asked for, since blocks are mostly asked for newest first.
class SigReader {
  private first = 0;
  private count = 0;
  private f: File | undefined;

  constructor(
    readonly side: Sidecar,
    readonly buf: Uint8Array,
  ) {}

  // the offset of entry i's signature in buf
  at(i: number): number {
    if (i < this.first || i >= this.first + this.count) {
      const per = Math.floor(this.buf.length / SIG_BYTES);
      this.first = Math.max(0, i - per + 1);
      this.count = Math.min(per, this.side.entries - this.first);
      this.f ??= new File(this.side.sigPath);
      readInto(this.f, SIG_HEADER + this.first * SIG_BYTES, this.count * SIG_BYTES, this.buf);
    }
    return (i - this.first) * SIG_BYTES;
  }

  close(): void {
    this.f?.close();
    this.f = undefined;
  }
}

export function recallRange(t: Target, bufs: Buffers, st: RecallStats, startKey: number, endKey: number, limit: number): ArchivedItem[] {
  const top = new TopK(limit);
  return run(
    t,
    bufs,
    st,
    top,
    (e) => e.max >= startKey && e.min <= endKey,
    (_b, _s, _e, key) => key >= startKey && key <= endKey,
    () => true,
  );
}

export function recallKeyword(t: Target, bufs: Buffers, st: RecallStats, folded: Uint8Array, limit: number): ArchivedItem[] {
  const top = new TopK(limit);
  // JSON escapes '"', '\' and control characters: such a keyword cannot be
  // looked for in the raw line, only in the parsed fields.
  let raw = true;
  for (let i = 0; i < folded.length; i++) if (folded[i] === 34 || folded[i] === 92 || folded[i] < 0x20) raw = false;
  // a keyword with no ASCII and no Latin-1 letter is its own only folded
  // form: the raw line can be searched without folding it
  let exact = true;
  for (let i = 0; i < folded.length; i++) if (folded[i] < 0x80 || folded[i] === 0xc3) exact = false;
  const probe = sigProbe(folded);
  const sigs = probe.length ? new SigReader(t.side, bufs.sigs) : undefined;
  const scratch = bufs.fold;
  try {
    return run(
      t,
      bufs,
      st,
      top,
      () => true,
      (b, s, e) => {
        if (!raw) return true;
        const at = idAt(b, s, e);
        const from = at < 0 ? s : at + 9;
        if (exact) return findBytes(b, from, e, folded) >= 0;
        const n = foldBytes(b, from, e, scratch);
        return findBytes(scratch, 0, n, folded) >= 0;
      },
      (item) => containsFolded(item.content, folded) || (typeof item.topic === "string" && containsFolded(item.topic, folded)),
      sigs &&
        ((i, sck) => {
          const at = sigs.at(i);
          // only a signature that rules its block out could hide a record
          if (sigHas(bufs.sigs, at, probe)) return true;
          if (t.side.sigTrusted(i, bufs.sigs, at, sck)) return false;
          st.damagedSigs++; // damaged: read the block
          return true;
        }),
    );
  } finally {
    sigs?.close();
  }
}

// The last `limit` records of the file, read backwards; newest first: the
// unindexed tail, then the indexed blocks from the last, each checked against
// its CRC.
export function recallRecent(t: Target, bufs: Buffers, st: RecallStats, limit: number): ArchivedItem[] {
  if (t.validEnd === 0) return [];
  const top = new TopK(limit);
  const f = new File(t.path);
  let found = 0;
  const take = (b: Uint8Array, s: number, e: number, pos: number, damaged: Damaged): boolean => {
    st.linesTested++;
    const key = lineKey(b, s, e);
    if (key < 0) {
      st.bad++;
      return true;
    }
    const item = parseCounted(t, st, b, s, e);
    if (!item || !whole(t, st, item, b, s, e, damaged)) return true;
    const before = top.n;
    // ranked by file position: the last archived win
    top.add(item, pos, pos);
    if (top.n > before) found++;
    return found < limit;
  };
  try {
    let go = scanBackward(f, t.validEnd, bufs.chunk, (b, s, e, pos) => take(b, s, e, pos, undefined), t.side.indexedEnd);
    // the index, a chunk of entries at a time, from the last entry down: a
    // few first (a recent query rarely needs more), then more each time
    const most = Math.floor(bufs.sigs.length / ENTRY_BYTES);
    const off = new Uint32Array(most), len = new Uint16Array(most), crc = new Uint32Array(most);
    let per = 4;
    for (let hi = t.side.entries; go && hi > 0; per = Math.min(most, per * 4)) {
      const lo = Math.max(0, hi - per);
      let c = 0;
      t.side.forEach(bufs.sigs, (_i, e) => {
        off[c] = e.offset;
        len[c] = e.length;
        crc[c] = e.crc;
        c++;
      }, lo, hi);
      for (let k = c - 1; go && k >= 0; k--) {
        st.blocksRead++;
        go = readBlock(f, off[k], len[k], crc[k], bufs.chunk, st, take, true);
      }
      hi = lo;
    }
  } finally {
    f.close();
  }
  // then shown newest first by timestamp
  const items = top.result();
  const keys = items.map((it) => isoKey(it.timestamp));
  const order = items.map((_it, i) => i);
  order.sort((a, b) => keys[b] - keys[a] || a - b);
  return order.map((i) => items[i]);
}

// Which of `probes` the file already holds (same id and same stored fields).
// Only blocks whose time span is near a probe's timestamp are read: a record's
// line carries the record's own timestamp, give or take a change of UTC offset.
export const OFFSET_SLACK = 26 * 3600;
export function findRecords(t: Target, bufs: Buffers, st: RecallStats, probes: readonly Encoded[]): boolean[] {
  const found = probes.map(() => false);
  if (!probes.length || t.validEnd === 0) return found;
  let left = probes.length;
  const on = (b: Uint8Array, s: number, e: number) => {
    st.linesTested++;
    const at = idAt(b, s, e);
    if (at < 0) return true;
    for (let p = 0; p < probes.length; p++) {
      if (found[p] || !idEquals(b, at, probes[p].id)) continue;
      st.linesParsed++;
      const item = parseLine(b, s, e, t.type);
      const q = probes[p];
      if (item && item.content === q.content && (t.type !== "moment" || item.topic === q.topic) && (t.type !== "event" || (item.date === q.date && item.time === q.time))) {
        found[p] = true;
        left--;
      }
    }
    return left > 0;
  };
  const f = new File(t.path);
  try {
    if (!scanForward(f, t.side.indexedEnd, t.validEnd, bufs.chunk, on)) return found;
    const n = t.side.entries;
    const off = new Uint32Array(n), len = new Uint16Array(n);
    let c = 0;
    t.side.forEach(bufs.chunk, (_i, e) => {
      if (!e.records) return;
      for (const q of probes) {
        if (q.key + OFFSET_SLACK >= e.min && q.key - OFFSET_SLACK <= e.max) {
          off[c] = e.offset;
          len[c] = e.length;
          c++;
          return;
        }
      }
    });
    st.candidates += c;
    for (let i = c - 1; i >= 0 && left > 0; i--) {
      st.blocksRead++;
      if (!scanForward(f, off[i], off[i] + len[i], bufs.chunk, on)) break;
    }
  } finally {
    f.close();
  }
  return found;
}

// Every record of the file in file order (tests, tools, compaction checks).
export function forEachRecord(t: Target, bufs: Buffers, fn: (item: ArchivedItem, pos: number) => void): number {
  if (t.validEnd === 0) return 0;
  let bad = 0;
  const f = new File(t.path);
  try {
    scanForward(f, 0, t.validEnd, bufs.chunk, (b, s, e, pos) => {
      const item = parseLine(b, s, e, t.type);
      if (item) fn(item, pos);
      else bad++;
    });
  } finally {
    f.close();
  }
  return bad;
}

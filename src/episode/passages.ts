// Episode texts as an archive stream of their own (`p`, "passages";
// docs/FORMAT.md §4.3, docs/design/lean-episodes.md): one text is one or more
// compact-coded lines appended to the stream's open segment and its twin, in
// segments sealed, indexed and protected by XOR parity in groups of 16 as the
// archive's facts are (src/archive/stream.ts). An episode's header (version
// 2) points to its text: the segment's number, the offset and length of its
// lines, and the CRC-32 of those bytes. The stream is the episode store's: it
// loads it at open() and runs its upkeep in step(); the Archive never sees it.

import { File, Iterator } from "file";
import { crc32 } from "../nvs/crc32";
import { ArchiveStream, Buffers } from "../archive/stream";
import { encodePassage, parsePassage, lineOk, lineT, NL, MAX_LINE } from "../archive/codec";
import { scanRange } from "../archive/file";
import { repairLine } from "../archive/repair";
import { readSide, type BlockInfo } from "../archive/segment";
import { probeOf, sigHas, SIG_BYTES } from "../archive/fold";

// A file of the passages' stream, by its name in the root: p<6 digits>.<ext>,
// p.cat, p.sum, p.bsl. (No RegExp made at load: XS in SDK 8.2.3 breaks one run
// from flash, test/manifest.test.ts.)
export function isPassageFile(name: string): boolean {
  if (name === "p.cat" || name === "p.sum" || name === "p.bsl") return true;
  if (name.length < 11 || name.charCodeAt(0) !== 112 || name.charCodeAt(7) !== 46) return false;
  for (let i = 1; i < 7; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  const ext = name.length - 8;
  if (ext < 3 || ext > 5) return false;
  for (let i = 8; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

export interface TextRef {
  seq: number; // the segment
  at: number; // offset of the first line
  len: number; // bytes of its lines, each with its "\n"
  crc: number; // CRC-32 of those bytes
}

// The bytes of a text's lines and their CRC-32 (a version-2 header's textCrc).
export function measure(lines: Uint8Array[]): { len: number; crc: number } {
  let len = 0, crc = 0;
  for (const l of lines) {
    crc = crc32(l, 0, l.length, crc);
    len += l.length;
  }
  return { len, crc };
}

export interface TextOut {
  content: string;
  keywords: string[];
}

function fatal(e: unknown): boolean {
  return e instanceof Error && e.name === "PowerCut";
}

export class Passages {
  readonly stream: ArchiveStream;
  loaded = false;
  // a scan reads many texts: the segment it read last stays open until end()
  private held: { seq: number; f: File } | undefined;
  private holding = false;

  constructor(readonly root: string) {
    this.stream = new ArchiveStream(root, "passage", new Buffers());
  }

  // names relative to the root (every file of the root: the stream takes its own)
  load(files: Map<string, number>): void {
    this.stream.load(files);
    this.loaded = true;
  }

  // The lines of these texts (encodePassage's), appended in one write (then
  // the twin): where each went. Throws ArchiveError; nothing points to them then.
  append(texts: { t: number; lines: Uint8Array[] }[]): TextRef[] {
    const lines: { id: string; t: number; line: Uint8Array }[] = [];
    for (const x of texts) for (const l of x.lines) lines.push({ id: "", t: x.t, line: l });
    const r = this.stream.append(lines);
    const out: TextRef[] = [];
    let at = r.at;
    for (const x of texts) {
      const { len, crc } = measure(x.lines);
      out.push({ seq: r.seq, at, len, crc });
      at += len;
    }
    return out;
  }

  // The text a header points to, or undefined when neither the segment nor its
  // second source (twin, parity) holds it whole.
  read(ref: TextRef): TextOut | undefined {
    if (ref.len <= 0) return undefined;
    let b = this.bytes(ref, false);
    if (b && crc32(b) === ref.crc) return this.decode(b);
    // a flipped bit at rest: its second source, and the segment restored by steps
    if (this.stream.open?.seq !== ref.seq && this.stream.segs.has(ref.seq)) this.stream.damaged.set(ref.seq, true);
    const fb = this.bytes(ref, true);
    if (fb && crc32(fb) === ref.crc) return this.decode(fb);
    // one flipped bit in one line is found by its own CRC (FORMAT.md §3.13)
    b = b ?? fb;
    if (!b || !this.repair(b) || crc32(b) !== ref.crc) return undefined;
    return this.decode(b);
  }

  // Between begin() and end() (a scan), the last segment read stays open.
  begin(): void {
    this.holding = true;
  }

  end(): void {
    this.holding = false;
    this.drop();
  }

  private drop(): void {
    const h = this.held;
    this.held = undefined;
    if (!h) return;
    try {
      h.f.close();
    } catch (e) {
      if (fatal(e)) throw e;
    }
  }

  private bytes(ref: TextRef, second: boolean): Uint8Array | undefined {
    if (!second && this.holding) {
      try {
        if (this.held && this.held.seq !== ref.seq) this.drop();
        if (!this.held) this.held = { seq: ref.seq, f: this.stream.openRead(ref.seq) };
        const f = this.held.f;
        if (f.length >= ref.at + ref.len) {
          f.position = ref.at;
          const got = new Uint8Array(f.read(ArrayBuffer, ref.len) as ArrayBuffer);
          if (got.length === ref.len) return got;
        }
      } catch (e) {
        if (fatal(e)) throw e;
      }
      // (a handle that does not see the bytes: the segment opened anew, below)
      this.drop();
    }
    // the open segment's second source is its twin
    if (second && this.stream.open?.seq === ref.seq) {
      try {
        return this.stream.twinBytes(ref.seq, ref.at, ref.len);
      } catch (e) {
        if (fatal(e)) throw e;
        return undefined;
      }
    }
    let f: File | undefined;
    try {
      f = second ? this.stream.fallback(ref.seq) : this.stream.openRead(ref.seq);
      if (!f) return undefined;
      if (f.length < ref.at + ref.len) return undefined;
      f.position = ref.at;
      const got = new Uint8Array(f.read(ArrayBuffer, ref.len) as ArrayBuffer);
      return got.length === ref.len ? got : undefined;
    } catch (e) {
      if (fatal(e)) throw e;
      return undefined;
    } finally {
      try {
        f?.close();
      } catch (e) {
        if (fatal(e)) throw e;
      }
    }
  }

  private repair(b: Uint8Array): boolean {
    let fixed = false;
    for (let s = 0; s < b.length; ) {
      let e = b.indexOf(NL, s);
      if (e < 0) e = b.length;
      if (!lineOk(b, s, e)) {
        if (repairLine(b, s, e) < 0) return false;
        fixed = true;
      }
      s = e + 1;
    }
    return fixed;
  }

  private decode(b: Uint8Array): TextOut | undefined {
    let content = "";
    let kw: string | undefined;
    for (let s = 0; s < b.length; ) {
      const e = b.indexOf(NL, s);
      if (e < 0) return undefined;
      if (!lineOk(b, s, e)) return undefined;
      const p = parsePassage(b, s, e);
      if (!p) return undefined;
      content += p.c;
      if (p.k !== undefined) kw = p.k;
      s = e + 1;
    }
    return { content, keywords: kw ? kw.split(",") : [] };
  }

  // One piece of upkeep (as the archive's steps do for its streams): the
  // twin brought level, a full segment sealed, parity made or a damaged
  // segment restored. False when there is nothing to do.
  step(roomy: boolean): boolean {
    const st = this.stream;
    if (st.twinStep()) return true;
    const u = st.unsealed();
    if (u.length) {
      st.seal(u[0], true);
      return true;
    }
    if (st.protectStep(roomy)) return true;
    return false;
  }

  // Before the collection drops the parity of segment `seq`'s group: one
  // step of making the open segment's twin plain when it is XORed with that
  // parity (src/archive/stream.ts unkeyStep), so that the open segment keeps a
  // whole second copy at every cut. False when it is plain (or not keyed) already.
  unkey(seq: number): boolean {
    return this.stream.unkeyStep(this.stream.gOf(seq));
  }

  // bytes of the stream's files on flash (segments, sidecars, twins, parity,
  // catalog): one listing of the root (status, benches; never on a reply's path)
  footprint(): number {
    let n = 0;
    try {
      const it = new Iterator(this.root);
      for (let e = it.next(); e; e = it.next()) if (e.length !== undefined && isPassageFile(e.name)) n += e.length;
    } catch (e) {
      if (fatal(e)) throw e;
      this.stream.segs.forEach((l) => (n += l));
    }
    return n;
  }
}

// Which texts may hold every one of some words (folded as §3.4 folds): the
// passages' block signatures (FORMAT.md §3.4, in the segments' sidecars)
// rule out a text only when they prove it cannot hold them
// (docs/design/episode-queries.md):
// - a sidecar is read once per segment a query asks about (at most 4,640
//   bytes), and only its records that check out are used (readSide: entry
//   CRC, signature CRC, contiguity); a block with a line that was not a record
//   when it was indexed (`bad`) rules out nothing;
// - a text is ruled out only when its bytes lie inside one such block whose
//   signature lacks a bit of the words, and it is one line: a text of more
//   than MAX_LINE bytes may be cut between lines, and a word across the cut
//   is in no line's elements (a multi-line text's first line is the longest
//   run that fits, within a character of MAX_LINE, so a text of MAX_LINE bytes
//   or fewer is one line);
// - words with no element (a single ASCII character) rule out nothing.
// The catalog's summaries are not used: they are built when a segment is
// sealed, from its bytes on flash then, and a line damaged at that moment is
// left out of them, while the episode store serves that text from the
// segment's second source.
export class TextFilter {
  readonly probe: Uint16Array;
  readonly stats = { sidecars: 0 };
  // per segment: [from, to) pairs of blocks that provably lack the words, and
  // the [lo, hi] times of the lines that may hold them (undefined: unknown)
  private segs = new Map<number, Seg>();

  constructor(
    readonly texts: Passages,
    words: readonly Uint8Array[],
  ) {
    this.probe = probeOf(words);
  }

  // A segment's sidecar is read only once the texts read from it without it
  // would outweigh it (its size as the segment's length gives it): until then
  // its texts are read (so what a query reads for a few candidates in a
  // segment is at most twice what it would have had to).
  private spent = new Map<number, number>();
  // every text is a candidate (the headers rule none out): the sidecar first
  eager = false;

  // Whether the text at `ref` may hold the words.
  may(ref: { seq: number; at: number; len: number }): boolean {
    if (!this.probe.length || ref.len <= 0 || ref.len > MAX_LINE) return true;
    if (!this.segs.has(ref.seq) && !this.eager) {
      const spent = (this.spent.get(ref.seq) ?? 0) + ref.len;
      if (spent <= this.sideBytes(ref.seq)) {
        this.spent.set(ref.seq, spent);
        return true;
      }
    }
    const ex = this.seg(ref.seq).ex;
    const end = ref.at + ref.len;
    for (let i = 0; i < ex.length; i += 2) if (ref.at >= ex[i] && end <= ex[i + 1]) return false;
    return true;
  }

  // The times of every line of the stream that may hold the words, as [lo,
  // hi] pairs: the time ranges of the blocks not ruled out, and the times of
  // the lines no valid sidecar record covers (read: at most UNINDEXED_READ
  // bytes in all). Undefined when a block not ruled out has a line that was
  // not a record when indexed (its time is in no range), or more bytes are
  // not covered. A text of one line (MAX_LINE bytes or fewer) whose time is in
  // none may not hold the words.
  times(): number[] | undefined {
    if (!this.probe.length) return undefined;
    const st = this.texts.stream;
    const out: number[] = [];
    let ok = true;
    st.segs.forEach((_l, seq) => {
      if (!ok) return;
      const x = this.seg(seq);
      if (x.gaps.length) this.gapTimes(seq, x);
      const t = x.t;
      if (!t) ok = false;
      else for (let i = 0; i < t.length; i++) out.push(t[i]);
    });
    return ok ? out : undefined;
  }

  // A sidecar's bytes at most for a segment (blocks hold at least 3,585 bytes).
  sideBytes(seq: number): number {
    const st = this.texts.stream;
    const len = (st.open && st.open.seq === seq ? st.open.validEnd : st.segs.get(seq)) ?? 0;
    return 32 + 288 * (Math.floor(len / 3585) + 1);
  }

  // The sidecars' bytes at most of every segment (what times() reads, less the lines it scans).
  cost(): number {
    let n = 0;
    this.texts.stream.segs.forEach((_l, seq) => (n += this.sideBytes(seq)));
    return n;
  }

  private unindexed = 0; // bytes read of lines no sidecar record covers

  private seg(seq: number): Seg {
    let x = this.segs.get(seq);
    if (!x) {
      x = this.load(seq);
      this.segs.set(seq, x);
    }
    return x;
  }

  private load(seq: number): Seg {
    const st = this.texts.stream;
    const length = st.open && st.open.seq === seq ? st.open.validEnd : st.segs.get(seq);
    const none: Seg = { ex: [], t: undefined, gaps: [] };
    if (length === undefined || length <= 0) return none;
    let side;
    try {
      side = readSide(st.path(seq, "six"), "passage", seq, length, st.bufs.side);
    } catch (e) {
      if (fatal(e)) throw e;
      return none;
    }
    this.stats.sidecars++;
    const ex: number[] = [];
    let t: number[] | undefined = [];
    // the bytes no valid record covers: [from, to) pairs
    const gaps: number[] = [];
    let covered = 0;
    const put = (b: BlockInfo, sigs: Uint8Array, i: number) => {
      if (b.offset > covered) gaps.push(covered, b.offset);
      covered = Math.max(covered, b.offset + b.length);
      if (b.bad === 0 && b.offset + b.length <= length && !sigHas(sigs, i * SIG_BYTES, this.probe, b.set)) ex.push(b.offset, b.offset + b.length);
      else if (b.bad > 0) t = undefined;
      else if (t && b.records > 0) t.push(b.min, b.max);
    };
    for (let i = 0; i < side.blocks.length; i++) put(side.blocks[i], side.sigs, i);
    if (side.after && side.afterSigs) for (let i = 0; i < side.after.length; i++) put(side.after[i], side.afterSigs, i);
    if (length > covered) gaps.push(covered, length);
    return { ex, t, gaps };
  }

  // The times of the lines in a segment's gaps (the open segment's tail, a damaged record's block) into x.t.
  private gapTimes(seq: number, x: Seg): void {
    const st = this.texts.stream;
    const gaps = x.gaps;
    x.gaps = [];
    let t = x.t;
    for (let g = 0; g < gaps.length && t; g += 2) {
      const n = gaps[g + 1] - gaps[g];
      if (this.unindexed + n > UNINDEXED_READ) {
        t = undefined;
        break;
      }
      this.unindexed += n;
      const got = t;
      let f: File | undefined;
      try {
        f = st.openRead(seq);
        scanRange(f, gaps[g], gaps[g + 1], st.bufs.chunk, (buf, s, e, size, pos) => {
          if (size === e - s) return; // no "\n": not a line (a torn tail)
          if (pos === 0 || (e - s === 1 && buf[s] === 35)) return; // the segment's header line, a "#" fence
          const lt = lineT(buf, s, e);
          if (lt < 0) t = undefined;
          else got.push(lt, lt);
        });
      } catch (e) {
        if (fatal(e)) throw e;
        t = undefined;
      } finally {
        try {
          f?.close();
        } catch (e) {
          if (fatal(e)) throw e;
        }
      }
    }
    x.t = t;
  }
}

interface Seg {
  ex: number[]; // [from, to) of blocks that provably lack the words
  t: number[] | undefined; // [lo, hi] times of the lines that may hold them (undefined: unknown)
  gaps: number[]; // [from, to) of bytes no valid record covers, whose lines' times are not in t yet
}

// bytes of lines no sidecar record covers that TextFilter.times() reads (the
// open segment's tail is less than a block)
const UNINDEXED_READ = 8192;

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
import { encodePassage, parsePassage, lineOk, NL } from "../archive/codec";
import { repairLine } from "../archive/repair";

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

// Forgotten records leave the flash (docs/FORMAT.md §3.7): while tombstones
// wait, steps look through every sealed segment of their streams, one segment
// per step, and a segment that holds a forgotten line is written again without
// it, 4 KB per step, into `.scr`, and its sidecar with it into `.scx` (the
// block records of the lines written so far: the open block in RAM); then
// `.jsonl` is renamed `.old` (the commit point), `.scr` renamed `.jsonl`, the
// old sidecar deleted and `.scx` renamed `.six`, and `.old` deleted. The
// rewritten segment is indexed whole from the swap on (a recall reads only its
// matching blocks: docs/design/recode.md); a later step seals it (summary and
// catalog entry). A tombstone goes once a whole pass found its record nowhere
// on flash.

import { File } from "file";
import { writeAt, openAppend, openWrite, rename, remove, rethrowFatal, readInto } from "./file";
import { STREAM_CODE, STREAM_CHAR, parseRecords, packLine, packFacts, recodeLine, headerLine, getWriteFormat, NL, type Line, type Rec } from "./codec";
import { lineKind, KIND_RECORD, KIND_HEADER, BlockBuilder, createSide, writeSideRecords, SEGMENT_BLOCKS, RECORD, SIDE_MAX } from "./segment";
import { scanRange, validEndOf, type ArchiveStream, type Buffers } from "./stream";
import { Tombstones, hex } from "./tomb";
import { settle, removeAll, sameBytes, beforeDropping } from "./settle";

// 4 KB of kept lines a step: about 140 ms at the device's flash speed (8 KB took 260 ms, too near
// the 300 ms step budget: docs/design/steps.md)
const STEP_WRITE = 4096;

interface Job {
  stream: ArchiveStream;
  seq: number;
  src: number; // next byte of the segment to copy
  end: number; // the segment's valid end
  dst: number; // bytes written to .scr
  ids: string[]; // the forgotten records it drops
  side: BlockBuilder; // the rewrite's block records: the open block and those not yet in `.scx`
  blocks: number; // block records written to `.scx`
  recode: boolean; // a format-2 segment written again as the current format (3 or 4: its lines' text compact, format 4's frame; its header v3 or v4)
}

// Format-2 segments' headers looked at in one step, at most (a read of 64 bytes each)
const RECODE_LOOKS = 8;

// Block records a copy step can close: a step writes at most STEP_WRITE bytes
// (and a line), which closes at most 3 blocks of 4 KB (the one open before it,
// one filled to 4 KB, the last one at the end). 4 x 288 B + the open block's
// 256-byte signature: about 1.4 KB of RAM while a rewrite is under way.
const SIDE_ROOM = 4;

export class Scrubber {
  private queue: { stream: ArchiveStream; seq: number }[] | undefined;
  private job: Job | undefined;
  private found = new Map<string, number>(); // tombstones whose record was seen this pass: in how many segments
  private lastPass = ""; // what the archive looked like at the end of the last pass that changed nothing
  private passTombs = 0; // tombstones waiting at the end of the last pass
  // segments whose header was looked at since boot: 2 a format-2 segment
  // waiting for room, 3 anything else (never rewritten by the recode); by
  // stream code x 10^6 + seq
  private formats = new Map<number, number>();

  constructor(
    readonly streams: ArchiveStream[],
    readonly tombs: Tombstones,
    readonly bufs: Buffers,
    readonly recodable: ArchiveStream[] = streams, // the streams whose format-2 segments are written again as format 3 or 4
  ) {}

  // Boot: finishes or undoes a rewrite a cut interrupted.
  static recover(s: ArchiveStream, files: Map<string, number>): boolean {
    let did = false;
    files.forEach((_len, name) => {
      const m = /^([fmed])(\d{6})\.(scr|scx|old)$/.exec(name);
      if (!m || m[1] !== STREAM_CHAR[s.stream]) return;
      did = true;
      const seq = Number(m[2]);
      const scr = rewritePath(s, seq, "scr"), scx = rewritePath(s, seq, "scx"), old = rewritePath(s, seq, "old");
      if (m[3] === "old") {
        // segment, .old and .scr all there: a cut inside one of the swap's
        // renames left the segment on one object with .old (the first) or .scr
        // (the second). The segment is settled onto its own object (as it is:
        // the original, or the rewrite), then the other names go, and both
        // sidecars (which bytes the segment holds is not known: it is indexed
        // again by steps)
        if (File.exists(s.path(seq)) && File.exists(scr)) {
          // the sidecars first, whatever the settle does: neither is known to
          // describe the segment (a wrong one would hide the lines across its
          // blocks' boundaries from queries)
          File.delete(s.path(seq, "six"));
          File.delete(scx);
          if (settle(s.path(seq))) {
            File.delete(s.path(seq, "twn")); // it may hold the old bytes: copied again
            removeAll(scr);
            removeAll(old);
          }
          return;
        }
        // committed: the rewritten segment is the segment, `.scx` its sidecar
        // (whole: the swap starts only after its last record). Any `.six`
        // beside a `.scx` is the old one; without a `.scx` it is the new one
        // (renamed already) or none.
        if (!File.exists(s.path(seq)) && File.exists(scr)) File.rename(scr, s.path(seq));
        if (File.exists(s.path(seq))) {
          const six = s.path(seq, "six");
          if (File.exists(scx)) {
            // the same bytes under both names: its rename was torn (one
            // object): `.six` settled onto its own, `.scx` dropped
            if (File.exists(six) && sameBytes(six, scx)) {
              beforeDropping(scx, six);
              removeAll(scx);
            } else {
              File.delete(six);
              File.rename(scx, six);
            }
          }
          File.delete(s.path(seq, "twn"));
          File.delete(old);
        }
      } else if (!files.has(`${m[1]}${m[2]}.old`)) File.delete(m[3] === "scr" ? scr : scx); // not committed
    });
    return did;
  }

  // One step, or undefined when there is nothing to scrub. A rewrite starts
  // only when `room(bytes)` says its copy fits (a partition of facts near its
  // line: the forgotten record stays hidden, its bytes wait for room; a copy
  // that failed for room half way, written again and again, would wear the
  // flash for nothing).
  step(room: (bytes: number) => boolean = () => true): string | undefined {
    if (!this.tombs.size) {
      this.queue = undefined;
      return undefined;
    }
    if (this.job) return this.copy();
    if (!this.queue && this.shape() === this.lastPass) return undefined; // nothing new since a pass found nothing to do
    if (!this.queue) {
      this.queue = [];
      this.found.clear();
      for (const s of this.streams) for (const seq of s.newestFirst()) this.queue.push({ stream: s, seq });
    }
    const next = this.queue.pop();
    if (!next) {
      // a whole pass: tombstones whose record is nowhere on flash go
      const found = this.found;
      this.queue = undefined;
      const before = this.tombs.size;
      this.tombs.drop((t) => (found.get(`${t.code}:${hex(t.id)}`) ?? 0) > 0);
      this.passTombs = this.tombs.size;
      if (before !== this.tombs.size) return `scrub: ${before - this.tombs.size} tombstones dropped`;
      this.lastPass = this.shape();
      return undefined;
    }
    const { stream: s, seq } = next;
    if (!s.segs.has(seq)) return `scrub: ${seq} gone`;
    let hits = 0, end = 0;
    const ids: string[] = [];
    const code = STREAM_CODE[s.stream];
    try {
      const f = s.openRead(seq);
      try {
        end = validEndOf(f, f.length, this.bufs.chunk);
        const recs: Rec[] = [];
        scanRange(f, 0, end, this.bufs.chunk, (b, ls, le, size) => {
          if (size === le - ls || lineKind(b, ls, le) !== KIND_RECORD || !parseRecords(b, ls, le, s.stream, recs)) return;
          for (const { it } of recs)
            if (this.tombs.has(code, it.id)) {
              hits++;
              const k = `${code}:${it.id}`;
              ids.push(k);
              this.found.set(k, (this.found.get(k) ?? 0) + 1);
            }
        });
      } finally {
        f.close();
      }
    } catch (e) {
      rethrowFatal(e);
      // unreadable now: its tombstones stay (they might be in it)
      this.tombs.entries().forEach((t) => t.code === code && this.found.set(`${t.code}:${hex(t.id)}`, 1));
      return `scrub: ${s.stream} ${seq} unreadable`;
    }
    // the open segment is rewritten once it is sealed (a later pass)
    if (!hits || (s.open && s.open.seq === seq)) return `scrub: ${s.stream} ${seq} looked at`;
    if (!room(end + SIDE_MAX)) return `scrub: ${s.stream} ${seq} waits for room`;
    File.delete(rewritePath(s, seq, "scr"));
    File.delete(rewritePath(s, seq, "scx"));
    // a format-2 segment is written as the current format (3 or 4) at the same time (when this code writes format 3 or later)
    const recode = getWriteFormat() >= 3 && this.formatOf(s, seq) === 2;
    this.job = { stream: s, seq, src: 0, end, dst: 0, ids, side: new BlockBuilder(s.stream, 0, SIDE_ROOM), blocks: 0, recode };
    return `scrub: ${s.stream} ${seq} holds ${hits} forgotten`;
  }

  // Format 2 to format 3 or 4 (docs/design/recode.md): one step of a recode under
  // way, or the headers of up to RECODE_LOOKS sealed segments looked at,
  // oldest first per stream, until one is format 2: its rewrite starts when
  // `room(bytes)` says its copy fits. Undefined when there is nothing to do
  // (or a forget's rewrite is under way: Scrubber.step goes on with it).
  // Format 3 and 4 are end states: a segment whose header is not v2 (format-3 segments are not written again as format 4) is never
  // written again by it; the open segment waits until it is sealed.
  recodeStep(room: (bytes: number) => boolean): string | undefined {
    if (this.job) return this.job.recode && !this.job.ids.length ? this.copy() : undefined;
    if (getWriteFormat() < 3) return undefined;
    // a forget's pass goes first (Scrubber.step): forgotten records leave the
    // flash before bytes are saved (once per new tombstone: a recode changes
    // the archive's shape but drops tombstoned lines itself)
    if (this.tombs.size && (this.queue || this.tombs.size !== this.passTombs)) return undefined;
    let looked = 0;
    for (const s of this.recodable) {
      const base = STREAM_CODE[s.stream] * 1000000;
      const seqs = s.newestFirst();
      for (let i = seqs.length - 1; i >= 0; i--) {
        const seq = seqs[i];
        const known = this.formats.get(base + seq);
        if (known === 3) continue;
        const e = s.cat.entries.get(seq);
        // sealed segments only: the open one, unsealed, damaged or restored ones wait
        if ((s.open && s.open.seq === seq) || !e || e.bytes !== s.segs.get(seq) || s.restoring.has(seq) || s.damaged.has(seq)) continue;
        if (known === undefined) {
          if (looked >= RECODE_LOOKS) return `recode: looked at ${looked}`;
          looked++;
          const v = this.formatOf(s, seq);
          this.formats.set(base + seq, v === 2 ? 2 : 3);
          if (v !== 2) continue;
        }
        const len = s.segs.get(seq) as number;
        if (!room(len)) return looked ? `recode: looked at ${looked}` : undefined;
        let end = 0;
        try {
          const f = s.openRead(seq);
          try {
            end = validEndOf(f, f.length, this.bufs.chunk);
          } finally {
            f.close();
          }
        } catch (err) {
          rethrowFatal(err);
          this.formats.set(base + seq, 3); // unreadable now: left as it is (damage is restore's)
          return `recode: ${s.stream} ${seq} unreadable`;
        }
        File.delete(rewritePath(s, seq, "scr"));
        File.delete(rewritePath(s, seq, "scx"));
        this.job = { stream: s, seq, src: 0, end, dst: 0, ids: [], side: new BlockBuilder(s.stream, 0, SIDE_ROOM), blocks: 0, recode: true };
        return `recode: ${s.stream} ${seq} format 2`;
      }
    }
    // every header looked at within this step, none format 2: nothing to do
    // (a boot's look at a few headers is not worth a step of its own)
    return undefined;
  }

  // The format a segment's header line says (2, 3 or 4), 0 when it has none that checks.
  private formatOf(s: ArchiveStream, seq: number): number {
    const b = this.bufs.chunk;
    let n = 0;
    try {
      const f = s.openRead(seq);
      try {
        n = readInto(f, 0, Math.min(64, f.length), b);
      } finally {
        f.close();
      }
    } catch (e) {
      rethrowFatal(e);
      return 0;
    }
    const nl = b.subarray(0, n).indexOf(NL);
    if (nl < 0 || lineKind(b, 0, nl) !== KIND_HEADER) return 0;
    // {"v":2,
    return b[6] === 44 && b[5] >= 50 && b[5] <= 52 ? b[5] - 48 : 0;
  }

  // Tombstones, segments and their lengths: a pass is worth running again only when these change.
  // The open segments count by number only: appends to them change nothing a
  // pass could do (they are rewritten once sealed, which changes the shape).
  private shape(): string {
    let k = `${this.tombs.size}`;
    for (const s of this.streams) s.segs.forEach((l, q) => (k += s.open && s.open.seq === q ? `,${q}` : `,${q}:${l}`));
    return k;
  }


  // Copies up to 4 KB of kept lines into `.scr` and the block records they
  // close into `.scx`; the step after the last piece swaps them in.
  private copy(): string {
    const j = this.job as Job;
    const s = j.stream, code = STREAM_CODE[s.stream];
    const scr = rewritePath(s, j.seq, "scr"), scx = rewritePath(s, j.seq, "scx");
    if (!s.segs.has(j.seq)) {
      // retired meanwhile (the partition crossed the retire line): its bytes are gone already
      this.job = undefined;
      File.delete(scr);
      File.delete(scx);
      return `${j.recode && !j.ids.length ? "recode" : "scrub"}: ${s.stream} ${j.seq} gone`;
    }
    if (j.src >= j.end) return this.swap(j); // a swap a failed rename left half done
    let f: File | undefined;
    try {
      f = s.openRead(j.seq);
      const stop = Math.min(j.end, j.src + STEP_WRITE);
      // a recoded header is at most 6 bytes longer ("k"); a recoded line is never longer
      const out = new Uint8Array(stop - j.src + (j.recode && j.src === 0 ? 16 : 0));
      let n = 0, last = j.src;
      const lineRecs: Rec[] = [];
      const put = (line: Uint8Array) => {
        out.set(line, n);
        j.side.add(out, n, n + line.length - 1, line.length);
        n += line.length;
      };
      // a format-2 segment's facts written again as format 4 are packed as
      // an append packs them (FORMAT.md §3.17, §3.19): the one-fact lines
      // without "x" wait here until another line, or this step's end
      const pack = j.recode && s.stream === "fact" && getWriteFormat() >= 4;
      const run: Line[] = [];
      const flush = () => {
        // a fact left alone (packFacts gives back its line as it came, with
        // its text) is written as the recode writes it
        for (const l of packFacts(run)) put(l.text === undefined ? l.line : recodeLine(l.line, 0, l.line.length - 1, s.stream) ?? l.line);
        run.length = 0;
      };
      scanRange(f, j.src, j.end, this.bufs.chunk, (b, ls, le, size, pos) => {
        if (pos + size > stop || j.side.full) return false;
        last = pos + size;
        let line: Uint8Array | undefined;
        const kind = size > le - ls ? lineKind(b, ls, le) : -1;
        if (kind === KIND_RECORD && parseRecords(b, ls, le, s.stream, lineRecs)) {
          let kept = 0;
          for (const { it } of lineRecs) if (!this.tombs.has(code, it.id)) kept++;
          if (!kept) return;
          if (pack && lineRecs.length === 1 && !hasX(b, ls, le)) {
            const r = lineRecs[0];
            run.push({ id: r.it.id, t: r.t, line: b.slice(ls, ls + size), text: r.it.content });
            return;
          }
          // a packed fact line (FORMAT.md §3.19) keeps its other facts, in a line of their own
          if (kept < lineRecs.length) line = packLine(lineRecs.filter((r) => !this.tombs.has(code, r.it.id)).map((r) => ({ t: r.t, text: r.it.content })));
          else if (j.recode) line = recodeLine(b, ls, le, s.stream);
        } else if (kind === KIND_HEADER && j.recode && pos === 0) line = headerLine(s.stream, j.seq);
        flush();
        if (line) {
          put(line);
          return;
        }
        // kept as it is on flash (header and bad lines too: they tell what happened)
        out.set(b.subarray(ls, ls + size), n);
        j.side.add(out, n, n + (le - ls), size);
        n += size;
      });
      flush();
      if (last === j.src && j.src < j.end) last = j.end; // nothing whole fits: a damaged run, dropped
      const w = j.dst === 0 ? openWrite(scr) : openAppend(scr, j.dst);
      try {
        if (n) writeAt(w, out.subarray(0, n), j.dst);
      } finally {
        w.close();
      }
      // then the records of the blocks these lines closed (the last block
      // with the last piece): `.scx` is whole before the swap can start
      if (j.dst === 0) createSide(scx, s.stream, j.seq);
      let recs = j.side.drain(last >= j.end);
      const room = (SEGMENT_BLOCKS - j.blocks) * RECORD; // more are indexed by the seal
      if (recs.length > room) recs = recs.subarray(0, Math.max(0, room));
      if (recs.length) writeSideRecords(scx, j.blocks, recs);
      j.blocks += recs.length / RECORD;
      j.dst += n;
      j.src = last;
    } catch (e) {
      rethrowFatal(e);
      this.job = undefined;
      File.delete(scr);
      File.delete(scx);
      // a recode that fails is not tried again before the next boot (a forget's is: its pass comes back)
      if (j.recode) this.formats.set(STREAM_CODE[s.stream] * 1000000 + j.seq, 3);
      throw e;
    } finally {
      f?.close();
    }
    // the swap is the next step's (with the last piece it went over the 300 ms
    // step budget: docs/design/steps.md); a cut before it leaves a whole
    // `.scr` without `.old`, undone at boot like a partial one
    return `${j.recode && !j.ids.length ? "recode" : "scrub"}: ${s.stream} ${j.seq} copied ${j.dst}`;
  }

  // The swap: `.old` is the commit point. A rename that returns false leaves
  // the job in place and its step failed: the next step goes on from where
  // the files are (a segment renamed .old and its rewrite still .scr must
  // never lose the .scr), as Scrubber.recover does at boot. The old sidecar
  // stays until the segment is the rewrite (a cut before the commit leaves
  // the segment as it was, indexed), and `.scx` takes its place at once: the
  // rewritten segment is never without its index (docs/design/recode.md).
  private swap(j: Job): string {
    const s = j.stream;
    const seg = s.path(j.seq), six = s.path(j.seq, "six");
    const old = rewritePath(s, j.seq, "old"), scr = rewritePath(s, j.seq, "scr"), scx = rewritePath(s, j.seq, "scx");
    if (File.exists(scr)) {
      s.dropParityOf(j.seq); // the group's parity holds the old bytes: built again once sealed
      if (File.exists(seg)) {
        if (File.exists(old)) remove(old); // a leftover of an earlier rewrite: the segment is newer
        rename(seg, old);
      }
      rename(scr, seg);
    }
    if (File.exists(scx)) {
      remove(six);
      rename(scx, six);
    }
    // the twin holds the old bytes (forgotten lines among them): it goes
    // before `.old` (boot finishes this while `.old` is there)
    File.delete(s.path(j.seq, "twn"));
    s.twins.delete(j.seq);
    s.damaged.delete(j.seq);
    File.delete(old);
    s.segs.set(j.seq, j.dst);
    // sealed again by a step (its catalog entry is stale: its length differs;
    // a recode's, whose records are the same, is written again in place)
    for (const k of j.ids) this.found.set(k, (this.found.get(k) ?? 1) - 1);
    this.job = undefined;
    if (j.recode) this.formats.set(STREAM_CODE[s.stream] * 1000000 + j.seq, 3);
    return `${j.recode && !j.ids.length ? "recode" : "scrub"}: ${s.stream} ${j.seq} rewritten`;
  }
}

// The rewrite's files beside segment `seq`: `.scr` its bytes, `.scx` its
// sidecar, `.old` the segment during the swap (FORMAT.md §3.7).
function rewritePath(s: ArchiveStream, seq: number, ext: "scr" | "scx" | "old"): string {
  return s.path(seq).replace(/jsonl$/, ext);
}

// Does a checked fact line carry "x" (its text was cut: the id it holds is
// its own, FORMAT.md §3.2)? By its bytes: `,"x":"` cannot stand inside a
// JSON string (its quotes would be escaped).
function hasX(b: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i + 5 < e; i++) if (b[i] === 44 && b[i + 1] === 34 && b[i + 2] === 120 && b[i + 3] === 34 && b[i + 4] === 58 && b[i + 5] === 34) return true;
  return false;
}

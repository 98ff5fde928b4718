// Migration of a version-1 archive (one JSONL file per type, docs/FORMAT.md
// §3.10) into format 2, one bounded step at a time (Archive.step), nothing lost.
//
// The version-1 files stay untouched until every record is in a sealed
// format-2 segment: a cut at any point redoes at most the segment being
// written. Migrated segments take the numbers below LIVE_SEQ, so they sort
// before everything archived after the upgrade. Progress is a sealed line in
// two alternating files (`/v1mig.a`, `/v1mig.b`); the newer valid one wins.

import { File } from "file";
import { CHUNK, readInto, writeAt, openAppend, openWrite, rethrowFatal } from "./file";
import { sealLine, lineOk, encodeRecord, headerLine, NL, type Line } from "./codec";
import { parseLine, tsKey, recordId, TS_OFFSET, type ArchiveType, type ArchiveRecord, type ArchivedItem } from "./line";
import { EMOTIONS, REPEATS, type Fact, type Moment, type Event } from "../memory/types";
import { utcOffset } from "../time/local";
import { decode } from "../text/utf8";
import { SEGMENT_BYTES, validEndOf, scanRange, type ArchiveStream, type Buffers } from "./stream";
import { eventSeconds } from "./codec";
import { containsFolded } from "./fold";
import type { Query, TopK } from "./query";

export const LIVE_SEQ = 100000; // the first segment number after an upgrade
const TYPES: readonly ArchiveType[] = ["fact", "moment", "event"];
const BASE: Record<ArchiveType, string> = { fact: "facts", moment: "moments", event: "events" };
const V1_EXT = ["jsonl", "done", "new", "idx", "sig", "nix", "nsg"];
// What is migrated, in order: each type's file, then a committed format-1
// compaction (".done") a cut left beside it. Both are read when both exist: a
// cut in the middle of format 1's swap may have left the ".jsonl" whole or
// shortened, and a ".done" that is empty or damaged must never stand in for
// it. A record in both is stored twice and served once (one per id).
const SOURCES: readonly [ArchiveType, string][] = [
  ["fact", "jsonl"],
  ["fact", "done"],
  ["moment", "jsonl"],
  ["moment", "done"],
  ["event", "jsonl"],
  ["event", "done"],
];
const CLEANUP = SOURCES.length;

interface Progress {
  n: number; // write counter: the higher valid copy wins
  y: number; // the source being migrated (SOURCES), CLEANUP (6): deleting the version-1 files
  p: number; // offset in the version-1 file of the next line to migrate
  s: number; // the migrated segment being written (0: none)
  a: number; // the version-1 offset that segment started at
  l: number; // that segment's length when this was written
}

export class Migration {
  active = false;
  private prog: Progress = { n: 0, y: 0, p: 0, s: 0, a: 0, l: 0 };
  private paths: [string, string];

  constructor(
    readonly root: string,
    readonly streams: Record<ArchiveType, ArchiveStream>,
    readonly bufs: Buffers,
  ) {
    this.paths = [root + "v1mig.a", root + "v1mig.b"];
  }

  // At boot, before the streams load: is there a version-1 archive (or a
  // migration under way)? The segment being written is hidden from its stream.
  detect(files: Map<string, number>): void {
    let v1 = false;
    for (const t of TYPES) for (const x of V1_EXT) if (files.has(`${BASE[t]}.${x}`)) v1 = true;
    this.active = v1 || files.has("v1mig.a") || files.has("v1mig.b");
    this.prog = (this.active ? this.readProgress() : undefined) ?? { n: 0, y: 0, p: 0, s: 0, a: 0, l: 0 };
    for (const t of TYPES) this.streams[t].skip = this.active && this.prog.y < CLEANUP && SOURCES[this.prog.y][0] === t ? this.prog.s : -1;
  }

  // After the streams load: everything archived from now on sorts after the migrated segments.
  floor(): void {
    if (!this.active) return;
    for (const t of TYPES) this.streams[t].nextSeq = Math.max(this.streams[t].nextSeq, LIVE_SEQ);
  }

  private readProgress(): Progress | undefined {
    let best: Progress | undefined;
    for (const p of this.paths) {
      let f: File;
      try {
        f = new File(p);
      } catch (e) {
        rethrowFatal(e);
        continue;
      }
      try {
        const n = readInto(f, 0, Math.min(f.length, 256), this.bufs.chunk);
        const end = this.bufs.chunk.indexOf(NL);
        if (end < 0 || end >= n || !lineOk(this.bufs.chunk, 0, end)) continue;
        const o = JSON.parse(decode(this.bufs.chunk.subarray(0, end)));
        if (typeof o.n === "number" && (!best || o.n > best.n)) best = { n: o.n, y: o.y | 0, p: o.p | 0, s: o.s | 0, a: o.a | 0, l: o.l | 0 };
      } catch (e) {
        rethrowFatal(e);
      } finally {
        f.close();
      }
    }
    return best;
  }

  private save(): void {
    const p = this.prog;
    p.n++;
    const path = this.paths[p.n & 1];
    File.delete(path);
    const f = openWrite(path);
    try {
      writeAt(f, sealLine(`{"n":${p.n},"y":${p.y},"p":${p.p},"s":${p.s},"a":${p.a},"l":${p.l}`), 0);
    } finally {
      f.close();
    }
  }

  private source(y: number): string | undefined {
    const path = `${this.root}${BASE[SOURCES[y][0]]}.${SOURCES[y][1]}`;
    return File.exists(path) ? path : undefined;
  }

  // One step: at most 4 KB of version-1 lines read and written, or 8 blocks
  // of a migrated segment indexed, or a segment sealed, or one version-1 file
  // deleted. Returns what it did, or undefined when the migration is over.
  step(): string | undefined {
    if (!this.active) return undefined;
    const p = this.prog;
    if (p.y >= CLEANUP) {
      for (const t of TYPES)
        for (const x of V1_EXT) {
          const path = `${this.root}${BASE[t]}.${x}`;
          if (File.exists(path)) {
            File.delete(path);
            return `migrate: deleted ${BASE[t]}.${x}`;
          }
        }
      for (const path of this.paths) File.delete(path);
      this.active = false;
      for (const t of TYPES) this.streams[t].skip = -1;
      return "migrate: done";
    }
    const type = SOURCES[p.y][0];
    const s = this.streams[type];
    const src = this.source(p.y);
    if (!src) return this.next();
    const f = new File(src);
    try {
      const end = validEndOf(f, f.length, this.bufs.chunk);
      if (p.s === 0) {
        if (p.p >= end) return this.next();
        // a new migrated segment: the first number after the migrated ones already there
        let seq = 0;
        s.segs.forEach((_l, q) => {
          if (q < LIVE_SEQ) seq = Math.max(seq, q);
        });
        seq++;
        const head = headerLine(type, seq);
        File.delete(s.path(seq));
        File.delete(s.path(seq, "six")); // blocks an earlier try indexed (below) describe other bytes
        const w = openWrite(s.path(seq));
        try {
          writeAt(w, head, 0);
        } finally {
          w.close();
        }
        p.s = seq;
        p.a = p.p;
        p.l = head.length;
        s.skip = seq;
        this.save();
        return `migrate: ${type} segment ${seq}`;
      }
      // the segment must be as long as the progress says: a cut after a write
      // and before its progress leaves more, and the segment is started again
      let len = -1;
      try {
        const g = new File(s.path(p.s));
        len = g.length;
        g.close();
      } catch (e) {
        rethrowFatal(e);
      }
      if (len !== p.l) {
        File.delete(s.path(p.s));
        p.p = p.a;
        p.s = 0;
        s.skip = -1;
        this.save();
        return `migrate: ${type} segment started again`;
      }
      if (p.p >= end || p.l >= SEGMENT_BYTES - CHUNK) {
        // its blocks are indexed 8 a step first: indexing the whole segment
        // in the seal took over the 300 ms step budget (docs/design/steps.md)
        const had = s.segs.get(p.s);
        s.skip = -1;
        s.segs.set(p.s, p.l);
        if (!s.seal(p.s, true)) {
          // not sealed yet (its blocks indexed in steps): hidden as before
          s.skip = p.s;
          if (had === undefined) s.segs.delete(p.s);
          else s.segs.set(p.s, had);
          return `migrate: ${type} segment ${p.s} indexed`;
        }
        p.s = 0;
        this.save();
        return `migrate: ${type} segment sealed`;
      }
      const n = readInto(f, p.p, Math.min(CHUNK, end - p.p), this.bufs.chunk);
      const last = this.bufs.chunk.lastIndexOf(NL, n - 1);
      const used = last >= 0 ? last + 1 : n; // a 4 KB run without a newline is skipped whole (never a record)
      const lines: Line[] = [];
      for (let ls = 0; ls < used; ) {
        let i = this.bufs.chunk.indexOf(NL, ls);
        if (i < 0 || i >= used) i = used;
        const it = parseLine(this.bufs.chunk, ls, i, type);
        if (it) {
          const r = toRecord(type, it, tsKey(this.bufs.chunk, ls + TS_OFFSET));
          try {
            lines.push(encodeRecord(type, r));
          } catch (e) {
            rethrowFatal(e);
          }
        }
        ls = i + 1;
      }
      let bytes = 0;
      for (const l of lines) bytes += l.line.length;
      const out = new Uint8Array(bytes);
      let at = 0;
      for (const l of lines) {
        out.set(l.line, at);
        at += l.line.length;
      }
      if (bytes) {
        const w = openAppend(s.path(p.s), p.l);
        try {
          writeAt(w, out, p.l);
        } finally {
          w.close();
        }
      }
      p.l += bytes;
      p.p += used;
      this.save();
      return `migrate: ${type} ${lines.length} records`;
    } finally {
      f.close();
    }
  }

  // Recall while migrating: the version-1 lines not migrated yet are scanned
  // (once the migration is over, none are). Linear, but only for the minutes
  // a migration takes.
  search(type: ArchiveType, q: Query, top: TopK): void {
    if (!this.active) return;
    for (let y = this.prog.y; y < CLEANUP; y++) {
      if (SOURCES[y][0] !== type) continue;
      const src = this.source(y);
      if (!src) continue;
      const from = y === this.prog.y ? (this.prog.s ? this.prog.a : this.prog.p) : 0;
      const f = new File(src);
      try {
        const end = validEndOf(f, f.length, this.bufs.chunk);
        scanRange(f, from, end, this.bufs.chunk, (b, ls, le, size, pos) => {
          if (size === le - ls) return;
          const it = parseLine(b, ls, le, type);
          if (!it) return;
          const r = toRecord(type, it, tsKey(b, ls + TS_OFFSET));
          const t = type === "event" ? eventSeconds(r as Event) : (r as Fact).timestamp;
          if (t < q.lo || t > q.hi || q.hidden(TYPES.indexOf(type) + 1, it.id)) return;
          if (q.folded && !containsFolded(it.content, q.folded) && !(it.topic && containsFolded(it.topic, q.folded))) return;
          top.add({ it, t, seq: 0, pos });
        });
      } finally {
        f.close();
      }
    }
  }

  private next(): string {
    const p = this.prog;
    p.y++;
    p.p = p.s = p.a = p.l = 0;
    this.save();
    return `migrate: ${p.y < CLEANUP ? SOURCES[p.y].join(".") : "cleanup"}`;
  }
}

// A version-1 item back to the record it was made from. Its time was stored
// as local time with the offset of the day it was archived: the offset whose
// unix seconds give the record's id is the right one (the current one first).
function toRecord(type: ArchiveType, it: ArchivedItem, key: number): ArchiveRecord {
  if (type === "event") {
    const f = it.flags ?? 0;
    const e: Event = {
      date: it.date ?? "",
      time: it.time ?? "",
      eventType: it.event_type ?? "",
      content: it.content,
      reminded: 1,
      emotion: EMOTIONS[it.emotion_type ?? 0] ?? EMOTIONS[0],
      intensity: it.emotion_intensity ?? 0,
      significance: it.significance ?? 0,
      priority: it.priority ?? 0,
      schedule: (f & 1) !== 0,
      completed: (f & 2) !== 0,
      repeat: REPEATS[(f >> 2) & 3] ?? REPEATS[0],
      repeatInterval: 1,
      duration: 0,
    } as Event;
    return e;
  }
  const make = (ts: number): Fact | Moment =>
    type === "fact"
      ? { timestamp: ts, content: it.content }
      : { timestamp: ts, topic: it.topic ?? "", content: it.content, emotion: EMOTIONS[it.emotion_type ?? 0] ?? EMOTIONS[0], intensity: it.emotion_intensity ?? 0, importance: it.importance ?? 0 };
  const now = utcOffset();
  const offsets = [now];
  for (let m = -720; m <= 840; m += 15) if (m !== now) offsets.push(m);
  for (const m of offsets) {
    const r = make(key - m * 60);
    if (recordId(type, r) === it.id) return r;
  }
  return make(key - now * 60);
}

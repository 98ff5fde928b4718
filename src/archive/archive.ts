// The deep archive, format 2 (seed 000 §3.6, §12; issue 12): facts, moments
// and events that left NVS, as streams of segment files on SPIFFS, with
// monthly digests of what has left the flash and tombstones of what the owner
// asked to forget. docs/FORMAT.md §3, docs/DESIGN.md "The archive".
//
//   const archive = new Archive();            // config.file.root
//   archive.check();                          // at boot: recover, learn, report; never throws
//   archive.append("fact", facts);            // durable when it returns
//   archive.recall("fact", { keyword: "北京" }); // newest first
//   archive.step(now);                        // idle time: one bounded piece of upkeep
//
// Everything that may take long (sealing a full segment, digesting and retiring
// the oldest moments, rebuilding a twin) is a step of bounded flash work that
// the device runs between timer ticks, never during a conversation. Facts are
// never retired; when the partition nears its limit the oldest moments, then
// the oldest events, are folded into digests and deleted whole.

import config from "mc/config";
import { File, System } from "file";
import { ArchiveError, listing, rethrowFatal, messageOf, scanBackward, readInto, USABLE_FRACTION, CHUNK } from "./file";
import { foldString } from "./fold";
import { type ArchiveType, type ArchivedItem, type ArchiveRecord } from "./line";
import { encodeRecord, encodeDigest, parseRecord, parseRecords, lineMayHold, lineT, STREAMS, STREAM_CODE, type Line, type Rec, type Stream, type ArchiveStreamName } from "./codec";
import { ArchiveStream, Buffers, scanRange, validEndOf, SEGMENT_BYTES } from "./stream";
import { recent, search, searchMany, digests, digestsMany, blankStats, TopK, wordsProbe, summaryFilter, scanWords, type Query, type RecallStats, type Budget } from "./query";
import { SUMMARY_MASK } from "./catalog";
export type { Budget } from "./query";
import { Tombstones } from "./tomb";
import { Migration } from "./migrate";
import { Scrubber } from "./scrub";
import { settleNames } from "./settle";
import { DigestBuilder } from "./digest";
import { lineKind, KIND_RECORD, readSide, SIDE_MAX } from "./segment";
import { daysInMonth, fromLocal, toLocal } from "../time/local";
import { truncate } from "../text/utf8";
import { now } from "../time/clock";

export { ArchiveError };
export type { ArchiveType, ArchivedItem, RecallStats };

export const DEFAULT_LIMIT = 10;
// a digest line's source (its "q") from here up: a folded episode, source − EPISODE_FOLD its id (FORMAT.md §3.9)
export const EPISODE_FOLD = 0x40000000;
export const MAX_LIMIT = 1000;
export const STORAGE_PARTITION_BYTES = 3 * 1024 * 1024; // partitions/*.csv "storage"
// Above this share of the partition, maintenance retires the oldest moments
// (then events): SPIFFS is reliable to about 75%, and the margin holds a
// segment being written, the NVS mirror files and the digest of what retires.
export const RETIRE_AT = 0.68;

// Idle steps (issue 29 item 5; docs/design/steps.md) each take at most 300 ms
// at the device's slowest flash speed (reads 0.45 MB/s, writes 0.035 MB/s,
// 0.1 ms a read call), with margin. A retire piece that appends digest lines
// writes them twice (the digest stream's open segment and its twin or parity)
// and reads its tail and at most one block: 2 × 2 KB / 35 + 8 KB / 450 +
// page headers ≈ 130–180 ms (test/scenarios/archive-steps.scn.ts bounds it).
export const RETIRE_PIECE_BYTES = 2048;
export const HARD_LIMIT = USABLE_FRACTION; // an append never takes the partition above it
export const VERIFY_MS = 3600000; // a sliced group of the catalog is checked once an hour

export interface ArchiveOptions {
  partitionBytes?: number; // the file system's size when System.info() cannot tell
}

export interface StreamReport {
  segments: number;
  bytes: number; // of its segment files
  unsealed: number; // full segments waiting for a step
  unreadable?: string[]; // segments that cannot be read now (kept, never deleted)
  repaired?: string[]; // what boot did (a twin put in place, a retire finished)
  catalog?: string; // why the catalog is being rebuilt
}

export interface CheckReport {
  fact: StreamReport;
  moment: StreamReport;
  event: StreamReport;
  digest: StreamReport;
  forgotten: number; // tombstones
  used: number; // bytes of the file system in use
  total: number;
  migrating?: boolean; // version-1 files are being migrated
  unlisted?: boolean; // the file system could not be listed: nothing is served until a later check can
}

export interface AppendResult {
  appended: number;
  skipped: number; // already archived (the same line at the end of the stream)
  bytes: number;
  retired?: number; // segments retired to make room
}

export interface StepReport {
  did: string; // what the step did, e.g. "seal f000012"
}

const TYPE_NAMES: Record<string, ArchiveType> = { fact: "fact", facts: "fact", moment: "moment", moments: "moment", event: "event", events: "event" };

export function archiveType(v: unknown): ArchiveType {
  const t = typeof v === "string" ? TYPE_NAMES[v] : undefined;
  if (!t) throw new ArchiveError("invalid", "type must be fact, moment or event");
  return t;
}

function limitOf(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_LIMIT;
  if (typeof v !== "number" || !(v >= 1)) throw new ArchiveError("invalid", "limit must be a positive integer");
  return Math.min(MAX_LIMIT, Math.floor(v));
}

// A bound of a time range, in unix seconds: YYYY-MM-DD, or with a time
// (YYYY-MM-DDTHH:MM[:SS], a space instead of T), local time. A date alone
// starts at 00:00:00 or ends at 23:59:59.
export function boundSeconds(v: unknown, what: string, end: boolean): number {
  if (v === undefined || v === null || v === "") return end ? 0xffffffff : 0;
  const s = typeof v === "string" ? v.trim() : "";
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
  if (!m) throw new ArchiveError("invalid", `${what} must be a date YYYY-MM-DD`);
  const y = Number(m[1]), mo = Number(m[2]), d = Number(m[3]);
  const h = m[4] !== undefined ? Number(m[4]) : end ? 23 : 0;
  const mi = m[5] !== undefined ? Number(m[5]) : end ? 59 : 0;
  const se = m[6] !== undefined ? Number(m[6]) : end ? 59 : 0;
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || se > 59) throw new ArchiveError("invalid", `${what} must be a date YYYY-MM-DD`);
  return Math.max(0, Math.floor(fromLocal(y, mo, d, h, mi, se) / 1000));
}

export class Archive {
  lastRecall: RecallStats = blankStats();
  readonly streams: Record<ArchiveStreamName, ArchiveStream>;
  readonly tombs: Tombstones;
  private bufs = new Buffers();
  private checked = false;
  private migration: Migration;
  private lastVerify = 0;
  private verifyNext = 0;
  private scrubber: Scrubber;
  private fallbackTotal: number;

  constructor(
    readonly root: string = config.file.root,
    opts: ArchiveOptions = {},
  ) {
    this.streams = {
      fact: new ArchiveStream(root, "fact", this.bufs),
      moment: new ArchiveStream(root, "moment", this.bufs),
      event: new ArchiveStream(root, "event", this.bufs),
      digest: new ArchiveStream(root, "digest", this.bufs),
    };
    this.tombs = new Tombstones(root);
    this.migration = new Migration(root, this.streams, this.bufs);
    this.scrubber = new Scrubber([this.streams.fact, this.streams.moment, this.streams.event], this.tombs, this.bufs, [this.streams.fact, this.streams.moment, this.streams.event, this.streams.digest]);
    this.fallbackTotal = opts.partitionBytes ?? STORAGE_PARTITION_BYTES;
  }

  // ---- boot -------------------------------------------------------------------------------

  // One listing of the root; per stream, the open segment's sidecar and tail
  // (a few KB); the catalogs' entries and the tombstones. Never throws (but a
  // power cut in the simulator): what cannot be read is named and kept.
  check(): CheckReport {
    // first of all: names a cut left on one object (src/archive/settle.ts)
    try {
      const settled = settleNames(this.root);
      if (settled.length) trace(`archive: ${settled.join("; ")}\n`);
    } catch (e) {
      rethrowFatal(e);
    }
    let files = this.files();
    let relist = false;
    for (const s of STREAMS) {
      try {
        if (Scrubber.recover(this.streams[s], files)) relist = true;
      } catch (e) {
        rethrowFatal(e);
      }
    }
    if (relist) files = this.files();
    try {
      this.migration.detect(files);
    } catch (e) {
      rethrowFatal(e);
    }
    for (const s of STREAMS) {
      try {
        this.streams[s].load(files);
      } catch (e) {
        rethrowFatal(e);
        this.streams[s].unreadable.push(messageOf(e));
      }
    }
    this.migration.floor();
    try {
      // without a listing every copy is opened: a tombstone is never missed
      this.tombs.load(this.bufs.side, (path) => !this.listed || files.has(path.slice(this.root.length)));
    } catch (e) {
      rethrowFatal(e);
    }
    this.checked = true;
    const r = this.report();
    const repaired = STREAMS.map((s) => this.streams[s].repaired.join("; ")).filter((x) => x);
    if (repaired.length) trace(`archive: ${repaired.join("; ")}\n`);
    return r;
  }

  // The root's files by name (one walk of the file system).
  private files(): Map<string, number> {
    const files = new Map<string, number>();
    const l = listing(this.root);
    this.listed = l !== undefined;
    l?.forEach((len, path) => files.set(path.slice(this.root.length), len));
    return files;
  }
  private listed = false; // the last listing worked: what it lacks does not exist

  report(): CheckReport {
    const one = (s: ArchiveStream): StreamReport => {
      let bytes = 0;
      s.segs.forEach((l) => (bytes += l));
      const r: StreamReport = { segments: s.segs.size, bytes, unsealed: s.unsealed().length };
      if (s.unreadable.length) r.unreadable = s.unreadable.slice();
      if (s.repaired.length) r.repaired = s.repaired.slice();
      if (s.cat.why) r.catalog = s.cat.why;
      return r;
    };
    const { used, total } = this.space();
    const r: CheckReport = { fact: one(this.streams.fact), moment: one(this.streams.moment), event: one(this.streams.event), digest: one(this.streams.digest), forgotten: this.tombs.size, used, total };
    if (this.migration.active) r.migrating = true;
    if (!this.listed) r.unlisted = true;
    return r;
  }

  // A file system that cannot be listed now is not taken for an empty one:
  // every operation is a clear ArchiveError until a check can list it.
  private ensure(): void {
    if (!this.checked) this.check();
    if (!this.listed) {
      this.checked = false;
      throw new ArchiveError("io", "archive: the file system cannot be listed now; nothing was read or written");
    }
  }

  // The file system's use: System.info() on the device.
  space(): { used: number; total: number } {
    try {
      const i = System.info();
      if (Number(i.total) > 0) return { used: Number(i.used), total: Number(i.total) };
    } catch (e) {
      rethrowFatal(e);
    }
    let used = 0;
    listing(this.root)?.forEach((l) => (used += l));
    return { used, total: this.fallbackTotal };
  }

  // Bytes of the archive's files on flash (status).
  footprint(): number {
    let n = 0;
    for (const s of STREAMS) this.streams[s].segs.forEach((l) => (n += l));
    return n;
  }

  get budget(): number {
    return Math.floor(this.space().total * HARD_LIMIT);
  }

  // ---- writing -------------------------------------------------------------------------------

  // Appends records to the archive of `type`; durable when it returns (the
  // segment and its twin hold them). Records already at the end of the stream
  // are skipped. When the partition is near its limit the oldest retirable
  // segment is digested and retired first: a full partition never blocks a new
  // memory while moments or events can make room. Throws ArchiveError
  // ("invalid", "full", "io"); nothing is acknowledged then.
  append(type: ArchiveType | "facts" | "moments" | "events", records: readonly ArchiveRecord[]): AppendResult {
    this.ensure();
    const t = archiveType(type);
    const lines: Line[] = [];
    let skipped = 0;
    for (const r of records) {
      let l: Line;
      try {
        l = encodeRecord(t, r);
      } catch (err) {
        throw new ArchiveError("invalid", err instanceof Error ? err.message : String(err));
      }
      if (lines.some((x) => x.id === l.id)) skipped++;
      else lines.push(l);
    }
    if (!lines.length) return { appended: 0, skipped, bytes: 0 };
    return this.write(this.streams[t], lines, skipped);
  }

  // Forgetting without amnesia (issue 25 item 6): episodes the forgetting
  // formula removes are folded into their month's digests, one digest line
  // each (docs/FORMAT.md §3.9: source = EPISODE_FOLD + the episode's id, so a
  // fold repeated after a cut has the same id and is shown once): who, what,
  // where and how it felt as keywords, the gist as its point. Durable when it
  // returns; throws ArchiveError like append.
  foldEpisodes(eps: readonly { id: number; content: string; keywords: readonly string[]; createdAt: number; feeling?: string }[]): AppendResult {
    this.ensure();
    const lines: Line[] = [];
    for (const ep of eps) {
      const l = toLocal(ep.createdAt * 1000);
      const month = `${l.year}-${l.month < 10 ? "0" : ""}${l.month}`;
      const kw: string[] = [];
      for (const k of ep.keywords.concat(ep.feeling ? [ep.feeling] : [])) if (k && kw.indexOf(k) < 0 && kw.length < 8) kw.push(k);
      let line: Line;
      try {
        line = encodeDigest({ from: ep.createdAt, to: ep.createdAt, month, count: 1, keywords: kw, points: truncate(ep.content, 300), source: EPISODE_FOLD + ep.id, events: false });
      } catch (err) {
        throw new ArchiveError("invalid", err instanceof Error ? err.message : String(err));
      }
      if (!lines.some((x) => x.id === line.id)) lines.push(line);
    }
    if (!lines.length) return { appended: 0, skipped: 0, bytes: 0 };
    return this.write(this.streams.digest, lines, 0);
  }

  private write(s: ArchiveStream, lines: Line[], skipped: number): AppendResult {
    let growth = 4096; // a new segment's header, twin and sidecar records
    for (const l of lines) growth += 2 * l.line.length;
    let retired = 0;
    for (let attempt = 0; ; attempt++) {
      const { used, total } = this.space();
      if (used + growth > total * HARD_LIMIT) {
        // full segments not sealed yet still have their twins: sealing drops them
        if (this.sealPending()) continue;
        if (this.retireOne()) {
          retired++;
          continue;
        }
        // sealed segments' twins make way for records (FORMAT.md §3.15)
        if (STREAMS.some((x) => this.streams[x].dropOldTwin() || this.streams[x].dropGhost())) continue;
        // nothing left to retire: a first try may still go up to 80% (SPIFFS
        // has room above its reliable 75%, and a memory is worth the margin)
        if (attempt > 0 || used + growth > total * 0.8) throw new ArchiveError("full", "archive: the storage partition is full and holds only facts and digests, which are never dropped");
      }
      try {
        const r = s.append(lines);
        const out: AppendResult = { appended: r.written, skipped: skipped + lines.length - r.written, bytes: r.bytes };
        if (retired) out.retired = retired;
        return out;
      } catch (e) {
        rethrowFatal(e);
        if (attempt > 2) throw e;
        if (e instanceof ArchiveError && e.code === "full") {
          if (!this.retireOne()) throw e;
          retired++;
          continue;
        }
        // learn the stream again (what reached flash) and try once more
        s.load(this.files());
        if (attempt > 0) throw e instanceof ArchiveError ? e : new ArchiveError("io", `archive: ${messageOf(e)}`);
      }
    }
  }

  // Which records are already archived (same id): for the move from NVS that
  // a cut interrupted. Reads only the segments and blocks whose times hold them.
  contains(type: ArchiveType | "facts" | "moments" | "events", records: readonly ArchiveRecord[]): boolean[] {
    this.ensure();
    const t = archiveType(type);
    const out = records.map(() => false);
    const want = new Map<string, number>();
    let lo = 0xffffffff, hi = 0;
    records.forEach((r, i) => {
      try {
        const l = encodeRecord(t, r);
        want.set(l.id, i);
        lo = Math.min(lo, l.t);
        hi = Math.max(hi, l.t);
      } catch (e) {
        rethrowFatal(e);
      }
    });
    if (!want.size) return out;
    const st = (this.lastRecall = blankStats());
    const top = new TopK(MAX_LIMIT);
    this.reading(t, () => search(this.streams[t], { lo, hi, limit: MAX_LIMIT, hidden: () => false }, top, st));
    for (const it of top.items()) {
      const i = want.get(it.id);
      if (i !== undefined) out[i] = true;
    }
    return out;
  }

  // Hides archived records at once (the owner asked to forget them). Their
  // bytes leave the flash when their segment is retired or rewritten
  // (FORMAT.md §3.7). Returns how many were newly hidden. Throws
  // ArchiveError when the tombstones cannot be written (nothing hidden).
  forget(type: ArchiveType | string, ids: readonly string[]): number {
    this.ensure();
    const t = archiveType(type);
    for (const id of ids) if (typeof id !== "string" || !/^[0-9a-f]{8}$/.test(id)) throw new ArchiveError("invalid", "an id is 8 lowercase hex digits");
    return this.tombs.add(
      ids.map((id) => ({ code: STREAM_CODE[t], id })),
      Math.floor(now() / 1000),
    );
  }

  // ---- upkeep ----------------------------------------------------------------------------------

  // One bounded piece of upkeep, or undefined when there is none. Each step
  // reads at most one segment (56 KB) and writes at most a few KB (a twin copy
  // writes 8 KB): well under 0.5 s at the device's flash speed.
  step(_nowMs = now()): StepReport | undefined {
    this.ensure();
    try {
      // a retire under way goes on first: its pieces make room, and a twin's
      // copy or a seal that fails for room in between would stop it for good
      if (this.retiring && this.retireOne(true)) return { did: "retire" };
      for (const s of STREAMS) {
        const st = this.streams[s];
        try {
          if (st.twinStep()) return { did: `twin ${s}` };
        } catch (e) {
          rethrowFatal(e);
          // a twin's copy that fails for room: the recode and retire, which
          // make room, go on (docs/design/update.md); the failure is reported
          // only when neither runs
          if (!(e instanceof ArchiveError) || e.code !== "full") throw e;
          const { used, total } = this.space();
          if (!this.migration.active) {
            const r = this.scrubber.recodeStep((bytes) => used + bytes + SIDE_MAX <= total * HARD_LIMIT);
            if (r) return { did: r };
          }
          if ((this.retiring || used > total * RETIRE_AT) && this.retireOne(true)) return { did: "retire" };
          throw e;
        }
      }
      for (const s of STREAMS) {
        const st = this.streams[s];
        const u = st.unsealed();
        if (u.length) {
          if (!st.seal(u[0], true)) return { did: `index ${s} ${u[0]}` };
          return { did: `seal ${s} ${u[0]}` };
        }
      }
      {
        // new twins and parity take room: only below the retire line (retire comes first)
        const { used, total } = this.space();
        const roomy = used + SEGMENT_BYTES <= total * RETIRE_AT;
        // a ghost (a retired moment or event segment's .par kept as a key)
        // goes by steps: a plain twin of its mate first (FORMAT.md §3.15);
        // its bytes need room below the hard line only, as the ghost they free
        for (const s of STREAMS) {
          const g = this.streams[s].ghostStep((bytes) => used + bytes <= total * HARD_LIMIT);
          if (g) return { did: `protect ${g}` };
        }
        for (const s of STREAMS) {
          const p = this.streams[s].protectStep(roomy);
          if (p) return { did: `protect ${p}` };
        }
      }
      for (const s of STREAMS) {
        const st = this.streams[s];
        const c = st.cat;
        if (c.sliceDue) {
          try {
            c.sliceStep(this.bufs.side, (e, out) => st.summarize(e.seq, out, e.set));
          } catch (e) {
            rethrowFatal(e);
            // its files cannot be read or written now (left not finalized: only
            // deleting helps): the catalog starts again, or this step would
            // fail for ever and retire, which comes after it, never run
            c.reset();
            throw e;
          }
          return { did: `slice ${s}` };
        }
      }
      const { used, total } = this.space();
      // format-2 segments written again as format 3 (docs/design/recode.md):
      // whenever the copy and its sidecar fit below the hard limit, before a
      // retire for room (each saves about 30% of a segment where a retire
      // loses moments' words); never during a format-1 migration
      if (!this.migration.active) {
        const r = this.scrubber.recodeStep((bytes) => used + bytes + SIDE_MAX <= total * HARD_LIMIT);
        if (r) return { did: r };
      }
      if ((this.retiring || used > total * RETIRE_AT) && this.retireOne(true)) return { did: "retire" };
      const m = this.migration.step();
      if (m) return { did: m };
      for (const s of STREAMS) {
        const st = this.streams[s];
        const live = (seq: number) => st.segs.has(seq);
        if (st.cat.slots > 16 && st.cat.dead(live) * 2 > st.cat.slots) {
          st.cat.reset(); // its segments are summarized again, one a step
          return { did: `catalog ${s}` };
        }
      }
      // a sliced group checked against its entries, then its summaries leave
      // `.sum` (docs/design/summaries.md): after retire, which a failing
      // write here must never hold up
      for (const s of STREAMS) {
        const c = this.streams[s].cat;
        if (c.checkDue) {
          const g = c.checked;
          return { did: c.checkStep(this.bufs.side) ? `slice ${s} group ${g} checked` : `slice ${s} group ${g} failed its check: built again` };
        }
        if (c.trimDue) {
          c.trimStep(this.bufs.chunk);
          return { did: `trim ${s}` };
        }
      }
      const d = this.scrubber.step((bytes) => used + bytes <= total * HARD_LIMIT);
      if (d) return { did: d };
      // a sliced group is checked against its CRC now and then: a flipped bit
      // there could hide a segment from a keyword (it is built again if so)
      if (_nowMs - this.lastVerify >= VERIFY_MS) {
        this.lastVerify = _nowMs;
        for (const s of STREAMS) {
          const c = this.streams[s].cat;
          if (!c.sliced) continue;
          const g = this.verifyNext++ % c.sliced;
          if (!c.verifyGroup(g, this.bufs.side)) return { did: `slice ${s} group ${g} failed its check: built again` };
        }
      }
    } catch (e) {
      rethrowFatal(e);
      trace(`archive: step failed: ${messageOf(e)}\n`);
      return { did: `failed: ${messageOf(e)}` };
    }
    return undefined;
  }

  // Runs steps until there is nothing left or one fails (tests, tools; never on
  // the device's conversation path). Returns the number of steps.
  settle(max = 10000): number {
    let n = 0;
    for (let r; n < max && (r = this.step()); ) {
      n++;
      if (r.did.indexOf("failed") === 0) break;
    }
    return n;
  }

  // Seals every full segment at once (an append short of room).
  private sealPending(): boolean {
    let did = false;
    for (const x of STREAMS) {
      const st = this.streams[x];
      for (const seq of st.unsealed()) {
        try {
          st.seal(seq);
          did = true;
        } catch (e) {
          rethrowFatal(e);
        }
      }
    }
    return did;
  }

  // Retires the oldest sealed segment of moments (then events) with the other
  // member of its pair: their monthly digests are appended first, then they
  // are deleted. As steps (`piecewise`) it goes in pieces, each one of: read
  // a segment into its digest lines (held in RAM), append at most
  // RETIRE_PIECE_BYTES of them, delete the segments (docs/design/steps.md: each
  // within the 300 ms step budget); an append short of room does it all at
  // once. Nothing of the retire is on flash but the digest lines already
  // appended: a cut anywhere starts it again from the oldest segment, which
  // is still there until the last piece, and the same lines are appended again
  // (those still in the digest stream's tail are not written twice; one per
  // id in every answer).
  private retireOne(piecewise = false): boolean {
    if (this.retiring) return this.retireOn(piecewise);
    for (const type of ["moment", "event"] as const) {
      const s = this.streams[type];
      const seqs = s.newestFirst().reverse();
      for (const seq of seqs) {
        if (s.open && s.open.seq === seq) continue;
        // segments are protected in pairs (FORMAT.md §3.15): the other member
        // of its pair goes with it, unless that one takes appends (this one's
        // parity then stays as its twin's key: stream.retire)
        const g = s.gOf(seq);
        let mate: number | undefined;
        if (!(s.open && s.gOf(s.open.seq) === g)) for (const m of s.members(g)) if (m.seq !== seq) mate = m.seq;
        // an append short of room retires at once: the segments' plain twins
        // go first (their room takes the digest lines; the retire ends in this call)
        for (const q of mate === undefined ? [seq] : [seq, mate])
          if (!piecewise && s.twins.has(q)) {
            File.delete(s.path(q, "twn"));
            s.twins.delete(q);
          }
        // (the other member is read when this one's digest lines are written)
        this.retiring = { s, seq, mate, type };
        return this.retireOn(piecewise);
      }
    }
    return false;
  }

  // The retire under way: one piece as a step, all of it for an append short of room.
  private retireOn(piecewise: boolean): true {
    if (!piecewise) while (this.retiring) this.retirePiece();
    else this.retirePiece();
    return true;
  }

  // `lines`: the digest lines of the segment read last not yet appended
  // (undefined: the next piece reads seq, then the mate)
  private retiring: { s: ArchiveStream; seq: number; mate?: number; type: "moment" | "event"; mateRead?: boolean; lines?: Line[] } | undefined;

  // One piece of the retire under way (see retireOne): one segment read, or
  // one append of digest lines, or the deletion of the pair.
  private retirePiece(): boolean {
    const r = this.retiring!;
    if (!r.s.segs.has(r.seq)) {
      this.retiring = undefined; // gone meanwhile
      return true;
    }
    if (!r.lines) {
      r.lines = this.digestSegment(r.s, r.seq, r.type);
      return true;
    }
    let n = 0, bytes = 0;
    while (n < r.lines.length && (n === 0 || bytes + r.lines[n].line.length <= RETIRE_PIECE_BYTES)) bytes += r.lines[n++].line.length;
    if (n) {
      try {
        this.streams.digest.append(r.lines.slice(0, n));
      } catch (e) {
        rethrowFatal(e);
        // no room for the digest lines: the segment's twin or its pair's
        // parity (going with it) makes it
        if (!(e instanceof ArchiveError && e.code === "full")) throw e;
        if (r.s.twins.has(r.seq)) {
          File.delete(r.s.path(r.seq, "twn"));
          r.s.twins.delete(r.seq);
        } else if (!r.s.dropParityOf(r.seq)) throw e;
        this.streams.digest.append(r.lines.slice(0, n));
      }
      r.lines = r.lines.slice(n);
      return true;
    }
    if (r.mate !== undefined && !r.mateRead && r.s.segs.has(r.mate)) {
      r.mateRead = true;
      r.lines = this.digestSegment(r.s, r.mate, r.type);
      return true;
    }
    {
      this.retiring = undefined;
      r.s.retire(r.seq);
      if (r.mate !== undefined && r.s.segs.has(r.mate)) r.s.retire(r.mate);
    }
    return true;
  }

  // Reads one segment (at most 56 KB) and gives its monthly digest lines.
  private digestSegment(s: ArchiveStream, seq: number, type: "moment" | "event"): Line[] {
    const b = new DigestBuilder();
    const f = s.openRead(seq);
    try {
      const end = validEndOf(f, f.length, this.bufs.chunk);
      scanRange(f, 0, end, this.bufs.chunk, (buf, ls, le, size) => {
        if (size === le - ls || lineKind(buf, ls, le) !== KIND_RECORD) return;
        const it = parseRecord(buf, ls, le, type);
        if (!it || this.tombs.has(STREAM_CODE[type], it.id)) return;
        try {
          b.add({ t: lineT(buf, ls, le), type, topic: it.topic, content: it.content, importance: it.importance, significance: it.significance, emotion_type: it.emotion_type, emotion_intensity: it.emotion_intensity });
        } catch (e) {
          rethrowFatal(e); // a record the digest refuses is left out of it, never a reason not to retire
        }
      });
    } finally {
      f.close();
    }
    const lines: Line[] = [];
    for (const d of b.take())
      lines.push(encodeDigest({ from: d.from, to: d.to, month: d.month, count: d.moments + d.events, keywords: d.keywords, points: d.points.join("；"), source: seq, events: type === "event" }));
    return lines;
  }

  // ---- recall ----------------------------------------------------------------------------------

  private query(lo: number, hi: number, keyword: string | undefined, limit: number, budget?: Budget): Query {
    return { lo, hi, folded: keyword ? foldString(keyword) : undefined, limit, hidden: (code, id) => this.tombs.has(code, id), budget };
  }

  // The last `limit` records archived, newest first.
  recallRecent(type: ArchiveType | string, limit?: number): ArchivedItem[] {
    this.ensure();
    const t = archiveType(type);
    const n = limitOf(limit);
    const st = (this.lastRecall = blankStats());
    return this.reading(t, () => recent(this.streams[t], n, this.query(0, 0xffffffff, undefined, n), st));
  }

  // Records with start <= time <= end (local dates, inclusive), newest first;
  // for moments and events also the digests of what has left the flash.
  recallByTimeRange(type: ArchiveType | string, start?: string, end?: string, limit?: number, budget?: Budget): ArchivedItem[] {
    this.ensure();
    const t = archiveType(type);
    const lo = boundSeconds(start, "start_date", false), hi = boundSeconds(end, "end_date", true);
    const n = limitOf(limit);
    const st = (this.lastRecall = blankStats());
    if (lo > hi) return [];
    return this.run(t, this.query(lo, hi, undefined, n, budget), st);
  }

  // Records whose content or topic contains the keyword, newest first. Latin
  // letters match in any case, full-width ASCII matches half-width.
  recallByKeyword(type: ArchiveType | string, keyword: string, limit?: number, budget?: Budget): ArchivedItem[] {
    this.ensure();
    const t = archiveType(type);
    if (typeof keyword !== "string" || !keyword.trim()) throw new ArchiveError("invalid", "keyword is required");
    const n = limitOf(limit);
    const st = (this.lastRecall = blankStats());
    return this.run(t, this.query(0, 0xffffffff, keyword.trim(), n, budget), st);
  }

  // Several keywords in one pass over the stream (a summary, a sidecar, a
  // block is read once for all): for each keyword, its `limit` newest records,
  // as recallByKeyword gives them when the budget is not spent.
  recallMany(type: ArchiveType | string, keywords: readonly string[], q: { limit?: number; budget?: Budget }): ArchivedItem[][] {
    this.ensure();
    const t = archiveType(type);
    const ks = keywords.map((k) => (typeof k === "string" ? k.trim() : "")).filter((k) => k !== "");
    if (!ks.length) return [];
    const n = limitOf(q.limit);
    const st = (this.lastRecall = blankStats());
    const qs = ks.map((k) => this.query(0, 0xffffffff, k, n, q.budget));
    return this.reading(t, () => {
      const tops = qs.map((x) => new TopK(x.limit));
      searchMany(this.streams[t], qs, tops, st);
      if (t !== "fact" && this.streams.digest.segs.size) digestsMany(this.streams.digest, t === "event", qs, tops, st);
      qs.forEach((x, i) => this.migration.search(t, x, tops[i]));
      return tops.map((top) => top.items());
    });
  }

  private run(t: ArchiveType, q: Query, st: RecallStats): ArchivedItem[] {
    return this.reading(t, () => {
      const top = new TopK(q.limit);
      search(this.streams[t], q, top, st);
      if (t !== "fact" && this.streams.digest.segs.size) digests(this.streams.digest, t === "event", q, top, st);
      this.migration.search(t, q, top);
      return top.items();
    });
  }

  // A read the file system refuses (a read error, no free descriptor) is a
  // clear ArchiveError("io"), never a partial answer: the caller serves what
  // NVS holds and says the archive could not be read now.
  private reading<T>(t: ArchiveType, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      rethrowFatal(e);
      if (e instanceof ArchiveError) throw e;
      throw new ArchiveError("io", `archive: the ${t} archive cannot be read now (${messageOf(e)}); it is kept as it is`);
    }
  }

  // The MCP tool's recall (seed 000 §12.6): by keyword if one is given, else by
  // time range if a bound is given, else the most recent. `budget`: flash
  // bytes a keyword or range lookup may read, shared by the caller's lookups
  // (query.ts Budget): when spent, what is older is not read and budget.cut
  // says so.
  recall(type: ArchiveType | string, q: { keyword?: string; start?: string; end?: string; limit?: number; budget?: Budget }): ArchivedItem[] {
    if (q.keyword !== undefined && q.keyword.trim() !== "") return this.recallByKeyword(type, q.keyword, q.limit, q.budget);
    if (q.start || q.end) return this.recallByTimeRange(type, q.start, q.end, q.limit, q.budget);
    return this.recallRecent(type, q.limit);
  }

  // Records archived in one stream (reads the sidecars of segments the catalog
  // does not cover yet, and the open segment's tail count).
  count(type: ArchiveType | string): number {
    this.ensure();
    const s = this.streams[archiveType(type)];
    let n = 0;
    for (const seq of s.newestFirst()) {
      const e = s.cat.entries.get(seq);
      if (e && e.bytes === s.segs.get(seq) && !(s.open && s.open.seq === seq)) {
        n += e.records;
        continue;
      }
      if (s.open && s.open.seq === seq) {
        for (const b of s.open.blocks) n += b.records;
        n += s.open.tailRecords;
        continue;
      }
      try {
        const side = readSide(s.path(seq, "six"), s.stream, seq, s.segs.get(seq) ?? 0, this.bufs.side);
        for (const b of side.blocks) n += b.records;
        const f = s.openRead(seq);
        try {
          const recs: Rec[] = [];
          scanRange(f, side.indexedEnd, validEndOf(f, f.length, this.bufs.chunk), this.bufs.chunk, (buf, ls, le, size) => {
            // a packed fact line counts its facts (FORMAT.md §3.19)
            if (size > le - ls && lineKind(buf, ls, le) === KIND_RECORD) n += parseRecords(buf, ls, le, s.stream, recs) ? recs.length : 1;
          });
        } finally {
          f.close();
        }
      } catch (e) {
        rethrowFatal(e);
      }
    }
    return n;
  }

  counts(): Record<ArchiveType, number> {
    return { fact: this.count("fact"), moment: this.count("moment"), event: this.count("event") };
  }

  // Streams one stream's records (fact, moment, event) or its monthly digests
  // ("digest") for the query language (src/query): newest segment first and
  // newest line first inside it, one 4 KB chunk in RAM at a time; forgotten
  // records are skipped; `fn` returns true to stop (nothing more is read). A
  // segment that cannot be opened is skipped and named in `unreadable`; a read
  // that fails is ArchiveError("io"). Format-1 records not migrated yet are
  // not seen (`migrating`). A record a cut left twice may come twice. With
  // `range` (unix seconds, inclusive) only records of that time come: sealed
  // segments whose catalog range misses it are not read, and other lines are
  // skipped on their raw time before any parse. `budget` (query.ts): a
  // segment is read only when its bytes (and the search for its end) fit.
  // `range.words` (folded; fact, moment and event streams): only records whose
  // texts hold every word need come: sealed segments whose summary and
  // blocks whose sidecar signature provably hold none are not read
  // (query.ts scanWords); the records that come, and their order, are the
  // full scan's but for ones that cannot hold the words.
  scan(stream: ArchiveType | "digest", fn: (item: ArchivedItem) => boolean | void, range?: { lo: number; hi: number; words?: readonly Uint8Array[] }, budget?: Budget): { unreadable: string[]; migrating: boolean } {
    this.ensure();
    const t: Stream = stream === "digest" ? "digest" : archiveType(stream);
    const s = this.streams[t];
    const unreadable: string[] = [];
    let stop = false;
    const probe = t !== "digest" && range && range.words && range.words.length ? wordsProbe(range.words) : undefined;
    this.reading(t as ArchiveType, () => {
      const lo = range ? range.lo : 0, hi = range ? range.hi : 0xffffffff;
      // a sealed segment's summary is read when the scan reaches it (a scan that stops early reads no more)
      const may = probe && probe.length && range && range.words ? summaryFilter(s, wordsProbe(range.words, SUMMARY_MASK)) : undefined;
      // A sidecar costs about 8% of its segment, and pays only when its
      // signatures rule a block out. After `idle` sidecars in a row that ruled
      // out none (words in every block), as many sealed segments within the
      // range are read whole without theirs before the next is tried.
      const ruled = { blocks: 0 };
      let idle = 0, skip = 0;
      for (const seq of s.newestFirst()) {
        if (stop) break;
        const e = s.cat.entries.get(seq);
        if (e && e.bytes === s.segs.get(seq) && !(s.open && s.open.seq === seq)) {
          if (e.max < lo || e.min > hi) continue;
          if (may && !may(e)) continue;
        }
        if (budget) {
          const len = s.segs.get(seq) ?? SEGMENT_BYTES;
          const cost = len + (s.open && s.open.seq === seq ? 0 : Math.min(len, CHUNK));
          if (budget.left < cost) {
            budget.cut = true;
            break;
          }
          budget.left -= cost;
        }
        let f: File | undefined;
        for (let attempt = 0; !f && attempt < 2; attempt++)
          try {
            f = s.openRead(seq);
          } catch (e) {
            rethrowFatal(e);
          }
        if (!f) {
          unreadable.push(s.path(seq));
          continue;
        }
        try {
          const recs: Rec[] = [];
          const line = (buf: Uint8Array, ls: number, le: number): boolean | void => {
            const lt = range ? lineT(buf, ls, le) : -1;
            if (lt >= 0 && !lineMayHold(buf, ls, le, t, lt, lo, hi)) return;
            if (lineKind(buf, ls, le) !== KIND_RECORD || !parseRecords(buf, ls, le, t, recs)) return;
            // newest first: a packed line's facts from its last
            for (let i = recs.length - 1; i >= 0; i--) {
              const { it, t: rt } = recs[i];
              if (range && (rt < lo || rt > hi)) continue;
              if (this.tombs.has(STREAM_CODE[it.digest ? it.type : t], it.id)) continue;
              if (fn(it) === true) {
                stop = true;
                return false;
              }
            }
          };
          if (probe && probe.length) {
            const whole = !!e && e.min >= lo && e.max <= hi && skip > 0;
            ruled.blocks = 0;
            scanWords(s, f, seq, whole ? undefined : probe, lo, hi, line, ruled);
            if (whole) skip--;
            else if (ruled.blocks) idle = 0;
            else skip = ++idle;
          }
          else scanBackward(f, s.open && s.open.seq === seq ? s.open.validEnd : validEndOf(f, f.length, this.bufs.chunk), this.bufs.chunk, line);
        } finally {
          f.close();
        }
      }
    });
    return { unreadable, migrating: this.migration.active };
  }

  // Where a stream ends now (its newest segment and that segment's end): the
  // place `since` would reach after reading everything, without reading.
  end(stream: ArchiveType | "digest"): { seq: number; pos: number } {
    this.ensure();
    const s = this.streams[stream === "digest" ? "digest" : archiveType(stream)];
    const seqs = s.newestFirst();
    if (!seqs.length) return { seq: 0, pos: 0 };
    const seq = seqs[0];
    return { seq, pos: s.open && s.open.seq === seq ? s.open.validEnd : s.segs.get(seq) ?? 0 };
  }

  // The records of a stream appended at or after `from` (a segment number and
  // a byte offset in it), oldest first, for a sync (src/sync): `fn` gets each
  // with the place just after its line and returns true to stop. Returns where
  // the next call starts. Forgotten records are left out. A place that is no
  // longer a line boundary (the segment was written again without forgotten
  // lines, FORMAT.md §3.7) restarts that segment from its start: a record may
  // come twice, never be missed.
  since(stream: ArchiveType | "digest", from: { seq: number; pos: number }, fn: (item: ArchivedItem, at: { seq: number; pos: number }) => boolean | void): { seq: number; pos: number } {
    this.ensure();
    const t: Stream = stream === "digest" ? "digest" : archiveType(stream);
    const s = this.streams[t];
    let at = { seq: from.seq, pos: from.pos };
    let stop = false;
    const recs: Rec[] = [];
    this.reading(t as ArchiveType, () => {
      for (const seq of s.newestFirst().reverse()) {
        if (stop || seq < from.seq) continue;
        const f = s.openRead(seq);
        try {
          const end = s.open && s.open.seq === seq ? s.open.validEnd : validEndOf(f, f.length, this.bufs.chunk);
          let start = seq === from.seq ? from.pos : 0;
          if (start > end) start = 0;
          if (start > 0) {
            const b = this.bufs.chunk;
            if (readInto(f, start - 1, 1, b) !== 1 || b[0] !== 10) start = 0;
          }
          at = { seq, pos: start };
          scanRange(f, start, end, this.bufs.chunk, (buf, ls, le, size, pos) => {
            if (size === le - ls) return; // no newline: a torn append, never a record
            const next = { seq, pos: pos + size };
            // every record of a line before the place moves past it: a packed
            // fact line's facts all go, even after fn asked to stop (FORMAT.md §3.19)
            let halt = false;
            if (lineKind(buf, ls, le) === KIND_RECORD && parseRecords(buf, ls, le, t, recs))
              for (const { it } of recs) if (!(t !== "digest" && this.tombs.has(STREAM_CODE[t], it.id)) && fn(it, next) === true) halt = true;
            at = next;
            if (halt) {
              stop = true;
              return false;
            }
          });
        } finally {
          f.close();
        }
      }
    });
    return at;
  }

  // Every record of one stream, oldest segment first (tests and tools; reads everything).
  forEach(type: ArchiveType | string, fn: (item: ArchivedItem, pos: number) => void): number {
    this.ensure();
    const t = archiveType(type);
    const s = this.streams[t];
    let n = 0;
    const recs: Rec[] = [];
    for (const seq of s.newestFirst().reverse()) {
      const f = s.openRead(seq);
      try {
        scanRange(f, 0, validEndOf(f, f.length, this.bufs.chunk), this.bufs.chunk, (buf, ls, le, size, pos) => {
          if (size === le - ls || lineKind(buf, ls, le) !== KIND_RECORD || !parseRecords(buf, ls, le, t, recs)) return;
          for (const { it } of recs) {
            if (this.tombs.has(STREAM_CODE[t], it.id)) continue;
            n++;
            fn(it, pos);
          }
        });
      } finally {
        f.close();
      }
    }
    return n;
  }
}


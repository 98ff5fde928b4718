// The deep archive (seed 000 §3.6, §12): one JSONL file per type under the file
// root, each with a sidecar index, on SPIFFS. docs/FORMAT.md §3.
//
//   const archive = new Archive();          // config.file.root
//   archive.check();                        // at boot: recover, verify, report
//   archive.append("fact", facts);          // durable when it returns
//   archive.recallByKeyword("fact", "北京");  // newest first
//
// Every operation runs check() first if boot has not. Appends are crash-safe:
// a torn last line is never returned and the next append starts on a clean
// line; archiving a record twice is detected by its id and skipped. When the
// archive nears its budget the oldest blocks are compacted away and counted;
// a file system that is genuinely full is an ArchiveError("full").

import config from "mc/config";
import { System } from "file";
import { File } from "file";
import { ArchiveError, CHUNK, exists, listing, openAppend, writeAt, scanForward, validEnd, remove, rethrowFatal, messageOf } from "./file";
import { foldString } from "./fold";
import { ARCHIVE_TYPES, encodeRecord, parseLine, lineKey, tsKey, type ArchiveType, type ArchivedItem, type ArchiveRecord, type Encoded } from "./line";
import { Buffers, blankStats, recallRange, recallKeyword, recallRecent, findRecords, forEachRecord, type RecallStats } from "./recall";
import { BlockBuilder, ENTRY_BYTES } from "./sidecar";
import { SIG_BYTES } from "./fold";
import { typeState, footprintOf, type TypeState } from "./state";
import { recover, plan, rewrite, type CompactReport } from "./compact";
import { encode } from "../text/utf8";
import { daysInMonth } from "../time/local";

export { ArchiveError };
export type { ArchiveType, ArchivedItem, CompactReport, RecallStats };

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 1000;
// Share of the partition the archive may use: compaction copies a file while
// the old one still exists, so the budget plus what compaction keeps must stay
// under SPIFFS's reliable 75%.
export const BUDGET_FRACTION = 0.4;
export const STORAGE_PARTITION_BYTES = 3 * 1024 * 1024; // partitions/*.csv "storage"

// The file system's size: System.info() on the device; the desktop simulator's
// file module reports nothing, so the partition table's size stands in.
function partitionBytes(): number {
  let total = NaN;
  try {
    total = Number(System.info().total);
  } catch {
    // no information
  }
  return total > 0 ? total : STORAGE_PARTITION_BYTES;
}
export const LOW_WATER = 0.75; // compaction brings the archive down to this share of the budget
export const SOFT_LIMIT = 0.9; // maintenance compacts above this share

export interface ArchiveOptions {
  budget?: number; // bytes for all archive files, indexes included
}

export interface TypeReport {
  records: number;
  bad: number; // lines that are not records (torn, damaged), skipped
  bytes: number; // of the JSONL file
  torn: number; // bytes after the last complete line (a torn append)
  blocks: number; // indexed blocks
  dropped: number; // records dropped by compactions so far
  rebuilt?: string; // why the index was rebuilt
  recovered?: string[]; // what was done about an interrupted compaction
  unreadable?: string; // why the file is set aside (not read, not written, nothing deleted); tried again at its next use
  index?: string; // why the index could not be written (the unindexed part is scanned instead)
  damaged?: number; // indexed blocks found damaged at the check (their records are served marked `damaged`)
  emptied?: number; // bytes a failed write open emptied (the device's "wb+" fallback; DESIGN.md "Faults")
}

export interface CheckReport {
  fact: TypeReport;
  moment: TypeReport;
  event: TypeReport;
  footprint: number;
  budget: number;
}

export interface AppendResult {
  appended: number;
  skipped: number; // already archived (same id)
  bytes: number;
  compacted?: CompactReport;
}

// Turns what a read of the file threw into a clear ArchiveError.
function readFailure(t: TypeState, e: unknown): ArchiveError {
  return e instanceof ArchiveError ? e : new ArchiveError("io", `archive: cannot read the ${t.type} archive now (${messageOf(e)})`);
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

// A bound of a time range: YYYY-MM-DD, or with a time (YYYY-MM-DDTHH:MM[:SS],
// a space instead of T). A date alone starts at 00:00:00 or ends at 23:59:59.
export function boundKey(v: unknown, what: string, end: boolean): number {
  if (v === undefined || v === null || v === "") return end ? 0xffffffff : 0;
  const s = typeof v === "string" ? v.trim() : "";
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2})?)?$/.exec(s);
  const iso = m ? `${m[1]}T${m[2] ?? (end ? "23:59" : "00:00")}${m[3] ?? (end ? ":59" : ":00")}` : "";
  const k = iso ? tsKey(encode(iso), 0) : -1;
  if (k < 0 || Number(iso.slice(8, 10)) > daysInMonth(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)))) throw new ArchiveError("invalid", `${what} must be a date YYYY-MM-DD`);
  return k;
}

export class Archive {
  readonly budget: number;
  lastRecall: RecallStats = blankStats();
  lastCompaction: CompactReport | undefined;
  private states: Record<ArchiveType, TypeState>;
  private bufs = new Buffers();
  private checked = false;

  constructor(readonly root: string = config.file.root, opts: ArchiveOptions = {}) {
    this.states = { fact: typeState(root, "fact"), moment: typeState(root, "moment"), event: typeState(root, "event") };
    this.budget = opts.budget ?? Math.floor(partitionBytes() * BUDGET_FRACTION);
  }

  // ---- boot ---------------------------------------------------------------------

  // Finishes or undoes an interrupted compaction, finds the valid end of each
  // file, checks each index against its file (rebuilding it if it does not
  // match) and indexes what is not yet indexed. Never throws (but a power cut
  // in the simulator): a file that cannot be read, or whose compaction cannot
  // be finished, is set aside and reported, and the others are served.
  check(): CheckReport {
    let files = listing(this.root);
    for (const type of ARCHIVE_TYPES) files = this.prepare(this.states[type], files);
    this.checked = true;
    return this.report();
  }

  report(): CheckReport {
    const one = (t: TypeState): TypeReport => {
      const r: TypeReport = {
        records: t.side.records + t.tailRecords,
        bad: t.side.bad + t.tailBad,
        bytes: t.length,
        torn: t.length - t.validEnd,
        blocks: t.side.entries,
        dropped: t.side.dropped,
      };
      if (t.rebuilt) r.rebuilt = t.rebuilt;
      if (t.recovered.length) r.recovered = t.recovered.slice();
      if (t.unreadable) r.unreadable = t.unreadable;
      if (t.indexError) r.index = t.indexError;
      if (t.side.damaged) r.damaged = t.side.damaged;
      if (t.emptied) r.emptied = t.emptied;
      return r;
    };
    return { fact: one(this.states.fact), moment: one(this.states.moment), event: one(this.states.event), footprint: this.footprint(), budget: this.budget };
  }

  private ensure(): void {
    if (!this.checked) this.check();
  }

  // Recovers and loads one file; never throws. Returns the listing to go on with.
  private prepare(t: TypeState, files: Map<string, number> | undefined): Map<string, number> | undefined {
    t.recovered = [];
    try {
      const known = files;
      recover(t, known ? (p) => known.has(p) : exists, t.recovered);
    } catch (e) {
      rethrowFatal(e);
      // the files stay as they are: the next check or use finishes the recovery
      files = listing(this.root);
      this.setAside(t, `recovery: ${messageOf(e)}`, files);
      return files;
    }
    if (t.recovered.length) files = listing(this.root);
    this.load(t, files);
    return files;
  }

  private setAside(t: TypeState, why: string, files: Map<string, number> | undefined): void {
    if (t.unreadable !== why) trace(`archive: ${t.path} set aside: ${why}\n`);
    t.unreadable = why;
    t.stale = false;
    t.length = t.validEnd = files?.get(t.path) ?? 0; // its space still counts
    t.tailRecords = t.tailBad = 0;
    t.side.reset();
  }

  // Makes a file usable before an operation: one set aside or known to be
  // stale is checked again. Throws ArchiveError("io") if it is still unreadable.
  private ready(t: TypeState): void {
    if (t.unreadable || t.stale) this.prepare(t, listing(this.root));
    if (t.unreadable) throw new ArchiveError("io", `archive: the ${t.type} archive cannot be read now (${t.unreadable}); it is kept as it is and tried again later`);
  }

  // Learns again the files known to be stale, so that sizes are true.
  private refresh(): void {
    for (const x of ARCHIVE_TYPES) if (this.states[x].stale) this.prepare(this.states[x], listing(this.root));
  }

  // Runs a read of one file. A failure (a read error, an index entry found
  // damaged, an index emptied by a failed open) reloads the file, which
  // rebuilds an index that does not check out, and runs it once more (unless
  // `once`: fn has already given results away); a second failure is a clear
  // ArchiveError, never a partial answer.
  private reading<T>(t: TypeState, fn: () => T, once = false): T {
    this.ready(t);
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (e) {
        rethrowFatal(e);
        if (e instanceof ArchiveError && e.code !== "io") throw e;
        t.stale = true;
        if (attempt === 0 && !once) {
          this.prepare(t, listing(this.root));
          if (!t.unreadable) continue;
        }
        throw readFailure(t, e);
      }
    }
  }

  // The data file, or undefined when it does not exist. A file that exists
  // (the listing shows it) but cannot be opened is never taken as empty.
  private openData(t: TypeState, files: Map<string, number> | undefined): File | undefined {
    if (files && !files.has(t.path)) return undefined;
    try {
      return new File(t.path);
    } catch (e) {
      rethrowFatal(e);
      if (files || exists(t.path)) throw new ArchiveError("io", `cannot open ${t.path}: ${messageOf(e)}`);
      return undefined;
    }
  }

  // Learns one file and its index; never throws. A file that cannot be read
  // is set aside: nothing about it is deleted or rewritten. An index that
  // cannot be read or does not match is rebuilt from a readable file; one that
  // cannot be written leaves the rest of the file unindexed (scanned).
  // `files`: a listing of the root, when there is one (saves a walk per file).
  private load(t: TypeState, files?: Map<string, number>): void {
    t.rebuilt = t.unreadable = t.indexError = undefined;
    t.stale = false;
    t.tailRecords = t.tailBad = 0;
    let f: File | undefined;
    try {
      f = this.openData(t, files);
      t.length = f ? f.length : 0;
      t.validEnd = f ? validEnd(f, t.length, this.bufs.chunk) : 0;
      let why = t.side.load(f, t.validEnd, this.bufs.chunk, files);
      // a read of the index that failed once is tried again before the index
      // is rebuilt (a rebuild rewrites it and loses its counters)
      if (why && why.indexOf("index unreadable") === 0) why = t.side.load(f, t.validEnd, this.bufs.chunk, files);
      if (why) {
        t.rebuilt = why;
        try {
          if (t.validEnd > 0) t.side.create();
          else {
            remove(t.side.idxPath);
            remove(t.side.sigPath);
            t.side.load(undefined, 0, this.bufs.chunk);
          }
        } catch (e) {
          rethrowFatal(e);
          t.indexError = messageOf(e);
          t.side.reset();
        }
      }
      this.catchUp(t, f);
    } catch (e) {
      rethrowFatal(e);
      this.setAside(t, messageOf(e), files);
    } finally {
      f?.close();
    }
  }

  // Indexes the finished blocks after the indexed ones; counts the tail. An
  // index write that fails leaves those blocks in the tail; a read that fails throws.
  private catchUp(t: TypeState, f: File | undefined): void {
    t.tailRecords = t.tailBad = 0;
    if (!f || t.side.indexedEnd >= t.validEnd) return;
    const b = new BlockBuilder(t.side, t.side.indexedEnd);
    scanForward(f, t.side.indexedEnd, t.validEnd, this.bufs.chunk, (buf, s, e, _pos, size) => {
      const rec = parseLine(buf, s, e, t.type);
      b.add(buf, s, size, rec, rec ? lineKey(buf, s, e) : -1);
    });
    b.flush();
    t.tailRecords = b.tail.records + b.unindexedRecords;
    t.tailBad = b.tail.bad + b.unindexedBad;
    if (b.failed) {
      t.indexError = messageOf(b.failed);
      // an index file left short (emptied by a failed open) is rebuilt at the
      // next use; a full file system is not tried again until then
      if (!(b.failed instanceof ArchiveError && b.failed.code === "full")) t.stale = true;
    }
  }

  // ---- writing ------------------------------------------------------------------

  // Bytes of all archive files on flash, indexes included.
  footprint(): number {
    let n = 0;
    for (const type of ARCHIVE_TYPES) n += footprintOf(this.states[type]);
    return n;
  }

  // Appends records to the archive of `type`; durable when it returns. Records
  // already archived (same id and content) are skipped. Throws ArchiveError:
  // "invalid" for something that is not a record, "full" when the file system
  // cannot take the lines even after compaction, "io" when the file cannot be
  // read or written now (set aside, or a write failed twice). Whatever it
  // throws, nothing acknowledged is lost: the caller keeps the records.
  append(type: ArchiveType | "facts" | "moments" | "events", records: readonly ArchiveRecord[]): AppendResult {
    this.ensure();
    const t = this.states[archiveType(type)];
    const enc: Encoded[] = [];
    let skipped = 0;
    for (const r of records) {
      let e: Encoded;
      try {
        e = encodeRecord(t.type, r);
      } catch (err) {
        throw new ArchiveError("invalid", err instanceof Error ? err.message : String(err));
      }
      if (enc.some((x) => x.id === e.id)) skipped++;
      else enc.push(e);
    }
    const st = (this.lastRecall = blankStats());
    const found = this.reading(t, () => findRecords(t, this.bufs, st, enc));
    const fresh = enc.filter((_e, i) => !found[i]);
    skipped += enc.length - fresh.length;
    if (!fresh.length) return { appended: 0, skipped, bytes: 0 };
    let lines = 0;
    for (const e of fresh) lines += e.line.length;
    let compacted: CompactReport | undefined;
    const growth = lines + 2 + Math.ceil((lines / CHUNK) * (ENTRY_BYTES + SIG_BYTES)) + ENTRY_BYTES + SIG_BYTES;
    this.refresh();
    if (this.footprint() + growth > this.budget) {
      // the budget is below what SPIFFS can hold: a compaction that fails
      // leaves the archive over it for a while, the append goes on
      const c = this.compactTo(Math.floor(this.budget * LOW_WATER) - growth);
      if (c.dropped) compacted = c;
      this.ready(t); // a compaction cut after its commit is finished first
    }
    let bytes = 0;
    for (let attempt = 0; ; attempt++) {
      // a torn last line is closed off first, so that it can never parse
      const repair = t.length > t.validEnd;
      const out = new Uint8Array(lines + (repair ? 2 : 0));
      let at = 0;
      if (repair) {
        out[0] = 35; // "#"
        out[1] = 10;
        at = 2;
      }
      for (const e of fresh) {
        out.set(e.line, at);
        at += e.line.length;
      }
      try {
        const f = openAppend(t.path, t.length);
        try {
          writeAt(f, out, t.length);
        } finally {
          f.close();
        }
        bytes = out.length;
        break;
      } catch (e) {
        rethrowFatal(e);
        if (e instanceof ArchiveError && e.emptied) {
          t.emptied += e.emptied;
          trace(`archive: ${t.path}: the device emptied ${e.emptied} bytes at a failed write open\n`);
        }
        this.load(t); // whatever reached flash, know it again
        if (t.unreadable || attempt > 0) throw e;
        if (e instanceof ArchiveError && e.code === "full") {
          const c = this.compactTo(Math.floor(this.budget * LOW_WATER) - growth);
          if (!c.dropped) throw e;
          compacted = c;
          this.ready(t);
        }
        // any other failure: the file is readable and known again; one more try
      }
    }
    t.length += bytes;
    t.validEnd = t.length;
    // the lines are durable; indexing them may fail (a full file system): then
    // the file is learnt again at its next use
    let f: File | undefined;
    try {
      f = new File(t.path);
      this.catchUp(t, f);
    } catch (e) {
      rethrowFatal(e);
      t.stale = true;
    } finally {
      f?.close();
    }
    return compacted ? { appended: fresh.length, skipped, bytes, compacted } : { appended: fresh.length, skipped, bytes };
  }

  // Which records are already in the archive (same id and stored fields).
  contains(type: ArchiveType | "facts" | "moments" | "events", records: readonly ArchiveRecord[]): boolean[] {
    this.ensure();
    const t = this.states[archiveType(type)];
    const st = (this.lastRecall = blankStats());
    // a record that cannot be encoded cannot have been archived
    const enc: Encoded[] = [], at: number[] = [];
    records.forEach((r, i) => {
      try {
        enc.push(encodeRecord(t.type, r));
        at.push(i);
      } catch (e) {
        rethrowFatal(e);
      }
    });
    const found = this.reading(t, () => findRecords(t, this.bufs, st, enc));
    const out = records.map(() => false);
    at.forEach((i, k) => (out[i] = found[k]));
    return out;
  }

  // ---- compaction -----------------------------------------------------------------

  // Drops the oldest blocks until the footprint is at most `target` bytes
  // (default: the low-water mark). The newest blocks of each file always stay.
  compact(target = Math.floor(this.budget * LOW_WATER)): CompactReport {
    this.ensure();
    return this.compactTo(target);
  }

  // Compacts when the archive is above the soft limit (for the maintenance run).
  maintain(): CompactReport | undefined {
    this.ensure();
    this.refresh();
    if (this.footprint() <= this.budget * SOFT_LIMIT) return undefined;
    return this.compactTo(Math.floor(this.budget * LOW_WATER));
  }

  // Never throws for the file system: a file whose compaction fails is left
  // as it was (or, cut after its commit, finished at its next use) and named
  // in the report's `errors`; files set aside are not compacted.
  private compactTo(target: number): CompactReport {
    this.refresh();
    const before = this.footprint();
    const report: CompactReport = { before, after: before, target, files: [], dropped: 0 };
    const fail = (t: TypeState | undefined, e: unknown) => {
      rethrowFatal(e);
      (report.errors ??= []).push(`${t ? t.type + ": " : ""}${messageOf(e)}`);
    };
    if (before > target) {
      const states = ARCHIVE_TYPES.map((x) => this.states[x]).filter((t) => !t.unreadable);
      let cuts = new Map<TypeState, number>();
      try {
        cuts = plan(states, this.bufs, before - target);
      } catch (e) {
        fail(undefined, e);
        for (const t of states) t.stale = true;
      }
      for (const t of states) {
        const blocks = cuts.get(t);
        if (!blocks) continue;
        try {
          const r = rewrite(t, this.bufs, blocks);
          report.files.push(r);
          report.dropped += r.records;
        } catch (e) {
          fail(t, e);
          t.stale = true;
        }
      }
      report.after = this.footprint();
    }
    this.lastCompaction = report;
    return report;
  }

  // ---- recall -----------------------------------------------------------------------

  // The last `limit` records archived, newest first.
  recallRecent(type: ArchiveType | string, limit?: number): ArchivedItem[] {
    this.ensure();
    const t = this.states[archiveType(type)];
    const n = limitOf(limit);
    const st = (this.lastRecall = blankStats());
    return this.reading(t, () => recallRecent(t, this.bufs, st, n));
  }

  // Records with start <= timestamp <= end (dates inclusive), newest first.
  recallByTimeRange(type: ArchiveType | string, start?: string, end?: string, limit?: number): ArchivedItem[] {
    this.ensure();
    const t = this.states[archiveType(type)];
    const lo = boundKey(start, "start_date", false), hi = boundKey(end, "end_date", true);
    const n = limitOf(limit);
    const st = (this.lastRecall = blankStats());
    if (lo > hi) return [];
    return this.reading(t, () => recallRange(t, this.bufs, st, lo, hi, n));
  }

  // Records whose content or topic contains the keyword, newest first. Latin
  // letters match in any case, full-width ASCII matches half-width, every
  // other character exactly.
  recallByKeyword(type: ArchiveType | string, keyword: string, limit?: number): ArchivedItem[] {
    this.ensure();
    const t = this.states[archiveType(type)];
    if (typeof keyword !== "string" || !keyword.trim()) throw new ArchiveError("invalid", "keyword is required");
    const n = limitOf(limit);
    const st = (this.lastRecall = blankStats());
    return this.reading(t, () => recallKeyword(t, this.bufs, st, foldString(keyword.trim()), n));
  }

  // The MCP tool's recall (seed 000 §12.6): by keyword if one is given, else
  // by time range if a bound is given, else the most recent.
  recall(type: ArchiveType | string, q: { keyword?: string; start?: string; end?: string; limit?: number }): ArchivedItem[] {
    if (q.keyword !== undefined && q.keyword.trim() !== "") return this.recallByKeyword(type, q.keyword, q.limit);
    if (q.start || q.end) return this.recallByTimeRange(type, q.start, q.end, q.limit);
    return this.recallRecent(type, q.limit);
  }

  // Records known in one file (0 for a file set aside: report() says why).
  count(type: ArchiveType | string): number {
    this.ensure();
    const t = this.states[archiveType(type)];
    try {
      this.ready(t);
    } catch (e) {
      rethrowFatal(e);
    }
    return t.side.records + t.tailRecords;
  }

  counts(): Record<ArchiveType, number> {
    return { fact: this.count("fact"), moment: this.count("moment"), event: this.count("event") };
  }

  // Every record of one file in file order (tests and tools; reads the whole file).
  forEach(type: ArchiveType | string, fn: (item: ArchivedItem, pos: number) => void): number {
    this.ensure();
    const t = this.states[archiveType(type)];
    return this.reading(t, () => forEachRecord(t, this.bufs, fn), true);
  }
}

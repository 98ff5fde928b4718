// Moves records from the NVS memory into the archive (seed 000 §3.6, §12.7):
//
// - overflow: at 20 facts the oldest 5 go, at 10 moments the oldest 3
//   (Memory calls the hook installed by attach());
// - daily, early in the morning local time: facts and moments older than 30 days;
// - weekly, on Sunday: past events that are not upcoming schedules.
//
// A move writes the archive first and removes the record from NVS after, so a
// power cut leaves it in NVS, in the archive, or in both; never in neither.
// resolveAtBoot() ends the both-case: a record of NVS that the archive
// already holds (same id, same content) leaves NVS. The archive skips a record
// it already holds, so a move repeated after a cut never archives it twice.

import { Memory } from "../memory/memory";
import { StoreError } from "../nvs/store";
import type { Event } from "../memory/types";
import { formatDate, toLocal } from "../time/local";
import { VALID_AFTER_MS, now } from "../time/clock";
import { Archive, ArchiveError } from "./archive";
import { isoKey } from "./line";

export const DAYS_HOT = 30; // facts and moments stay in NVS this long

// The default rule for the weekly move: a dated event (YYYY-MM-DD) before
// today, unless it is a schedule not yet done. Annual MM-DD events recur and
// stay; so do schedules that are upcoming or still open.
export function pastEvent(e: Event, nowMs: number): boolean {
  if (e.date.length !== 10 || isoKey(`${e.date}T00:00:00`) < 0) return false;
  if (e.schedule && !e.completed) return false;
  return e.date < formatDate(nowMs);
}

export interface ArchiverOptions {
  days?: number;
  isPastEvent?: (e: Event, nowMs: number) => boolean;
}

export interface MoveReport {
  fact: number;
  moment: number;
  event: number;
  errors?: string[]; // moves the archive could not take now: their records stayed in NVS
}

function note(r: MoveReport, what: string, e: unknown): void {
  if (e instanceof Error && e.name === "PowerCut") throw e;
  (r.errors ??= []).push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
}

// The rolling NVS stores and their archive types.
const ROLLING = [
  ["facts", "fact"],
  ["moments", "moment"],
] as const;

// A flush NVS refuses at boot (full) must not stop the boot: the records are
// in the archive already, the store stays dirty and is written later; until
// then flash still holds them, and the next boot resolves them again.
function flushAtBoot(m: Memory, store: "facts" | "moments" | "events"): void {
  try {
    m.stores[store].flush();
  } catch (e) {
    if (!(e instanceof StoreError)) throw e;
    m.health.writeFailed(store, e.message);
  }
}

const sameEvent = (a: Event, b: Event) => a.date === b.date && a.time === b.time && a.content === b.content;

export class Archiver {
  readonly days: number;
  readonly isPastEvent: (e: Event, nowMs: number) => boolean;

  constructor(
    readonly memory: Memory,
    readonly archive: Archive,
    opts: ArchiverOptions = {},
  ) {
    this.days = opts.days ?? DAYS_HOT;
    this.isPastEvent = opts.isPastEvent ?? pastEvent;
  }

  // Full rolling stores hand their oldest records to the archive. The records
  // leave NVS at the memory's next flush.
  // An archive that cannot take them (full, a file set aside) refuses the
  // new record with a clear error and changes nothing: the oldest stay.
  attach(): void {
    this.memory.overflow = (type, records) => {
      try {
        this.archive.append(type === "facts" ? "fact" : "moment", records);
      } catch (e) {
        if (!(e instanceof ArchiveError)) throw e;
        throw new ArchiveError(e.code, `${type} are full and the archive cannot take the oldest ${records.length} now (${e.message}); nothing was changed`);
      }
    };
  }

  // At boot, after archive.check(): records that are both in NVS and in the
  // archive (a move cut short) leave NVS. Never throws for the archive: a
  // file that cannot be read leaves its records in NVS (reported in `errors`).
  resolveAtBoot(): MoveReport {
    const m = this.memory;
    const r: MoveReport = { fact: 0, moment: 0, event: 0 };
    for (const [store, type] of ROLLING) {
      try {
        const recs = store === "facts" ? m.facts() : m.moments();
        if (!recs.length) continue;
        const inArchive = this.archive.contains(type, recs);
        const both = recs.filter((_x, i) => inArchive[i]);
        if (both.length) {
          r[type] = m.evict(store, both);
          flushAtBoot(m, store);
        }
      } catch (e) {
        note(r, type, e);
      }
    }
    try {
      const events = m.events();
      if (events.length) {
        const inArchive = this.archive.contains("event", events);
        if (inArchive.some((x) => x)) {
          const keep = events.filter((_e, i) => !inArchive[i]);
          r.event = events.length - keep.length;
          m.setEvents(keep);
          flushAtBoot(m, "events");
        }
      }
    } catch (e) {
      note(r, "event", e);
    }
    return r;
  }

  // Facts and moments older than `days` move to the archive. Does nothing
  // while the clock is not set.
  daily(nowMs = now()): MoveReport {
    const r: MoveReport = { fact: 0, moment: 0, event: 0 };
    if (nowMs < VALID_AFTER_MS) return r;
    const cutoff = Math.floor(nowMs / 1000) - this.days * 86400;
    const m = this.memory;
    for (const [store, type] of ROLLING) {
      const old = (store === "facts" ? m.facts() : m.moments()).filter((x) => x.timestamp < cutoff);
      if (!old.length) continue;
      try {
        this.archive.append(type, old);
      } catch (e) {
        note(r, type, e); // they stay in NVS and go at a later run
        continue;
      }
      r[type] = m.evict(store, old);
      m.stores[store].flush();
    }
    return r;
  }

  // Past events move to the archive.
  weekly(nowMs = now()): MoveReport {
    const r: MoveReport = { fact: 0, moment: 0, event: 0 };
    if (nowMs < VALID_AFTER_MS) return r;
    const m = this.memory;
    const events = m.events();
    const past = events.filter((e) => this.isPastEvent(e, nowMs));
    if (past.length) {
      try {
        this.archive.append("event", past);
      } catch (e) {
        note(r, "event", e);
        return r;
      }
      m.setEvents(events.filter((e) => !past.some((p) => sameEvent(p, e))));
      m.stores.events.flush();
      r.event = past.length;
    }
    return r;
  }

  // The early-morning run: daily moves, weekly moves on Sunday (local time).
  // The archive's upkeep (sealing, retiring) runs in idle steps (maintenance.ts).
  // The archive's failures are contained: what it cannot take stays in NVS
  // and is named in `errors`.
  maintenance(nowMs = now()): MoveReport {
    const r = this.daily(nowMs);
    if (toLocal(nowMs).weekday === 0) {
      const w = this.weekly(nowMs);
      r.event = w.event;
      if (w.errors) (r.errors ??= []).push(...w.errors);
    }
    return r;
  }
}

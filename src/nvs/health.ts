// What boot found wrong on flash. Damage is reported here and never thrown:
// a damaged copy is set aside and the store falls back to its other copy or
// starts empty, while every other store is untouched.

export type Problem =
  | "magic" // not a petmem blob
  | "type" // a blob of another store, or not an ArrayBuffer
  | "version" // a format version this firmware does not know
  | "length" // size does not match header and layout
  | "crc" // checksum mismatch
  | "incomplete" // a multi-part copy with parts missing (a flush cut short)
  | "orphan" // a key of this store that belongs to no copy
  | "migrated"; // an older format version, converted

export interface HealthEvent {
  store: string;
  key: string;
  problem: Problem;
}

export class Health {
  readonly events: HealthEvent[] = [];
  readonly counts: Record<string, number> = {};

  report(store: string, key: string, problem: Problem): void {
    if (this.events.length < 64) this.events.push({ store, key, problem });
    this.counts[problem] = (this.counts[problem] ?? 0) + 1;
  }

  // damage, as opposed to the expected traces of an interrupted flush or a migration
  get damaged(): number {
    let n = 0;
    for (const e of this.events) if (e.problem !== "incomplete" && e.problem !== "orphan" && e.problem !== "migrated") n++;
    return n;
  }
}

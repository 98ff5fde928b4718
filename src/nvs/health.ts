// What boot found wrong on flash, and what could not be written. Damage is
// reported here and never thrown: a damaged copy is set aside and the store
// uses its other copy (or starts empty when none is readable), while every
// other store is untouched.

export type Problem =
  | "magic" // not a petmem blob
  | "type" // a blob of another store, or not an ArrayBuffer
  | "version" // a format version this firmware does not know
  | "length" // size does not match header and layout
  | "crc" // checksum mismatch
  | "incomplete" // a multi-part copy with parts missing (a flush cut short)
  | "orphan" // a key of this store that belongs to no copy
  | "migrated" // an older format version, converted
  | "unreadable" // Preference.get or keys threw (on the device: `nvs get fail`, an item whose CRC fails)
  | "missing"; // one copy of a two-copy store is absent (a lost item or namespace, a cut first flush)

export interface HealthEvent {
  store: string;
  key: string;
  problem: Problem;
}

// Problems that are not damage: the traces of a flush cut short or a migration.
const EXPECTED: readonly Problem[] = ["incomplete", "orphan", "migrated"];

export class Health {
  readonly events: HealthEvent[] = [];
  readonly counts: Record<string, number> = {};
  readonly lost: string[] = []; // stores whose every copy was damaged: their records are gone
  writeErrors = 0;
  lastWriteError: string | undefined;

  report(store: string, key: string, problem: Problem): void {
    if (this.events.length < 64) this.events.push({ store, key, problem });
    this.counts[problem] = (this.counts[problem] ?? 0) + 1;
  }

  lose(store: string): void {
    if (!this.lost.includes(store)) this.lost.push(store);
  }

  writeFailed(store: string, message: string): void {
    this.writeErrors++;
    this.lastWriteError = message.startsWith(store) ? message : `${store}: ${message}`;
  }

  // damage, as opposed to the expected traces of an interrupted flush or a migration
  get damaged(): number {
    let n = 0;
    for (const e of this.events) if (!EXPECTED.includes(e.problem)) n++;
    return n;
  }
}

// A record store: one memory type, kept in NVS as a small table of fixed-size
// records, cached in RAM with a dirty flag, and written so that a power cut at
// any write leaves either the old or the new table, never a mix and never
// nothing. See docs/FORMAT.md ("NVS stores") for the bytes and docs/DESIGN.md
// for why.
//
// On ESP32 Preference.set erases a key before writing it, so a table is never
// rewritten in place: copies alternate between slot "a" and slot "b". A flush
// writes the new copy into the other slot, then deletes the old one. Boot takes
// the newest copy whose every part checks out.

import Preference from "preference";
import { Layout } from "./layout";
import { crc32 } from "./crc32";
import { Health } from "./health";

export const DOMAIN = "petmem";
export const MAGIC = 0x4d50; // "PM" little-endian
export const HEADER_BYTES = 16;
export const MAX_BLOB_BYTES = 4000;

export interface Migration {
  version: number;
  layout: Layout<object>;
  up(old: Record<string, unknown>): object;
}

export interface StoreSpec<T extends object> {
  name: string; // for reports and docs
  key: string; // NVS key prefix, at most 12 bytes
  code: number; // type code in the header
  version: number; // format version of `layout`
  layout: Layout<T>;
  capacity: number;
  migrations?: readonly Migration[];
}

type Slot = "a" | "b";

interface Copy<T> {
  slot: Slot;
  seq: number;
  records: T[];
  keys: string[];
  migrated: boolean;
}

// seq numbers wrap; a is newer than b if it is ahead by less than half the range
function newer(a: number, b: number): boolean {
  return ((a - b) | 0) > 0;
}

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "StoreError", configurable: true, writable: true });
  }
}

export class Store<T extends object> {
  private records: T[] | undefined;
  private dirty = false;
  private seq = 0;
  private slot: Slot | undefined; // where the current copy lives on flash
  private onFlash: string[] = []; // keys of the current copy
  private stale: string[] = []; // keys to delete at the next flush
  private persisted: Uint8Array | undefined; // payload of the current copy
  readonly perPart: number;

  constructor(readonly spec: StoreSpec<T>, readonly health: Health, private domainKeys: () => string[]) {
    if (spec.key.length > 12) throw new RangeError("store key prefix too long");
    this.perPart = Math.floor((MAX_BLOB_BYTES - HEADER_BYTES) / spec.layout.size);
    if (this.perPart < 1) throw new RangeError(`${spec.name}: record larger than a blob`);
  }

  get name(): string {
    return this.spec.name;
  }

  get capacity(): number {
    return this.spec.capacity;
  }

  get isDirty(): boolean {
    return this.dirty || this.stale.length > 0;
  }

  get loaded(): boolean {
    return this.records !== undefined;
  }

  // The records, loaded from flash on first use. Do not mutate: use set().
  all(): readonly T[] {
    return this.load();
  }

  get count(): number {
    return this.load().length;
  }

  // Replaces the whole table in RAM; flushed later. Records are normalized to
  // what flash can hold, so RAM and flash never disagree.
  set(records: readonly T[]): void {
    if (records.length > this.spec.capacity) throw new StoreError(`${this.spec.name}: more than ${this.spec.capacity} records`);
    this.load();
    this.records = records.map((r) => this.spec.layout.normalize(r));
    this.dirty = true;
  }

  // ---- load -------------------------------------------------------------------

  private keyOf(slot: Slot, part: number): string {
    return `${this.spec.key}.${slot}${part}`;
  }

  private load(): T[] {
    if (this.records) return this.records;
    const mine = this.domainKeys().filter((k) => k.startsWith(this.spec.key + "."));
    const copies: Copy<T>[] = [];
    for (const slot of ["a", "b"] as const) {
      const c = this.readCopy(slot, mine);
      if (c) copies.push(c);
    }
    let best: Copy<T> | undefined;
    for (const c of copies) if (!best || newer(c.seq, best.seq)) best = c;
    this.records = best ? best.records : [];
    this.seq = best ? best.seq : 0;
    this.slot = best?.slot;
    this.onFlash = best ? best.keys : [];
    this.persisted = best && !best.migrated ? this.payload(this.records) : undefined;
    if (best?.migrated) this.dirty = true;
    // everything else under this prefix goes at the next flush
    this.stale = mine.filter((k) => !this.onFlash.includes(k));
    // leftovers of a copy already reported, or of the older valid copy, are expected
    for (const k of this.stale) {
      const slot = k.charAt(this.spec.key.length + 1);
      const known = copies.some((c) => c.keys.includes(k)) || this.failedSlots.includes(slot);
      if (!known) this.health.report(this.spec.name, k, "orphan");
    }
    return this.records;
  }

  private failedSlots: string[] = [];

  private fail(key: string, problem: "magic" | "type" | "version" | "length" | "crc" | "incomplete"): undefined {
    this.failedSlots.push(key.charAt(this.spec.key.length + 1));
    this.health.report(this.spec.name, key, problem);
    return undefined;
  }

  private readCopy(slot: Slot, mine: string[]): Copy<T> | undefined {
    const first = this.keyOf(slot, 0);
    if (!mine.includes(first)) return undefined;
    const records: T[] = [];
    const keys: string[] = [];
    let seq = 0, parts = 1, migrated = false;
    for (let part = 0; part < parts; part++) {
      const key = this.keyOf(slot, part);
      const raw = mine.includes(key) ? Preference.get(DOMAIN, key) : undefined;
      if (raw === undefined) return this.fail(first, "incomplete");
      if (!(raw instanceof ArrayBuffer)) return this.fail(key, "type");
      const b = new Uint8Array(raw);
      if (b.length < HEADER_BYTES) return this.fail(key, "length");
      const v = new DataView(raw);
      if (v.getUint16(0, true) !== MAGIC) return this.fail(key, "magic");
      if (b[3] !== this.spec.code) return this.fail(key, "type");
      const version = b[2];
      let layout: Layout<object> = this.spec.layout;
      let up: Migration["up"] | undefined;
      if (version !== this.spec.version) {
        const m = this.spec.migrations?.find((x) => x.version === version);
        if (!m) return this.fail(key, "version");
        layout = m.layout;
        up = m.up;
        migrated = true;
      }
      const count = v.getUint16(8, true);
      if (b[10] !== part || b[11] < 1) return this.fail(key, "length");
      if (b.length !== HEADER_BYTES + count * layout.size) return this.fail(key, "length");
      if (v.getUint32(12, true) !== blobCrc(b)) return this.fail(key, "crc");
      const s = v.getUint32(4, true);
      if (part === 0) {
        seq = s;
        parts = b[11];
      } else if (s !== seq || b[11] !== parts) return this.fail(first, "incomplete");
      for (let i = 0; i < count; i++) {
        const rec = layout.decode(b, HEADER_BYTES + i * layout.size) as Record<string, unknown>;
        records.push((up ? this.spec.layout.normalize(up(rec) as T) : rec) as T);
      }
      keys.push(key);
    }
    if (records.length > this.spec.capacity) records.length = this.spec.capacity;
    if (migrated) this.health.report(this.spec.name, first, "migrated");
    return { slot, seq, records, keys, migrated };
  }

  // ---- flush ------------------------------------------------------------------

  private payload(records: readonly T[]): Uint8Array {
    const size = this.spec.layout.size;
    const out = new Uint8Array(records.length * size);
    records.forEach((r, i) => this.spec.layout.encode(r, out, i * size));
    return out;
  }

  // Writes the table if it changed; returns whether flash was written. Throws
  // StoreError when NVS refuses a write: the RAM copy stays dirty and the copy
  // on flash stays the old one.
  flush(): boolean {
    if (!this.records || !this.isDirty) return false;
    const payload = this.payload(this.records);
    if (this.persisted && sameBytes(payload, this.persisted) && !this.stale.length) {
      this.dirty = false;
      return false;
    }
    if (this.persisted && sameBytes(payload, this.persisted)) {
      this.deleteAll(this.stale);
      this.stale = [];
      this.dirty = false;
      return true;
    }
    const slot: Slot = this.slot === "a" ? "b" : "a";
    const seq = (this.seq + 1) >>> 0;
    const size = this.spec.layout.size;
    const count = this.records.length;
    const parts = Math.max(1, Math.ceil(count / this.perPart));
    if (parts > 255) throw new StoreError(`${this.spec.name}: too large`);
    const written: string[] = [];
    try {
      for (let part = 0; part < parts; part++) {
        const from = part * this.perPart;
        const n = Math.min(this.perPart, count - from);
        const blob = new Uint8Array(HEADER_BYTES + n * size);
        const v = new DataView(blob.buffer);
        v.setUint16(0, MAGIC, true);
        blob[2] = this.spec.version;
        blob[3] = this.spec.code;
        v.setUint32(4, seq, true);
        v.setUint16(8, n, true);
        blob[10] = part;
        blob[11] = parts;
        blob.set(payload.subarray(from * size, (from + n) * size), HEADER_BYTES);
        v.setUint32(12, blobCrc(blob), true);
        const key = this.keyOf(slot, part);
        Preference.set(DOMAIN, key, blob.buffer);
        written.push(key);
      }
    } catch (e) {
      // power cuts are not caught here: they end the world
      if (e instanceof Error && e.name === "PowerCut") throw e;
      throw new StoreError(`${this.spec.name}: flush failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    // the new copy is complete: the old one and any leftovers can go
    const old = this.onFlash.concat(this.stale).filter((k) => !written.includes(k));
    this.slot = slot;
    this.seq = seq;
    this.onFlash = written;
    this.persisted = payload;
    this.dirty = false;
    this.stale = old;
    this.deleteAll(old);
    this.stale = [];
    return true;
  }

  private deleteAll(keys: string[]): void {
    for (const k of keys) Preference.delete(DOMAIN, k);
  }

  // The keys this store occupies on flash now (for the budget tool and tests).
  get keys(): readonly string[] {
    this.load();
    return this.onFlash;
  }
}

// CRC over the header's first 12 bytes and the records.
export function blobCrc(b: Uint8Array): number {
  return crc32(b, HEADER_BYTES, b.length, crc32(b, 0, 12));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

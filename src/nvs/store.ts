// A record store: one memory type, kept in NVS as a small table of fixed-size
// records, cached in RAM with a dirty flag. See docs/FORMAT.md §2 for the bytes
// and docs/DESIGN.md for why.
//
// Two copies at rest. A store keeps two whole copies of its table: copy `a` in
// the namespace "petmem" and copy `b` in "petmem_b", both with the same seq
// and bytes. So one damaged or vanished NVS item, or a lost namespace entry,
// costs one copy and never a record. On ESP32 Preference.set erases a key
// before writing it, so a flush never rewrites the copy that holds the only
// good table: it writes the slot that does not hold the current table first
// (b when both do), then the other. A power cut anywhere leaves one whole copy
// of the old or the new table. Boot takes the newest valid copy (by seq) and
// writes the other slot again when it is missing, damaged or older.
//
// A store may keep one NVS copy (`copies: 1`: the five large tables, format 3,
// docs/design/nvs-share.md): then both slots live in "petmem" and alternate
// (a flush writes the slot that does not hold the table, then deletes the
// other), and the mirror file (src/nvs/mirror.ts) is its second copy at rest.
// Its format-2 copy b in "petmem_b" is read once as a candidate, written into
// a "petmem" slot when it is the only valid one, and deleted.

import Preference from "preference";
import { Layout } from "./layout";
import { crc32 } from "./crc32";
import { Health, type Problem } from "./health";
import type { Mirror } from "./mirror";

export const DOMAIN = "petmem"; // copy a (and both slots of a one-copy store)
export const DOMAIN_B = "petmem_b"; // copy b of a two-copy store
export const DOMAINS = [DOMAIN, DOMAIN_B] as const;
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
  copies?: 1 | 2; // copies at rest (default 2)
  migrations?: readonly Migration[];
}

// Where a copy lives: slot a, slot b, and for a two-copy store the slot b of
// format 1 ("petmem", `<prefix>.b<part>`), read once to migrate.
type SlotName = "a" | "b" | "old" | "mirror";
interface SlotDef {
  name: SlotName;
  ns: string;
  tag: "a" | "b";
}

interface Copy<T> {
  slot: SlotName;
  seq: number;
  records: T[];
  payload: Uint8Array; // the records as this firmware encodes them
  keys: string[]; // namespaced ("ns/key")
  migrated: boolean;
}

// Shared by every store (frozen: preloaded, they live in flash on the device).
const SLOTS_2: readonly SlotDef[] = Object.freeze([
  Object.freeze<SlotDef>({ name: "a", ns: DOMAIN, tag: "a" }),
  Object.freeze<SlotDef>({ name: "b", ns: DOMAIN_B, tag: "b" }),
  Object.freeze<SlotDef>({ name: "old", ns: DOMAIN, tag: "b" }),
]);
const SLOTS_1: readonly SlotDef[] = Object.freeze([
  Object.freeze<SlotDef>({ name: "a", ns: DOMAIN, tag: "a" }),
  Object.freeze<SlotDef>({ name: "b", ns: DOMAIN, tag: "b" }),
  Object.freeze<SlotDef>({ name: "old", ns: DOMAIN_B, tag: "b" }), // format 2's copy b
]);

// Keys are tracked across the two namespaces as "ns/key" ('/' is in neither).
const ref = (ns: string, key: string) => ns + "/" + key;
const nsOf = (r: string) => r.slice(0, r.indexOf("/"));
const keyOf = (r: string) => r.slice(r.indexOf("/") + 1);

// seq numbers wrap; a is newer than b if it is ahead by less than half the range
export function newer(a: number, b: number): boolean {
  return ((a - b) | 0) > 0;
}

// NVS is shared with the firmware around petmem (Wi-Fi, PHY calibration, the
// companion firmware's settings). When a write of petmem's fails there (NVS
// full, as far as petmem can tell: the device says only that it failed), the
// two-copy stores give back their second copy (the mirror file on the storage
// partition still holds a copy of every table) and keep one; `single` says
// so, and the next boot takes the second copies back if they fit again.
export interface Room {
  single: boolean;
}

export class StoreError extends Error {
  // saved: the new table reached flash (in one copy) although a write failed
  constructor(message: string, readonly saved = false) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "StoreError", configurable: true, writable: true });
  }
}

// The records, dirty flag and change count of a store at one moment, to roll a
// change back when it could not be saved.
export interface StoreMark {
  records: readonly object[];
  dirty: boolean;
  version: number;
}

export class Store<T extends object> {
  private records: T[] | undefined;
  private dirty = false;
  private repair = false; // a slot lacks the current table: write it again
  private seq = 0;
  private held: Record<"a" | "b", string[] | undefined> = { a: undefined, b: undefined }; // keys of slots holding the current table
  private present: string[] = []; // every key of this store on flash
  // The current table on flash (write only what changed), kept as its
  // payload's length and CRC-32, not as a copy: a copy of every store cost the
  // chunk heap about 6 KB at the peak of `npm run heap`. Equal CRCs are
  // confirmed against a slot that holds the table, read back from NVS.
  private persistedLength = -1; // -1: no table of this firmware's format on flash
  private persistedCrc = 0;
  private failedSlots: SlotName[] = [];
  private damaged = false; // a copy was set aside for damage (not a flush cut short)
  readonly perPart: number;
  readonly copies: 1 | 2;
  private readonly slots: readonly SlotDef[];
  version = 0; // +1 on every set(), so callers can tell which stores a change touched
  lost = false; // boot found only damaged copies: the table could not be read
  degraded: string | undefined; // the last write that left only one copy, until repaired
  private mirrorStale = false; // the mirror (third copy, src/nvs/mirror.ts) lacks the current table
  restored = false; // boot found no valid NVS copy and took the mirror's

  constructor(
    readonly spec: StoreSpec<T>,
    readonly health: Health,
    private domainKeys: (ns: string) => string[],
    private mirror?: Mirror,
    private room: Room = { single: false },
  ) {
    if (spec.key.length > 12) throw new RangeError("store key prefix too long");
    this.perPart = Math.floor((MAX_BLOB_BYTES - HEADER_BYTES) / spec.layout.size);
    if (this.perPart < 1) throw new RangeError(`${spec.name}: record larger than a blob`);
    this.copies = spec.copies ?? 2;
    this.slots = this.copies === 2 ? SLOTS_2 : SLOTS_1;
  }

  get name(): string {
    return this.spec.name;
  }

  get capacity(): number {
    return this.spec.capacity;
  }

  get isDirty(): boolean {
    return this.dirty || this.repair || this.mirrorStale || this.stale().length > 0;
  }

  // Whether a flush would write a copy (not only delete leftovers).
  get mustWrite(): boolean {
    return this.dirty || this.repair || this.mirrorStale;
  }

  // Whether the table must be written again although it did not change (a copy
  // is missing, damaged, older or in an older format).
  get needsRepair(): boolean {
    this.load();
    return this.repair;
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
    this.version++;
  }

  mark(): StoreMark {
    return { records: this.load(), dirty: this.dirty, version: this.version };
  }

  // Puts back the table of a mark (a change that could not be saved).
  restore(m: StoreMark): void {
    this.records = m.records as T[];
    this.dirty = m.dirty;
    this.version++;
  }

  // ---- load -------------------------------------------------------------------

  private key(s: SlotDef, part: number): string {
    return `${this.spec.key}.${s.tag}${part}`;
  }

  private mine(ns: string): string[] {
    const p = this.spec.key + ".";
    return this.domainKeys(ns).filter((k) => k.startsWith(p));
  }

  private load(): T[] {
    if (this.records) return this.records;
    try {
      return this.read();
    } catch (e) {
      // nothing on flash may stop the boot: what cannot be read is set aside
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.health.report(this.spec.name, this.spec.key, "unreadable");
      this.records = [];
      return this.records;
    }
  }

  private read(): T[] {
    const keys: Record<string, string[]> = {};
    for (const ns of DOMAINS) keys[ns] = this.mine(ns);
    const copies: Copy<T>[] = [];
    for (const s of this.slots) {
      const c = this.readCopy(s, keys[s.ns]);
      if (c) copies.push(c);
    }
    let best: Copy<T> | undefined;
    for (const c of copies) if (!best || newer(c.seq, best.seq)) best = c;
    if (!best && this.mirror) {
      // no NVS copy is valid: the third copy, in the storage partition
      best = this.readMirror();
      if (best) this.restored = true;
    }
    this.records = best ? best.records : [];
    this.seq = best ? best.seq : 0;
    this.persist(best && !best.migrated ? best.payload : undefined);
    this.dirty = !!best?.migrated;
    this.present = [];
    for (const ns of DOMAINS) for (const k of keys[ns]) this.present.push(ref(ns, k));
    for (const c of copies)
      if (best && c.slot !== "old" && c.seq === best.seq && !c.migrated && !best.migrated && sameBytes(c.payload, best.payload)) this.held[c.slot as "a" | "b"] = c.keys;
    if (this.copies === 1) {
      if (best && (best.slot === "a" || best.slot === "b")) this.held = best.slot === "a" ? { a: best.keys, b: undefined } : { a: undefined, b: best.keys };
      else if (best) {
        // only the mirror, or format 2's copy b in "petmem_b", holds the
        // table: written into a "petmem" slot before anything is deleted
        this.held = { a: undefined, b: undefined };
        this.repair = true;
      }
    } else if (best && (!this.held.a || !this.held.b) && this.room.single && (this.held.a || this.held.b)) {
      // the second copy was given back on purpose (Room): one copy is whole
    } else if (best && (!this.held.a || !this.held.b)) {
      this.repair = true;
      // NVS short of room (Room): a table kept in the mirror file only is no damage
      const given = this.room.single && best.slot === "mirror";
      for (const s of this.slots)
        if (!given && s.name !== "old" && !this.held[s.name as "a" | "b"] && !copies.some((c) => c.slot === s.name) && !this.failedSlots.includes(s.name))
          this.health.report(this.spec.name, ref(s.ns, this.key(s, 0)), "missing");
    }
    // leftovers of a copy already reported, or of an older valid copy, are expected
    for (const r of this.stale()) {
      const known = copies.some((c) => c.keys.includes(r)) || this.failedSlots.some((n) => this.inSlot(r, n));
      if (!known) this.health.report(this.spec.name, r, "orphan");
    }
    if (best && this.mirror && !best.migrated) {
      const m = this.mirror.info(this.spec.key);
      if (!m || m.seq !== best.seq || m.bytes !== best.payload.length + HEADER_BYTES * Math.max(1, Math.ceil(best.records.length / this.perPart))) this.mirrorStale = true;
    }
    if (!best && this.damaged) {
      // every copy damaged: reported once, and settled at the next flush by an
      // empty table (so the same damage is not found again at every boot)
      this.lost = true;
      this.dirty = true;
      this.health.lose(this.spec.name);
    }
    return this.records;
  }

  private inSlot(r: string, slot: SlotName): boolean {
    const s = this.slots.find((x) => x.name === slot)!;
    return nsOf(r) === s.ns && keyOf(r).charAt(this.spec.key.length + 1) === s.tag;
  }

  // Keys on flash that hold no slot's current table: deleted at the next flush.
  private stale(): string[] {
    const a = this.held.a, b = this.held.b;
    return this.present.filter((r) => !(a && a.includes(r)) && !(b && b.includes(r)));
  }

  private fail(slot: SlotName, key: string, problem: Problem): undefined {
    this.failedSlots.push(slot);
    // not damage: a flush cut short, or a newer firmware's format (kept until the store is written)
    if (problem !== "incomplete" && problem !== "version") this.damaged = true;
    this.health.report(this.spec.name, key, problem);
    return undefined;
  }

  private readCopy(s: SlotDef, mine: string[]): Copy<T> | undefined {
    if (!mine.includes(this.key(s, 0))) return undefined;
    return this.parseCopy(s.name, (part) => ref(s.ns, this.key(s, part)), (part) => {
      const key = this.key(s, part);
      return mine.includes(key) ? Preference.get(s.ns, key) : undefined;
    });
  }

  // The mirror file: the parts' blobs back to back. The newest valid file: an
  // older one serves when a cut or a failed write left the newest torn.
  private readMirror(): Copy<T> | undefined {
    const n = this.mirror!.files(this.spec.key);
    for (let which = 0; which < n; which++) {
      const c = this.readMirrorFile(which);
      if (c) return c;
    }
    return undefined;
  }

  private readMirrorFile(which: number): Copy<T> | undefined {
    const bytes = this.mirror!.read(this.spec.key, which);
    if (!bytes) return undefined;
    const offsets: number[] = [];
    for (let at = 0; at + HEADER_BYTES <= bytes.length && offsets.length < 255; ) {
      offsets.push(at);
      at += HEADER_BYTES + (bytes[at + 8] | (bytes[at + 9] << 8)) * this.spec.layout.size;
    }
    const c = this.parseCopy("mirror", () => `mirror/${this.spec.key}`, (part) => {
      const at = offsets[part];
      if (at === undefined) return undefined;
      const end = part + 1 < offsets.length ? offsets[part + 1] : bytes.length;
      return bytes.slice(at, end).buffer;
    });
    if (!c || c.migrated) return undefined;
    c.keys = [];
    return c;
  }

  private parseCopy(slot: SlotName, where0: (part: number) => string, get: (part: number) => unknown): Copy<T> | undefined {
    const records: T[] = [];
    const keys: string[] = [];
    const chunks: Uint8Array[] = [];
    let seq = 0, parts = 1, migrated = false;
    const s = { name: slot };
    for (let part = 0; part < parts; part++) {
      const where = where0(part);
      let raw: unknown;
      try {
        raw = get(part);
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        // on the device an item whose data CRC fails throws `nvs get fail`
        return this.fail(s.name, where, "unreadable");
      }
      if (raw === undefined) return this.fail(s.name, where0(0), "incomplete");
      if (!(raw instanceof ArrayBuffer)) return this.fail(s.name, where, "type");
      const b = new Uint8Array(raw);
      if (b.length < HEADER_BYTES) return this.fail(s.name, where, "length");
      const v = new DataView(raw);
      if (v.getUint16(0, true) !== MAGIC) return this.fail(s.name, where, "magic");
      if (b[3] !== this.spec.code) return this.fail(s.name, where, "type");
      const version = b[2];
      let layout: Layout<object> = this.spec.layout;
      let up: Migration["up"] | undefined;
      if (version !== this.spec.version) {
        const m = this.spec.migrations?.find((x) => x.version === version);
        if (!m) return this.fail(s.name, where, "version");
        layout = m.layout;
        up = m.up;
        migrated = true;
      }
      const count = v.getUint16(8, true);
      if (b[10] !== part || b[11] < 1) return this.fail(s.name, where, "length");
      if (b.length !== HEADER_BYTES + count * layout.size) return this.fail(s.name, where, "length");
      if (v.getUint32(12, true) !== blobCrc(b)) return this.fail(s.name, where, "crc");
      const sq = v.getUint32(4, true);
      if (part === 0) {
        seq = sq;
        parts = b[11];
      } else if (sq !== seq || b[11] !== parts) return this.fail(s.name, where0(0), "incomplete");
      for (let i = 0; i < count; i++) {
        const rec = layout.decode(b, HEADER_BYTES + i * layout.size) as Record<string, unknown>;
        records.push((up ? this.spec.layout.normalize(up(rec) as T) : rec) as T);
      }
      if (!up) chunks.push(b.subarray(HEADER_BYTES));
      keys.push(where);
    }
    if (records.length > this.spec.capacity) records.length = this.spec.capacity;
    if (migrated) this.health.report(this.spec.name, where0(0), "migrated");
    return { slot: s.name, seq, records, keys, migrated, payload: migrated ? this.payload(records) : concat(chunks) };
  }

  // ---- flush ------------------------------------------------------------------

  private payload(records: readonly T[]): Uint8Array {
    const size = this.spec.layout.size;
    const out = new Uint8Array(records.length * size);
    records.forEach((r, i) => this.spec.layout.encode(r, out, i * size));
    return out;
  }

  // The blobs of one copy: header and records, per part.
  private blobs(payload: Uint8Array, seq: number): Uint8Array[] {
    const size = this.spec.layout.size;
    const count = payload.length / size;
    const parts = Math.max(1, Math.ceil(count / this.perPart));
    if (parts > 255) throw new StoreError(`${this.spec.name}: too large`);
    const out: Uint8Array[] = [];
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
      out.push(blob);
    }
    return out;
  }

  // Writes one slot's copy, all parts in order; returns its keys.
  private writeSlot(s: SlotDef, blobs: Uint8Array[]): string[] {
    const written: string[] = [];
    for (let part = 0; part < blobs.length; part++) {
      const key = this.key(s, part);
      const r = ref(s.ns, key);
      try {
        Preference.set(s.ns, key, blobs[part].buffer as ArrayBuffer);
      } catch (e) {
        // power cuts are not caught here: they end the world
        if (e instanceof Error && e.name === "PowerCut") throw e;
        throw new StoreError(`${this.spec.name}: NVS write failed (${e instanceof Error ? e.message : String(e)})`);
      }
      if (!this.present.includes(r)) this.present.push(r);
      written.push(r);
    }
    return written;
  }

  private slot(name: "a" | "b"): SlotDef {
    return this.slots[name === "a" ? 0 : 1];
  }

  // Writes the table if it changed, or the copies it lacks; returns whether
  // flash was written. Throws StoreError when the new table reached no copy:
  // RAM keeps it, dirty, and flash keeps the old table. A failure after the
  // first copy was written does not throw: the table is saved in one copy,
  // `degraded` says so, and the next flush writes the other. The mirror (the
  // third copy) is written last, best effort.
  flush(): boolean {
    if (!this.records || !this.isDirty) return false;
    const payload = this.payload(this.records);
    const changed = !this.isPersisted(payload);
    let wrote = false;
    if (changed || this.repair) {
      this.writeCopies(payload, changed);
      wrote = true;
    } else this.dirty = false;
    if (this.mirror && (changed || this.mirrorStale) && (this.held.a || this.held.b)) {
      this.mirrorStale = !this.mirror.write(this.spec.key, this.seq, concat(this.blobs(payload, this.seq)));
      wrote = true;
    }
    // leftovers go only while a copy holds the table (an NVS slot, or the
    // mirror file when NVS has no room for one)
    if ((this.held.a || this.held.b || (this.mirror && !this.mirrorStale && this.persistedLength >= 0)) && this.deleteStale()) wrote = true;
    return wrote;
  }

  private persist(payload: Uint8Array | undefined): void {
    this.persistedLength = payload ? payload.length : -1;
    this.persistedCrc = payload ? crc32(payload) : 0;
  }

  // Whether `payload` is the table on flash: same length and CRC, and the
  // same bytes in a slot that holds it (read back one blob at a time). With
  // no slot holding it (a table restored from the mirror, before boot writes
  // it back) the CRC decides.
  private isPersisted(payload: Uint8Array): boolean {
    if (this.persistedLength !== payload.length || this.persistedCrc !== crc32(payload)) return false;
    const name = this.held.a ? "a" : this.held.b ? "b" : undefined;
    return name === undefined || this.sameOnFlash(this.slot(name), this.held[name]!.length, payload);
  }

  private sameOnFlash(s: SlotDef, parts: number, payload: Uint8Array): boolean {
    const size = this.spec.layout.size;
    if (parts !== Math.max(1, Math.ceil(payload.length / size / this.perPart))) return false;
    for (let part = 0; part < parts; part++) {
      let raw: unknown;
      try {
        raw = Preference.get(s.ns, this.key(s, part));
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        return false; // unreadable: written again
      }
      if (!(raw instanceof ArrayBuffer)) return false;
      const b = new Uint8Array(raw);
      const from = part * this.perPart * size;
      const n = Math.min(this.perPart * size, payload.length - from);
      if (b.length !== HEADER_BYTES + n || b[2] !== this.spec.version || b[3] !== this.spec.code) return false;
      for (let i = 0; i < n; i++) if (b[HEADER_BYTES + i] !== payload[from + i]) return false;
    }
    return true;
  }

  private writeCopies(payload: Uint8Array, changed: boolean): void {
    const seq = changed ? (this.seq + 1) >>> 0 : this.seq;
    const blobs = this.blobs(payload, seq);
    // a slot that holds the current table is never erased before the other holds the new one
    let order: ("a" | "b")[];
    const single = this.copies === 2 && this.room.single;
    if (single && !changed && (this.held.a || this.held.b)) {
      // one copy holds the table: all a store keeps while NVS is short of room
      this.dirty = false;
      this.repair = false;
      this.degraded = undefined;
      return;
    }
    if (this.copies === 1 || single) order = [this.held.a ? "b" : "a"];
    else if (!changed) order = this.held.a ? ["b"] : this.held.b ? ["a"] : ["b", "a"];
    else order = this.held.b && !this.held.a ? ["a", "b"] : ["b", "a"];
    const first = order[0];
    try {
      let keys: string[];
      try {
        keys = this.writeSlot(this.slot(first), blobs);
      } catch (e) {
        // NVS short of room, one copy kept (Room): the held copy makes way
        // when the mirror file holds that same table (a cut before the new
        // copy is whole leaves the mirror's, which boot takes), then once more;
        // when not even that fits, or the store has no table on flash yet,
        // the mirror file alone holds the new table
        if (!((single || (this.copies === 1 && this.room.single)) && e instanceof StoreError && this.mirror)) throw e;
        if (!this.held.a && !this.held.b) {
          // no NVS copy holds the table (none yet, or kept in the mirror file alone)
          this.mirrorOnly(payload, seq, blobs, e);
          return;
        }
        if (this.mirrorStale || this.persistedLength < 0) throw e;
        this.held = { a: undefined, b: undefined };
        this.deleteStale();
        try {
          keys = this.writeSlot(this.slot(first), blobs);
        } catch (e2) {
          if (!(e2 instanceof StoreError)) throw e2;
          this.mirrorOnly(payload, seq, blobs, e2);
          return;
        }
      }
      if (changed) this.held = first === "a" ? { a: keys, b: undefined } : { a: undefined, b: keys };
      else this.held[first] = keys;
    } catch (e) {
      // the slot may have been erased before NVS refused the write
      this.held[first] = undefined;
      if (this.copies === 2 && this.persistedLength >= 0) this.repair = true;
      if (!changed && e instanceof StoreError) {
        this.degrade(e.message);
        return;
      }
      throw e;
    }
    this.seq = seq;
    this.persist(payload);
    this.dirty = false;
    this.repair = false;
    this.degraded = undefined;
    if (order.length > 1) {
      const second = order[1];
      try {
        this.held[second] = this.writeSlot(this.slot(second), blobs);
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        this.degrade(e.message);
      }
    }
  }

  // Not even one NVS copy fits (Room): the mirror file alone holds the new
  // table (boot reads it when NVS holds no copy) until NVS has room again;
  // saved, and degraded until then. Throws `e` when the mirror cannot be written.
  private mirrorOnly(payload: Uint8Array, seq: number, blobs: Uint8Array[], e: StoreError): void {
    // a repair (same seq) never rewrites the mirror: a file of that seq may
    // be the only copy, and the mirror rewrites a name in place
    if (seq !== this.seq) {
      if (!this.mirror!.write(this.spec.key, seq, concat(blobs))) throw e;
      this.seq = seq;
      this.persist(payload);
      this.mirrorStale = false;
    }
    this.dirty = false;
    this.degrade(`${this.spec.name}: NVS full, kept in the mirror file only (${e.message})`);
  }

  // NVS is short of room (Room): the copy that does not hold the current table,
  // or the second of two that do, is deleted at the next flush. Returns whether
  // there is anything to delete.
  giveBack(): boolean {
    if (this.copies !== 2) return false;
    this.load();
    if (this.held.a && this.held.b) this.held.b = undefined;
    if (this.repair && (this.held.a || this.held.b)) {
      this.repair = false;
      this.degraded = undefined;
    }
    return this.stale().length > 0;
  }

  // Deletes now what no slot holds (the copy giveBack let go), without writing.
  dropStale(): boolean {
    return this.deleteStale();
  }

  // Room came back: the second copy is written again at the next flush.
  takeBack(): void {
    if (this.copies !== 2) return;
    this.load();
    if (this.records && (!this.held.a || !this.held.b)) this.repair = true;
  }

  private degrade(message: string): boolean {
    this.repair = true;
    this.degraded = message;
    this.health.writeFailed(this.spec.name, message);
    return true;
  }

  // Deletes what no slot holds (an old copy, leftovers, the format-1 slot b).
  // A delete that fails is tried again at the next flush.
  private deleteStale(): boolean {
    const gone = this.stale();
    for (const r of gone) {
      try {
        Preference.delete(nsOf(r), keyOf(r));
        this.present.splice(this.present.indexOf(r), 1);
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
      }
    }
    return gone.length > 0;
  }

  // The keys this store occupies on flash now, as "namespace/key".
  get keys(): readonly string[] {
    this.load();
    return this.present;
  }

  // The bytes of one copy's blobs (for the budget and the status action).
  get blobBytes(): number[] {
    const count = this.load().length;
    if (!this.held.a && !this.held.b) return []; // nothing of it on flash
    const parts = Math.max(1, Math.ceil(count / this.perPart));
    const out: number[] = [];
    for (let p = 0; p < parts; p++) out.push(HEADER_BYTES + Math.min(this.perPart, count - p * this.perPart) * this.spec.layout.size);
    return out;
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

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

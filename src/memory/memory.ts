// The pet's hot memory: one record store per type (src/nvs/store.ts) and the
// operations of seed 000 on them. Every operation changes RAM only and returns
// ADDED, UPDATED, DELETED or NOOP; flush() writes the stores that changed.
// Bad input throws a MemoryError and changes nothing.

import Preference from "preference";
import { Store, StoreError, DOMAIN, type StoreMark, type Room } from "../nvs/store";
import { Health, type HealthEvent } from "../nvs/health";
import { FileMirror, type Mirror } from "../nvs/mirror";
import { now, untrustedSince } from "../time/clock";
import { byteLength, truncate } from "../text/utf8";
import {
  SPECS,
  CHAT_TEXT_BYTES,
  HEALTH_PROBLEMS,
  PREFERENCE_CAPACITY,
  EMOTIONS,
  GOAL_CATEGORIES,
  GOAL_STATUSES,
  MEMBER_TYPES,
  STAGES,
  stageIndex,
  type StoreName,
  type Profile,
  type FamilyMember,
  type Preferences,
  type Event,
  type Fact,
  type Trait,
  type Habit,
  type Moment,
  type Goal,
  type ChatMessage,
  type Affection,
  type Role,
  type Emotion,
  type GoalCategory,
  type GoalStatus,
  type MemberType,
} from "./types";

export type Action = "ADDED" | "UPDATED" | "DELETED" | "NOOP";

export interface Result {
  action: Action;
  dropped?: string; // what a full store let go to make room
}

export type ErrorCode = "invalid" | "too_long" | "full" | "not_found" | "ambiguous" | "mismatch";

export class MemoryError extends Error {
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "MemoryError", configurable: true, writable: true });
  }
}

// Receives records that leave a full store for the archive. It must make them
// durable before it returns (the archive is written first, NVS after) and
// throw if it cannot, in which case nothing changes.
export type OverflowHook = (type: "facts" | "moments", records: readonly (Fact | Moment)[]) => void;

export const PROFILE_FIELDS = ["name", "birthday", "age", "gender", "location"] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

// How many of the oldest records go when a rolling store is full (seed 000 §12.7).
export const ROLL = { facts: 5, moments: 3 } as const;

type StoreMap = { [K in keyof typeof SPECS]: Store<(typeof SPECS)[K] extends { layout: { decode(b: Uint8Array): infer T } } ? T & object : never> };

const blankProfile = (): Profile => ({ name: "", birthday: "", age: 0, gender: "", location: "" });
const blankAffection = (t: number): Affection => ({
  totalCoinsSpent: 0,
  affection: 10,
  maxAffection: 10,
  mood: 0,
  stage: 0,
  firstMeet: t,
  lastChat: 0, // never
  streakDays: 0,
  totalDays: 0,
  totalConversations: 0,
  totalMessages: 0,
  totalChatSeconds: 0,
  happyMoments: 0,
  sadMoments: 0,
  comfortedTimes: 0,
  sharedSecrets: 0,
  achievements: 0,
  coinDay: 0,
  chatCoins: 0,
  taskCoins: 0,
  told: 0,
  bestStreak: 0,
  dayAffection: 0,
});

// The fields that date a record (unix seconds), moved by redate().
const REDATED_FIELDS = ["timestamp", "updated", "lastSeen", "firstMeet", "lastChat", "first"];

export function seconds(): number {
  return Math.floor(now() / 1000);
}

// A text argument: a string, trimmed, not empty, no control characters, at
// most `bytes` of UTF-8: a longer one is refused with the limit (`cut`: cut at
// a character boundary instead, for text nobody typed, like the chat log).
export function text(v: unknown, what: string, bytes: number, optional = false, cut = false): string {
  if (v === undefined || v === null || v === "") {
    if (optional) return "";
    throw new MemoryError("invalid", `${what} is required`);
  }
  if (typeof v !== "string") throw new MemoryError("invalid", `${what} must be a string`);
  const s = v.trim();
  if (!s && !optional) throw new MemoryError("invalid", `${what} is required`);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new MemoryError("invalid", `${what} has a control character`);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) throw new MemoryError("invalid", `${what} is not valid Unicode`);
      i++;
    }
  }
  if (cut) return truncate(s, bytes);
  const n = byteLength(s);
  if (n > bytes) throw new MemoryError("too_long", tooLong(what, n, bytes));
  return s;
}

// "fact is too long (150 bytes): at most 128 bytes, about 42 Chinese characters"
export function tooLong(what: string, n: number, bytes: number): string {
  return `${what} is too long (${n} bytes): at most ${bytes} bytes, about ${Math.floor(bytes / 3)} Chinese characters or ${bytes} letters`;
}

export function int(v: unknown, what: string, min: number, max: number, dflt?: number): number {
  if (v === undefined || v === null) {
    if (dflt !== undefined) return dflt;
    throw new MemoryError("invalid", `${what} is required`);
  }
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new MemoryError("invalid", `${what} must be an integer from ${min} to ${max}`);
  return v;
}

export function oneOf<T extends string>(v: unknown, what: string, values: readonly T[], dflt?: T): T {
  if (v === undefined || v === null || v === "") {
    if (dflt !== undefined) return dflt;
    throw new MemoryError("invalid", `${what} is required`);
  }
  if (typeof v !== "string" || !values.includes(v as T)) throw new MemoryError("invalid", `${what} must be one of ${values.join(", ")}`);
  return v as T;
}

// The stores a tool call changed, flushed by commit(): which reached flash.
export interface Commit {
  saved: StoreName[];
  unsaved: StoreName[]; // rolled back to before the call: flash and RAM hold the old table
  degraded: StoreName[]; // saved in one copy only; the next flush writes the other
  error?: string;
}

export interface BootReport {
  boot: number; // boot count, from the health record
  repaired: StoreName[]; // stores whose missing, damaged, older or old-format copy was written again
  setAside: HealthEvent[]; // damaged copies (not the traces of a cut flush)
  lost: string[]; // stores whose every copy was damaged: they start empty
  failed: string[]; // repairs NVS refused (tried again at the next flush)
}

export type MemoryMark = Record<string, StoreMark>;

const NAMES = Object.keys(SPECS) as StoreName[];

// The key that says the second copies were given back (Room): one u8 entry.
const ROOM_KEY = "room";

export class Memory {
  readonly health = new Health();
  // NVS short of room: the two-copy stores keep one copy (src/nvs/store.ts Room)
  readonly room: Room = { single: false };
  roomNote: string | undefined; // what the last give-back or take-back did, for `status`
  readonly stores: StoreMap;
  overflow: OverflowHook | undefined;
  private domainKeys: Record<string, string[]> = {};
  bootReport: BootReport | undefined; // what boot() found and did

  // mirror: the third copy of every store, outside NVS (src/nvs/mirror.ts)
  constructor(readonly mirror: Mirror | undefined = new FileMirror()) {
    const keys = (ns: string) => (this.domainKeys[ns] ??= this.listKeys(ns));
    const s = {} as Record<string, Store<object>>;
    for (const name of NAMES) s[name] = new Store(SPECS[name] as never, this.health, keys, mirror, this.room);
    this.stores = s as unknown as StoreMap;
  }

  // Preference.keys of a namespace; a throw is reported and reads as empty
  // (the copies there are then missing and written again).
  private listKeys(ns: string): string[] {
    try {
      return Preference.keys(ns);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.health.report("nvs", ns, "unreadable");
      return [];
    }
  }

  // ---- boot -----------------------------------------------------------------------

  // Reads every store (a copy that cannot be read is set aside and reported),
  // counts the boot, and writes again every copy that is missing, damaged,
  // older or in an older format. Never throws for what is on flash.
  boot(): BootReport {
    // second copies given back at an earlier boot: read as such; taken back by
    // the first flush of this boot that writes everything it must (after the
    // boot's own writes, such as confirmed items a cut left pending)
    let given = false;
    try {
      given = Preference.get(DOMAIN, ROOM_KEY) === 1;
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
    }
    this.room.single = given;
    for (const name of NAMES) this.stores[name].all();
    const lost = this.health.lost.slice();
    const rec = this.recordHealth(true);
    const r: BootReport = { boot: rec.boots as number, repaired: [], setAside: [], lost, failed: [] };
    this.bootReport = r;
    for (const e of this.health.events) if (e.problem !== "orphan" && e.problem !== "incomplete") r.setAside.push(e);
    for (const name of NAMES) {
      const st = this.stores[name];
      if (!st.mustWrite) continue;
      const repair = st.needsRepair;
      try {
        st.flush();
        if (st.degraded) r.failed.push(name);
        else if (repair) r.repaired.push(name);
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        this.health.writeFailed(name, e.message);
        if (this.retryWithRoom(name)) r.repaired.push(name);
        else r.failed.push(name);
      }
    }
    return r;
  }

  // ---- room (NVS shared with the firmware) -----------------------------------------

  // A store's write failed: give back the second copies (once) and try it again.
  private retryWithRoom(name: StoreName): boolean {
    if (this.room.single) return false;
    this.giveBack();
    try {
      this.stores[name].flush();
      return true;
    } catch (e) {
      if (!(e instanceof StoreError)) throw e;
      return false;
    }
  }

  // Every two-copy store deletes one of its copies; the mirror file keeps a
  // copy of each table. Remembered in NVS (one entry) for the next boot.
  giveBack(): void {
    this.room.single = true;
    this.takeBackTried = true; // not before the next boot
    this.roomNote = "NVS short of room: second copies given back (the mirror file keeps a copy)";
    for (const name of NAMES) {
      const st = this.stores[name];
      if (st.giveBack()) st.dropStale(); // deletes the copy, writes nothing
    }
    try {
      Preference.set(DOMAIN, ROOM_KEY, 1);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
    }
  }

  private takeBackTried = false;

  // After a give-back (once per boot): write the second copies again; if one
  // does not fit, give them back again at once.
  private takeBack(): void {
    this.room.single = false;
    for (const name of NAMES) this.stores[name].takeBack();
    for (const name of NAMES) {
      const st = this.stores[name];
      if (!st.mustWrite) continue;
      try {
        st.flush();
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        this.giveBack();
        return;
      }
      if (st.degraded) {
        this.giveBack();
        return;
      }
    }
    try {
      Preference.delete(DOMAIN, ROOM_KEY);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
    }
    this.roomNote = "NVS has room again: second copies taken back";
  }

  // ---- the clock (src/time/clock.ts, docs/DESIGN.md "Clocks") --------------------

  // Records this boot dated by the clock's estimate (a time field in
  // [from, to], unix seconds) move by `shift` seconds to their true time,
  // once the clock is trusted. Returns how many records moved; the stores
  // changed are dirty (the caller flushes).
  // The newest time a record holds (unix seconds; 0 when none).
  newestTime(): number {
    let max = 0;
    for (const name of NAMES) {
      const st = this.stores[name] as unknown as { all(): object[] };
      for (const r of st.all())
        for (const f of REDATED_FIELDS) {
          const v = (r as Record<string, unknown>)[f];
          if (typeof v === "number" && v > max) max = v;
        }
    }
    return max;
  }

  redate(from: number, to: number, shift: number): number {
    let moved = 0;
    for (const name of NAMES) {
      const st = this.stores[name] as unknown as { all(): object[]; set(list: object[]): void };
      const list = st.all();
      let changed = false;
      const next = list.map((r) => {
        let out: Record<string, unknown> | undefined;
        for (const f of REDATED_FIELDS) {
          const v = (r as Record<string, unknown>)[f];
          if (typeof v === "number" && v >= from && v <= to) {
            out ??= { ...(r as Record<string, unknown>) };
            out[f] = v + shift;
          }
        }
        if (!out) return r;
        changed = true;
        moved++;
        return out;
      });
      if (changed) st.set(next);
    }
    return moved;
  }

  // ---- flush --------------------------------------------------------------------

  get dirty(): boolean {
    for (const name of NAMES) if (this.stores[name].isDirty) return true;
    return false;
  }

  // Writes every store that changed (or those of `only`), one NVS write per
  // copy (plus deletes of leftovers). A store that fails stays dirty; the
  // others are still written; the first failure is thrown afterwards.
  flush(only?: readonly StoreName[]): number {
    if (!only) this.recordHealth(false);
    let written = 0;
    let failure: unknown;
    for (const name of NAMES) {
      if (only && !only.includes(name)) continue;
      try {
        if (this.stores[name].flush()) written++;
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        this.health.writeFailed(name, e.message);
        if (this.retryWithRoom(name)) written++;
        else failure ??= e;
      }
    }
    if (failure) throw failure;
    if (this.room.single && !this.takeBackTried && !only) {
      this.takeBackTried = true;
      this.takeBack();
    }
    return written;
  }

  // Puts every store a failed change touched back to the mark.
  rollback(m: MemoryMark): void {
    for (const name of NAMES) if (this.stores[name].version !== m[name].version) this.stores[name].restore(m[name]);
  }

  // Before a change: the state of every store, for commit().
  mark(): MemoryMark {
    const m: MemoryMark = {};
    for (const name of NAMES) m[name] = this.stores[name].mark();
    return m;
  }

  // After a change: flushes the stores it touched, in SPECS order. When a
  // store's new table reaches no copy, it and every touched store not yet
  // written go back to the mark: nothing of the change is claimed in RAM that
  // flash does not hold.
  commit(m: MemoryMark): Commit {
    const c: Commit = { saved: [], unsaved: [], degraded: [] };
    for (const name of NAMES) {
      const st = this.stores[name];
      if (st.version === m[name].version) continue;
      if (c.error !== undefined) {
        st.restore(m[name]);
        c.unsaved.push(name);
        continue;
      }
      try {
        try {
          st.flush();
        } catch (e) {
          if (!(e instanceof StoreError)) throw e;
          this.health.writeFailed(name, e.message);
          if (!this.retryWithRoom(name)) throw e;
        }
        c.saved.push(name);
        if (st.degraded) c.degraded.push(name);
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        c.error = e.message;
        st.restore(m[name]);
        c.unsaved.push(name);
      }
    }
    return c;
  }

  // What boot found wrong is added to the lifetime health record (written with
  // the next flush when there is something new); at boot the boot count too.
  private healthSaved: Record<string, number> = {};
  private lostSaved = 0;

  private recordHealth(booting: boolean): Record<string, number | string> {
    const store = this.stores.health;
    const saved = store.all()[0]; // loading it may itself find damage: count that too
    const counts = this.health.counts;
    const rec = { ...(saved ?? SPECS.health.layout.normalize({} as never)) } as unknown as Record<string, number | string>;
    const fresh = HEALTH_PROBLEMS.filter((p) => (counts[p] ?? 0) > (this.healthSaved[p] ?? 0));
    const lost = this.health.lost.length - this.lostSaved;
    if (!fresh.length && !lost && !booting) return rec;
    for (const p of fresh) rec[p] = Math.min(0xffff, (rec[p] as number) + (counts[p] ?? 0) - (this.healthSaved[p] ?? 0));
    const last = this.health.events[this.health.events.length - 1];
    if (fresh.length && last) {
      rec.lastStore = last.store;
      rec.lastProblem = last.problem;
      rec.lastSeen = seconds();
    }
    if (lost) rec.lost = Math.min(0xffff, (rec.lost as number) + lost);
    if (booting) rec.boots = Math.min(0xffffffff, (rec.boots as number) + 1);
    store.set([rec as never]);
    this.healthSaved = { ...counts };
    this.lostSaved = this.health.lost.length;
    return rec;
  }

  // The lifetime health record (all zero on a device that never saw damage).
  healthRecord(): Record<string, number | string> {
    this.recordHealth(false);
    return { ...(this.stores.health.all()[0] ?? SPECS.health.layout.normalize({} as never)) } as unknown as Record<string, number | string>;
  }

  // Stores lost to damage that `read` has not told of yet (an empty list when
  // none), and marks them told: the caller flushes the health store.
  untoldLoss(): { count: number; stores: string[] } | undefined {
    const rec = this.healthRecord();
    const lost = rec.lost as number, told = rec.told as number;
    if (lost === told) return undefined;
    this.stores.health.set([{ ...rec, told: lost } as never]);
    return { count: (lost - told) & 0xffff, stores: this.health.lost.slice() };
  }

  // Records per store and the NVS bytes of its copies (blob bytes).
  usage(): { records: Record<string, number>; blobBytes: Record<string, number[]>; copies: Record<string, number> } {
    const records: Record<string, number> = {}, blobBytes: Record<string, number[]> = {}, copies: Record<string, number> = {};
    for (const name of NAMES) {
      const st = this.stores[name];
      records[name] = st.count;
      blobBytes[name] = st.blobBytes;
      copies[name] = st.copies === 2 && this.room.single ? 1 : st.copies;
    }
    return { records, blobBytes, copies };
  }

  // ---- profile ------------------------------------------------------------------

  profile(): Profile {
    return { ...(this.stores.profile.all()[0] ?? blankProfile()) };
  }

  setProfile(field: ProfileField, value: unknown): Result {
    const p = this.profile();
    let v: string | number;
    switch (field) {
      case "name":
        v = text(value, "name", 32);
        break;
      case "birthday":
        v = birthday(value);
        break;
      case "age":
        v = int(typeof value === "string" && /^\d{1,3}$/.test(value) ? Number(value) : value, "age", 1, 150);
        break;
      case "gender":
        v = text(value, "gender", 8);
        break;
      case "location":
        v = text(value, "location", 32);
        break;
      default:
        throw new MemoryError("invalid", `profile field must be one of ${PROFILE_FIELDS.join(", ")}`);
    }
    const before = p[field];
    if (before === v) return { action: "NOOP" };
    (p as unknown as Record<string, unknown>)[field] = v;
    this.stores.profile.set([p]);
    return { action: before === "" || before === 0 ? "ADDED" : "UPDATED" };
  }

  // With `content`, only when it is what is stored: "forget that my name is
  // X" must not forget another name.
  clearProfile(field: ProfileField, content?: unknown): Result {
    if (!PROFILE_FIELDS.includes(field)) throw new MemoryError("invalid", `profile field must be one of ${PROFILE_FIELDS.join(", ")}`);
    const p = this.profile();
    if (content !== undefined && content !== null && content !== "") {
      const given = field === "birthday" ? birthday(content) : field === "age" ? String(int(typeof content === "string" && /^\d{1,3}$/.test(content.trim()) ? Number(content.trim()) : content, "age", 1, 150)) : text(content, field, 32);
      const stored = String(p[field]);
      if (p[field] !== "" && p[field] !== 0 && given !== stored) throw new MemoryError("mismatch", `${field} is ${stored}, not ${given}: nothing deleted`);
    }
    if (p[field] === "" || p[field] === 0) return { action: "NOOP" };
    (p as unknown as Record<string, unknown>)[field] = field === "age" ? 0 : "";
    this.stores.profile.set([p]);
    return { action: "DELETED" };
  }

  // ---- preferences --------------------------------------------------------------

  preferences(): Preferences {
    const p = this.stores.preferences.all()[0];
    return { likes: p ? [...p.likes] : [], dislikes: p ? [...p.dislikes] : [] };
  }

  // A like that was a dislike (or the reverse) moves: the latest statement wins.
  // A full list lets its oldest entry go.
  addPreference(kind: "like" | "dislike", item: unknown): Result {
    const v = text(item, kind, 32);
    const p = this.preferences();
    const mine = kind === "like" ? p.likes : p.dislikes;
    const other = kind === "like" ? p.dislikes : p.likes;
    if (mine.includes(v)) return { action: "NOOP" };
    const moved = other.indexOf(v);
    if (moved >= 0) other.splice(moved, 1);
    let dropped: string | undefined;
    if (mine.length >= PREFERENCE_CAPACITY) dropped = mine.shift();
    mine.push(v);
    this.stores.preferences.set([p]);
    return dropped ? { action: moved >= 0 ? "UPDATED" : "ADDED", dropped } : { action: moved >= 0 ? "UPDATED" : "ADDED" };
  }

  removePreference(kind: "like" | "dislike", item: unknown): Result {
    const v = text(item, kind, 32);
    const p = this.preferences();
    const mine = kind === "like" ? p.likes : p.dislikes;
    const i = mine.indexOf(v);
    if (i < 0) return { action: "NOOP" };
    mine.splice(i, 1);
    this.stores.preferences.set([p]);
    return { action: "DELETED" };
  }

  // ---- family -------------------------------------------------------------------

  family(): FamilyMember[] {
    return this.stores.family.all().map((m) => ({ ...m }));
  }

  // Keyed by name, or by relation for a member known only by relation ("my
  // brother"). Given fields overwrite; a full family refuses a new member.
  upsertFamily(input: { relation?: unknown; name?: unknown; memberType?: unknown; closeness?: unknown; sharedMemory?: unknown }): Result {
    const relation = text(input.relation, "relation", 16, true);
    const name = text(input.name, "name", 32, true);
    if (!relation && !name) throw new MemoryError("invalid", "family needs a relation or a name");
    const memberType = input.memberType === undefined ? undefined : oneOf<MemberType>(input.memberType, "member type", MEMBER_TYPES);
    const closeness = input.closeness === undefined ? undefined : int(input.closeness, "closeness", 1, 5);
    const shared = input.sharedMemory === undefined ? undefined : text(input.sharedMemory, "shared memory", 64, true);
    const list = this.family();
    const i = list.findIndex((m) => (name ? m.name === name : !m.name && m.relation === relation));
    if (i < 0) {
      if (list.length >= SPECS.family.capacity) throw new MemoryError("full", `family is full (${SPECS.family.capacity}): delete a member first`);
      list.push({ relation: relation || "family", name, memberType: memberType ?? "family", closeness: closeness ?? 3, sharedMemory: shared ?? "", updated: seconds() });
      this.stores.family.set(list);
      return { action: "ADDED" };
    }
    const m = list[i];
    const next: FamilyMember = {
      ...m,
      relation: relation || m.relation,
      memberType: memberType ?? m.memberType,
      closeness: closeness ?? m.closeness,
      sharedMemory: shared ?? m.sharedMemory,
    };
    if (next.relation === m.relation && next.memberType === m.memberType && next.closeness === m.closeness && next.sharedMemory === m.sharedMemory) return { action: "NOOP" };
    next.updated = seconds();
    list[i] = next;
    this.stores.family.set(list);
    return { action: "UPDATED" };
  }

  removeFamily(nameOrRelation: unknown): Result {
    const key = text(nameOrRelation, "name or relation", 32);
    const list = this.family();
    let i = list.findIndex((m) => m.name === key);
    if (i < 0) {
      const byRelation = list.filter((m) => m.relation === key);
      if (byRelation.length > 1) throw new MemoryError("ambiguous", `more than one ${key}: name them (${byRelation.map((m) => m.name || m.relation).join(", ")})`);
      i = list.indexOf(byRelation[0]);
    }
    if (i < 0) return { action: "NOOP" };
    list.splice(i, 1);
    this.stores.family.set(list);
    return { action: "DELETED" };
  }

  // ---- facts and moments (rolling into the archive) --------------------------------

  facts(): Fact[] {
    return this.stores.facts.all().map((f) => ({ ...f }));
  }

  addFact(content: unknown, timestamp = seconds()): Result {
    const c = text(content, "fact", 128);
    const list = this.facts();
    if (list.some((f) => f.content === c)) return { action: "NOOP" };
    this.roll("facts", list);
    list.push({ timestamp, content: c });
    this.stores.facts.set(list);
    return { action: "ADDED" };
  }

  removeFact(content: unknown): Result {
    const c = text(content, "fact", 128);
    return this.removeWhere("facts", (f: Fact) => f.content === c);
  }

  moments(): Moment[] {
    return this.stores.moments.all().map((m) => ({ ...m }));
  }

  addMoment(input: { topic?: unknown; content?: unknown; emotion?: unknown; intensity?: unknown; importance?: unknown; timestamp?: number }): Result {
    const topic = text(input.topic, "topic", 32, true);
    const content = text(input.content, "moment", 128);
    const emotion = oneOf<Emotion>(input.emotion, "emotion", EMOTIONS, "neutral");
    const intensity = int(input.intensity, "intensity", 0, 5, 0);
    const importance = int(input.importance, "importance", 1, 5, 3);
    const list = this.moments();
    if (list.some((m) => m.topic === topic && m.content === content)) return { action: "NOOP" };
    this.roll("moments", list);
    list.push({ timestamp: input.timestamp ?? seconds(), topic, content, emotion, intensity, importance });
    this.stores.moments.set(list);
    return { action: "ADDED" };
  }

  removeMoment(content: unknown): Result {
    const c = text(content, "moment", 128);
    return this.removeWhere("moments", (m: Moment) => m.content === c || m.topic === c);
  }

  // A full rolling store hands its oldest records to the archive first.
  private roll(type: "facts" | "moments", list: (Fact | Moment)[]): void {
    if (list.length < SPECS[type].capacity) return;
    if (!this.overflow) throw new MemoryError("full", `${type} are full (${SPECS[type].capacity}) and the archive is not available`);
    list.sort((a, b) => a.timestamp - b.timestamp);
    const out = list.slice(0, ROLL[type]);
    // a record dated by the unset clock's estimate would enter the archive
    // under a wrong date that no redate reaches (src/time/clock.ts): refused
    // until the clock is set, changing nothing
    const since = untrustedSince();
    if (since !== undefined && out.some((r) => r.timestamp * 1000 >= since))
      throw new MemoryError("full", `${type} are full (${SPECS[type].capacity}) and the clock is not set yet: the oldest can move to the archive once the network sets it; try again later`);
    this.overflow(type, out);
    list.splice(0, out.length);
  }

  // Removes records that left for the archive (used by the archive's own moves).
  evict(type: "facts" | "moments", records: readonly (Fact | Moment)[]): number {
    const list = (type === "facts" ? this.facts() : this.moments()) as (Fact | Moment)[];
    const keep = list.filter((r) => !records.some((x) => x.timestamp === r.timestamp && x.content === r.content));
    if (keep.length === list.length) return 0;
    (this.stores[type] as Store<Fact | Moment>).set(keep);
    return list.length - keep.length;
  }

  // ---- traits, habits, goals --------------------------------------------------------

  traits(): Trait[] {
    return this.stores.traits.all().map((t) => ({ ...t }));
  }

  // Traits and habits roll: a full list lets its oldest entry go.
  addTrait(category: unknown, content: unknown): Result {
    const cat = text(category, "trait category", 16, true) || "other";
    const c = text(content, "trait", 48);
    return this.rollIn("traits", { category: cat, content: c }, (t) => t.category === cat);
  }

  removeTrait(content: unknown): Result {
    const c = text(content, "trait", 48);
    return this.removeWhere("traits", (t: Trait) => t.content === c);
  }

  habits(): Habit[] {
    return this.stores.habits.all().map((h) => ({ ...h }));
  }

  addHabit(content: unknown, frequency?: unknown): Result {
    const c = text(content, "habit", 48);
    const f = text(frequency, "frequency", 16, true) || "occasionally";
    // a habit mentioned again without a frequency keeps the one it has
    return this.rollIn("habits", { content: c, frequency: f }, (h) => h.frequency === f || frequency === undefined);
  }

  removeHabit(content: unknown): Result {
    const c = text(content, "habit", 48);
    return this.removeWhere("habits", (h: Habit) => h.content === c);
  }

  goals(): Goal[] {
    return this.stores.goals.all().map((g) => ({ ...g }));
  }

  // Goals are few and deliberate: a full list refuses.
  addGoal(input: { content?: unknown; category?: unknown; priority?: unknown }): Result {
    const c = text(input.content, "goal", 64);
    const category = oneOf<GoalCategory>(input.category, "goal category", GOAL_CATEGORIES, "other");
    const priority = int(input.priority, "priority", 1, 5, 3);
    const list = this.goals();
    if (list.some((g) => g.content === c)) return { action: "NOOP" };
    if (list.length >= SPECS.goals.capacity) throw new MemoryError("full", `goals are full (${SPECS.goals.capacity}): complete or delete one first`);
    const t = seconds();
    list.push({ content: c, created: t, updated: t, category, status: "active", progress: 0, priority });
    this.stores.goals.set(list);
    return { action: "ADDED" };
  }

  updateGoal(content: unknown, change: { progress?: unknown; status?: unknown }): Result {
    const c = text(content, "goal", 64);
    const progress = change.progress === undefined ? undefined : int(change.progress, "progress", 0, 100);
    const status = change.status === undefined ? undefined : oneOf<GoalStatus>(change.status, "status", GOAL_STATUSES);
    const list = this.goals();
    const i = list.findIndex((g) => g.content === c);
    if (i < 0) throw new MemoryError("not_found", `no goal "${c}"`);
    const g = list[i];
    const next = { ...g, progress: progress ?? g.progress, status: status ?? g.status };
    if (next.progress === g.progress && next.status === g.status) return { action: "NOOP" };
    next.updated = seconds();
    list[i] = next;
    this.stores.goals.set(list);
    return { action: "UPDATED" };
  }

  removeGoal(content: unknown): Result {
    const c = text(content, "goal", 64);
    return this.removeWhere("goals", (g: Goal) => g.content === c);
  }

  // ---- events -----------------------------------------------------------------------

  events(): Event[] {
    return this.stores.events.all().map((e) => ({ ...e }));
  }

  // Events hold schedules: a full list refuses rather than dropping one.
  addEvent(e: Event): Result {
    const list = this.events();
    const same = list.findIndex((x) => x.date === e.date && x.time === e.time && x.content === e.content);
    if (same >= 0) return { action: "NOOP" };
    if (list.length >= SPECS.events.capacity) throw new MemoryError("full", `events are full (${SPECS.events.capacity}): complete or delete one first`);
    list.push(e);
    this.stores.events.set(list);
    return { action: "ADDED" };
  }

  // Replaces the event table (schedule logic works on a copy, then commits it whole).
  setEvents(list: readonly Event[]): void {
    if (list.length > SPECS.events.capacity) throw new MemoryError("full", `events are full (${SPECS.events.capacity})`);
    this.stores.events.set(list);
  }

  // ---- chat log -----------------------------------------------------------------------

  chat(): ChatMessage[] {
    return this.stores.chat.all().map((m) => ({ ...m }));
  }

  // A ring of the last 30 messages: the oldest goes.
  appendChat(role: Role, content: unknown, timestamp = seconds()): Result {
    const c = text(content, "message", CHAT_TEXT_BYTES, false, true); // speech is cut, not refused
    const list = this.chat();
    const dropped = list.length >= SPECS.chat.capacity ? list.shift() : undefined;
    list.push({ timestamp, role, content: c });
    this.stores.chat.set(list);
    return dropped ? { action: "ADDED", dropped: dropped.content } : { action: "ADDED" };
  }

  // ---- affection ------------------------------------------------------------------------

  affection(): Affection {
    return { ...(this.stores.affection.all()[0] ?? blankAffection(seconds())) };
  }

  updateAffection(change: (a: Affection) => void): Result {
    const before = this.affection();
    const a = { ...before };
    change(a);
    a.affection = Math.max(0, Math.min(100, a.affection));
    a.maxAffection = Math.max(a.maxAffection, a.affection);
    a.mood = Math.max(-10, Math.min(10, a.mood));
    a.stage = stageIndex(a.totalCoinsSpent);
    const rec = SPECS.affection.layout.normalize(a);
    const had = this.stores.affection.count > 0;
    const same = (Object.keys(rec) as (keyof Affection)[]).every((k) => rec[k] === before[k]);
    if (same && had) return { action: "NOOP" };
    this.stores.affection.set([rec]);
    return { action: had ? "UPDATED" : "ADDED" };
  }

  addCoinsSpent(n: unknown): Result {
    const k = int(n, "coins", 0, 1000000);
    if (k === 0) return { action: "NOOP" };
    return this.updateAffection((a) => (a.totalCoinsSpent = Math.min(0xffffffff, a.totalCoinsSpent + k)));
  }

  relationship(): { stage: string; hint: string; total_coins_spent: number } {
    const coins = this.affection().totalCoinsSpent;
    const s = STAGES[stageIndex(coins)];
    return { stage: s.stage, hint: s.hint, total_coins_spent: coins };
  }

  // ---- shared -----------------------------------------------------------------------------

  // Adds to a list keyed by content that lets its oldest entry go when full;
  // an entry already there is updated unless `same` says nothing changed.
  private rollIn<T extends { content: string }>(name: "traits" | "habits", rec: T, same: (old: T) => boolean): Result {
    const store = this.stores[name] as unknown as Store<T>;
    const list = [...store.all()];
    const i = list.findIndex((x) => x.content === rec.content);
    if (i >= 0) {
      if (same(list[i])) return { action: "NOOP" };
      list[i] = rec;
      store.set(list);
      return { action: "UPDATED" };
    }
    const dropped = list.length >= SPECS[name].capacity ? list.shift() : undefined;
    list.push(rec);
    store.set(list);
    return dropped ? { action: "ADDED", dropped: dropped.content } : { action: "ADDED" };
  }

  private removeWhere<T extends object>(name: StoreName, match: (r: T) => boolean): Result {
    const store = this.stores[name] as unknown as Store<T>;
    const list = store.all();
    const keep = list.filter((r) => !match(r));
    if (keep.length === list.length) return { action: "NOOP" };
    store.set(keep);
    return { action: "DELETED" };
  }
}

function birthday(v: unknown): string {
  const s = text(v, "birthday", 10);
  // MM-DD, or a full date whose year is dropped
  const m = /^(?:\d{4}-)?(\d{1,2})-(\d{1,2})$/.exec(s);
  if (!m) throw new MemoryError("invalid", "birthday must be MM-DD");
  const mm = Number(m[1]), dd = Number(m[2]);
  const days = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mm < 1 || mm > 12 || dd < 1 || dd > days[mm - 1]) throw new MemoryError("invalid", "birthday must be a real MM-DD date");
  return `${mm < 10 ? "0" : ""}${mm}-${dd < 10 ? "0" : ""}${dd}`;
}

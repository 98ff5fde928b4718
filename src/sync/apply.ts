// A pulled document applied to this device through the same rules as a local
// write (src/memory/memory.ts, src/episode/episodes.ts: add, update, delete,
// no-op): the remote copy is input like any other and is refused whole when
// a field is wrong. Returns the local document's hash afterwards.

import type { Booted } from "../app/boot";
import { SPECS, newEvent, type Event, type Fact, type Moment } from "../memory/types";
import type { Layout } from "../nvs/layout";
import { recordId, hex8 } from "../archive/line";
import { encodeDigest } from "../archive/codec";
import { keyId, checkRecord } from "../backup/schema";
import { PROFILE_FIELDS } from "../memory/memory";
import { DAYS_HOT, pastEvent } from "../archive/archiver";
import { byteLength } from "../text/utf8";
import { now } from "../time/clock";
import { TYPES, keyOf, idOf, type Key } from "./ids";
import { forEachLocal, episodeHash, hashOf, EVENT_KEYS, MOMENT_KEYS, FAMILY_KEYS, GOAL_KEYS, type Body } from "./docs";
import { aliasOf, localAlias, addAlias, dropAlias, type SyncState } from "./state";
import { GOAL_STATUSES, GOAL_CATEGORIES } from "../memory/types";
import { SyncError } from "./couch";

export interface Applied {
  hash: number | undefined; // the local document's hash now; undefined: none here
  absorbed?: boolean; // an episode taken into another one (AUDN update or no-op)
  archived?: boolean; // bound for the archive (the page's batch)
  same?: boolean; // the archive holds it already: nothing changed
}

function bad(id: string, why: string): never {
  throw new SyncError("bad", `sync: ${id}: ${why}`);
}

function str(v: unknown, id: string, k: string): string {
  if (typeof v !== "string") bad(id, `${k} must be a string`);
  return v;
}

function num(v: unknown, id: string, k: string): number {
  if (typeof v !== "number" || !Number.isInteger(v)) bad(id, `${k} must be an integer`);
  return v;
}

// The server's id for a local one: another client's name for an item whose
// fields give another id here (src/sync/state.ts aliases); undefined: none renamed.
export function renamer(st: SyncState | undefined): ((id: string) => string) | undefined {
  if (!st || !st.aliases) return undefined;
  return (id) => {
    const k = keyOf(id);
    if (!k) return id;
    const r = aliasOf(st, k.code, k.k1);
    return r < 0 ? id : idOf(k.code, r, 0);
  };
}

// The local document of one key (NVS stores only), or undefined.
export function localNvs(booted: Booted, id: string, st?: SyncState): { hash: number; body: Body; at?: number } | undefined {
  let out: { hash: number; body: Body; at?: number } | undefined;
  const type = id.slice(0, id.indexOf(":"));
  forEachLocal(booted, 0, () => undefined, (d) => {
    if (!out && d.body) out = { hash: d.hash, body: d.body, at: d.at };
  }, "nvs", type, id, renamer(st));
  return out;
}

export function localEpisode(booted: Booted, local: number): { hash: number; slot: number } | undefined {
  const eps = booted.episodes;
  if (!eps || !local) return undefined;
  let out: { hash: number; slot: number } | undefined;
  eps.store.scan((ep) => {
    if (ep.id === local && ep.state === "active") {
      out = { hash: episodeHash(ep), slot: ep.slot };
      return true;
    }
  });
  return out;
}

// The local episode id a document names on this device (0: none).
export function episodeLocal(state: SyncState, key: Key): number {
  if (key.k1 === state.pet) return key.k2;
  return state.localOf(key.k1, key.k2);
}

export function applyDelete(booted: Booted, state: SyncState, id: string, key: Key): Applied {
  const m = booted.service.memory;
  const type = TYPES[key.code];
  if (type === "episode") {
    const local = episodeLocal(state, key);
    if (local && booted.episodes && localEpisode(booted, local)) booted.episodes.remove({ id: local });
    if (local) state.dropMap(local);
    return { hash: undefined };
  }
  if (type === "digest") return { hash: undefined };
  const cur = localNvs(booted, id, state);
  const local = localAlias(state, key.code, key.k1);
  if (!cur) {
    // archived: hidden at once, its bytes leave by the archive's own steps
    if ((type === "fact" || type === "moment" || type === "event") && booted.archive) booted.archive.forget(type, local >= 0 ? [hex8(key.k1), hex8(local)] : [hex8(key.k1)]);
    dropAlias(state, key.code, key.k1);
    return { hash: undefined };
  }
  removeLocal(booted, type, cur.body);
  dropAlias(state, key.code, key.k1);
  return { hash: undefined };
}

// Takes one item out of its NVS store, found by its fields.
function removeLocal(booted: Booted, type: string, b: Body): void {
  const m = booted.service.memory;
  switch (type) {
    case "profile":
      m.clearProfile(b.field as (typeof PROFILE_FIELDS)[number]);
      break;
    case "like":
    case "dislike":
      m.removePreference(type, b.content);
      break;
    case "family":
      m.removeFamily(b.name || b.relation);
      break;
    case "fact":
      m.removeFact(b.content);
      break;
    case "moment":
      m.removeMoment(b.content);
      break;
    case "event": {
      const gone = recordId("event", b as unknown as Event);
      m.setEvents(m.events().filter((e) => recordId("event", e) !== gone));
      break;
    }
    case "trait":
      m.removeTrait(b.content);
      break;
    case "habit":
      m.removeHabit(b.content);
      break;
    case "goal":
      m.removeGoal(b.content);
      break;
  }
}

// Records bound for the archive, appended a page at a time by the caller
// (one append per type: one write of the segment and of its twin).
export interface ArchiveBatch {
  fact: Fact[];
  moment: Moment[];
  event: Event[];
}

// The fields an item of `type` is made of here (what forEachLocal builds), from a document's body.
function fieldsOf(type: string, b: Body): Body {
  const pick = (keys: readonly string[]) => {
    const o: Body = {};
    for (const k of keys) if (b[k] !== undefined) o[k] = b[k];
    return o;
  };
  switch (type) {
    case "like":
    case "dislike":
      return { content: b.content };
    case "family":
      return pick(FAMILY_KEYS);
    case "fact":
      return { timestamp: b.timestamp, content: b.content };
    case "trait":
      return { category: b.category, content: b.content };
    case "habit":
      return { content: b.content, frequency: b.frequency };
    case "moment":
      return pick(MOMENT_KEYS);
    case "goal":
      return pick(GOAL_KEYS);
    default:
      return pick(EVENT_KEYS);
  }
}

// The id an item's fields give on every device (hex8), its key fields checked.
function naturalOf(type: string, b: Body, id: string): string {
  switch (type) {
    case "like":
    case "dislike":
    case "trait":
    case "habit":
    case "goal":
      return keyId(type, str(b.content, id, "content"));
    case "family": {
      const name = b.name === undefined ? "" : str(b.name, id, "name"), relation = b.relation === undefined ? "" : str(b.relation, id, "relation");
      if (!name && !relation) bad(id, "a family member needs a name or a relation");
      return keyId("family", name || relation);
    }
    case "fact":
      return recordId("fact", { timestamp: num(b.timestamp, id, "timestamp"), content: str(b.content, id, "content") });
    case "moment":
      return recordId("moment", { timestamp: num(b.timestamp, id, "timestamp"), topic: str(b.topic, id, "topic"), content: str(b.content, id, "content") } as never);
    default:
      return recordId("event", newEvent(fieldsOf("event", b) as unknown as Event));
  }
}

// Everything of a document checked before anything is written (the memory's
// own methods check again as they add).
function check(type: string, b: Body, id: string): void {
  if (type === "goal") {
    if (b.progress !== undefined && (typeof b.progress !== "number" || !Number.isInteger(b.progress) || b.progress < 0 || b.progress > 100)) bad(id, "progress must be an integer 0..100");
    if (b.status !== undefined && (GOAL_STATUSES as readonly unknown[]).indexOf(b.status) < 0) bad(id, `status must be one of ${GOAL_STATUSES.join(", ")}`);
    if (b.category !== undefined && (GOAL_CATEGORIES as readonly unknown[]).indexOf(b.category) < 0) bad(id, `category must be one of ${GOAL_CATEGORIES.join(", ")}`);
  }
  if (type === "event") {
    const e = newEvent(fieldsOf("event", b) as unknown as Event);
    if (!/^(\d{4}-)?\d{2}-\d{2}$/.test(str(e.date, id, "date"))) bad(id, "date must be YYYY-MM-DD or MM-DD");
    if (str(e.time, id, "time") !== "" && !/^\d{2}:\d{2}$/.test(e.time)) bad(id, 'time must be HH:MM or ""');
    try {
      checkRecord(SPECS.events.layout as Layout<object>, e as unknown as Body, id);
    } catch (err) {
      bad(id, err instanceof Error ? err.message : String(err));
    }
  }
}

// A pulled document applied whole: added when nothing here has its id,
// replacing the item that has it when its fields differ (an edit in place by
// another client: the id need not be the one its fields give; the item is
// then known under the server's id, src/sync/state.ts aliases). The caller
// puts the memory back when this throws (src/sync/replicate.ts).
// `known`: the local item under this id as the caller found it (null: none;
// undefined: not looked up).
export function applyBody(booted: Booted, state: SyncState, id: string, key: Key, b: Body, restore: boolean, batch: ArchiveBatch, known?: { hash: number; body: Body } | null): Applied {
  const m = booted.service.memory;
  const type = TYPES[key.code];
  const want = hex8(key.k1);
  if (type === "profile") {
    m.setProfile(PROFILE_FIELDS[key.k1], b.value);
    const cur = localNvs(booted, id);
    return { hash: cur ? cur.hash : undefined, absorbed: !cur };
  }
  if (type === "episode") return applyEpisode(booted, state, id, key, b);
  if (type === "digest") return applyDigest(booted, id, key, b, restore);
  if (TYPES.indexOf(type) < 0 || !type) bad(id, "unknown type");
  const nat = naturalOf(type, b, id);
  check(type, b, id);
  const f = fieldsOf(type, b);
  const cur = known === undefined ? localNvs(booted, id, state) : known;
  if (cur) {
    if (hashOf(cur.body) === hashOf(f) && naturalOf(type, cur.body, id) === nat) {
      renamed(state, key, nat);
      return { hash: cur.hash };
    }
    removeLocal(booted, type, cur.body); // an edit replaces the item whole
  } else if ((type === "fact" || type === "moment" || type === "event") && booted.archive && nat !== want) {
    // an archived record edited in place: the old one is hidden (its
    // tombstone is not pushed while the server's id names the new one)
    const old = localAlias(state, key.code, key.k1);
    booted.archive.forget(type, old >= 0 ? [want, hex8(old)] : [want]);
  }
  switch (type) {
    case "like":
    case "dislike":
      m.addPreference(type, f.content);
      break;
    case "family":
      m.upsertFamily({ relation: f.relation, name: f.name, memberType: f.memberType, closeness: f.closeness, sharedMemory: f.sharedMemory });
      break;
    case "fact": {
      const r = { timestamp: f.timestamp as number, content: f.content as string };
      if (booted.archive && booted.archive.contains("fact", [r])[0]) return held(state, key, nat);
      if (archived(booted, r.timestamp, r.content, 128)) return toBatch(state, key, nat, batch.fact, r);
      m.addFact(r.content, r.timestamp);
      break;
    }
    case "moment": {
      const r = f as unknown as Moment;
      if (booted.archive && booted.archive.contains("moment", [r])[0]) return held(state, key, nat);
      if (archived(booted, r.timestamp, r.content, 128) || byteLength(r.topic) > 32) return toBatch(state, key, nat, batch.moment, r);
      m.addMoment(r);
      break;
    }
    case "event": {
      const e = newEvent(f as unknown as Event);
      if (booted.archive && booted.archive.contains("event", [e])[0]) return held(state, key, nat);
      if (booted.archive && pastEvent(e, now())) return toBatch(state, key, nat, batch.event, e);
      m.addEvent(e);
      break;
    }
    case "trait":
      m.addTrait(f.category, f.content);
      break;
    case "habit":
      m.addHabit(f.content, f.frequency);
      break;
    case "goal":
      m.addGoal({ content: f.content, category: f.category, priority: f.priority });
      if (f.progress !== undefined || f.status !== undefined) m.updateGoal(f.content, { progress: f.progress, status: f.status });
      break;
  }
  renamed(state, key, nat);
  const now2 = localNvs(booted, id, state);
  return { hash: now2 ? now2.hash : undefined, absorbed: !now2 };
}

// The server's id names the item whose fields give `nat` here.
function renamed(state: SyncState, key: Key, nat: string): void {
  const local = parseInt(nat, 16) >>> 0;
  if (local === key.k1 >>> 0) dropAlias(state, key.code, key.k1);
  else addAlias(state, key.code, local, key.k1);
}

// The archive holds the record already (this pet's own, read back after a
// cut, or one pulled before): nothing changes here.
function held(state: SyncState, key: Key, nat: string): Applied {
  renamed(state, key, nat);
  return { hash: undefined, same: true };
}

function toBatch<T>(state: SyncState, key: Key, nat: string, list: T[], r: T): Applied {
  list.push(r);
  renamed(state, key, nat);
  return { hash: undefined, archived: true };
}

function applyEpisode(booted: Booted, state: SyncState, id: string, key: Key, b: Body): Applied {
  const eps = booted.episodes;
  if (!eps) bad(id, "this device keeps no episodes");
  const r = eps.add({ content: b.content, keywords: b.keywords, emotion: b.emotion, e: hundredths(b.e), i: hundredths(b.i), p: hundredths(b.p), j: hundredths(b.j) }, "sync", {
    createdAt: typeof b.createdAt === "number" ? b.createdAt : undefined,
    // this device's own, or one a cut left without its document (pulled,
    // written, the state not saved): never another pulled one
    mergeable: (ep) => ep.source !== "sync" || !state.origin(ep.id),
  });
  const before = episodeLocal(state, key);
  if (key.k1 !== state.pet && before !== r.episode.id) {
    if (before) state.dropMap(before);
    if (r.action === "ADDED" || !state.origin(r.episode.id)) state.addMap(r.episode.id, key.k1, key.k2);
  }
  if (r.action !== "ADDED" && key.k1 !== state.pet && state.localOf(key.k1, key.k2) !== r.episode.id) return { hash: undefined, absorbed: true };
  return { hash: episodeHash(r.episode) };
}

function applyDigest(booted: Booted, id: string, key: Key, b: Body, restore: boolean): Applied {
  if (!restore || !booted.archive) return { hash: undefined, absorbed: true };
  const of = str(b.of, id, "of");
  if (of !== "moment" && of !== "event") bad(id, "of must be moment or event");
  const kw = b.keywords;
  if (!Array.isArray(kw) || kw.some((k) => typeof k !== "string")) bad(id, "keywords must be a list of strings");
  const line = encodeDigest({ from: num(b.from, id, "from"), to: num(b.until, id, "until"), month: str(b.month, id, "month"), count: num(b.count, id, "count"), keywords: kw as string[], points: str(b.points, id, "points"), source: num(b.source, id, "source"), events: of === "event" });
  if (line.id !== hex8(key.k2)) bad(id, "the fields do not give this id");
  booted.archive.streams.digest.append([line]);
  return { hash: undefined, absorbed: true };
}

// Where the archiver would have put a record by now (older than its days in
// NVS, or longer than NVS keeps): pulled records go there directly.
function archived(booted: Booted, t: number, content: string, max: number): boolean {
  if (!booted.archive) return false;
  const days = booted.archiver ? booted.archiver.days : DAYS_HOT;
  return t < Math.floor(now() / 1000) - days * 86400 || byteLength(content) > max;
}

// Episode scores travel as the store keeps them (hundredths); the episode
// domain takes 0..1.
function hundredths(v: unknown): unknown {
  return typeof v === "number" ? v / 100 : v;
}

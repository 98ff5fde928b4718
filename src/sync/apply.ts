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
import { TYPES, type Key } from "./ids";
import { forEachLocal, episodeHash, EVENT_KEYS, type Body } from "./docs";
import type { SyncState } from "./state";
import { SyncError } from "./couch";

export interface Applied {
  hash: number | undefined; // the local document's hash now; undefined: none here
  absorbed?: boolean; // an episode taken into another one (AUDN update or no-op)
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

// The local document of one key (NVS stores only), or undefined.
export function localNvs(booted: Booted, id: string): { hash: number; body: Body } | undefined {
  let out: { hash: number; body: Body } | undefined;
  const type = id.slice(0, id.indexOf(":"));
  forEachLocal(booted, 0, () => undefined, (d) => {
    if (!out && d.body) out = { hash: d.hash, body: d.body };
  }, "nvs", type, id);
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
  const cur = localNvs(booted, id);
  if (!cur) {
    // archived: hidden at once, its bytes leave by the archive's own steps
    if ((type === "fact" || type === "moment" || type === "event") && booted.archive) booted.archive.forget(type, [hex8(key.k1)]);
    return { hash: undefined };
  }
  const b = cur.body;
  switch (type) {
    case "profile":
      m.clearProfile(PROFILE_FIELDS[key.k1]);
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
    case "event":
      m.setEvents(m.events().filter((e) => recordId("event", e) !== hex8(key.k1)));
      break;
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
  return { hash: undefined };
}

// Records bound for the archive, appended a page at a time by the caller
// (one append per type: one write of the segment and of its twin).
export interface ArchiveBatch {
  fact: Fact[];
  moment: Moment[];
  event: Event[];
}

export function applyBody(booted: Booted, state: SyncState, id: string, key: Key, b: Body, restore: boolean, batch: ArchiveBatch): Applied {
  const m = booted.service.memory;
  const type = TYPES[key.code];
  const want = hex8(key.k1);
  switch (type) {
    case "profile":
      m.setProfile(PROFILE_FIELDS[key.k1], b.value);
      break;
    case "like":
    case "dislike":
      if (keyId(type, str(b.content, id, "content")) !== want) bad(id, "the content does not give this id");
      m.addPreference(type, b.content);
      break;
    case "family": {
      const name = typeof b.name === "string" ? b.name : "", relation = typeof b.relation === "string" ? b.relation : "";
      if (keyId("family", name || relation) !== want) bad(id, "the name does not give this id");
      m.upsertFamily({ relation: b.relation, name: b.name, memberType: b.memberType, closeness: b.closeness, sharedMemory: b.sharedMemory });
      break;
    }
    case "fact": {
      const r = { timestamp: num(b.timestamp, id, "timestamp"), content: str(b.content, id, "content") };
      if (recordId("fact", r) !== want) bad(id, "the fields do not give this id");
      if (localNvs(booted, id)) break;
      if (archived(booted, r.timestamp, r.content, 128)) {
        batch.fact.push(r);
        return { hash: undefined };
      }
      if (booted.archive && booted.archive.contains("fact", [r])[0]) break;
      m.addFact(r.content, r.timestamp);
      break;
    }
    case "moment": {
      const r = { timestamp: num(b.timestamp, id, "timestamp"), topic: str(b.topic, id, "topic"), content: str(b.content, id, "content"), emotion: b.emotion, intensity: b.intensity, importance: b.importance };
      if (recordId("moment", r as never) !== want) bad(id, "the fields do not give this id");
      if (localNvs(booted, id)) break;
      if (archived(booted, r.timestamp, r.content, 128) || byteLength(r.topic) > 32) {
        batch.moment.push(r as unknown as Moment);
        return { hash: undefined };
      }
      if (booted.archive && booted.archive.contains("moment", [r as never])[0]) break;
      m.addMoment(r);
      break;
    }
    case "event": {
      const f: Body = {};
      for (const k of EVENT_KEYS) f[k] = b[k];
      const e = newEvent(f as unknown as Event);
      if (!/^(\d{4}-)?\d{2}-\d{2}$/.test(str(e.date, id, "date"))) bad(id, "date must be YYYY-MM-DD or MM-DD");
      if (str(e.time, id, "time") !== "" && !/^\d{2}:\d{2}$/.test(e.time)) bad(id, 'time must be HH:MM or ""');
      try {
        checkRecord(SPECS.events.layout as Layout<object>, e as unknown as Body, id);
      } catch (err) {
        bad(id, err instanceof Error ? err.message : String(err));
      }
      if (recordId("event", e) !== want) bad(id, "the fields do not give this id");
      const list = m.events();
      const i = list.findIndex((x) => recordId("event", x) === want);
      if (i >= 0) {
        list[i] = { ...list[i], ...f } as Event;
        m.setEvents(list);
      } else if (booted.archive && pastEvent(e, now())) {
        batch.event.push(e);
        return { hash: undefined };
      } else if (!(booted.archive && booted.archive.contains("event", [e])[0])) m.addEvent(e);
      break;
    }
    case "trait":
      if (keyId("trait", str(b.content, id, "content")) !== want) bad(id, "the content does not give this id");
      m.addTrait(b.category, b.content);
      break;
    case "habit":
      if (keyId("habit", str(b.content, id, "content")) !== want) bad(id, "the content does not give this id");
      m.addHabit(b.content, b.frequency);
      break;
    case "goal":
      if (keyId("goal", str(b.content, id, "content")) !== want) bad(id, "the content does not give this id");
      m.addGoal({ content: b.content, category: b.category, priority: b.priority });
      m.updateGoal(b.content, { progress: b.progress, status: b.status });
      break;
    case "episode": {
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
    case "digest": {
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
    default:
      bad(id, "unknown type");
  }
  const cur = localNvs(booted, id);
  return { hash: cur ? cur.hash : undefined, absorbed: !cur };
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

// The documents a sync exchanges (docs/SYNC.md): one per memory item, each
// with an id that is the same on every device holding that item, and a body
// of the fields FORMAT.md gives it. The body's hash (CRC-32 of its JSON) is
// what the ledger and the revision ids carry, so a device can tell its own
// writes from another's without fetching them.

import type { Booted } from "../app/boot";
import { PROFILE_FIELDS } from "../memory/memory";
import type { ArchivedItem } from "../archive/line";
import type { Episode } from "../episode/types";
import { crc32 } from "../nvs/crc32";
import { encode } from "../text/utf8";
import { hex8 } from "../archive/line";
import { recordId } from "../archive/line";
import { keyId, archivedItem, digestItem } from "../backup/schema";

export type Body = Record<string, unknown>;

export interface LocalDoc {
  id: string;
  type: string;
  body: Body | undefined; // undefined: an episode whose text is read only when it is pushed
  hash: number;
  slot?: number; // an episode's slot
  at?: number; // when the item was last changed here (unix s), where the item keeps it
}

export const MOMENT_KEYS = ["timestamp", "topic", "content", "emotion", "intensity", "importance"];
export const EVENT_KEYS = ["date", "time", "eventType", "content", "emotion", "intensity", "significance", "priority", "schedule", "completed", "repeat"];
export const FAMILY_KEYS = ["relation", "name", "memberType", "closeness", "sharedMemory"];
export const GOAL_KEYS = ["content", "category", "status", "progress", "priority"];
export const EPISODE_KEYS = ["content", "keywords", "emotion", "e", "i", "p", "j", "createdAt"];

// The fields a server's document carries besides the protocol's and the
// replicator's own (type, at, by, reason).
export function bodyOf(d: Record<string, unknown>): Body {
  const b: Body = {};
  for (const k of Object.keys(d)) if (k.charAt(0) !== "_" && k !== "type" && k !== "at" && k !== "by" && k !== "reason") b[k] = d[k];
  return b;
}

export function hashOf(body: Body): number {
  return crc32(encode(JSON.stringify(body)));
}

function pick(r: object, keys: readonly string[]): Body {
  const o: Body = {};
  for (const k of keys) o[k] = (r as Body)[k];
  return o;
}

function doc(id: string, type: string, body: Body): LocalDoc {
  return { id, type, body, hash: hashOf(body) };
}

export function episodeDocId(pet: number, id: number): string {
  return `episode:${hex8(pet)}-${id}`;
}

type Origin = (local: number) => { pet: number; id: number } | undefined;

// A local episode's document: the one it was pulled as, else this pet's own.
export function episodeIdFor(pet: number, local: number, origin: Origin): string {
  const o = origin(local);
  return o ? episodeDocId(o.pet, o.id) : episodeDocId(pet, local);
}

// An episode's hash from its header alone: its signature stands for its text
// (src/episode/sig.ts derives it from content and keywords).
export function episodeHash(ep: Episode): number {
  const head = encode(JSON.stringify([ep.emotion, ep.e, ep.i, ep.p, ep.j, ep.createdAt]));
  return crc32(ep.sig, 0, ep.sig.length, crc32(head));
}

export function episodeBody(ep: Episode): Body {
  return { content: ep.content, keywords: ep.keywords.slice(), emotion: ep.emotion, e: ep.e, i: ep.i, p: ep.p, j: ep.j, createdAt: ep.createdAt };
}

// Every document the ledger tracks (NVS stores, active or trashed episodes),
// in a fixed order; `origin` names a pulled episode's document.
// `only`: one type's documents; `want`: one document (no other body is built
// or hashed: a lookup during a pull makes no garbage for the others).
// `rename`: the server's id of an item another client named (src/sync/state.ts aliases).
export function forEachLocal(booted: Booted, pet: number, origin: Origin, fn: (d: LocalDoc) => void, part: "all" | "nvs" | "episodes" | "trash" = "all", only?: string, want?: string, rename?: (id: string) => string): void {
  const m = booted.service.memory;
  const trash = part === "trash";
  const on = (t: string) => only === undefined || only === t;
  const emit = (id: string, type: string, body: () => Body, at?: number) => {
    const name = rename ? rename(id) : id;
    if (want === undefined || want === name) {
      const d = doc(name, type, body());
      if (at) d.at = at;
      fn(d);
    }
  };
  if (part === "all" || part === "nvs") {
    if (on("profile")) {
      const p = m.profile() as unknown as Body;
      for (const f of PROFILE_FIELDS) if (p[f] !== "" && p[f] !== 0) emit(`profile:${f}`, "profile", () => ({ field: f, value: p[f] }));
    }
    if (on("like") || on("dislike")) {
      const prefs = m.preferences();
      if (on("like")) for (const c of prefs.likes) emit(`like:${keyId("like", c)}`, "like", () => ({ content: c }));
      if (on("dislike")) for (const c of prefs.dislikes) emit(`dislike:${keyId("dislike", c)}`, "dislike", () => ({ content: c }));
    }
    if (on("family")) for (const r of m.family()) emit(`family:${keyId("family", r.name || r.relation)}`, "family", () => pick(r, FAMILY_KEYS), r.updated);
    if (on("fact")) for (const r of m.facts()) emit(`fact:${recordId("fact", r)}`, "fact", () => ({ timestamp: r.timestamp, content: r.content }));
    if (on("trait")) for (const r of m.traits()) emit(`trait:${keyId("trait", r.content)}`, "trait", () => ({ category: r.category, content: r.content }));
    if (on("habit")) for (const r of m.habits()) emit(`habit:${keyId("habit", r.content)}`, "habit", () => ({ content: r.content, frequency: r.frequency }));
    if (on("moment")) for (const r of m.moments()) emit(`moment:${recordId("moment", r)}`, "moment", () => pick(r, MOMENT_KEYS));
    if (on("goal")) for (const r of m.goals()) emit(`goal:${keyId("goal", r.content)}`, "goal", () => pick(r, GOAL_KEYS), r.updated);
    if (on("event")) for (const r of m.events()) emit(`event:${recordId("event", r)}`, "event", () => pick(r, EVENT_KEYS));
  }
  const eps = booted.episodes;
  if (!eps || part === "nvs") return;
  eps.store.open();
  eps.store.scan((ep) => {
    if (ep.state !== (trash ? "trash" : "active")) return;
    fn({ id: episodeIdFor(pet, ep.id, origin), type: "episode", body: undefined, hash: episodeHash(ep), slot: ep.slot });
  });
}

// An archived record's document: the same id and body as the record had in NVS.
export function archivedDoc(it: ArchivedItem): LocalDoc {
  const o = archivedItem(it);
  if (it.type === "fact") return doc(`fact:${it.id}`, "fact", { timestamp: o.timestamp, content: o.content });
  if (it.type === "moment") return doc(`moment:${it.id}`, "moment", pick(o, MOMENT_KEYS));
  return doc(`event:${it.id}`, "event", pick(o, EVENT_KEYS));
}

export function digestDoc(pet: number, it: ArchivedItem, source: number): LocalDoc {
  // the export's digest item without its id and type (src/backup/schema.ts)
  const o = digestItem(it, source);
  delete o.id;
  delete o.type;
  return doc(`digest:${hex8(pet)}-${it.id}`, "digest", o);
}

// Import: the whole document is checked first (checkDocument: the first
// error's JSON path and why, nothing changed); then the device must hold no
// memory, unless `replace`; then the archive, the episodes and the NVS stores
// are written, keeping every id and time (docs/EXPORT.md).
//
// On the device an import is not atomic: a power cut or a full partition in
// the middle leaves part of the document on flash (the desktop command imports
// into a fresh data folder, checks it, then swaps it in: desktop/commands/import.ts).

import { File, Iterator } from "file";
import type { Booted } from "../app/boot";
import { SPECS, PRESETS, type StoreName, type Fact, type Moment, type Event } from "../memory/types";
import { applyTimeZone, setTimeZone } from "../config/presets";
import { utcOffset, setUtcOffset } from "../time/local";
import { encodeDigest, type Line } from "../archive/codec";
import type { Episode, Tombstone } from "../episode/types";
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  MAX_EPISODES,
  NVS_SECTIONS,
  ImportError,
  fail,
  isObject,
  checkKeys,
  checkString,
  checkInt,
  checkOneOf,
  checkBool,
  checkList,
  checkNvs,
  checkPrefs,
  checkArchived,
  checkDigest,
  checkArchiveTomb,
  checkEpisode,
  checkEpisodeTomb,
  type DigestRec,
  type ArchiveTomb,
} from "./schema";
import { MAX_TOMBS } from "../archive/tomb";
import { SECTIONS } from "./export";

// The document's keys: its header, then each section's top-level name in the
// order the export writes them (src/backup/export.ts SECTIONS).
function topNames(): string[] {
  const out: string[] = [];
  for (const s of SECTIONS) {
    const top = s.split(".")[0];
    if (out.indexOf(top) < 0) out.push(top);
  }
  return out;
}
export const TOP_KEYS = ["format", "version", "exported_at", "device"].concat(topNames());
export const DEVICE_KEYS = ["firmware", "preset", "utc_offset", "archive", "episodes"];
export const ARCHIVE_KEYS = SECTIONS.filter((s) => s.indexOf("archive.") === 0).map((s) => s.slice(8));

export interface ImportReport {
  counts: Record<string, number>; // items imported per section
}

// What a checked document holds, ready to write.
export interface Plan {
  stores: Partial<Record<StoreName, object[]>>;
  archive: { fact: Fact[]; moment: Moment[]; event: Event[]; eventTimes: number[]; digests: DigestRec[]; tombstones: ArchiveTomb[] } | null;
  episodes: { episodes: Episode[]; tombs: Tombstone[] } | null;
  counts: Record<string, number>;
  utcOffset: number; // the zone the document was written in (device.utc_offset)
}

// Checks the whole document, in document order; the first error is thrown as
// an ImportError naming its path. Changes nothing.
export function checkDocument(doc: unknown): Plan {
  if (!isObject(doc)) fail("$", "an export document is a JSON object");
  if (doc.format !== EXPORT_FORMAT) fail("$.format", `must be "${EXPORT_FORMAT}" (this is not a petmem export)`);
  if (typeof doc.version !== "number" || !Number.isInteger(doc.version) || doc.version < 1) fail("$.version", "must be a version number");
  if (doc.version > EXPORT_VERSION) fail("$.version", `${doc.version} is newer than this petmem reads (${EXPORT_VERSION}): update petmem`);
  checkKeys(doc, "$", TOP_KEYS);
  const at = checkString(doc.exported_at, "$.exported_at", 40);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(at)) fail("$.exported_at", "must be an ISO time (YYYY-MM-DDTHH:MM:SS…)");
  const dev = doc.device;
  if (!isObject(dev)) fail("$.device", "must be an object");
  checkKeys(dev, "$.device", DEVICE_KEYS);
  checkString(dev.firmware, "$.device.firmware", 32);
  checkOneOf(dev.preset, "$.device.preset", PRESETS);
  checkInt(dev.utc_offset, "$.device.utc_offset", -720, 840);
  checkBool(dev.archive, "$.device.archive");
  checkBool(dev.episodes, "$.device.episodes");

  const plan: Plan = { stores: {}, archive: null, episodes: null, counts: {}, utcOffset: dev.utc_offset as number };
  const count = (k: string, n: number) => {
    if (n) plan.counts[k] = n;
  };
  for (const s of NVS_SECTIONS) {
    if (s.key === "family") {
      const likes = checkPrefs(doc.likes, "$.likes", "like");
      const dislikes = checkPrefs(doc.dislikes, "$.dislikes", "dislike");
      for (const l of likes) if (dislikes.indexOf(l) >= 0) fail(`$.dislikes[${dislikes.indexOf(l)}]`, `"${l}" is also a like: the device keeps it in one list`);
      plan.stores.preferences = likes.length || dislikes.length ? [{ likes, dislikes }] : [];
      count("likes", likes.length);
      count("dislikes", dislikes.length);
    }
    const recs = checkNvs(s, doc[s.key], `$.${s.key}`);
    plan.stores[s.store] = recs;
    count(s.key, recs.length);
  }

  const a = doc.archive;
  if (a !== null) {
    if (!isObject(a)) fail("$.archive", "must be an object or null");
    checkKeys(a, "$.archive", ARCHIVE_KEYS);
    const arc: NonNullable<Plan["archive"]> = { fact: [], moment: [], event: [], eventTimes: [], digests: [], tombstones: [] };
    for (const [key, type] of [
      ["facts", "fact"],
      ["moments", "moment"],
      ["events", "event"],
    ] as const) {
      const list = checkList(a[key], `$.archive.${key}`, 0xffffffff, "records");
      const out = arc[type] as (Fact | Moment | Event)[];
      for (let i = 0; i < list.length; i++) {
        out.push(checkArchived(type, list[i], `$.archive.${key}[${i}]`));
        if (type === "event") arc.eventTimes.push((list[i] as Record<string, number>).timestamp);
      }
      count(`archive.${key}`, out.length);
    }
    const dl = checkList(a.digests, "$.archive.digests", 0xffffffff, "digests");
    for (let i = 0; i < dl.length; i++) arc.digests.push(checkDigest(dl[i], `$.archive.digests[${i}]`));
    count("archive.digests", dl.length);
    const tl = checkList(a.tombstones, "$.archive.tombstones", MAX_TOMBS, "tombstones waiting");
    for (let i = 0; i < tl.length; i++) arc.tombstones.push(checkArchiveTomb(tl[i], `$.archive.tombstones[${i}]`));
    count("archive.tombstones", tl.length);
    plan.archive = arc;
  }

  const e = doc.episodes;
  if (e === null) {
    if (doc.episode_tombstones !== null) fail("$.episode_tombstones", "must be null when episodes are");
  } else {
    const list = checkList(e, "$.episodes", MAX_EPISODES, "episodes (active and trash)");
    const eps: Episode[] = [];
    const ids: number[] = [];
    for (let i = 0; i < list.length; i++) {
      const p = `$.episodes[${i}]`;
      const ep = checkEpisode(list[i], p);
      if (ids.indexOf(ep.id) >= 0) fail(`${p}.id`, `${ep.id} is the id of another episode: ids are never reused`);
      ids.push(ep.id);
      for (let k = 0; k < ep.keywords.length; k++) if (ep.keywords[k].indexOf(",") >= 0) fail(`${p}.keywords[${k}]`, "must not contain ','");
      eps.push(ep);
    }
    const tl = checkList(doc.episode_tombstones, "$.episode_tombstones", 0xffffffff, "tombstones");
    const tombs: Tombstone[] = [];
    for (let i = 0; i < tl.length; i++) tombs.push(checkEpisodeTomb(tl[i], `$.episode_tombstones[${i}]`));
    plan.episodes = { episodes: eps, tombs };
    count("episodes", eps.length);
    count("episode_tombstones", tombs.length);
  }
  return plan;
}

// ---- the device's side ----------------------------------------------------------------

// What the device holds, in a few words, or undefined when it holds no memory
// (a new device: only its boot count and settings). Reads a few KB at most.
export function holdsMemory(booted: Booted): string | undefined {
  const m = booted.service.memory;
  const held: string[] = [];
  for (const name of Object.keys(SPECS) as StoreName[]) {
    if (name === "health" || name === "config") continue;
    const n = m.stores[name].count;
    if (n) held.push(`${name} ${n}`);
  }
  const a = booted.archive;
  if (a)
    for (const s of ["fact", "moment", "event", "digest"] as const) {
      let any = false;
      a.scan(s, () => (any = true));
      if (any) {
        held.push(`archived ${s}s`);
        break;
      }
    }
  const eps = booted.episodes;
  if (eps) {
    let any = false;
    eps.forEach(() => (any = true), { trash: true });
    if (any || eps.store.tombCount() > 0) held.push("episodes");
  }
  return held.length ? held.join(", ") : undefined;
}

// The archive's files by name (made at each call: a module-level RegExp breaks
// when run from flash on the SDK's XS 17).
function archiveFile(n: string): boolean {
  return /^[fmed]\d{6}\.(jsonl|six|twn|par|rst|ret|scr|scx|old)$/.test(n) || /^[fmed]\.(cat|sum|bsl|bsc)$/.test(n) || /^(tomb|v1mig)\.[ab]$/.test(n) || /^(facts|moments|events)\.(jsonl|idx|sig|new|done|nix|nsg)$/.test(n);
}

// Empties the archive (its files, docs/FORMAT.md §3.1, deleted; then learnt
// again) and frees every episode slot (tombstones stay: they are kept for ever).
function wipe(booted: Booted): void {
  const a = booted.archive;
  if (a) {
    const names: string[] = [];
    const it = new Iterator(a.root);
    for (let e = it.next(); e; e = it.next()) {
      const n = e.name.charAt(0) === "/" ? e.name.slice(1) : e.name;
      if (archiveFile(n)) names.push(n);
    }
    for (const n of names) if (File.exists(a.root + n) && !File.delete(a.root + n)) throw new Error(`cannot delete ${a.root + n}`);
    a.check();
  }
  const eps = booted.episodes;
  if (eps) {
    const slots: number[] = [];
    eps.forEach((ep) => void slots.push(ep.slot), { trash: true });
    for (let i = 0; i < slots.length; i += 8)
      eps.store.write(
        slots.slice(i, i + 8).map((slot) => ({ slot, id: 0, state: "free", content: "", keywords: [], emotion: "neutral", e: 0, i: 0, p: 0, j: 0, useCount: 0, createdAt: 0, lastActiveAt: 0, purgeAt: 0, source: "ai", sig: new Uint8Array(64) }) as Episode),
      );
  }
}

const ARCHIVE_BATCH = 24; // records per append (one segment write and its twin's)

// The zone (minutes east of UTC) in which an event's date and time are the
// unix time `t` it was archived under; `dflt` when none is (an annual MM-DD
// event takes the year it is archived in: its year is the import's).
function zoneOf(e: Event, t: number, dflt: number): number {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(e.date);
  if (!d) return dflt;
  const tm = /^(\d{2}):(\d{2})$/.exec(e.time);
  const local = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), tm ? Number(tm[1]) : 0, tm ? Number(tm[2]) : 0) / 1000;
  const z = (local - t) / 60;
  return Number.isInteger(z) && z >= -720 && z <= 840 ? z : dflt;
}

// Checks the whole document first: a bad one throws an ImportError naming the
// first error's path, and nothing changes. The device must hold no memory
// unless `replace`.
export function importMemory(booted: Booted, doc: unknown, opts: { replace: boolean }): ImportReport {
  const plan = checkDocument(doc);
  const arc = plan.archive;
  const archived = arc ? arc.fact.length + arc.moment.length + arc.event.length + arc.digests.length : 0;
  if (archived && !booted.archive) throw new ImportError("$.archive", `this device has no archive now (its storage partition cannot be used): the document's ${archived} archived items cannot be imported`);
  if (plan.episodes && (plan.episodes.episodes.length || plan.episodes.tombs.length) && !booted.episodes) throw new ImportError("$.episodes", "this device keeps no episodes now: the document's episodes cannot be imported");
  const held = holdsMemory(booted);
  if (held && !opts.replace) throw new ImportError("$", `the device already holds memory (${held}): import with replace to replace it`);
  if (held) wipe(booted);

  const m = booted.service.memory;
  // the zone first: the archive files an event under its local date and time
  // (a document without a config was written in its device's build default:
  // that zone is stored when it is not the one in force here)
  const conf = plan.stores.config;
  if (conf && conf.length) {
    m.stores.config.set(conf as never);
    applyTimeZone(m);
  } else if (utcOffset() !== plan.utcOffset) setTimeZone(m, plan.utcOffset);
  const a = booted.archive;
  if (a && arc) {
    for (const type of ["fact", "moment"] as const) {
      const recs = arc[type] as (Fact | Moment)[];
      for (let i = 0; i < recs.length; i += ARCHIVE_BATCH) a.append(type, recs.slice(i, i + ARCHIVE_BATCH));
    }
    // an event's time is its local date and time in the zone of the day it was
    // archived: each run of events archived in one zone is appended in it
    const ev = arc.event, times = arc.eventTimes, zone = utcOffset();
    try {
      for (let i = 0; i < ev.length; ) {
        const z = zoneOf(ev[i], times[i], zone);
        let k = i + 1;
        while (k < ev.length && k - i < ARCHIVE_BATCH && zoneOf(ev[k], times[k], zone) === z) k++;
        setUtcOffset(z);
        a.append("event", ev.slice(i, k));
        i = k;
      }
    } finally {
      setUtcOffset(zone);
    }
    // digests came newest first: appended oldest first, as they were written
    const lines: Line[] = [];
    for (let i = arc.digests.length - 1; i >= 0; i--) {
      const d = arc.digests[i];
      lines.push(encodeDigest({ from: d.from, to: d.to, month: d.month, count: d.count, keywords: d.keywords, points: d.points, source: d.source, events: d.events }));
      if (lines.length === ARCHIVE_BATCH || i === 0) {
        a.streams.digest.append(lines.slice());
        lines.length = 0;
      }
    }
    // tombstones, in runs of one time (each run one write of both copies)
    const t = arc.tombstones;
    for (let i = 0; i < t.length; ) {
      let k = i + 1;
      while (k < t.length && t[k].at === t[i].at) k++;
      a.tombs.add(t.slice(i, k).map((x) => ({ code: x.code, id: x.id })), t[i].at);
      i = k;
    }
  }
  const eps = booted.episodes;
  if (eps && plan.episodes) {
    const list = plan.episodes.episodes;
    const base = list.length ? eps.store.freeSlot() : 0;
    for (let i = 0; i < list.length; i += 8) eps.store.write(list.slice(i, i + 8).map((ep, k) => ({ ...ep, slot: base + i + k })));
    const tombs = plan.episodes.tombs;
    for (let i = 0; i < tombs.length; i += 64) eps.store.addTombs(tombs.slice(i, i + 64));
  }
  for (const name of Object.keys(SPECS) as StoreName[]) {
    if (name === "config") continue;
    const recs = plan.stores[name] ?? [];
    if (name === "health" && !recs.length) continue; // the device's own boot count stays
    m.stores[name].set(recs as never);
  }
  m.flush();
  return { counts: plan.counts };
}

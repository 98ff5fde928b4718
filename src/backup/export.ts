// Export: the whole memory, section by section, item by item (docs/EXPORT.md).
// NVS stores are in RAM already; the archive is read one 4 KB chunk at a time
// (Archive.forEach, Archive.scan) and the episodes one header and text read at
// a time, so an export never holds more than one item and one chunk whatever
// the archive's age. Reading changes nothing on flash.

import type { Booted } from "../app/boot";
import { SPECS } from "../memory/types";
import type { Layout } from "../nvs/layout";
import { presetOf } from "../config/presets";
import { utcOffset } from "../time/local";
import { now } from "../time/clock";
import { hex8 } from "../archive/line";
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  NVS_SECTIONS,
  fieldNames,
  itemOf,
  keyId,
  archivedItem,
  digestItem,
  digestSource,
  episodeItem,
  episodeTombItem,
  type Item,
} from "./schema";

// The document's sections in order. "archive.*" are inside "archive".
export const SECTIONS = [
  "config",
  "profile",
  "likes",
  "dislikes",
  "family",
  "facts",
  "traits",
  "habits",
  "moments",
  "goals",
  "events",
  "chat",
  "relationship",
  "pending",
  "health",
  "archive.facts",
  "archive.moments",
  "archive.events",
  "archive.digests",
  "archive.tombstones",
  "episodes",
  "episode_tombstones",
] as const;
export type SectionName = (typeof SECTIONS)[number];
export const SINGLE_SECTIONS: readonly string[] = ["config", "profile", "relationship", "health"];

// What an export is written into: the JSON writer below, the CSV writer
// (src/backup/csv.ts), a test's collector.
export interface ExportSink {
  head(h: Item): void; // format, version, exported_at, device
  single(section: SectionName, item: Item | null): void;
  list(section: SectionName): void; // a list starts; its items follow
  item(it: Item): void;
  endList(): void;
  absent(part: "archive" | "episodes"): void; // the device has no archive, or no episodes
  end(): void;
}

export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, "name", { value: "ExportError", configurable: true, writable: true });
  }
}

export interface ExportOptions {
  progress?: (section: SectionName, items: number) => void; // every 500 items of a long section
}

const ARCHIVE_STREAMS = [
  ["archive.facts", "fact"],
  ["archive.moments", "moment"],
  ["archive.events", "event"],
] as const;

const TOMB_TYPE = ["", "fact", "moment", "event"];

// Walks the device's whole memory into `sink`.
export function exportTo(booted: Booted, sink: ExportSink, opts: ExportOptions = {}): void {
  const m = booted.service.memory;
  const archive = booted.archive;
  const episodes = booted.episodes;
  if (archive && archive.report().migrating) throw new ExportError("the archive is being migrated from format 1 and some records are not readable yet: let the device run a while (its maintenance finishes it), then export again");
  sink.head({
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date(now()).toISOString(),
    device: { firmware: booted.service.server.info.version, preset: presetOf(m).name, utc_offset: utcOffset(), archive: archive !== undefined, episodes: episodes !== undefined },
  });
  let n = 0;
  const tick = (s: SectionName) => {
    if (++n % 500 === 0 && opts.progress) opts.progress(s, n);
  };
  for (const s of NVS_SECTIONS) {
    const names = fieldNames(SPECS[s.store].layout as Layout<object>);
    const recs = m.stores[s.store].all() as readonly object[];
    if (s.key === "family") {
      // likes and dislikes come before family, in the document's order
      const p = m.preferences();
      for (const kind of ["like", "dislike"] as const) {
        sink.list(kind === "like" ? "likes" : "dislikes");
        for (const c of kind === "like" ? p.likes : p.dislikes) sink.item({ id: keyId(kind, c), type: kind, content: c });
        sink.endList();
      }
    }
    if (s.single) {
      const r = recs[0];
      sink.single(s.key as SectionName, r ? itemOf(s.id(r as Item), s.type, r, names) : null);
      continue;
    }
    sink.list(s.key as SectionName);
    for (const r of recs) sink.item(itemOf(s.id(r as Item), s.type, r, names));
    sink.endList();
  }
  if (!archive) sink.absent("archive");
  else {
    n = 0;
    for (const [section, type] of ARCHIVE_STREAMS) {
      sink.list(section);
      // oldest segment first, in the order they were archived: an import
      // appends them in this order, so ties in time fall as they did
      archive.forEach(type, (it) => {
        sink.item(archivedItem(it));
        tick(section);
      });
      sink.endList();
    }
    // digests, newest first (the archive hands out no other order without
    // reading them all); their segment number is found from their id
    sink.list("archive.digests");
    const hint = { moment: oldestSeq(archive, "moment"), event: oldestSeq(archive, "event") };
    let failed = "";
    archive.scan("digest", (it) => {
      const kind = it.type === "event" ? "event" : "moment";
      const q = digestSource(it.id, kind === "event", it.month ?? "", hint[kind]);
      if (q < 0) {
        failed = it.id;
        return true;
      }
      hint[kind] = q;
      sink.item(digestItem(it, q));
    });
    if (failed) throw new ExportError(`archive: the digest ${failed} does not say which segment it summarizes`);
    sink.endList();
    sink.list("archive.tombstones");
    for (const t of archive.tombs.entries()) sink.item({ id: hex8(t.id), type: "archive_tombstone", of: TOMB_TYPE[t.code] ?? "fact", at: t.when });
    sink.endList();
  }
  if (!episodes) sink.absent("episodes");
  else {
    n = 0;
    sink.list("episodes");
    episodes.forEach(
      (ep) => {
        sink.item(episodeItem(ep));
        tick("episodes");
      },
      { trash: true, text: true },
    );
    sink.endList();
    sink.list("episode_tombstones");
    episodes.store.tombs((t) => {
      sink.item(episodeTombItem(t));
    });
    sink.endList();
  }
  sink.end();
}

// The oldest segment a stream still holds: retiring goes oldest first, so
// the newest digest is of the segment just below it.
function oldestSeq(archive: NonNullable<Booted["archive"]>, type: "moment" | "event"): number {
  const seqs = archive.streams[type].newestFirst();
  return seqs.length ? seqs[seqs.length - 1] : 0;
}

// The JSON document in pieces: a piece per item (one line each), never the
// whole document at once.
export class JsonSink implements ExportSink {
  private first = true; // the next item is its list's first
  private inArchive = false;
  pieces = 0;
  largest = 0; // bytes... in UTF-16 units: a bound for the caller's buffer
  constructor(private readonly write: (chunk: string) => void) {}

  private out(s: string): void {
    this.pieces++;
    if (s.length > this.largest) this.largest = s.length;
    this.write(s);
  }

  head(h: Item): void {
    this.out(`{"format":${JSON.stringify(h.format)},"version":${h.version},"exported_at":${JSON.stringify(h.exported_at)},\n"device":${JSON.stringify(h.device)}`);
  }

  private key(section: string): string {
    if (section.indexOf("archive.") === 0) {
      const k = section.slice(8);
      if (!this.inArchive) {
        this.inArchive = true;
        return `,\n"archive":{\n"${k}":`;
      }
      return `,\n"${k}":`;
    }
    const close = this.inArchive ? "}" : "";
    this.inArchive = false;
    return `${close},\n"${section}":`;
  }

  single(section: SectionName, item: Item | null): void {
    this.out(this.key(section) + JSON.stringify(item));
  }

  list(section: SectionName): void {
    this.out(this.key(section) + "[");
    this.first = true;
  }

  item(it: Item): void {
    this.out((this.first ? "\n" : ",\n") + JSON.stringify(it));
    this.first = false;
  }

  endList(): void {
    this.out(this.first ? "]" : "\n]");
  }

  absent(part: "archive" | "episodes"): void {
    if (part === "archive") this.out(this.key("archive") + "null");
    else this.out(this.key("episodes") + "null" + this.key("episode_tombstones") + "null");
  }

  end(): void {
    this.out((this.inArchive ? "}" : "") + "\n}\n");
    this.inArchive = false;
  }
}

// Streams the document in pieces through `write` (never the whole archive in RAM).
export function exportMemory(booted: Booted, write: (chunk: string) => void, opts: ExportOptions = {}): { pieces: number; largest: number } {
  const sink = new JsonSink(write);
  exportTo(booted, sink, opts);
  return { pieces: sink.pieces, largest: sink.largest };
}

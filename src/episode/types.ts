// What an episode is (seeds 001 and 004): a short account of something that
// happened, scored for how much it matters. Shared by the store
// (src/episode/store.ts), the domain (src/episode/episodes.ts), the query
// language (src/query) and the MCP tool. Layout on flash: docs/FORMAT.md §4.

import type { Emotion } from "../memory/types";

export const EPISODE_CONTENT_CHARS = 200; // seed 004: summary ≤ 200 characters
export const EPISODE_CONTENT_BYTES = 600; // 200 CJK characters in UTF-8
export const EPISODE_KEYWORDS = 5; // at most, each ≤ 16 bytes
export const EPISODE_KEYWORDS_BYTES = 56; // all of them, joined by ","
export const EPISODE_SIG_BYTES = 64; // hashed character n-grams, 512 bits (src/episode/sig.ts)
export const EPISODE_SLOTS = 1024; // active + trash, never more (the files' largest size)
export const TRASH_DAYS = 7; // seed 001: purge_at = moved + 7 days
export const CANDIDATES = 300; // seed 001: candidateLimit

export const EPISODE_STATES = ["free", "active", "trash"] as const;
export type EpisodeState = (typeof EPISODE_STATES)[number];
export const TOMB_REASONS = ["evicted", "replaced", "user_delete", "conflict_patch"] as const;
export type TombReason = (typeof TOMB_REASONS)[number];
// why an `evicted` tombstone was written: over the cap, or forgotten (strength < 0.2)
export const EVICT_CAUSES = ["none", "cap", "decay"] as const;
export type EvictCause = (typeof EVICT_CAUSES)[number];
export const EPISODE_SOURCES = ["ai", "listener", "sync"] as const;
export type EpisodeSource = (typeof EPISODE_SOURCES)[number];

// One episode as the store keeps it (every field is on flash).
export interface Episode {
  slot: number; // index in the slot files, 0..EPISODE_SLOTS-1 (not an identity)
  id: number; // u32, never reused on this device
  state: EpisodeState;
  content: string; // ≤ 200 characters, ≤ 600 bytes
  keywords: string[];
  emotion: Emotion;
  e: number; // scores 0..1 in hundredths (0.37 is stored as 37)
  i: number;
  p: number;
  j: number;
  useCount: number; // u16, saturates
  createdAt: number; // unix seconds
  lastActiveAt: number; // unix seconds
  purgeAt: number; // unix seconds, 0 unless state is trash
  source: EpisodeSource;
  sig: Uint8Array; // EPISODE_SIG_BYTES, derived from content + keywords
  // the owner deleted it (seed 001): once its slot is freed, steps collect its
  // text's segment so that no byte of the text stays on flash (FORMAT.md §4.2)
  wipe?: boolean;
}

// A tombstone (seed 001's memory_tombstones): kept for ever, for a later sync.
export interface Tombstone {
  id: number; // the episode's id
  reason: TombReason;
  cause: EvictCause;
  at: number; // unix seconds
  payloadHash: number; // CRC-32 of the episode's content and keywords when it went
  strength: number; // hundredths: the strength that decided a decay eviction, else the importance
}

// Streams episodes from flash (src/episode/episodes.ts implements it): `fn`
// returns true to stop. Without `text`, content and keywords are left empty
// (the header file alone is read); without `trash`, only active episodes.
// `words` (folded, with `text`): only episodes whose content may hold every
// one need come (the others may be left out, unread); the order stays.
export interface EpisodeReader {
  // `pre` (with text): only episodes whose header (content "" and keywords [])
  // meets it need come (the others may be left out, their texts unread)
  forEach(fn: (ep: Episode) => boolean | void, opts?: { trash?: boolean; text?: boolean; words?: readonly Uint8Array[]; pre?: (ep: Episode) => boolean }): void;
}

export interface TextFilterApi {
  may(h: Uint8Array, at: number): boolean;
  times(): number[] | undefined;
  cost(): number; // bytes times() reads at most (the sidecars), less the unindexed lines it scans
  eager(): void; // from now on a segment's sidecar is read before any of its texts (a scan where every text is a candidate)
}

// The episode files (src/episode/store.ts implements it; docs/FORMAT.md §4).
// Every change is a batch of whole episodes written by one mechanism that a
// power cut at any point leaves either as before or as after, per episode,
// with both copies put in step again by open() or step(). Errors are
// EpisodeError (name "EpisodeError", code "full" | "io" | "bad"); a batch
// that throws changed nothing that reads back.
export interface EpisodeStoreApi {
  // Learns the files (lazily, at the first use; cheap to call again):
  // finishes a batch a cut interrupted, notes a copy that cannot be read.
  open(): void;
  readonly slots: number; // slots in the files (free ones included)
  nextId(): number; // an id never used on this device
  freeSlot(): number; // a free slot, else `slots` (the files grow by one)
  // headers only (content "" and keywords []) unless `text`; every slot's
  // episode that is not free, in slot order; fn returns true to stop
  // `want` (with text): a header whose text is not wanted comes without it
  // (withText false: content "" and keywords [])
  // (textLen: the bytes of its passage's lines, -1 for a version-1 header's text)
  scan(fn: (ep: Episode, withText?: boolean, textLen?: number) => boolean | void, text?: boolean, want?: (h: Uint8Array, at: number) => boolean): void;
  // the times (a passage line's `t`: its episode's createdAt) of every text
  // that may hold every one of `words`, as [lo, hi] pairs; undefined when
  // they cannot be told (then any text may)
  textTimes?(words: readonly Uint8Array[]): number[] | undefined;
  // which texts may hold every one of `words` (folded): may(h, at) asked with
  // a text's header bytes; times(): the `t` of every passage line (its
  // episode's createdAt) that may, as [lo, hi] pairs, undefined when they
  // cannot be told; cost(): its bytes. Undefined when nothing can be ruled out
  // (docs/design/episode-queries.md)
  textFilter?(words: readonly Uint8Array[]): TextFilterApi | undefined;
  // whether a text may hold every one of `words` (folded), asked with its
  // header's bytes; undefined when nothing can be ruled out (docs/design/episode-queries.md)
  textMay?(words: readonly Uint8Array[]): ((h: Uint8Array, at: number) => boolean) | undefined;
  // the slot index (FORMAT.md §4.9) when it is current, else undefined
  slotTable?(): SlotTable | undefined;
  read(slot: number): Episode | undefined; // header and text; undefined if free
  // read(slot) when `may(header, offset of its sig)` holds for the primary
  // copy's valid header (else undefined, its text not read); a header that
  // cannot be read: read(slot) whole
  readIf?(slot: number, may: (h: Uint8Array, sigAt: number) => boolean): Episode | undefined;
  // writes whole episodes (state "free" frees a slot); at most 8 per batch
  write(batch: Episode[]): void;
  addTombs(t: Tombstone[]): void; // appended, both copies
  tombs(fn: (t: Tombstone) => boolean | void): void; // oldest first
  tombCount(): number;
  // one bounded piece of upkeep (rebuild an unreadable copy, compare a few
  // slots of both copies and repair a difference); true while work remains
  step(nowMs?: number): boolean; // nowMs paces the scrub
  footprint(): number; // bytes of every episode file
  readonly stats: { bytesRead: number; reads: number; bytesWritten: number; writes: number };
}

// The slot index's table (slot-index.ts, FORMAT.md §4.9): per slot its state
// (1 active, 2 trash, 0 free), createdAt, signature folded to 128 bits
// (IDX_SIG bytes at slot·16 of sig), and whether its text is known to be one
// passage line.
export interface SlotTable {
  n: number;
  active: Uint8Array;
  created: Uint32Array;
  sig: Uint8Array;
  short: Uint8Array;
}

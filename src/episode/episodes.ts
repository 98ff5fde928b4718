// Episodes as memory (seeds 001 and 004; docs/DESIGN.md "Episodes"): what
// happened, scored for how much it matters, kept on the storage partition by
// an EpisodeStoreApi (src/episode/store.ts), with
// - AUDN on every add: an episode very like an active one updates it (or is a
//   NOOP), a statement that contradicts a core memory edits that memory with a
//   dated note; never two active episodes saying the same;
// - a cap on active episodes: beyond it the least important non-core ones go
//   to the trash for 7 days; core ones never;
// - forgetting (seed 004's strength below 0.2), run in bounded steps by the
//   maintenance timer;
// - recall by similarity among the 300 most important, with use counts.
// Every change is one batch of whole episodes (at most 8), then its
// tombstones; each decision is traced.
//
//   const eps = new Episodes(store, { cap: 800, recall: 3 });
//   eps.add({ content: "…", e: 0.4, i: 0.6, p: 0.1, j: 0.5, keywords: "a,b" });
//   eps.recall("今天又去打篮球了");   // hits with their age, use counts updated

import { EMOTIONS, type Emotion } from "../memory/types";
import { MemoryError, text as checkText } from "../memory/memory";
import { now as clockNow, isValid } from "../time/clock";
import { formatDate } from "../time/local";
import { byteLength, encode } from "../text/utf8";
import { crc32 } from "../nvs/crc32";
import { CANDIDATES, EPISODE_SIG_BYTES, EPISODE_CONTENT_BYTES, EPISODE_CONTENT_CHARS, EPISODE_KEYWORDS, EPISODE_KEYWORDS_BYTES, EPISODE_SLOTS, TRASH_DAYS, type Episode, type EpisodeReader, type EpisodeSource, type EpisodeStoreApi, type EvictCause, type TombReason, type Tombstone, type TextFilterApi } from "./types";
import { importance, isCore, strength, hundredths, FORGET_BELOW } from "./score";
import { polarity, topicOverlap, sameThing } from "./words";
import { agePhrase } from "./age";
import { signature, similarity, wordBits, hasBits, hasFoldedBits } from "./sig";
import { H_SIG, headerState, decodeHeader } from "./record";
import { IDX_SIG, foldSig, newTable, oneLine, type SlotTable } from "./slot-index";

export { IDX_SIG, foldSig };

// The signatures of src/episode/sig.ts: hashed character n-grams of a text and
// its keywords, and how alike two are (0..1).
export interface Signer {
  signature(text: string, keywords: readonly string[]): Uint8Array;
  similarity(a: Uint8Array, b: Uint8Array): number;
}

export const DEFAULT_CAP = 800; // seed 001: localMaxMemories
export const DEFAULT_RECALL = 3; // seed 001: topK
export const UPDATE_SIMILARITY = 0.75; // at or above: the same episode (UPDATE or NOOP)
export const RECALL_FLOOR = 0.2; // below: not recalled at all
export const CONFLICT_SHORTLIST = 0.2; // core episodes this alike are checked for a contradiction
export const TOPIC_OVERLAP = 0.5; // share of topic bigrams that makes two statements one topic
export const KEYWORD_BYTES = 16;
export const UPKEEP_WRITES = 4; // slots one upkeep step writes at most
export const UPKEEP_EVERY_S = 3600; // a full look at forgetting at most this often
export const FORGET_GRACE_S = 86400; // an episode told or recalled within a day is not judged
const BATCH = 8;
const DAY = 86400;

export interface EpisodesOptions {
  cap?: number;
  recall?: number;
  // the preset in force (src/config/presets.ts), asked at each use so that a
  // change applies at once; wins over cap and recall
  limits?: () => { episodeCap: number; recall: number };
  now?: () => number; // ms (default: the device clock)
  signer?: Signer; // default: src/episode/sig.ts
}

// Where forgotten episodes are folded (the archive's monthly digests, issue 25 item 6).
export type Fold = (eps: readonly Episode[]) => void;

export interface EpisodeInput {
  content?: unknown;
  e?: unknown;
  i?: unknown;
  p?: unknown;
  j?: unknown;
  keywords?: unknown;
  emotion?: unknown;
}

export interface AddResult {
  action: "ADDED" | "UPDATED" | "NOOP";
  episode: Episode; // as stored now
  replaced?: boolean; // an UPDATE replaced the content (tombstone `replaced`)
  patched?: boolean; // a core memory was contradicted and edited (tombstone `conflict_patch`)
  evicted: number[]; // ids moved to the trash to stay within the cap
}

export interface Hit {
  episode: Episode; // with its text; use count and last activity as updated
  similarity: number;
  age: string; // 今天, n天前, n个月前, n年前 (src/episode/age.ts), from created_at
}

export interface UpkeepReport {
  purged: number; // trash slots freed (purge_at passed)
  forgotten: number[]; // ids moved to the trash: strength below 0.2
  evicted: number[]; // ids moved to the trash: over the cap
  more: boolean; // work remains for another step
}

export interface Counts {
  active: number;
  core: number;
  trash: number;
  tombs: number;
  slots: number;
}

// CRC-32 of an episode's content and keywords (a tombstone's payload_hash).
export function payloadHash(content: string, keywords: readonly string[]): number {
  return crc32(encode(content + "\n" + keywords.join(",")));
}

export function chars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// `s` cut to at most `n` characters (code points).
export function cutChars(s: string, n: number): string {
  if (chars(s) <= n) return s;
  let out = "";
  let k = 0;
  for (const c of s) {
    if (k++ >= n) break;
    out += c;
  }
  return out;
}

// Keywords from "a,b" (also ，、; and spaces) or an array: trimmed, no repeats.
export function parseKeywords(v: unknown): string[] {
  if (v === undefined || v === null || v === "") return [];
  let list: unknown[];
  if (typeof v === "string") list = v.split(/[,，、;；\s]+/);
  else if (Array.isArray(v)) list = v;
  else throw new MemoryError("invalid", "keywords must be words separated by commas, e.g. '篮球,比赛'");
  const out: string[] = [];
  for (const k of list) {
    if (typeof k !== "string") throw new MemoryError("invalid", "keywords must be words separated by commas, e.g. '篮球,比赛'");
    const w = k.trim();
    if (!w || out.indexOf(w) >= 0) continue;
    checkText(w, "a keyword", KEYWORD_BYTES);
    out.push(w);
  }
  if (out.length > EPISODE_KEYWORDS) throw new MemoryError("invalid", `at most ${EPISODE_KEYWORDS} keywords (got ${out.length})`);
  if (byteLength(out.join(",")) > EPISODE_KEYWORDS_BYTES) throw new MemoryError("too_long", `keywords are too long together: at most ${EPISODE_KEYWORDS_BYTES} bytes joined by commas`);
  return out;
}

// Keywords of both, the first's first, as many as fit.
function union(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of a.concat(b)) {
    if (out.indexOf(w) >= 0 || out.length >= EPISODE_KEYWORDS) continue;
    if (byteLength(out.concat([w]).join(",")) > EPISODE_KEYWORDS_BYTES) continue;
    out.push(w);
  }
  return out;
}

// A score argument 0..1 → hundredths; absent → the default.
function score(v: unknown, what: string, dflt: number): number {
  if (v === undefined || v === null || v === "") return dflt;
  const h = hundredths(v);
  if (typeof h === "string") throw new MemoryError("invalid", `${what} ${h}`);
  return h;
}

// Content of at most 200 characters and 600 bytes.
export function checkContent(v: unknown): string {
  const s = checkText(v, "content", 4 * EPISODE_CONTENT_CHARS);
  const n = chars(s);
  if (n > EPISODE_CONTENT_CHARS) throw new MemoryError("too_long", `content is too long (${n} characters): an episode is at most ${EPISODE_CONTENT_CHARS} characters; summarise it`);
  const b = byteLength(s);
  if (b > EPISODE_CONTENT_BYTES) throw new MemoryError("too_long", `content is too long (${b} bytes): at most ${EPISODE_CONTENT_BYTES} bytes; summarise it`);
  return s;
}

// A core memory's content without its dated note: what it says now. (The
// pattern is made at each call: a module-level RegExp breaks when run from
// flash on the SDK's XS 17, test/manifest.test.ts.)
export function mainContent(content: string): string {
  return content.replace(/（\d{4}-\d{2}-\d{2}前：[^（）]*）$/, "");
}

// A core memory edited by a newer statement that contradicts it (seed 001 §7.2):
// the newest content, then the old one as a dated bracket note 「（YYYY-MM-DD前：…）」,
// all within 200 characters and 600 bytes (the old content is cut first, with
// "…"; a new content too long for any note keeps none).
export function patchContent(newer: string, older: string, date: string): string {
  const old = mainContent(older);
  const room = EPISODE_CONTENT_CHARS - chars(newer) - chars(`（${date}前：）`);
  if (room < 4) return newer;
  let note = chars(old) <= room ? old : cutChars(old, room - 1) + "…";
  let out = `${newer}（${date}前：${note}）`;
  while (byteLength(out) > EPISODE_CONTENT_BYTES && note.length > 1) {
    note = cutChars(note, chars(note) - 2) + "…";
    out = `${newer}（${date}前：${note}）`;
  }
  return byteLength(out) > EPISODE_CONTENT_BYTES ? newer : out;
}

function secs(ms: number): number {
  return Math.floor(ms / 1000);
}

function freeEpisode(slot: number): Episode {
  return { slot, id: 0, state: "free", content: "", keywords: [], emotion: "neutral", e: 0, i: 0, p: 0, j: 0, useCount: 0, createdAt: 0, lastActiveAt: 0, purgeAt: 0, source: "ai", sig: new Uint8Array(64) };
}

function rethrowCut(e: unknown): void {
  if (e instanceof Error && e.name === "PowerCut") throw e;
}

function why(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// The signatures in RAM (Episodes): the slot index's table (slot-index.ts),
// read from /ep.i when it is current, else built by a header scan.
interface Idx extends SlotTable {
  writes: number;
}

function newIdx(writes: number, n: number): Idx {
  return { writes, ...newTable(n) };
}

function idxPut(x: Idx, ep: Episode, len: number | undefined): void {
  if (ep.slot >= x.n) return;
  x.active[ep.slot] = ep.state === "active" ? 1 : ep.state === "trash" ? 2 : 0;
  x.created[ep.slot] = ep.createdAt;
  x.short[ep.slot] = oneLine(len) ? 1 : 0;
  foldSig(ep.sig, x.sig, ep.slot * IDX_SIG);
}

function inRanges(r: readonly number[], t: number): boolean {
  for (let i = 0; i < r.length; i += 2) if (t >= r[i] && t <= r[i + 1]) return true;
  return false;
}

// A header's signature at h[at..at+64) may hold `bits` (all zeros: anything).
function sigMay(h: Uint8Array, at: number, bits: readonly number[]): boolean {
  let any = 0;
  for (let i = 0; i < EPISODE_SIG_BYTES; i++) any |= h[at + i];
  return !any || hasBits(h, bits, at);
}

// The few lowest of a stream by a key, kept sorted (a small fixed list).
class Lowest {
  slots: number[] = [];
  keys: number[] = [];
  constructor(readonly max: number) {}
  offer(slot: number, key: number): void {
    if (this.slots.length >= this.max && key >= this.keys[this.keys.length - 1]) return;
    let at = this.keys.length;
    while (at > 0 && this.keys[at - 1] > key) at--;
    this.slots.splice(at, 0, slot);
    this.keys.splice(at, 0, key);
    if (this.slots.length > this.max) {
      this.slots.pop();
      this.keys.pop();
    }
  }
}

export class Episodes implements EpisodeReader {
  private fixedCap: number;
  private fixedRecall: number;
  private readonly limits: (() => { episodeCap: number; recall: number }) | undefined;
  private readonly clock: () => number;
  // forgetting and purging wait for a trusted clock (src/time/clock.ts); an injected clock is trusted
  private readonly trusted: () => boolean;
  readonly signer: Signer;
  private known: { active: number; core: number; trash: number } | undefined;
  private lateTombs: Tombstone[] = []; // tombstones a failed write left to write again
  private nextUpkeep = 0; // unix seconds of the next full look at forgetting
  private upkeepMore = false;

  constructor(readonly store: EpisodeStoreApi, opts: EpisodesOptions = {}) {
    this.fixedCap = opts.cap ?? DEFAULT_CAP;
    this.fixedRecall = opts.recall ?? DEFAULT_RECALL;
    this.limits = opts.limits;
    this.clock = opts.now ?? clockNow;
    this.trusted = opts.now ? () => true : isValid;
    this.signer = opts.signer ?? { signature: (t, k) => signature(t, k.slice()), similarity };
    if (!(this.fixedCap >= 1 && this.fixedCap <= EPISODE_SLOTS - BATCH)) throw new RangeError(`cap must be 1..${EPISODE_SLOTS - BATCH}`);
  }

  // Active episodes at most (the preset's, else the constructor's), 1..EPISODE_SLOTS−8.
  get cap(): number {
    const c = this.limits ? this.limits().episodeCap : this.fixedCap;
    return c >= 1 && c <= EPISODE_SLOTS - BATCH ? c : this.fixedCap;
  }
  set cap(n: number) {
    if (!(n >= 1 && n <= EPISODE_SLOTS - BATCH)) throw new RangeError(`cap must be 1..${EPISODE_SLOTS - BATCH}`);
    this.fixedCap = n;
  }

  // Hits a recall gives by default (the preset's, else the constructor's).
  get recallSize(): number {
    const r = this.limits ? this.limits().recall : this.fixedRecall;
    return r >= 1 && r <= BATCH ? r : this.fixedRecall;
  }

  private nowS(): number {
    return secs(this.clock());
  }

  // ---- adding: AUDN --------------------------------------------------------------

  // Adds an episode (the AI's write, the listener's summary): checked first,
  // nothing changes on a bad input or a store that fails.
  // `opts.createdAt`: the time it happened when another device recorded it
  // (a sync); `opts.mergeable`: which kept episodes it may update or patch
  // (a sync lets an episode from the server merge only into this device's own,
  // never into another one from the server, which its device kept apart).
  add(input: EpisodeInput, source: EpisodeSource = "ai", opts: { createdAt?: number; mergeable?: (ep: Episode) => boolean } = {}): AddResult {
    const content = checkContent(input.content);
    const keywords = parseKeywords(input.keywords);
    const emotion: Emotion = input.emotion === undefined || input.emotion === null || input.emotion === "" ? "neutral" : (EMOTIONS as readonly string[]).indexOf(input.emotion as string) >= 0 ? (input.emotion as Emotion) : bad(`emotion must be one of ${EMOTIONS.join(", ")}`);
    const e = score(input.e, "e", 30), i = score(input.i, "i", 50), p = score(input.p, "p", 30), j = score(input.j, "j", 50);
    this.store.open();
    const t = this.nowS();
    const sig = this.signer.signature(content, keywords);
    // one header scan: the most alike, core ones to check for a contradiction,
    // the counts, the least important non-core (the cap) and the oldest trash (room)
    let active = 0, core = 0, trash = 0;
    const alike = new Lowest(3); // key: −similarity, those at UPDATE_SIMILARITY or more
    const cores = new Lowest(3); // key: −similarity
    const low = new Lowest(BATCH - 1); // key: importance
    const oldTrash = new Lowest(1); // key: purge_at
    this.store.scan((ep) => {
      if (ep.state === "trash") {
        trash++;
        oldTrash.offer(ep.slot, ep.purgeAt);
        return;
      }
      if (ep.state !== "active") return;
      active++;
      const s = this.signer.similarity(sig, ep.sig);
      const may = !opts.mergeable || opts.mergeable(ep);
      if (s >= UPDATE_SIMILARITY && may) alike.offer(ep.slot, -s);
      if (isCore(ep.p)) {
        core++;
        if (s >= CONFLICT_SHORTLIST && may) cores.offer(ep.slot, -s);
      } else low.offer(ep.slot, importance(ep, t));
    });
    this.known = { active, core, trash };
    // a contradicted core memory: the newest wins, the old kept as a dated note
    const pol = polarity(content);
    if (pol !== 0)
      for (const slot of cores.slots) {
        const old = this.store.read(slot);
        if (!old || old.state !== "active") continue;
        const said = mainContent(old.content);
        if (polarity(said) * pol >= 0 || topicOverlap(said, content) < TOPIC_OVERLAP) continue;
        const patched = patchContent(content, old.content, formatDate(t * 1000));
        const ep = this.merged(old, { content: patched, keywords, emotion, e, i, p: old.p, j }, t);
        this.commit([ep], [this.tomb(old, "conflict_patch", "none", t)]);
        trace(`episode: ${old.id} conflict_patch: core memory edited by a newer statement\n`);
        return { action: "UPDATED", episode: ep, patched: true, evicted: [] };
      }
    // the same episode again: signatures alike, and the same thing said
    // (words.ts sameThing: not two events told in the same words)
    for (const slot of alike.slots) {
      const old = this.store.read(slot);
      if (old && old.state === "active" && sameThing(mainContent(old.content), content)) {
        const ep = this.merged(old, { content, keywords, emotion, e, i, p, j }, t);
        const replaced = old.content !== content;
        if (!replaced && ep.e === old.e && ep.i === old.i && ep.p === old.p && ep.j === old.j && ep.emotion === old.emotion && ep.keywords.join(",") === old.keywords.join(","))
          return { action: "NOOP", episode: old, evicted: [] };
        this.commit([ep], replaced ? [this.tomb(old, "replaced", "none", t)] : []);
        if (isCore(ep.p) && !isCore(old.p)) this.known.core++;
        trace(`episode: ${old.id} updated${replaced ? " (content replaced)" : ""}\n`);
        return { action: "UPDATED", episode: ep, replaced: replaced || undefined, evicted: [] };
      }
    }
    // a new one: room within the cap (the least important non-core ones go to
    // the trash; at most a batch's worth: a cap lowered by a preset is reached
    // by the upkeep steps, not by one add)
    const cap = this.cap;
    const over = active + 1 - cap;
    if (over > 0 && !low.slots.length)
      throw new MemoryError("full", `episodes are full: all ${active} kept are core memories (p=1), which never leave by themselves; delete one with action=delete type=episode to make room`);
    const batch: Episode[] = [];
    const tombs: Tombstone[] = [];
    const evicted: number[] = [];
    for (let k = 0; k < over && k < low.slots.length; k++) {
      const old = this.store.read(low.slots[k]);
      if (!old) continue;
      const gone = { ...old, state: "trash" as const, purgeAt: t + TRASH_DAYS * DAY };
      batch.push(gone);
      tombs.push(this.tomb(old, "evicted", "cap", t, Math.round(low.keys[k] * 100)));
      evicted.push(old.id);
    }
    let slot = this.store.freeSlot();
    if (slot >= EPISODE_SLOTS) {
      // the files are at their largest: the oldest trash is purged early
      if (!oldTrash.slots.length) throw new MemoryError("full", "episode slots are full");
      slot = oldTrash.slots[0];
      trace(`episode: trash slot ${slot} purged early to make room\n`);
    }
    const born = opts.createdAt !== undefined && Number.isInteger(opts.createdAt) && opts.createdAt > 0 && opts.createdAt <= t ? opts.createdAt : t;
    const ep: Episode = { slot, id: this.store.nextId(), state: "active", content, keywords, emotion, e, i, p, j, useCount: 0, createdAt: born, lastActiveAt: t, purgeAt: 0, source, sig };
    batch.unshift(ep);
    this.commit(batch, tombs);
    this.known = { active: active + 1 - evicted.length, core: core + (isCore(p) ? 1 : 0), trash: trash + evicted.length - (slot === oldTrash.slots[0] ? 1 : 0) };
    for (let k = 0; k < evicted.length; k++) trace(`episode: ${evicted[k]} evicted to the trash (over the cap of ${cap}; importance ${low.keys[k].toFixed(2)})\n`);
    return { action: "ADDED", episode: ep, evicted };
  }

  // An active episode with a newer statement of it: scores by max, keywords
  // together, used once more, active now, the newer content and emotion.
  private merged(old: Episode, n: { content: string; keywords: string[]; emotion: Emotion; e: number; i: number; p: number; j: number }, t: number): Episode {
    const keywords = union(n.keywords, old.keywords);
    return {
      ...old,
      content: n.content,
      keywords,
      emotion: n.emotion !== "neutral" ? n.emotion : old.emotion,
      e: Math.max(old.e, n.e),
      i: Math.max(old.i, n.i),
      p: Math.max(old.p, n.p),
      j: Math.max(old.j, n.j),
      useCount: Math.min(0xffff, old.useCount + 1),
      lastActiveAt: t,
      sig: n.content === old.content && keywords.join(",") === old.keywords.join(",") ? old.sig : this.signer.signature(n.content, keywords),
    };
  }

  private tomb(ep: Episode, reason: TombReason, cause: EvictCause, t: number, strengthH?: number): Tombstone {
    return { id: ep.id, reason, cause, at: t, payloadHash: payloadHash(ep.content, ep.keywords), strength: strengthH ?? Math.round(importance(ep, t) * 100) };
  }

  // The batch, then its tombstones. A batch that throws changed nothing; its
  // tombstones then are not written either. Tombstones that fail after their
  // batch is written are kept in RAM and written by the next step.
  private commit(batch: Episode[], tombs: Tombstone[]): void {
    try {
      this.put(batch);
    } catch (e) {
      this.known = undefined;
      throw e;
    }
    if (tombs.length) this.writeTombs(tombs);
  }

  private writeTombs(tombs: Tombstone[]): void {
    const all = this.lateTombs.concat(tombs);
    try {
      this.store.addTombs(all);
      this.lateTombs = [];
    } catch (e) {
      rethrowCut(e);
      this.lateTombs = all;
      trace(`episode: ${all.length} tombstones not written yet (${why(e)}); the next step tries again\n`);
    }
  }

  // ---- removing -----------------------------------------------------------------------------

  // The owner's delete (tombstone user_delete): the episode of this id, or of
  // this content (exactly, else the one active episode containing it), goes to
  // the trash. Undefined if none; an ambiguous content changes nothing.
  remove(q: { id?: unknown; content?: unknown }): Episode | undefined {
    this.store.open();
    let slot = -1;
    if (q.id !== undefined && q.id !== null && q.id !== "") {
      const id = typeof q.id === "string" && /^\d{1,10}$/.test(q.id.trim()) ? Number(q.id) : q.id;
      if (typeof id !== "number" || !Number.isInteger(id) || id < 1) throw new MemoryError("invalid", "id must be an episode's id (a positive integer, as recall or read shows it)");
      this.store.scan((ep) => {
        if (ep.state === "active" && ep.id === id) {
          slot = ep.slot;
          return true;
        }
      });
    } else {
      const c = checkText(q.content, "content or id", 4 * EPISODE_CONTENT_CHARS);
      const parts: { slot: number; content: string }[] = [];
      const sig = this.signer.signature(c, []);
      let like = -1, likeSim = 0, likeSame = false;
      this.store.scan((ep) => {
        if (ep.state !== "active") return;
        if (ep.content === c) {
          slot = ep.slot;
          return true;
        }
        if (ep.content.indexOf(c) >= 0 && parts.length < 5) parts.push({ slot: ep.slot, content: ep.content });
        const sim = this.signer.similarity(sig, ep.sig);
        if (sim > likeSim) (like = ep.slot), (likeSim = sim), (likeSame = sameThing(mainContent(ep.content), c));
      }, true);
      if (slot < 0 && parts.length > 1) throw new MemoryError("ambiguous", `'${cutChars(c, 40)}' is in ${parts.length} episodes: ${parts.map((x) => `'${cutChars(x.content, 30)}'`).join(", ")}. Say which one (its content, or id)`);
      if (slot < 0 && parts.length === 1) slot = parts[0].slot;
      // the same thing in other words (as an add would take it for the same episode)
      if (slot < 0 && likeSim >= UPDATE_SIMILARITY && likeSame) slot = like;
    }
    if (slot < 0) return undefined;
    const old = this.store.read(slot);
    if (!old || old.state !== "active") return undefined;
    const t = this.nowS();
    // wipe: once purged, its text's segment is collected (seed 001: physically deleted)
    const gone: Episode = { ...old, state: "trash", purgeAt: t + TRASH_DAYS * DAY, wipe: true };
    this.commit([gone], [this.tomb(old, "user_delete", "none", t)]);
    if (this.known) {
      this.known.active--;
      this.known.trash++;
      if (isCore(old.p)) this.known.core--;
    }
    trace(`episode: ${old.id} deleted by the owner (trash until purge)\n`);
    return gone;
  }

  // ---- recall -------------------------------------------------------------------------------

  // The `k` active episodes most like `message` among the CANDIDATES most
  // important (core first), above RECALL_FLOOR, most alike first. One header
  // scan ranks them; only the hits' texts are read; their use count and last
  // activity are written back in one batch (a failure there is traced, not
  // thrown: the answer stands).
  recall(message: string, k = this.recallSize): Hit[] {
    const q = checkText(message, "message or keyword", 4000, false, true);
    this.store.open();
    const t = this.nowS();
    const sig = this.signer.signature(q, []);
    const n = this.store.slots;
    const slots = new Uint16Array(n);
    const rank = new Float32Array(n); // core first, then importance
    const sims = new Float32Array(n);
    let m = 0, core = 0, trash = 0;
    this.store.scan((ep) => {
      if (ep.state === "trash") trash++;
      if (ep.state !== "active") return;
      slots[m] = ep.slot;
      rank[m] = (isCore(ep.p) ? (core++, 2) : 0) + importance(ep, t);
      sims[m] = this.signer.similarity(sig, ep.sig);
      m++;
    });
    this.known = { active: m, core, trash };
    // the candidates: the CANDIDATES best ranked (ties by slot order)
    let floorRank = -1;
    if (m > CANDIDATES) {
      const sorted = rank.slice(0, m).sort();
      floorRank = sorted[m - CANDIDATES];
    }
    let above = 0;
    for (let x = 0; x < m; x++) if (rank[x] > floorRank) above++;
    let roomAtFloor = CANDIDATES - above; // candidates equal to the floor still admitted
    const pick: number[] = [];
    for (let x = 0; x < m; x++) {
      if (rank[x] < floorRank || (floorRank >= 0 && rank[x] === floorRank && roomAtFloor-- <= 0)) sims[x] = -1;
    }
    const want = Math.max(1, Math.min(k, BATCH));
    for (let r = 0; r < want; r++) {
      let bestX = -1;
      for (let x = 0; x < m; x++) {
        if (sims[x] < RECALL_FLOOR || pick.indexOf(x) >= 0) continue;
        if (bestX < 0 || sims[x] > sims[bestX] || (sims[x] === sims[bestX] && rank[x] > rank[bestX])) bestX = x;
      }
      if (bestX < 0) break;
      pick.push(bestX);
    }
    const hits: Hit[] = [];
    const batch: Episode[] = [];
    for (const x of pick) {
      const ep = this.store.read(slots[x]);
      if (!ep || ep.state !== "active") continue;
      const used: Episode = { ...ep, useCount: Math.min(0xffff, ep.useCount + 1), lastActiveAt: t };
      batch.push(used);
      hits.push({ episode: used, similarity: Math.round(sims[x] * 100) / 100, age: agePhrase(ep.createdAt * 1000, t * 1000) });
    }
    if (batch.length)
      try {
        this.put(batch);
      } catch (e) {
        rethrowCut(e);
        trace(`episode: use counts of ${batch.length} recalled episodes not written (${why(e)})\n`);
      }
    return hits;
  }

  // The retrieval's look into the episodes (src/recall): each active
  // episode is scored by `probe` on its folded signature (IDX_SIG bytes at
  // `off` of `sig`: the 512 bits OR-ed down to 128, bit b at b mod 128) and
  // its time; the `k` best (ties: the newer) are read with their text. The
  // folded signatures live in RAM (built by one header scan, then kept in
  // step by this class's own writes; a write by anyone else, seen in the
  // store's write count, has them built again), so a retrieval reads only the
  // texts of its candidates. Use counts are not touched here: `used` counts
  // the ones shown.
  lookup(probe: (sig: Uint8Array, off: number, createdAt: number) => number, k: number): Episode[] {
    this.store.open();
    const x = this.index();
    const best = new Lowest(Math.max(1, Math.min(k, 32))); // key: −(score + recency)
    const t = this.nowS();
    for (let slot = 0; slot < x.n; slot++) {
      if (x.active[slot] !== 1) continue;
      const s = probe(x.sig, slot * IDX_SIG, x.created[slot]);
      if (s > 0) best.offer(slot, -(s + 0.001 / (1 + Math.max(0, t - x.created[slot]) / DAY)));
    }
    const out: Episode[] = [];
    for (const slot of best.slots) {
      const ep = this.store.read(slot);
      if (ep && ep.state === "active") out.push(ep);
    }
    return out;
  }

  // set at boot when the archive is there (src/app/boot.ts)
  fold: Fold | undefined;

  // active[slot]: 1 active, 2 in the trash, 0 free
  // short[slot]: 1 when its text is known to be one passage line (MAX_LINE bytes or fewer)
  private idx: Idx | undefined;

  // The folded signatures in RAM when they are there and current, else undefined.
  private warmIndex(): Idx | undefined {
    const x = this.idx;
    return x && x.writes === this.store.stats.writes && x.n >= this.store.slots ? x : undefined;
  }

  // The signatures from the slot index on flash when it is current (a fifth
  // of a header scan's bytes), kept in RAM as a scan's are.
  private flashIndex(): Idx | undefined {
    const t = this.store.slotTable ? this.store.slotTable() : undefined;
    if (!t || t.n < this.store.slots) return undefined;
    const x: Idx = { writes: this.store.stats.writes, ...t };
    this.idx = x;
    return x;
  }

  // The folded signatures of every slot, built by a header scan when missing or stale.
  private index(): Idx {
    const writes = this.store.stats.writes;
    if (this.idx && this.idx.writes === writes && this.idx.n >= this.store.slots) return this.idx;
    const f = this.flashIndex();
    if (f) return f;
    const x = newIdx(writes, this.store.slots + 16); // room for a few new slots before the next build
    this.store.scan((ep, _w, len) => idxPut(x, ep, len));
    this.idx = x;
    return x;
  }

  // The store's write of this class's own batch, the folded signatures kept in step.
  private put(batch: Episode[]): void {
    const before = this.store.stats.writes;
    try {
      this.store.write(batch);
    } catch (e) {
      this.idx = undefined;
      throw e;
    }
    const x = this.idx;
    if (!x) return;
    if (x.writes !== before) {
      this.idx = undefined;
      return;
    }
    for (const ep of batch) {
      if (ep.slot >= x.n) {
        this.idx = undefined;
        return;
      }
      idxPut(x, ep, -1); // (its text's length not known here: taken as long)
    }
    x.writes = this.store.stats.writes;
  }

  // Counts a use of the episodes a retrieval showed (one batch; a failure is traced).
  used(shown: readonly Episode[]): void {
    if (!shown.length) return;
    const t = this.nowS();
    const batch = shown.slice(0, BATCH).map((ep) => ({ ...ep, useCount: Math.min(0xffff, ep.useCount + 1), lastActiveAt: t }));
    try {
      this.put(batch);
    } catch (e) {
      rethrowCut(e);
      trace(`episode: use counts of ${batch.length} recalled episodes not written (${why(e)})\n`);
    }
  }

  // Active episodes, most important first (core first), with their text: at
  // most `limit`, read one by one after a header scan.
  list(limit: number): { episodes: Episode[]; total: number } {
    this.store.open();
    const t = this.nowS();
    const n = this.store.slots;
    const slots = new Uint16Array(n);
    const rank = new Float32Array(n);
    let m = 0;
    this.store.scan((ep) => {
      if (ep.state !== "active") return;
      slots[m] = ep.slot;
      rank[m] = (isCore(ep.p) ? 2 : 0) + importance(ep, t);
      m++;
    });
    const order = new Uint16Array(m);
    for (let x = 0; x < m; x++) order[x] = x;
    order.sort((a, b) => rank[b] - rank[a] || slots[a] - slots[b]);
    const episodes: Episode[] = [];
    for (let x = 0; x < order.length && episodes.length < limit; x++) {
      const ep = this.store.read(slots[order[x]]);
      if (ep && ep.state === "active") episodes.push(ep);
    }
    return { episodes, total: m };
  }

  // ---- upkeep -------------------------------------------------------------------------------

  // One bounded piece of upkeep at `nowMs`: trash whose purge_at has passed is
  // freed, active non-core episodes whose strength fell below 0.2 (and not
  // told or recalled within a day) go to the trash (tombstone evicted, cause
  // decay, strength recorded), and episodes over the cap (a smaller preset)
  // go the same way (cause cap). At most UPKEEP_WRITES slots per call.
  maintain(nowMs = this.clock()): UpkeepReport {
    this.store.open();
    const t = secs(nowMs);
    // an unset clock purges and forgets nothing; nor does one whose redate
    // failed (their estimate dates would read as years old)
    const timed = this.trusted() && !this.redateLater;
    const purge = new Lowest(UPKEEP_WRITES); // key: purge_at
    const weak = new Lowest(UPKEEP_WRITES); // key: strength
    const low = new Lowest(UPKEEP_WRITES); // key: importance
    let active = 0, core = 0, trash = 0, due = 0, weakN = 0;
    this.store.scan((ep) => {
      if (ep.state === "trash") {
        trash++;
        if (timed && ep.purgeAt <= t) {
          due++;
          purge.offer(ep.slot, ep.purgeAt);
        }
        return;
      }
      if (ep.state !== "active") return;
      active++;
      if (isCore(ep.p)) {
        core++;
        return;
      }
      low.offer(ep.slot, importance(ep, t));
      if (timed && t - ep.lastActiveAt >= FORGET_GRACE_S) {
        const s = strength(ep, t);
        if (s < FORGET_BELOW) {
          weakN++;
          weak.offer(ep.slot, s);
        }
      }
    });
    const report: UpkeepReport = { purged: 0, forgotten: [], evicted: [], more: false };
    const batch: Episode[] = [];
    const tombs: Tombstone[] = [];
    const notes: string[] = [];
    const moved: number[] = []; // slots
    for (const slot of purge.slots) {
      if (batch.length >= UPKEEP_WRITES) break;
      batch.push(freeEpisode(slot));
      report.purged++;
    }
    for (let k = 0; k < weak.slots.length && batch.length < UPKEEP_WRITES; k++) {
      const old = this.store.read(weak.slots[k]);
      if (!old || old.state !== "active") continue;
      const s = Math.round(weak.keys[k] * 100);
      batch.push({ ...old, state: "trash", purgeAt: t + TRASH_DAYS * DAY });
      tombs.push(this.tomb(old, "evicted", "decay", t, s));
      report.forgotten.push(old.id);
      moved.push(old.slot);
      notes.push(`episode: ${old.id} forgotten (strength ${(s / 100).toFixed(2)} < ${FORGET_BELOW}; ${Math.floor((t - old.lastActiveAt) / DAY)} days since last active, used ${old.useCount} times)\n`);
    }
    const cap = this.cap;
    let over = active - report.forgotten.length - cap;
    for (let k = 0; k < low.slots.length && over > 0 && batch.length < UPKEEP_WRITES; k++) {
      if (moved.indexOf(low.slots[k]) >= 0) continue;
      const old = this.store.read(low.slots[k]);
      if (!old || old.state !== "active") continue;
      batch.push({ ...old, state: "trash", purgeAt: t + TRASH_DAYS * DAY });
      tombs.push(this.tomb(old, "evicted", "cap", t, Math.round(low.keys[k] * 100)));
      report.evicted.push(old.id);
      notes.push(`episode: ${old.id} evicted to the trash (over the cap of ${cap}; importance ${low.keys[k].toFixed(2)})\n`);
      over--;
    }
    // what leaves by the forgetting formula (or the cap) is folded into its
    // month's digest first; a fold that fails is traced and forgetting goes on
    const leaving = batch.filter((ep) => ep.state === "trash" && (report.forgotten.indexOf(ep.id) >= 0 || report.evicted.indexOf(ep.id) >= 0));
    if (leaving.length && this.fold)
      try {
        this.fold(leaving);
      } catch (e) {
        rethrowCut(e);
        trace(`episode: ${leaving.length} forgotten episodes not folded into digests (${why(e)})\n`);
      }
    if (batch.length) this.commit(batch, tombs);
    for (const s of notes) trace(s);
    if (report.purged) trace(`episode: ${report.purged} trash slots purged\n`);
    const gone = report.forgotten.length + report.evicted.length;
    this.known = { active: active - gone, core, trash: trash - report.purged + gone };
    report.more = due > report.purged || weakN > report.forgotten.length || over > 0;
    return report;
  }

  // The clock became trusted (src/app/service.ts): episodes this boot dated
  // by the estimate (a time in [from, to], unix s) move by `shift` seconds to
  // their true time, UPKEEP_WRITES slots a batch. Returns how many moved.
  redate(from: number, to: number, shift: number): number {
    try {
      const n = this.redateNow(from, to, shift);
      this.redateLater = undefined;
      return n;
    } catch (e) {
      // (a full partition mid-migration): steps try again; moved ones are out of range
      this.redateLater = [from, to, shift];
      throw e;
    }
  }

  private redateLater: [number, number, number] | undefined;

  private redateNow(from: number, to: number, shift: number): number {
    this.store.open();
    const inRange = (v: number) => v >= from && v <= to;
    const slots: number[] = [];
    this.store.scan((ep) => {
      if (ep.state === "free") return;
      if (inRange(ep.createdAt) || inRange(ep.lastActiveAt) || (ep.purgeAt && inRange(ep.purgeAt - TRASH_DAYS * DAY))) slots.push(ep.slot);
    });
    for (let k = 0; k < slots.length; k += UPKEEP_WRITES) {
      const batch: Episode[] = [];
      for (const slot of slots.slice(k, k + UPKEEP_WRITES)) {
        const ep = this.store.read(slot);
        if (!ep) continue;
        const mv = (v: number) => (inRange(v) ? v + shift : v);
        batch.push({ ...ep, createdAt: mv(ep.createdAt), lastActiveAt: mv(ep.lastActiveAt), purgeAt: ep.purgeAt && inRange(ep.purgeAt - TRASH_DAYS * DAY) ? ep.purgeAt + shift : ep.purgeAt });
      }
      if (batch.length) this.commit(batch, []);
    }
    return slots.length;
  }

  // The maintenance timer's step (src/archive/maintenance.ts, never during a
  // conversation): tombstones left to write, the store's own upkeep, and an
  // upkeep pass at most once an hour unless work remains. True while work remains.
  step(nowMs = this.clock()): boolean {
    if (this.lateTombs.length) this.writeTombs([]);
    if (this.redateLater) {
      const [from, to, shift] = this.redateLater;
      try {
        this.redate(from, to, shift);
      } catch (e) {
        rethrowCut(e);
        trace(`episode: redate failed again (${why(e)})\n`);
      }
    }
    let more = false;
    try {
      more = this.store.step(nowMs);
    } catch (e) {
      rethrowCut(e);
      trace(`episode: store step failed (${why(e)})\n`);
    }
    const t = secs(nowMs);
    // at once (not at the next hourly pass) when a lowered cap left too many
    if (this.upkeepMore || t >= this.nextUpkeep || (this.known !== undefined && this.known.active > this.cap)) {
      const r = this.maintain(nowMs);
      this.upkeepMore = r.more;
      if (!r.more) this.nextUpkeep = t + UPKEEP_EVERY_S;
    }
    return more || this.upkeepMore || this.lateTombs.length > 0;
  }

  // Frees trash slots whose episodes a sync uploaded (seed 001 §9: the local
  // trash is cleared once it is in the cloud; the tombstones stay). Only slots
  // still in the trash are freed, 8 per batch. Returns how many.
  clearTrash(slots: readonly number[]): number {
    this.store.open();
    let n = 0;
    for (let k = 0; k < slots.length; k += 8) {
      const batch: Episode[] = [];
      for (const slot of slots.slice(k, k + 8)) {
        const ep = this.store.read(slot);
        if (ep && ep.state === "trash") batch.push(freeEpisode(slot));
      }
      if (!batch.length) continue;
      this.commit(batch, []);
      n += batch.length;
      if (this.known) this.known.trash -= batch.length;
    }
    return n;
  }

  // ---- reading --------------------------------------------------------------------------------

  counts(): Counts {
    this.store.open();
    if (!this.known) {
      let active = 0, core = 0, trash = 0;
      this.store.scan((ep) => {
        if (ep.state === "trash") trash++;
        else if (ep.state === "active") {
          active++;
          if (isCore(ep.p)) core++;
        }
      });
      this.known = { active, core, trash };
    }
    return { ...this.known, tombs: this.store.tombCount(), slots: this.store.slots };
  }

  forEach(fn: (ep: Episode) => boolean | void, opts: { trash?: boolean; text?: boolean; words?: readonly Uint8Array[]; pre?: (ep: Episode) => boolean } = {}): void {
    this.store.open();
    const pre = opts.text === true ? opts.pre : undefined;
    if (opts.text === true && opts.words && opts.words.length) {
      const bits: number[] = [];
      for (const w of opts.words) for (const b of wordBits(w)) if (bits.indexOf(b) < 0) bits.push(b);
      // the passages' block signatures (a lean store): which texts may hold the words
      const tm = this.store.textFilter ? this.store.textFilter(opts.words) : undefined;
      if (bits.length || tm) return this.forEachMaybe(fn, opts.trash === true, bits, tm, pre);
    }
    // no word to rule texts out by (none, or none with an element): every
    // text is read, but for headers that fail `pre`
    const wanted = (st: number) => st === 1 || (opts.trash === true && st === 2);
    this.store.scan(
      (ep, withText) => {
        if (opts.text === true && withText === false) return; // its header fails `pre`
        if (ep.state === "active" || (opts.trash && ep.state === "trash")) return fn(ep);
      },
      opts.text === true,
      pre ? (h, at) => wanted(headerState(h, at)) && pre(decodeHeader(h, at, 0)) : undefined,
    );
  }

  // forEach with text over the episodes that may hold the words: by the
  // header's signature (`bits`; in RAM folded to 128 bits per slot, then the
  // header's whole 512) and by the passages' block signatures (`tm`, asked
  // with the header's pointer before its text is read). What neither rules
  // out is read; slot order, as the store's scan (docs/design/episode-queries.md).
  // - signatures in RAM and at most 3/4 of the slots candidates: each
  //   candidate's header (128 bytes), then its text only if `tm` allows;
  // - else (more candidates, or no signatures in RAM yet: a "cold" index) one
  //   header scan (4 KB reads) that reads only the texts both allow, and
  //   builds the signatures in RAM on the way when it goes to the end.
  private forEachMaybe(fn: (ep: Episode) => boolean | void, trash: boolean, bits: readonly number[], tm?: TextFilterApi, pre?: (ep: Episode) => boolean): void {
    const wanted = (st: number) => st === 1 || (trash && st === 2);
    const may = (h: Uint8Array, at: number) => wanted(headerState(h, at)) && (!bits.length || sigMay(h, at + H_SIG, bits)) && (!pre || pre(decodeHeader(h, at, 0))) && (!tm || tm.may(h, at));
    const warm = this.warmIndex() ?? this.flashIndex();
    if (warm) {
      const x = warm;
      const cand = new Uint8Array(x.n);
      let cands = 0;
      for (let slot = 0; slot < x.n; slot++) {
        if (!wanted(x.active[slot])) continue;
        const off = slot * IDX_SIG;
        let any = 0;
        for (let i = 0; i < IDX_SIG; i++) any |= x.sig[off + i];
        if (bits.length && any && !hasFoldedBits(x.sig, off, bits)) continue;
        cand[slot] = 1;
        cands++;
      }
      // when the signatures in RAM leave more than 3/4 of the slots (every
      // header would be read), the passages' sidecars, read once, rule out a
      // one-line text whose time no line that may hold the words has (which
      // texts are one line is known from the headers the signatures in RAM
      // were built from)
      const times = tm && cands * 4 > this.store.slots * 3 && cands * 128 > tm.cost() ? tm.times() : undefined;
      if (times)
        for (let slot = 0; slot < x.n; slot++)
          if (cand[slot] && x.short[slot] && !inRanges(times, x.created[slot])) {
            cand[slot] = 0;
            cands--;
          }
      if (cands * 4 <= this.store.slots * 3) {
        for (let slot = 0; slot < x.n; slot++) {
          if (!cand[slot]) continue;
          // the header's whole signature and its text's pointer next (a version-1 header: its signature alone)
          const ep = this.store.readIf ? this.store.readIf(slot, (h, at) => may(h, at - H_SIG)) : this.store.read(slot);
          if (!ep || !(ep.state === "active" || (trash && ep.state === "trash"))) continue;
          if (fn(ep) === true) return;
        }
        return;
      }
    }
    // one header scan; the signatures in RAM built along when they are missing
    const x = warm ? undefined : newIdx(this.store.stats.writes, this.store.slots + 16);
    // headers that rule nothing out: every text is a candidate, its sidecar
    // pays; so once more than 3/4 of the first 32 or more headers passed
    // their signatures
    if (tm && !bits.length) tm.eager();
    let seen = 0, passed = 0;
    const mayCount = (h: Uint8Array, at: number): boolean => {
      if (tm && bits.length && seen < 32 && wanted(headerState(h, at))) {
        seen++;
        if (sigMay(h, at + H_SIG, bits)) passed++;
        if (seen === 32 && passed * 4 > seen * 3) tm.eager();
      }
      return may(h, at);
    };
    let stopped = false;
    this.store.scan(
      (ep, withText, len) => {
        if (x) idxPut(x, ep, len);
        if (withText === false || !(ep.state === "active" || (trash && ep.state === "trash"))) return;
        if (fn(ep) === true) return (stopped = true);
      },
      true,
      mayCount,
    );
    if (x && !stopped && x.writes === this.store.stats.writes) this.idx = x;
  }
}

function bad(msg: string): never {
  throw new MemoryError("invalid", msg);
}

// Shown to the AI: scores back in 0..1, times as local dates.
export function episodeView(ep: Episode, nowMs: number): Record<string, unknown> {
  const t = secs(nowMs);
  const v: Record<string, unknown> = {
    id: ep.id,
    content: ep.content,
    age: agePhrase(ep.createdAt * 1000, nowMs),
    keywords: ep.keywords,
    emotion: ep.emotion,
    e: ep.e / 100,
    i: ep.i / 100,
    p: ep.p / 100,
    j: ep.j / 100,
    importance: Math.round(importance(ep, t) * 100) / 100,
    use_count: ep.useCount,
    created: formatDate(ep.createdAt * 1000),
  };
  if (isCore(ep.p)) v.core = true;
  if (ep.source !== "ai") v.source = ep.source;
  return v;
}


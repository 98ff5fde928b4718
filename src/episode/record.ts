// The binary records of one episode slot (docs/FORMAT.md §4): a 128-byte
// header and a 672-byte text record, little-endian, every byte fixed, each
// sealed by a CRC-32 (src/nvs/crc32.ts) in its last 4 bytes. The header
// commits its text record through `textCrc`: a header whose text does not
// match is not served. Also the checks of what a caller asks the store to
// write (EpisodeError "bad", short lowercase messages naming the field).

import { crc32 } from "../nvs/crc32";
import { encode, decode, isWellFormed } from "../text/utf8";
import { EMOTIONS } from "../memory/types";
import {
  EPISODE_CONTENT_BYTES,
  EPISODE_CONTENT_CHARS,
  EPISODE_KEYWORDS,
  EPISODE_KEYWORDS_BYTES,
  EPISODE_SIG_BYTES,
  EPISODE_SLOTS,
  EPISODE_STATES,
  EPISODE_SOURCES,
  type Episode,
} from "./types";

export const HEADER_BYTES = 128;
export const TEXT_BYTES = 672;
export const MAGIC = 0xe5;
export const VERSION = 1; // a header whose text is the slot's text record (§4.3)
export const VERSION2 = 2; // a header whose text is a passage it points to (§4.2)
export const KEYWORD_BYTES = 16; // each keyword, UTF-8
export const USE_MAX = 65535;

// header offsets
const H_STATE = 2, H_SOURCE = 3, H_ID = 4, H_SEQ = 8, H_CREATED = 12, H_ACTIVE = 16, H_PURGE = 20;
const H_USE = 24, H_E = 26, H_I = 27, H_P = 28, H_J = 29, H_EMOTION = 30;
// bit 0: the owner deleted this episode; a free header with it keeps the
// pointer of the text that steps must collect from flash (FORMAT.md §4.2)
export const H_WIPE = 31;
export const H_TEXTCRC = 32;
export const H_SIG = 36;
export const H_TEXTSEQ = 100; // version 2: the passage's segment
export const H_TEXTAT = 104; // version 2: offset of its lines
export const H_TEXTLEN = 108; // version 2: their bytes (u16)
const H_CRC = 124;
// text offsets
const T_ID = 0, T_SEQ = 4, T_CLEN = 8, T_KLEN = 10, T_CONTENT = 12, T_KEYWORDS = 612, T_CRC = 668;

export class EpisodeError extends Error {
  constructor(readonly code: "full" | "io" | "bad", message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "EpisodeError", configurable: true, writable: true });
  }
}

export function u32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}

export function put32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
}

function u16(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8);
}

function put16(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
}

// ---- checks of what comes in ---------------------------------------------------------

function bad(message: string): EpisodeError {
  return new EpisodeError("bad", message);
}

function isU32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

function score(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 100) throw bad(`${name} must be an integer 0..100 (hundredths)`);
  return v;
}

// Code points of UTF-8 bytes: the bytes that do not continue a sequence.
function codePoints(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < b.length; i++) if ((b[i] & 0xc0) !== 0x80) n++;
  return n;
}

// What write() stores of one episode, checked: its text's bytes. A free
// episode's other fields are not looked at (it is stored blank).
export interface Checked {
  content: Uint8Array;
  keywords: Uint8Array; // joined by ","
}

const NONE = new Uint8Array(0);

export function checkEpisode(ep: Episode): Checked {
  if (!ep || typeof ep !== "object") throw bad("episode must be an object");
  const slot = ep.slot;
  if (typeof slot !== "number" || !Number.isInteger(slot) || slot < 0 || slot >= EPISODE_SLOTS) throw bad(`slot must be an integer 0..${EPISODE_SLOTS - 1}`);
  if (EPISODE_STATES.indexOf(ep.state) < 0) throw bad("state must be free, active or trash");
  if (ep.state === "free") return { content: NONE, keywords: NONE };
  if (!isU32(ep.id) || ep.id === 0) throw bad("id must be an integer 1..4294967295");
  if (typeof ep.content !== "string") throw bad("content must be a string");
  const content = encode(ep.content);
  if (!content.length) throw bad("content is empty");
  if (content.length > EPISODE_CONTENT_BYTES) throw bad(`content is over ${EPISODE_CONTENT_BYTES} bytes`);
  if (!isWellFormed(content)) throw bad("content is not valid text");
  if (codePoints(content) > EPISODE_CONTENT_CHARS) throw bad(`content is over ${EPISODE_CONTENT_CHARS} characters`);
  const kw = ep.keywords;
  if (!Array.isArray(kw)) throw bad("keywords must be a list");
  if (kw.length > EPISODE_KEYWORDS) throw bad(`keywords: at most ${EPISODE_KEYWORDS}`);
  let joined = "";
  for (let i = 0; i < kw.length; i++) {
    const k = kw[i];
    if (typeof k !== "string" || !k.length) throw bad("keywords must be non-empty strings");
    if (k.indexOf(",") >= 0) throw bad("a keyword must not contain ','");
    const b = encode(k);
    if (b.length > KEYWORD_BYTES) throw bad(`keyword over ${KEYWORD_BYTES} bytes`);
    if (!isWellFormed(b)) throw bad("keyword is not valid text");
    joined += (i ? "," : "") + k;
  }
  const keywords = encode(joined);
  if (keywords.length > EPISODE_KEYWORDS_BYTES) throw bad(`keywords are over ${EPISODE_KEYWORDS_BYTES} bytes together`);
  if (EMOTIONS.indexOf(ep.emotion) < 0) throw bad(`emotion must be one of ${EMOTIONS.join(", ")}`);
  if (EPISODE_SOURCES.indexOf(ep.source) < 0) throw bad(`source must be one of ${EPISODE_SOURCES.join(", ")}`);
  score(ep.e, "e");
  score(ep.i, "i");
  score(ep.p, "p");
  score(ep.j, "j");
  if (typeof ep.useCount !== "number" || !Number.isInteger(ep.useCount) || ep.useCount < 0) throw bad("useCount must be an integer >= 0");
  if (!isU32(ep.createdAt)) throw bad("createdAt must be unix seconds");
  if (!isU32(ep.lastActiveAt)) throw bad("lastActiveAt must be unix seconds");
  if (!isU32(ep.purgeAt)) throw bad("purgeAt must be unix seconds");
  return { content, keywords };
}

// ---- text record ---------------------------------------------------------------------------

// Writes the text record of `id` (0 and empty texts for a free slot) at out[at..at+672).
export function encodeText(out: Uint8Array, at: number, id: number, seq: number, t: Checked): number {
  out.fill(0, at, at + TEXT_BYTES);
  put32(out, at + T_ID, id);
  put32(out, at + T_SEQ, seq);
  put16(out, at + T_CLEN, t.content.length);
  out[at + T_KLEN] = t.keywords.length;
  out.set(t.content, at + T_CONTENT);
  out.set(t.keywords, at + T_KEYWORDS);
  const c = crc32(out, at, at + T_CRC);
  put32(out, at + T_CRC, c);
  return c;
}

export function textCrcOf(b: Uint8Array, at: number): number {
  return u32(b, at + T_CRC);
}

export function textValid(b: Uint8Array, at: number): boolean {
  if (u32(b, at + T_CRC) !== crc32(b, at, at + T_CRC)) return false;
  return u16(b, at + T_CLEN) <= EPISODE_CONTENT_BYTES && b[at + T_KLEN] <= EPISODE_KEYWORDS_BYTES;
}

export function textId(b: Uint8Array, at: number): number {
  return u32(b, at + T_ID);
}

// Fills content and keywords from a valid text record.
export function decodeText(b: Uint8Array, at: number, ep: Episode): void {
  const cl = u16(b, at + T_CLEN), kl = b[at + T_KLEN];
  ep.content = cl ? decode(b.subarray(at + T_CONTENT, at + T_CONTENT + cl)) : "";
  ep.keywords = kl ? decode(b.subarray(at + T_KEYWORDS, at + T_KEYWORDS + kl)).split(",") : [];
}

// ---- header record -----------------------------------------------------------------------

// Writes the header of `ep` (a blank one when free) at out[at..at+128):
// version 1 with textSeq, version 2 with `ref` (the passage; seq 0, length 0
// for none).
export function encodeHeader(out: Uint8Array, at: number, ep: Episode, seq: number, textCrc: number, textSeq: number, sig: Uint8Array | undefined, ref?: { seq: number; at: number; len: number }): void {
  out.fill(0, at, at + HEADER_BYTES);
  out[at] = MAGIC;
  out[at + 1] = ref ? VERSION2 : VERSION;
  put32(out, at + H_SEQ, seq);
  put32(out, at + H_TEXTCRC, textCrc);
  if (ref) {
    put32(out, at + H_TEXTSEQ, ref.seq);
    put32(out, at + H_TEXTAT, ref.at);
    put16(out, at + H_TEXTLEN, ref.len);
  } else put32(out, at + H_TEXTSEQ, textSeq);
  if (ep.state !== "free") {
    out[at + H_STATE] = EPISODE_STATES.indexOf(ep.state);
    out[at + H_SOURCE] = EPISODE_SOURCES.indexOf(ep.source);
    put32(out, at + H_ID, ep.id);
    put32(out, at + H_CREATED, ep.createdAt);
    put32(out, at + H_ACTIVE, ep.lastActiveAt);
    put32(out, at + H_PURGE, ep.purgeAt);
    put16(out, at + H_USE, ep.useCount > USE_MAX ? USE_MAX : ep.useCount);
    out[at + H_E] = ep.e;
    out[at + H_I] = ep.i;
    out[at + H_P] = ep.p;
    out[at + H_J] = ep.j;
    out[at + H_EMOTION] = EMOTIONS.indexOf(ep.emotion);
    if (sig) out.set(sig.subarray(0, EPISODE_SIG_BYTES), at + H_SIG);
  }
  if (ep.wipe && ep.state !== "active") out[at + H_WIPE] = 1;
  put32(out, at + H_CRC, crc32(out, at, at + H_CRC));
}

export function headerValid(b: Uint8Array, at: number): boolean {
  if (b[at] !== MAGIC || (b[at + 1] !== VERSION && b[at + 1] !== VERSION2)) return false;
  if (u32(b, at + H_CRC) !== crc32(b, at, at + H_CRC)) return false;
  return b[at + H_STATE] < EPISODE_STATES.length && b[at + H_SOURCE] < EPISODE_SOURCES.length && b[at + H_EMOTION] < EMOTIONS.length;
}

// A version-2 header (its text is a passage), else version 1 (its text record).
export function headerLean(b: Uint8Array, at: number): boolean {
  return b[at + 1] === VERSION2;
}

// The passage a version-2 header points to.
export function headerRef(b: Uint8Array, at: number): { seq: number; at: number; len: number; crc: number } {
  return { seq: u32(b, at + H_TEXTSEQ), at: u32(b, at + H_TEXTAT), len: u16(b, at + H_TEXTLEN), crc: u32(b, at + H_TEXTCRC) };
}

// The owner deleted it: its text is collected from flash once the slot is freed.
export function headerWipe(b: Uint8Array, at: number): boolean {
  return (b[at + H_WIPE] & 1) === 1;
}

export function headerSeq(b: Uint8Array, at: number): number {
  return u32(b, at + H_SEQ);
}

export function headerState(b: Uint8Array, at: number): number {
  return b[at + H_STATE];
}

export function headerId(b: Uint8Array, at: number): number {
  return u32(b, at + H_ID);
}

export function headerTextCrc(b: Uint8Array, at: number): number {
  return u32(b, at + H_TEXTCRC);
}

export function headerTextSeq(b: Uint8Array, at: number): number {
  return u32(b, at + H_TEXTSEQ);
}

// The episode of a valid header (content "" and keywords [] until decodeText).
export function decodeHeader(b: Uint8Array, at: number, slot: number): Episode {
  const ep: Episode = {
    slot,
    id: u32(b, at + H_ID),
    state: EPISODE_STATES[b[at + H_STATE]],
    content: "",
    keywords: [],
    emotion: EMOTIONS[b[at + H_EMOTION]],
    e: b[at + H_E],
    i: b[at + H_I],
    p: b[at + H_P],
    j: b[at + H_J],
    useCount: u16(b, at + H_USE),
    createdAt: u32(b, at + H_CREATED),
    lastActiveAt: u32(b, at + H_ACTIVE),
    purgeAt: u32(b, at + H_PURGE),
    source: EPISODE_SOURCES[b[at + H_SOURCE]],
    sig: b.slice(at + H_SIG, at + H_SIG + EPISODE_SIG_BYTES),
  };
  if (headerWipe(b, at)) ep.wipe = true;
  return ep;
}

// Is the slot's copy whole: a valid header, and a valid text that is the one
// the header commits (its CRC is the header's textCrc)?
export function slotValid(h: Uint8Array, ha: number, t: Uint8Array, ta: number): boolean {
  return headerValid(h, ha) && textValid(t, ta) && u32(t, ta + T_CRC) === u32(h, ha + H_TEXTCRC);
}

// ---- tombstones (20 bytes) ------------------------------------------------------------------

export const TOMB_BYTES = 20;

export function tombValid(b: Uint8Array, at: number): boolean {
  return u32(b, at + 16) === crc32(b, at, at + 16);
}

// The sync state of one remote (docs/FORMAT.md §6): where each archive
// stream's push stands, the pull checkpoint, the ledger and the episode map.
// Two files, `/sym.a` and `/sym.b`, each whole with a CRC and a generation:
// a save writes the older one (never the one just read), so a cut leaves the
// last good state. Load takes the valid file of the higher generation; none
// valid is a first sync (everything is offered again: the server's
// `_revs_diff` and revision check make that idempotent).

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { encode, decode } from "../text/utf8";
import { readInto, writeAt, openRead, openWrite, rethrowFatal } from "../archive/file";
import { Ledger, ENTRY_WORDS } from "./ledger";

export const MAGIC = 0x31534d50; // "PMS1"
export const VERSION = 1;
export const HEAD = 516; // 68 bytes of fields, then the pull checkpoint
export const SEQ_BYTES = 448; // a CouchDB cluster's sequence string can take a few hundred
export const STREAM_ORDER = ["fact", "moment", "event", "digest"] as const;
export type MarkStream = (typeof STREAM_ORDER)[number];

export interface Mark {
  seq: number;
  pos: number;
}

export class SyncState {
  gen = 0;
  pet = 0; // this device's identity for its episodes' document ids
  session = 0; // the remote history this state belongs to (its _local checkpoint says the same)
  remote = 0; // CRC of the remote's host, port and database
  marks: Record<MarkStream, Mark> = { fact: { seq: 0, pos: 0 }, moment: { seq: 0, pos: 0 }, event: { seq: 0, pos: 0 }, digest: { seq: 0, pos: 0 } };
  tombAt = 0; // archive tombstones at or before this time (unix s) are pushed
  pullSeq = "0";
  ledger = new Ledger();
  map = new Uint32Array(0); // pulled episodes: local id, pet, origin id (3 words each)
  maps = 0;
  // items another client named (or edited in place) under an id their fields
  // do not give: type code, the id the fields give here, the server's id (3 words each)
  alias = new Uint32Array(0);
  aliases = 0;
  writes = 0;

  constructor(readonly root: string) {}

  private path(k: number): string {
    return `${this.root}sym.${k ? "b" : "a"}`;
  }

  // Resets what belongs to a remote history (a new remote, or one that lost our checkpoint).
  forget(): void {
    this.session = 0;
    this.marks = { fact: { seq: 0, pos: 0 }, moment: { seq: 0, pos: 0 }, event: { seq: 0, pos: 0 }, digest: { seq: 0, pos: 0 } };
    this.tombAt = 0;
    this.pullSeq = "0";
    this.ledger.clear();
    this.maps = 0;
    this.aliases = 0;
  }

  load(): boolean {
    // the copy of the higher generation first (a 12-byte read of each), the
    // other only when that one is not valid
    const gens = [this.genOf(0), this.genOf(1)];
    const order = gens[1] > gens[0] ? [1, 0] : [0, 1];
    let best: Uint8Array | undefined;
    for (const k of order) {
      if (gens[k] < 0) continue;
      const b = readWhole(this.path(k));
      if (b && valid(b)) {
        best = b;
        break;
      }
    }
    if (!best) return false;
    const v = view(best);
    this.gen = v.getUint32(8, true);
    this.pet = v.getUint32(12, true);
    this.session = v.getUint32(16, true);
    this.remote = v.getUint32(20, true);
    STREAM_ORDER.forEach((s, i) => (this.marks[s] = { seq: v.getUint32(24 + i * 8, true), pos: v.getUint32(28 + i * 8, true) }));
    this.tombAt = v.getUint32(56, true);
    const seqLen = v.getUint16(60, true);
    const n = v.getUint16(62, true);
    const m = v.getUint32(64, true);
    this.pullSeq = decode(best.subarray(68, 68 + seqLen));
    this.ledger = new Ledger(n + 16);
    for (let i = 0; i < n * ENTRY_WORDS; i++) this.ledger.words[i] = v.getUint32(HEAD + i * 4, true);
    this.ledger.count = n;
    const mo = HEAD + n * ENTRY_WORDS * 4;
    this.map = new Uint32Array(Math.max(3, m * 3));
    for (let i = 0; i < m * 3; i++) this.map[i] = v.getUint32(mo + i * 4, true);
    this.maps = m;
    const a = v.getUint16(6, true);
    const ao = mo + m * 12;
    this.alias = new Uint32Array(Math.max(3, a * 3));
    for (let i = 0; i < a * 3; i++) this.alias[i] = v.getUint32(ao + i * 4, true);
    this.aliases = a;
    return true;
  }

  // A copy's generation from its first 12 bytes, -1 when it is not a copy.
  private genOf(k: number): number {
    const f = openRead(this.path(k));
    if (!f) return -1;
    try {
      if (f.length < HEAD + 4) return -1;
      const b = new Uint8Array(12);
      readInto(f, 0, 12, b);
      const v = view(b);
      return v.getUint32(0, true) === MAGIC && b[4] === VERSION ? v.getUint32(8, true) : -1;
    } catch (e) {
      rethrowFatal(e);
      return -1;
    } finally {
      f.close();
    }
  }

  // Writes the state into the file not holding the newest one: the head,
  // then the ledger, the episode map and the renamed items through one
  // 1 KB buffer (never a copy of the whole state in RAM), the CRC last.
  save(): void {
    const seq = encode(this.pullSeq);
    if (seq.length > SEQ_BYTES) throw new Error("sync: the remote's checkpoint is longer than 448 bytes");
    const n = this.ledger.count, m = this.maps, a = this.aliases;
    if (a > 0xffff) throw new Error("sync: more than 65535 renamed items");
    const head = new Uint8Array(HEAD);
    const v = view(head);
    this.gen = (this.gen + 1) >>> 0;
    v.setUint32(0, MAGIC, true);
    head[4] = VERSION;
    v.setUint16(6, a, true);
    v.setUint32(8, this.gen, true);
    v.setUint32(12, this.pet, true);
    v.setUint32(16, this.session, true);
    v.setUint32(20, this.remote, true);
    STREAM_ORDER.forEach((s, i) => {
      v.setUint32(24 + i * 8, this.marks[s].seq, true);
      v.setUint32(28 + i * 8, this.marks[s].pos, true);
    });
    v.setUint32(56, this.tombAt, true);
    v.setUint16(60, seq.length, true);
    v.setUint16(62, n, true);
    v.setUint32(64, m, true);
    head.set(seq, 68);
    // the target is the file whose generation is not the newest: parity of gen
    const path = this.path(this.gen & 1);
    if (File.exists(path)) File.delete(path);
    const f = openWrite(path);
    try {
      let crc = 0, pos = 0;
      const put = (b: Uint8Array) => {
        crc = crc32(b, 0, b.length, crc);
        writeAt(f, b, pos);
        pos += b.length;
      };
      put(head);
      const piece = new Uint8Array(1024);
      const pv = view(piece);
      let k = 0;
      const words = (w: Uint32Array, count: number) => {
        for (let i = 0; i < count; i++) {
          pv.setUint32(k, w[i], true);
          k += 4;
          if (k === piece.length) {
            put(piece);
            k = 0;
          }
        }
      };
      words(this.ledger.words, n * ENTRY_WORDS);
      words(this.map, m * 3);
      words(this.alias, a * 3);
      if (k) put(piece.subarray(0, k));
      const tail = new Uint8Array(4);
      view(tail).setUint32(0, crc, true);
      writeAt(f, tail, pos);
    } finally {
      f.close();
    }
    this.writes++;
  }

  // ---- the episode map -----------------------------------------------------------------

  origin(local: number): { pet: number; id: number } | undefined {
    for (let i = 0; i < this.maps; i++) if (this.map[i * 3] === local) return { pet: this.map[i * 3 + 1], id: this.map[i * 3 + 2] };
    return undefined;
  }

  localOf(pet: number, id: number): number {
    for (let i = 0; i < this.maps; i++) if (this.map[i * 3 + 1] === pet && this.map[i * 3 + 2] === id) return this.map[i * 3];
    return 0;
  }

  addMap(local: number, pet: number, id: number): void {
    if ((this.maps + 1) * 3 > this.map.length) {
      const g = new Uint32Array(Math.max(48, this.map.length * 2));
      g.set(this.map);
      this.map = g;
    }
    this.map.set([local, pet, id], this.maps * 3);
    this.maps++;
  }

  dropMap(local: number): void {
    for (let i = 0; i < this.maps; i++)
      if (this.map[i * 3] === local) {
        this.map.copyWithin(i * 3, (i + 1) * 3, this.maps * 3);
        this.maps--;
        return;
      }
  }
}

// ---- renamed items ---------------------------------------------------------------------

export function aliasOf(st: SyncState, code: number, local: number): number {
  for (let i = 0; i < st.aliases; i++) if (st.alias[i * 3] === code && st.alias[i * 3 + 1] === local >>> 0) return st.alias[i * 3 + 2];
  return -1;
}

// The local k1 an id of the server stands for here, or -1 (none renamed).
export function localAlias(st: SyncState, code: number, remote: number): number {
  for (let i = 0; i < st.aliases; i++) if (st.alias[i * 3] === code && st.alias[i * 3 + 2] === remote >>> 0) return st.alias[i * 3 + 1];
  return -1;
}

export function dropAlias(st: SyncState, code: number, remote: number): boolean {
  for (let i = 0; i < st.aliases; i++)
    if (st.alias[i * 3] === code && st.alias[i * 3 + 2] === remote >>> 0) {
      st.alias.copyWithin(i * 3, (i + 1) * 3, st.aliases * 3);
      st.aliases--;
      return true;
    }
  return false;
}

export function addAlias(st: SyncState, code: number, local: number, remote: number): void {
  dropAlias(st, code, remote);
  for (let i = 0; i < st.aliases; i++)
    if (st.alias[i * 3] === code && st.alias[i * 3 + 1] === local >>> 0) {
      st.alias[i * 3 + 2] = remote >>> 0;
      return;
    }
  if ((st.aliases + 1) * 3 > st.alias.length) {
    const g = new Uint32Array(Math.max(24, st.alias.length * 2));
    g.set(st.alias);
    st.alias = g;
  }
  st.alias.set([code, local >>> 0, remote >>> 0], st.aliases * 3);
  st.aliases++;
}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

function valid(b: Uint8Array): boolean {
  if (b.length < HEAD + 4) return false;
  const v = view(b);
  if (v.getUint32(0, true) !== MAGIC || b[4] !== VERSION) return false;
  if (v.getUint32(b.length - 4, true) !== crc32(b, 0, b.length - 4)) return false;
  const n = v.getUint16(62, true), m = v.getUint32(64, true), a = v.getUint16(6, true);
  return HEAD + n * ENTRY_WORDS * 4 + m * 12 + a * 12 + 4 === b.length && v.getUint16(60, true) <= SEQ_BYTES;
}

function readWhole(path: string): Uint8Array | undefined {
  const f = openRead(path);
  if (!f) return undefined;
  try {
    const len = f.length;
    if (len > HEAD + 4 + 0xffff * ENTRY_WORDS * 4 + 1024 * 12 + 0xffff * 12) return undefined;
    const b = new Uint8Array(len);
    for (let n = 0; n < len; ) {
      const k = readInto(f, n, Math.min(4096, len - n), b, n);
      if (k <= 0) return undefined;
      n += k;
    }
    return b;
  } catch (e) {
    rethrowFatal(e);
    return undefined;
  } finally {
    f.close();
  }
}

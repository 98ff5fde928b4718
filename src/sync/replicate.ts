// One replication both ways with a CouchDB-compatible server (docs/SYNC.md):
// pull the server's changes since the checkpoint and apply them through the
// memory's own rules, then push this device's changes (the archive by its
// append position, everything else by the ledger). Every batch is bounded in
// bytes and followed by a save of the state, so a cut connection or a power
// cut resumes from the last batch: what was sent twice is recognised by its
// revision id and never stored twice.

import type { Booted } from "../app/boot";
import config from "mc/config";
import { crc32 } from "../nvs/crc32";
import { encode } from "../text/utf8";
import { hex8, ARCHIVE_TYPES, TYPE_CODE, type ArchiveType, type ArchivedItem } from "../archive/line";
import { digestSource, keyId } from "../backup/schema";
import { now } from "../time/clock";
import { formatDateTime } from "../time/local";
import { Couch, SyncError, type Json, type Transport, type Endpoint, type Limits } from "./couch";
import { SyncState, STREAM_ORDER, aliasOf, localAlias, dropAlias, type MarkStream } from "./state";
import { ABSORBED } from "./ledger";
import { keyOf, idOf, TYPES, CORE_TYPES, type Key } from "./ids";
import { forEachLocal, archivedDoc, digestDoc, episodeBody, episodeIdFor, episodeHash, hashOf, bodyOf, type LocalDoc, type Body } from "./docs";
import { applyBody, applyDelete, localNvs, localEpisode, episodeLocal, renamer, type ArchiveBatch } from "./apply";
import { PREFERENCE_CAPACITY, type Fact, type Moment, type Event } from "../memory/types";

export { SyncError, type Transport };

export interface SyncOptions {
  transport: Transport; // src/net/http.ts request, or a test's server
  remote: Endpoint;
  db: string; // the owner's memory database; the trash scope is `<db>_trash`
  trash?: boolean; // the memory.trash scope (seed 001: off by default)
  restore?: boolean; // a new device taking an owner's memory: digests come too
  busy?: () => boolean; // a conversation is going on: stop before the next request
  limits?: Partial<Limits>;
}

export interface SyncReport {
  pushed: number;
  pulled: number;
  conflicts: number;
  rejected: number; // remote documents refused (a wrong field): reported, never applied in part
  trashCleared: number;
  checkpoint: string;
  requests: number;
  sent: number; // bytes of request bodies (UTF-16 units)
  received: number;
  stateWrites: number;
}

export const PULL_PAGE = 16; // changes per _changes request
export const FETCH = 4; // documents per _all_docs read
export const DRAIN_PAGE = 32; // changes per request when passing over this run's own writes
export const MINE = 256; // writes of one run remembered for that (2 KB); the feed is passed over each time it fills
export const PUSH_DOCS = 8; // documents per _bulk_docs
export const PUSH_BYTES = 2048; // a _bulk_docs body stops growing past this
export const MAX_REPLY = 8192; // no reply is taken longer than this

const DELETED = 0; // the body hash of a deletion
// The archive's stream code (1 fact, 2 moment, 3 event) of a document type, or
// 0 for a type that is never archived.
function archiveCode(code: number): number {
  return TYPE_CODE[TYPES[code] as ArchiveType] ?? 0;
}

// A revision on `parent` ("" for a first one) as a document for
// `_bulk_docs` with new_edits:false: its id, revision and ancestry, then `fields`.
function revision(id: string, hash: number, parent: string, fields: Json): Json {
  const gen = revGen(parent) + 1, rev = revOf(gen, hash, id, parent);
  return { _id: id, _rev: rev, _revisions: revisions(gen, rev, parent), ...fields };
}

// The revisions this run wrote, as two 32-bit hashes of id and revision
// (one would let about one foreign change in 4 million pass for ours), to know
// them in the changes feed. When MINE are written, the feed is passed over.
class Mine {
  words = new Uint32Array(0); // made at the first write (a pull writes none)
  count = 0;
  full = false;
  add(id: string, rev: string): void {
    if (this.count === MINE) {
      this.full = true;
      return;
    }
    if (this.count * 2 === this.words.length) {
      const g = new Uint32Array(Math.min(MINE * 2, Math.max(128, this.words.length * 2)));
      g.set(this.words);
      this.words = g;
    }
    const b = encode(id + "\n" + rev);
    this.words[this.count * 2] = crc32(b);
    this.words[this.count * 2 + 1] = crc32(b, 0, b.length, 0x5a5a5a5a);
    this.count++;
  }
  clear(): void {
    this.count = 0;
  }
  sort(): void {
    // insertion sort of pairs: a run writes at most MINE, once
    const w = this.words;
    for (let i = 1; i < this.count; i++) {
      const a = w[i * 2], b = w[i * 2 + 1];
      let j = i - 1;
      while (j >= 0 && (w[j * 2] > a || (w[j * 2] === a && w[j * 2 + 1] > b))) {
        w[(j + 1) * 2] = w[j * 2];
        w[(j + 1) * 2 + 1] = w[j * 2 + 1];
        j--;
      }
      w[(j + 1) * 2] = a;
      w[(j + 1) * 2 + 1] = b;
    }
  }
  has(id: string, rev: string): boolean {
    const bytes = encode(id + "\n" + rev);
    const a = crc32(bytes), b = crc32(bytes, 0, bytes.length, 0x5a5a5a5a);
    let lo = 0, hi = this.count - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      const d = this.words[m * 2] - a || this.words[m * 2 + 1] - b;
      if (d < 0) lo = m + 1;
      else if (d > 0) hi = m - 1;
      else return true;
    }
    return false;
  }
}

// A revision id: generation, then the body's hash and a hash of the id and
// the parent. Two devices writing the same body on the same parent make the
// same revision, so the server stores it once.
export function revOf(gen: number, hash: number, id: string, parent: string): string {
  return `${gen}-${hex8(hash)}${hex8(crc32(encode(id + "\n" + parent)))}`;
}

// The body hash a revision made by a petmem device carries; undefined for others.
export function revHash(rev: string): number | undefined {
  const m = /^\d+-([0-9a-f]{8})[0-9a-f]{8}$/.exec(rev);
  return m ? parseInt(m[1], 16) : undefined;
}

function revGen(rev: string): number {
  return parseInt(rev, 10) || 0;
}

function revisions(gen: number, rev: string, parent: string): Json {
  const ids = [rev.slice(rev.indexOf("-") + 1)];
  if (parent) ids.push(parent.slice(parent.indexOf("-") + 1));
  return { start: gen, ids };
}

// A number no other device picks: XS's Math.random is not seeded on every
// platform (on the SDK's Linux build two runs draw the same numbers), so the
// clock to the millisecond and the device's boot count go in too.
let draws = 0;
function random32(booted?: Booted): number {
  const boots = booted ? booted.service.boot.boot : 0;
  const seed = `${Date.now()}|${now()}|${Math.random()}|${boots}|${++draws}`;
  const n = (crc32(encode(seed)) ^ Math.floor(Math.random() * 0x100000000)) >>> 0;
  return n || 1;
}

// A bound on a document's JSON bytes without writing it: three bytes per
// UTF-16 unit of its strings, 24 per other field, 200 for the protocol's.
function sizeOf(b: Body): number {
  let n = 200;
  for (const k of Object.keys(b)) {
    const v = b[k];
    if (typeof v === "string") n += 8 + v.length * 3;
    else if (Array.isArray(v)) for (const x of v) n += 4 + String(x).length * 3;
    else n += 24;
  }
  return n;
}

// A `_local` document is updated with the revision it has.
function revOfLocal(doc: Json | undefined): Json {
  return doc && typeof doc._rev === "string" ? { _rev: doc._rev } : {};
}

function seconds(): number {
  return Math.floor(now() / 1000);
}

class Run {
  readonly couch: Couch;
  readonly st: SyncState;
  readonly mine = new Mine();
  private blocked = false; // the drain met another device's change
  readonly r: SyncReport = { pushed: 0, pulled: 0, conflicts: 0, rejected: 0, trashCleared: 0, checkpoint: "0", requests: 0, sent: 0, received: 0, stateWrites: 0 };

  constructor(
    readonly booted: Booted,
    readonly o: SyncOptions,
  ) {
    this.couch = new Couch(o.transport, o.remote, o.db, { maxBody: MAX_REPLY, ...o.limits });
    this.st = new SyncState(booted.archive ? booted.archive.root : config.file.root);
  }

  check(): void {
    if (this.o.busy && this.o.busy()) throw new SyncError("busy", "sync: a conversation is going on: sync waits until it ends");
  }

  origin = (local: number) => this.st.origin(local);

  async run(): Promise<SyncReport> {
    this.check();
    const st = this.st;
    await this.couch.ensure();
    st.load();
    const ep = this.o.remote;
    const remote = crc32(encode(`${ep.host}:${ep.port}${ep.prefix ?? ""}/${this.o.db}`));
    if (st.remote !== remote) {
      st.forget();
      st.remote = remote;
    }
    if (!st.pet) st.pet = random32(this.booted);
    const ckId = `petmem-${hex8(st.pet)}`;
    let ck = await this.couch.getLocal(ckId);
    if (!ck || ck.session !== st.session || !st.session) {
      // a new remote history, or a server that lost ours: everything is offered again
      if (st.session) st.forget();
      st.session = random32(this.booted);
      await this.couch.putLocal(ckId, { ...revOfLocal(ck), session: st.session, pull_seq: "0" });
      st.save();
      ck = await this.couch.getLocal(ckId);
    }
    await this.pull();
    await this.push();
    await this.drain();
    if (this.o.trash) await this.pushTrash();
    this.booted.service.memory.flush();
    await this.couch.putLocal(ckId, { ...revOfLocal(ck), session: st.session, pull_seq: st.pullSeq, at: seconds() });
    st.save();
    const r = this.r;
    r.checkpoint = st.pullSeq;
    r.requests = this.couch.requests;
    r.sent = this.couch.sent;
    r.received = this.couch.received;
    r.stateWrites = st.writes;
    return r;
  }

  // ---- pull -----------------------------------------------------------------------------------

  // The local document of a key: its hash, and for an NVS item its body (one lookup per pulled document).
  private local(key: Key, id: string): { hash: number; body?: Body; at?: number } | undefined {
    if (TYPES[key.code] === "episode") {
      const e = localEpisode(this.booted, episodeLocal(this.st, key));
      return e ? { hash: e.hash } : undefined;
    }
    if (TYPES[key.code] === "digest") return undefined;
    return localNvs(this.booted, id, this.st);
  }

  private async pull(): Promise<void> {
    const st = this.st;
    let pages = 0;
    for (;;) {
      this.check();
      // the page is kept only as the ids to read (its rows are garbage before
      // any document is applied: the heap's peak is the memory's write path)
      const page = await this.page();
      const before = this.r.pulled + this.r.conflicts + this.r.rejected;
      const fetch = page.fetch;
      for (let k = 0; k < fetch.length; k += FETCH) {
        this.check();
        const ids = fetch.slice(k, k + FETCH);
        const rows = await this.fetchDocs(ids);
        if (rows)
          for (let i = 0; i < rows.length; i++) {
            const row = rows[i];
            rows[i] = { id: "", deleted: false }; // an applied document is garbage before the next one is applied
            await this.pullOne(row);
          }
        else
          for (const id of ids) {
            // together longer than a reply may be: one at a time; one alone
            // too long is refused (the checkpoint passes it like any other)
            this.check();
            const one = await this.fetchDocs([id]);
            if (one) await this.pullOne(one[0]);
            else this.refuse(id, `longer than a reply may be (${this.couch.limits.maxBody ?? MAX_REPLY} bytes)`);
          }
      }
      this.toArchive();
      this.booted.service.memory.flush();
      st.pullSeq = page.last;
      // the state is written when the page changed something here, and every
      // 8 pages otherwise (a cut re-reads at most those: reading is idempotent)
      if (this.r.pulled + this.r.conflicts + this.r.rejected !== before || ++pages % 8 === 0) st.save();
      if (page.count < PULL_PAGE) return;
    }
  }

  // One page of the changes feed: the ids whose documents must be read.
  private async page(): Promise<{ fetch: string[]; last: string; count: number }> {
    const st = this.st;
    const page = await this.couch.changes(st.pullSeq, PULL_PAGE);
    const fetch: string[] = [];
    for (const c of page.results) {
      const key = keyOf(c.id);
      if (!key) continue; // not a petmem document (or a design document): not ours to read
      if (c.revs.length === 1) {
        const i = st.ledger.find(key.code, key.k1, key.k2);
        if (!c.deleted && i >= 0 && revHash(c.revs[0]) === st.ledger.word(i, 3)) continue; // what this pet holds already
        if (c.deleted && i < 0 && !archiveCode(key.code)) continue; // nothing here to delete
      }
      fetch.push(c.id);
    }
    return { fetch, last: page.last, count: page.results.length };
  }

  // Documents with their conflicts, or undefined when the reply would be too long.
  private async fetchDocs(ids: string[]): Promise<{ id: string; rev?: string; deleted: boolean; doc?: Json }[] | undefined> {
    try {
      return await this.couch.allDocs(ids, true);
    } catch (e) {
      if (e instanceof SyncError && e.code === "big") return undefined;
      throw e;
    }
  }

  private refuse(id: string, why: string): void {
    this.r.rejected++;
    trace(`sync: ${id} not applied: ${why}\n`);
  }

  // After the push: the server's changes feed now lists this run's own writes;
  // the checkpoint moves past every page made of them only, so the next pull
  // does not read them back. A page with another device's change stops it
  // (the next pull reads that page).
  private async drain(): Promise<void> {
    if (this.blocked || !this.mine.count) return;
    this.mine.sort();
    for (;;) {
      this.check();
      const page = await this.couch.changes(this.st.pullSeq, DRAIN_PAGE);
      let k = 0;
      while (k < page.results.length && page.results[k].revs.length === 1 && this.mine.has(page.results[k].id, page.results[k].revs[0])) k++;
      if (k < page.results.length) {
        this.blocked = true; // another device's change: the next pull reads from here
        return;
      }
      if (page.results.length) this.st.pullSeq = page.last;
      if (page.results.length < DRAIN_PAGE) break;
    }
    this.mine.clear(); // the feed is read to its end: all of it was ours
  }

  private async pullOne(row: { id: string; rev?: string; deleted: boolean; doc?: Json }): Promise<void> {
    const st = this.st;
    const key = keyOf(row.id);
    if (!key || !row.rev) return;
    const id = row.id;
    const type = TYPES[key.code];
    let winner: Json | undefined = row.deleted ? undefined : row.doc;
    const conflicts = row.doc && Array.isArray(row.doc._conflicts) ? (row.doc._conflicts as unknown[]).filter((x) => typeof x === "string") as string[] : [];
    if (conflicts.length) {
      // concurrent writes from two devices: the newest edit wins, everywhere
      // the same (then the higher revision); the others are closed on the server
      let leaves: Json[];
      try {
        leaves = await this.couch.openRevs(id, [row.rev].concat(conflicts), MAX_REPLY);
      } catch (e) {
        if (!(e instanceof SyncError && e.code === "big")) throw e;
        this.refuse(id, `its conflicting revisions are longer than a reply may be (${MAX_REPLY} bytes)`);
        return;
      }
      leaves.sort((a, b) => (Number(b.at) || 0) - (Number(a.at) || 0) || revGen(String(b._rev)) - revGen(String(a._rev)) || (String(b._rev) > String(a._rev) ? 1 : -1));
      const win = leaves[0];
      const close: Json[] = [];
      const core = CORE_TYPES.indexOf(type) >= 0;
      for (const l of leaves.slice(1)) {
        if (l._deleted) continue;
        close.push(revision(id, DELETED, String(l._rev), { _deleted: true, reason: "conflict_patch", at: seconds(), by: hex8(this.st.pet) }));
        // a core memory's losing value stays as a dated note (the same text on every pet)
        if (core && win && !win._deleted && hashOf(bodyOf(l)) !== hashOf(bodyOf(win))) this.note(key, bodyOf(l), typeof l.at === "number" ? l.at : seconds());
      }
      await this.bulk(close);
      this.r.conflicts++;
      winner = win && !win._deleted ? win : undefined;
    }
    if (winner && winner.type !== type) {
      this.refuse(id, `its type ${JSON.stringify(winner.type)} is not the id's (${type})`);
      return;
    }
    const i = st.ledger.find(key.code, key.k1, key.k2);
    const mine = this.local(key, id);
    const lh = mine ? mine.hash : undefined;
    const dirty = lh !== undefined && (i < 0 || st.ledger.word(i, 3) !== lh);
    const at = winner && typeof winner.at === "number" ? winner.at : seconds();
    const mem = this.booted.service.memory;
    const mark = mem.mark();
    try {
      if (!winner) {
        if (dirty) {
          this.r.conflicts++; // changed here, deleted there: the change stands and is pushed
          return;
        }
        const ac = archiveCode(key.code);
        if (lh !== undefined || (ac && this.booted.archive && !this.booted.archive.tombs.has(ac, hex8(key.k1)))) {
          // an archived record is hidden (its tombstone is dropped by the
          // archive's own pass when no such record is on flash here)
          applyDelete(this.booted, st, id, key);
          this.r.pulled++;
        }
        const j = st.ledger.find(key.code, key.k1, key.k2);
        if (j >= 0) st.ledger.removeAt(j);
        return;
      }
      const body = bodyOf(winner);
      const rh = revHash(String(winner._rev)) ?? hashOf(body);
      if (lh !== undefined && lh === rh) {
        st.ledger.set(key.code, key.k1, key.k2, lh, at);
        return;
      }
      if (dirty) {
        // changed on both sides since the last sync: the newer edit wins (an
        // item that keeps no edit time here: this pet's change, the later
        // one it knows of); a core memory keeps the other value as a dated note
        this.r.conflicts++;
        const core = CORE_TYPES.indexOf(TYPES[key.code]) >= 0;
        if (!(mine && mine.body && mine.at !== undefined && typeof winner.at === "number" && winner.at > mine.at)) {
          if (core) this.note(key, body, at);
          return;
        }
        if (core) this.note(key, mine.body, mine.at);
      }
      // what the memory's own rules push out to make room (a full list of
      // likes keeps its newest) is not deleted on the server: the pet could
      // not keep it, other pets may
      const prefKind = type === "like" || type === "dislike" ? type : undefined;
      const before = prefKind ? this.ids(prefKind) : undefined;
      const a = applyBody(this.booted, st, id, key, body, this.o.restore === true, this.batch, mine && mine.body ? { hash: mine.hash, body: mine.body } : null);
      if (before && prefKind) {
        const after = this.ids(prefKind);
        for (const x of before)
          if (after.indexOf(x) < 0 && x !== id) {
            const k = keyOf(x) as Key;
            const j = st.ledger.find(k.code, k.k1, k.k2);
            if (j >= 0) st.ledger.removeAt(j);
          }
      }
      if (a.same) return; // held here already (this pet's own record read back)
      this.r.pulled++;
      if (a.hash !== undefined) st.ledger.set(key.code, key.k1, key.k2, a.hash, at);
      else if (a.archived) this.toLedger.push({ type: type as ArchiveType, key, hash: rh, at });
      else if (a.absorbed) st.ledger.set(key.code, key.k1, key.k2, rh, (at | ABSORBED) >>> 0);
    } catch (e) {
      // a refused document is counted and changes nothing; a cut, or a
      // failing link or server, ends the sync
      mem.rollback(mark);
      if (e instanceof Error && (e.name === "PowerCut" || (e instanceof SyncError && e.code !== "bad"))) throw e;
      this.refuse(id, e instanceof Error ? e.message : String(e));
    }
  }

  // Pulled records bound for the archive: the server's revision stands for
  // each once it is appended (the archive's push passes them, never sending
  // them back as a revision of this pet's).
  readonly toLedger: { type: ArchiveType; key: Key; hash: number; at: number }[] = [];

  readonly batch: ArchiveBatch = { fact: [], moment: [], event: [] };

  // A page's archived records, one append per type. Outside a restore the
  // archive is asked first which it holds already (one search per type over
  // the page's time span); a restore starts from an empty archive, and a page
  // read again after a cut appends the same lines, which the archive skips.
  private toArchive(): void {
    const a = this.booted.archive;
    for (const t of ARCHIVE_TYPES) {
      const recs = this.batch[t] as (Fact | Moment | Event)[];
      if (!recs.length || !a) continue;
      const have = this.o.restore ? undefined : a.contains(t, recs);
      const add = have ? recs.filter((_r, i) => !have[i]) : recs.slice();
      recs.length = 0;
      let kept = true;
      try {
        if (add.length) {
          a.append(t, add);
          // a full segment is sealed before the next page's
          // records take room: one bounded step, as the maintenance timer runs
          a.step();
        }
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        kept = false;
        this.r.rejected += add.length;
        trace(`sync: ${add.length} archived ${t}s not kept: ${e instanceof Error ? e.message : String(e)}\n`);
      }
      for (const x of this.toLedger) if (x.type === t && kept) this.st.ledger.set(x.key.code, x.key.k1, x.key.k2, x.hash, (x.at | ABSORBED) >>> 0);
    }
    this.toLedger.length = 0;
  }

  // The ids of the likes or dislikes held now (no bodies built).
  private ids(type: "like" | "dislike"): string[] {
    const p = this.booted.service.memory.preferences();
    const rename = renamer(this.st);
    return (type === "like" ? p.likes : p.dislikes).map((c) => {
      const id = `${type}:${keyId(type, c)}`;
      return rename ? rename(id) : id;
    });
  }

  // The value another device (or this one) gave a core memory and lost, kept
  // as a fact dated when that edit was made: what it was and when, the same
  // text and time on every pet (so the same fact document).
  private note(key: Key, body: Body, at: number): void {
    const what =
      TYPES[key.code] === "profile"
        ? `${String(body.field)} ${String(body.value)}`
        : `family ${String(body.relation ?? "")} ${String(body.name ?? "")}${typeof body.closeness === "number" ? `, closeness ${body.closeness}` : ""}${body.sharedMemory ? `, ${String(body.sharedMemory)}` : ""}`;
    try {
      this.booted.service.memory.addFact(`${formatDateTime(at * 1000)} another device had: ${what}`.slice(0, 120), at);
    } catch (e) {
      trace(`sync: note not kept: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }

  // ---- push -----------------------------------------------------------------------------------

  private async push(): Promise<void> {
    const st = this.st;
    // what changed here: documents whose body is not the ledger's, and ledger
    // entries no document answers any more (deleted here, or moved to the archive)
    const seen = new Uint8Array(st.ledger.count);
    const dirtyNvs: number[] = [];
    const dirtyEps: number[] = [];
    let ord = 0;
    const rename = renamer(st);
    forEachLocal(this.booted, st.pet, this.origin, (d) => {
      const key = keyOf(d.id);
      if (key) {
        const i = st.ledger.find(key.code, key.k1, key.k2);
        if (i >= 0) seen[i] = 1;
        if (i < 0 || st.ledger.word(i, 3) !== d.hash) {
          if (d.slot !== undefined) dirtyEps.push(d.slot);
          else dirtyNvs.push(ord);
        }
      }
      ord++;
    }, "all", undefined, undefined, rename);
    const gone: Key[] = [];
    for (let i = 0; i < seen.length; i++) {
      const c = st.ledger.word(i, 0);
      if (!seen[i] && !(st.ledger.word(i, 4) & ABSORBED) && TYPES[c] !== "digest") gone.push({ code: c, k1: st.ledger.word(i, 1), k2: st.ledger.word(i, 2) });
    }
    // the archive by append position; a record that left NVS for it is not a deletion
    for (const s of STREAM_ORDER) await this.pushArchive(s, gone);
    await this.pushTombs();
    const reasons = this.episodeReasons();
    const dels: { key: Key; reason: string }[] = [];
    const prefs = this.booted.service.memory.preferences();
    const reasonOf = (k: Key): string => {
      const t = TYPES[k.code];
      if (t === "episode") return reasons.get(episodeLocal(st, k)) ?? "user_delete";
      // a full list lets its oldest go to make room: evicted, not deleted by the owner
      if ((t === "like" && prefs.likes.length >= PREFERENCE_CAPACITY) || (t === "dislike" && prefs.dislikes.length >= PREFERENCE_CAPACITY)) return "evicted";
      return "user_delete";
    };
    for (const k of gone) if (k.code !== 0) dels.push({ key: k, reason: reasonOf(k) });
    await this.pushDeletions(dels, true);
    // changed documents, a batch at a time
    for (let k = 0; k < dirtyNvs.length; k += PUSH_DOCS) {
      const want = dirtyNvs.slice(k, k + PUSH_DOCS);
      const docs: LocalDoc[] = [];
      let n = 0;
      forEachLocal(this.booted, st.pet, this.origin, (d) => {
        if (want.indexOf(n++) >= 0) docs.push(d);
      }, "nvs", undefined, undefined, rename);
      await this.pushDocs(docs);
    }
    const eps = this.booted.episodes;
    for (let k = 0; eps && k < dirtyEps.length; k += PUSH_DOCS / 2) {
      const docs: LocalDoc[] = [];
      for (const slot of dirtyEps.slice(k, k + PUSH_DOCS / 2)) {
        const ep = eps.store.read(slot);
        if (!ep || ep.state !== "active") continue;
        docs.push({ id: episodeIdFor(st.pet, ep.id, this.origin), type: "episode", body: episodeBody(ep), hash: episodeHash(ep), slot });
      }
      await this.pushDocs(docs);
    }
  }

  private episodeReasons(): Map<number, string> {
    const out = new Map<number, string>();
    const eps = this.booted.episodes;
    if (eps) eps.store.tombs((t) => void out.set(t.id, t.reason));
    return out;
  }

  // Pushes documents as children of the server's winning revision.
  private async pushDocs(docs: LocalDoc[]): Promise<void> {
    if (!docs.length) return;
    this.check();
    const st = this.st;
    const rows = await this.couch.allDocs(docs.map((d) => d.id), false);
    const out: Json[] = [];
    const t = seconds();
    let bytes = 0;
    const done: LocalDoc[] = [];
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i], row = rows[i];
      const key = keyOf(d.id) as Key;
      if (row && row.rev && !row.deleted && revHash(row.rev) === d.hash) {
        // already there (a push a cut interrupted after the server took it)
        st.ledger.set(key.code, key.k1, key.k2, d.hash, t);
        continue;
      }
      bytes += sizeOf(d.body as Body);
      // `at`: when the item was changed, where it keeps that (else when this sync noticed)
      out.push(revision(d.id, d.hash, row && row.rev ? row.rev : "", { type: d.type, ...(d.body as Body), at: d.at && d.at <= t ? d.at : t, by: hex8(st.pet) }));
      done.push(d);
      if (bytes >= PUSH_BYTES) {
        await this.send(out, done, t);
        out.length = 0;
        done.length = 0;
        bytes = 0;
      }
    }
    await this.send(out, done, t);
  }

  // Writes documents to the memory database, remembering their revisions.
  private async bulk(out: Json[]): Promise<void> {
    if (!out.length) return;
    this.r.pushed += await this.couch.bulkDocs(out);
    if (this.blocked) return;
    for (const d of out) this.mine.add(String(d._id), String(d._rev));
    if (this.mine.count >= MINE - PUSH_DOCS) await this.drain(); // before it is full
  }

  private async send(out: Json[], done: LocalDoc[], t: number): Promise<void> {
    await this.bulk(out);
    for (const d of done) {
      const key = keyOf(d.id) as Key;
      this.st.ledger.set(key.code, key.k1, key.k2, d.hash, t);
    }
    this.st.save();
  }

  private async pushDeletions(dels: { key: Key; reason: string }[], ledger: boolean): Promise<void> {
    const st = this.st;
    for (let k = 0; k < dels.length; k += PUSH_DOCS) {
      this.check();
      const part = dels.slice(k, k + PUSH_DOCS);
      const ids = part.map((d) => idOf(d.key.code, d.key.k1, d.key.k2));
      const rows = await this.couch.allDocs(ids, false);
      const out: Json[] = [];
      const t = seconds();
      for (let i = 0; i < part.length; i++) {
        const row = rows[i];
        if (row && row.deleted) continue; // deleted there already
        out.push(revision(ids[i], DELETED, row && row.rev ? row.rev : "", { _deleted: true, reason: part[i].reason, at: t, by: hex8(st.pet) }));
      }
      await this.bulk(out);
      let changed = out.length > 0;
      if (ledger)
        for (const d of part) {
          const j = st.ledger.find(d.key.code, d.key.k1, d.key.k2);
          if (j >= 0) {
            st.ledger.removeAt(j);
            changed = true;
          }
          if (TYPES[d.key.code] === "episode") st.dropMap(episodeLocal(st, d.key));
          else if (dropAlias(st, d.key.code, d.key.k1)) changed = true;
        }
      if (changed) st.save();
    }
  }

  // The archive's records after the stream's mark, as revision 1 of their
  // documents (their bodies never change); `_revs_diff` says which the server lacks.
  private async pushArchive(s: MarkStream, gone: Key[]): Promise<void> {
    const a = this.booted.archive;
    if (!a) return;
    const st = this.st;
    let hint = 0;
    let probe = true;
    if (s === "digest") {
      const seqs = a.streams.moment.newestFirst();
      hint = seqs.length ? seqs[seqs.length - 1] : 0;
    }
    const end = a.end(s);
    const rename = renamer(st);
    if (end.seq === st.marks[s].seq && end.pos === st.marks[s].pos) return; // nothing appended since: nothing read
    for (;;) {
      this.check();
      const batch: LocalDoc[] = [];
      let bytes = 0;
      const next = a.since(s, st.marks[s], (it: ArchivedItem) => {
        let d: LocalDoc;
        if (s === "digest") {
          const q = digestSource(it.id, it.type === "event", it.month ?? "", hint);
          if (q < 0) return;
          hint = q;
          if (this.restored(parseInt(it.id, 16))) return; // another device's digest, restored here
          d = digestDoc(st.pet, it, q);
        } else {
          d = archivedDoc(it);
          if (rename) d.id = rename(d.id); // another client's name for it
        }
        const key = keyOf(d.id) as Key;
        for (const g of gone) if (g.code === key.code && g.k1 === key.k1 && g.k2 === key.k2) g.code = 0; // moved, not deleted
        const j = st.ledger.find(key.code, key.k1, key.k2);
        if (j >= 0) {
          // pushed from NVS already: its revisions stand; the archive keeps it now
          st.ledger.removeAt(j);
          return;
        }
        batch.push(d);
        bytes += sizeOf(d.body as Body);
        return batch.length >= PUSH_DOCS || bytes >= PUSH_BYTES;
      });
      if (batch.length) {
        const revs = batch.map((d) => revOf(1, d.hash, d.id, ""));
        // the server is asked which it lacks until a batch comes back wholly
        // missing (records past what it has: new); a record sent twice is
        // stored once anyway (same revision), asking only saves the bytes.
        // After a restore everything in the archive came from the server
        // (pulled records, and pulled facts the memory moved there): walked
        // for the moves, nothing offered back.
        const missing = this.o.restore ? batch.map(() => false) : probe ? await this.couch.revsDiff(batch.map((d) => d.id), revs) : batch.map(() => true);
        if (missing.every((x) => x)) probe = false;
        const t = seconds();
        const out: Json[] = [];
        batch.forEach((d, i) => {
          if (missing[i]) out.push(revision(d.id, d.hash, "", { type: d.type, ...(d.body as Body), at: t, by: hex8(st.pet) }));
        });
        await this.bulk(out);
      }
      const moved = next.seq !== st.marks[s].seq || next.pos !== st.marks[s].pos;
      st.marks[s] = next;
      if (moved || batch.length) st.save();
      if (!batch.length || !moved) return;
    }
  }

  private restored(digest: number): boolean {
    const l = this.st.ledger, code = TYPES.indexOf("digest");
    for (let i = 0; i < l.count; i++) if (l.word(i, 0) === code && l.word(i, 2) === digest) return true;
    return false;
  }

  // Forgotten archive records: their documents are deleted on the server.
  private async pushTombs(): Promise<void> {
    const a = this.booted.archive;
    if (!a) return;
    const dels: { key: Key; reason: string }[] = [];
    let last = this.st.tombAt;
    for (const t of a.tombs.entries()) {
      if (t.when < this.st.tombAt) continue;
      const type = ARCHIVE_TYPES[t.code - 1];
      if (!type) continue;
      const code = TYPES.indexOf(type);
      // the old record of an edit in place: the server's id names the new one
      if (localAlias(this.st, code, t.id >>> 0) >= 0) continue;
      // a record another client named: its deletion goes to the server's id
      const named = aliasOf(this.st, code, t.id >>> 0);
      dels.push({ key: { code, k1: named >= 0 ? named : t.id >>> 0, k2: 0 }, reason: "user_delete" });
      if (t.when > last) last = t.when;
    }
    await this.pushDeletions(dels, true);
    this.st.tombAt = last;
  }

  // ---- the trash scope --------------------------------------------------------------------------

  // Uploads every trashed episode to `<db>_trash`, then clears them here
  // (their tombstones stay, seed 001 §9).
  private async pushTrash(): Promise<void> {
    const eps = this.booted.episodes;
    if (!eps) return;
    const trash = new Couch(this.o.transport, this.o.remote, `${this.o.db}_trash`, { maxBody: MAX_REPLY, ...this.o.limits });
    await trash.ensure();
    const slots: number[] = [];
    forEachLocal(this.booted, this.st.pet, this.origin, (d) => void (d.slot !== undefined && slots.push(d.slot)), "trash");
    const uploaded: number[] = [];
    for (let k = 0; k < slots.length; k += PUSH_DOCS / 2) {
      this.check();
      const docs: Json[] = [];
      const t = seconds();
      for (const slot of slots.slice(k, k + PUSH_DOCS / 2)) {
        const ep = eps.store.read(slot);
        if (!ep || ep.state !== "trash") continue;
        const body = { ...episodeBody(ep), purgeAt: ep.purgeAt };
        docs.push(revision(episodeIdFor(this.st.pet, ep.id, this.origin), hashOf(body), "", { type: "episode", ...body, at: t, by: hex8(this.st.pet) }));
        uploaded.push(slot);
      }
      if (docs.length) {
        const missing = await trash.revsDiff(docs.map((d) => String(d._id)), docs.map((d) => String(d._rev)));
        const out = docs.filter((_d, i) => missing[i]);
        if (out.length) this.r.pushed += await trash.bulkDocs(out);
      }
      this.couch.requests += trash.requests;
      this.couch.sent += trash.sent;
      this.couch.received += trash.received;
      trash.requests = trash.sent = trash.received = 0;
    }
    this.r.trashCleared += eps.clearTrash(uploaded);
  }
}

// One replication both ways. Throws SyncError: "busy" (a conversation),
// "net" (the link failed: run again later, it resumes), "auth", "server",
// "bad" (a reply the protocol does not allow).
export function sync(booted: Booted, o: SyncOptions): Promise<SyncReport> {
  return new Run(booted, o).run();
}

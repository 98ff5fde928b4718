// A small in-memory CouchDB for the scenarios (no network, runs in XS too):
// the replication endpoints the device uses, with revision trees and the
// winner rule of CouchDB (live before deleted, then the longer branch, then
// the greater revision), so that the replicator's logic is tested in both
// lanes. test/couch-sync.test.ts runs the same replicator against a real
// CouchDB-compatible server (pouchdb-server) to check the protocol itself.

import { byteLength } from "../../src/text/utf8";

export interface Reply {
  status: number;
  body: string;
}

interface Rev {
  parent: string;
  deleted: boolean;
  body: Record<string, unknown>;
}

interface Doc {
  id: string;
  revs: Map<string, Rev>;
  seq: number;
}

interface Db {
  docs: Map<string, Doc>;
  local: Map<string, Record<string, unknown>>;
  seq: number;
}

export type Cut = "before" | "after"; // the request is lost before the server sees it, or its reply is lost after

export class MiniCouch {
  dbs = new Map<string, Db>();
  requests = 0;
  cuts = new Map<number, Cut>(); // request index → where the link fails

  transport = (_ep: unknown, method: string, path: string, body?: string, limits?: { maxBody?: number }): Promise<Reply> => {
    const k = this.requests++;
    const cut = this.cuts.get(k);
    if (cut === "before") return Promise.reject(new Error("connection lost"));
    let r: Reply;
    try {
      r = this.handle(method, path, body);
    } catch (e) {
      r = { status: 400, body: JSON.stringify({ error: "bad_request", reason: e instanceof Error ? e.message : String(e) }) };
    }
    if (cut === "after") return Promise.reject(new Error("connection lost"));
    // the device's HTTP takes a reply only up to its limit (src/net/http.ts "too big")
    const max = limits && limits.maxBody;
    if (max && byteLength(r.body) > max) return Promise.reject(Object.assign(new Error(`http: the reply is longer than ${max} bytes`), { code: "too big" }));
    return Promise.resolve(r);
  };

  // Another client's write (as PouchDB's put makes it): a child of the
  // winning revision, or of `doc._rev` when given (a conflict); its id is not
  // a petmem one. Returns the new revision.
  write(name: string, doc: Record<string, unknown>): string {
    const db = this.dbs.get(name);
    if (!db) throw new Error("no such database");
    const id = String(doc._id);
    const d = db.docs.get(id);
    const parent = typeof doc._rev === "string" ? doc._rev : d ? winner(d) : "";
    const gen = parent ? parseInt(parent, 10) + 1 : 1;
    let h = "";
    for (let i = 0; i < 4; i++) h += ("00000000" + ((Math.random() * 0x100000000) >>> 0).toString(16)).slice(-8);
    const ids = [h];
    if (parent) ids.push(parent.slice(parent.indexOf("-") + 1));
    const body: Record<string, unknown> = { ...doc };
    delete body._rev;
    this.store(db, { ...body, _rev: `${gen}-${h}`, _revisions: { start: gen, ids } });
    return `${gen}-${h}`;
  }

  // The winning revision of a document (undefined: none).
  rev(name: string, id: string): string | undefined {
    const d = this.dbs.get(name)?.docs.get(id);
    return d ? winner(d) : undefined;
  }

  // One request, answered at once (the heap lane's bridge calls it).
  handle(method: string, path: string, body?: string): Reply {
    const q = path.indexOf("?");
    const query: Record<string, string> = {};
    if (q >= 0)
      for (const kv of path.slice(q + 1).split("&")) {
        const e = kv.indexOf("=");
        query[decodeURIComponent(kv.slice(0, e))] = decodeURIComponent(kv.slice(e + 1));
      }
    const parts = (q >= 0 ? path.slice(0, q) : path).split("/").slice(1).map(decodeURIComponent);
    const name = parts[0];
    const json = body ? JSON.parse(body) : undefined;
    let db = this.dbs.get(name);
    if (parts.length === 1) {
      if (method === "PUT") {
        if (db) return reply(412, { error: "file_exists" });
        this.dbs.set(name, { docs: new Map(), local: new Map(), seq: 0 });
        return reply(201, { ok: true });
      }
      if (!db) return reply(404, { error: "not_found" });
      return reply(200, { db_name: name, doc_count: db.docs.size, update_seq: db.seq });
    }
    if (!db) return reply(404, { error: "not_found", reason: "Database does not exist." });
    db = db as Db;
    const what = parts[1];
    if (what === "_local") {
      const id = parts.slice(2).join("/");
      if (method === "GET") {
        const d = db.local.get(id);
        return d ? reply(200, d) : reply(404, { error: "not_found" });
      }
      const old = db.local.get(id);
      if (old && json._rev !== old._rev) return reply(409, { error: "conflict" });
      const n = old ? Number(String(old._rev).slice(2)) + 1 : 1;
      db.local.set(id, { ...json, _id: `_local/${id}`, _rev: `0-${n}` });
      return reply(201, { ok: true, id: `_local/${id}`, rev: `0-${n}` });
    }
    if (what === "_changes") return reply(200, this.changes(db, Number(query.since || 0), Number(query.limit || 1e9), query.include_docs === "true"));
    if (what === "_revs_diff") {
      const out: Record<string, unknown> = {};
      for (const id of Object.keys(json)) {
        const d = db.docs.get(id);
        const missing = (json[id] as string[]).filter((r) => !d || !d.revs.has(r));
        if (missing.length) out[id] = { missing };
      }
      return reply(200, out);
    }
    if (what === "_bulk_docs") {
      if (json.new_edits !== false) throw new Error("only new_edits:false here");
      for (const doc of json.docs) this.store(db, doc);
      return reply(201, []);
    }
    if (what === "_all_docs") {
      const rows = (json.keys as string[]).map((id) => {
        const d = db!.docs.get(id);
        if (!d) return { key: id, error: "not_found" };
        const w = winner(d);
        const r = d.revs.get(w)!;
        const row: Record<string, unknown> = { id, key: id, value: r.deleted ? { rev: w, deleted: true } : { rev: w } };
        if (query.include_docs === "true") {
          if (r.deleted) row.doc = null;
          else {
            const doc: Record<string, unknown> = { _id: id, _rev: w, ...r.body };
            const others = leaves(d).filter((x) => x !== w && !d.revs.get(x)!.deleted);
            if (query.conflicts === "true" && others.length) doc._conflicts = others;
            row.doc = doc;
          }
        }
        return row;
      });
      return reply(200, { total_rows: db.docs.size, rows });
    }
    const id = parts.slice(1).join("/");
    const d = db.docs.get(id);
    if (method === "GET" && query.open_revs) {
      if (!d) return reply(404, { error: "not_found" });
      const want = query.open_revs === "all" ? leaves(d) : (JSON.parse(query.open_revs) as string[]);
      return reply(
        200,
        want.map((rv) => {
          const r = d.revs.get(rv);
          if (!r) return { missing: rv };
          return { ok: { _id: id, _rev: rv, ...(r.deleted ? { _deleted: true } : {}), ...r.body } };
        }),
      );
    }
    if (method === "GET") {
      if (!d) return reply(404, { error: "not_found" });
      const w = winner(d);
      const r = d.revs.get(w)!;
      if (r.deleted) return reply(404, { error: "not_found", reason: "deleted" });
      return reply(200, { _id: id, _rev: w, ...r.body });
    }
    return reply(405, { error: "method_not_allowed" });
  }

  private store(db: Db, doc: Record<string, unknown>): void {
    const id = String(doc._id);
    const revs = doc._revisions as { start: number; ids: string[] };
    let d = db.docs.get(id);
    if (!d) db.docs.set(id, (d = { id, revs: new Map(), seq: 0 }));
    const body: Record<string, unknown> = {};
    for (const k of Object.keys(doc)) if (k.charAt(0) !== "_") body[k] = doc[k];
    let changed = false;
    for (let i = revs.ids.length - 1; i >= 0; i--) {
      const rev = `${revs.start - i}-${revs.ids[i]}`;
      if (d.revs.has(rev)) continue;
      const parent = i + 1 < revs.ids.length ? `${revs.start - i - 1}-${revs.ids[i + 1]}` : "";
      d.revs.set(rev, { parent, deleted: i === 0 ? doc._deleted === true : false, body: i === 0 ? body : {} });
      changed = true;
    }
    if (changed) d.seq = ++db.seq;
  }

  private changes(db: Db, since: number, limit: number, docs: boolean): unknown {
    const list = [...db.docs.values()].filter((d) => d.seq > since).sort((a, b) => a.seq - b.seq).slice(0, limit);
    const results = list.map((d) => {
      const w = winner(d);
      const r = d.revs.get(w)!;
      const out: Record<string, unknown> = { seq: d.seq, id: d.id, changes: leaves(d).map((rev) => ({ rev })), ...(r.deleted ? { deleted: true } : {}) };
      if (docs) {
        const doc: Record<string, unknown> = { _id: d.id, _rev: w, ...(r.deleted ? { _deleted: true } : {}), ...r.body };
        const others = leaves(d).filter((x) => x !== w && !d.revs.get(x)!.deleted);
        if (others.length && !r.deleted) doc._conflicts = others;
        out.doc = doc;
      }
      return out;
    });
    return { results, last_seq: list.length ? list[list.length - 1].seq : since };
  }

  // The documents of a database as the server would serve them: id → winning body, deleted left out.
  live(name: string): Map<string, Record<string, unknown>> {
    const out = new Map<string, Record<string, unknown>>();
    const db = this.dbs.get(name);
    if (db)
      for (const d of db.docs.values()) {
        const r = d.revs.get(winner(d))!;
        if (!r.deleted) out.set(d.id, r.body);
      }
    return out;
  }

  conflicted(name: string): string[] {
    const db = this.dbs.get(name);
    const out: string[] = [];
    if (db) for (const d of db.docs.values()) if (leaves(d).filter((x) => !d.revs.get(x)!.deleted).length > 1) out.push(d.id);
    return out;
  }
}

function leaves(d: Doc): string[] {
  const parents = new Set<string>();
  for (const r of d.revs.values()) if (r.parent) parents.add(r.parent);
  return [...d.revs.keys()].filter((r) => !parents.has(r));
}

function winner(d: Doc): string {
  const ls = leaves(d);
  ls.sort((a, b) => {
    const da = d.revs.get(a)!.deleted ? 1 : 0, db = d.revs.get(b)!.deleted ? 1 : 0;
    if (da !== db) return da - db;
    const ga = parseInt(a, 10), gb = parseInt(b, 10);
    if (ga !== gb) return gb - ga;
    return a < b ? 1 : a > b ? -1 : 0;
  });
  return ls[0];
}

function reply(status: number, o: unknown): Reply {
  return { status, body: JSON.stringify(o) };
}

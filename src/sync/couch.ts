// The CouchDB replication protocol's requests, as this device makes them
// (https://docs.couchdb.org/en/stable/replication/protocol.html): one request
// at a time, every reply bounded in bytes (src/net/http.ts), every reply's
// JSON checked for the shape used before anything is trusted.

// What the transport takes and gives: src/net/http.ts's shapes (types only:
// the replicator itself loads no network module).
import type { Endpoint, Limits, Reply } from "../net/http";
export type { Endpoint, Limits, Reply };

// How requests reach the server: src/net/http.ts `request` on the device and
// the desktop; a test's in-memory server elsewhere (the replicator itself
// never names a network module, so it also runs where there is none).
export type Transport = (ep: Endpoint, method: string, path: string, body?: string, limits?: Partial<Limits>) => Promise<Reply>;

export class SyncError extends Error {
  constructor(
    readonly code: "busy" | "server" | "bad" | "auth" | "net" | "big",
    message: string,
  ) {
    super(message);
    Object.defineProperty(this, "name", { value: "SyncError", configurable: true, writable: true });
  }
}

export type Json = Record<string, unknown>;

export interface Change {
  id: string;
  revs: string[]; // every leaf (style=all_docs)
  deleted: boolean;
}

export class Couch {
  requests = 0;
  sent = 0;
  received = 0;

  constructor(
    readonly transport: Transport,
    readonly ep: Endpoint,
    readonly db: string,
    readonly limits: Partial<Limits> = {},
  ) {}

  // The reply's text, unparsed (status 200 or 201 only).
  private async raw(method: string, path: string, text: string): Promise<string> {
    const r = await this.send(method, path, text, [200, 201]);
    return r.body;
  }

  private async send(method: string, path: string, text: string | undefined, ok: number[], maxBody?: number): Promise<{ status: number; body: string }> {
    this.requests++;
    this.sent += text ? text.length : 0;
    let r;
    try {
      r = await this.transport(this.ep, method, `/${encodeURIComponent(this.db)}${path}`, text, maxBody ? { ...this.limits, maxBody } : this.limits);
    } catch (e) {
      // a reply longer than the device takes: the caller asks for less (one document) or refuses it
      if (e && (e as { code?: unknown }).code === "too big") throw new SyncError("big", `sync: ${method} ${path.split("?")[0] || "/"}: ${e instanceof Error ? e.message : String(e)}`);
      throw new SyncError("net", `sync: ${method} ${path.split("?")[0] || "/"}: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.received += r.body.length;
    if (r.status === 401 || r.status === 403) throw new SyncError("auth", `sync: the server refused the credentials (${r.status})`);
    if (ok.indexOf(r.status) < 0) throw new SyncError("server", `sync: ${method} ${path.split("?")[0] || "/"}: status ${r.status}`);
    return r;
  }

  private async call(method: string, path: string, body?: unknown, ok: number[] = [200, 201], maxBody?: number): Promise<{ status: number; data: Json | unknown[] }> {
    const r = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body), ok, maxBody);
    let data: unknown;
    try {
      data = r.body ? JSON.parse(r.body) : {};
    } catch {
      throw new SyncError("bad", `sync: ${method} ${path.split("?")[0] || "/"}: the reply is not JSON`);
    }
    if (typeof data !== "object" || data === null) throw new SyncError("bad", `sync: ${method} ${path.split("?")[0] || "/"}: the reply is not a JSON object`);
    return { status: r.status, data: data as Json };
  }

  // The database exists afterwards (created when missing and allowed).
  async ensure(): Promise<void> {
    const r = await this.call("GET", "", undefined, [200, 404]);
    if (r.status === 200) return;
    await this.call("PUT", "", undefined, [201, 202, 412]);
  }

  async getLocal(id: string): Promise<Json | undefined> {
    const r = await this.call("GET", `/_local/${encodeURIComponent(id)}`, undefined, [200, 404]);
    return r.status === 200 ? (r.data as Json) : undefined;
  }

  async putLocal(id: string, doc: Json): Promise<void> {
    await this.call("PUT", `/_local/${encodeURIComponent(id)}`, doc, [200, 201]);
  }

  // One page of changes: ids and leaf revisions only (the documents are read
  // for the rows that need them); a sequence only on the page's last row.
  async changes(since: string, limit: number): Promise<{ results: Change[]; last: string }> {
    const r = await this.call("GET", `/_changes?style=all_docs&limit=${limit}&seq_interval=${limit}&since=${encodeURIComponent(since)}`);
    const d = r.data as Json;
    if (!Array.isArray(d.results)) throw new SyncError("bad", "sync: _changes: no results");
    const out: Change[] = [];
    for (const x of d.results as Json[]) {
      if (typeof x !== "object" || x === null || typeof x.id !== "string" || !Array.isArray(x.changes)) throw new SyncError("bad", "sync: _changes: a result without id or changes");
      const revs: string[] = [];
      for (const c of x.changes as Json[]) if (c && typeof c.rev === "string") revs.push(c.rev);
      out.push({ id: x.id, revs, deleted: x.deleted === true });
    }
    const last = d.last_seq;
    if (last === undefined || last === null) throw new SyncError("bad", "sync: _changes: no last_seq");
    return { results: out, last: typeof last === "string" ? last : JSON.stringify(last) };
  }

  // Which of the given revisions (one per id) the server lacks. Built and
  // read as text: a JSON object keyed by document ids would make every id a
  // property name, which XS keeps for the life of the machine.
  async revsDiff(ids: string[], revs: string[]): Promise<boolean[]> {
    const parts: string[] = [];
    for (let i = 0; i < ids.length; i++) parts.push(`${JSON.stringify(ids[i])}:[${JSON.stringify(revs[i])}]`);
    const text = await this.raw("POST", "/_revs_diff", "{" + parts.join(",") + "}");
    if (text.charAt(0) !== "{") throw new SyncError("bad", "sync: _revs_diff: the reply is not a JSON object");
    return ids.map((id, i) => {
      const at = text.indexOf(JSON.stringify(id) + ":");
      if (at < 0) return false;
      const close = text.indexOf("}", at); // an entry holds arrays of strings only
      const m = text.indexOf('"missing"', at);
      if (m < 0 || (close >= 0 && m > close)) return false;
      const end = text.indexOf("]", m);
      return text.slice(m, end < 0 ? text.length : end).indexOf(JSON.stringify(revs[i])) >= 0;
    });
  }

  // Winning revision per id (undefined: the server never had it), with the doc when asked.
  async allDocs(keys: string[], docs: boolean, maxBody?: number): Promise<{ id: string; rev?: string; deleted: boolean; doc?: Json }[]> {
    const r = await this.call("POST", `/_all_docs${docs ? "?include_docs=true&conflicts=true" : ""}`, { keys }, [200], maxBody);
    const rows = (r.data as Json).rows;
    if (!Array.isArray(rows)) throw new SyncError("bad", "sync: _all_docs: no rows");
    return (rows as Json[]).map((row, i) => {
      const v = row && (row.value as Json);
      const id = typeof row?.key === "string" ? row.key : keys[i];
      if (!v || typeof v.rev !== "string") return { id, deleted: false };
      const doc = row.doc && typeof row.doc === "object" ? (row.doc as Json) : undefined;
      return { id, rev: v.rev, deleted: v.deleted === true, doc };
    });
  }

  // Given leaves of one document (JSON, not multipart), deleted ones included.
  async openRevs(id: string, revs: string[], maxBody?: number): Promise<Json[]> {
    const r = await this.call("GET", `/${encodeURIComponent(id)}?revs=true&open_revs=${encodeURIComponent(JSON.stringify(revs))}`, undefined, [200], maxBody);
    if (!Array.isArray(r.data)) throw new SyncError("bad", "sync: open_revs: not a list");
    const out: Json[] = [];
    for (const x of r.data as Json[]) if (x && x.ok && typeof x.ok === "object") out.push(x.ok as Json);
    return out;
  }

  // new_edits:false: the server stores the revisions as given (replication).
  async bulkDocs(docs: Json[]): Promise<number> {
    const r = await this.call("POST", "/_bulk_docs", { docs, new_edits: false }, [201, 200]);
    const d = r.data;
    if (Array.isArray(d)) for (const x of d as Json[]) if (x && x.error) throw new SyncError("server", `sync: _bulk_docs: ${String(x.id)}: ${String(x.error)}`);
    return docs.length;
  }
}

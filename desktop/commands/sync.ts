// `petmem sync` and `petmem restore`: one replication both ways with a
// CouchDB-compatible server (docs/SYNC.md), through the device's own
// replicator (src/sync) and its HTTP module (src/net/http.ts on host-sim's
// `http`, with the device's limits). Prints one JSON line.

import fs from "node:fs";
import crypto from "node:crypto";
import { DATA, UsageError, Failure, type Command, type Context } from "../command.js";
import { openHost, checkDataDir } from "../host.js";
import { driveClock } from "./serve.js";
import { holdsMemory } from "../../src/backup/import.js";
import { sync, SyncError, type SyncReport } from "../../src/sync/replicate.js";
import type { Endpoint } from "../../src/sync/couch.js";
import { request } from "../../src/net/http.js";

export interface Remote {
  ep: Endpoint;
  db: string;
  shown: string; // the URL without its password, for messages
}

// The CA certificate of --ca FILE (PEM or DER) as DER bytes.
export function readCa(file: string): ArrayBuffer {
  let b: Buffer;
  try {
    b = fs.readFileSync(file);
  } catch (e) {
    throw new UsageError(`--ca ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = b.toString("latin1");
  const m = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(text);
  const der = m ? Buffer.from(m[1].replace(/\s+/g, ""), "base64") : b;
  try {
    new crypto.X509Certificate(der);
  } catch {
    throw new UsageError(`--ca ${file}: not a certificate (PEM or DER)`);
  }
  return der.buffer.slice(der.byteOffset, der.byteOffset + der.length) as ArrayBuffer;
}

// http[s]://[user:password@]host[:port]/[prefix/]database
export function parseRemote(url: string | true | undefined, ca?: string | true): Remote {
  if (typeof url !== "string" || !url) throw new UsageError("--remote URL is needed: http[s]://[user:password@]host[:port]/database");
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`--remote: ${JSON.stringify(url)} is not a URL: http://[user:password@]host[:port]/database`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new UsageError(`--remote: http://… or https://…, not ${u.protocol}`);
  if (ca !== undefined && u.protocol !== "https:") throw new UsageError("--ca is for an https:// remote");
  if (ca === true) throw new UsageError("--ca FILE: the CA certificate (PEM or DER) the server's certificate must lead to");
  const parts = u.pathname.split("/").filter((x) => x);
  if (!parts.length) throw new UsageError("--remote: the URL must end with the owner's database: http://host:5984/DATABASE");
  const db = decodeURIComponent(parts[parts.length - 1]);
  if (!/^[a-z][a-z0-9_$()+/-]*$/.test(db) || db.length > 200) throw new UsageError(`--remote: ${JSON.stringify(db)} is not a CouchDB database name (lowercase letter first, then a-z 0-9 _$()+-/)`);
  if (u.search || u.hash) throw new UsageError("--remote: no ?query or #fragment in the URL");
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  const ep: Endpoint = { host, port: u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80 };
  // TLS as the device speaks it: the certificate must lead to --ca (else the system's CAs) and name the host
  if (u.protocol === "https:") ep.tls = typeof ca === "string" ? { ca: readCa(ca) } : {};
  if (parts.length > 1) ep.prefix = "/" + parts.slice(0, -1).join("/");
  if (u.username) ep.auth = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  const shown = `${u.protocol}//${u.username ? decodeURIComponent(u.username) + "@" : ""}${u.host}${u.pathname}`;
  return { ep, db, shown };
}

const REMOTE = { name: "--remote", value: "URL", help: "the owner's database: http[s]://[user:password@]host[:port]/database" };
const CA = { name: "--ca", value: "FILE", help: "for https: the CA certificate (PEM or DER) the server's certificate must lead to" };
const TRASH = { name: "--trash", help: "also the memory.trash scope: upload the trash to DATABASE_trash, then clear it here" };

function line(r: SyncReport): string {
  return JSON.stringify({ pushed: r.pushed, pulled: r.pulled, conflicts: r.conflicts, rejected: r.rejected, checkpoint: r.checkpoint }) + "\n";
}

async function run(ctx: Context, data: string, restore: boolean): Promise<void> {
  const remote = parseRemote(ctx.opts.remote, ctx.opts.ca as string | true | undefined);
  const host = openHost({ data, command: restore ? "restore" : "sync", mustExist: !restore });
  try {
    if (restore) {
      const held = holdsMemory(host.booted);
      if (held) throw new Failure(`--data ${data}: this pet already holds memory (${held}): restore only into a new folder; \`petmem sync\` merges instead`);
    }
    const started = Date.now();
    let r: SyncReport;
    const stopClock = driveClock(host, 1); // the device's timers (HTTP timeouts) run in real time
    try {
      r = await sync(host.booted, { transport: request, remote: remote.ep, db: remote.db, trash: ctx.opts.trash === true, restore });
    } catch (e) {
      if (e instanceof SyncError) throw new Failure(`${remote.shown}: ${e.message}${e.code === "net" && e.message.indexOf("TLS:") < 0 ? " (run it again: it goes on from the last checkpoint)" : ""}`);
      throw e;
    } finally {
      stopClock();
    }
    ctx.progress(`${restore ? "restore" : "sync"}: ${r.requests} requests, ${r.sent} bytes sent, ${r.received} received, ${r.rejected} refused, ${r.trashCleared} trash cleared, ${Date.now() - started} ms`);
    ctx.out(line(r));
  } finally {
    host.close();
  }
}

export const syncCmd: Command = {
  name: "sync",
  summary: "replicate the pet's memory both ways with a CouchDB-compatible server",
  usage: "sync --remote URL [--ca FILE] [--trash] [--data DIR]",
  options: [REMOTE, CA, TRASH, DATA],
  details: [
    "One replication both ways (docs/SYNC.md): the server's changes since the last checkpoint are",
    "applied through the pet's own rules, then the pet's changes are pushed. Prints one JSON line:",
    '{"pushed":N,"pulled":N,"conflicts":N,"rejected":N,"checkpoint":"SEQ"} (rejected: documents of the server refused, each with its reason on stderr); a second run with nothing new gives 0 and 0.',
    "A cut connection exits 1; running it again goes on from the last checkpoint, losing nothing.",
    "Credentials are used for this run only; nothing but a hash of the server's address is kept.",
  ].join("\n"),
  async run(ctx) {
    await run(ctx, (ctx.opts.data as string) ?? ".petmem", false);
  },
};

export const restoreCmd: Command = {
  name: "restore",
  summary: "bring an owner's memory from a CouchDB-compatible server onto a new pet",
  usage: "restore --remote URL [--ca FILE] --data NEWDIR",
  options: [REMOTE, CA, { ...DATA, default: undefined, help: "the new pet's data folder (empty or new)" }],
  details: "The folder must hold no memory yet. Prints the same JSON line as sync.",
  async run(ctx) {
    const data = ctx.opts.data;
    if (typeof data !== "string") throw new UsageError("--data NEWDIR is needed: the new pet's folder");
    checkDataDir(data);
    // a folder with a pet in it is refused unless that pet holds no memory
    await run(ctx, data, true);
  },
};

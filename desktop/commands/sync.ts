// `petmem sync` and `petmem restore`: one replication both ways with a
// CouchDB-compatible server (docs/SYNC.md), through the device's own
// replicator (src/sync) and its HTTP module (src/net/http.ts on host-sim's
// `http`, with the device's limits). Prints one JSON line.

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

// http://[user:password@]host[:port]/[prefix/]database
export function parseRemote(url: string | true | undefined): Remote {
  if (typeof url !== "string" || !url) throw new UsageError("--remote URL is needed: http://[user:password@]host[:port]/database");
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`--remote: ${JSON.stringify(url)} is not a URL: http://[user:password@]host[:port]/database`);
  }
  if (u.protocol === "https:") throw new UsageError("--remote: https is not in the desktop program yet (the device speaks it through the SDK's SecureSocket); use http to a server on this machine or behind a local TLS proxy");
  if (u.protocol !== "http:") throw new UsageError(`--remote: http://… , not ${u.protocol}`);
  const parts = u.pathname.split("/").filter((x) => x);
  if (!parts.length) throw new UsageError("--remote: the URL must end with the owner's database: http://host:5984/DATABASE");
  const db = decodeURIComponent(parts[parts.length - 1]);
  if (!/^[a-z][a-z0-9_$()+/-]*$/.test(db) || db.length > 200) throw new UsageError(`--remote: ${JSON.stringify(db)} is not a CouchDB database name (lowercase letter first, then a-z 0-9 _$()+-/)`);
  if (u.search || u.hash) throw new UsageError("--remote: no ?query or #fragment in the URL");
  const ep: Endpoint = { host: u.hostname, port: u.port ? Number(u.port) : 80 };
  if (parts.length > 1) ep.prefix = "/" + parts.slice(0, -1).join("/");
  if (u.username) ep.auth = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  const shown = `http://${u.username ? decodeURIComponent(u.username) + "@" : ""}${u.host}${u.pathname}`;
  return { ep, db, shown };
}

const REMOTE = { name: "--remote", value: "URL", help: "the owner's database: http://[user:password@]host[:port]/database" };
const TRASH = { name: "--trash", help: "also the memory.trash scope: upload the trash to DATABASE_trash, then clear it here" };

function line(r: SyncReport): string {
  return JSON.stringify({ pushed: r.pushed, pulled: r.pulled, conflicts: r.conflicts, rejected: r.rejected, checkpoint: r.checkpoint }) + "\n";
}

async function run(ctx: Context, data: string, restore: boolean): Promise<void> {
  const remote = parseRemote(ctx.opts.remote);
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
      if (e instanceof SyncError) throw new Failure(`${remote.shown}: ${e.message}${e.code === "net" ? " (run it again: it goes on from the last checkpoint)" : ""}`);
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
  usage: "sync --remote URL [--trash] [--data DIR]",
  options: [REMOTE, TRASH, DATA],
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
  usage: "restore --remote URL --data NEWDIR",
  options: [REMOTE, { ...DATA, default: undefined, help: "the new pet's data folder (empty or new)" }],
  details: "The folder must hold no memory yet. Prints the same JSON line as sync.",
  async run(ctx) {
    const data = ctx.opts.data;
    if (typeof data !== "string") throw new UsageError("--data NEWDIR is needed: the new pet's folder");
    checkDataDir(data);
    // a folder with a pet in it is refused unless that pet holds no memory
    await run(ctx, data, true);
  },
};

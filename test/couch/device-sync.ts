// What the pouchdb-server tests (couch-sync, couch-pouch) share: a sync run
// with the device's clock following real time (its HTTP timeouts are device
// timers), and what a database serves in the shape of sync.scn's held().

import type { SimDevice } from "../../host-sim/device";
import type { Booted } from "../../src/app/boot";
import { request } from "../../src/net/http";
import { sync, type SyncOptions, type SyncReport } from "../../src/sync/replicate";
import { bodyOf, hashOf } from "../../src/sync/docs";

export async function syncAt(port: number, timeout: number, dev: SimDevice, b: Booted, o: Partial<SyncOptions> & { db: string }): Promise<SyncReport> {
  dev.install();
  const start = Date.now(), virt = dev.clock.now;
  const t = setInterval(() => dev.clock.advanceTo(virt + (Date.now() - start)), 5);
  try {
    return await sync(b, { transport: request, remote: { host: "127.0.0.1", port }, limits: { timeout }, ...o });
  } finally {
    clearInterval(t);
    dev.clock.advanceTo(virt + (Date.now() - start));
  }
}

// id → body hash, and episode contents, and the ids with open conflicts.
export async function served(url: string, db: string): Promise<{ docs: Map<string, number>; episodes: string[]; conflicts: string[] }> {
  const r = await fetch(`${url}/${db}/_all_docs?include_docs=true&conflicts=true`);
  const j = (await r.json()) as { rows: { id: string; doc: Record<string, unknown> }[] };
  const docs = new Map<string, number>();
  const episodes: string[] = [];
  const conflicts: string[] = [];
  for (const row of j.rows) {
    if (!row.doc) continue;
    if (row.doc._conflicts) conflicts.push(row.id);
    if (row.id.startsWith("episode:")) episodes.push(String(row.doc.content));
    else if (!row.id.startsWith("digest:") && !row.id.startsWith("_")) docs.set(row.id, hashOf(bodyOf(row.doc)));
  }
  return { docs, episodes: episodes.sort(), conflicts };
}

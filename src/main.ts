// petmem on the device: checks the archive (finishing any compaction a power
// cut interrupted), boots the memory (every store read, damaged copies set
// aside and repaired from the other copy, the boot counted), settles records
// a cut left both in NVS and in the archive, starts the 10-minute reminder
// timer and the archive's early-morning maintenance, and registers the MCP
// tool `memory` (src/app/boot.ts). The companion's link to its server hands
// each MCP payload to `service.handle(message)` and sends back what it
// returns (see docs/DEVICE.md, "Wiring into a companion firmware").
//
// The device always boots: whatever the archive does, the NVS memory is
// served, and one trace line says what was repaired, set aside or lost.

import config from "mc/config";
import { fromBase64 } from "./net/http";
import { bootDevice } from "./app/boot";
import { request } from "./net/http";
import { SyncRunner } from "./sync/runner";
import type { Service } from "./app/service";

const booted = bootDevice();
export const service: Service = booted.service;
(globalThis as unknown as { petmem: Service }).petmem = service;
trace(`petmem: ${booted.line}\n`);

// Sync with the owner's CouchDB-compatible database (docs/SYNC.md) when the
// build's configuration names one: `"config": {"sync": {"host", "port", "db",
// "user", "password", "prefix", "tls", "ca", "trash", "every", "quiet", "first"}}` in the
// manifest (or on mcconfig's command line). `tls: true` speaks TLS (the SDK's
// SecureSocket); `ca` is the CA certificate the server's certificate must
// lead to, in base64 (the lines of its PEM between BEGIN and END). The credentials are
// in the firmware image, which flash encryption protects; they are never
// written to NVS.
const sc = (config as unknown as { sync?: { host?: string; port?: number; db?: string; user?: string; password?: string; prefix?: string; tls?: boolean; ca?: string; trash?: boolean; every?: number; quiet?: number; first?: number } }).sync;
if (sc && sc.host && sc.db) {
  const secure = sc.tls === true || sc.ca !== undefined;
  const runner = new SyncRunner(booted, {
    transport: request,
    remote: { host: sc.host, port: sc.port ?? (secure ? 6984 : 5984), auth: sc.user ? `${sc.user}:${sc.password ?? ""}` : undefined, prefix: sc.prefix, tls: secure ? { ca: sc.ca ? fromBase64(sc.ca) : undefined } : undefined },
    db: sc.db,
    trash: sc.trash === true,
    every: sc.every,
    quiet: sc.quiet,
  });
  runner.start(sc.first);
  trace(`petmem: sync with ${secure ? "https" : "http"}://${sc.host}:${sc.port ?? (secure ? 6984 : 5984)}/${sc.db} every ${Math.round(runner.every / 60000)} min\n`);
}

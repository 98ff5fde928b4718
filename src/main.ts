// petmem on the device: checks the archive (finishing any compaction a power
// cut interrupted), boots the memory (stores load lazily from NVS), settles
// records a cut left both in NVS and in the archive, starts the 10-minute
// reminder timer and the archive's early-morning maintenance, and registers
// the MCP tool `memory`. The companion's link to its server hands each MCP
// payload to `service.handle(message)` and sends back what it returns (see
// README, "Wiring into a companion firmware").

import { now, isValid } from "./time/clock";
import { Service } from "./app/service";
import { Archive } from "./archive/archive";
import { Archiver } from "./archive/archiver";
import { startMaintenance } from "./archive/maintenance";

const archive = new Archive();
const check = archive.check();
export const service = new Service({ archive });
const archiver = new Archiver(service.memory, archive);
archiver.resolveAtBoot();
archiver.attach();
service.schedules.onEvict = (e) => void archive.append("event", [e]);
startMaintenance(archiver);
service.start();
(globalThis as unknown as { petmem: Service }).petmem = service;

trace(`petmem: boot at ${isValid() ? new Date(now()).toISOString() : "unset clock"}\n`);
trace(`petmem: archive ${JSON.stringify({ facts: check.fact.records, moments: check.moment.records, events: check.event.records, bytes: check.footprint, budget: check.budget })}\n`);

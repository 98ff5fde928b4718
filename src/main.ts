// petmem on the device: checks the archive (finishing any compaction a power
// cut interrupted), boots the memory (every store read, damaged copies set
// aside and repaired from the other copy, the boot counted), settles records
// a cut left both in NVS and in the archive, starts the 10-minute reminder
// timer and the archive's early-morning maintenance, and registers the MCP
// tool `memory` (src/app/boot.ts). The companion's link to its server hands
// each MCP payload to `service.handle(message)` and sends back what it
// returns (see README, "Wiring into a companion firmware").
//
// The device always boots: whatever the archive does, the NVS memory is
// served, and one trace line says what was repaired, set aside or lost.

import { bootDevice } from "./app/boot";
import type { Service } from "./app/service";

const booted = bootDevice();
export const service: Service = booted.service;
(globalThis as unknown as { petmem: Service }).petmem = service;
trace(`petmem: ${booted.line}\n`);

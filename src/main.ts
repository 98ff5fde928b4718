// petmem on the device: boots the memory (stores load lazily from NVS), checks
// the archive, starts the 10-minute reminder timer and registers the MCP tool
// `memory`. The companion's link to its server hands each MCP payload to
// `service.handle(message)` and sends back what it returns (see README,
// "Wiring into a companion firmware").

import { now, isValid } from "./time/clock";
import { Service } from "./app/service";

export const service = new Service();
service.start();
(globalThis as unknown as { petmem: Service }).petmem = service;

trace(`petmem: boot at ${isValid() ? new Date(now()).toISOString() : "unset clock"}\n`);

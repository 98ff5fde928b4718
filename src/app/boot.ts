// The device's boot sequence (src/main.ts), as a function so that tests can
// run it against an archive that fails. The device always boots: whatever the
// archive does (a constructor or check that throws, a file system that
// fails), the NVS memory is served without it, and one trace line says what
// was repaired, set aside or lost.

import { now, isValid } from "../time/clock";
import { Service, type ServiceOptions } from "./service";
import { Archive, type CheckReport } from "../archive/archive";
import { Archiver } from "../archive/archiver";
import { startMaintenance, type Maintenance } from "../archive/maintenance";

export interface Booted {
  service: Service;
  archive: Archive | undefined; // undefined when it could not be checked: NVS memory only
  archiver: Archiver | undefined;
  maintenance: Maintenance | undefined;
  line: string; // the boot trace line (without "petmem: " and newline)
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function rethrowCut(e: unknown): void {
  if (e instanceof Error && e.name === "PowerCut") throw e;
}

export function bootDevice(makeArchive: () => Archive = () => new Archive(), opts: Omit<ServiceOptions, "archive"> = {}): Booted {
  let archive: Archive | undefined;
  let check: CheckReport | undefined;
  let note = "";
  try {
    archive = makeArchive();
    check = archive.check(); // puts a twin in place of a segment a cut left unreadable, learns the open segments
  } catch (e) {
    rethrowCut(e);
    archive = undefined;
    note = `archive unavailable (${message(e)})`;
  }
  const service = new Service({ ...opts, archive });
  let maintenance: Maintenance | undefined;
  let archiver: Archiver | undefined;
  if (archive) {
    const a = archive;
    try {
      archiver = new Archiver(service.memory, a);
      // records a cut left both in NVS and in the archive leave NVS; what the
      // archive could not answer stays in NVS and is named on the boot line
      const settled = archiver.resolveAtBoot();
      if (settled.errors?.length) note = `archive set aside in part (${settled.errors.join("; ")})`;
      archiver.attach();
      // archived first, or the append throws and the schedule is refused: never lost
      service.schedules.onEvict = (e) => void a.append("event", [e]);
      maintenance = startMaintenance(archiver, { busy: () => service.listener.active });
    } catch (e) {
      rethrowCut(e);
      // serve NVS memory without the archive's moves (recall may still answer)
      service.memory.overflow = undefined;
      service.schedules.onEvict = undefined;
      maintenance?.stop();
      maintenance = undefined;
      note = `archive set aside (${message(e)})`;
    }
  }
  try {
    service.start();
  } catch (e) {
    rethrowCut(e);
    note += `${note ? "; " : ""}start failed (${message(e)})`;
  }
  if (check && !note) note = `archive ${check.fact.segments + check.moment.segments + check.event.segments + check.digest.segments} segments, ${check.used} of ${check.total} bytes in use`;
  const line = `${service.bootLine()}; ${note}; clock ${isValid() ? new Date(now()).toISOString() : "unset"}`;
  return { service, archive, archiver, maintenance, line };
}

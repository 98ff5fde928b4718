// The device's boot sequence (src/main.ts), as a function so that tests can
// run it against an archive that fails. The device always boots: whatever the
// archive does (a constructor or check that throws, a file system that
// fails), the NVS memory is served without it, and one trace line says what
// was repaired, set aside or lost.

import { now, isValid } from "../time/clock";
import { Service, type ServiceOptions } from "./service";
import { Archive, type CheckReport } from "../archive/archive";
import { Archiver } from "../archive/archiver";
import { startMaintenance, IDLE_MS, type Maintenance } from "../archive/maintenance";
import Timer from "timer";
import { Episodes } from "../episode/episodes";
import { foldOf } from "../recall/fold";
import { EpisodeStore } from "../episode/store";
import { presetOf, applyTimeZone } from "../config/presets";

export interface Booted {
  service: Service;
  episodes: Episodes | undefined; // undefined when the episode files cannot be used
  episodeTimer: ReturnType<typeof Timer.repeat> | undefined; // their upkeep when no archive maintenance runs it
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

export interface BootOptions extends Omit<ServiceOptions, "archive"> {
  // the episodes on the storage partition (src/episode; default: src/episode/store.ts
  // under the file root, cap and recall size from the preset in force);
  // returning undefined: none on this device
  makeEpisodes?: (service: Service) => Episodes | undefined;
}

export function bootDevice(makeArchive: () => Archive = () => new Archive(), opts: BootOptions = {}): Booted {
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
  const { makeEpisodes = (s: Service) => new Episodes(new EpisodeStore(), { limits: () => presetOf(s.memory) }), ...serviceOpts } = opts;
  const service = new Service({ ...serviceOpts, archive });
  applyTimeZone(service.memory); // before anything reads a local date
  // Episodes: their files are learnt lazily (a damaged or missing file is
  // noted by the store at its first use, and a call then says it failed); a
  // constructor that throws leaves the device without episodes, never unbooted.
  let episodes: Episodes | undefined;
  let epNote = "";
  try {
    episodes = makeEpisodes(service);
  } catch (e) {
    rethrowCut(e);
    epNote = `episodes unavailable (${message(e)})`;
  }
  service.tool.episodes = episodes;
  const episodeStep = episodes ? () => (episodes as Episodes).step() : undefined;
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
      maintenance = startMaintenance(archiver, { busy: () => service.listener.active, extra: episodeStep });
      // forgotten episodes are folded into their month's digests (issue 25 item 6)
      if (episodes) episodes.fold = (eps) => void a.foldEpisodes(eps.map(foldOf));
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
  // without the archive's maintenance, the episodes' upkeep has its own idle timer
  let episodeTimer: ReturnType<typeof Timer.repeat> | undefined;
  if (episodeStep && !maintenance)
    episodeTimer = Timer.repeat(() => {
      if (service.listener.active) return;
      try {
        episodeStep();
      } catch (e) {
        rethrowCut(e);
        trace(`episode: upkeep failed (${message(e)})\n`);
      }
    }, IDLE_MS);
  try {
    service.start();
  } catch (e) {
    rethrowCut(e);
    note += `${note ? "; " : ""}start failed (${message(e)})`;
  }
  if (check && !note) note = `archive ${check.fact.segments + check.moment.segments + check.event.segments + check.digest.segments} segments, ${check.used} of ${check.total} bytes in use`;
  if (epNote) note += `${note ? "; " : ""}${epNote}`;
  const line = `${service.bootLine()}; ${note}; clock ${isValid() ? new Date(now()).toISOString() : "unset"}`;
  return { service, episodes, episodeTimer, archive, archiver, maintenance, line };
}

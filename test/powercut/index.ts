// Every workload the fault sweeps run (npm run powercut, test/powercut.test.ts,
// and bounded in both test lanes by test/scenarios/powercut.scn.ts).
import type { Workload } from "./harness";
import { toolWorkload } from "./tool.workload";
import { scheduleWorkload } from "./schedule.workload";
import { archiveWorkload } from "./archive.workload";
import { listenWorkload } from "./listen.workload";
import { migrateWorkload } from "./migrate.workload";
import { episodeWorkload } from "./episode.workload";
import { recodeWorkload } from "./recode.workload";
import { updateWorkload } from "./update.workload";

export const workloads: Workload[] = [toolWorkload, scheduleWorkload, archiveWorkload, listenWorkload, migrateWorkload, episodeWorkload, recodeWorkload];

// Workloads too long for the test lanes (a case takes seconds): only
// `npm run powercut` (tools/powercut.ts) sweeps them, bounded by their own
// `sweep`; not in --quick.
export const longWorkloads: Workload[] = [updateWorkload];

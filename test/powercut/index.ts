// Every power-cut workload, swept by `npm run powercut` and (bounded) by the test lanes.
import type { Workload } from "./harness";
import { nvsWorkload } from "./nvs.workload";
import { scheduleWorkload } from "./schedule.workload";
import { archiveWorkload } from "./archive.workload";
import { pendingWorkload } from "./pending.workload";

export const workloads: Workload<never>[] = [nvsWorkload as Workload<never>, scheduleWorkload as Workload<never>, archiveWorkload as Workload<never>, pendingWorkload as Workload<never>];

// Every power-cut workload, swept by `npm run powercut` and (bounded) by the test lanes.
import type { Workload } from "./harness";
import { nvsWorkload } from "./nvs.workload";

export const workloads: Workload<never>[] = [nvsWorkload as Workload<never>];

// A bounded fault sweep under the absolute oracle inside each lane (the full
// sweep: npm run powercut; every kind: test/powercut.test.ts).
import { sweepKind } from "../powercut/harness";
import { workloads } from "../powercut/index";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = [
  {
    name: "no fault: every acknowledged record is there after a reboot, nothing else",
    run() {
      const r = sweepKind("none", workloads);
      deepEqual(r.failures, []);
      ok(r.checked > 250, `checked ${r.checked}`);
    },
  },
  ...workloads.map((w) => ({
    name: `${w.name}: power cuts at 8 writes spread over the workload lose nothing acknowledged`,
    run() {
      const r = sweepKind("power_cut", [w], { maxCases: 8, tears: "half" as const });
      ok(r.cases === 8, `cases ${r.cases}`);
      deepEqual(r.failures, []);
      equal(r.acked_lost + r.boot_failures + r.wrong_replies + r.crashes, 0);
    },
  })),
];

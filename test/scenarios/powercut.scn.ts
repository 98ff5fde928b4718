// A bounded fault sweep under the absolute oracle inside each lane (the full
// sweep: npm run powercut; every kind: test/powercut.test.ts). Each workload
// runs once without a fault (that run also counts the writes the cuts are
// spread over), then with a power cut at 8 of its writes.
import { sweepKind } from "../powercut/harness";
import { workloads } from "../powercut/index";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = workloads.map((w) => ({
  name: `${w.name}: no fault: every acknowledged record is there after a reboot, nothing else; power cuts at 8 writes spread over the workload lose nothing acknowledged`,
  run() {
    const clean = sweepKind("none", [w]);
    deepEqual(clean.failures, []);
    equal(clean.cases, 1);
    ok(clean.checked > 0, `no fault: checked ${clean.checked}`);
    const r = sweepKind("power_cut", [w], { maxCases: 8, tears: "half" as const });
    ok(r.cases === 8, `cases ${r.cases}`);
    deepEqual(r.failures, []);
    equal(r.acked_lost + r.boot_failures + r.wrong_replies + r.crashes, 0);
  },
}));

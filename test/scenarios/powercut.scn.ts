// A bounded power-cut sweep inside each lane (the full sweep: npm run powercut).
import { sweep } from "../powercut/harness";
import { workloads } from "../powercut/index";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = workloads.map((w) => ({
  name: `${w.name}: every 13th cut point recovers`,
  run() {
    const r = sweep(w, { stride: 13 }); // 13, not 7: the third copy (src/nvs/mirror.ts) added SPIFFS writes; keeps the XS lane under its 60 s per scenario
    ok(r.cut_points > 20, `cut points ${r.cut_points}`);
    deepEqual(r.failures, []);
    equal(r.recovered, r.cut_points);
  },
}));

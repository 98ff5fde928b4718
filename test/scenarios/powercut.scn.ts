// A bounded power-cut sweep inside each lane (the full sweep: npm run powercut).
import { sweep } from "../powercut/harness";
import { workloads } from "../powercut/index";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = workloads.map((w) => ({
  name: `${w.name}: every 21st cut point recovers`,
  run() {
    // NVS programs and erases are byte-level since nvs.bin: a flush is about 3
    // times as many flash operations as before, so 21 keeps the XS lane's count
    const r = sweep(w, { stride: 21 });
    ok(r.cut_points > 20, `cut points ${r.cut_points}`);
    deepEqual(r.failures, []);
    equal(r.recovered, r.cut_points);
  },
}));

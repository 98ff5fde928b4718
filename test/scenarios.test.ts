import "../host-sim/trace";
import { allScenarios } from "./scenarios/index";

for (const group of allScenarios)
  describe(`scenario: ${group.file}`, () => {
    for (const s of group.scenarios) it(s.name, () => s.run());
  });

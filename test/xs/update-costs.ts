// Writes test/xs/costs.ts from the output of XS-lane runs (npm test's, or
// `npx tsx test/xs/run.ts`, whole or with --grep): each `ok - file: name # 12.3 s`
// line gives a scenario's seconds, a later log's over an earlier one's;
// scenarios of a second or more that the lane still has are kept (the rest
// take costs.ts's DEFAULT). The shards use the table only to split the lane
// into parts of about equal time (test/xs/harness.ts); a stale or missing
// entry costs balance, never a scenario.
//
// Usage: npx tsx test/xs/update-costs.ts LOG [LOG...]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { allScenarios } from "../scenarios/index";

const here = path.dirname(fileURLToPath(import.meta.url));
const logs = process.argv.slice(2);
if (!logs.length) {
  console.error("usage: tsx test/xs/update-costs.ts LOG [LOG...]");
  process.exit(2);
}
const costs = new Map<string, number>();
for (const log of logs)
  for (const line of fs.readFileSync(log, "utf8").split("\n")) {
    const m = /^(?:not )?ok - (.*) # (\d+(?:\.\d+)?) s$/.exec(line);
    if (!m) continue;
    // a failed scenario's line carries its message after the name: keep passing ones only
    if (line.startsWith("not ")) continue;
    costs.set(m[1], Number(m[2]));
  }
const names = new Set(allScenarios.flatMap((f) => f.scenarios.map((s) => `${f.file}: ${s.name}`)));
const kept = [...costs].filter(([k, s]) => s >= 1 && names.has(k)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
const body = kept.map(([k, s]) => `  ${JSON.stringify(k)}: ${s},`).join("\n");
const out = `// Measured seconds of the XS lane's slower scenarios (keyed \`file: name\` as the
// lane prints them), for splitting the lane into shards of about equal time
// (test/xs/harness.ts). Written by test/xs/update-costs.ts from npm test's
// output; ${kept.length} scenarios of a second or more, the others take DEFAULT.
export const DEFAULT = 0.1;
export const COSTS: Record<string, number> = {
${body}
};
`;
fs.writeFileSync(path.join(here, "costs.ts"), out);
console.log(`test/xs/costs.ts: ${kept.length} of ${costs.size} scenarios, ${kept.reduce((s, [, v]) => s + v, 0).toFixed(1)} s of ${[...costs.values()].reduce((s, v) => s + v, 0).toFixed(1)} s`);

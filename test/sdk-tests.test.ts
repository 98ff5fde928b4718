// The Moddable SDK's own preference and file tests against host-sim
// (tools/sdk-tests.ts). CI has no SDK: without MODDABLE the test is skipped.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const sdk = process.env.MODDABLE;

describe("host-sim keeps the SDK's contract", () => {
  for (const engine of ["node", "xs"])
    it(sdk ? `the SDK's preference and file tests pass on host-sim in ${engine} (${sdk})` : `SKIPPED: set MODDABLE to a Moddable SDK folder to run its preference and file tests on host-sim in ${engine}`, function () {
      if (!sdk) this.skip();
      this.timeout(180000);
      const r = spawnSync(process.execPath, ["--import", "tsx", "tools/sdk-tests.ts", "--moddable", sdk, ...(engine === "xs" ? ["--xs"] : [])], { encoding: "utf8" });
      const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { test?: string; result?: string; error?: string; summary?: { pass: number; fail: number } });
      const failed = lines.filter((l) => l.result === "fail");
      assert.deepEqual(failed, [], r.stderr);
      const summary = lines[lines.length - 1].summary;
      assert.ok(summary && summary.pass >= 4 && summary.fail === 0, r.stdout);
      assert.equal(r.status, 0, r.stderr);
    });
});

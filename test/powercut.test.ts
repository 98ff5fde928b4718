import assert from "node:assert/strict";
import Preference from "preference";
import "../host-sim/trace";
import { sweep, compare, type Workload } from "./powercut/harness";
import { workloads } from "./powercut/index";
import { execFileSync } from "node:child_process";

describe("power-cut sweep", function () {
  this.timeout(400000); // byte-level NVS: about 3 times the cut points of the item-level model

  for (const w of workloads)
    it(`${w.name}: every cut point recovers with nothing acknowledged lost`, () => {
      const r = sweep(w);
      assert.ok(r.cut_points >= 200, `only ${r.cut_points} cut points`);
      assert.deepEqual(r.failures, []);
      assert.equal(r.recovered, r.cut_points);
      assert.equal(r.acked_lost + r.torn_records + r.duplicates + r.boot_failures, 0);
    });

  it("catches a store that rewrites its key in place (the sweep can fail)", () => {
    // the naive approach: one key per store, rewritten with Preference.set
    const naive: Workload<string[]> = {
      name: "naive",
      script(_dev, ack, inflight) {
        let list: string[] = [];
        for (let i = 0; i < 10; i++) {
          list = [...list, "r" + i];
          inflight(list);
          Preference.set("naive", "list", JSON.stringify(list));
          ack(list);
        }
      },
      verify(_dev, acked, inflight) {
        const v = Preference.get("naive", "list");
        return compare(typeof v === "string" ? JSON.parse(v) : [], acked ?? [], inflight ?? acked ?? []);
      },
    };
    const r = sweep(naive);
    assert.ok(r.acked_lost > 0, "erase-then-write loses acknowledged records");
  });

  it("compare: old or new is recovery; a mix is torn; missing shared records are lost", () => {
    assert.deepEqual(compare(["a"], ["a"], ["a", "b"]), { ackedLost: 0, torn: 0, duplicates: 0 });
    assert.deepEqual(compare(["a", "b"], ["a"], ["a", "b"]), { ackedLost: 0, torn: 0, duplicates: 0 });
    assert.equal(compare(["a", "x"], ["a"], ["a", "b"]).torn, 1);
    assert.equal(compare([], ["a"], ["a", "b"]).ackedLost, 1);
    assert.equal(compare(["a", "a"], ["a"], ["a", "b"]).duplicates, 1);
  });

  it("npm run nvs-usage: every store full, two copies, and the peak stay under 75% of the usable space", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "tools/nvs-usage.ts"], { encoding: "utf8" });
    const j = JSON.parse(out.trim().split("\n").pop()!);
    assert.equal(j.partition_bytes, 49152);
    assert.ok(j.peak_percent_of_usable <= 75, `peak ${j.peak_percent_of_usable}% of usable`);
    assert.ok(j.nvs_peak_bytes > j.nvs_bytes_used, "the peak counts both copies during a swap");
    assert.ok(j.nvs_peak_bytes < j.usable_bytes);
    assert.equal(j.record_bytes.Event, 106);
  });
});

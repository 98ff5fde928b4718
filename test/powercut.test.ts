import assert from "node:assert/strict";
import Preference from "preference";
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { sweepKind, runCase, FAULT_KINDS, type Workload, type KindResult } from "./powercut/harness";
import { workloads } from "./powercut/index";
import { expectedToFail, EXPECTED_TO_FAIL } from "./powercut/expected";
import { Ai } from "./powercut/device";
import { Service } from "../src/app/service";
import { DOMAINS } from "../src/nvs/store";
import { File } from "file";
import config from "mc/config";
import { check, blankVerdict } from "./powercut/oracle";
import { execFileSync } from "node:child_process";

// Bounded here (about half a minute); `npm run powercut` sweeps every write.
const BOUNDED = { stride: 7, seeds: 6, ops: 6, maxCases: 70 };

describe("fault sweeps under the absolute oracle", function () {
  // a hang guard, not a speed target: the power_cut sweep takes about 60 s
  // alone on a 2-core machine, and npm test runs it beside the XS lane's two shards
  this.timeout(300000);
  // the device traces every fault it meets (maintenance failed, …): thousands of lines
  before(() => setTraceSink(() => {}));
  after(() => setTraceSink((t) => void process.stderr.write(t)));

  it("no fault: after a reboot every acknowledged record of every workload is there, nothing else", () => {
    const r = sweepKind("none", workloads);
    assert.deepEqual(r.failures, []);
    assert.equal(r.cases, workloads.length);
    assert.ok(r.checked > 250, `only ${r.checked} records checked`);
  });

  for (const kind of FAULT_KINDS)
    it(`${kind}: every acknowledged record survives, the device boots, no reply serves damage`, function () {
      // not finalized picks files by name in order: 16 reach the archive's sealed segments (expected.ts)
      const r: KindResult = sweepKind(kind, workloads, kind === "spiffs_not_finalized" ? { ...BOUNDED, seeds: 16 } : BOUNDED);
      if (r.not_modelled) {
        assert.equal(r.cases, 0);
        this.skip(); // host-sim does not model it yet (SimDevice.inject says so)
      }
      // a workload that never touches a partition cannot get its faults (listen and the archive)
      assert.ok(r.injected > 0, `no ${kind} was injected`);
      let listedAndPassing = 0, listed = 0;
      for (const w of workloads) {
        const b = r.by_workload[w.name];
        assert.ok(b.cases > 0, `${w.name}: no ${kind} case ran`);
        const bad = b.acked_lost + b.boot_failures + b.wrong_replies + b.crashes;
        if (expectedToFail(kind, w.name)) {
          listed++;
          if (!bad) listedAndPassing++;
          continue;
        }
        assert.equal(bad, 0, `${w.name}: ${JSON.stringify(b)}\n${r.failures.filter((f) => f.startsWith(w.name + " ")).join("\n")}`);
      }
      // listed as expected to fail and passing now: say so (the integrator removes it from test/powercut/expected.ts)
      if (listed && listedAndPassing === listed) {
        this.test!.title += ` (passes now: remove it from EXPECTED_TO_FAIL)`;
        this.skip();
      }
      if (listed) this.skip(); // known to fail: test/powercut/expected.ts says why
    });

  it("the expected-to-fail list names only fault kinds", () => {
    for (const k of Object.keys(EXPECTED_TO_FAIL)) assert.ok((FAULT_KINDS as readonly string[]).includes(k.split("/")[0]), k);
  });

  // The oracle can fail: each defect below is planted without a fault and without src changes.
  describe("the oracle catches", () => {
    const tool = workloads.find((w) => w.name === "tool")!;
    const planted = (plant: (dev: SimDevice, ai: Ai) => void) => {
      const dev = new SimDevice({ now: tool.start }).install();
      const ai = new Ai(dev, tool.boot);
      tool.run(ai);
      plant(dev, ai);
      dev.reboot();
      const v = blankVerdict();
      check(ai, ai.boot(), v);
      return v;
    };

    it("an acknowledged record lost without any fault (a store's every copy gone)", () => {
      const v = planted((dev) => {
        for (const ns of DOMAINS) for (const k of Preference.keys(ns)) if (k.startsWith("goal.")) Preference.delete(ns, k);
        for (const f of dev.spiffs.list()) if (f.name.indexOf("goal") >= 0) File.delete(config.file.root + f.name.slice(1));
      });
      assert.ok(v.ackedLost > 0, JSON.stringify(v));
    });

    it("a record that was never written (served as if whole)", () => {
      const v = planted((_dev, ai) => {
        ai.service.memory.addFact("从来没有人说过的事");
        ai.service.memory.flush();
      });
      assert.ok(v.wrongReplies > 0, JSON.stringify(v));
    });

    it("an acknowledged delete undone, and a record shown twice", () => {
      const dev = new SimDevice({ now: tool.start }).install();
      const ai = new Ai(dev);
      ai.call({ action: "write", type: "fact", content: "会被删除的事" });
      // every copy of memory as it was before the delete (NVS, both namespaces, and the mirror files)
      const nvs = DOMAINS.map((ns) => Preference.keys(ns).map((k) => [ns, k, Preference.get(ns, k)] as const));
      const files = dev.spiffs.list().map((f) => [f.name, dev.spiffs.content(f.name).slice()] as const);
      ai.call({ action: "delete", type: "fact", content: "会被删除的事" });
      for (const ns of DOMAINS) for (const k of Preference.keys(ns)) Preference.delete(ns, k);
      for (const l of nvs) for (const [ns, k, v] of l) Preference.set(ns, k, v as ArrayBuffer);
      for (const f of dev.spiffs.list()) File.delete(config.file.root + f.name.slice(1));
      for (const [name, bytes] of files) dev.spiffs.load(name, bytes);
      dev.reboot();
      const v = blankVerdict();
      const b = ai.boot();
      b.archive!.append("fact", b.service.memory.facts()); // the same fact in the archive too
      check(ai, b, v);
      assert.ok(v.ackedLost > 0, JSON.stringify(v));
      assert.ok(v.wrongReplies > 0, JSON.stringify(v));
    });

    it("a device that does not boot after the reboot", () => {
      // planted: the second boot throws outside everything src/app/boot.ts contains
      const line0 = Service.prototype.bootLine;
      let boots = 0;
      Service.prototype.bootLine = function (this: Service) {
        if (++boots > 1) throw new Error("planted: boot failed");
        return line0.call(this);
      };
      try {
        const w: Workload = { name: "unbootable", start: tool.start, run: (ai) => void ai.call({ action: "write", type: "name", content: "小明" }) };
        const c = runCase(w, "none", { mode: "none" });
        assert.ok(c.bootFailed, JSON.stringify(c));
      } finally {
        Service.prototype.bootLine = line0;
      }
    });
  });

  // The archive's rules (format 2), each broken by hand after a clean run of the archive workload.
  describe("the oracle catches in the archive", () => {
    const arc = workloads.find((w) => w.name === "archive")!;
    const planted = (plant: (dev: SimDevice, names: string[]) => void) => {
      const dev = new SimDevice({ ...arc.device, now: arc.start }).install();
      const bg = arc.prefill!(dev);
      const ai = new Ai(dev, arc.boot);
      for (const b of bg) ai.ledger.background(b.kind, b.key, b.value, b.ts);
      arc.run(ai);
      plant(dev, dev.spiffs.list().map((f) => f.name.slice(1)));
      dev.reboot();
      const v = blankVerdict();
      check(ai, ai.boot(), v);
      return v;
    };
    const drop = (names: string[], re: RegExp) => {
      const gone = names.filter((n) => re.test(n));
      assert.ok(gone.length, `no file matches ${re}`);
      for (const n of gone) assert.ok(File.delete(config.file.root + n), n);
    };

    it("a retired moment whose month has no digest", () => {
      const v = planted((_dev, names) => drop(names, /^d\d{6}\./));
      assert.ok(v.ackedLost > 0 && v.failures.some((f) => /no digest/.test(f)), JSON.stringify(v));
    });

    it("moments leaving newest first (a newer segment gone while an older one stays)", () => {
      const v = planted((_dev, names) => {
        // the newest sealed moment segment (the last one is open), older sealed ones stay
        const segs = names.filter((n) => /^m\d{6}\.jsonl$/.test(n)).sort();
        assert.ok(segs.length >= 3, segs.join(" "));
        drop(names, new RegExp("^" + segs[segs.length - 2].slice(0, 7) + "\\."));
      });
      assert.ok(v.ackedLost > 0 && v.failures.some((f) => /older one is still there/.test(f)), JSON.stringify(v));
    });

    it("a fact gone from the archive (facts are never retired, prefilled ones neither)", () => {
      const v = planted((_dev, names) => drop(names, /^f\d{6}\./));
      assert.ok(v.ackedLost > 0 && v.failures.some((f) => /prefilled/.test(f)), JSON.stringify(v));
    });

    it("a forgotten record back (both tombstone copies gone)", () => {
      const v = planted((_dev, names) => drop(names, /^tomb\.[ab]$/));
      assert.ok(v.ackedLost > 0 && v.failures.some((f) => /acknowledged null/.test(f)), JSON.stringify(v));
    });
  });

  it("npm run powercut prints one line per kind with the issue's fields and a last line with fault_kinds and the totals", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "tools/powercut.ts", "--kind", "none,mount_failure", "--workload", "listen"], { encoding: "utf8" });
    const lines = out.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 3);
    for (const l of lines.slice(0, 2)) for (const k of ["kind", "injected", "acked_lost", "boot_failures", "wrong_replies"]) assert.ok(k in l, `${k} in ${JSON.stringify(l)}`);
    assert.deepEqual(lines.map((l) => l.kind), ["none", "mount_failure", undefined]);
    const last = lines[2];
    assert.deepEqual(last.fault_kinds, [...FAULT_KINDS]);
    for (const k of ["injected", "acked_lost", "boot_failures", "wrong_replies"]) assert.equal(typeof last[k], "number");
    if (lines[1].not_modelled) assert.equal(lines[1].injected, 0);
  });

  it("npm run nvs-usage: every store full and the peak stay under 75% of the usable space, and petmem's peak share is at most 50% of the partition", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "tools/nvs-usage.ts"], { encoding: "utf8" });
    const lines = out.trim().split("\n").map((l) => JSON.parse(l));
    const j = lines[lines.length - 1];
    assert.equal(j.partition_bytes, 49152);
    assert.ok(j.peak_percent_of_usable <= 75, `peak ${j.peak_percent_of_usable}% of usable`);
    // issue 28: at most half of the partition, also beside the firmware's neighbourhood
    assert.ok(j.peak_percent_of_partition <= 50, `peak ${j.peak_percent_of_partition}% of the partition`);
    const n = lines.find((l) => l.neighbourhood);
    assert.ok(n.petmem_peak_percent_of_partition <= 50, JSON.stringify(n));
    assert.equal(n.neighbourhood_grew_until.refused.includes("NOT_ENOUGH_SPACE"), true, "the neighbourhood grows until NVS refuses it");
    assert.equal(n.petmem_flush_when_full, "ok");
    assert.equal(j.per_store.facts.copies, 1);
    assert.equal(j.per_store.profile.copies, 2);
    assert.ok(j.nvs_peak_bytes > j.nvs_bytes_used, "the peak counts both copies during a swap");
    assert.ok(j.nvs_peak_bytes < j.usable_bytes);
    assert.equal(j.record_bytes.Event, 106);
  });
});

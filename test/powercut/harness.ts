// Exhaustive power-cut sweeps. A workload is a deterministic script against
// device code on a fresh simulated device. The sweep first runs it once to
// count its flash writes, then, for every write N (and every tear mode),
// replays it with the power cut at write N, reboots from what is on flash and
// asks the workload to check the result against what had been acknowledged.
// No Node APIs: the same sweep runs in the XS lane.

import { SimDevice } from "../../host-sim/device";
import { PowerCut, tearHalf, tearNone, type Tear } from "../../host-sim/flash";

export interface Verdict {
  ackedLost: number; // acknowledged records missing
  torn: number; // records that are neither the old nor the new version
  duplicates: number; // records present twice
}

export interface Workload<Model> {
  name: string;
  start?: number; // initial wall time
  // Runs the script. It calls ack(model) whenever something became durable
  // (a flush or an archive move returned), and inflight(model) with what it is
  // about to make durable.
  script(dev: SimDevice, ack: (m: Model) => void, inflight: (m: Model) => void): void;
  // After a reboot: boot device code and compare with the last acknowledged
  // model and the model in flight at the cut. Throwing counts as a boot failure.
  verify(dev: SimDevice, acked: Model | undefined, inflight: Model | undefined): Verdict;
}

export interface SweepResult {
  workload: string;
  writes: number;
  cut_points: number;
  recovered: number;
  acked_lost: number;
  torn_records: number;
  duplicates: number;
  boot_failures: number;
  failures: string[]; // the first few, for a human
}

const TEARS: { name: string; tear: Tear }[] = [
  { name: "half", tear: tearHalf },
  { name: "none", tear: tearNone },
];

export function sweep<M>(w: Workload<M>, opts: { maxCuts?: number; stride?: number } = {}): SweepResult {
  const res: SweepResult = { workload: w.name, writes: 0, cut_points: 0, recovered: 0, acked_lost: 0, torn_records: 0, duplicates: 0, boot_failures: 0, failures: [] };
  // a clean run counts the writes
  {
    const dev = new SimDevice({ now: w.start }).install();
    const first = dev.flash.writes;
    w.script(dev, () => {}, () => {});
    res.writes = dev.flash.writes - first;
  }
  const stride = opts.stride ?? 1;
  for (const t of TEARS) {
    for (let n = 1; n <= res.writes; n += stride) {
      if (opts.maxCuts !== undefined && res.cut_points >= opts.maxCuts) return res;
      const dev = new SimDevice({ now: w.start }).install();
      let acked: M | undefined, inflight: M | undefined;
      dev.cutAfter(n, t.tear);
      let cut = false;
      try {
        w.script(dev, (m) => (acked = m), (m) => (inflight = m));
      } catch (e) {
        if (!(e instanceof PowerCut)) throw e;
        cut = true;
      }
      if (!cut) throw new Error(`${w.name}: write ${n} was not reached on replay: the script is not deterministic`);
      res.cut_points++;
      dev.flash.disarm();
      dev.reboot();
      try {
        const v = w.verify(dev, acked, inflight);
        res.acked_lost += v.ackedLost;
        res.torn_records += v.torn;
        res.duplicates += v.duplicates;
        if (v.ackedLost + v.torn + v.duplicates === 0) res.recovered++;
        else if (res.failures.length < 5) res.failures.push(`cut at write ${n} (tear ${t.name}): lost ${v.ackedLost}, torn ${v.torn}, duplicates ${v.duplicates}`);
      } catch (e) {
        res.boot_failures++;
        if (res.failures.length < 5) res.failures.push(`cut at write ${n} (tear ${t.name}): boot failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return res;
}

// Compares one collection of records (as JSON strings) with the acknowledged and
// in-flight versions: equal to either is a full recovery.
export function compare(actual: string[], acked: string[], inflight: string[]): Verdict {
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (same(actual, acked) || same(actual, inflight)) return { ackedLost: 0, torn: 0, duplicates: 0 };
  const known = new Set([...acked, ...inflight]);
  const have = new Set(actual);
  let torn = 0, duplicates = 0, ackedLost = 0;
  for (const r of actual) if (!known.has(r)) torn++;
  const seen = new Set<string>();
  for (const r of actual) {
    if (seen.has(r) && acked.filter((x) => x === r).length < 2 && inflight.filter((x) => x === r).length < 2) duplicates++;
    seen.add(r);
  }
  // a record in both versions had to survive whichever won
  for (const r of acked) if (inflight.includes(r) && !have.has(r)) ackedLost++;
  // neither version whole: count the records of the acked version that are gone
  if (!torn && !duplicates && !ackedLost) ackedLost = acked.filter((r) => !have.has(r)).length || 1;
  return { ackedLost, torn, duplicates };
}

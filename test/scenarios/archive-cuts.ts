// Power cuts at the writes of an archive's upkeep, for scenarios that check
// what a cut there leaves: a device loaded with `image` boots and settles
// with a cut at write n (each n from 1 to `total` that `at` keeps), reboots,
// and `check` looks at the archive after the reboot, then again once the
// upkeep has finished (`settled`).
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { fromLocal } from "../../src/time/local";

export interface Image {
  name: string;
  bytes: Uint8Array;
}

export function cutUpkeep(
  o: { image: readonly Image[]; now: number; storageBytes?: number; total: number; at?: (n: number) => boolean },
  check: (a: Archive, dev: SimDevice, what: string, settled: boolean) => void,
): void {
  for (let n = 1; n <= o.total; n++) {
    if (o.at && !o.at(n)) continue;
    const dev = new SimDevice({ now: o.now, storageBytes: o.storageBytes }).install();
    for (const f of o.image) dev.spiffs.load(f.name, f.bytes.slice());
    let a = new Archive(config.file.root);
    a.check();
    dev.inject("power_cut", { at: n, seed: n });
    if (!SimDevice.survive(() => a.settle())) continue;
    dev.reboot();
    a = new Archive(config.file.root);
    a.check();
    check(a, dev, `cut at write ${n} of ${o.total}, after the reboot`, false);
    a.settle();
    check(a, dev, `cut at write ${n} of ${o.total}, after the upkeep`, true);
  }
}

// Facts, five an append, an hour apart from 2024-01-01 08:00 (the k-th one's
// content given): their contents in order.
export function appendFacts(a: Archive, n: number, content: (k: number) => string): string[] {
  const t0 = Math.floor(fromLocal(2024, 1, 1, 8, 0) / 1000);
  const all: string[] = [];
  for (let i = 0; i < n; i += 5) {
    const b = [];
    for (let k = i; k < i + 5; k++) b.push({ timestamp: t0 + k * 3600, content: content(k) });
    a.append("fact", b);
    for (const x of b) all.push(x.content);
  }
  return all;
}

// Every fact of the archive's content, sorted.
export function factContents(a: Archive): string[] {
  const out: string[] = [];
  a.forEach("fact", (it) => out.push(it.content));
  return out.sort();
}

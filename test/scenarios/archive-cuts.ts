// Power cuts at the writes of an archive's upkeep, for scenarios that check
// what a cut there leaves: a device loaded with `image` boots and settles
// with a cut at write n (each n from 1 to `total` that `at` keeps), reboots,
// and `check` looks at the archive after the reboot, then again once the
// upkeep has finished (`settled`).
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";

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

// NVS as ESP-IDF keeps it, seen through Preference the way device code sees it:
// what a damaged item, a full partition, a flipped bit and a cut inside
// nvs_flash_init do (docs/DESIGN.md "Faults", NVS). The byte layout itself is
// checked in test/nvs-format.test.ts.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { ok, equal, throws } from "./assert";
import type { Scenario } from "./types";

const fresh = () => new SimDevice().install();
const blob = (n: number, fill: number) => {
  const b = new Uint8Array(n);
  b.fill(fill);
  return b.buffer;
};
const same = (b: unknown, n: number, fill: number) => {
  if (!(b instanceof ArrayBuffer) || b.byteLength !== n) return false;
  const u = new Uint8Array(b);
  for (let i = 0; i < n; i++) if (u[i] !== fill) return false;
  return true;
};

export const scenarios: Scenario[] = [
  {
    name: "nvs_crc on a blob: the damaged bytes come back once, then `nvs get fail`, then undefined; other keys are kept",
    run() {
      let dev = fresh();
      for (let seed = 1; seed < 50; seed++) {
        dev = fresh();
        Preference.set("pm", "keep", "yes");
        Preference.set("pm", "b", blob(300, 9));
        if (/data of b /.test(dev.inject("nvs_crc", { seed }))) break;
      }
      const first = Preference.get("pm", "b") as ArrayBuffer;
      ok(first instanceof ArrayBuffer && first.byteLength === 300, "the blob is returned");
      ok(!same(first, 300, 9), "with the damaged bytes");
      throws(() => Preference.get("pm", "b"), { message: "nvs get fail" });
      equal(Preference.get("pm", "b"), undefined);
      equal(Preference.get("pm", "keep"), "yes");
      dev.reboot();
      equal(Preference.get("pm", "keep"), "yes");
    },
  },
  {
    name: "nvs_crc on a one-entry item: nvs_flash_init erases it, the device boots",
    run() {
      for (let seed = 1; seed < 50; seed++) {
        const dev = fresh();
        Preference.set("pm", "n", 42);
        Preference.set("pm", "s", "a string of some length");
        if (!/entry CRC of n /.test(dev.inject("nvs_crc", { seed }))) continue;
        dev.reboot();
        equal(Preference.get("pm", "n"), undefined);
        equal(Preference.get("pm", "s"), "a string of some length");
        Preference.set("pm", "n", 43);
        equal(Preference.get("pm", "n"), 43);
        return;
      }
      ok(false, "no seed damaged n's entry");
    },
  },
  {
    name: "full: another namespace fills NVS; the next set fails clearly, what was stored stays, the device boots",
    run() {
      const dev = fresh();
      Preference.set("petmem", "a", blob(100, 1));
      dev.inject("full");
      throws(() => Preference.set("petmem", "b", blob(100, 2)), { message: "nvs set fail" });
      ok(same(Preference.get("petmem", "a"), 100, 1));
      dev.reboot();
      ok(same(Preference.get("petmem", "a"), 100, 1));
      ok(Preference.keys("zz_fill").length > 10, "the other namespace holds the space");
    },
  },
  {
    name: "bit_flip anywhere in NVS: the device boots and at most the item holding the bit is lost",
    run() {
      for (let seed = 1; seed <= 12; seed++) {
        const dev = fresh();
        for (let i = 0; i < 6; i++) Preference.set("pm", "k" + i, blob(200 + i, i));
        dev.inject("bit_flip", { seed: seed * 7919 });
        dev.reboot();
        let whole = 0;
        for (let i = 0; i < 6; i++) {
          let v: unknown;
          try {
            v = Preference.get("pm", "k" + i);
          } catch {
            continue;
          }
          if (same(v, 200 + i, i)) whole++;
        }
        ok(whole >= 5, `seed ${seed}: ${whole} of 6 whole`);
      }
    },
  },
  {
    name: "nvs_init_cut: power lost inside nvs_flash_init is repaired at the next boot",
    run() {
      const dev = fresh();
      for (let i = 0; i < 6; i++) Preference.set("pm", "k" + i, blob(900, i));
      // a cut after a blob chunk's header entry and its bitmap bits, before its data:
      // nvs_flash_init erases the half-written item, and that repair is cut in turn
      const w = dev.flash.writes;
      dev.cutAfter(2, () => 1 << 30);
      ok(SimDevice.survive(() => Preference.set("pm", "new", blob(900, 7))));
      ok(dev.flash.writes > w);
      dev.inject("nvs_init_cut", { at: 1 });
      let cut = false;
      try {
        dev.reboot();
      } catch (e) {
        cut = (e as Error).name === "PowerCut";
      }
      ok(cut, "the repair's first write was cut");
      dev.reboot();
      for (let i = 0; i < 6; i++) ok(same(Preference.get("pm", "k" + i), 900, i), `k${i}`);
      equal(Preference.get("pm", "new"), undefined);
      Preference.set("pm", "new", blob(900, 7));
      dev.reboot();
      ok(same(Preference.get("pm", "new"), 900, 7));
    },
  },
];

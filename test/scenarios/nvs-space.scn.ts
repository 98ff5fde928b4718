// The NVS space model: entry costs, one page kept free, garbage collection,
// and a clear failure (never a silent loss) when full.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { ENTRIES_PER_PAGE } from "../../host-sim/nvs";
import { ok, equal, throws } from "./assert";
import type { Scenario } from "./types";

const fresh = () => new SimDevice().install();

export const scenarios: Scenario[] = [
  {
    name: "entry costs: namespace 1, int 1, string 1 + ceil((n+1)/32), blob 1 index + per chunk 1 + ceil(n/32)",
    run() {
      const dev = fresh();
      Preference.set("d", "i", 7);
      equal(dev.nvs.stats().liveEntries, 2, "namespace + int");
      Preference.set("d", "s", "x".repeat(31)); // 32 bytes with NUL: 1 + 1
      equal(dev.nvs.stats().liveEntries, 4);
      Preference.set("d", "s2", "x".repeat(32)); // 33 bytes: 1 + 2
      equal(dev.nvs.stats().liveEntries, 7);
      Preference.set("d", "b", new ArrayBuffer(100)); // index 1 + chunk 1 + 4
      equal(dev.nvs.stats().liveEntries, 13);
      Preference.set("d", "b", new ArrayBuffer(100)); // rewrite: old erased, space not yet reclaimed
      const s = dev.nvs.stats();
      equal(s.liveEntries, 13);
      equal(s.erasedEntries, 6);
      equal(s.usableEntries, 11 * ENTRIES_PER_PAGE, "48 KB = 12 pages, one kept free");
    },
  },
  {
    name: "filling NVS ends in a clear error; what was stored stays readable; one page stays free",
    run() {
      const dev = fresh();
      let stored = 0;
      const err = throws(() => {
        for (let i = 0; i < 1000; i++) {
          Preference.set("fill", "k" + i, new ArrayBuffer(1000));
          stored++;
        }
      }, { message: "nvs set fail" });
      equal((err as Error & { reason?: string }).reason, "ESP_ERR_NVS_NOT_ENOUGH_SPACE", "the host keeps NVS's reason");
      ok(stored >= 30 && stored < 45, `stored ${stored} KB-sized blobs`);
      for (let i = 0; i < stored; i++) equal((Preference.get("fill", "k" + i) as ArrayBuffer).byteLength, 1000);
      const st = dev.nvs.stats();
      ok(st.liveEntries <= st.usableEntries, "never uses the reserved page");
      // the failed key is gone (erase-then-write), the others survive a reboot
      dev.reboot();
      equal(Preference.get("fill", "k" + stored), undefined);
      equal((Preference.get("fill", "k0") as ArrayBuffer).byteLength, 1000);
    },
  },
  {
    name: "garbage collection reclaims erased entries so rewrites never run out",
    run() {
      const dev = fresh();
      for (let round = 0; round < 200; round++) Preference.set("gc", "k" + (round % 4), new ArrayBuffer(2000));
      equal(Preference.keys("gc").length, 4);
      ok(dev.flash.partition("nvs").sectorErases > 0, "pages were erased by GC");
      ok(dev.nvs.stats().liveEntries < 4 * 70, "only live copies remain");
    },
  },
  {
    name: "a power cut during garbage collection loses nothing",
    run() {
      for (let n = 1; n <= 12; n++) {
        const dev = fresh();
        for (let i = 0; i < 30; i++) Preference.set("gc", "k" + (i % 5), "v".repeat(900) + i);
        const before = dev.flash.partition("nvs").sectorErases;
        // find writes that trigger GC by cutting at successive points of one more set
        dev.cutAfter(n);
        const cut = SimDevice.survive(() => {
          for (let i = 30; i < 40; i++) Preference.set("gc", "k" + (i % 5), "v".repeat(900) + i);
        });
        ok(cut);
        dev.reboot();
        for (let k = 0; k < 5; k++) {
          const v = Preference.get("gc", "k" + k) as string | undefined;
          // the key being set at the cut may be lost (erase-then-write); every other key holds a whole value
          if (v !== undefined) ok(v.length >= 901 && v.startsWith("v".repeat(900)), `k${k} whole`);
        }
        const lost = [0, 1, 2, 3, 4].filter((k) => Preference.get("gc", "k" + k) === undefined).length;
        ok(lost <= 1, `at most the key in flight is lost, lost ${lost}`);
        void before;
      }
    },
  },
];

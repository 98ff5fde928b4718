// Recovery checks that no single fault of the workloads reaches, so that
// tools/mutate.ts can prove each of them is needed. (The multi-part store's
// checks are proven by test/scenarios/store.scn.ts.)
import { SimDevice } from "../../host-sim/device";
import { ok, equal } from "./assert";
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = [
  {
    name: "an archive file changed behind its index's back (same length, other records) is indexed again: keyword recall finds them",
    run() {
      const build = (word: string) => {
        const dev = new SimDevice({ now: Date.UTC(2026, 0, 1) }).install();
        const a = new Archive(config.file.root, { budget: 200 * 1024 });
        const t0 = Math.floor(Date.UTC(2025, 0, 1) / 1000);
        for (let i = 0; i < 80; i += 10) {
          const batch = [];
          for (let k = i; k < i + 10; k++) batch.push({ timestamp: t0 + k * 86400, content: `第${100 + k}件事：主人和朋友一起吃了${word}，很开心` });
          a.append("fact", batch);
        }
        const files: Record<string, Uint8Array> = {};
        for (const e of dev.spiffs.list()) files[e.name] = dev.spiffs.content(e.name);
        return files;
      };
      const apples = build("苹果"), bananas = build("香蕉");
      const dev = new SimDevice({ now: Date.UTC(2026, 0, 1) }).install();
      for (const name of Object.keys(apples)) dev.spiffs.load(name, (name.endsWith(".jsonl") ? bananas : apples)[name].slice());
      const data = Object.keys(apples).filter((n) => n.endsWith("facts.jsonl"));
      equal(data.length, 1);
      equal(apples[data[0]].length, bananas[data[0]].length, "same length");
      ok(Object.keys(apples).some((n) => n.endsWith("facts.idx")), "the file is indexed");
      const a = new Archive(config.file.root, { budget: 200 * 1024 });
      a.check();
      equal(a.recallByKeyword("fact", "香蕉", 1000).length, 80, "every record of the file, found through its index");
      equal(a.recallByKeyword("fact", "苹果", 1000).length, 0);
    },
  },
];

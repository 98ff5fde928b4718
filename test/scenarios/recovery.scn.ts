// Recovery checks that no single fault of the workloads reaches (they need a
// multi-part store, which no product store is today, or two faults in a
// row), so that tools/mutate.ts can prove each of them is needed.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Layout } from "../../src/nvs/layout";
import { Store, DOMAIN, type StoreSpec } from "../../src/nvs/store";
import { Health } from "../../src/nvs/health";
import { deepEqual, ok, equal } from "./assert";
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import type { Scenario } from "./types";

interface Row {
  id: number;
  text: string;
}
const rowLayout = new Layout<Row>("Row", [
  { name: "id", kind: "u16" },
  { name: "text", kind: "str", bytes: 14 },
]);
const spec: StoreSpec<Row> = { name: "rows", key: "rows", code: 210, version: 1, layout: rowLayout, capacity: 700 };

function open() {
  const health = new Health();
  let cache: string[] | undefined;
  return { store: new Store<Row>(spec, health, () => (cache ??= Preference.keys(DOMAIN))), health };
}
const rows = (n: number, tag: string): Row[] => {
  const out: Row[] = [];
  for (let i = 0; i < n; i++) out.push({ id: i, text: tag + i });
  return out;
};

export const scenarios: Scenario[] = [
  {
    name: "a multi-part copy holding a part of an older copy (another seq) is incomplete: the whole older copy wins",
    run() {
      new SimDevice().install();
      const { store } = open();
      store.set(rows(600, "x"));
      store.flush(); // slot a, seq 1, three parts
      const oldPart = Preference.get(DOMAIN, "rows.a1") as ArrayBuffer;
      store.set(rows(10, "m"));
      store.flush(); // slot b, seq 2; a0..a2 deleted
      const b0 = Preference.get(DOMAIN, "rows.b0") as ArrayBuffer;
      store.set(rows(600, "y"));
      store.flush(); // slot a, seq 3; b0 deleted
      // as if two cuts had left the seq-1 part under a1 and the seq-2 copy whole
      Preference.set(DOMAIN, "rows.a1", oldPart);
      Preference.set(DOMAIN, "rows.b0", b0);
      const { store: again, health } = open();
      deepEqual(again.all(), rows(10, "m"), "the whole copy, never a mix of two");
      ok(health.events.some((e) => e.problem === "incomplete"), "reported");
    },
  },
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

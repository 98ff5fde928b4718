// Packed fact lines (issue 29 item 1; docs/FORMAT.md §3.19, src/archive/codec.ts
// packLine, parseRecords): the facts of one append share lines, up to 8 and
// 512 bytes a line. Each fact keeps its own time and id and is found by every
// reader (recent, time range, keyword, contains, count, forEach, since); a move
// repeated after a cut is not archived twice, whole or overlapping; forgetting
// one fact of a line rewrites the line with the others; a damaged packed line
// serves none of its facts; a packed part that is not well formed makes the
// line no record even under a good CRC.
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import { packLine, parseRecords, lineOk, sealLine, PACK_MAX, EPOCH4, type Rec } from "../../src/archive/codec";
import { recordId } from "../../src/archive/line";
import { compactEncode } from "../../src/text/compact";
import { fromLocal, formatIso } from "../../src/time/local";
import { encode } from "../../src/text/utf8";
import { crc32 } from "../../src/nvs/crc32";
import type { Fact } from "../../src/memory/types";
import { fresh, fillFacts, linesOf, sec } from "./archive.scn";
import { segments, segName } from "./archive-segments.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T = sec(fromLocal(2025, 5, 1, 9, 0));
const fact = (i: number, text = `第${i}条：主人说周末想去河边放风筝`): Fact => ({ timestamp: T + i * 600, content: text });
const ids = (xs: { id: string }[]) => xs.map((x) => x.id).sort();
const factLines = (dev: ReturnType<typeof fresh>) => linesOf(dev, segName("f", segments(dev, "f").slice(-1)[0])).slice(1);

export const scenarios: Scenario[] = [
  {
    name: "fact pack: a batch of facts takes one line; each fact comes back with its own time and id from every reader",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const batch = [0, 1, 2, 3, 4].map((i) => fact(i));
      equal(a.append("fact", batch).appended, 5);
      const lines = factLines(dev);
      equal(lines.length, 1, `one line: ${lines.join(" | ")}`);
      ok(lines[0].indexOf('"A":[') > 0 || lines[0].indexOf('"a":[') > 0, "its packed part");
      // the layout of FORMAT.md §3.19, worked out here apart from the codec: the
      // first fact as a fact line, the others as [seconds after it, text] pairs
      const head = `{"T":${T - EPOCH4},"C":${JSON.stringify(compactEncode(batch[0].content))}`;
      ok(lines[0].startsWith(head), `starts as a fact line: ${lines[0].slice(0, 40)}`);
      const pairs = JSON.parse(lines[0]).A as unknown[];
      deepEqual(pairs.filter((_, i) => i % 2 === 0), [600, 1200, 1800, 2400], "seconds after the first");
      deepEqual(pairs.filter((_, i) => i % 2 === 1), batch.slice(1).map((f) => compactEncode(f.content)), "their texts, compact");
      const want = batch.map((f) => recordId("fact", f)).sort();
      deepEqual(ids(a.recallRecent("fact", 10)), want, "recent");
      deepEqual(a.recallRecent("fact", 2).map((x) => x.content), [batch[4].content, batch[3].content], "recent: newest first, within the line too");
      deepEqual(ids(a.recallByKeyword("fact", "第3条", 10)), [recordId("fact", batch[3])], "a keyword in the packed part");
      const mid = a.recallByTimeRange("fact", "2025-05-01T09:15", "2025-05-01T09:35", 10);
      deepEqual(mid.map((x) => x.content).sort(), [batch[2].content, batch[3].content].sort(), "a time range that holds neither end of the line");
      for (const x of a.recallRecent("fact", 10)) {
        const f = batch.find((b) => recordId("fact", b) === x.id) as Fact;
        equal(x.content, f.content);
        equal(x.timestamp, formatIso(f.timestamp * 1000), "its own time");
      }
      deepEqual(a.contains("fact", [batch[2], fact(9)]), [true, false], "contains: by each fact's id");
      equal(a.count("fact"), 5, "counted fact by fact");
      let n = 0;
      a.forEach("fact", () => n++);
      equal(n, 5);
      // after a reboot and a seal, the sidecar and catalog count and span each fact
      dev.reboot();
      const b = new Archive(root);
      fillFacts(b, 2000); // older facts in later lines: a new segment follows
      b.settle();
      deepEqual(ids(b.recallByTimeRange("fact", "2025-05-01T09:15", "2025-05-01T09:35", 10)), ids(mid), "after sealing");
      equal(b.count("fact"), 2005);
      deepEqual(ids(b.recallByKeyword("fact", "风筝", 10)), want, "the sealed segment's summary holds the packed texts");
    },
  },
  {
    name: "fact pack: a move repeated after a cut, whole or overlapping, archives no fact twice",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const all = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => fact(i));
      a.append("fact", all.slice(0, 5));
      equal(a.append("fact", all.slice(0, 5)).appended, 0, "the same batch: skipped");
      const r = a.append("fact", all.slice(2, 7));
      equal(r.appended, 2, "an overlapping batch: only the two not there");
      equal(r.skipped, 3);
      dev.reboot();
      const b = new Archive(root);
      equal(b.append("fact", all.slice(3, 9)).appended, 2, "after a reboot too");
      equal(b.count("fact"), 9);
      deepEqual(ids(b.recallRecent("fact", 20)), ids(all.map((f) => ({ id: recordId("fact", f) }))), "each once");
    },
  },
  {
    name: "fact pack: runs break where a fact cannot be packed (out of order, too long, 8 to a line)",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const long = "长".repeat(400); // its own line only, cut with its id ("x")
      const batch = [fact(0), fact(1), { timestamp: T - 100, content: "早一点的事" }, fact(3), fact(4, long), fact(5)];
      a.append("fact", batch);
      const lines = factLines(dev);
      equal(lines.length, 4, `lines: ${lines.map((l) => l.slice(0, 30)).join(" | ")}`);
      equal(a.count("fact"), 6);
      const many = Array.from({ length: 20 }, (_, i) => fact(100 + i, `短${i}`));
      a.append("fact", many);
      const more = factLines(dev).slice(4);
      equal(more.length, Math.ceil(20 / PACK_MAX), "at most PACK_MAX facts a line");
      for (const l of factLines(dev)) ok(encode(l).length + 1 <= 512, "every line within 512 bytes");
      equal(a.count("fact"), 26);
      deepEqual(a.recallByKeyword("fact", "短19", 5).map((x) => x.content), ["短19"]);
    },
  },
  {
    name: "fact pack: forgetting one fact of a packed line hides it at once; the scrub writes the line again with the others",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      fillFacts(a, 1200);
      const batch = [0, 1, 2, 3, 4].map((i) => fact(i, `第${i}件：一起去看了萤火虫和星星`));
      a.append("fact", batch);
      fillFacts(a, 1200, undefined, 1200); // the packed line in a sealed segment
      a.settle();
      const gone = recordId("fact", batch[2]);
      equal(a.forget("fact", [gone]), 1);
      deepEqual(ids(a.recallByKeyword("fact", "萤火虫", 10)), ids(batch.filter((_, i) => i !== 2).map((f) => ({ id: recordId("fact", f) }))), "hidden at once");
      a.settle();
      const onFlash = segments(dev, "f").some((s) => linesOf(dev, segName("f", s)).some((l) => l.indexOf(compactEncode("第2件")) >= 0 || l.indexOf("第2件") >= 0));
      ok(!onFlash, "its text has left the flash");
      dev.reboot();
      const b = new Archive(root);
      deepEqual(ids(b.recallByKeyword("fact", "萤火虫", 10)), ids(batch.filter((_, i) => i !== 2).map((f) => ({ id: recordId("fact", f) }))), "the others kept, with their ids");
      equal(b.count("fact"), 2404);
    },
  },
  {
    name: "fact pack: a packed line damaged beyond repair serves none of its facts; a packed part not well formed is no record",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const batch = [0, 1, 2, 3, 4].map((i) => fact(i));
      a.append("fact", batch);
      a.append("fact", [fact(10, "另一行：明天要早起")]);
      dev.reboot();
      const name = segName("f", 1);
      const bytes = dev.spiffs.content(name);
      const at = bytes.indexOf(10) + 30; // inside the packed line
      bytes[at] ^= 0x11;
      bytes[at + 7] ^= 0x40;
      dev.spiffs.load(name, bytes);
      const b = new Archive(root);
      const got = b.recallByTimeRange("fact", undefined, undefined, 100);
      for (const x of got) ok(batch.every((f) => recordId("fact", f) !== x.id) || x.content.indexOf("第") === 0, "never a damaged text");
      ok(got.every((x) => x.content === "另一行：明天要早起" || batch.some((f) => f.content === x.content)), `only whole facts: ${got.map((x) => x.content).join(",")}`);
      // under a good CRC, a packed part that is not well formed: the line is no record
      const recs: Rec[] = [];
      for (const bad of [`"a":[-5,"x"]`, `"a":[600]`, `"a":[600,"x"],"A":[600,"y"]`, `"a":[1.5,"x"]`, `"a":[600,7]`, `"a":"x"`]) {
        const l = sealLine(`{"T":${T - EPOCH4},"c":"头一条",${bad}`);
        ok(lineOk(l, 0, l.length - 1), "its CRC holds");
        ok(!parseRecords(l, 0, l.length - 1, "fact", recs) && recs.length === 0, `not a record: ${bad}`);
      }
      const good = packLine([{ t: T, text: "头一条" }, { t: T + 5, text: "第二条" }]);
      ok(parseRecords(good, 0, good.length - 1, "fact", recs), "a well formed one is");
      deepEqual(recs.map((r) => [r.t, r.it.content, r.it.id]), [[T, "头一条", recordId("fact", { timestamp: T, content: "头一条" })], [T + 5, "第二条", recordId("fact", { timestamp: T + 5, content: "第二条" })]]);
      equal(recs[1].it.id, crc32(encode(`fact\n${T + 5}\n第二条`)).toString(16).padStart(8, "0"), "the id of FORMAT.md §3.2, from the fact's own time");
    },
  },
  {
    name: "fact pack: a sync's place moves past a packed line only with every fact of it given",
    run() {
      fresh();
      const a = new Archive(root);
      a.append("fact", [0, 1, 2, 3, 4].map((i) => fact(i)));
      a.append("fact", [5, 6, 7].map((i) => fact(i)));
      const got: string[] = [];
      let at = { seq: 0, pos: 0 };
      for (let round = 0; round < 5; round++) {
        at = a.since("fact", at, (it) => {
          got.push(it.content);
          return true; // a batch of one: stop at once
        });
      }
      deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7].map((i) => fact(i).content), "each once, in order, none skipped");
      deepEqual(at, a.end("fact"), "and the place is the stream's end");
    },
  },
];

// action=query's CONTAINS, LIKE and = on content without full scans (issue 29
// item 4): facts through the catalog's summaries and the sidecars' block
// signatures, episodes through their signatures (the folded ones in RAM, then
// the header's). Every answer is compared with the full scan's (the same
// query with the words taken away from the sources), over many patterns,
// including those the filter must not skip on (% and _, single characters,
// ASCII words cut at the pattern's edge, words longer than 32 characters,
// mixed ASCII and Chinese, full-width and capital letters, a newline inside a
// content), before and after damage to sidecars and summaries.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import { Service } from "../../src/app/service";
import { Episodes } from "../../src/episode/episodes";
import { EpisodeStore } from "../../src/episode/store";
import type { Episode, EpisodeReader } from "../../src/episode/types";
import { newEvent, type Fact, type Event } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { parseQuery } from "../../src/query/parse";
import { runQuery, wordsOf, Runner, type QuerySources } from "../../src/query/run";
import { readSide, SIDE_MAX, u32, u16, put32 } from "../../src/archive/segment";
import { wordsProbe } from "../../src/archive/query";
import { sigHas, sigAdd, SIG_BYTES } from "../../src/archive/fold";
import { SUMMARY_MASK } from "../../src/archive/catalog";
import { crc32 } from "../../src/nvs/crc32";
import { parseRecords, parsePassage, encodePassage, textsOf, NL, type Rec } from "../../src/archive/codec";
import { measure } from "../../src/episode/passages";
import { reads, PAD } from "./archive.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const T0 = fromLocal(2026, 2, 5, 13, 0);
const sec = (ms: number) => Math.floor(ms / 1000);

const WORDS = ["篮球", "游泳", "猫", "画画", "Basketball", "piano lesson", "去KTV唱歌", "iPhone15", "ＡＢＣ", "Café", "100% 真的", "下_雪", "恐龙"];

// what an owner says with numbers in it (every ninth fact)
const SPOKEN = ["主人说他3月15日过生日", "小明今年8岁了", "妈妈的手机号是13812345678", "明早7点半出发去动物园", "2025年暑假去了青岛", "数学考了98分", "住在3号楼502室", "养了2只猫", "晚上10点睡觉", "看了《流浪地球2》", "体重35.5公斤", "每周零花钱20元", "考了１００分", "坐K21路公交车", "6:30起床跑步", "007是最喜欢的电影"];

// Fact k of build()'s.
const factText = (k: number) =>
  k === 77 ? "第一行\n第二行：主人说的话" : k === 500 ? "supercalifragilisticexpialidociousandmorethan32letters here" : `第${k}条：${PAD.slice(0, 14)}${k % 9 === 4 ? SPOKEN[Math.floor(k / 9) % SPOKEN.length] : `主人今天和朋友一起${WORDS[k % WORDS.length]}`}，${k % 7 === 0 ? "很开心" : "有点累"}`; // PAD: lines as long as in format 2

// Facts (n of them: 1,200 fill 2 sealed segments and part of a third, 1,800
// three and part of a fourth) and a few in NVS.
function build(n = 1800): { dev: SimDevice; a: Archive; svc: Service; all: Fact[] } {
  const dev = new SimDevice({ now: T0 }).install();
  const a = new Archive(root);
  a.check();
  const all: Fact[] = [];
  const t0 = sec(fromLocal(2024, 1, 1, 8, 0));
  const text = factText;
  for (let i = 0; i < n; i += 5) {
    const batch: Fact[] = [];
    for (let k = i; k < i + 5; k++) batch.push({ timestamp: t0 + k * 3600, content: text(k) });
    a.append("fact", batch);
    all.push(...batch);
  }
  a.settle();
  ok(a.report().fact.segments >= (n > 2000 ? 4 : 3), `sealed segments and an open one (${a.report().fact.segments})`);
  const svc = new Service({ sink: { remind() {} }, archive: a });
  svc.memory.addFact("主人喜欢篮球和basketball", sec(T0) - 600);
  svc.memory.addFact("主人说 it's 100% true", sec(T0) - 300);
  svc.memory.flush();
  return { dev, a, svc, all };
}

// The same query through the sources as they are, and with the words taken away (the full scan).
export function both(svc: Service, a: Archive, eps: EpisodeReader | undefined, dev: SimDevice, args: Record<string, unknown>) {
  const q = parseQuery(args);
  const src: QuerySources = { memory: svc.memory, archive: a, episodes: eps };
  const fullSrc: QuerySources = {
    memory: svc.memory,
    archive: { scan: (st, fn, range) => a.scan(st, fn, range ? { lo: range.lo, hi: range.hi } : undefined) },
    episodes: eps ? { forEach: (fn, o) => eps.forEach(fn, { text: o?.text, trash: o?.trash }) } : undefined,
  };
  let got: unknown, want: unknown;
  const r = reads(dev, () => (got = runQuery(q, src)));
  const f = reads(dev, () => (want = runQuery(parseQuery(args), fullSrc)));
  deepEqual(got, want, `${JSON.stringify(args)}: the full scan's answer`);
  return { got: got as { count: number; rows: Record<string, unknown>[] }, bytes: r.bytes, full: f.bytes, words: wordsOf(q.where, "content").length };
}

// The bytes of the fact segments' blocks (as their sidecars cut them; the
// bytes no sidecar record covers as one piece) that hold a record meeting
// `where` (conditions on content alone): what a query must read at least;
// `candidate`: the bytes of the blocks whose signature holds every bit of
// the pattern's words (and of the bytes no sidecar record covers): what the
// signatures cannot rule out.
export function matchingBytes(dev: SimDevice, a: Archive, where: string): { matching: number; candidate: number } {
  const q = parseQuery({ from: "fact", where, limit: 1 });
  const holds = (content: string) => {
    const r = new Runner(q, (rec: Record<string, unknown>, f: string) => rec[f] as never);
    r.take({ id: "", content, date: "", archived: true });
    return r.rows().length > 0;
  };
  const s = a.streams.fact;
  const probe = wordsProbe(wordsOf(q.where, "content"));
  let total = 0, cand = 0;
  for (const seq of s.newestFirst()) {
    const data = dev.spiffs.content(s.path(seq).slice(root.length - 1));
    const side = readSide(s.path(seq, "six"), "fact", seq, data.length, new Uint8Array(SIDE_MAX));
    const blocks = side.after ? side.blocks.concat(side.after) : side.blocks;
    const cuts: number[] = [0];
    const sigOf = new Map<number, number>(); // a block's start → its index
    blocks.forEach((b, i) => {
      cuts.push(b.offset, b.offset + b.length);
      sigOf.set(b.offset, i);
    });
    cuts.push(data.length);
    const k = side.blocks.length;
    for (let i = 0; i + 1 < cuts.length; i++) {
      const from = cuts[i], to = cuts[i + 1];
      if (to <= from) continue;
      const bi = sigOf.get(from);
      let maybe = true; // bytes no valid sidecar record covers are read
      if (bi !== undefined && blocks[bi].offset + blocks[bi].length === to) maybe = bi < k ? sigHas(side.sigs, bi * SIG_BYTES, probe, blocks[bi].set) : sigHas(side.afterSigs as Uint8Array, (bi - k) * SIG_BYTES, probe, blocks[bi].set);
      if (maybe) cand += to - from;
      for (let ls = from; ls < to; ) {
        let le = data.indexOf(NL, ls);
        if (le < 0 || le >= to) le = to;
        const recs: Rec[] = [];
        parseRecords(data, ls, le, "fact", recs);
        if (recs.some((r) => holds(r.it.content))) {
          total += to - from;
          break;
        }
        ls = le + 1;
      }
    }
  }
  return { matching: total, candidate: cand };
}

const GENERAL_PATTERNS: string[] = [
  "content CONTAINS '篮球'",
  "content CONTAINS '球'",
  "content CONTAINS '独角兽'",
  "content CONTAINS 'basketball'",
  "content CONTAINS 'BASKET'",
  "content CONTAINS 'ball'",
  "content CONTAINS 'a'",
  "content CONTAINS '%'",
  "content CONTAINS '_'",
  "content CONTAINS '第12'",
  "content CONTAINS '第1'",
  "content CONTAINS 'ktv'",
  "content CONTAINS '去ktv唱'",
  "content CONTAINS 'ＡＢＣ'",
  "content CONTAINS 'abc'",
  "content CONTAINS 'CAFÉ'",
  "content CONTAINS 'é'",
  "content CONTAINS '行\\n第'",
  "content CONTAINS '：主人'",
  "content CONTAINS '2条：'",
  "content CONTAINS 'iphone1'",
  "content CONTAINS '!'",
  "content CONTAINS ' '",
  "content CONTAINS '主人今天和朋友一起恐龙'",
  "content CONTAINS 'ous'",
  "content CONTAINS 'andmorethan32letters h'",
  "content LIKE '%篮球%'",
  "content LIKE '第1_条%'",
  "content LIKE '%第1_条%'",
  "content LIKE '%b_sket%'",
  "content LIKE '_'",
  "content LIKE '%'",
  "content LIKE '第%'",
  "content LIKE '%ball'",
  "content LIKE '%很开心'",
  "content LIKE 'basketball%'",
  "content LIKE '%\\%%'",
  "content LIKE '%\\_%'",
  "content LIKE '%独角兽%'",
  "content LIKE '第12_条%'",
  "content LIKE '%a%b%'",
  "content LIKE '%球_%'",
  "content LIKE '%下\\_雪%'",
  "content LIKE '%ＫＴＶ%'",
  "content LIKE '%第二行%'",
  "content LIKE '%第一_第二%'",
  "content = '第100条：主人今天和朋友一起猫，有点累'",
  "content = '独角兽'",
  "content CONTAINS '篮球' AND content LIKE '%开心'",
  "content CONTAINS '篮球' AND date >= '2024-01-20' AND date <= '2024-02-10'",
  "content != '篮球' AND content CONTAINS '猫'",
];

// numbers as people ask for them, and single ASCII characters (element set 1: FORMAT.md §3.4)
const NUMBER_PATTERNS: string[] = [
  "content CONTAINS '3月15日'",
  "content CONTAINS '8岁'",
  "content LIKE '%_岁%'",
  "content CONTAINS '13812345678'",
  "content LIKE '%138____5678%'",
  "content LIKE '%_点半%'",
  "content LIKE '%20__年%'",
  "content LIKE '%考了_8分%'",
  "content LIKE '%50_室%'",
  "content CONTAINS '100分'",
  "content CONTAINS '.5公斤'",
  "content LIKE '%K2_路%'",
  "content CONTAINS '6:30'",
  "content LIKE '%00_是%'",
  "content CONTAINS '第1234条'",
  "content LIKE '%第123_条%'",
  "content LIKE '%第_2条%'",
  "content LIKE '%第1__条%'",
  "content CONTAINS '5'",
  "content LIKE '5%'",
  "content CONTAINS 'x'",
  `content = '${factText(13)}'`,
  "content = '第22条'",
];
// what a set-0 archive must still answer (digits, `_` beside them, ASCII alone) and two words
const SET0_PATTERNS = NUMBER_PATTERNS.filter((_w, i) => i % 2 === 0).concat(["content CONTAINS '篮球'", "content LIKE '%b_sket%'"]);
const FACT_PATTERNS = GENERAL_PATTERNS.concat(NUMBER_PATTERNS);

export const scenarios: Scenario[] = [
  {
    name: "query-scan: CONTAINS, LIKE and = over facts give the full scan's answer for every pattern, ordered or first-found",
    run() {
      const { dev, a, svc } = build();
      let rows = 0;
      for (const where of FACT_PATTERNS) {
        const r1 = both(svc, a, undefined, dev, { from: "fact", where, order_by: "content desc", limit: 50, select: "id, content, date, archived" });
        const r2 = both(svc, a, undefined, dev, { from: "fact", where, limit: 5, select: "id, content" });
        // a pattern with an element to look for (a bigram or a non-ASCII character): bounded reads
        if (r1.bytes > 65536 && where.indexOf("date") < 0 && wordsProbe(wordsOf(parseQuery({ from: "fact", where }).where, "content")).length) {
          const m = matchingBytes(dev, a, where);
          ok(r1.bytes <= m.candidate + 65536, `${where}: read ${r1.bytes}, blocks the signatures cannot rule out ${m.candidate}`);
        }
        rows += r1.got.count + r2.got.count;
      }
      ok(rows > 300, `the patterns find rows (${rows})`);
    },
  },
  {
    name: "query-scan: a word absent from the facts reads summaries and the open segment's index, not the segments",
    run() {
      const { dev, a, svc } = build();
      for (const where of ["content CONTAINS '独角兽'", "content LIKE '%独角兽%'", "content LIKE '%飞_机%'"]) {
        const r = both(svc, a, undefined, dev, { from: "fact", where, order_by: "content desc", limit: 50 });
        equal(r.got.count, 0);
        ok(r.full > 100000, `the full scan reads the archive (${r.full})`);
        ok(r.bytes <= 16384, `${where}: ${r.bytes} bytes read`);
      }
      // a word in a few blocks: at most 64 KB beyond those blocks
      const r = both(svc, a, undefined, dev, { from: "fact", where: "content CONTAINS '第734条'", order_by: "content desc", limit: 50 });
      equal(r.got.count, 1);
      ok(r.bytes <= 4096 + 65536, `${r.bytes} bytes read`);
      ok(r.bytes * 4 < r.full, `${r.bytes} against ${r.full}`);
    },
  },
  {
    name: "query-scan: a damaged or missing sidecar, a damaged summary: facts still give the full scan's answer",
    run() {
      const { dev, a, svc } = build(2600); // packed lines (FORMAT.md §3.19): four segments
      const names = dev.spiffs.list().map((e) => e.name);
      ok(names.indexOf("/f000001.six") >= 0 && names.indexOf("/f000002.six") >= 0 && names.indexOf("/f.sum") >= 0, names.join(","));
      const flip = (name: string, at: number, bit: number) => {
        const b = dev.spiffs.content(name);
        b[at] ^= 1 << bit;
        dev.spiffs.load(name, b);
      };
      // block 0's signature and block 3's entry in f000001's sidecar; f000002's sidecar gone; slot 2's summary
      flip("/f000001.six", 32 + 32 + 40, 5);
      flip("/f000001.six", 32 + 3 * 288 + 16, 2);
      dev.spiffs.remove("/f000002.six");
      flip("/f.sum", 16 + 2 * 2048 + 100, 3);
      // a fact of the segment whose summary is damaged (slot 2)
      let inSlot2 = -1;
      a.streams.fact.cat.entries.forEach((e) => {
        if (e.slot !== 2) return;
        const data = dev.spiffs.content(a.streams.fact.path(e.seq).slice(root.length - 1));
        for (let ls = 0; ls < data.length && inSlot2 < 0; ls = data.indexOf(NL, ls) + 1) {
          const recs: Rec[] = [];
          parseRecords(data, ls, data.indexOf(NL, ls), "fact", recs);
          const m = /第(\d+)条/.exec(recs.length ? recs[recs.length - 1].it.content : "");
          if (m) inSlot2 = Number(m[1]) + 5;
        }
      });
      ok(inSlot2 > 500, `slot 2 is summarized (第${inSlot2}条)`);
      dev.reboot();
      const b = new Archive(root);
      b.check();
      const svc2 = new Service({ sink: { remind() {} }, archive: b });
      void svc;
      // first (the first query to read the damaged summary takes its segment out of the catalog)
      equal(both(svc2, b, undefined, dev, { from: "fact", where: `content CONTAINS '第${inSlot2}条'`, limit: 5, select: "content" }).got.count, 1, `第${inSlot2}条`);
      let rows = 0;
      for (const where of GENERAL_PATTERNS) {
        const r = both(svc2, b, undefined, dev, { from: "fact", where, order_by: "content desc", limit: 50, select: "id, content" });
        rows += r.got.count;
      }
      ok(rows > 200, `rows found (${rows})`);
      // the facts of the damaged blocks are found
      for (const k of [3, 7, 100, 130, 400, 455]) {
        const r = both(svc2, b, undefined, dev, { from: "fact", where: `content CONTAINS '第${k}条'`, limit: 5, select: "content" });
        equal(r.got.count, 1, `第${k}条`);
      }
    },
  },
  {
    name: "query-scan: an archive from before element set 1 (every sidecar record and summary of set 0) gives the full scan's answer for every pattern, and so does one with segments of both sets",
    run() {
      const { dev, a } = build();
      const s = a.streams.fact;
      const file = (seq: number, ext?: "six") => (ext ? s.path(seq, ext) : s.path(seq)).slice(root.length - 1);
      // the texts of the records of data[from, to)
      const texts = (data: Uint8Array, from: number, to: number, fn: (x: string) => void) => {
        for (let ls = from; ls < to; ) {
          let le = data.indexOf(NL, ls);
          if (le < 0 || le >= to) break;
          const recs: Rec[] = [];
          if (parseRecords(data, ls, le, "fact", recs)) for (const { it } of recs) for (const x of textsOf(it)) fn(x);
          ls = le + 1;
        }
      };
      // as the firmware before wrote them: set 0's elements, 0 in the entries' set fields
      let blocks = 0;
      for (const seq of s.newestFirst()) {
        const data = dev.spiffs.content(file(seq));
        const six = dev.spiffs.content(file(seq, "six"));
        for (let at = 32; at + 288 <= six.length; at += 288, blocks++) {
          const sig = new Uint8Array(SIG_BYTES);
          texts(data, u32(six, at), u32(six, at) + u16(six, at + 4), (x) => sigAdd(sig, 0, x, SIG_BYTES * 8 - 1, 0));
          six.set(sig, at + 32);
          six[at + 10] = six[at + 11] = 0;
          put32(six, at + 24, crc32(sig, 0, SIG_BYTES));
          put32(six, at + 28, crc32(six, at, at + 28));
        }
        dev.spiffs.load(file(seq, "six"), six);
      }
      const cat = dev.spiffs.content("/f.cat"), sum = dev.spiffs.content("/f.sum");
      equal(u16(sum, 10), 0, ".sum holds every slot");
      ok(dev.spiffs.list().every((e) => e.name !== "/f.bsc"), "no bit-sliced group yet");
      s.cat.entries.forEach((e) => {
        const data = dev.spiffs.content(file(e.seq));
        const sg = new Uint8Array(2048);
        texts(data, 0, data.length, (x) => sigAdd(sg, 0, x, SUMMARY_MASK, 0));
        sum.set(sg, 16 + 2048 * e.slot);
        const at = 16 + 32 * e.slot;
        cat[at + 22] = cat[at + 23] = 0;
        put32(cat, at + 24, crc32(sg, 0, 2048));
        put32(cat, at + 28, crc32(cat, at, at + 28));
      });
      dev.spiffs.load("/f.cat", cat);
      dev.spiffs.load("/f.sum", sum);
      ok(blocks >= 30 && s.cat.entries.size >= 2, `blocks ${blocks}, summaries ${s.cat.entries.size}`);
      const boot = () => {
        dev.reboot();
        const b = new Archive(root);
        b.check();
        return { b, svc: new Service({ sink: { remind() {} }, archive: b }) };
      };
      let { b, svc } = boot();
      b.streams.fact.cat.entries.forEach((e) => equal(e.set, 0, `slot ${e.slot} of set 0`));
      const check = (what: string) => {
        let rows = 0;
        for (const where of SET0_PATTERNS) rows += both(svc, b, undefined, dev, { from: "fact", where, order_by: "content desc", limit: 50, select: "id, content" }).got.count;
        ok(rows > 100, `${what}: rows found (${rows})`);
        equal(both(svc, b, undefined, dev, { from: "fact", where: "content LIKE '%第123_条%'", limit: 50 }).got.count, 10, `${what}: 第1230条 to 第1239条`);
        equal(both(svc, b, undefined, dev, { from: "fact", where: "content CONTAINS '13812345678'", limit: 50 }).got.count > 5, true, `${what}: a phone number`);
      };
      check("set 0");
      // more facts, sealed by this firmware: set 1 beside set 0
      const t1 = sec(fromLocal(2024, 6, 1, 8, 0));
      for (let i = 0; i < 800; i += 5) b.append("fact", [0, 1, 2, 3, 4].map((k) => ({ timestamp: t1 + (i + k) * 600, content: `第${3000 + i + k}条：${SPOKEN[(i + k) % SPOKEN.length]}` })));
      b.settle();
      const sets = new Set<number>();
      b.streams.fact.cat.entries.forEach((e) => sets.add(e.set));
      ok(sets.has(0) && sets.has(1), `summaries of both sets (${Array.from(sets).join(",")})`);
      ({ b, svc } = boot());
      check("sets 0 and 1");
      equal(both(svc, b, undefined, dev, { from: "fact", where: "content LIKE '%第30_5条%'", limit: 50 }).got.count, 10, "第3005条 to 第3095条");
    },
  },
  {
    name: "query-scan: past 16 sealed segments a word is looked up in the bit-sliced groups with their records' CRCs, not in every 2 KB summary; a damaged record sends its group's slots to their sidecars once they left .sum; a format-2 .bsl is deleted at boot",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const a = new Archive(root);
      a.check();
      const t0 = sec(fromLocal(2023, 1, 1, 8, 0));
      // lines of about 450 bytes: 17 sealed segments in 2,100 facts
      for (let i = 0; i < 2100; i += 5) {
        const batch: Fact[] = [];
        for (let k = i; k < i + 5; k++) batch.push({ timestamp: t0 + k * 3600, content: `第${k}条：主人今天${k === 3 ? "看萤火虫" : WORDS[k % WORDS.length]}${PAD}${PAD.slice(0, 50)}` });
        a.append("fact", batch);
      }
      a.settle();
      const cat = a.streams.fact.cat;
      ok(cat.sliced >= 2, `sliced groups: ${cat.sliced} (${a.report().fact.segments} segments)`);
      equal(a.count("fact"), 2100, "every fact kept");
      const svc = new Service({ sink: { remind() {} }, archive: a });
      const sumRead = (fn: () => void, which = (name: string): boolean => name === "/f.sum") => {
        const sp = dev.spiffs;
        const orig = sp.read;
        let n = 0;
        sp.read = function (name: string, offset: number, count: number) {
          const r = orig.call(sp, name, offset, count);
          if (which(name)) n += r.length;
          return r;
        };
        try {
          fn();
        } finally {
          sp.read = orig;
        }
        return n;
      };
      const unsliced = (cat.slots - cat.sliced * 8) * 2048;
      let r = both(svc, a, undefined, dev, { from: "fact", where: "content CONTAINS '独角兽'", limit: 10 });
      const absent = sumRead(() => both(svc, a, undefined, dev, { from: "fact", where: "content CONTAINS '独角兽'", limit: 10 }));
      equal(r.got.count, 0);
      ok(absent <= unsliced, `summaries read: ${absent} (those of unsliced slots: ${unsliced})`);
      ok(r.bytes <= 16384 + unsliced, `a word absent: ${r.bytes} bytes read`);
      r = both(svc, a, undefined, dev, { from: "fact", where: "content CONTAINS '萤火虫'", limit: 10 });
      equal(r.got.count, 1, "a fact of the oldest segment");
      ok(r.bytes <= 16384 + unsliced + 65536, `a word in one fact: ${r.bytes} bytes read of ${r.full}`);
      // group 0 with slot 0's bit cleared in every byte (would hide the oldest
      // segment from any word) and its records' CRCs left as they were
      const bsc = dev.spiffs.content("/f.bsc");
      for (let p = 0; p < 16 * 1024; p++) bsc[16 + Math.floor(p / 128) * 132 + (p % 128)] &= 0xfe;
      dev.spiffs.load("/f.bsc", bsc);
      // group 0's summaries left .sum once the group checked (docs/design/summaries.md)
      equal(cat.base(), cat.checked * 8, "the checked groups' summaries are out of .sum");
      ok(cat.base() >= 8 && dev.spiffs.length("/f.sum") === 16 + 2048 * (cat.slots - cat.base()), `.sum holds slots ${cat.base()} on: ${dev.spiffs.length("/f.sum")} bytes`);
      let damaged = 0;
      const group0 = new Set([...a.streams.fact.cat.entries.values()].filter((e) => e.slot < 8).map((e) => `/f${String(e.seq).padStart(6, "0")}.six`));
      let six = 0;
      const n = sumRead(
        () => (six = sumRead(() => (damaged = both(svc, a, undefined, dev, { from: "fact", where: "content CONTAINS '萤火虫'", limit: 10 }).got.count), (name) => group0.has(name))),
      );
      equal(damaged, 1, "still found: its group's records fail their CRCs");
      ok(n <= unsliced, `no summary of group 0 read from .sum (${n} bytes)`);
      ok(six >= 8 * 32 * 2, `group 0's sidecars were read instead (${six} bytes)`);
      // a device from before: its .bsl (no records) goes at boot, and the groups are built again
      dev.spiffs.load("/f.bsl", new Uint8Array(100));
      dev.reboot();
      const b = new Archive(root);
      b.check();
      ok(!dev.spiffs.list().some((e) => e.name === "/f.bsl"), "the format-2 .bsl is deleted");
      equal(both(new Service({ sink: { remind() {} }, archive: b }), b, undefined, dev, { from: "fact", where: "content CONTAINS '萤火虫'", limit: 10 }).got.count, 1);
    },
  },
  {
    name: "query-scan: CONTAINS and LIKE over archived events give the full scan's answer",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const a = new Archive(root);
      a.check();
      for (let i = 0; i < 600; i += 6) {
        const batch: Event[] = [];
        for (let k = i; k < i + 6; k++) {
          const d = new Date(Date.UTC(2023, 0, 1) + k * 86400000).toISOString().slice(0, 10);
          batch.push(newEvent({ date: d, time: k % 3 ? "09:30" : "", content: `第${k}件事：和主人一起${WORDS[k % WORDS.length]}`, eventType: k % 2 ? "plan" : "event", duration: 60 }));
        }
        a.append("event", batch);
      }
      a.settle();
      ok(a.report().event.segments >= 2, `segments: ${a.report().event.segments}`);
      const svc = new Service({ sink: { remind() {} }, archive: a });
      let rows = 0;
      for (const where of ["content CONTAINS '篮球'", "content CONTAINS '独角兽'", "content CONTAINS 'ball'", "content LIKE '第1_件事%'", "content LIKE '%ＫＴＶ%'", "content CONTAINS '第12件' AND event_type = 'event'", "content LIKE '_'"]) {
        for (const args of [
          { from: "event", where, order_by: "content desc", limit: 50, select: "id, content, date, event_type" },
          { from: "event", where, limit: 4, select: "id, content" },
        ]) {
          const r = both(svc, a, undefined, dev, args);
          rows += r.got.count;
          if (where.indexOf("独角兽") >= 0) ok(r.bytes * 4 < r.full, `${where}: ${r.bytes} of ${r.full}`);
        }
      }
      ok(rows > 50, `rows found (${rows})`);
    },
  },
  {
    name: "query-scan: CONTAINS and LIKE over episodes give the full scan's answer; an absent word reads no text once the signatures are in RAM",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const store = new EpisodeStore();
      const contents = (i: number): string =>
        i === 5
          ? "I love basketball and piano"
          : i === 9
            ? "和主人说 supercalifragilisticexpialidociousandmorethan32letters 聊天"
            : i === 13
              ? "去KTV唱歌，第一次唱了ＡＢＣ"
              : i === 17
                ? "主人说 café 很好喝！！下_雪了"
                : `和主人聊了${WORDS[i % WORDS.length]}，他说下次还想一起${WORDS[(i + 5) % WORDS.length]}（第${i}次）`;
      let batch: Episode[] = [];
      const t0 = sec(fromLocal(2025, 3, 1, 20, 0));
      for (let i = 0; i < 120; i++) {
        const content = contents(i);
        const keywords = i % 4 === 0 ? ["回忆", "Basket"] : [WORDS[(i + 2) % WORDS.length]];
        batch.push({ slot: store.freeSlot() + batch.length, id: store.nextId() + batch.length, state: i % 11 === 3 ? "trash" : "active", content, keywords, emotion: "happy", e: i % 101, i: (i * 7) % 101, p: (i * 13) % 101, j: (i * 29) % 101, useCount: 0, createdAt: t0 + i * 3600, lastActiveAt: t0 + i * 3600, purgeAt: i % 11 === 3 ? t0 + 30 * 86400 : 0, source: "ai", sig: new Uint8Array(64) });
        if (batch.length === 8) {
          store.write(batch);
          batch = [];
        }
      }
      if (batch.length) store.write(batch);
      const eps = new Episodes(store);
      const a = new Archive(root);
      a.check();
      const svc = new Service({ sink: { remind() {} }, archive: a });
      const patterns = [
        "content CONTAINS '篮球'",
        "content CONTAINS '球'",
        "content CONTAINS '独角兽'",
        "content CONTAINS 'basketball'",
        "content CONTAINS 'ball'",
        "content CONTAINS ' basketball '",
        "content CONTAINS 'love basket'",
        "content CONTAINS 'i love'",
        "content CONTAINS 'a'",
        "content CONTAINS 'ktv'",
        "content CONTAINS '去ktv唱'",
        "content CONTAINS 'v唱'",
        "content CONTAINS 'abc'",
        "content CONTAINS '，第一次'",
        "content CONTAINS 'CAFÉ '",
        "content CONTAINS ' café'",
        "content CONTAINS 'iphone15，'",
        "content CONTAINS '（第1'",
        "content CONTAINS '第12次'",
        "content CONTAINS 'supercalifragilisticexpialidociousandmorethan32letters '",
        "content CONTAINS 'superca'",
        "content CONTAINS '说 supercalifragilisticexpialidociousandmorethan32letters'",
        "content CONTAINS '说 supercalifragilisticexpialidociousandmorethan32letters 聊'",
        "content CONTAINS 'ove basket'",
        "content CONTAINS 'ketball and'",
        "content CONTAINS 'andmorethan32letters 和'",
        "content CONTAINS 'piano lesson'",
        "content CONTAINS '% 真'",
        "content LIKE '%篮球%'",
        "content LIKE '%篮_%'",
        "content LIKE '%ball%'",
        "content LIKE '% basketball %'",
        "content LIKE '和主人聊了%'",
        "content LIKE '%（第1_次）'",
        "content LIKE '_'",
        "content LIKE '%'",
        "content LIKE '%下\\_雪%'",
        "content LIKE '%独角兽%'",
        "content LIKE '%恐_龙%'",
        "content = 'I love basketball and piano'",
        "content CONTAINS '猫' AND p >= 0.5",
        "content CONTAINS '游泳' AND state = 'trash'",
      ];
      let rows = 0;
      for (const where of patterns) {
        for (const args of [
          { from: "episode", where, order_by: "j desc", limit: 50, select: "id, content, state" },
          { from: "episode", where, limit: 3, select: "id, content" },
        ]) {
          const r = both(svc, a, eps, dev, args);
          rows += r.got.count;
        }
      }
      ok(rows > 150, `rows found (${rows})`);
      // once the signatures are in RAM, an absent word reads no text and no header
      both(svc, a, eps, dev, { from: "episode", where: "content CONTAINS '独角兽'", limit: 5 });
      const r = both(svc, a, eps, dev, { from: "episode", where: "content CONTAINS '独角兽'", limit: 5 });
      equal(r.got.count, 0);
      // every header (128 B) and every text (a passage: at least a 40-byte line; FORMAT.md §4.3)
      ok(r.full >= 120 * (128 + 40), `the full scan reads every header and text (${r.full})`);
      equal(r.bytes, 0, "nothing read");
      // a word in a few: their slots (header and text), a few false hits' headers
      const k = both(svc, a, eps, dev, { from: "episode", where: "content CONTAINS '去ktv唱'", order_by: "j desc", limit: 50 });
      ok(k.got.count >= 10, `${k.got.count} rows`);
      ok(k.bytes <= k.got.count * 800 + 64 * 128 && k.bytes * 4 < k.full, `${k.bytes} bytes for ${k.got.count} rows (the full scan ${k.full})`);
    },
  },
  {
    name: "query-scan: episode texts: the passages' block signatures rule texts out, cold and warm, with the full scan's answer (a text of two lines with a word across them, a damaged sidecar record, the open segment's tail); within 64 KB beyond the matching texts; a pattern with nothing to test reads no more than the full scan",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const store = new EpisodeStore();
      const t0 = sec(fromLocal(2025, 3, 1, 20, 0));
      const eps0: Episode[] = [];
      // a text of two lines whose word 麒麟 is cut between them (FORMAT.md §4.3.1)
      // (and one whose two lines cut qz, a word the headers' signatures have no element of)
      const cut = (slot: number, word: string): string => {
        for (let k = 0; k < 12; k++)
          for (let n = 105; n < 125; n++) {
            const c = "a".repeat(k) + "🐱".repeat(n) + word + "来了";
            const lines = encodePassage(t0 + slot * 3600, slot + 1, c, WORDS[(slot + 2) % WORDS.length]);
            const first = parsePassage(lines[0], 0, lines[0].length - 1);
            if (lines.length === 2 && first && first.c.endsWith(word.slice(0, 1))) return c;
          }
        return "";
      };
      const long = cut(77, "麒麟"), long2 = cut(201, "qz");
      ok(long !== "" && long2 !== "", "contents whose two lines cut 麒麟 and qz");
      for (let i = 0; i < 240; i++) {
        const content = i === 77 ? long : i === 201 ? long2 : `和主人聊了${WORDS[i % WORDS.length]}，他说下次还想一起${WORDS[(i + 5) % WORDS.length]}（第${i}次）`;
        eps0.push({ slot: i, id: i + 1, state: i % 17 === 3 ? "trash" : "active", content, keywords: [WORDS[(i + 2) % WORDS.length]], emotion: "happy", e: i % 101, i: (i * 7) % 101, p: (i * 13) % 101, j: (i * 29) % 101, useCount: 0, createdAt: t0 + i * 3600, lastActiveAt: t0 + i * 3600, purgeAt: i % 17 === 3 ? t0 + 400 * 86400 : 0, source: "ai", sig: new Uint8Array(64) });
      }
      for (let i = 0; i < eps0.length; i += 8) store.write(eps0.slice(i, i + 8));
      while (store.step()) {}
      ok(measure(encodePassage(t0 + 77 * 3600, 78, long, WORDS[79 % WORDS.length])).len > 512, "the long text is more than one line");
      const a = new Archive(root);
      a.check();
      const svc = new Service({ sink: { remind() {} }, archive: a });
      // the bytes a query must read: each matching episode's header and text
      const need = (where: string, trash = false): number => {
        const q = parseQuery({ from: "episode", where, limit: 1 });
        let n = 0;
        for (const e of eps0) {
          if (e.state !== "active" && !(trash && e.state === "trash")) continue;
          const r = new Runner(q, (x: Record<string, unknown>, f: string) => x[f] as never);
          r.take({ id: e.id, content: e.content, keywords: e.keywords, state: e.state, p: e.p / 100, j: e.j / 100 });
          if (r.rows().length) n += 128 + measure(encodePassage(e.createdAt, e.id, e.content, e.keywords.join(","))).len;
        }
        return n;
      };
      const patterns = ["content CONTAINS '麒麟'", "content LIKE '%麒麟来%'", "content CONTAINS 'qz'", "content LIKE '%qz%'", "content LIKE '%第12_次%'", "content CONTAINS '第300次'", "content CONTAINS '独角兽'", "content CONTAINS '（第3'", "content LIKE '_%'", "content CONTAINS 'x'", "content CONTAINS '猫' AND state = 'trash'"];
      const run = (eps: Episodes, what: string, only?: string[], first = false) => {
        for (const where of only ?? patterns)
          for (const args of [
            { from: "episode", where, order_by: "j desc", limit: 50, select: "id, content, state" },
            { from: "episode", where, limit: 3, select: "id, content" },
          ].slice(0, first ? 1 : 2)) {
            const r = both(svc, a, eps, dev, args);
            if (where.indexOf("麒麟") >= 0 || where.indexOf("qz") >= 0) equal(r.got.count, 1, `${what}: ${where}: the text of two lines is found`);
          }
      };
      // cold (a new reader: its first query builds the signatures in RAM) then warm, for every pattern
      for (const where of patterns) run(new Episodes(store), "cold", [where], true);
      const warm = new Episodes(store);
      run(warm, "warm");
      // a pattern the block signatures rule out where the headers' cannot (第 and 次 are in every text)
      const sel = both(svc, a, warm, dev, { from: "episode", where: "content LIKE '%第12_次%'", order_by: "j desc", limit: 50 });
      equal(sel.got.count, 9); // 120–129 but 122 (in the trash)
      ok(sel.bytes * 4 < sel.full * 3, `warm: ${sel.bytes} bytes, under 75% of the full scan ${sel.full} (it was the full scan; the sidecars read are the same whatever the lines' frame)`);
      ok(sel.bytes <= need("content LIKE '%第12_次%'") + 65536, `within 64 KB beyond the matching texts: ${sel.bytes}`);
      const cold = both(svc, a, new Episodes(store), dev, { from: "episode", where: "content LIKE '%第12_次%'", order_by: "j desc", limit: 50 });
      ok(cold.bytes < cold.full && cold.bytes <= need("content LIKE '%第12_次%'") + 65536, `cold: ${cold.bytes} bytes, the full scan ${cold.full}`);
      // nothing to test ('_' alone, one ASCII character): at most what the full scan reads (every header, every live text)
      for (const where of ["content LIKE '_%'", "content CONTAINS 'x'"]) {
        const r = both(svc, a, warm, dev, { from: "episode", where, order_by: "j desc", limit: 5 });
        ok(r.bytes <= r.full, `${where}: ${r.bytes} bytes, the full scan ${r.full}`);
      }
      // a damaged sidecar record (its signature's CRC fails): its block is read as lines, the answers stay the full scan's
      const six = store.texts.stream.path(1, "six").slice(root.length - 1);
      const side = dev.spiffs.content(six).slice();
      side[32 + 288 * 2 + 40] ^= 0x10;
      dev.spiffs.load(six, side);
      const some = ["content CONTAINS 'qz'", "content LIKE '%第12_次%'", "content CONTAINS '（第3'", "content CONTAINS '独角兽'"];
      for (const where of some) run(new Episodes(store), "damaged sidecar, cold", [where], true);
      run(warm, "damaged sidecar, warm", some);
    },
  },
];

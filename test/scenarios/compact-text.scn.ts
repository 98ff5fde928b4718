// Compact text (issue 29 item 3; src/text/compact.ts, docs/FORMAT.md §3.16):
// any string comes back from its compact form; archive lines of format 3 carry
// text in it and are read back as the text; a device with format-2 segments
// continues with format-3 ones and recall finds everything in both; a flipped
// bit in a compact line is still caught by the line's CRC.
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import { encodeRecord, encodeDigest, parseRecord, lineOk, setWriteFormat, VERSION } from "../../src/archive/codec";
import { recordId } from "../../src/archive/line";
import { compactEncode, compactDecode, encodeSlow, decodeSlow, tableOf, TABLE1, ESC, ONE } from "../../src/text/compact";
import * as T1 from "../../src/text/table1";
import { newEvent, type Fact } from "../../src/memory/types";
import { fromLocal } from "../../src/time/local";
import { decode, encode } from "../../src/text/utf8";
import { fresh, fillFacts, moment, linesOf, sec } from "./archive.scn";
import { segments, segName } from "./archive-segments.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;

// A deterministic generator of code points from every range the codec treats
// apart: ASCII and controls, U+0080..U+07FF (escaped), table characters and
// words, other CJK, the Private Use Area (escaped), beyond the BMP (surrogate pairs).
// A xorshift generator from `seed`: rnd(m) is in 0..m-1.
function xorshift(seed: number): (m: number) => number {
  let x = seed >>> 0 || 1;
  return (m) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % m;
  };
}

function randomText(seed: number, n: number): string {
  const rnd = xorshift(seed);
  const entry = (i: number) => {
    let s = "";
    for (let j = TABLE1.off[i]; j < TABLE1.off[i + 1]; j++) s += String.fromCharCode(TABLE1.chars[j]);
    return s;
  };
  let s = "";
  for (let i = 0; i < n; i++) {
    const k = rnd(9);
    if (k === 0) s += String.fromCharCode(rnd(0x80));
    else if (k === 1) s += String.fromCharCode(0x80 + rnd(0x780));
    else if (k === 2 || k === 3) s += entry(rnd(TABLE1.n1 + TABLE1.n2 + TABLE1.np));
    else if (k === 4) s += String.fromCharCode(0x4e00 + rnd(0x5200));
    else if (k === 5) s += String.fromCharCode(0xe000 + rnd(0x1900));
    else if (k === 6) s += String.fromCodePoint(0x10000 + rnd(0x100000 - 0x10000));
    else if (k === 7) s += String.fromCharCode(0x800 + rnd(0xd800 - 0x800));
    else s += String.fromCharCode(0xf900 + rnd(0x700));
  }
  return s;
}

function flipEveryBit(line: Uint8Array): number {
  const e = line.length - 1; // without "\n"
  let caught = 0;
  for (let i = 0; i < e; i++)
    for (let bit = 0; bit < 8; bit++) {
      line[i] ^= 1 << bit;
      if (!lineOk(line, 0, e)) caught++;
      line[i] ^= 1 << bit;
    }
  return caught;
}

export const scenarios: Scenario[] = [
  {
    name: "compact text: any string comes back (ASCII, empty, the escaped ranges, the PUA, emoji and other surrogate pairs, table words); Chinese takes fewer bytes",
    run() {
      const fixed = ["", "a", "hello, world 123", "\u0080", "\u0080\u0081\u07ff", "é ü ß Ω Я א ع", "\ue000\uf8ff\ue123", "😀", "a😀b👨‍👩‍👧", "𠀀𪚥", "主人喜欢吃草莓", "我们", "，。？！", "\u0000\u001f\u007f", "第55条", "\u0800\uffff\ufffd", "主人\u0080\u0081喜欢"];
      for (const s of fixed) equal(compactDecode(compactEncode(s)), s, `round trip of ${JSON.stringify(s)}`);
      for (let seed = 1; seed <= 60; seed++) {
        const s = randomText(seed, 1 + (seed % 40) * 3);
        const c = compactEncode(s);
        equal(compactDecode(c), s, `round trip of random text ${seed}`);
        equal(compactEncode(s), c, "the same text, the same code");
      }
      equal(compactEncode("abc 12:30-5.5%,()!?"), "abc 12:30-5.5%,()!?", "lower case, digits and the punctuation of times and amounts are themselves");
      equal(compactEncode("OK"), "\u0080O\u0080K", "a capital is a 1-byte code, so one of the text is escaped");
      for (const c of ONE) equal(compactEncode(c), "\u0080" + c, `every 1-byte code is escaped as text: ${c}`);
      const top = compactEncode(TABLE1.entries[0]);
      equal(top, ONE[0], "the commonest entry takes the first 1-byte code");
      equal(compactEncode("é"), "\u0080é", "a character of U+0080..U+07FF is escaped");
      equal(compactEncode("\ue000"), "\u0080\ue000", "so is one of the Private Use Area");
      equal(compactEncode("😀"), "😀", "beyond the BMP: itself");
      const zh = "主人今天放学以后和朋友们一起去公园玩，回家以后吃了晚饭。";
      const n = encode(compactEncode(zh)).length;
      ok(n < encode(zh).length * 0.7, `Chinese in fewer bytes: ${n} of ${encode(zh).length}`);
    },
  },
  {
    name: "compact text: decoding refuses what table 1 never writes (a code with no entry, an escape at the end or before a character it does not escape)",
    run() {
      equal(TABLE1.version, 1);
      equal(TABLE1.n1, T1.N1);
      equal(TABLE1.n2, T1.N2);
      ok(TABLE1.n1 <= ONE.length && TABLE1.n2 <= 0x7ff - 0x81 + 1 && TABLE1.np <= 0x1900, "codes within their ranges");
      if (TABLE1.n2 < 0x7ff - 0x81 + 1) equal(compactDecode(String.fromCharCode(0x81 + TABLE1.n2)), undefined, "a 2-byte code past the table");
      if (TABLE1.np < 0x1900) equal(compactDecode(String.fromCharCode(0xe000 + TABLE1.np)), undefined, "a PUA code past the table");
      equal(compactDecode("ab" + String.fromCharCode(ESC)), undefined, "an escape at the end");
      equal(compactDecode(String.fromCharCode(ESC) + "a"), undefined, "an escape before ASCII that is not a code");
      equal(compactDecode(String.fromCharCode(ESC) + "主"), undefined, "an escape before a CJK character");
      equal(compactDecode("plain 文字"), "plain 文字", "text without codes is itself");
      // a table with Private Use Area codes (the format has them; table 1 uses none)
      const t = tableOf(9, 1, 2, 2, "11122", "好我的我们主人", "\u0104\u0100\u0101\u0103\u0102");
      equal(compactEncode("我们的主人好", t), "\ue000\u0082\ue001A", "longest match: a PUA word, a 2-byte character, a PUA word, a 1-byte character");
      equal(compactDecode("\ue000\u0082\ue001A", t), "我们的主人好");
      equal(compactDecode("B", t), undefined, "a 1-byte code past N1");
      equal(compactDecode("\u0080B", t), "B", "an escaped capital");
      equal(compactDecode("\u0083", t), undefined, "a 2-byte code past N2");
      equal(compactDecode("\ue002", t), undefined, "a PUA code past NP");
      equal(compactDecode(compactEncode("我我们们的", t), t), "我我们们的");
      // the table: entries of 1-4 BMP characters outside the escaped ranges, in text order in SORTED
      let prev = "";
      for (let i = 0; i < TABLE1.sorted.length; i++) {
        const e = TABLE1.sorted[i];
        let s = "";
        for (let j = TABLE1.off[e]; j < TABLE1.off[e + 1]; j++) {
          const c = TABLE1.chars[j];
          ok(c >= 0x800 && !(c >= 0xd800 && c <= 0xf8ff), `entry ${e}: a 3-byte character outside the PUA`);
          s += String.fromCharCode(c);
        }
        ok(s.length >= 1 && s.length <= 4, `entry ${e}: 1-4 characters`);
        ok(prev < s, `text order at ${i}`);
        prev = s;
      }
    },
  },
  {
    name: "compact text: the one-pass encoder and decoder give what the plain forms give: every entry's code, random texts (lone surrogates and U+FFFD too), random compact strings valid or not, the longest texts",
    run() {
      // every code of the table: its entry back, and an entry's text is its code
      const codeOf = (e: number) => (e < TABLE1.n1 ? ONE[e] : e < TABLE1.n1 + TABLE1.n2 ? String.fromCharCode(0x81 + e - TABLE1.n1) : String.fromCharCode(0xe000 + e - TABLE1.n1 - TABLE1.n2));
      const n = TABLE1.n1 + TABLE1.n2 + TABLE1.np;
      let all = "", allText = "";
      for (let e = 0; e < n; e++) {
        const c = codeOf(e);
        equal(compactDecode(c), TABLE1.entries[e], `code of entry ${e}`);
        equal(compactEncode(TABLE1.entries[e]), c, `entry ${e} is its code`);
        all += c + ",";
        allText += TABLE1.entries[e] + ",";
      }
      equal(compactDecode(all), allText, "every code in one string (longer than the scratch, many times)");
      equal(compactDecode(all), decodeSlow(all));
      equal(compactEncode(allText), encodeSlow(allText), "every entry's text in one string");
      const rnd = xorshift(2024);
      const odd = ["\ufffd", "\ud800", "\udfff", "a\ud83d", "\ude00b", "\u0080\ud800", "\u0080\ufffd", "主\ud800人"];
      for (let i = 0; i < 120; i++) {
        let s = randomText(1000 + i, rnd(120));
        if (i % 10 === 0) s += odd[rnd(odd.length)] + randomText(i, 5);
        const c = encodeSlow(s);
        equal(compactEncode(s), c, `encoding random text ${i}`);
        equal(compactDecode(c), decodeSlow(c), `decoding random text ${i}`);
        if (i % 10) equal(compactDecode(c), s, `round trip of random text ${i}`);
        // a random string taken as compact text: codes, escapes, anything; most are refused
        let r = "";
        for (let j = rnd(60); j > 0; j--) {
          const k = rnd(8);
          r += k < 3 ? String.fromCharCode(0x81 + rnd(0x780)) : k === 3 ? ONE[rnd(ONE.length)] : k === 4 ? "\u0080" + randomText(i * 7 + j, 1) : k === 5 ? odd[rnd(odd.length)] : randomText(i * 13 + j, 1);
        }
        equal(compactDecode(r), decodeSlow(r), `decoding random string ${i}: ${JSON.stringify(r)}`);
      }
      // a text longer than a line, and one of codes that each decode to 4 characters
      const long = randomText(77, 2000);
      equal(compactDecode(compactEncode(long)), long, "a long text");
      let four = "";
      for (let e = 0; e < n; e++) if (TABLE1.off[e + 1] - TABLE1.off[e] === 4) four += codeOf(e);
      equal(compactDecode(four + four + four), decodeSlow(four + four + four), "codes of 4-character entries");
    },
  },
  {
    name: "compact text: archive lines of format 3 carry compact text and read back as the text, with the ids of the original; digests too; the 512-byte limit is on the coded line",
    run() {
      fresh();
      const f: Fact = { timestamp: sec(fromLocal(2026, 1, 15, 10, 30)), content: "主人说她长大以后想当兽医，因为喜欢小动物 é 😀" };
      const l = encodeRecord("fact", f);
      const it = parseRecord(l.line, 0, l.line.length - 1, "fact");
      equal(it?.content, f.content);
      equal(it?.id, recordId("fact", f), "the id is the CRC of the original text");
      equal(l.id, it?.id);
      ok(decode(l.line).indexOf('"C":') > 0, "written compact");
      const m = moment(3, "周末", "主人周六上午有钢琴课，下午去游泳");
      const ml = encodeRecord("moment", m);
      const mi = parseRecord(ml.line, 0, ml.line.length - 1, "moment");
      deepEqual([mi?.topic, mi?.content, mi?.id], [m.topic, m.content, recordId("moment", m)]);
      const ev = newEvent({ date: "2026-06-01", time: "09:30", content: "儿童节表演", duration: 60 });
      const el = encodeRecord("event", ev);
      const ei = parseRecord(el.line, 0, el.line.length - 1, "event");
      deepEqual([ei?.content, ei?.id], [ev.content, recordId("event", ev)]);
      const d = encodeDigest({ from: f.timestamp, to: f.timestamp + 86400, month: "2026-01", count: 12, keywords: ["游泳", "钢琴", "piano"], points: "主人学会了游泳；周六有钢琴课", source: 7, events: false });
      const dt = decode(d.line);
      ok(dt.indexOf('"K":') > 0 && dt.indexOf('"C":') > 0, `digest keywords and points compact: ${dt}`);
      const di = parseRecord(d.line, 0, d.line.length - 1, "digest");
      deepEqual([di?.keywords, di?.content, di?.digest], [["游泳", "钢琴", "piano"], "主人学会了游泳；周六有钢琴课", true]);
      // a long record: cut so that the coded line fits, id kept as x
      const long: Fact = { timestamp: f.timestamp, content: "主人今天放学以后和朋友们一起去公园玩，".repeat(40) };
      const ll = encodeRecord("fact", long);
      ok(ll.line.length <= 512 && ll.line.length > 490, `coded line of ${ll.line.length}`);
      const li = parseRecord(ll.line, 0, ll.line.length - 1, "fact");
      ok(!!li && long.content.startsWith(li.content) && encode(li.content).length > 512, `more than 512 bytes of text in one line: ${li && encode(li.content).length}`);
      equal(li?.id, recordId("fact", long), "the cut line carries the id");
      // a text compact would make longer stays plain
      const latin = encodeRecord("fact", { timestamp: f.timestamp, content: "éééé" });
      ok(decode(latin.line).indexOf('"c":"éééé"') > 0, "plain when compact is not shorter");
    },
  },
  {
    name: "compact text: one flipped bit anywhere in a compact line is caught by its CRC",
    run() {
      fresh();
      const l = encodeRecord("fact", { timestamp: sec(fromLocal(2026, 1, 15, 10, 30)), content: "主人对芒果过敏，吃了会起疹子" });
      const line = new Uint8Array(l.line);
      const bits = (line.length - 1) * 8;
      equal(flipEveryBit(line), bits, `every one of ${bits} flips caught`);
      const d = encodeDigest({ from: 1e9, to: 1e9 + 1, month: "2026-01", count: 2, keywords: ["芒果"], points: "主人对芒果过敏", source: 3, events: false });
      const dl = new Uint8Array(d.line);
      equal(flipEveryBit(dl), (dl.length - 1) * 8, "and in a digest");
    },
  },
  {
    name: "compact text: a device with format-2 segments continues with format-3 (now 4) ones; recall, counts and forget find every record in both",
    run() {
      const dev = fresh();
      let old: Fact[] = [];
      setWriteFormat(2);
      try {
        const a = new Archive(root);
        a.check();
        old = fillFacts(a, 400, (i) => (i === 123 ? `第${i}条：主人说起了萤火虫` : `第${i}条：主人今天说了一件关于学校和朋友的小事，还有晚饭吃了什么，后来我们又一起聊了好久好久`));
        a.append("moment", [moment(1, "日常", "主人和我一起看书"), moment(2, "运动", "主人去打篮球了")]);
        a.settle();
      } finally {
        setWriteFormat(VERSION as 4);
      }
      const v2 = segments(dev, "f");
      ok(v2.length >= 2, `format-2 fact segments: ${v2.join(",")}`);
      for (const s of v2) equal(JSON.parse(linesOf(dev, segName("f", s))[0]).v, 2, `f${s} is format 2`);
      ok(linesOf(dev, segName("f", v2[0])).slice(1).every((x) => x.indexOf('"c":') > 0 && x.indexOf('"C":') < 0), "format-2 lines: plain text");
      dev.reboot();
      const a = new Archive(root);
      a.check();
      const t1 = sec(fromLocal(2025, 6, 1, 8, 0));
      const fresh3: Fact[] = [];
      const text = (i: number) => (i === 77 ? `新的第${i}条：主人说起了萤火虫和星星` : `新的第${i}条：主人今天说了一件关于学校和朋友的小事，还有晚饭吃了什么`);
      // the open format-2 segment takes format-3 lines until it is full, then a format-3 segment starts
      for (let i = 0; segments(dev, "f").length === v2.length && i < 3000; i += 5) {
        const b: Fact[] = [];
        for (let k = i; k < i + 5; k++) b.push({ timestamp: t1 + k * 3600, content: text(k) });
        equal(a.append("fact", b).appended, 5);
        fresh3.push(...b);
      }
      a.append("moment", [moment(40, "日常", "主人和我一起画画")]);
      const mixed = linesOf(dev, segName("f", v2[v2.length - 1]));
      ok(mixed.some((x) => x.indexOf('"C":') > 0) && mixed.some((x) => x.indexOf('"c":') > 0), "the format-2 segment left open holds both");
      a.settle();
      const all = segments(dev, "f");
      const v3 = all.filter((s) => JSON.parse(linesOf(dev, segName("f", s))[0]).v === VERSION);
      ok(v3.length >= 1 && all.length > v2.length, `format-3 segments follow: ${all.join(",")}`);
      ok(linesOf(dev, segName("f", v3[v3.length - 1])).slice(1).some((x) => x.indexOf('"C":') > 0), "format-3 lines: compact text");
      // the format-2 segments, sealed, were written again as format 3 by steps (docs/design/recode.md)
      ok(v3.length === all.length, `every fact segment format 3 after the upkeep: ${v3.join(",")} of ${all.join(",")}`);
      const total = old.length + fresh3.length;
      equal(a.count("fact"), total, "every fact counted");
      const hits = a.recallByKeyword("fact", "萤火虫", 10).map((x) => x.content).sort();
      deepEqual(hits, [old[123].content, fresh3[77].content].sort(), "a word found in a format-2 and a format-3 segment");
      let dinner = 0;
      a.forEach("fact", (it) => (dinner += it.content.indexOf("晚饭") >= 0 ? 1 : 0));
      equal(dinner, total - 2, "a common word in every line of both");
      equal(a.recallByKeyword("fact", "晚饭", 1000).length, Math.min(1000, total - 2), "and recall finds it");
      equal(a.recallByTimeRange("fact", "2024-01-01", "2024-12-31", 1000).length, old.length, "a time range over format 2");
      equal(a.recallByTimeRange("fact", "2025-01-01", "2026-12-31", 1000).length, Math.min(1000, fresh3.length), "a time range over format 3");
      const ids = new Set<string>();
      a.forEach("fact", (it) => ids.add(it.id));
      for (const f of old.concat(fresh3)) ok(ids.has(recordId("fact", f)), `the id of ${f.content} is the original's`);
      deepEqual(a.contains("fact", [old[5], fresh3[5]]), [true, true], "known by id in both formats: not archived twice");
      equal(a.append("fact", fresh3.slice(-5)).appended, 0, "a repeated move of the last batch (compact lines) skipped byte for byte");
      equal(a.recallByKeyword("moment", "看书", 10).length, 1, "a format-2 moment");
      equal(a.recallByKeyword("moment", "画画", 10).length, 1, "a format-3 moment");
      equal(a.forget("fact", [recordId("fact", old[123]), recordId("fact", fresh3[77])]), 2);
      equal(a.recallByKeyword("fact", "萤火虫", 10).length, 0, "forgotten in both");
    },
  },
];

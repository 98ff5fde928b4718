// Block and summary signatures, element set 1 (docs/FORMAT.md §3.4; src/archive/fold.ts):
// no text that holds a pattern is ever ruled out by its probe (random texts
// of speech with numbers, dates, times, prices, phone numbers, ASCII and
// full-width; patterns cut from them with `_`, `%` and the text's edges), in
// a block signature, a summary and a bit-sliced group, of either element set;
// and the digits and single ASCII characters a pattern holds do rule texts out.
import { sigAdd, probeOf, sigHas, probeSlots, SIG_BYTES } from "../../src/archive/fold";
import { SUMMARY_MASK } from "../../src/archive/catalog";
import { parseQuery } from "../../src/query/parse";
import { wordsOf, Runner } from "../../src/query/run";
import { ok, equal } from "./assert";
import type { Scenario } from "./types";

// what owners say, with the numbers in it
const SAID = [
  "主人3月15日过生日",
  "小明今年8岁了，上二年级",
  "妈妈的电话是13812345678",
  "明天早上7点半要起床去学校",
  "2025年夏天去了青岛的海边",
  "数学考了98分，英语考了100分",
  "住在3号楼502，楼下有个公园",
  "家里有2只猫和1条狗",
  "晚上10点以后不许玩iPad",
  "周末看了《流浪地球2》，觉得很好看",
  "体重35.5公斤，比上个月重了0.5公斤",
  "第1234件事：和朋友一起踢足球",
  "零花钱每周20元，攒了120元买乐高",
  "考了１００分，全班第１名",
  "坐K21路公交车去奶奶家",
  "WiFi密码是abc12345",
  "早上6:30跑步，跑了3公里",
  "他说 007 是他最喜欢的电影",
  "今天是2026-11-28，星期六",
  "第12次去游泳馆，学会了蛙泳",
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

// characters as the user wrote them (a surrogate pair is one)
const chars = (s: string): string[] => Array.from(s);

// A pattern cut from `text`: a run of its characters, some made `_`, with
// `%` or the text's edge at each end (CONTAINS when both are open).
function patternOf(text: string, r: () => number): string {
  const c = chars(text);
  const from = Math.floor(r() * c.length);
  const len = 1 + Math.floor(r() * Math.min(10, c.length - from));
  const w = c.slice(from, from + len).map((x) => (x === "%" || x === "_" || x === "\\" || x === "'" ? "\\" + x : x));
  const unders = Math.floor(r() * 3);
  for (let i = 0; i < unders; i++) w[Math.floor(r() * w.length)] = "_";
  const startOpen = from > 0 || r() < 0.5, endOpen = from + len < c.length || r() < 0.5;
  if (startOpen && endOpen && w.indexOf("_") < 0 && r() < 0.5) return `content CONTAINS '${w.join("").replace(/\\(.)/g, "$1").replace(/'/g, "''")}'`;
  return `content LIKE '${startOpen ? "%" : ""}${w.join("").replace(/'/g, "''")}${endOpen ? "%" : ""}'`;
}

function holds(where: string, content: string): boolean {
  const r = new Runner(parseQuery({ from: "fact", where, limit: 1 }), (x: Record<string, unknown>, f: string) => x[f] as never);
  r.take({ id: "", content, date: "", archived: true });
  return r.rows().length > 0;
}

function sigOf(texts: string[], mask: number, set: number): Uint8Array {
  const sig = new Uint8Array((mask + 1) >> 3);
  for (const t of texts) sigAdd(sig, 0, t, mask, set);
  return sig;
}

const probeFor = (where: string, mask = SIG_BYTES * 8 - 1) => probeOf(wordsOf(parseQuery({ from: "fact", where }).where, "content"), mask);

// Whether slot j of a bit-sliced group of 8 summaries may hold the probe's words.
function sliced(sums: Uint8Array[], probe: Uint16Array, j: number, set: number): boolean {
  const m = probeSlots(probe, (p) => {
    let b = 0;
    for (let k = 0; k < 8; k++) if (sums[k][p >> 3] & (1 << (p & 7))) b |= 1 << k;
    return b;
  });
  return !!((m >> (set ? 8 : 0)) & (1 << j));
}

export const scenarios: Scenario[] = [
  {
    name: "signatures: no text holding a pattern is ruled out (random patterns cut from speech with numbers, `_` beside digits, the text's edges), in blocks, summaries and bit-sliced groups of either element set",
    run() {
      const r = rng(29);
      let tried = 0;
      for (let n = 0; n < 600; n++) {
        const text = SAID[n % SAID.length];
        // a block holds other texts too; its summary, a segment's more
        const others = [SAID[(n * 7 + 3) % SAID.length], "主人今天很开心"];
        const where = patternOf(text, r);
        if (!holds(where, text)) continue; // `_` over a surrogate pair, an escape: not cut as meant
        tried++;
        for (const set of [0, 1]) {
          const block = sigOf([others[0], text, others[1]], SIG_BYTES * 8 - 1, set);
          ok(sigHas(block, 0, probeFor(where), set), `${where} in "${text}": block of set ${set}`);
          const sum = sigOf([text, ...others], SUMMARY_MASK, set);
          const sp = probeFor(where, SUMMARY_MASK);
          ok(sigHas(sum, 0, sp, set), `${where} in "${text}": summary of set ${set}`);
          const sums = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => (k === n % 8 ? sum : sigOf([SAID[(n + k) % SAID.length]], SUMMARY_MASK, set)));
          ok(sliced(sums, sp, n % 8, set), `${where} in "${text}": slot ${n % 8} of a sliced group of set ${set}`);
        }
      }
      ok(tried > 400, `patterns tried (${tried})`);
    },
  },
  {
    name: "signatures: digit runs (whole, leading, trailing, a `_` beside a digit) and single ASCII characters rule blocks out in set 1, never in set 0",
    run() {
      const block = (set: number) => sigOf(["第1234件事：和朋友一起踢足球", "住在3号楼502", "主人3月15日过生日"], SIG_BYTES * 8 - 1, set);
      const s1 = block(1), s0 = block(0);
      const may = (where: string, sig: Uint8Array, set: number) => sigHas(sig, 0, probeFor(where), set);
      // held: each must pass
      for (const where of ["content CONTAINS '第1234件'", "content LIKE '%第12_4件%'", "content LIKE '%第123_件%'", "content CONTAINS '502'", "content LIKE '%楼50_'", "content CONTAINS '15日'", "content LIKE '主人3月%'", "content CONTAINS '5'", "content LIKE '%：%'"])
        ok(may(where, s1, 1), `${where}: may`);
      // not held: a signature of set 1 rules them out (a block's elements are
      // its texts' together: '%第1_件%' may be there, by 第 and the run 15)
      const out = ["content CONTAINS '第1235件'", "content CONTAINS '第234件'", "content LIKE '%第12_件%'", "content LIKE '%第7_件%'", "content LIKE '%第_34件%'", "content CONTAINS '楼5号'", "content CONTAINS '3月1日'", "content CONTAINS 'x'", "content LIKE '%q%'"];
      let ruled = 0;
      for (const where of out) if (!may(where, s1, 1)) ruled++;
      equal(ruled, out.length, "every pattern the block does not hold is ruled out");
      // set 0 has no element for these: a block of set 0 may hold them, and a
      // probe asked of it uses set 0's bits only
      for (const where of ["content LIKE '%第12_件%'", "content LIKE '%第_34件%'", "content CONTAINS 'x'"]) {
        ok(may(where, s0, 0), `${where}: set 0 cannot tell`);
        ok(may(where, s1, 0), `${where}: a block of set 1 asked as set 0`);
      }
    },
  },
];

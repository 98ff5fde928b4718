// npm run build:text-table: builds the compact-text table (src/text/compact.ts,
// docs/FORMAT.md §3.16) from the corpus in tools/text-table/, and writes it as
// src/text/table<version>.ts. Deterministic: the same corpus gives the same bytes.
//
// A table's version is on flash (segment headers name it, lines coded with it
// are read with it forever): a committed table is never changed. A new table
// is a new version (--version N, a new module beside the old ones).
//
// Corpus:
//   tools/text-table/jieba-top.txt  word frequencies of a large general corpus
//                                   (jieba's dictionary, MIT; see its header)
//   tools/text-table/speech.txt     conversational Chinese of this repository
//                                   (the development speech set, scenario and
//                                   tuning texts), one run of non-ASCII text a line;
//                                   `--corpus` extracts it again from SPEECH_SOURCES.
// Held out (never in the corpus; tools/text-table-eval.ts measures on them):
// test/extract/heldout*.ts, tools/recall-eval/heldout.ts, tools/bench/data.ts,
// test/text/heldout-speech.txt.
//
// Method (docs/design/compact-text.md): token frequencies are jieba's (a
// share of 0.4) and those of the speech corpus cut into words by forward
// longest match on jieba's words (0.6). Words of 2-4 characters are ranked by
// what a Private Use Area code saves (frequency x (3 x length - 3)); the top
// ones are kept. Each character's frequency is then counted in the tokens that
// are not kept words. The 2-byte codes go to whichever save most among
// characters (1 byte an occurrence) and kept words (1 byte an occurrence more
// than a PUA code would); the rest of the kept words get PUA codes, up to --pua.
//
// Usage: tsx tools/text-table.ts [--version 1] [--pua 0] [--corpus] [--stdout]

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ONE } from "../src/text/codes";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "tools/text-table");

export const SPEECH_SOURCES = [
  "test/extract/speech.ts",
  "tools/recall-eval/tuning.ts",
  "tools/recall-eval/lives.ts",
  "test/xs/heap/messages.ts",
  "test/scenarios/listen.scn.ts",
  "test/scenarios/episodes.scn.ts",
  "test/scenarios/recall-all.scn.ts",
  "test/scenarios/context.scn.ts",
  "test/scenarios/digest.scn.ts",
  "test/scenarios/listen-speech.scn.ts",
  "test/scenarios/query.scn.ts",
  "test/scenarios/retrieval.scn.ts",
  "test/scenarios/backup.scn.ts",
  "test/scenarios/snapshot.scn.ts",
  "test/scenarios/sync.scn.ts",
  "test/scenarios/listen-pending.scn.ts",
  "test/scenarios/xiaozhi.scn.ts",
  "test/scenarios/schedule.scn.ts",
  "test/scenarios/memory-fork.scn.ts",
  "test/scenarios/archive.scn.ts",
  "test/scenarios/evolver.scn.ts",
];

const N1_MAX = ONE.length; // 41 ASCII codes
const N2_MAX = 0x7ff - 0x81 + 1; // 1919 codes U+0081..U+07FF
const NP_MAX = 0xf8ff - 0xe000 + 1; // 6400 codes U+E000..U+F8FF

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// A character a table may hold: BMP, 3 bytes in UTF-8, not in the Private Use Area.
export function codable(cp: number): boolean {
  return cp >= 0x800 && cp <= 0xffff && !(cp >= 0xd800 && cp <= 0xdfff) && !(cp >= 0xe000 && cp <= 0xf8ff);
}
const han = (cp: number) => cp >= 0x4e00 && cp <= 0x9fff;

function extractSpeech(): string {
  const lines: string[] = [];
  for (const f of SPEECH_SOURCES) {
    const text = fs.readFileSync(path.join(root, f), "utf8");
    let run = "";
    for (const c of text) {
      const cp = c.codePointAt(0) as number;
      if (codable(cp)) run += c;
      else if (run) {
        lines.push(run);
        run = "";
      }
    }
    if (run) lines.push(run);
  }
  return `# Conversational Chinese of this repository (tools/text-table.ts SPEECH_SOURCES), one run of\n# 3-byte characters a line, extracted by \`tsx tools/text-table.ts --corpus\`.\n${lines.join("\n")}\n`;
}

function readJieba(): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of fs.readFileSync(path.join(dir, "jieba-top.txt"), "utf8").split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const [w, f] = line.split(" ");
    m.set(w, Number(f));
  }
  return m;
}

// Cuts a run of text into tokens by forward longest match on `words` (up to 4 characters).
function tokens(run: string[], words: Map<string, number>): string[] {
  const out: string[] = [];
  for (let i = 0; i < run.length; ) {
    let n = 1;
    for (let k = Math.min(4, run.length - i); k >= 2; k--) {
      const w = run.slice(i, i + k).join("");
      if (words.has(w)) {
        n = k;
        break;
      }
    }
    out.push(run.slice(i, i + n).join(""));
    i += n;
  }
  return out;
}

export interface Built {
  version: number;
  entries: string[]; // in code order
  n1: number;
  n2: number;
  np: number;
}

export function build(version: number, pua: number): Built {
  const jieba = readJieba();
  const speech = fs.readFileSync(path.join(dir, "speech.txt"), "utf8").split("\n").filter((l) => l && !l.startsWith("#"));
  // token frequencies, as shares of each source
  const freq = new Map<string, number>();
  const add = (w: string, f: number) => freq.set(w, (freq.get(w) ?? 0) + f);
  let jt = 0;
  for (const f of jieba.values()) jt += f;
  for (const [w, f] of jieba) add(w, (0.4 * f) / jt);
  const sp: string[] = [];
  for (const l of speech) for (const t of tokens([...l], jieba)) sp.push(t);
  for (const t of sp) add(t, 0.6 / sp.length);
  const cmp = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  // words worth a code, best first
  const words = [...freq]
    .filter(([w]) => [...w].length >= 2 && [...w].every((c) => han(c.codePointAt(0) as number)))
    .map(([w, f]) => [w, f * (3 * [...w].length - 3)] as [string, number])
    .sort(cmp)
    .slice(0, N2_MAX + pua);
  const kept = new Set(words.map(([w]) => w));
  // characters, counted in the tokens that are not kept words
  const chars = new Map<string, number>();
  for (const [w, f] of freq) if (!kept.has(w)) for (const c of w) if (codable(c.codePointAt(0) as number)) chars.set(c, (chars.get(c) ?? 0) + f);
  // 1- and 2-byte codes: each saves a byte an occurrence over the next size
  // (a character over 3 bytes, a kept word over its PUA code), so the most
  // frequent take the 1-byte codes and the next the 2-byte ones
  const wf = new Map(words.map(([w]) => [w, freq.get(w) as number]));
  const ranked = [...chars].concat([...wf]).sort(cmp).slice(0, N1_MAX + N2_MAX).map(([w]) => w);
  const inTable = new Set(ranked);
  const rest = words.filter(([w]) => !inTable.has(w)).slice(0, pua).map(([w]) => w);
  const n1 = Math.min(N1_MAX, ranked.length);
  return { version, entries: ranked.concat(rest), n1, n2: ranked.length - n1, np: rest.length };
}

export function moduleText(b: Built): string {
  const lens = b.entries.map((e) => String([...e].length)).join("");
  const chars = b.entries.join("");
  const order = b.entries.map((_, i) => i).sort((x, y) => (b.entries[x] < b.entries[y] ? -1 : b.entries[x] > b.entries[y] ? 1 : 0));
  const sorted = order.map((i) => String.fromCharCode(0x100 + i)).join("");
  for (const e of b.entries) for (const c of e) if (!codable(c.codePointAt(0) as number)) throw new Error(`not codable: ${c}`);
  return [
    `// Compact-text table ${b.version} (src/text/compact.ts, docs/FORMAT.md §3.16). GENERATED by`,
    `// \`npm run build:text-table\` (tools/text-table.ts) from tools/text-table/: never edit,`,
    `// never change once committed (lines on flash are decoded with it); a new table is a new version.`,
    `// ${b.n1} entries with 1-byte codes (ONE[i]), ${b.n2} with 2-byte codes (U+0081 + i - ${b.n1}),`,
    `// ${b.np} with Private Use Area codes (U+E000 + i - ${b.n1 + b.n2}).`,
    ``,
    `export const VERSION = ${b.version};`,
    `export const N1 = ${b.n1};`,
    `export const N2 = ${b.n2};`,
    `export const NP = ${b.np};`,
    `// one digit an entry, its length in characters`,
    `export const LENS = ${JSON.stringify(lens)};`,
    `// the entries' characters, in code order`,
    `export const CHARS = ${JSON.stringify(chars)};`,
    `// the entries in text order: U+0100 + entry number`,
    `export const SORTED = ${JSON.stringify(sorted)};`,
    ``,
  ].join("\n");
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  if (process.argv.includes("--corpus")) {
    fs.writeFileSync(path.join(dir, "speech.txt"), extractSpeech());
  }
  const version = Number(arg("--version") ?? 1);
  const pua = Math.min(NP_MAX, Number(arg("--pua") ?? 0));
  const b = build(version, pua);
  const text = moduleText(b);
  if (process.argv.includes("--stdout")) process.stdout.write(text);
  else {
    const out = path.join(root, `src/text/table${version}.ts`);
    fs.writeFileSync(out, text);
    console.log(JSON.stringify({ table: path.relative(root, out), version, n1: b.n1, n2: b.n2, np: b.np, entries: b.entries.length, module_bytes: Buffer.byteLength(text) }));
  }
}

// Measures the compact-text table on text held out of its corpus (tools/text-table.ts):
// UTF-8 bytes and compact bytes per character, per set, for the committed table
// and for tables built with fewer Private Use Area entries (--pua a,b,c).
//
// Sets: speech   test/text/heldout-speech.txt (written for this, the way people talk)
//       extract  test/extract/heldout*.ts (the extract eval's held-out speech)
//       recall   tools/recall-eval/heldout.ts (the recall eval's held-out lives)
//       bench    tools/bench/data.ts (the texts npm run bench archives)
// Each set is its runs of 3-byte characters (as the corpus is), plus, for speech, whole lines.
// Output: one JSON line per table and set:
//   {"table","entries","set","texts","chars","utf8_bytes","compact_bytes","utf8_per_char","compact_per_char","ratio"}
// Usage: tsx tools/text-table-eval.ts [--pua 0,1000,3000]

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, codable } from "./text-table";
import { compactEncode, compactDecode, tableOf, TABLE1, type Table } from "../src/text/compact";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

function runs(text: string): string[] {
  const out: string[] = [];
  let run = "";
  for (const c of text) {
    if (codable(c.codePointAt(0) as number)) run += c;
    else if (run) {
      if ([...run].length >= 2) out.push(run);
      run = "";
    }
  }
  if ([...run].length >= 2) out.push(run);
  return out;
}

const speech = read("test/text/heldout-speech.txt").split("\n").filter((l) => l && !l.startsWith("#"));
const sets: Record<string, string[]> = {
  speech,
  extract: ["test/extract/heldout.ts", "test/extract/heldout-speech.ts", "test/extract/heldout-late.ts"].flatMap((f) => runs(read(f))),
  recall: runs(read("tools/recall-eval/heldout.ts")),
  bench: runs(read("tools/bench/data.ts")),
};

function tableFrom(pua: number): Table {
  const b = build(1, pua);
  const lens = b.entries.map((e) => String([...e].length)).join("");
  const order = b.entries.map((_, i) => i).sort((x, y) => (b.entries[x] < b.entries[y] ? -1 : b.entries[x] > b.entries[y] ? 1 : 0));
  return tableOf(1, b.n1, b.n2, b.np, lens, b.entries.join(""), order.map((i) => String.fromCharCode(0x100 + i)).join(""));
}

function measure(name: string, t: Table): void {
  for (const [set, texts] of Object.entries(sets)) {
    let chars = 0, u8 = 0, cb = 0;
    for (const s of texts) {
      const c = compactEncode(s, t);
      if (compactDecode(c, t) !== s) throw new Error(`round trip failed: ${s}`);
      chars += [...s].length;
      u8 += Buffer.byteLength(s);
      cb += Buffer.byteLength(c);
    }
    const r = (x: number) => Math.round(x * 1000) / 1000;
    console.log(JSON.stringify({ table: name, entries: t.n1 + t.n2 + t.np, set, texts: texts.length, chars, utf8_bytes: u8, compact_bytes: cb, utf8_per_char: r(u8 / chars), compact_per_char: r(cb / chars), ratio: r(cb / u8) }));
  }
}

measure("table1", TABLE1);
const i = process.argv.indexOf("--pua");
if (i >= 0) for (const p of process.argv[i + 1].split(",")) measure(`pua${p}`, tableFrom(Number(p)));

// `petmem import FILE|-`: a document of `petmem export` becomes the pet's
// memory. Atomic: the document is checked whole first; it is imported into a
// new device in DIR/import.new, which is booted again and exported, and must
// give back the same document; only then is it swapped in for the folder's
// device (desktop/swap.ts). Any failure before the swap leaves the folder's
// device exactly as it was.

import fs from "node:fs";
import path from "node:path";
import { DATA, YES, Failure, type Command, type Context } from "../command.js";
import { openHost, checkDataDir, hasDevice, type Host } from "../host.js";
import { lockDataFolder } from "../lock.js";
import { finishSwap, commitSwap, NEW } from "../swap.js";
import { SimDevice } from "../../host-sim/device.js";
import { bootDevice } from "../../src/app/boot.js";
import { checkDocument, holdsMemory, importMemory, ImportError } from "../../src/backup/index.js";
import { exportTo, type ExportSink, type SectionName } from "../../src/backup/export.js";
import type { Item } from "../../src/backup/schema.js";

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = file === "-" ? fs.readFileSync(0, "utf8") : fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Failure(`${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}`);
  }
  const name = file === "-" ? "stdin" : file;
  // CSV is for reading in a spreadsheet: it does not carry every field back
  if (/^\uFEFF?(?:# [a-z_]+\r?\n)?id,type[,\r\n]/.test(text))
    throw new Failure(`${name}: a CSV export cannot be imported; import the JSON export (\`petmem export > memory.json\`, the default format)`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Failure(`${name}: not a JSON document (${(e as Error).message}); import takes what \`petmem export\` writes`);
  }
}

// The document as the device gives it back: every item, in order, by section
// (what a fresh boot changes is left out: the time of export, the device's
// own settings line, the boot count).
// What a device changes by itself when it boots at another time: a schedule
// whose hour has come is marked reminded (src/schedule/reminder.ts). The
// comparison leaves it out, so an import near a reminder is not refused.
function stable(section: string, it: unknown): string {
  if (section === "events" && it && typeof it === "object" && "reminded" in it) return JSON.stringify({ ...(it as Record<string, unknown>), reminded: 0 });
  return JSON.stringify(it);
}

function collect(host: Host): Map<string, string[]> {
  const m = new Map<string, string[]>();
  let cur: string[] = [];
  let section = "";
  const sink: ExportSink = {
    head() {},
    single(s: SectionName, it: Item | null) {
      m.set(s, it ? [JSON.stringify(s === "health" ? { ...it, boots: 0 } : it)] : []);
    },
    list(s: SectionName) {
      cur = [];
      section = s;
      m.set(s, cur);
    },
    item(it: Item) {
      cur.push(stable(section, it));
    },
    endList() {},
    absent() {},
    end() {},
  };
  exportTo(host.booted, sink);
  return m;
}

function expected(doc: Record<string, any>): Map<string, string[]> {
  const m = new Map<string, string[]>();
  const one = (k: string, v: any) => m.set(k, v ? [JSON.stringify(k === "health" ? { ...v, boots: 0 } : v)] : []);
  for (const k of ["config", "profile", "relationship", "health"]) one(k, doc[k]);
  for (const k of ["likes", "dislikes", "family", "facts", "traits", "habits", "moments", "goals", "events", "chat", "pending", "episodes", "episode_tombstones"])
    m.set(k, Array.isArray(doc[k]) ? doc[k].map((x: unknown) => stable(k, x)) : []);
  for (const k of ["facts", "moments", "events", "digests", "tombstones"]) m.set(`archive.${k}`, doc.archive ? doc.archive[k].map((x: unknown) => JSON.stringify(x)) : []);
  return m;
}

// The first section and item where the imported device differs from the document.
function difference(got: Map<string, string[]>, want: Map<string, string[]>, doc: Record<string, unknown>): string | undefined {
  for (const [k, w] of want) {
    if ((k === "config" || k === "health") && doc[k] === null) continue; // the new device keeps its own
    let g = got.get(k) ?? [];
    if (k.indexOf("archive.") === 0 && k !== "archive.digests") {
      // a record the archive holds twice (a cut repeated a move) comes back once
      const seen = new Set<string>();
      const once = (l: string[]) => l.filter((x) => !seen.has(x) && (seen.add(x), true));
      const w1 = once(w);
      seen.clear();
      g = once(g);
      if (w1.length !== g.length) return `${k}: ${w1.length} items, ${g.length} after the import`;
      for (let i = 0; i < w1.length; i++) if (g[i] !== w1[i]) return `${k}[${i}]`;
      continue;
    }
    if (w.length !== g.length) return `${k}: ${w.length} items, ${g.length} after the import`;
    for (let i = 0; i < w.length; i++) if (g[i] !== w[i]) return `${k}[${i}]: ${g[i].slice(0, 120)}`;
  }
  return undefined;
}

// What the folder's device holds, learnt by booting a copy of it in RAM
// (nothing is written to the folder: a refused import leaves it byte for byte).
function peek(dir: string): string | undefined {
  const bin = path.join(dir, "nvs.bin");
  if (!fs.existsSync(bin)) return "memory in an old nvs.json";
  const dev = new SimDevice({ now: Date.now() }).install();
  try {
    dev.nvs.load(new Uint8Array(fs.readFileSync(bin)));
  } catch (e) {
    throw new Failure(`${dir}: its nvs.bin cannot be used (${(e as Error).message}); \`petmem reset\` erases it, or import with --yes after a reset`);
  }
  const storage = path.join(dir, "storage");
  if (fs.existsSync(storage)) for (const f of fs.readdirSync(storage)) if (!f.endsWith(".tmp")) dev.spiffs.load("/" + decodeURIComponent(f), new Uint8Array(fs.readFileSync(path.join(storage, f))));
  const booted = bootDevice(undefined, { sink: { remind() {} } });
  try {
    return holdsMemory(booted);
  } finally {
    booted.maintenance?.stop();
    booted.service.stop();
  }
}

export function runImport(ctx: Context, file: string, data: string, yes: boolean): void {
  const doc = readDocument(file);
  try {
    checkDocument(doc);
  } catch (e) {
    if (e instanceof ImportError) throw new Failure(`${file === "-" ? "stdin" : file}: ${e.message}; nothing was imported`);
    throw e;
  }
  const dir = checkDataDir(data);
  const lock = lockDataFolder(dir, "import");
  const fresh = path.join(dir, NEW);
  try {
    const cut = finishSwap(dir); // an import a cut interrupted
    if (cut) ctx.info(`petmem: ${cut}\n`);
    const held = hasDevice(dir) ? peek(dir) : undefined;
    if (held && !yes) throw new Failure(`${data} already holds a pet's memory (${held}); add --yes to replace it with the document's`);
    fs.rmSync(fresh, { recursive: true, force: true });
    let counts: Record<string, number>;
    const tmp = openHost({ data: fresh, command: "import", mustExist: false });
    try {
      ctx.progress("import: writing the new device");
      counts = importMemory(tmp.booted, doc, { replace: false }).counts;
    } catch (e) {
      if (e instanceof ImportError) throw new Failure(`${file}: ${e.message}; nothing was imported`);
      throw new Failure(`the import failed (${(e as Error).message}); nothing was imported, ${data} is as it was`);
    } finally {
      tmp.close();
    }
    // what flash holds, booted again, must be the document
    ctx.progress("import: checking the new device");
    const check = openHost({ data: fresh, command: "import", mustExist: true });
    let diff: string | undefined;
    try {
      diff = difference(collect(check), expected(doc as Record<string, any>), doc as Record<string, unknown>);
    } finally {
      check.close();
    }
    if (diff) throw new Failure(`the imported memory differs from the document at ${diff}; nothing was imported, ${data} is as it was`);
    commitSwap(dir);
    const total = Object.keys(counts).reduce((n, k) => n + counts[k], 0);
    ctx.info(`petmem: imported ${total} items into ${dir}${held ? ` (replacing ${held})` : ""}\n`);
  } finally {
    if (fs.existsSync(fresh)) finishSwap(dir); // not committed: the attempt goes
    lock.release();
  }
}

export const importCmd: Command = {
  name: "import",
  summary: "make a document of `petmem export` the pet's memory",
  usage: "import FILE|- [--yes] [--data DIR]",
  positionals: [{ name: "FILE|-", help: "the export document, or - for stdin" }],
  options: [DATA, YES],
  details: [
    "Into a device that holds no memory; one that does is replaced only with --yes.",
    "The whole document is checked first: a bad one is refused with the path of its first error",
    "($.facts[3].content) and nothing changes. The memory is written into a new device beside the",
    "folder's, booted again and compared with the document, and only then put in its place: an",
    "import that fails or is cut leaves the pet's memory as it was.",
  ].join("\n"),
  run(ctx) {
    runImport(ctx, ctx.args[0], (ctx.opts.data as string) ?? ".petmem", ctx.opts.yes === true);
  },
};

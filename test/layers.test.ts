// Imports point down: desktop/ (the Node program) stands on src/ (device
// code) and host-sim/ (the Moddable modules for Node); src/ imports only its
// own modules and Moddable module names; host-sim/ imports no desktop, test
// or tools code and of src/ only the clock's time source (the platform sets
// the device's wall clock, as SNTP and Time.set do on the device).
// Inside src/, the folders stand in one fixed order (SRC_ORDER: a folder
// imports only folders below it), and no files import each other in a circle
// (in src/, desktop/ or host-sim/; an `import type` counts: a circle of types is
// still a circle a reader must hold in mind at once).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MODDABLE = new Set(["preference", "file", "timer", "mc/config", "text/encoder", "text/decoder", "http", "securesocket"]);

// src/'s folders, lowest first: each imports only those before it (main.ts,
// the device's entry, stands on all of them)
export const SRC_ORDER = ["text", "time", "nvs", "net", "memory", "relation", "schedule", "config", "archive", "episode", "recall", "listen", "query", "mcp", "app", "link", "backup", "sync", "main.ts"];

function files(dir: string, root = repo): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(rel, root));
    else if (/\.(ts|mjs|js)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

// every module specifier a file imports (static, dynamic, export from; `import type` too)
function imports(file: string, root = repo): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g))
    out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

// The file a relative specifier names (src/ leaves out ".ts", desktop/ writes ".js"), or undefined.
function resolve(file: string, spec: string, root = repo): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = path.join(path.dirname(file), spec);
  for (const c of [base, base.replace(/\.m?js$/, ".ts"), base + ".ts", base + ".mjs", base + ".js", path.join(base, "index.ts")])
    if (/\.(ts|mjs|js)$/.test(c) && fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile()) return path.normalize(c);
  return undefined;
}

// The circles among the files of `dirs` (each as its files in order, the first
// again at the end), one per strongly connected group (Tarjan).
export function cycles(dirs: string[], root = repo): string[][] {
  const all = dirs.flatMap((d) => files(d, root));
  const edges = new Map<string, string[]>();
  for (const f of all) edges.set(f, [...new Set(imports(f, root).map((s) => resolve(f, s, root)).filter((t): t is string => t !== undefined && t !== f))]);
  let n = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(circleIn(group, edges));
    }
  };
  for (const f of all) if (!index.has(f)) visit(f);
  return found;
}

// one circle through a strongly connected group, for the message
function circleIn(group: string[], edges: Map<string, string[]>): string[] {
  const inGroup = new Set(group);
  const start = group.slice().sort()[0];
  const prev = new Map<string, string>([[start, ""]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const path: string[] = [start];
        for (let x = v; x !== start; x = prev.get(x)!) path.splice(1, 0, x);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return group;
}

// The imports in src/ that do not point down SRC_ORDER ("file: specifier").
export function upward(root = repo): string[] {
  const rank = (f: string) => SRC_ORDER.indexOf(path.relative(path.join(root, "src"), path.join(root, f)).split(path.sep)[0]);
  const bad: string[] = [];
  for (const f of files("src", root)) {
    const mine = rank(f);
    for (const s of imports(f, root)) {
      const t = resolve(f, s, root);
      if (t === undefined || !t.startsWith("src" + path.sep)) continue;
      const theirs = rank(t); // the same rank: the same folder
      if (mine < 0 || theirs < 0 || theirs > mine) bad.push(`${f}: ${s}`);
    }
  }
  return bad;
}

// a folder of files with the given text, for the tests of the checker itself
function plant(filesByPath: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-layers-"));
  for (const [p, text] of Object.entries(filesByPath)) {
    fs.mkdirSync(path.join(root, path.dirname(p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), text);
  }
  return root;
}

function layerOf(file: string, spec: string): string {
  if (!spec.startsWith(".")) return MODDABLE.has(spec) ? "moddable" : spec.startsWith("node:") ? "node" : "package";
  return path.relative(repo, path.resolve(repo, path.dirname(file), spec)).split(path.sep)[0];
}

describe("layers: imports point down", () => {
  it("the checker sees imports (a file that imports upward is caught)", () => {
    assert.deepEqual(imports("desktop/main.ts"), ["./cli.js"]);
    assert.equal(layerOf("host-sim/device.ts", "../desktop/host.js"), "desktop");
    assert.equal(layerOf("src/app/boot.ts", "timer"), "moddable");
  });

  it("src/ imports only src/ and Moddable module names", () => {
    const bad = files("src").flatMap((f) => imports(f).filter((s) => layerOf(f, s) !== "src" && layerOf(f, s) !== "moddable").map((s) => `${f}: ${s}`));
    assert.deepEqual(bad, []);
  });

  it("host-sim/ imports no desktop/, test/ or tools/, and of src/ only the time source", () => {
    const bad = files("host-sim").flatMap((f) =>
      imports(f)
        .filter((s) => {
          const l = layerOf(f, s);
          if (l === "src") return path.relative(repo, path.resolve(repo, path.dirname(f), s)) !== path.join("src", "time", "clock.js");
          return l === "desktop" || l === "test" || l === "tools";
        })
        .map((s) => `${f}: ${s}`),
    );
    assert.deepEqual(bad, []);
  });

  it("desktop/ imports no test/ or tools/; nothing in src/, host-sim/ imports desktop/", () => {
    const bad = files("desktop").flatMap((f) => imports(f).filter((s) => ["test", "tools"].includes(layerOf(f, s))).map((s) => `${f}: ${s}`));
    assert.deepEqual(bad, []);
    assert.equal(fs.existsSync(path.join(repo, "host-sim", "node")), false, "the Node program is not in host-sim/");
  });

  it("src/'s folders are all in the fixed order, and every import in src/ points down it", () => {
    const folders = fs.readdirSync(path.join(repo, "src"));
    assert.deepEqual(folders.filter((d) => !SRC_ORDER.includes(d)), [], "a new folder of src/ takes its place in SRC_ORDER");
    assert.deepEqual(upward(), []);
  });

  it("no files import each other in a circle (src/, desktop/, host-sim/; type-only imports count)", () => {
    assert.deepEqual(cycles(["src", "desktop", "host-sim"]), []);
  });

  it("the checks fail on a planted circle and a planted upward import", () => {
    const root = plant({
      "src/mcp/a.ts": 'import type { B } from "./b";\nexport type A = { b: B };\n',
      "src/mcp/b.ts": 'import type { A } from "./a";\nexport type B = { a?: A };\n',
      "src/query/q.ts": 'import { x } from "../mcp/a";\nexport const q = x;\n',
      "desktop/one.ts": 'import { two } from "./two.js";\nexport const one = two;\n',
      "desktop/two.ts": 'export { three as two } from "./three.js";\n',
      "desktop/three.ts": 'export const three = import("./one.js");\n',
      "src/text/ok.ts": "export const ok = 1;\n",
      "src/time/ok.ts": 'import { ok } from "../text/ok";\nexport const t = ok;\n',
    });
    try {
      assert.deepEqual(cycles(["src"], root), [["src/mcp/a.ts", "src/mcp/b.ts", "src/mcp/a.ts"]]);
      assert.deepEqual(cycles(["desktop"], root), [["desktop/one.ts", "desktop/two.ts", "desktop/three.ts", "desktop/one.ts"]]);
      assert.deepEqual(upward(root), ["src/query/q.ts: ../mcp/a"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

// Imports point down: desktop/ (the Node program) stands on src/ (device
// code) and host-sim/ (the Moddable modules for Node); src/ imports only its
// own modules and Moddable module names; host-sim/ imports no desktop, test
// or tools code and of src/ only the clock's time source (the platform sets
// the device's wall clock, as SNTP and Time.set do on the device).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MODDABLE = new Set(["preference", "file", "timer", "mc/config", "text/encoder", "text/decoder", "http", "securesocket"]);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(repo, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(rel));
    else if (/\.(ts|mjs|js)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

// every module specifier a file imports (static, dynamic, export from)
function imports(file: string): string[] {
  const text = fs.readFileSync(path.join(repo, file), "utf8").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g))
    out.push(m[1] ?? m[2] ?? m[3]);
  return out;
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
});

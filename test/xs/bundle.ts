// Bundles code for the XS engine: one flat script (es2022, UTF-8), with the
// Moddable module names mapped to host-sim/ by tsconfig.json's `paths` (the
// same mapping tsc and tsx use). A plugin refuses Node built-ins and
// desktop/, so nothing that could not run on the device gets in.
// Used by the XS test lane (run.ts) and the benchmark (tools/bench.ts).

import * as esbuild from "esbuild";
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const rel = (p: string) => path.relative(repoRoot, p) || p;

const nodeBuiltins = new Set(builtinModules);
function pureOnly(harness?: string): esbuild.Plugin {
  return {
    name: "petmem-xs-pure",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (a) => {
        const top = a.path.split("/")[0];
        if (a.path.startsWith("node:") || nodeBuiltins.has(a.path) || nodeBuiltins.has(top))
          return { errors: [{ text: `Node built-in "${a.path}" imported from ${rel(a.importer)}: code bundled for XS must not use Node APIs` }] };
        return undefined;
      });
      const altIndex = process.env.XS_SCENARIO_INDEX;
      if (altIndex && harness)
        build.onResolve({ filter: /^\.\.\/scenarios\/index\.js$/ }, (a) => (a.importer === harness ? { path: path.resolve(altIndex) } : undefined));
      build.onLoad({ filter: /[\\/]desktop[\\/]/ }, (a) => ({
        errors: [{ text: `${rel(a.path)} is Node-only (desktop/) and cannot be bundled for XS` }],
      }));
    },
  };
}

export async function bundleForXs(entry: string, out: string, opts: { sourcemap?: boolean; harness?: boolean } = {}): Promise<void> {
  const r = await esbuild
    .build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      // esm, run as a plain script: the bundle's top-level bindings become global
      // bindings on the heap. An IIFE would make them locals of one function,
      // each a slot of the 1,024-slot XS stack (about 690 overflowed it).
      format: "esm",
      target: "es2022",
      platform: "neutral",
      mainFields: ["module", "main"],
      tsconfig: path.join(repoRoot, "tsconfig.json"), // its `paths` map the Moddable module names to host-sim/
      charset: "utf8", // keep non-ASCII literals as UTF-8, as the device toolchain does
      legalComments: "none",
      sourcemap: opts.sourcemap ? "external" : false, // external: XS would read only sources[0]; run.ts maps locations itself
      logLevel: "silent",
      plugins: [pureOnly(opts.harness ? entry : undefined)],
    })
    .catch((e: esbuild.BuildFailure) => {
      const msgs = (e.errors ?? []).map((m) => `  ${m.location ? `${m.location.file}:${m.location.line}: ` : ""}${m.text}`);
      throw new Error(`bundling for XS failed:\n${msgs.join("\n") || String(e)}`);
    });
  const text = fs.readFileSync(out, "utf8");
  if (/^\s*(import|export)\b/m.test(text.replace(/^export\s*\{[^}]*\};?\s*$/m, ""))) throw new Error(`bundling for XS: ${rel(entry)} must not export or import at run time`);
  fs.writeFileSync(out, text.replace(/^export\s*\{[^}]*\};?\s*$/m, ""));
  if (r.warnings.length) for (const w of r.warnings) process.stderr.write(`# esbuild warning: ${w.text}\n`);
}

// XS gives each top-level declaration of a script a slot of its stack while the
// script runs (the device's 1,024 slots, manifest.json): a script of 700
// function declarations runs, one of 1,100 overflows it, and the whole lane's
// bundle has about 900. So the bundle runs as several scripts, cut between
// modules (esbuild's "// path" lines) at most PART_DECLS declarations each;
// their bindings become globals that the later parts see. Each part is
// preceded by blank lines so that its line numbers are the bundle's.
const PART_DECLS = 450;

export function splitBundle(bundlePath: string): string[] {
  const lines = fs.readFileSync(bundlePath, "utf8").split("\n");
  const parts: string[] = [];
  let from = 0, decls = 0;
  const flush = (to: number) => {
    const file = bundlePath.replace(/\.js$/, `.p${parts.length + 1}.js`);
    fs.writeFileSync(file, "\n".repeat(from) + lines.slice(from, to).join("\n") + "\n");
    parts.push(file);
    from = to;
    decls = 0;
  };
  lines.forEach((l, i) => {
    if (decls >= PART_DECLS && i > from && /^\/\/ \S+\.(ts|js)$/.test(l)) flush(i);
    if (/^(var|let|const|function|async function|class) /.test(l)) decls += /^(var|let|const) /.test(l) ? l.split(",").length : 1;
  });
  flush(lines.length);
  return parts;
}

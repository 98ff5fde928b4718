// manifest.json per platform: where memory lives, what is preloaded, the XS
// heap. Each rule here is one that broke on the real SDK (docs/DESIGN.md,
// "Targets"): a top-level config that gave every platform the device's /data/,
// a preloaded preference module on Linux that froze its cache at build time,
// a default creation that did not fit.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const manifest = JSON.parse(fs.readFileSync("manifest.json", "utf8"));
const platforms = manifest.platforms as Record<string, any>;
const DEVICES = ["esp32/esp32s3", "esp32"];
const SIMULATORS = ["lin", "mac", "win"];
const ALL = [...DEVICES, "x-cli-lin", ...SIMULATORS];

// src modules by their manifest name ("archive/line"), with what they import (resolved to names).
function sourceModules(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) {
        const name = path.relative("src", p).slice(0, -3).split(path.sep).join("/");
        const deps = new Set<string>();
        const text = fs.readFileSync(p, "utf8");
        for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?"([^"]+)"/gm)) {
          const spec = m[1];
          deps.add(spec.startsWith(".") ? path.posix.normalize(path.posix.join(path.posix.dirname(name), spec)) : spec);
        }
        out.set(name, deps);
      }
    }
  };
  walk("src");
  return out;
}
const modules = sourceModules();

// Modules that make RegExp objects at load (a module-level constant). Preloaded,
// such a RegExp lives in flash, and SDK 8.2.3's XS corrupts memory when it runs
// one (xsre.c, fxAllocateRegExpData: a missing `else` hands the engine a malloc'd
// buffer as a chunk; docs/DESIGN.md, "Targets"). Device builds need the SDK fixed;
// the simulators must work on an SDK as it comes.
// (a module constant, or a static field of a class, which runs at load too)
const REGEXP_AT_LOAD = /^(?:(?:export )?(?:const|let) |\s+static (?:readonly )?)[A-Za-z_$][\w$]* *(?::[^=]+)?= *(?:\/|new RegExp)/m;
const makesRegExps = new Set([...modules.keys()].filter((m) => REGEXP_AT_LOAD.test(fs.readFileSync(`src/${m}.ts`, "utf8"))));
const imports = (name: string, target: string, seen = new Set<string>()): boolean => {
  for (const d of modules.get(name) ?? []) {
    if (d === target) return true;
    if (!seen.has(d)) {
      seen.add(d);
      if (imports(d, target, seen)) return true;
    }
  }
  return false;
};

const xcliConfig = fs.readFileSync("tools/x-cli-lin/mc/config.js", "utf8");
const xcliHost = fs.readFileSync("tools/x-cli-lin/petmem-host.c", "utf8");

function root(platform: string): string | undefined {
  if (platform === "x-cli-lin") return /root:\s*"([^"]+)"/.exec(xcliConfig)?.[1];
  return platforms[platform]?.config?.file?.root;
}

describe("manifest.json: targets", () => {
  it("builds for every target and refuses the others", () => {
    assert.deepEqual(Object.keys(platforms).filter((p) => p !== "...").sort(), [...ALL].sort());
    assert.ok(platforms["..."]?.error);
  });

  it("gives no config, defines or preload to every platform at once", () => {
    for (const k of ["config", "defines", "preload"]) assert.equal(manifest[k], undefined, `top-level "${k}" applies to every platform`);
  });

  for (const p of ALL) {
    it(`${p}: memory lives in a folder of its own`, () => {
      const r = root(p);
      assert.ok(r, `${p} has no config.file.root`);
      assert.ok(r!.endsWith("/"), `${p}: the root ${r} must end with /`);
      if (DEVICES.includes(p)) {
        assert.equal(r, "/data/");
        assert.equal(platforms[p].defines?.file?.root, "#/data", `${p}: the SPIFFS mount point must match config.file.root`);
      } else {
        assert.notEqual(r, "/data/", `${p} cannot create /data/`);
        assert.equal(platforms[p]?.defines?.file?.root, undefined, `${p}: defines.file.root is the ESP32 mount point`);
      }
    });
  }

  it("x-cli-lin: the host creates the folder its mc/config names, and uses the project's mc/config and preference", () => {
    const dir = /#define PETMEM_DATA_DIR "([^"]+)"/.exec(xcliHost)?.[1];
    assert.equal(`${dir}/`, root("x-cli-lin"));
    const mods = platforms["x-cli-lin"].modules;
    assert.equal(mods["mc/config"], "./tools/x-cli-lin/mc/config");
    assert.ok(mods["*"].includes("./tools/x-cli-lin/preference"));
    assert.ok(!mods["*"].some((m: string) => m.includes("files/preference")), "the SDK's Linux preference caches at load: not on x-cli-lin");
  });

  it("the x-cli-lin preference loads nothing at its top level and keeps no state in the XS heap", () => {
    const text = fs.readFileSync("tools/x-cli-lin/preference.js", "utf8");
    // NVS lives in C on the device: a cache here would count against the heap x-cli-lin measures
    assert.doesNotMatch(text, /^(let|var)\s/m, "module-level variables");
    assert.match(text, /new File\(/, "every call goes to the file system");
    assert.doesNotMatch(text, /static\s+#?\w+\s*=/, "a static field initializer runs at load, i.e. at build time when preloaded");
  });

  for (const p of ALL) {
    describe(`${p}: preload`, () => {
      const preload: string[] = platforms[p].preload ?? [];
      it("never main (it boots the device at its top level)", () => {
        assert.ok(preload.length > 0);
        assert.ok(!preload.includes("main"));
      });
      it("names only modules that exist", () => {
        for (const m of preload) assert.ok(modules.has(m) || m in (platforms[p].modules ?? {}) || ["text/encoder", "text/decoder", "timer", "file", "mc/config", "http", "socket"].includes(m), m); // an SDK module the platform names (securesocket, ssl/session) exists too
      });
      if (SIMULATORS.includes(p)) {
        it("nothing that makes RegExps at load (XS 17 in SDK 8.2.3 breaks a RegExp run from flash)", () => {
          assert.ok(makesRegExps.size > 0, "the check must see the listen modules' RegExps");
          for (const m of preload) {
            assert.ok(!makesRegExps.has(m), `${m} makes RegExps at load`);
            for (const r of makesRegExps) assert.ok(!imports(m, r), `${m} imports ${r}`);
          }
        });
      }
      if (p === "lin") {
        it("nothing that imports the SDK's Linux preference, which would be preloaded with it and freeze its cache", () => {
          assert.ok(!preload.includes("preference"));
          for (const m of preload) assert.ok(!imports(m, "preference"), `${m} imports preference`);
        });
        it("every other src module but those that make RegExps", () => {
          const regexps = (m: string) => makesRegExps.has(m) || [...makesRegExps].some((r) => imports(m, r));
          const missing = [...modules.keys()].filter((m) => m !== "main" && !imports(m, "preference") && !regexps(m) && !preload.includes(m));
          assert.deepEqual(missing, []);
        });
      } else {
        it(SIMULATORS.includes(p) ? "every src module but main and those that make RegExps" : "every src module but main", () => {
          assert.ok(!preload.includes("preference") || p !== "x-cli-lin");
          const regexps = (m: string) => SIMULATORS.includes(p) && (makesRegExps.has(m) || [...makesRegExps].some((r) => imports(m, r)));
          const missing = [...modules.keys()].filter((m) => m !== "main" && !regexps(m) && !preload.includes(m));
          assert.deepEqual(missing, []);
        });
      }
    });
  }

  for (const p of DEVICES) {
    it(`${p}: creation is set explicitly, the ESP32-S3's default heap and chunk with no growth`, () => {
      const c = platforms[p].creation;
      assert.equal(c?.heap?.initial, 4928);
      assert.equal(c?.heap?.incremental, 0);
      assert.equal(c?.chunk?.initial, 78848);
      assert.equal(c?.chunk?.incremental, 0);
      assert.ok(Number.isInteger(c?.stack) && c.stack >= 512, "stack");
    });
  }

  it("the XS lane runs with the device's stack", () => {
    assert.equal(manifest.creation?.stack, platforms["esp32/esp32s3"].creation.stack);
  });
});

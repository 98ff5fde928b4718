// Node-only checks of the archive: device-code rules in src/archive, object
// names that SPIFFS can hold, and docs/FORMAT.md §3 kept in step with the code.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import "../host-sim/trace";
import { typeState } from "../src/archive/state";
import { ARCHIVE_TYPES, MAX_LINE_BYTES, TS_OFFSET, PREFIX } from "../src/archive/line";
import { IDX_HEADER, ENTRY_BYTES, SIG_HEADER, IDX_MAGIC, SIG_MAGIC, IDX_VERSION } from "../src/archive/sidecar";
import { SIG_BYTES, SIG_HASHES } from "../src/archive/fold";
import { CHUNK } from "../src/archive/file";
import { BUDGET_FRACTION, LOW_WATER, SOFT_LIMIT } from "../src/archive/archive";
import { KEEP_BLOCKS } from "../src/archive/compact";
import { Archive } from "../src/archive/archive";
import type { ArchiveAccess } from "../src/mcp/memory-tool";
import { SimDevice } from "../host-sim/device";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "src/archive");
const sources = fs.readdirSync(dir).filter((f) => f.endsWith(".ts"));

describe("archive (Node only)", () => {
  it("src/archive is device code: Moddable modules and its own, no Node or engine features the device lacks", () => {
    assert.ok(sources.length >= 8);
    const allowed = new Set(["file", "mc/config", "timer", "text/encoder", "text/decoder"]);
    for (const f of sources) {
      const text = fs.readFileSync(path.join(dir, f), "utf8");
      for (const m of text.matchAll(/\bfrom\s+"([^"]+)"/g)) {
        const spec = m[1];
        if (spec.startsWith(".")) assert.ok(!/\.(ts|js)$/.test(spec), `${f}: import ${spec} with an extension`);
        else assert.ok(allowed.has(spec), `${f}: imports ${spec}`);
      }
      const code = text.replace(/\/\/.*$/gm, "");
      for (const bad of ["console.", "setTimeout", "Intl.", "\\p{", ".normalize(", "localeCompare", "toSorted", "Object.groupBy", "process.", "require(", "structuredClone"])
        assert.ok(!code.includes(bad), `${f} uses ${bad}`);
    }
  });

  it("an Archive is what the memory tool's recall takes (ArchiveAccess)", () => {
    new SimDevice().install();
    const access: ArchiveAccess = new Archive();
    assert.deepEqual(access.recall("fact", { limit: 10 }), []);
    assert.equal(access.count("event"), 0);
  });

  it("every object name fits SPIFFS (31 bytes) and every rename path the ESP32 port's 31-byte buffer", () => {
    for (const t of ARCHIVE_TYPES) {
      const s = typeState("/data/", t);
      for (const p of [s.path, s.idx, s.sig, s.newPath, s.donePath, s.nix, s.nsg]) {
        assert.ok(Buffer.byteLength(p) <= 31, p);
        assert.ok(Buffer.byteLength(p.slice("/data".length)) <= 31, p);
      }
    }
  });

  it("docs/FORMAT.md §3 documents the archive with the code's numbers", () => {
    const doc = fs.readFileSync(path.join(root, "docs/FORMAT.md"), "utf8");
    const at = doc.indexOf("## 3. Archive (SPIFFS)");
    assert.ok(at >= 0, "section 3 is there");
    const next = doc.indexOf("\n## ", at + 5);
    const sec = next < 0 ? doc.slice(at) : doc.slice(at, next);
    const le = (n: number) => [0, 8, 16, 24].map((s) => ((n >>> s) & 0xff).toString(16).toUpperCase().padStart(2, "0")).join(" ");
    for (const [what, text] of [
      ["file names", "facts.jsonl"],
      ["file names", "moments.jsonl"],
      ["file names", "events.jsonl"],
      ["line cap", `at most ${MAX_LINE_BYTES} bytes\nwith its newline`],
      ["prefix", PREFIX.replace(/"/g, '"')],
      ["timestamp offset", `offset ${TS_OFFSET}`],
      ["index magic", le(IDX_MAGIC)],
      ["signature magic", le(SIG_MAGIC)],
      ["index header", `${IDX_HEADER}-byte header`],
      ["entry", `${ENTRY_BYTES}-byte entr`],
      ["signature header", `${SIG_HEADER}-byte header`],
      ["signature", `one signature of ${SIG_BYTES} bytes per entry`],
      ["signature bits", `${SIG_BYTES * 8}-bit Bloom filter`],
      ["bit masks", `\`h & ${SIG_BYTES * 8 - 1}\``],
      ["hashes", `sets ${SIG_HASHES} bit positions`],
      ["block", `blocks of whole lines of at most ${CHUNK} bytes`],
      ["version", `version ${IDX_VERSION}`],
      ["budget", `${Math.round(BUDGET_FRACTION * 100)}%`],
      ["low water", `${Math.round(LOW_WATER * 100)}%`],
      ["soft limit", `${Math.round(SOFT_LIMIT * 100)}%`],
      ["kept blocks", `${KEEP_BLOCKS} newest blocks`],
      ["torn close", "`#\\n`"],
      [".new", ".new"],
      [".done", ".done"],
      [".nix", ".nix"],
      [".nsg", ".nsg"],
    ] as const)
      assert.ok(sec.includes(text), `§3 lacks the ${what}: ${text}`);
  });
});

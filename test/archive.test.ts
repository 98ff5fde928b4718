// Node-only checks of the archive (format 2): device-code rules in src/archive,
// object names that SPIFFS can hold, and docs/FORMAT.md §3 kept in step with
// the code's numbers.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import "../host-sim/trace";
import { MAX_LINE, SUFFIX, SUFFIX4, EPOCH4, STREAMS } from "../src/archive/codec";
import { segName, SIDE_MAGIC, SIDE_HEADER, ENTRY, RECORD, SIDE_MAX, SEGMENT_BLOCKS, SEGMENT_BYTES as SEGMENT_BYTES_SEG } from "../src/archive/segment";
import { SEGMENT_BYTES } from "../src/archive/stream";
import { SUMMARY_BYTES, CAT_HEADER, CAT_ENTRY } from "../src/archive/catalog";
import { TOMB_HEADER, TOMB_ENTRY, MAX_TOMBS } from "../src/archive/tomb";
import { SIG_BYTES, SIG_HASHES } from "../src/archive/fold";
import { CHUNK } from "../src/archive/file";
import { LIVE_SEQ } from "../src/archive/migrate";
import { RETIRE_AT, HARD_LIMIT, Archive } from "../src/archive/archive";
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
      for (const bad of ["console.", "setTimeout", "Intl.", "\\p{", ".normalize(", "localeCompare", "toSorted", "toReversed", "Object.groupBy", "process.", "require(", "structuredClone", "TextEncoder", "TextDecoder"])
        assert.ok(!code.includes(bad), `${f} uses ${bad}`);
    }
  });

  it("an Archive is what the memory tool's recall takes (ArchiveAccess)", () => {
    new SimDevice().install();
    const access: ArchiveAccess = new Archive();
    assert.deepEqual(access.recall("fact", { limit: 10 }), []);
    assert.equal(access.count("event"), 0);
  });

  it("every object name fits SPIFFS (31 bytes), and every rename path the ESP32 port's 31-byte buffer", () => {
    const names: string[] = ["/data/tomb.a", "/data/tomb.b", "/data/v1mig.a", "/data/v1mig.b"];
    for (const s of STREAMS) {
      for (const ext of ["jsonl", "six", "twn", "ret", "scr", "scx"] as const) names.push(segName("/data/", s, 999999, ext));
      names.push(segName("/data/", s, 999999, "jsonl").replace(/jsonl$/, "old"));
      names.push(`/data/${s[0]}.cat`, `/data/${s[0]}.sum`, `/data/${s[0]}.sun`, `/data/${s[0]}.bsr`, `/data/${s[0]}.bsc`);
    }
    for (const p of names) {
      assert.ok(Buffer.byteLength(p) <= 31, p);
      assert.ok(Buffer.byteLength(p.slice("/data".length)) <= 31, p);
    }
  });

  it("the format's numbers agree with each other", () => {
    assert.equal(SEGMENT_BYTES_SEG, SEGMENT_BYTES, "segment.ts and stream.ts say the same segment size");
    // blocks of whole lines of at most 512 bytes are at least CHUNK - 511 bytes: 16 records suffice
    assert.ok(Math.ceil(SEGMENT_BYTES / (CHUNK - MAX_LINE + 1)) <= SEGMENT_BLOCKS);
    assert.equal(RECORD, ENTRY + SIG_BYTES);
    assert.equal(SIDE_MAX, SIDE_HEADER + SEGMENT_BLOCKS * RECORD);
    assert.ok(SIDE_MAX <= 2 * CHUNK);
    assert.ok(RETIRE_AT < HARD_LIMIT && HARD_LIMIT <= 0.75);
  });

  it("docs/FORMAT.md §3 documents the archive with the code's numbers", () => {
    const doc = fs.readFileSync(path.join(root, "docs/FORMAT.md"), "utf8");
    const at = doc.indexOf("## 3. Archive (SPIFFS)");
    assert.ok(at >= 0, "section 3 is there");
    const next = doc.indexOf("\n## ", at + 5);
    const sec = (next < 0 ? doc.slice(at) : doc.slice(at, next)).replace(/\s+/g, " ");
    const le = (n: number) => [0, 8, 16, 24].map((s) => ((n >>> s) & 0xff).toString(16).toUpperCase().padStart(2, "0")).join(" ");
    const comma = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    for (const [what, text] of [
      ["segment names", "/<s><seq>.jsonl"],
      ["sidecar names", "/<s><seq>.six"],
      ["twin names", "/<s><seq>.twn"],
      ["catalog names", "/<s>.cat"],
      ["tombstones", "/tomb.a"],
      ["line cap", `at most ${MAX_LINE} bytes with the newline`],
      ["CRC suffix", `the ${SUFFIX} bytes \`,"z":"hhhhhhhh"}\``],
      ["CRC suffix, format 4", `the ${SUFFIX4} bytes \`,"z":"bbbbbb"}\``],
      ["format 4's time epoch", `2020-01-01T00:00:00Z (${EPOCH4})`],
      ["segment size", `${comma(SEGMENT_BYTES)} bytes`],
      ["block records", `${SEGMENT_BLOCKS} block records`],
      ["sidecar magic", le(SIDE_MAGIC)],
      ["sidecar header", `Header, ${SIDE_HEADER} bytes`],
      ["block record", `${SIDE_HEADER} + ${RECORD}·i`],
      ["sidecar size", `${comma(SIDE_MAX)} bytes`],
      ["block size", `at most ${CHUNK} bytes`],
      ["block signature", `${SIG_BYTES * 8}-bit Bloom filter`],
      ["summary bits", `${comma(SUMMARY_BYTES * 8)}-bit filter`],
      ["summary slots", `${CAT_HEADER} + ${SUMMARY_BYTES}·(i − base)`],
      ["catalog entries", `${CAT_HEADER} + ${CAT_ENTRY}·i`],
      ["hashes", `sets ${SIG_HASHES} bits`],
      ["block mask", `${SIG_BYTES * 8 - 1} for a block`],
      ["summary mask", `${SUMMARY_BYTES * 8 - 1} for a summary`],
      ["tomb header", `Header, ${TOMB_HEADER} bytes: magic \`${le(0x32544d50)}\``],
      ["tomb entries", `${TOMB_ENTRY}-byte entries`],
      ["tomb cap", `At most ${MAX_TOMBS} tombstones`],
      ["retire", `above ${Math.round(RETIRE_AT * 100)}%`],
      ["hard limit", `above ${Math.round(HARD_LIMIT * 100)}% first retires`],
      ["live seq", `${LIVE_SEQ}`],
      ["torn close", "`#\\n`"],
    ] as const)
      assert.ok(sec.includes(text), `§3 lacks the ${what}: ${text}`);
  });
});

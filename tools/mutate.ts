// Mutation proof of the crash-safety suite: each recovery check of src/ is
// removed on purpose, one at a time, in a temporary copy of the repository
// (the working tree is never edited), and the tests must notice.
//
//   npx tsx tools/mutate.ts [--only NAME[,NAME]] [--all-stages] [--list]
//   --list: the mutations and whether each still applies to src/ (no tests run)
//
// Stages, in order; a mutation is caught by the first stage in which a check
// that passes on the unmutated copy fails (--all-stages runs every stage):
//   1. powercut: `tools/powercut.ts --quick` (every fault kind host-sim models,
//      every workload, the absolute oracle); a kind/workload pair that is clean
//      on the unmutated copy and not on the mutant catches it;
//   2. scenarios: the shared scenarios under mocha (test/scenarios.test.ts).
// Prints one JSON line per mutation {"mutation","file","caught_by",...} and a
// summary line; exits 1 if a mutation is missed or no longer applies (src/
// changed: update its `find`).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface Mutation {
  name: string;
  file: string;
  find: string; // must occur exactly once
  replace: string;
  why: string; // the recovery check it removes
}

export const MUTATIONS: Mutation[] = [
  {
    name: "store-crc-check",
    file: "src/nvs/store.ts",
    find: `if (v.getUint32(12, true) !== blobCrc(b)) return this.fail(s.name, where, "crc");`,
    replace: ``,
    why: "a copy whose CRC fails is set aside",
  },
  {
    name: "store-seq-compare",
    file: "src/nvs/store.ts",
    find: `for (const c of copies) if (!best || newer(c.seq, best.seq)) best = c;`,
    replace: `for (const c of copies) if (!best || newer(best.seq, c.seq)) best = c;`,
    why: "boot takes the newer of two valid copies (seq)",
  },
  {
    name: "store-incomplete-part",
    file: "src/nvs/store.ts",
    find: `} else if (sq !== seq || b[11] !== parts) return this.fail(s.name, where0(0), "incomplete");`,
    replace: `}`,
    why: "a part of another copy (other seq or part count) makes the copy incomplete",
  },
  {
    name: "store-missing-part",
    file: "src/nvs/store.ts",
    find: `if (raw === undefined) return this.fail(s.name, where0(0), "incomplete");`,
    replace: `if (raw === undefined) break;`,
    why: "a copy with a missing part is incomplete",
  },
  {
    name: "store-length-check",
    file: "src/nvs/store.ts",
    find: `if (b.length !== HEADER_BYTES + count * layout.size) return this.fail(s.name, where, "length");`,
    replace: ``,
    why: "a blob whose length disagrees with its record count is set aside",
  },
  {
    name: "store-write-in-place",
    file: "src/nvs/store.ts",
    find: `else order = this.held.b && !this.held.a ? ["a", "b"] : ["b", "a"];`,
    replace: `else order = this.held.b && !this.held.a ? ["b", "a"] : ["a", "b"];`,
    why: "a changed table goes first to the slot that does not hold the only good copy",
  },
  {
    name: "store-second-copy",
    file: "src/nvs/store.ts",
    find: `        this.held[second] = this.writeSlot(this.slot(second), blobs);`,
    replace: `        this.held[second] = undefined;`,
    why: "a two-copy store writes its second NVS copy",
  },
  {
    name: "tool-flush-before-ack",
    file: "src/mcp/memory-tool.ts",
    find: `    const c: Commit = this.memory.commit(mark);`,
    replace: `    const c: Commit = { saved: [], unsaved: [], degraded: [] };`,
    why: "a change is flushed (committed) before the reply acknowledges it",
  },
  {
    name: "tool-not-saved-answer",
    file: "src/mcp/memory-tool.ts",
    find: `    if (!quiet && c.unsaved.some((n) => n !== "pending")) throw new ToolError(`,
    replace: `    if (false) throw new ToolError(`,
    why: "a change that did not reach flash is answered `not saved`, never as stored",
  },
  {
    name: "resolve-at-boot-rolling",
    file: "src/archive/archiver.ts",
    find: `      if (both.length) {`,
    replace: `      if (false) {`,
    why: "boot removes from NVS the facts and moments a cut left also in the archive",
  },
  {
    name: "resolve-at-boot-events",
    file: "src/archive/archiver.ts",
    find: `      if (inArchive.some((x) => x)) {`,
    replace: `      if (false) {`,
    why: "boot removes from NVS the events a cut left also in the archive",
  },
  {
    name: "daily-move-archive-first",
    file: "src/archive/archiver.ts",
    find: `      this.archive.append(type, old);\n      r[type] = m.evict(store, old);\n      m.stores[store].flush();`,
    replace: `      r[type] = m.evict(store, old);\n      m.stores[store].flush();\n      this.archive.append(type, old);`,
    why: "a move writes the archive before NVS lets the record go",
  },
  {
    name: "weekly-move-archive-first",
    file: "src/archive/archiver.ts",
    find: `      this.archive.append("event", past);\n      m.setEvents(events.filter((e) => !past.some((p) => sameEvent(p, e))));\n      m.stores.events.flush();`,
    replace: `      m.setEvents(events.filter((e) => !past.some((p) => sameEvent(p, e))));\n      m.stores.events.flush();\n      this.archive.append("event", past);`,
    why: "the weekly move writes the archive before NVS lets the event go",
  },
  {
    name: "overflow-to-archive",
    file: "src/memory/memory.ts",
    find: `    this.overflow(type, out);`,
    replace: ``,
    why: "a full rolling store hands its oldest records to the archive",
  },
  {
    name: "append-dedupe",
    file: "src/archive/archive.ts",
    find: `const fresh = enc.filter((_e, i) => !found[i]);`,
    replace: `const fresh = enc.filter(() => true);`,
    why: "a record already archived (same id) is not archived again",
  },
  {
    name: "torn-line-repair",
    file: "src/archive/archive.ts",
    find: `const repair = t.length > t.validEnd;`,
    replace: `const repair = false;`,
    why: "a torn last line is closed off before the next append",
  },
  {
    name: "valid-end-scan",
    file: "src/archive/file.ts",
    find: `    if (i >= 0) return s + i + 1;`,
    replace: `    if (i >= 0) return length;`,
    why: "boot finds the end of the last complete line (a torn append after it)",
  },
  {
    name: "compaction-finish-done",
    file: "src/archive/compact.ts",
    find: `  if (has(t.donePath)) {`,
    replace: `  if (false) {`,
    why: "boot finishes a compaction cut after its commit (.done)",
  },
  {
    name: "compaction-discard-new",
    file: "src/archive/compact.ts",
    find: `  if (has(t.newPath)) {`,
    replace: `  if (false) {`,
    why: "boot discards a compaction cut before its commit (.new and its index)",
  },
  {
    name: "compaction-commit-point",
    file: "src/archive/compact.ts",
    find: `  rename(t.newPath, t.donePath);`,
    replace: `  rename(t.newPath, t.path);`,
    why: "compaction commits by renaming .new to .done before touching the old file",
  },
  {
    name: "index-checked-against-file",
    file: "src/archive/sidecar.ts",
    find: "if (buf[b.length - 1] !== NL || crc32(buf, 0, b.length) !== b.crc) return `block at ${b.offset} changed`;",
    replace: ``,
    why: "boot checks the index's first and last blocks against the file (CRC)",
  },
  {
    name: "reminder-mark-before-deliver",
    file: "src/schedule/reminder.ts",
    find: `        this.memory.stores.events.flush();`,
    replace: ``,
    why: "a reminder's mark is on flash before the reminder is delivered (at most once)",
  },
  {
    name: "listener-recover-at-boot",
    file: "src/app/service.ts",
    find: `    this.listener.recover(); // confirmed items a cut or a reboot left pending`,
    replace: ``,
    why: "boot writes the confirmed items a cut left pending",
  },
];

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");

function copyRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-mutate-"));
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: repo, encoding: "utf8" }).split("\n").filter((f) => f && !f.startsWith("node_modules"));
  for (const f of files) {
    const src = path.join(repo, f);
    if (!fs.existsSync(src) || fs.statSync(src).isDirectory()) continue;
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(src, path.join(dir, f));
  }
  fs.symlinkSync(fs.realpathSync(path.join(repo, "node_modules")), path.join(dir, "node_modules"));
  return dir;
}

type Bad = Set<string>;

// Stage 1: kind/workload pairs with a loss, a boot failure, a wrong reply or a crash.
function powercut(dir: string): { bad: Bad; error?: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "tools/powercut.ts", "--quick"], { cwd: dir, encoding: "utf8", maxBuffer: 64 << 20, timeout: 600000 });
  const bad: Bad = new Set();
  let lines = 0;
  for (const line of (r.stdout ?? "").split("\n")) {
    if (!line.startsWith("{")) continue;
    const j = JSON.parse(line);
    if (!j.kind) continue;
    lines++;
    for (const [w, b] of Object.entries(j.by_workload ?? {}) as [string, Record<string, number>][])
      if (b.acked_lost + b.boot_failures + b.wrong_replies + b.crashes > 0) bad.add(`powercut ${j.kind}/${w}`);
  }
  if (lines === 0) return { bad, error: (r.stderr ?? "").split("\n").filter((l) => l && !l.startsWith("npm warn")).slice(0, 3).join(" | ") || `exit ${r.status}` };
  return { bad };
}

// Stage 2: failing scenarios (mocha, JSON reporter).
function scenarios(dir: string): { bad: Bad; error?: string } {
  const out = path.join(dir, "mocha.json");
  spawnSync(process.execPath, [path.join(dir, "node_modules/mocha/bin/mocha.js"), "--grep", "^scenario: ", "--reporter", "json", "--reporter-option", `output=${out}`], { cwd: dir, encoding: "utf8", maxBuffer: 64 << 20, timeout: 600000 });
  const bad: Bad = new Set();
  try {
    const j = JSON.parse(fs.readFileSync(out, "utf8"));
    for (const f of j.failures ?? []) bad.add(`${f.fullTitle}`);
    fs.rmSync(out);
    return { bad };
  } catch (e) {
    return { bad, error: `no mocha report: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const STAGES: { name: string; run: (dir: string) => { bad: Bad; error?: string } }[] = [
  { name: "powercut", run: powercut },
  { name: "scenarios", run: scenarios },
];

function main(): void {
  const args = process.argv.slice(2);
  const i = args.indexOf("--only");
  const only = i >= 0 ? args[i + 1].split(",") : undefined;
  const allStages = args.includes("--all-stages");
  if (args.includes("--list")) {
    for (const m of MUTATIONS) {
      const text = fs.readFileSync(path.join(repo, m.file), "utf8");
      const at = text.indexOf(m.find);
      const applies = at < 0 ? "stale: not found" : text.indexOf(m.find, at + 1) >= 0 ? "stale: found more than once" : "applies";
      process.stdout.write(JSON.stringify({ mutation: m.name, file: m.file, why: m.why, applies }) + "\n");
    }
    return;
  }
  const t0 = Date.now();
  const dir = copyRepo();
  const list = only ? MUTATIONS.filter((m) => only.includes(m.name)) : MUTATIONS;
  try {
    // the unmutated copy: what already fails (expected-to-fail kinds) is no evidence
    const baseline = STAGES.map((s) => {
      const r = s.run(dir);
      if (r.error) throw new Error(`${s.name} does not run on the unmutated copy: ${r.error}`);
      return r.bad;
    });
    process.stderr.write(`mutate: baseline in ${Math.round((Date.now() - t0) / 1000)} s (${baseline.map((b, k) => `${STAGES[k].name}: ${b.size} failing`).join(", ")})\n`);
    const missed: string[] = [], stale: string[] = [];
    for (const m of list) {
      const file = path.join(dir, m.file);
      const original = fs.readFileSync(file, "utf8");
      const at = original.indexOf(m.find);
      if (at < 0 || original.indexOf(m.find, at + 1) >= 0) {
        stale.push(m.name);
        process.stdout.write(JSON.stringify({ mutation: m.name, file: m.file, caught_by: [], stale: at < 0 ? "not found" : "found more than once" }) + "\n");
        continue;
      }
      fs.writeFileSync(file, original.slice(0, at) + m.replace + original.slice(at + m.find.length));
      const t1 = Date.now();
      const caught: string[] = [];
      try {
        for (let k = 0; k < STAGES.length; k++) {
          const r = STAGES[k].run(dir);
          if (r.error) caught.push(`${STAGES[k].name}: does not run (${r.error})`);
          r.bad.forEach((b) => {
            if (!baseline[k].has(b)) caught.push(b);
          });
          if (caught.length && !allStages) break;
        }
      } finally {
        fs.writeFileSync(file, original);
      }
      if (!caught.length) missed.push(m.name);
      process.stdout.write(JSON.stringify({ mutation: m.name, file: m.file, why: m.why, caught_by: caught.slice(0, 8), caught_count: caught.length, seconds: Math.round((Date.now() - t1) / 1000) }) + "\n");
    }
    process.stdout.write(JSON.stringify({ mutations: list.length, caught: list.length - missed.length - stale.length, missed, stale, seconds: Math.round((Date.now() - t0) / 1000) }) + "\n");
    process.exitCode = missed.length || stale.length ? 1 : 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();

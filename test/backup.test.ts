// `petmem export` and `petmem import` as a person runs them (issue 14 item 3):
// spawned processes on data folders; the device-side round trip, bad
// documents, replace and CSV are scenarios (test/scenarios/backup.scn.ts).
import "../host-sim/trace";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import type { SimDevice } from "../host-sim/device";
import { openHost } from "../desktop/host";
import { MARK, NEW } from "../desktop/swap";
import { fillDevice, QUESTIONS, answer, sameText } from "./scenarios/backup.scn";
import { toolCaller } from "./scenarios/tool-call";
import { utcOffset, setUtcOffset } from "../src/time/local";

function run(args: string[], input?: string) {
  return spawnSync(process.execPath, ["--import", "tsx", "desktop/main.ts", ...args], { encoding: "utf8", input, maxBuffer: 64 << 20 });
}

// A device's flash as a data folder (desktop/persist.ts's layout).
function save(dev: SimDevice, dir: string): void {
  fs.mkdirSync(path.join(dir, "storage"), { recursive: true });
  fs.writeFileSync(path.join(dir, "nvs.bin"), dev.nvs.image);
  for (const e of dev.spiffs.list()) fs.writeFileSync(path.join(dir, "storage", encodeURIComponent(e.name.slice(1))), dev.spiffs.content(e.name));
}

// Every byte of a data folder (but its lock).
function bytes(dir: string): Map<string, string> {
  const m = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== "lock") m.set(path.relative(dir, p), fs.readFileSync(p).toString("base64"));
    }
  };
  walk(dir);
  return m;
}

describe("petmem export and import (spawned)", function () {
  this.timeout(120000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-backup-"));
  const d1 = path.join(tmp, "pet"), d2 = path.join(tmp, "copy"), doc1 = path.join(tmp, "export.json");
  let now = 0;
  let text = "";
  const zone = utcOffset(); // opening a data folder here puts its zone in force: given back after

  before(() => {
    const a = fillDevice();
    now = a.dev.clock.now;
    save(a.dev, d1);
  });
  after(() => {
    setUtcOffset(zone);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("export prints the document on stdout and exits 0; import into a new folder exits 0; both pets answer alike", () => {
    const e = run(["export", "--data", d1]);
    assert.equal(e.status, 0, e.stderr);
    text = e.stdout;
    const doc = JSON.parse(text);
    assert.equal(doc.format, "petmem-export");
    assert.ok(doc.archive.facts.length > 0 && doc.archive.digests.length > 0 && doc.episodes.length > 0, "all of it");
    fs.writeFileSync(doc1, text);
    const i = run(["import", doc1, "--data", d2]);
    assert.equal(i.status, 0, i.stderr);
    assert.match(i.stderr, /imported \d+ items/);
    assert.ok(!fs.existsSync(path.join(d2, NEW)) && !fs.existsSync(path.join(d2, MARK)), "nothing left of the swap");
    const h1 = openHost({ data: d1, command: "test", now });
    const h2 = openHost({ data: d2, command: "test", now });
    try {
      const c1 = toolCaller(h1.service), c2 = toolCaller(h2.service);
      for (const q of QUESTIONS) {
        h1.dev.install();
        const x = c1(q);
        h2.dev.install();
        // a schedule the import's own boot found due (real time) is marked reminded there: the device's bookkeeping, not the memory
        const unmarked = (t: string) => t.replace(/"reminded":\d/g, '"reminded":0');
        const y = c2(q);
        const cut = Boolean(x.json?.partial || y.json?.partial); // a call that spent its flash budget (see answer())
        sameText(unmarked(answer(y, q, cut)), unmarked(answer(x, q, cut)), `the same answer to ${JSON.stringify(q)}`);
      }
    } finally {
      h1.close();
      h2.close();
    }
  });

  it("a bad document exits 1 with one line naming its path, and the folder is byte for byte as before", () => {
    const before = bytes(d2);
    const doc = JSON.parse(text);
    doc.facts[2].content = "x".repeat(200);
    const bad = path.join(tmp, "bad.json");
    fs.writeFileSync(bad, JSON.stringify(doc));
    const r = run(["import", bad, "--data", d2, "--yes"]);
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /\$\.facts\[2\]\.content: is too long/);
    const notJson = run(["import", "-", "--data", d2, "--yes"], "{\"format\":");
    assert.equal(notJson.status, 1);
    assert.match(notJson.stderr, /not a JSON document/);
    assert.deepEqual(bytes(d2), before);
  });

  it("into a folder that holds memory: exit 1 saying to add --yes, unchanged; with --yes (from stdin) the document replaces it", () => {
    const before = bytes(d2);
    const r = run(["import", doc1, "--data", d2]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /already holds a pet's memory .*add --yes/);
    assert.deepEqual(bytes(d2), before);
    // another pet's document replaces it
    const small = path.join(tmp, "small");
    const h = openHost({ data: small, command: "test", now });
    toolCaller(h.service)({ action: "write", type: "name", content: "小红" });
    h.close();
    const other = run(["export", "--data", small]).stdout;
    const y = run(["import", "-", "--data", d2, "--yes"], other);
    assert.equal(y.status, 0, y.stderr);
    const back = run(["export", "--data", d2]).stdout;
    const strip = (t: string) => t.replace(/"exported_at":"[^"]*"/, "").replace(/"boots":\d+/, "");
    assert.equal(strip(back), strip(other));
  });

  it("usage errors exit 2; CSV of one type is RFC 4180 with Chinese as UTF-8", () => {
    assert.equal(run(["export", "--format", "xml", "--data", d1]).status, 2);
    assert.equal(run(["export", "--type", "nothing", "--data", d1]).status, 2);
    assert.equal(run(["import", "--data", d2]).status, 2);
    const csv = run(["export", "--format", "csv", "--type", "like", "--data", d1]);
    assert.equal(csv.status, 0, csv.stderr);
    assert.equal(csv.stdout.split("\r\n")[0], "id,type,content");
    assert.ok(csv.stdout.includes(',like,"画画, ""水彩"""\r\n'), csv.stdout);
    const facts = run(["export", "--format", "csv", "--type", "fact", "--data", d1]).stdout.split("\r\n");
    assert.equal(facts[0], "id,type,archived,timestamp,content");
    assert.ok(facts.some((l) => /,fact,true,\d+,"第\d+件事：主人说""今天很开心""，还提到了篮球和钢琴"$/.test(l)), facts.slice(0, 4).join("\n"));
  });

  it("a swap a cut interrupted is finished by the next command; an import that never committed is dropped", () => {
    // committed (the mark written) but cut before the entries moved: the next open finishes it
    const d3 = path.join(tmp, "cut");
    fs.cpSync(d2, d3, { recursive: true });
    fs.cpSync(d1, path.join(d3, NEW), { recursive: true });
    fs.writeFileSync(path.join(d3, MARK), "{}\n");
    const s = run(["export", "--data", d3]);
    assert.equal(s.status, 0, s.stderr);
    assert.ok(!fs.existsSync(path.join(d3, NEW)) && !fs.existsSync(path.join(d3, MARK)) && !fs.existsSync(path.join(d3, "import.old")));
    assert.equal(JSON.parse(s.stdout).profile.name, "小明", "the new device");
    // not committed: the old device stays
    const d4 = path.join(tmp, "uncommitted");
    fs.cpSync(d2, d4, { recursive: true });
    fs.cpSync(d1, path.join(d4, NEW), { recursive: true });
    const e = run(["export", "--data", d4]);
    assert.equal(e.status, 0);
    assert.ok(!fs.existsSync(path.join(d4, NEW)));
    assert.equal(JSON.parse(e.stdout).profile.name, "小红", "the old device");
  });
});

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import Preference from "preference";
import { File } from "file";
import { SimDevice } from "../host-sim/device";
import { persist } from "../desktop/persist";

describe("host: data folder and npm start", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("flash persists in the data folder across simulator restarts", () => {
    const a = new SimDevice().install();
    persist(a, dir);
    Preference.set("petmem", "k", "记住我");
    Preference.set("petmem", "b", Uint8Array.of(1, 2, 3).buffer);
    const f = new File("/data/notes.jsonl", true);
    f.write("line one\n");
    f.position = f.length;
    f.write("line two\n");
    f.close();
    new File("/data/gone", true).close();
    File.delete("/data/gone");
    new File("/data/old", true).close();
    File.rename("/data/old", "new");

    const b = new SimDevice().install();
    persist(b, dir);
    assert.equal(Preference.get("petmem", "k"), "记住我");
    assert.deepEqual([...new Uint8Array(Preference.get("petmem", "b") as ArrayBuffer)], [1, 2, 3]);
    assert.equal(new File("/data/notes.jsonl").read(String), "line one\nline two\n");
    assert.equal(File.exists("/data/gone"), false);
    assert.equal(File.exists("/data/old"), false);
    assert.equal(File.exists("/data/new"), true);
    assert.equal(b.flash.total().bytesRead > 0, true);
  });

  it("a torn write on a cut is what the data folder keeps", () => {
    const a = new SimDevice().install();
    persist(a, dir);
    const f = new File("/data/log", true);
    f.write("ok\n");
    a.cutAfter(1);
    assert.equal(SimDevice.survive(() => f.write("abcdef\n")), true);
    // the tear may leave the old length, a prefix or 0xFF holes (host-sim/spiffs.ts TearMode)
    const seen = a.spiffs.content("/log");
    const b = new SimDevice().install();
    persist(b, dir);
    assert.deepEqual(b.spiffs.content("/log"), seen);
    assert.equal(new TextDecoder().decode(seen.subarray(0, 3)), "ok\n");
  });

  it("npm start boots on a fresh data folder and reports partition usage", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "desktop/main.ts", "--data", dir, "--exit"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const line = r.stdout.split("\n").find((l) => l.startsWith('{"partitions"')); // --exit prints what it asks for on stdout
    assert.ok(line, r.stdout + r.stderr);
    const p = JSON.parse(line).partitions;
    assert.equal(p.nvs.partition_bytes, 48 * 1024);
    assert.equal(p.storage.partition_bytes, 3 * 1024 * 1024);
    assert.ok(p.storage.usable_bytes < p.storage.partition_bytes);
    assert.ok(fs.existsSync(path.join(dir, "storage")));
  });


});

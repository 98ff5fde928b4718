// host-sim's SPIFFS model, host side: what the data folder keeps after faults,
// and the tear model's knobs.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { File } from "file";
import { SimDevice } from "../host-sim/device";
import { persist } from "../desktop/persist";
import { ALL_TEAR_MODES, DATA_PER_PAGE, MAX_OPEN } from "../host-sim/spiffs";

function write(p: string, text: string): void {
  const f = new File(p, true);
  f.position = f.length;
  f.write(text);
  f.close();
}

describe("host: SPIFFS faults and tears", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-spiffs-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a format after a mount failure empties the data folder too", () => {
    const a = new SimDevice().install();
    persist(a, dir);
    write("/data/a", "A");
    write("/data/b", "B");
    a.inject("mount_failure");
    assert.equal(a.spiffs.isArmed("mount_failure"), true);
    a.reboot();
    assert.equal(a.spiffs.isArmed("mount_failure"), false);
    assert.deepEqual(fs.readdirSync(path.join(dir, "storage")), []);
    const b = new SimDevice().install();
    persist(b, dir);
    assert.deepEqual(b.spiffs.list(), []);
  });

  it("a flipped bit is written through to the data folder", () => {
    const a = new SimDevice().install();
    persist(a, dir);
    write("/data/a", "a".repeat(100));
    const what = a.inject("bit_flip", { partition: "storage", seed: 3 });
    const b = new SimDevice().install();
    persist(b, dir);
    assert.deepEqual(b.spiffs.content("/a"), a.spiffs.content("/a"), what);
    assert.notDeepEqual(b.spiffs.content("/a"), new Uint8Array(100).fill(97));
  });

  it("at-rest faults on an empty file system say so and change nothing", () => {
    const a = new SimDevice().install();
    assert.match(a.inject("bit_flip", { partition: "storage" }), /no file/);
    assert.match(a.inject("spiffs_not_finalized"), /no file/);
    assert.deepEqual(a.spiffs.list(), []);
  });

  it("tearModes restricts the outcome; `unchanged` keeps the old bytes, `holes` the new length", () => {
    const line = "y".repeat(3 * DATA_PER_PAGE);
    for (const mode of ["unchanged", "prefix", "holes"] as const) {
      const a = new SimDevice().install();
      a.spiffs.tearModes = [mode];
      write("/data/log", "x\n");
      const f = new File("/data/log", true);
      f.position = f.length;
      a.cutAfter(1);
      assert.equal(SimDevice.survive(() => f.write(line)), true);
      a.reboot();
      const got = a.spiffs.content("/log");
      assert.equal(a.spiffs.lastTear!.mode, mode);
      if (mode === "unchanged") assert.equal(got.length, 2);
      if (mode === "prefix") assert.ok(got.length > 2 && got.length < 2 + line.length && (got.length % DATA_PER_PAGE === 0), `${got.length}`);
      if (mode === "holes") {
        assert.equal(got.length, 2 + line.length);
        assert.ok(got.includes(0xff) && got.includes(0x79));
      }
    }
  });

  it("the opt-in not_finalized tear leaves the file unopenable until it is deleted", () => {
    const a = new SimDevice().install();
    a.spiffs.tearModes = ALL_TEAR_MODES.filter((m) => m === "not_finalized");
    write("/data/log", "x\n");
    const f = new File("/data/log", true);
    a.cutAfter(1);
    assert.equal(SimDevice.survive(() => f.write("more\n")), true);
    a.reboot();
    assert.equal(a.spiffs.lastTear!.mode, "not_finalized");
    assert.throws(() => new File("/data/log"), /file not found/);
    assert.equal(File.exists("/data/log"), true);
    assert.equal(File.delete("/data/log"), true);
    write("/data/log", "y");
    assert.deepEqual(a.spiffs.content("/log"), Uint8Array.of(0x79));
  });

  it("the descriptor count is released by close and by a reboot, never below zero", () => {
    const a = new SimDevice().install();
    const open: File[] = [];
    for (let i = 0; i < MAX_OPEN; i++) open.push(new File(`/data/f${i}`, true));
    assert.equal(a.spiffs.openFiles, MAX_OPEN);
    open[0].close();
    assert.equal(a.spiffs.openFiles, MAX_OPEN - 1);
    a.reboot();
    assert.equal(a.spiffs.openFiles, 0);
    assert.throws(() => open[1].close(), /closed/);
    assert.equal(a.spiffs.openFiles, 0);
  });
});

// The file contract of the ESP32 SPIFFS port.
import file, { File, Iterator, Directory, System } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { tearNone, tearHalf } from "../../host-sim/flash";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const fresh = (storageBytes?: number) => new SimDevice({ storageBytes }).install();
const root = config.file.root;

export const scenarios: Scenario[] = [
  {
    name: "the module exports File, Iterator, Directory, System and a frozen default",
    run() {
      equal(file.File, File);
      equal(file.Iterator, Iterator);
      equal(file.Directory, Directory);
      equal(file.System, System);
      ok(Object.isFrozen(file));
      equal(root, "/data/");
    },
  },
  {
    name: "read mode of a missing file throws 'file not found'; write mode creates it",
    run() {
      fresh();
      throws(() => new File(root + "a.txt"), { message: "file not found" });
      equal(File.exists(root + "a.txt"), false);
      const f = new File(root + "a.txt", true);
      equal(f.length, 0);
      f.close();
      equal(File.exists(root + "a.txt"), true);
    },
  },
  {
    name: "write opens without truncating, at position 0; append by setting position",
    run() {
      fresh();
      let f = new File(root + "t", true);
      f.write("hello world");
      f.close();
      f = new File(root + "t", true);
      equal(f.position, 0);
      f.write("HELLO");
      f.position = f.length;
      f.write("!", 10, Uint8Array.of(65, 66).buffer);
      throws(() => f.write(new Uint16Array(1)), { name: "TypeError", message: "invalid buffer" });
      f.close();
      f = new File(root + "t");
      equal(f.read(String), "HELLO world!\nAB");
    },
  },
  {
    name: "read: String or ArrayBuffer, count clamped at the end, at the end throws",
    run() {
      fresh();
      const w = new File(root + "r", true);
      w.write("0123456789");
      w.close();
      const f = new File(root + "r");
      equal(f.read(String, 4), "0123");
      equal(f.position, 4);
      deepEqual(new Uint8Array(f.read(ArrayBuffer, 2) as ArrayBuffer), Uint8Array.of(52, 53));
      equal(f.read(String, 100), "6789", "clamped");
      throws(() => f.read(String, 1), { message: "read past end of file" });
      f.position = 100;
      throws(() => f.read(ArrayBuffer), { message: "read past end of file" });
    },
  },
  {
    name: "any call after close throws 'closed'",
    run() {
      fresh();
      const f = new File(root + "c", true);
      f.close();
      throws(() => f.length, { message: "closed" });
      throws(() => f.position, { message: "closed" });
      throws(() => f.write("x"), { message: "closed" });
      throws(() => f.read(String), { message: "closed" });
      throws(() => f.close(), { message: "closed" });
    },
  },
  {
    name: "names: at most 31 bytes from the slash after the mount point, no directories",
    run() {
      fresh();
      const ok30 = "n".repeat(30); // "/" + 30 = 31
      new File(root + ok30, true).close();
      ok(File.exists(root + ok30));
      throws(() => new File(root + "n".repeat(31), true), { message: "file not found" });
      throws(() => new File(root + "汉".repeat(11), true), { message: "file not found" }); // 33 bytes
      throws(() => new File("/elsewhere/x", true), { message: "file not found" });
      new File(root + "a/b", true).close(); // a slash is just a character
      ok(File.exists(root + "a/b"));
      throws(() => Directory.create(root + "dir"), { message: "failed" });
      throws(() => Directory.delete(root + "dir"), { message: "failed" });
      equal(File.exists(root + "n".repeat(31)), false);
      equal(File.delete(root + "n".repeat(31)), false, "a name SPIFFS cannot hold: false, no throw");
      equal(File.delete("/elsewhere/x"), false, "a path outside the mount: false");
    },
  },
  {
    name: "delete and rename return false when they fail; rename refuses an existing target",
    run() {
      fresh();
      new File(root + "x", true).close();
      equal(File.delete(root + "x"), true);
      equal(File.delete(root + "x"), false);
      const f = new File(root + "a", true);
      f.write("A");
      f.close();
      new File(root + "b", true).close();
      equal(File.rename(root + "a", "b"), false, "the target exists");
      equal(new File(root + "a").read(String), "A", "nothing changed");
      equal(File.rename(root + "a", "c"), true);
      equal(File.exists(root + "a"), false);
      equal(new File(root + "c").read(String), "A");
      equal(File.rename(root + "c", root + "d"), true);
      equal(new File(root + "d").read(String), "A");
      equal(File.rename(root + "zz", "y"), false, "a missing source");
      equal(File.rename(root + "d", "/elsewhere/d"), false, "another mount");
      // the target path, mount point included, goes into a 33-byte buffer
      new File(root + "e", true).close();
      equal(File.rename(root + "e", "n".repeat(26)), true); // "/data/" + 26 = 32 bytes
      throws(() => File.rename(root + "n".repeat(26), "n".repeat(27)), { name: "RangeError", message: "cannot buffer string" });
      throws(() => File.rename(root + "n".repeat(26), root + "n".repeat(27)), { name: "RangeError" }, "a full path too");
      ok(File.exists(root + "n".repeat(26)), "nothing changed");
      throws(() => File.rename(root + "d", "x/y"), { message: "invalid to" });
      throws(() => File.rename("nodir", "y"), { message: "invalid from" });
    },
  },
  {
    name: "Iterator lists name and length of every file",
    run() {
      fresh();
      const f = new File(root + "one", true);
      f.write("123");
      f.close();
      new File(root + "two", true).close();
      const it = new Iterator(root);
      const seen: { name: string; length: number }[] = [];
      for (let e = it.next(); e; e = it.next()) seen.push(e);
      deepEqual(seen.sort((a, b) => (a.name < b.name ? -1 : 1)), [
        { name: "one", length: 3 },
        { name: "two", length: 0 },
      ]);
    },
  },
  {
    name: "a full file system fails the write with the device's error and writes nothing",
    run() {
      const dev = fresh(64 * 1024);
      const f = new File(root + "big", true);
      const chunk = "x".repeat(1000);
      let written = 0;
      throws(() => {
        for (;;) {
          f.write(chunk);
          written += 1000;
        }
      }, { message: "file write failed" });
      equal(f.length, written, "the failed write left nothing");
      const info = System.info();
      ok(info.used <= info.total * 0.75 + 256, "stops at about 75%");
      ok(written > 40000 && written < 50000, `filled ${written} of 65536 bytes`);
      void dev;
    },
  },
  {
    name: "a power cut tears a write: old length, a page prefix, or 0xFF holes",
    run() {
      const seen = new Set<string>();
      for (let seed = 0; seed < 12; seed++) {
        const dev = fresh();
        dev.spiffs.tearSeed = seed;
        const f = new File(root + "log", true);
        f.write("first line\n");
        const line = "second line, long enough to span three SPIFFS data pages: " + "s".repeat(600) + "\n";
        f.position = f.length;
        dev.cutAfter(1);
        ok(SimDevice.survive(() => f.write(line)));
        dev.reboot();
        throws(() => f.length, { message: "closed" }, "handles do not survive a reboot");
        const g = new File(root + "log");
        const got = new Uint8Array(g.read(ArrayBuffer));
        g.close();
        const tear = dev.spiffs.lastTear!;
        seen.add(tear.mode);
        const text = "first line\n" + line;
        const want = new TextEncoder().encode(text);
        equal(new TextDecoder().decode(got.subarray(0, 11)), "first line\n", "what was acknowledged is kept");
        if (tear.mode === "unchanged") equal(got.length, 11);
        else if (tear.mode === "prefix") {
          ok(got.length < want.length && (got.length - 11) % 251 === 251 - 11 || got.length === 11, `a page prefix: ${got.length}`);
          deepEqual(got, want.subarray(0, got.length));
        } else {
          equal(got.length, want.length, "holes: the new length");
          for (let i = 11; i < got.length; i++) ok(got[i] === want[i] || got[i] === 0xff, `byte ${i}`);
          ok(got.indexOf(0xff) > 0, "at least one page reads as erased flash");
        }
      }
      deepEqual([...seen].sort(), ["holes", "prefix", "unchanged"], "every mode happens across seeds");
    },
  },
  {
    // the real SPIFFS library, cut at each of a delete's writes (issue 28):
    // the name as it was (a cut at its first write) or gone, never shorter
    name: "a power cut during delete leaves the file as it was or gone, never a shorter file",
    run() {
      for (const tear of [tearNone, tearHalf]) {
        const dev = fresh();
        const f = new File(root + "d", true);
        f.write("y".repeat(5000));
        f.close();
        dev.cutAfter(1, tear);
        ok(SimDevice.survive(() => File.delete(root + "d")));
        dev.reboot();
        if (tear === tearNone) {
          ok(File.exists(root + "d"));
          const g = new File(root + "d");
          equal(g.length, 5000, "as it was");
          g.close();
        } else equal(File.exists(root + "d"), false, "gone");
      }
    },
  },
  {
    name: "traffic is counted per partition",
    run() {
      const dev = fresh();
      const f = new File(root + "t", true);
      f.write("abcdef");
      f.position = 0;
      f.read(ArrayBuffer, 4);
      f.read(ArrayBuffer, 4);
      const t = dev.flash.partition("storage");
      equal(t.readCalls, 2);
      equal(t.bytesRead, 6);
      equal(t.writeCalls, 2, "create + write");
      equal(t.bytesWritten, 256 + 6);
    },
  },
];

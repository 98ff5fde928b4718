// Every SPIFFS fault kind (host-sim/faults.ts), injected with SimDevice.inject,
// as device code sees it: what throws with which message, what returns false,
// and what is on flash after a reboot.
import { File, Iterator, System } from "file";
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const fresh = () => new SimDevice().install();
const root = config.file.root;

function write(path: string, text: string): void {
  const f = new File(path, true);
  f.position = f.length;
  f.write(text);
  f.close();
}

function read(path: string): string {
  const f = new File(path);
  try {
    return f.length ? f.read(String) : "";
  } finally {
    f.close();
  }
}

function names(): string[] {
  const out: string[] = [];
  const it = new Iterator(root);
  for (let e = it.next(); e; e = it.next()) out.push(e.name);
  return out.sort();
}

export const scenarios: Scenario[] = [
  {
    name: "spiffs_read_error: the read throws 'file read failed' once, the file is intact",
    run() {
      const dev = fresh();
      write(root + "a", "hello");
      const f = new File(root + "a");
      dev.inject("spiffs_read_error", { at: 2 });
      equal(f.read(String, 2), "he", "the first read is not the armed one");
      throws(() => f.read(String, 2), { name: "Error", message: "file read failed" });
      equal(f.position, 2, "nothing was consumed");
      equal(f.read(String), "llo", "the error was transient");
      f.close();
      dev.reboot();
      equal(read(root + "a"), "hello");
    },
  },
  {
    name: "spiffs_read_error at an open: read mode says 'file not found'; write mode truncates (fopen wb+)",
    run() {
      const dev = fresh();
      write(root + "a", "kept");
      write(root + "b", "lost");
      dev.inject("spiffs_read_error");
      throws(() => new File(root + "a"), { message: "file not found" });
      equal(read(root + "a"), "kept", "read mode changes nothing");
      // modFile.c: fopen "rb+" failed, so it tries "wb+", which truncates
      dev.inject("spiffs_read_error");
      const w = new File(root + "b", true);
      equal(w.length, 0, "the device emptied the file");
      w.close();
      dev.reboot();
      equal(read(root + "b"), "", "and the loss is on flash");
    },
  },
  {
    name: "spiffs_not_finalized: open, read and write fail until the file is deleted",
    run() {
      const dev = fresh();
      write(root + "a", "aaa");
      write(root + "b", "bbb");
      const h = new File(root + "b", true);
      const what = dev.inject("spiffs_not_finalized", { seed: 1 }); // the second name in order: "/b"
      ok(what.indexOf("/b") >= 0, what);
      ok(File.exists(root + "b"), "the object is still there");
      deepEqual(names(), ["a", "b"], "and listed");
      throws(() => new File(root + "b"), { message: "file not found" });
      throws(() => new File(root + "b", true), { message: "file not found" });
      throws(() => h.read(String), { message: "file read failed" });
      throws(() => h.write("x"), { message: "file write failed" });
      equal(File.rename(root + "b", "c"), false);
      equal(read(root + "a"), "aaa", "other files are fine");
      h.close();
      dev.reboot();
      throws(() => new File(root + "b"), { message: "file not found" }, "still after a reboot");
      equal(File.delete(root + "b"), true, "deleting it is the way out");
      write(root + "b", "new");
      equal(read(root + "b"), "new");
    },
  },
  {
    name: "rename_false: File.rename returns false and changes nothing",
    run() {
      const dev = fresh();
      write(root + "a", "A");
      dev.inject("rename_false");
      equal(File.rename(root + "a", "b"), false);
      ok(File.exists(root + "a"));
      equal(File.exists(root + "b"), false);
      equal(File.rename(root + "a", "b"), true, "once");
      dev.reboot();
      equal(read(root + "b"), "A");
    },
  },
  {
    name: "delete_false: File.delete returns false and the file stays whole",
    run() {
      const dev = fresh();
      write(root + "a", "A".repeat(600));
      dev.inject("delete_false", { at: 2 });
      equal(File.delete(root + "zz"), false, "the first delete (of a missing file) is not the armed one");
      equal(File.delete(root + "a"), false);
      equal(read(root + "a").length, 600);
      dev.reboot();
      equal(read(root + "a").length, 600, "whole after a reboot");
      equal(File.delete(root + "a"), true);
    },
  },
  {
    name: "open_limit: the next open fails as with 5 files open, in write mode too, creating nothing",
    run() {
      const dev = fresh();
      write(root + "a", "A");
      dev.inject("open_limit");
      throws(() => new File(root + "a", true), { message: "file not found" });
      equal(read(root + "a"), "A", "not truncated");
      dev.inject("open_limit");
      throws(() => new File(root + "new", true), { message: "file not found" });
      equal(File.exists(root + "new"), false);
      write(root + "new", "ok");
      equal(read(root + "new"), "ok");
    },
  },
  {
    name: "full: the write throws 'file write failed' and writes nothing; the next one works",
    run() {
      const dev = fresh();
      write(root + "log", "one\n");
      dev.inject("full", { partition: "storage" });
      const f = new File(root + "log", true);
      f.position = f.length;
      throws(() => f.write("two\n"), { message: "file write failed" });
      equal(f.length, 4);
      f.write("three\n");
      f.close();
      dev.reboot();
      equal(read(root + "log"), "one\nthree\n");
    },
  },
  {
    name: "bit_flip on storage: exactly one bit of one file changes, at rest, across a reboot",
    run() {
      const dev = fresh();
      write(root + "a", "a".repeat(300));
      write(root + "b", "b".repeat(300));
      const bytes = (): Uint8Array => {
        const out = new Uint8Array(600);
        for (const [i, n] of [[0, "a"], [300, "b"]] as [number, string][]) {
          const f = new File(root + n);
          out.set(new Uint8Array(f.read(ArrayBuffer)), i);
          f.close();
        }
        return out;
      };
      const x = bytes();
      const what = dev.inject("bit_flip", { partition: "storage", seed: 7 });
      dev.reboot();
      const y = bytes();
      let bits = 0;
      for (let i = 0; i < x.length; i++) for (let v = x[i] ^ y[i]; v; v &= v - 1) bits++;
      equal(bits, 1, what);
      equal(dev.inject("bit_flip", { partition: "storage", seed: 7 }), what, "a seed picks the same bit");
    },
  },
  {
    name: "mount_failure: at the next boot SPIFFS is formatted and every file is gone",
    run() {
      const dev = fresh();
      write(root + "a", "A");
      write(root + "b", "B");
      dev.inject("mount_failure");
      equal(read(root + "a"), "A", "nothing happens before the mount");
      dev.reboot();
      deepEqual(names(), []);
      equal(File.exists(root + "a"), false);
      equal(System.info().used, 0);
      write(root + "a", "again");
      dev.reboot();
      equal(read(root + "a"), "again", "one failure, one format");
    },
  },
  {
    name: "power_cut with a seed: the same seed tears the same way",
    run() {
      const outcome = (seed: number): string => {
        const dev = fresh();
        write(root + "log", "head\n");
        const f = new File(root + "log", true);
        f.position = f.length;
        dev.inject("power_cut", { seed });
        ok(SimDevice.survive(() => f.write("x".repeat(1000) + "\n")));
        dev.reboot();
        const t = read(root + "log");
        ok(t.slice(0, 5) === "head\n", "acknowledged bytes survive");
        return `${dev.spiffs.lastTear!.mode}:${t.length}:${t.indexOf("\uFFFD")}`;
      };
      for (const seed of [1, 2, 3]) equal(outcome(seed), outcome(seed), `seed ${seed}`);
    },
  },
];

// What the real SPIFFS leaves at a cut inside a rename or a header rewrite
// (issue 28; docs/DESIGN.md, "What the real SPIFFS leaves at a cut"), and how
// src/archive/settle.ts puts such names back on objects of their own.
import { File, Iterator } from "file";
import config from "mc/config";
import { SimDevice, PowerCut } from "../../host-sim/device";
import { settle, settleNames, beforeDropping, tempOf } from "../../src/archive/settle";
import { ok, equal, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const fresh = () => new SimDevice({}).install();

function put(path: string, text: string): void {
  const f = new File(path, true);
  f.write(text);
  f.close();
}

function readAll(path: string): string {
  const f = new File(path);
  try {
    return f.length ? (f.read(String) as string) : "";
  } finally {
    f.close();
  }
}

function cut(fn: () => void): void {
  let stopped = false;
  try {
    fn();
  } catch (e) {
    if (!(e instanceof PowerCut || (e instanceof Error && e.name === "PowerCut"))) throw e;
    stopped = true;
  }
  ok(stopped, "the tear cut the power");
}

function listed(name: string): number {
  let n = 0;
  for (const e of new Iterator(root)) if (e.name === name) n++;
  return n;
}

export const scenarios: Scenario[] = [
  {
    name: "a torn rename leaves both names on one object: deleting one frees the other's pages",
    run() {
      const dev = fresh();
      put(root + "a.scr", "the rewrite, whole\n");
      dev.inject("spiffs_rename_tear");
      cut(() => File.rename(root + "a.scr", root + "a.jsonl"));
      dev.reboot();
      equal(readAll(root + "a.scr"), "the rewrite, whole\n");
      equal(readAll(root + "a.jsonl"), "the rewrite, whole\n");
      File.delete(root + "a.scr"); // what a recovery that takes .scr for stale would do
      ok(File.exists(root + "a.jsonl"), "still listed");
      throws(() => readAll(root + "a.jsonl"), { message: "file read failed" });
    },
  },
  {
    name: "beforeDropping settles the kept name first: the stale name goes, the kept one reads whole",
    run() {
      const dev = fresh();
      put(root + "a.scr", "the rewrite, whole\n");
      dev.inject("spiffs_rename_tear");
      cut(() => File.rename(root + "a.scr", root + "a.jsonl"));
      dev.reboot();
      beforeDropping(root + "a.scr", root + "a.jsonl");
      File.delete(root + "a.scr");
      equal(File.exists(root + "a.scr"), false);
      equal(readAll(root + "a.jsonl"), "the rewrite, whole\n");
      equal(File.exists(tempOf(root + "a.jsonl")), false);
    },
  },
  {
    name: "a torn header rewrite lists a name twice; after a write the stale header wins; boot settles it",
    run() {
      const dev = fresh();
      put(root + "log", "line 1\n");
      dev.inject("spiffs_header_tear");
      cut(() => new File(root + "log", true));
      dev.reboot();
      equal(listed("log"), 2);
      // settled at boot, before anything writes
      const done = settleNames(root);
      equal(done.length, 1);
      equal(listed("log"), 1);
      const f = new File(root + "log", true);
      f.position = f.length;
      f.write("line 2\n");
      f.close();
      dev.reboot();
      equal(readAll(root + "log"), "line 1\nline 2\n");
    },
  },
  {
    name: "unsettled, a name listed twice hides what is appended after the tear",
    run() {
      const dev = fresh();
      put(root + "log", "line 1\n");
      dev.inject("spiffs_header_tear");
      cut(() => new File(root + "log", true));
      dev.reboot();
      const f = new File(root + "log", true);
      f.position = f.length;
      f.write("line 2\n");
      f.close();
      equal(readAll(root + "log"), "line 1\n");
    },
  },
  {
    name: "a settle cut at any write leaves the bytes whole, under the name or in a temp boot copies back",
    run() {
      for (let n = 1; n <= 12; n++) {
        const dev = fresh();
        put(root + "seg", "0123456789".repeat(50));
        dev.inject("spiffs_rename_tear");
        cut(() => File.rename(root + "seg", root + "seg2"));
        dev.reboot();
        dev.cutAfter(n);
        let stopped = false;
        try {
          settle(root + "seg2");
        } catch (e) {
          if (!(e instanceof Error && e.name === "PowerCut")) throw e;
          stopped = true;
        }
        dev.flash.disarm();
        if (stopped) dev.reboot();
        settleNames(root);
        equal(readAll(root + "seg2"), "0123456789".repeat(50), `cut at ${n}`);
        equal(File.exists(tempOf(root + "seg2")), false, `cut at ${n}: no temp left`);
      }
    },
  },
  {
    name: "a torn rewrite in place leaves the file listed, its reads failing",
    run() {
      const dev = fresh();
      put(root + "slots", "aaaaaaaaaa");
      dev.inject("spiffs_rewrite_tear");
      const f = new File(root + "slots", true);
      f.position = 2;
      cut(() => f.write("bb"));
      dev.reboot();
      ok(File.exists(root + "slots"));
      throws(() => readAll(root + "slots"), { message: "file read failed" });
      ok(File.delete(root + "slots"));
      equal(File.exists(root + "slots"), false);
    },
  },
];

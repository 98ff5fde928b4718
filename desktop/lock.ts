// One process per data folder. Two processes on one folder each hold the
// flash in RAM and write it through; the later writer silently undoes the
// other's acknowledged writes. The lock is a file DIR/lock created with
// O_EXCL holding the owner's pid and command; a lock whose process is gone
// (killed, crashed) is taken over.

import fs from "node:fs";
import path from "node:path";
import { Failure } from "./command.js";

export interface Lock {
  file: string;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, someone else's
  }
}

export function lockDataFolder(dir: string, what: string): Lock {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "lock");
  const mine = JSON.stringify({ pid: process.pid, command: what, since: new Date().toISOString() }) + "\n";
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, "wx");
      fs.writeSync(fd, mine);
      fs.closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.removeListener("exit", release);
        try {
          const held = JSON.parse(fs.readFileSync(file, "utf8")) as { pid?: number };
          if (held.pid === process.pid) fs.rmSync(file, { force: true });
        } catch {
          /* gone or unreadable: not ours to remove */
        }
      };
      process.once("exit", release);
      return { file, release };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new Failure(`${dir}: cannot lock the data folder (${(e as Error).message})`);
    }
    let held: { pid?: number; command?: string; since?: string } = {};
    try {
      held = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch {
      /* half-written by a process that died while creating it: stale */
    }
    if (typeof held.pid === "number" && held.pid !== process.pid && alive(held.pid))
      throw new Failure(`${dir} is in use by process ${held.pid} (petmem ${held.command ?? "?"}, since ${held.since ?? "?"}); stop it first`);
    fs.rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new Failure(`${dir}: cannot lock the data folder (another process keeps taking it)`);
}

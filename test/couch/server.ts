// A real CouchDB-compatible server for the tests: pouchdb-server (npm) in a
// child process on 127.0.0.1, its databases in LevelDB files in a temporary
// folder, so that a restart (the process killed and started again on the
// same port and folder) keeps every document as a CouchDB restart does.

import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export interface Couch {
  port: number;
  url: string; // http://127.0.0.1:PORT
  dir: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
  kill(): void; // at once, without waiting (a crash)
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function waitUp(port: number, ms = 20000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`);
      if (r.ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`pouchdb-server did not start on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startCouch(): Promise<Couch> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-couch-"));
  const bin = require.resolve("pouchdb-server/bin/pouchdb-server");
  let child: ChildProcess | undefined;
  const c: Couch = {
    port,
    url: `http://127.0.0.1:${port}`,
    dir,
    async start() {
      child = spawn(process.execPath, [bin, "--host", "127.0.0.1", "--port", String(port), "--dir", dir, "--config", path.join(dir, "config.json"), "--no-stdout-logs"], { stdio: "ignore", cwd: dir });
      await waitUp(port);
    },
    kill() {
      child?.kill("SIGKILL");
      child = undefined;
    },
    async stop() {
      const ch = child;
      child = undefined;
      if (!ch || ch.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        ch.once("exit", () => resolve());
        ch.kill("SIGKILL");
      });
    },
    async restart() {
      await c.stop();
      await c.start();
    },
  };
  await c.start();
  return c;
}

export function removeCouch(c: Couch): void {
  fs.rmSync(c.dir, { recursive: true, force: true });
}

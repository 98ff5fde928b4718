// `petmem web [--port N]`: the timeline page and seed 004's HTTP API on
// 127.0.0.1 (desktop/web/). Prints the address and the token on stdout,
// one log line per request on stderr (off with --quiet), and serves until
// SIGINT or SIGTERM; then the conversation under way ends and every change is
// flushed to the data folder.

import net from "node:net";
import { DATA, NOW, TZ, UsageError, Failure, type Command } from "../command.js";
import { openHost, currentTz, partitionsLine } from "../host.js";
import { driveClock, timeOptions, speedOf } from "./serve.js";
import { logLine } from "../call-log.js";
import { startWeb, BODY_MAX, IMPORT_MAX } from "../web/server.js";
import { utcOffset } from "../../src/time/local.js";

export const DEFAULT_PORT = 8000;

function portFailure(e: unknown, port: number): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return new Failure(`port ${port} on 127.0.0.1 is in use; --port 0 picks a free one`);
  if (code === "EACCES") return new Failure(`port ${port} on 127.0.0.1 needs privileges; choose one above 1023 or --port 0`);
  return e;
}

// A busy port fails before anything is created (the data folder, its lock).
function portFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (e) => reject(portFailure(e, port)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

export function portOf(v: string | true | undefined): number {
  if (v === undefined) return DEFAULT_PORT;
  const n = Number(v);
  if (typeof v !== "string" || !/^\d+$/.test(v) || !Number.isInteger(n) || n > 65535) throw new UsageError(`--port: expected a port number from 0 to 65535 (0 picks a free one), got ${JSON.stringify(v)}`);
  return n;
}

export const API_HELP = `The page (no token; loopback only):
  GET  /                    the timeline page
  GET  /api/timeline        what the page shows, as JSON
  GET  /api/search?q=WORDS  the AI's search (NVS and archive) and the episodes containing WORDS
  GET  /profile             profile, likes, family, facts, traits, habits, goals, schedules, events
  GET  /stats               the tool's status and the partitions' use
  GET  /api/reminders       due reminders as server-sent events (event: reminder, data: JSON)
The API (JSON in and out; header Authorization: Bearer TOKEN):
  POST /session/start       {"user_id"?}                   -> {"session_id", "started"}
  POST /session/message     {"role": "user"|"assistant", "text", "session_id"?}
                                                           -> {"session_id", "heard": [...]}
  POST /session/end         {"session_id"?}                -> {"session_id", "ended", "formed": [...]}
  POST /context             {"message", "budget"?: 200-4000} -> the tool's action=context
  GET  /export              the whole memory (petmem export's document)
  POST /import[?replace=true]  an export document         -> {"imported": true, "report"}
  POST /maintenance/forget  {}  the episodes' forgetting pass, now
  POST /maintenance/cleanup {}  the idle upkeep, now: archive steps, episodes' trash
Status codes: 200 done; 400 a bad body or query ({"error": why}, nothing changed; an
import's also names the "path" of the first error); 401 no token; 403 a wrong token,
a Host other than 127.0.0.1/localhost or another Origin; 404 no such path; 405 a
method the path does not take; 409 a session or a conversation in the way; 413 a
body over ${BODY_MAX / 1024} KB (an import: ${IMPORT_MAX / 1024 / 1024} MB); 500 a failure; 503 no episodes on this device.`;

export const web: Command = {
  name: "web",
  summary: "serve the timeline page and the HTTP API on 127.0.0.1",
  usage: "web [--port N] [--data DIR] [--now T] [--speed S] [--tz ±HH:MM]",
  options: [
    { name: "--port", value: "N", help: "the port on 127.0.0.1 (0 picks a free one)", default: String(DEFAULT_PORT) },
    DATA,
    NOW,
    { name: "--speed", value: "S", help: "simulated seconds per real second, to watch reminders arrive", default: "1" },
    TZ,
  ],
  details:
    "Prints http://127.0.0.1:PORT and then `token: TOKEN` on stdout; open the address in a browser.\n" +
    "Binds 127.0.0.1 only. Ctrl-C stops it (the conversation under way ends, everything is flushed).\n\n" +
    API_HELP,
  async run(ctx) {
    const port = portOf(ctx.opts.port);
    const speed = speedOf(ctx.opts.speed);
    if (port !== 0) await portFree(port); // before the data folder is made or locked
    const host = openHost({ data: (ctx.opts.data as string) ?? ".petmem", command: "web", ...timeOptions(ctx) });
    let stopClock: (() => void) | undefined;
    try {
      stopClock = driveClock(host, speed);
      const log = (method: string, path: string, status: number, ms: number) => {
        if (!ctx.quiet) ctx.err(logLine(host.dev.clock.now, utcOffset(), { method: `${method} ${path}` }, String(status), Math.round(ms)));
      };
      let server;
      try {
        server = await startWeb(host, { port, log });
      } catch (e) {
        throw portFailure(e, port);
      }
      ctx.live();
      ctx.info(partitionsLine(host) + "\n");
      ctx.out(`${server.url}\ntoken: ${server.token}\n`);
      ctx.info(
        `petmem: the timeline at ${server.url} (device time zone ${currentTz()}); calls that change memory need\n` +
          `  Authorization: Bearer ${server.token}\n` +
          "Ctrl-C stops it; `petmem web --help` lists the API.\n",
      );
      const s = server;
      const stop = stopClock;
      return await new Promise<number>((resolve) => {
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          process.off("SIGINT", end);
          process.off("SIGTERM", end);
          s.close().finally(() => {
            stop();
            host.close();
            resolve(0);
          });
        };
        process.once("SIGINT", end);
        process.once("SIGTERM", end);
      });
    } catch (e) {
      stopClock?.();
      host.close();
      throw e;
    }
  },
};

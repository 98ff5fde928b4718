// `petmem serve` (the default command, and `npm start`): the pet on this
// machine, serving the MCP tool `memory` on stdin/stdout (newline-delimited
// JSON-RPC), or with --xiaozhi the xiaozhi server's messages. Time runs on the
// real clock, from --now and faster by --speed; device traces go to stderr
// with one log line per call. Reminders go to stderr too, and on stdout as an
// MCP notifications/message (or, with --xiaozhi, as the device's spoken turn).
// stdin closing ends the run.

import { DATA, NOW, TZ, UsageError, type Command, type Context } from "../command.js";
import { openHost, parseNow, parseTz, machineTz, currentTz, hasZone, partitionsLine, type Host } from "../host.js";
import { stdioTransport } from "../stdio.js";
import { runXiaozhi } from "../xiaozhi-stdio.js";
import { describeReply, describeRequest, logLine } from "../call-log.js";
import { utcOffset } from "../../src/time/local.js";

export function speedOf(v: string | true | undefined): number {
  if (v === undefined) return 1;
  const n = Number(v);
  if (typeof v !== "string" || !(n > 0 && n <= 100000)) throw new UsageError(`--speed: expected simulated seconds per real second, more than 0 and at most 100000 (60: a minute a second), got ${JSON.stringify(v)}`);
  return n;
}

// --tz and --now as every command that boots a device reads them. A --now
// without a zone and without --tz is read in the data folder's zone: openHost
// reads it again from nowText once the folder's configuration is known.
export function timeOptions(ctx: Context): { tz?: number; now?: number; nowText?: string } {
  const tz = typeof ctx.opts.tz === "string" ? parseTz(ctx.opts.tz) : undefined;
  const now = typeof ctx.opts.now === "string" ? parseNow(ctx.opts.now, tz ?? machineTz()) : undefined;
  const nowText = typeof ctx.opts.now === "string" && tz === undefined && !hasZone(ctx.opts.now) ? ctx.opts.now : undefined;
  return { tz, now, nowText };
}

// The real-clock driver: virtual time follows wall time times `speed`.
export function driveClock(host: Host, speed: number): () => void {
  const realStart = Date.now();
  const virtStart = host.dev.clock.now;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const sync = () => host.dev.clock.advanceTo(virtStart + (Date.now() - realStart) * speed);
  const tick = () => {
    sync();
    const next = host.dev.clock.nextDue();
    const wait = next === undefined ? 1000 : Math.min(1000, Math.max(1, (next - host.dev.clock.now) / speed));
    timer = setTimeout(tick, wait);
  };
  tick();
  return () => {
    if (timer) clearTimeout(timer);
    sync();
  };
}

export const serve: Command = {
  name: "serve",
  summary: "serve the memory tool over MCP on stdin/stdout",
  usage: "[serve] [--data DIR] [--now T] [--speed S] [--tz ±HH:MM] [--xiaozhi] [--exit]",
  options: [
    DATA,
    NOW,
    { name: "--speed", value: "S", help: "simulated seconds per real second, to watch reminders fire", default: "1" },
    TZ,
    { name: "--xiaozhi", help: "speak the xiaozhi server's messages (one a line) instead of plain MCP" },
    { name: "--exit", help: "boot, print the partitions' use on stdout, and quit" },
  ],
  details:
    "One JSON-RPC message a line on stdin, replies on stdout; logs on stderr, one line per call\n" +
    "(time, method, action, type, result, ms). Ctrl-D ends the run. An MCP client needs no cwd:\n" +
    '  {"command": "/path/to/petmem/desktop/petmem.mjs", "args": ["--data", "/path/to/data"]}',
  async run(ctx) {
    const speed = speedOf(ctx.opts.speed);
    const host = openHost({ data: (ctx.opts.data as string) ?? ".petmem", command: "serve", ...timeOptions(ctx) });
    if (ctx.opts.exit) {
      ctx.out(partitionsLine(host) + "\n"); // what --exit asks for
      host.close();
      return 0;
    }
    ctx.live();
    ctx.info(partitionsLine(host) + "\n");
    const stopClock = driveClock(host, speed);
    const log = (request: string, replies: (string | undefined)[], ms: number) => {
      if (ctx.quiet) return;
      const call = describeRequest(request);
      if (ctx.opts.xiaozhi && call.method !== "initialize" && !call.method.includes("/")) return; // not an MCP message: stt, tts, hello...
      ctx.err(logLine(host.dev.clock.now, utcOffset(), call, replies.length ? replies.map(describeReply).join(",") : "-", Math.round(ms)));
    };
    return new Promise<number>((resolve) => {
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        stopClock();
        host.close();
        resolve(0);
      };
      process.once("SIGINT", end);
      process.once("SIGTERM", end);
      if (ctx.opts.xiaozhi) {
        runXiaozhi(host.service, end, log);
        if (process.stdin.isTTY)
          ctx.info(
            "petmem: a xiaozhi device on stdin/stdout (one server message a line), e.g.\n" +
              '{"type":"mcp","payload":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"read"}}}}\n' +
              '{"type":"stt","text":"我叫小明"}\n' +
              "Ctrl-D ends the session (and the conversation).\n",
          );
        return;
      }
      const transport = stdioTransport(end);
      // reminders: an MCP logging notification on stdout (stderr keeps the trace line)
      host.service.addReminderSink({
        remind: (r) => {
          const n = host.service.reminderNotification(r);
          if (n !== undefined) transport.send(n);
        },
      });
      transport.start((m) => {
        const t0 = performance.now();
        const reply = host.service.handle(m);
        log(m, reply === undefined ? [] : [reply], performance.now() - t0);
        if (reply !== undefined) transport.send(reply);
      });
      if (process.stdin.isTTY)
        ctx.info(
          `petmem: serving MCP on stdin/stdout (one JSON-RPC message a line; device time zone ${currentTz()}), e.g.\n` +
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"read"}}}\n' +
            "Ctrl-D or Ctrl-C to stop; petmem --help lists the other commands.\n",
        );
    });
  },
};

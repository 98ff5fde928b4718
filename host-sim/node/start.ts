// `npm start`: the device on the host simulator, serving MCP over stdio
// (newline-delimited JSON-RPC on stdin/stdout). Flash lives in a data folder
// (default ./.petmem), time runs on the real clock (optionally from --now and
// faster by --speed), device logs go to stderr. stdin closing ends the run.
//
//   npm start -- [--data DIR] [--now 2026-02-05T13:00] [--speed 60] [--exit]
//   npm start -- --dialog FILE|-   feed a conversation instead of MCP (host-sim/node/dialog.ts)
//   npm start -- --xiaozhi         speak the xiaozhi server's messages on stdio (host-sim/node/xiaozhi.ts)

import path from "node:path";
import { SimDevice } from "../device.js";
import { persist } from "./persist.js";
import { stdioTransport } from "./stdio.js";
import { runDialog } from "./dialog.js";
import { runXiaozhi } from "./xiaozhi.js";
import "../trace.js";

interface Options {
  data: string;
  now?: number;
  speed: number;
  exit: boolean;
  dialog?: string;
  xiaozhi: boolean;
}

function usage(message: string): never {
  process.stderr.write(`petmem: ${message}\nusage: npm start -- [--data DIR] [--now YYYY-MM-DDTHH:MM] [--speed N] [--exit] [--dialog FILE|-] [--xiaozhi]\n`);
  process.exit(2);
}

function parse(argv: string[]): Options {
  const o: Options = { data: ".petmem", speed: 1, exit: false, xiaozhi: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === "--data") o.data = value();
    else if (a === "--now") {
      const v = value();
      // a wall time without zone is the device's local time, +08:00 by default
      const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : v + "+08:00");
      if (Number.isNaN(t)) usage(`--now: not a date: ${v}`);
      o.now = t;
    } else if (a === "--speed") {
      o.speed = Number(value());
      if (!(o.speed > 0 && o.speed <= 100000)) usage("--speed must be a number from 0 to 100000");
    } else if (a === "--exit") o.exit = true;
    else if (a === "--dialog") o.dialog = value();
    else if (a === "--xiaozhi") o.xiaozhi = true;
    else if (a === "--help" || a === "-h") usage("help");
    else usage(`unknown option ${a}`);
  }
  return o;
}

function report(dev: SimDevice, dir: string): void {
  const n = dev.nvs.stats();
  const s = dev.spiffs.stats();
  const line = {
    data: dir,
    nvs: { partition_bytes: dev.nvs.bytes, used_bytes: n.liveBytes, percent: n.percent, namespaces: n.namespaces, erased_entries: n.erasedEntries },
    storage: { partition_bytes: s.total, used_bytes: s.used, usable_bytes: s.usable, percent: s.percent, files: s.files },
  };
  process.stderr.write(JSON.stringify({ partitions: line }) + "\n");
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const dir = path.resolve(o.data);
  const realStart = Date.now();
  const virtStart = o.now ?? realStart;
  const dev = new SimDevice({ now: virtStart }).install();
  persist(dev, dir);
  const { service } = await import("../../src/main.js");
  report(dev, dir);
  if (o.exit) {
    service.stop();
    return;
  }
  if (o.dialog !== undefined) return runDialog(service, dev, o.dialog);
  // the real-clock driver: virtual time follows wall time times --speed
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    dev.clock.advanceTo(virtStart + (Date.now() - realStart) * o.speed);
    const next = dev.clock.nextDue();
    const wait = next === undefined ? 1000 : Math.min(1000, Math.max(1, (next - dev.clock.now) / o.speed));
    timer = setTimeout(tick, wait);
  };
  const end = () => {
    if (timer) clearTimeout(timer);
    dev.clock.advanceTo(virtStart + (Date.now() - realStart) * o.speed);
    service.stop();
    process.exit(0);
  };
  tick();
  process.on("SIGINT", end);
  process.on("SIGTERM", end);
  if (o.xiaozhi) {
    runXiaozhi(service, end);
    if (process.stdin.isTTY)
      process.stderr.write(
        'petmem: a xiaozhi device on stdin/stdout (one server message a line), e.g.\n' +
          '{"type":"mcp","payload":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"read"}}}}\n' +
          '{"type":"stt","text":"我叫小明"}\n' +
          "Ctrl-D ends the session (and the conversation); see README.\n",
      );
    return;
  }
  service.connect(stdioTransport(end));
  if (process.stdin.isTTY)
    process.stderr.write(
      'petmem: serving MCP on stdin/stdout (one JSON-RPC message a line), e.g.\n' +
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"action":"read"}}}\n' +
        "Ctrl-D or Ctrl-C to stop; see README for --dialog, --xiaozhi, --now and --speed.\n",
    );
}

main().catch((e) => {
  process.stderr.write(`petmem: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});

// `petmem status`: what the pet holds and how its flash is, as the AI sees it
// (action=status) plus the partitions' use, as one JSON document on stdout.

import { DATA, NOW, TZ, type Command } from "../command.js";
import { openHost, currentTz, partitions, type Host } from "../host.js";
import { timeOptions } from "./serve.js";
import { formatDateTime } from "../../src/time/local.js";

// the schedules (seed 000's events with a time): how many are open, done, and the next one
export function schedules(host: Host) {
  const s = host.service.schedules;
  const open = s.list(); // earliest first
  const done = s.list({ completed: true }).length - open.length;
  const now = formatDateTime(host.dev.clock.now);
  const next = open.find((v) => v.datetime >= now);
  return { open: open.length, completed: done, next: next ? `${next.datetime} ${next.content}` : null };
}

export const status: Command = {
  name: "status",
  summary: "print the pet's memory counts, storage use and repairs (JSON)",
  usage: "status [--data DIR] [--now T]",
  options: [DATA, NOW, TZ],
  run(ctx) {
    const host = openHost({ data: (ctx.opts.data as string) ?? ".petmem", command: "status", ...timeOptions(ctx), mustExist: true });
    try {
      const st = JSON.parse(host.service.tool.call({ action: "status" })) as object;
      ctx.out(JSON.stringify({ status: st, schedules: schedules(host), time_zone: currentTz(), boot: host.booted.line, partitions: partitions(host) }, null, 2) + "\n");
    } finally {
      host.close();
    }
  },
};

// `petmem dialog FILE|-`: feed a conversation to the pet instead of serving
// MCP, to watch memories form (desktop/dialog-feed.ts says the line format).

import { DATA, NOW, TZ, type Command } from "../command.js";
import { openHost } from "../host.js";
import { runDialog } from "../dialog-feed.js";
import { timeOptions } from "./serve.js";
import fs from "node:fs";
import { Failure } from "../command.js";

export const dialog: Command = {
  name: "dialog",
  summary: "feed a conversation (user: … / assistant: … lines) and print what is heard and stored",
  usage: "dialog FILE|- [--data DIR] [--now T] [--tz ±HH:MM]",
  positionals: [{ name: "FILE|-", help: "the conversation, or - for stdin" }],
  options: [DATA, NOW, TZ],
  details:
    "Each line is `user: …` or `assistant: …`; a blank line ends a conversation; `# …` is a comment;\n" +
    "`@ 2026-02-06T10:00` moves the clock forward. On stderr, one JSON line per event: heard, memory, end.",
  async run(ctx) {
    const file = ctx.args[0];
    if (file !== "-" && !fs.existsSync(file)) throw new Failure(`${file}: no such file`);
    const host = openHost({ data: (ctx.opts.data as string) ?? ".petmem", command: "dialog", ...timeOptions(ctx) });
    ctx.live();
    try {
      await runDialog(host.service, host.dev, file);
    } finally {
      host.close();
    }
  },
};

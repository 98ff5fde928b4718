// `petmem demo --data DIR`: a pet with a year of memory to look at at once.
// The year (desktop/demo/life.ts) is lived on the device's own clock, month
// by month up to now, through the device's own paths: the tool as the AI
// calls it, conversations through the listener, the device's timers and
// idle upkeep (so old facts and events reach the archive as they would on a
// pet; between months it is off, as a toy is). It ends with schedules due
// in the next minutes and hours.

import fs from "node:fs";
import path from "node:path";
import { DATA, Failure, type Command } from "../command.js";
import { openHost, hasDevice, machineTz, parseTz } from "../host.js";
import { formatDate, formatDateTime, setUtcOffset } from "../../src/time/local.js";
import { FIRST, FACTS, MOMENTS, EPISODES, CONVERSATIONS, SOON, type Call } from "../demo/life.js";

const DAY = 86400000;

export const demo: Command = {
  name: "demo",
  summary: "make a pet with a year of memory in an empty data folder, to try read, search, context and the page",
  usage: "demo --data DIR [--tz ±HH:MM]",
  options: [DATA, { name: "--tz", value: "±HH:MM", help: "the pet's UTC offset (default: this machine's)" }],
  details: "Then: `petmem web --data DIR` for the page, `petmem --data DIR` for MCP, `petmem status --data DIR`.",
  run(ctx) {
    const data = typeof ctx.opts.data === "string" ? ctx.opts.data : undefined;
    if (!data) throw new Failure("demo needs --data DIR: a folder for the demo pet (it must hold no memory)");
    if (hasDevice(path.resolve(data)) || (fs.existsSync(data) && fs.readdirSync(data).length > 0)) throw new Failure(`--data ${data}: not empty; the demo makes a new pet in an empty or new folder`);
    const tz = typeof ctx.opts.tz === "string" ? parseTz(ctx.opts.tz) : machineTz();
    const end = Date.now();
    // month m starts (11 - m) months and a week before now: the last one's
    // facts and moments are still fresh in NVS, older ones in the archive
    const start = end - 11 * 30 * DAY - 7 * DAY;
    let calls = 0;
    let refused = 0;
    for (let m = 0; m < 12; m++) {
      const monthStart = start + m * 30 * DAY;
      const host = openHost({ data, command: "demo", now: monthStart, tz });
      setUtcOffset(tz);
      const call = (a: Call) => {
        const args: Call = { ...a };
        if (typeof args.datetime === "string" && args.datetime.startsWith("{first}")) args.datetime = args.datetime.replace("{first}", formatDate(host.dev.clock.now + 2 * DAY));
        if (typeof args.datetime === "string" && /^\+\d+$/.test(args.datetime)) args.datetime = formatDateTime(host.dev.clock.now + Number(args.datetime.slice(1)) * 60000);
        const reply = host.service.tool.call(args);
        calls++;
        if (/^error/.test(reply)) refused++;
      };
      const step = (ms: number) => host.dev.clock.advanceTo(host.dev.clock.now + ms);
      try {
        if (m === 0) FIRST.forEach(call);
        for (const content of FACTS[m]) {
          call({ action: "write", type: "fact", content });
          step(DAY);
        }
        for (const [topic, content, emotion] of MOMENTS[m]) call({ action: "write", type: "moment", content: `${topic}:${content}`, emotion, importance: 4 });
        const convo = CONVERSATIONS[m];
        if (convo) {
          for (const [role, text] of convo) {
            host.service.hear(role as "user" | "assistant", text);
            step(20000);
          }
          host.service.endConversation();
        }
        for (const [content, e, i, p, j, keywords, emotion] of EPISODES[m]) call({ action: "write", type: "episode", content, e, i, p, j, keywords, emotion });
        // the rest of the month the pet is mostly off: the next month boots it again
        if (m === 11) {
          host.dev.clock.advanceTo(Math.max(host.dev.clock.now, end));
          SOON.forEach(call);
        }
      } finally {
        host.close();
      }
      ctx.progress(`demo: month ${m + 1} of 12`);
    }
    ctx.info(`petmem: a year of 林小雨's memory in ${path.resolve(data)} (${calls} calls${refused ? `, ${refused} refused` : ""}); try \`petmem web --data ${data}\`\n`);
    return refused ? 1 : 0;
  },
};

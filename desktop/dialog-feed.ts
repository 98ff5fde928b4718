// `petmem dialog FILE` (or `petmem dialog -` for lines typed on stdin):
// feeds a conversation to the device instead of serving MCP, so that a user
// can watch memories form. Each line is `user: …` or `assistant: …`; a blank
// line ends the conversation; `# …` is a comment; `@ 2026-02-06T10:00` moves
// the device clock forward (the device's local time). Each line also advances the clock by
// LINE_MS. On stderr, one JSON line per event:
//   {"heard":{type,content,…,outcome}}   an item went into the pending queue
//   {"memory":{type,content,result,…}}   a memory was formed (written to NVS)
//   {"end":{reason,formed}}              a conversation ended
import fs from "node:fs";
import readline from "node:readline";
import type { SimDevice } from "../host-sim/device.js";
import type { Service } from "../src/app/service.js";
import type { Role } from "../src/memory/types.js";
import { utcOffset } from "../src/time/local.js";
import { dateIn } from "./host.js";

export const LINE_MS = 5000;

function emit(o: object): void {
  process.stderr.write(JSON.stringify(o) + "\n");
}

export async function runDialog(service: Service, dev: SimDevice, source: string): Promise<void> {
  const input = source === "-" ? process.stdin : fs.createReadStream(source, { encoding: "utf8" });
  const l = service.listener;
  l.onHeard = (h) => emit({ heard: h });
  l.onMemory = (f) => emit({ memory: f });
  l.onEnd = (reason, formed) => emit({ end: { reason, formed: formed.length } });
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const raw of rl) {
    n++;
    const line = raw.trim();
    if (!line) {
      if (l.active) service.endConversation();
      continue;
    }
    if (line.startsWith("#")) continue;
    const at = /^@\s*(\S.*)$/.exec(line);
    if (at) {
      const v = at[1];
      const t = dateIn(v, utcOffset());
      if (Number.isNaN(t)) emit({ error: `line ${n}: not a date: ${v}` });
      else if (t > dev.clock.now) dev.clock.advanceTo(t);
      continue;
    }
    const m = /^(user|assistant|u|a|用户|助手)\s*[:：]\s*(.*)$/i.exec(line);
    if (!m) {
      emit({ error: `line ${n}: expected 'user: …' or 'assistant: …'` });
      continue;
    }
    const who = m[1].toLowerCase();
    const role: Role = who === "user" || who === "u" || who === "用户" ? "user" : "assistant";
    dev.clock.advanceTo(dev.clock.now + LINE_MS);
    service.hear(role, m[2]);
  }
  if (l.active) service.endConversation();
  service.stop();
}

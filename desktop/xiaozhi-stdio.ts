// `petmem serve --xiaozhi`: the device on a xiaozhi link (src/link/xiaozhi.ts)
// over stdio, so that a recorded session can be replayed or a server bridged:
// one JSON message from the server per line on stdin (blank lines and lines
// starting with # are skipped), the device's messages on stdout, one a line,
// its hello first, and a due reminder as the device's own spoken turn
// ({"type":"listen","state":"detect","text":"[device_call]…"}, docs/XIAOZHI.md).
// stdin closing is the link closing: the conversation ends.
// On stderr, one JSON line per event, as in --dialog:
//   {"heard":{type,content,…,outcome}}   an item went into the pending queue
//   {"memory":{type,content,result,…}}   a memory was formed (written to NVS)
//   {"end":{reason,formed}}              a conversation ended
import readline from "node:readline";
import type { Service } from "../src/app/service.js";
import { XiaozhiLink } from "../src/link/xiaozhi.js";

function emit(o: object): void {
  process.stderr.write(JSON.stringify(o) + "\n");
}

export function runXiaozhi(service: Service, onClose: () => void, log?: (message: string, replies: string[], ms: number) => void): XiaozhiLink {
  const link = new XiaozhiLink(service);
  const l = service.listener;
  l.onHeard = (h) => emit({ heard: h });
  l.onMemory = (f) => emit({ memory: f });
  const prev = l.onEnd; // the link's own hook
  l.onEnd = (reason, formed) => {
    prev?.(reason, formed);
    emit({ end: { reason, formed: formed.length } });
  };
  const out = (m: string) => process.stdout.write(m + "\n");
  out(link.hello());
  link.send = out; // a due reminder: the device's spoken turn (listen/detect [device_call]…)
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    const t = line.trim();
    if (!t || t.charAt(0) === "#") return;
    const t0 = performance.now();
    const replies = link.receive(t);
    if (log) log(t, replies, performance.now() - t0);
    for (const m of replies) out(m);
  });
  rl.on("close", () => {
    link.close();
    onClose();
  });
  return link;
}

// MCP over stdio for the host: newline-delimited JSON-RPC on stdin/stdout;
// logs stay on stderr.
import readline from "node:readline";
import type { Transport } from "../src/app/service.js";

export function stdioTransport(onEnd: () => void): Transport {
  return {
    start(receive) {
      const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
      rl.on("line", (line) => {
        if (line.trim()) receive(line);
      });
      rl.on("close", onEnd);
    },
    send(message) {
      process.stdout.write(message + "\n");
    },
  };
}

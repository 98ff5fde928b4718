// The `petmem` program (desktop/petmem.mjs loads it through tsx).
import { runCli } from "./cli.js";

runCli(process.argv.slice(2)).then((code) => {
  // device timers are virtual: nothing else keeps the process; exit now so a
  // half-read stdin or an HTTP keep-alive does not hold it
  process.stdout.write("", () => process.exit(code));
});

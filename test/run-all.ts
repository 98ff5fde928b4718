// npm test after the typecheck: the mocha suite and the XS lane in two shards
// at once (CI has 2 cores; one after the other they take over 30 minutes).
// The XS worker is built first, once, so that the shards do not race to build
// it. Each part's output is printed whole when it ends; the exit code is 1 if
// any part failed.
import { spawn } from "node:child_process";
import { ensureWorker } from "./xs/build-worker";

const parts: [string, string[]][] = [
  ["mocha", ["mocha", "test/**/*.test.ts"]],
  ["xs lane, shard 0/2", ["tsx", "test/xs/run.ts", "--shard", "0/2"]],
  ["xs lane, shard 1/2", ["tsx", "test/xs/run.ts", "--shard", "1/2"]],
];

function run(name: string, argv: string[]): Promise<number> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn("npx", argv, { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    p.stdout.on("data", (b: Buffer) => out.push(b));
    p.stderr.on("data", (b: Buffer) => out.push(b));
    p.on("close", (code) => {
      process.stdout.write(`\n# ---- ${name}: exit ${code}, ${((Date.now() - t0) / 1000).toFixed(0)} s ----\n`);
      process.stdout.write(Buffer.concat(out));
      resolve(code ?? 1);
    });
  });
}

async function main(): Promise<number> {
  await ensureWorker();
  const codes = await Promise.all(parts.map(([name, argv]) => run(name, argv)));
  return codes.some((c) => c !== 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

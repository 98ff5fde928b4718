// `petmem reset`: erase the pet's memory (the data folder's flash images and
// storage files), as erasing both partitions of a device would. Asks first,
// unless --yes; refuses while another process holds the folder.

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline/promises";
import { DATA, YES, Failure, type Command } from "../command.js";
import { checkDataDir, hasDevice } from "../host.js";
import { lockDataFolder } from "../lock.js";

// What a data folder holds that reset removes: nothing else is touched.
const ENTRIES = ["nvs.bin", "nvs.bin.tmp", "nvs.json", "nvs.json.converted", "storage"];

export const reset: Command = {
  name: "reset",
  summary: "erase the pet's memory in the data folder",
  usage: "reset [--yes] [--data DIR]",
  options: [DATA, YES],
  async run(ctx) {
    const data = (ctx.opts.data as string) ?? ".petmem";
    const dir = checkDataDir(data);
    if (!hasDevice(dir) && !fs.existsSync(path.join(dir, "storage"))) {
      ctx.info(`petmem: ${data} holds no memory; nothing to erase\n`);
      return 0;
    }
    const lock = lockDataFolder(dir, "reset");
    try {
      if (!ctx.opts.yes) {
        if (!process.stdin.isTTY) throw new Failure(`reset erases all of ${data}; add --yes to do it without asking`);
        const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
        const answer = await rl.question(`Erase all of the pet's memory in ${dir}? [y/N] `);
        rl.close();
        if (!/^y(es)?$/i.test(answer.trim())) {
          ctx.info("petmem: nothing erased\n");
          return 0; // a "no" is an answer, not a failure
        }
      }
      for (const e of ENTRIES) fs.rmSync(path.join(dir, e), { recursive: true, force: true });
      ctx.info(`petmem: erased ${dir}\n`);
    } finally {
      lock.release();
    }
  },
};

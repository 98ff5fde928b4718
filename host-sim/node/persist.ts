// Keeps a simulated device's flash in a folder on the host, so `npm start`
// remembers across restarts:
//   DIR/nvs.json        the NVS page model (host-sim/nvs.ts snapshot)
//   DIR/storage/NAME    one host file per SPIFFS object, NAME percent-encoded
// Every program operation is written through before the device sees it complete.

import fs from "node:fs";
import path from "node:path";
import type { SimDevice } from "../device.js";

function hostName(object: string): string {
  return encodeURIComponent(object.slice(1));
}

function writeAtomic(file: string, text: string): void {
  const tmp = file + ".tmp";
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

export function persist(dev: SimDevice, dir: string): void {
  const storage = path.join(dir, "storage");
  fs.mkdirSync(storage, { recursive: true });
  const nvsFile = path.join(dir, "nvs.json");
  if (fs.existsSync(nvsFile)) {
    dev.nvs.restore(JSON.parse(fs.readFileSync(nvsFile, "utf8")));
    dev.nvs.recover();
  }
  for (const f of fs.readdirSync(storage)) {
    if (f.endsWith(".tmp")) continue;
    dev.spiffs.load("/" + decodeURIComponent(f), new Uint8Array(fs.readFileSync(path.join(storage, f))));
  }
  const at = (name: string) => path.join(storage, hostName(name));
  dev.spiffs.listener = {
    create: (name) => fs.writeFileSync(at(name), new Uint8Array(0)),
    write: (name, offset, bytes) => {
      const fd = fs.openSync(at(name), "r+");
      try {
        fs.writeSync(fd, bytes, 0, bytes.length, offset);
      } finally {
        fs.closeSync(fd);
      }
    },
    truncate: (name, length) => fs.truncateSync(at(name), length),
    remove: (name) => fs.rmSync(at(name), { force: true }),
    rename: (from, to) => fs.renameSync(at(from), at(to)),
  };
  dev.flash.onChange = (partition) => {
    if (partition === dev.nvs.partition) writeAtomic(nvsFile, JSON.stringify(dev.nvs.snapshot()));
  };
}

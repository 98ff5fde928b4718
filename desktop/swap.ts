// Replacing a data folder's device with another one whole (`petmem import`):
// the new device is built in DIR/import.new (its own nvs.bin and storage/),
// checked, and then swapped in. The commit point is one file, DIR/import.swap,
// written atomically (write, then rename): before it exists the old device is
// untouched and DIR/import.new is an abandoned attempt; once it exists the
// swap is finished by whoever looks next (finishSwap, called by the import
// and by openHost), moving each entry of the old device to DIR/import.old and
// the new one into its place, in a way that can be redone after a cut at any
// point.

import fs from "node:fs";
import path from "node:path";

export const ENTRIES = ["nvs.bin", "storage"]; // what a device is (desktop/persist.ts)
export const NEW = "import.new";
export const OLD = "import.old";
export const MARK = "import.swap";

function writeAtomic(file: string, text: string): void {
  const tmp = file + ".tmp";
  const fd = fs.openSync(tmp, "w");
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

// Finishes a swap a cut interrupted; deletes an import that never committed.
// Returns what it did, or undefined.
export function finishSwap(dir: string): string | undefined {
  const mark = path.join(dir, MARK), fresh = path.join(dir, NEW), old = path.join(dir, OLD);
  if (!fs.existsSync(mark)) {
    if (!fs.existsSync(fresh)) return undefined;
    fs.rmSync(fresh, { recursive: true, force: true });
    fs.rmSync(mark + ".tmp", { force: true });
    return `an import that did not finish was abandoned (${fresh} deleted); the memory is as it was before it`;
  }
  fs.mkdirSync(old, { recursive: true });
  for (const e of ENTRIES) {
    const from = path.join(fresh, e);
    if (!fs.existsSync(from)) continue; // already moved in
    const here = path.join(dir, e);
    if (fs.existsSync(here)) {
      fs.rmSync(path.join(old, e), { recursive: true, force: true });
      fs.renameSync(here, path.join(old, e));
    }
    fs.renameSync(from, here);
  }
  fs.rmSync(old, { recursive: true, force: true });
  fs.rmSync(fresh, { recursive: true, force: true });
  fs.rmSync(mark, { force: true });
  return "an import's swap was finished";
}

// Commits the device in DIR/import.new: from here on it is the folder's device.
export function commitSwap(dir: string): void {
  writeAtomic(path.join(dir, MARK), JSON.stringify({ swap: NEW, since: new Date().toISOString() }) + "\n");
  finishSwap(dir);
}

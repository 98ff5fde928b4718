// Reads an ESP-IDF partition table CSV (the format of gen_esp32part.py). Lives
// in desktop/ (petmem image prints the offsets it flashes at); tools/partitions.ts
// re-exports it for the tools and tests that used it there.

export interface Partition {
  name: string;
  type: string;
  subtype: string;
  offset: number;
  size: number;
  flags: string;
}

function num(s: string, line: number): number {
  const t = s.trim().toUpperCase();
  let n: number;
  if (/^0X[0-9A-F]+$/.test(t)) n = parseInt(t, 16);
  else if (/^\d+K$/.test(t)) n = parseInt(t, 10) * 1024;
  else if (/^\d+M$/.test(t)) n = parseInt(t, 10) * 1024 * 1024;
  else if (/^\d+$/.test(t)) n = parseInt(t, 10);
  else throw new Error(`line ${line}: not a size or offset: ${s}`);
  return n;
}

export function parsePartitions(csv: string): Partition[] {
  const out: Partition[] = [];
  csv.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const cols = line.split(",").map((c) => c.trim());
    if (cols.length < 5) throw new Error(`line ${i + 1}: expected name, type, subtype, offset, size`);
    const [name, type, subtype, offset, size, flags = ""] = cols;
    if (!offset) throw new Error(`line ${i + 1}: petmem tables give every offset explicitly`);
    out.push({ name, type, subtype, offset: num(offset, i + 1), size: num(size, i + 1), flags });
  });
  return out;
}

export function flashSizeFromSdkconfig(text: string): number | undefined {
  const m = /^CONFIG_ESPTOOLPY_FLASHSIZE="(\d+)MB"/m.exec(text);
  return m ? Number(m[1]) * 1024 * 1024 : undefined;
}

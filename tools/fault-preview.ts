// A PREVIEW, not the model: crude stand-ins for fault kinds that host-sim does
// not model yet (SimDevice.inject says "not modelled"), so that the fixes in
// src/ can start before the models land. It patches the host-sim modules in
// this process only: spiffs_read_error (File#read throws at the at-th call),
// rename_false / delete_false (File.rename / File.delete return false at the
// at-th call), full on NVS (every Preference.set from the at-th on throws
// "nvs set fail"), nvs_crc (one petmem key's Preference.get throws "nvs get
// fail"), bit_flip on NVS (one petmem key vanishes, as an entry whose CRC
// fails at init) and on storage (one bit of one archive file flipped), mount_failure (every SPIFFS file gone at the reboot).
// Kinds host-sim models are left to it. `npm run powercut` never uses this.
//
//   npx tsx tools/fault-preview.ts KIND [KIND...]
// Prints the sweep's line per kind (as npm run powercut does), marked "preview".
import "../host-sim/trace";
import { setTraceSink } from "../host-sim/trace-sink";
import { SimDevice } from "../host-sim/device";
import { File } from "../host-sim/file";
import Preference from "preference";
import { sweepKind } from "../test/powercut/harness";
import { workloads } from "../test/powercut/index";
setTraceSink(() => {});
const read0 = File.prototype.read, rename0 = File.rename, delete0 = File.delete, get0 = Preference.get, set0 = Preference.set;
let armed: { kind: string; left: number } | undefined;
let throwKey: string | undefined;
const due = (k: string) => { if (armed && armed.kind === k && --armed.left === 0) { armed = undefined; return true; } return false; };
(File.prototype as any).read = function (...a: any[]) { if (due("spiffs_read_error")) throw new Error("file read failed"); return (read0 as any).apply(this, a); };
(File as any).rename = (a: string, b: string) => (due("rename_false") ? false : (rename0 as any).call(File, a, b));
(File as any).delete = (a: string) => (due("delete_false") ? false : delete0.call(File, a));
(Preference as any).get = (d: string, k: string) => { if (throwKey === k) throw new Error("nvs get fail"); return get0.call(Preference, d, k); };
(Preference as any).set = (d: string, k: string, v: any) => { if (armed && armed.kind === "full" && --armed.left <= 0) throw new Error("nvs set fail"); return set0.call(Preference, d, k, v); };
const inject0 = SimDevice.prototype.inject;
SimDevice.prototype.inject = function (kind: any, opts: any = {}) {
  try {
    return inject0.call(this, kind, opts); // modelled: the real thing
  } catch (e) {
    if (!/not modelled/i.test(e instanceof Error ? e.message : String(e))) throw e;
  }
  throwKey = undefined; armed = undefined;
  if (["spiffs_read_error", "rename_false", "delete_false"].includes(kind)) { armed = { kind, left: opts.at ?? 1 }; return kind; }
  if (kind === "full" && opts.partition === "nvs") { armed = { kind, left: opts.at ?? 1 }; return kind; }
  if (kind === "nvs_crc") { // one petmem key throws on get (as a blob whose data CRC fails)
    const keys = Preference.keys("petmem"); throwKey = keys[(opts.seed ?? 0) % keys.length]; return kind;
  }
  if (kind === "bit_flip" && opts.partition === "nvs") { // the entry vanishes at init
    const keys = Preference.keys("petmem"); Preference.delete("petmem", keys[(opts.seed ?? 0) % keys.length]); return kind;
  }
  if (kind === "bit_flip" && opts.partition === "storage") { // one bit of one archive file, at rest
    const files = this.spiffs.list().filter((e: any) => e.length > 0);
    if (!files.length) return kind;
    const f = files[(opts.seed ?? 0) % files.length];
    const bytes = this.spiffs.content(f.name);
    const at = Math.floor((opts.seed ?? 0) / 7) % bytes.length;
    bytes[at] ^= 1 << ((opts.seed ?? 0) % 8);
    this.spiffs.load(f.name, bytes);
    return kind;
  }
  if (kind === "mount_failure") { for (const e of this.spiffs.list()) this.spiffs.remove?.(e.name) ?? (this.spiffs as any).files.delete(e.name); (this.spiffs as any).lengths?.clear?.(); (this.spiffs as any).files?.clear?.(); return kind; }
  throw new Error(`${kind} is not modelled (and has no preview)`);
};
for (const k of process.argv.slice(2)) {
  const r = sweepKind(k as any, workloads, { seeds: 12, ops: 10 });
  process.stdout.write(JSON.stringify({ preview: true, ...r }) + "\n");
}

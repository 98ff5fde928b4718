// Fault kinds (or kind/workload pairs) that the device does not survive yet,
// with why. test/powercut.test.ts skips their zero-loss assertion (visibly,
// and says so when one starts passing); `npm run powercut` still counts them
// and exits 1. The integrator removes an entry when its fix lands (robust:
// two copies per store, a failed flush answered as not saved, boot
// containment; the archive's own defects are a later issue). Until host-sim
// models a kind, its entry is what `npx tsx tools/fault-preview.ts KIND`
// (crude stand-ins) showed, to be confirmed by the model. rename_false and
// mount_failure pass.
export const EXPECTED_TO_FAIL: Record<string, string> = {
  // ---- modelled (host-sim/spiffs.ts), failing now ------------------------------------------
  spiffs_read_error:
    "Archive.check is not contained at boot (src/main.ts): `first boot failed: file read failed` / `file not found` when the first or second read/open of the boot fails; a read error at the first boot's check leaves the archive in a state where the next overflow appends are lost (`after more use: fact \"第0件事：主人说篮球很有意思\": acknowledged …, the device shows null`)",
  open_limit: "as spiffs_read_error (an open refused at boot is `file not found`): `first boot failed: file not found`, then acknowledged facts lost after more use",
  spiffs_not_finalized:
    "a not-finalized archive file (open and read fail) loses the whole file: `every archived fact of the prefilled archive is gone`, completed schedules archived as events lost (`schedule \"买菜1\": acknowledged \"done@2026-01-29 16:00\"`), boot fails in 13 of 32 archive cases; the archive keeps one copy of each record",
  delete_false:
    "compaction ignores File.delete's false (src/archive/compact.ts rewrite/recover: `remove` then `rename` over a file still there): acknowledged archived facts lost (`fact \"第0件事：主人说篮球很有意思\": acknowledged …, the device shows null`)",
  bit_flip:
    "storage: a flipped bit in an archived line still parses and recall serves it as if whole (`recall shows an event never written: \"每妩吃药\"`), or the line no longer parses and the record is gone (`schedule \"买菜4\": acknowledged \"done@2026-02-01 16:00\"`); NVS (not modelled yet, tools/fault-preview.ts): an entry that vanishes takes its whole store (one valid copy at rest)",
  // ---- not modelled yet: what tools/fault-preview.ts's stand-ins showed ---------------------
  nvs_crc:
    "preview: Preference.get throwing `nvs get fail` is contained nowhere: boot fails (`boot failed: nvs get fail`, Store.readCopy via Archiver.resolveAtBoot / Listener.recover) or `read` answers `error: nvs get fail`; one valid copy at rest, so the store is lost",
  full:
    "the storage half passes; the NVS half (not modelled yet; keep this entry until it is) in the preview: Service.flush swallows the StoreError, so the tool answers `added`/`deleted` for a change that is not on flash (`family \"唱歌0\": acknowledged null, the device shows …`, `profile \"gender\": acknowledged \"北京2\", the device shows null`); boot fails when the health record or resolveAtBoot's flush throws",
};

export function expectedToFail(kind: string, workload?: string): string | undefined {
  return (workload !== undefined ? EXPECTED_TO_FAIL[`${kind}/${workload}`] : undefined) ?? EXPECTED_TO_FAIL[kind];
}

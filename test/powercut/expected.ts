// Fault kinds (or kind/workload pairs) that the device does not survive yet,
// with why. test/powercut.test.ts skips their zero-loss assertion (visibly,
// and says so when one starts passing); `npm run powercut` still counts them
// and exits 1. The integrator removes an entry when its fix lands (robust:
// two copies per store, a failed flush answered as not saved, boot
// containment; the archive's own defects are a later issue). Every kind is
// modelled; all kinds pass but those below.
export const EXPECTED_TO_FAIL: Record<string, string> = {
  // Archive format 2 keeps a second copy (the twin) of the OPEN segment only:
  // a segment is sealed once full and never written again, and a sealed
  // segment has no second copy (issue 12 budgets one copy of the archive).
  // Left not finalized at rest, its records cannot be read: the check names it
  // (report().<type>.unreadable), recall skips it, nothing deletes it. Every
  // other file passes: the open segment (its twin is put in place at boot), the
  // twin, sidecars, catalog, summaries, bit-sliced groups (derived: rebuilt by
  // steps), digests' open segment, tombstones (two copies), NVS mirror files.
  // A cut leaves not finalized only a file being written; sealed segments are
  // written only by a forget's rewrite, whose `.scr` a cut never puts in place
  // unfinished (FORMAT.md §3.7), so this takes damage beyond a power cut.
  "spiffs_not_finalized/archive":
    "a SEALED moment segment not finalized at rest (/m000003.jsonl, /m000004.jsonl: 257 to 304 moments each): `moment \"以前的第912个时刻…\" (prefilled) is gone although an older one is still there`, or, for the oldest, `81 moments of 2025-09 left the flash and recall of the month shows no digest of them`; no second copy of a sealed segment",
  "spiffs_not_finalized/migrate":
    "a SEALED migrated segment not finalized at rest (/f000001.jsonl: all 299 version-1 facts; /m000001.jsonl: 119 moments): `fact \"旧档案第0条…\" (prefilled): acknowledged …, the device shows null`; no second copy of a sealed segment",
  // (full/listen and full/tool are out since issue 28: petmem gives back its
  // second copies when a write fails, and the held copy makes way when the
  // mirror file holds the same table; full/tool's boot failure was host-sim's:
  // the fill ran inside an NVS write.)
};

export function expectedToFail(kind: string, workload?: string): string | undefined {
  return (workload !== undefined ? EXPECTED_TO_FAIL[`${kind}/${workload}`] : undefined) ?? EXPECTED_TO_FAIL[kind];
}

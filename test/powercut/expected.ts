// Fault kinds (or kind/workload pairs) that the device does not survive yet,
// with why. test/powercut.test.ts skips their zero-loss assertion (visibly,
// and says so when one starts passing); `npm run powercut` still counts them
// and exits 1. The integrator removes an entry when its fix lands (robust:
// two copies per store, a failed flush answered as not saved, boot
// containment; the archive's own defects are a later issue). Every kind is
// modelled; all kinds pass but the two below.
export const EXPECTED_TO_FAIL: Record<string, string> = {
  // Both are the archive's single copy of each record, issue 12 (segments with
  // CRC-protected lines and sidecars). NVS passes both.
  spiffs_not_finalized:
    "archive: a .jsonl left not finalized (open and read fail until deleted) is set aside, never overwritten, but its records cannot be read: `every archived fact of the prefilled archive is gone`; the archive keeps one copy of each record (issue 12)",
  // NVS filled to the last entry by another namespace (host-sim fills through
  // the real set path, byte-identical to ESP-IDF v6.0):
  "full/listen":
    "NVS stays full after the reboot, so the conversation's confirmed items cannot be written at boot: they are kept, confirmed, in the pending queue (nothing shown as memory that flash does not hold), and the oracle counts `a confirmed fact \"主人会游泳\" is still pending after boot`; written when space returns",
  "full/tool":
    "1 of 36 cases: `reboot failed: nvs_flash_init failed: ESP_ERR_NVS_NOT_ENOUGH_SPACE`: another namespace filled NVS to the last entry and ESP-IDF's own init cannot garbage-collect; petmem could give back its second copies when NVS nears full (not built)",
  bit_flip:
    "storage only (NVS passes): a flipped bit in an archived line is detected (id check, block CRC) and never served as whole, but the record in that line is gone: `archived fact \"去年的第76件事…\" is gone although older ones are still there`; no second copy or line CRC in archive format 1 (issue 12)",
};

export function expectedToFail(kind: string, workload?: string): string | undefined {
  return (workload !== undefined ? EXPECTED_TO_FAIL[`${kind}/${workload}`] : undefined) ?? EXPECTED_TO_FAIL[kind];
}

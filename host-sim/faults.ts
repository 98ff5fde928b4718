// The faults the device's flash and file system can produce, by the names that
// tests, `npm run powercut` and docs/DESIGN.md use. Each is injectable on a
// SimDevice; how each behaves on the device and in host-sim is in DESIGN.md
// ("Faults").
export const FAULT_KINDS = [
  "power_cut", // power lost at any program or erase; the write in flight is torn anywhere inside it
  "nvs_crc", // an NVS entry whose CRC no longer matches (vanishes at init, or get throws `nvs get fail`)
  "nvs_init_cut", // power lost while nvs_flash_init repairs pages (page erase or state change)
  "spiffs_read_error", // a SPIFFS read call fails
  "spiffs_not_finalized", // a file a cut left not finalized: open or read fails until it is deleted
  "rename_false", // File.rename returns false
  "delete_false", // File.delete returns false
  "open_limit", // more than 5 files open at once
  "full", // NVS or SPIFFS fills during a write
  "bit_flip", // one bit flipped at rest, anywhere in NVS or the storage partition
  "mount_failure", // SPIFFS fails to mount at boot and Moddable formats the partition
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

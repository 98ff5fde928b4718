// An NVS partition image (a pet's `esptool.py read_flash 0x9000 0xC000`) read
// as the device reads it: host-sim's Nvs (a byte-exact model of ESP-IDF's NVS,
// docs/FORMAT.md §2.7) loads it with nvs_flash_init's own repairs. Around that
// load this module says what was damaged and what init changed: it scans the
// bytes before (page headers, entry CRCs, string and blob data CRCs) and
// compares the entry states after, so every item init erased is named with its
// namespace and key.

import {
  crc32le,
  u32,
  headerConsistent,
  PageState,
  EntryState,
  ItemType,
  PAGE_BYTES,
  ENTRIES_PER_PAGE,
  ENTRY_BYTES,
  ENTRY_TABLE_OFFSET,
  ENTRY_DATA_OFFSET,
  NVS_VERSION,
  NvsError,
  type Nvs,
} from "../../host-sim/nvs.js";

export type NvsPageState = "empty" | "active" | "full" | "freeing" | "corrupt";

export interface NvsPageInfo {
  page: number;
  state: NvsPageState;
  seq?: number;
  written: number;
  erased: number;
  why?: string; // a corrupt page: why
}

export type NvsDamageKind =
  | "corrupt_page" // its items are gone (init treats the page as corrupt and erases it when a page is needed)
  | "newer_version" // a page of a newer NVS format: init fails, the device does not boot
  | "entry_crc" // an entry's own CRC (or type, span) fails: init erases it
  | "data_crc" // a string's or blob chunk's data fails its CRC: reading it fails
  | "illegal_state"; // an entry marked with the bitmap's impossible state 01: init erases it

export interface NvsDamage {
  kind: NvsDamageKind;
  page: number;
  entry?: number;
  namespace?: string;
  key?: string;
  message: string;
}

export interface NvsRepair {
  page: number;
  entry?: number;
  namespace?: string;
  key?: string;
  message: string;
}

export interface NvsReport {
  format: "nvs" | "erased" | "unknown"; // erased: all 0xFF (a new NVS); unknown: no page is an NVS page
  pages: NvsPageInfo[];
  damage: NvsDamage[];
  repaired: NvsRepair[]; // what nvs_flash_init changed on flash
  initError?: string; // nvs_flash_init failed: the device would not boot
}

const u16 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8);

const TYPE_NAMES: Record<number, string> = {
  [ItemType.U8]: "u8", [ItemType.I8]: "i8", [ItemType.U16]: "u16", [ItemType.I16]: "i16", [ItemType.U32]: "u32", [ItemType.I32]: "i32",
  [ItemType.U64]: "u64", [ItemType.I64]: "i64", [ItemType.SZ]: "string", [ItemType.BLOB]: "blob", [ItemType.BLOB_DATA]: "blob chunk", [ItemType.BLOB_IDX]: "blob index",
};

function entryState(img: Uint8Array, base: number, i: number): number {
  const word = u32(img, base + ENTRY_TABLE_OFFSET + Math.floor(i / 16) * 4);
  return (word >>> ((i % 16) * 2)) & 3;
}

function pageState(img: Uint8Array, base: number): { state: NvsPageState; seq?: number; why?: string; version?: number } {
  const st = u32(img, base);
  if (st === PageState.UNINITIALIZED) {
    for (let i = base; i < base + PAGE_BYTES; i++) if (img[i] !== 0xff) return { state: "corrupt", why: "its header says empty but the page is not erased" };
    return { state: "empty" };
  }
  if (u32(img, base + 28) !== crc32le(0xffffffff, img, base + 4, base + 28)) return { state: "corrupt", why: "its header CRC fails" };
  const named = st === PageState.ACTIVE ? "active" : st === PageState.FULL ? "full" : st === PageState.FREEING ? "freeing" : undefined;
  if (!named) return { state: "corrupt", why: `its state ${st.toString(16)} is not one NVS writes` };
  return { state: named, seq: u32(img, base + 4), version: img[base + 8] };
}

function keyOf(e: Uint8Array, o: number): string {
  let n = 0;
  while (n < 15 && e[o + 8 + n] !== 0) n++;
  let s = "";
  for (let i = 0; i < n; i++) {
    const c = e[o + 8 + i];
    s += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return s;
}

interface Scan {
  report: NvsReport;
  names: Map<number, string>; // namespace index -> name
  why: Map<string, string>; // "page:entry" -> damage found there
}

// The bytes as they are, before init touches them.
function scan(img: Uint8Array): Scan {
  const pages = img.length / PAGE_BYTES;
  const report: NvsReport = { format: "nvs", pages: [], damage: [], repaired: [] };
  const names = new Map<number, string>();
  const why = new Map<string, string>();
  let nvsPages = 0;
  let erasedPages = 0;
  const heads: { page: number; i: number }[] = [];
  for (let p = 0; p < pages; p++) {
    const base = p * PAGE_BYTES;
    const s = pageState(img, base);
    const info: NvsPageInfo = { page: p, state: s.state, written: 0, erased: 0 };
    if (s.seq !== undefined) info.seq = s.seq;
    if (s.why) info.why = s.why;
    report.pages.push(info);
    if (s.state === "empty") {
      erasedPages++;
      continue;
    }
    if (s.state === "corrupt") {
      report.damage.push({ kind: "corrupt_page", page: p, message: `page ${p}: ${s.why}; NVS treats it as corrupt and every item on it is lost` });
      continue;
    }
    nvsPages++;
    if (s.version !== undefined && s.version < NVS_VERSION)
      report.damage.push({ kind: "newer_version", page: p, message: `page ${p}: NVS format version ${s.version.toString(16)}, newer than this firmware's ${NVS_VERSION.toString(16)}: nvs_flash_init fails` });
    for (let i = 0; i < ENTRIES_PER_PAGE; i++) {
      const es = entryState(img, base, i);
      if (es === EntryState.WRITTEN) info.written++;
      else if (es === EntryState.ERASED) info.erased++;
      else if (es === EntryState.ILLEGAL) {
        why.set(`${p}:${i}`, "marked with an impossible state");
        report.damage.push({ kind: "illegal_state", page: p, entry: i, message: `page ${p} entry ${i}: its bitmap state is 01, which NVS never writes` });
      }
      if (es === EntryState.WRITTEN) heads.push({ page: p, i });
    }
  }
  if (erasedPages === pages) report.format = "erased";
  else if (nvsPages === 0) report.format = "unknown";
  // namespaces first (their names label everything else)
  for (const { page, i } of heads) {
    const o = page * PAGE_BYTES + ENTRY_DATA_OFFSET + i * ENTRY_BYTES;
    const e = img.subarray(o, o + ENTRY_BYTES);
    if (e[0] === 0 && e[1] === ItemType.U8 && headerConsistent(e, i)) names.set(e[24], keyOf(img, o));
  }
  // entries whose header is written: their CRC, and a string's or chunk's data CRC
  const covered = new Set<string>();
  for (const { page, i } of heads) {
    if (covered.has(`${page}:${i}`)) continue;
    const base = page * PAGE_BYTES;
    const o = base + ENTRY_DATA_OFFSET + i * ENTRY_BYTES;
    const e = img.subarray(o, o + ENTRY_BYTES);
    const where = { page, entry: i, namespace: e[0] === 0 ? "(namespaces)" : names.get(e[0]) ?? `#${e[0]}`, key: keyOf(img, o) };
    if (!headerConsistent(e, i)) {
      why.set(`${page}:${i}`, "its CRC fails");
      report.damage.push({ kind: "entry_crc", ...where, message: `page ${page} entry ${i} (${where.namespace}/${where.key}): the entry's CRC, type or span is wrong; nvs_flash_init erases it` });
      continue;
    }
    const type = e[1];
    if (type === ItemType.SZ || type === ItemType.BLOB_DATA || type === ItemType.BLOB) {
      const span = e[2];
      for (let j = 1; j < span; j++) covered.add(`${page}:${i + j}`);
      const size = u16(e, 24);
      const start = o + ENTRY_BYTES;
      if (start + size <= base + PAGE_BYTES && crc32le(0xffffffff, img, start, start + size) !== u32(e, 28)) {
        why.set(`${page}:${i}`, "its data CRC fails");
        report.damage.push({ kind: "data_crc", ...where, message: `${where.namespace}/${where.key} (${TYPE_NAMES[type]}${type === ItemType.BLOB_DATA ? ` ${e[3] & 0x7f}` : ""}, page ${page} entry ${i}): its ${size} bytes fail their CRC; reading the value fails on the device` });
      }
    }
  }
  return { report, names, why };
}

// Loads `bytes` into `nvs` (nvs_flash_init with its repairs) and reports what
// was damaged and what init changed. Never throws for what is in the bytes:
// an init that fails is `initError` (the device would not boot with them).
export function loadNvs(nvs: Nvs, bytes: Uint8Array): NvsReport {
  if (bytes.length !== nvs.image.length) throw new RangeError(`an NVS partition image is ${nvs.image.length} bytes, not ${bytes.length}`);
  const before = bytes.slice();
  const { report, names, why } = scan(before);
  try {
    nvs.load(bytes);
  } catch (e) {
    if (!(e instanceof NvsError)) throw e;
    report.initError = e.code;
    return report;
  }
  const after = nvs.image;
  for (let p = 0; p < report.pages.length; p++) {
    const base = p * PAGE_BYTES;
    const was = report.pages[p].state;
    const now = pageState(after, base).state;
    if (was !== "empty" && now === "empty") {
      report.repaired.push({ page: p, message: `page ${p} (${was}) erased by nvs_flash_init${was === "freeing" ? " after its items were copied to a new page (a garbage collection cut by power loss)" : ""}` });
      continue;
    }
    if (was === "corrupt" || now === "corrupt" || now === "empty") continue;
    for (let i = 0; i < ENTRIES_PER_PAGE; i++) {
      const a = entryState(before, base, i);
      const b = entryState(after, base, i);
      if (a === b || b !== EntryState.ERASED) continue;
      const o = base + ENTRY_DATA_OFFSET + i * ENTRY_BYTES;
      const isHeader = u32(before, o) !== 0xffffffff && (before[o + 2] >= 1 && before[o + 2] <= ENTRIES_PER_PAGE) && TYPE_NAMES[before[o + 1]] !== undefined;
      const known = why.get(`${p}:${i}`);
      if (!isHeader && !known) continue; // the data entries of an item named at its header
      const ns = before[o] === 0 ? "(namespaces)" : names.get(before[o]) ?? `#${before[o]}`;
      const key = keyOf(before, o);
      const reason = known ?? (a === EntryState.EMPTY ? "written but not marked in the bitmap (a write cut by power loss)" : "incomplete, superseded by a newer copy, or a blob whose chunks do not add up");
      report.repaired.push({ page: p, entry: i, namespace: ns, key, message: `${ns}/${key} (${TYPE_NAMES[before[o + 1]] ?? "entry"}, page ${p} entry ${i}) erased by nvs_flash_init: ${reason}` });
    }
  }
  return report;
}

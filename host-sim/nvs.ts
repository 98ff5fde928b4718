// ESP-IDF NVS (v6.0, the version Moddable SDK 8.2 builds with) over a real byte
// image of the partition, byte for byte: 4 KB pages with a 32-byte header (state,
// seq, version 0xFE, CRC32) and a 32-byte entry state bitmap (2 bits per entry:
// empty/written/erased), 126 entries of 32 bytes (ns, type, span, chunkIndex,
// crc32, key[16], data[8]), CRC32 of each entry and of string and blob data,
// namespaces (ns 0 entries), multi-page blobs (BLOB_DATA chunks and a BLOB_IDX,
// version offset 0x00/0x80), page states ACTIVE/FULL/FREEING/CORRUPT, garbage
// collection with one page kept free, and nvs_flash_init's own repair.
//
// The code follows components/nvs_flash/src (nvs_page.cpp, nvs_pagemanager.cpp,
// nvs_storage.cpp, nvs_types.cpp, nvs_item_hash_list.cpp) function by function,
// so that what a power cut or a flipped bit does here is what it does on the
// device. Every program and erase goes through the flash chip (host-sim/flash.ts),
// which counts it and can tear it. docs/FORMAT.md §2.7 has the layout.

import { Flash, prng, type Tear } from "./flash.js";
import type { FaultOptions, NvsFault } from "./faults.js";

export const PAGE_BYTES = 4096;
export const ENTRIES_PER_PAGE = 126;
export const ENTRY_BYTES = 32;
export const CHUNK_MAX_BYTES = (ENTRIES_PER_PAGE - 1) * ENTRY_BYTES; // 4000
export const KEY_MAX_BYTES = 15;
export const STR_MAX_BYTES = 4000; // including the terminating NUL, as ESP-IDF counts it
export const NVS_VERSION = 0xfe;
export const ENTRY_TABLE_OFFSET = 32;
export const ENTRY_DATA_OFFSET = 64;

// Page states (the first word of a page). Bits are only ever cleared.
export const PageState = {
  UNINITIALIZED: 0xffffffff,
  ACTIVE: 0xfffffffe,
  FULL: 0xfffffffc,
  FREEING: 0xfffffff8,
  CORRUPT: 0xfffffff0,
  INVALID: 0, // in RAM only: the page could not be loaded
} as const;

// Entry states, 2 bits each in the page's state bitmap.
export const EntryState = { EMPTY: 3, WRITTEN: 2, ERASED: 0, ILLEGAL: 1 } as const;

export const ItemType = {
  U8: 0x01, I8: 0x11, U16: 0x02, I16: 0x12, U32: 0x04, I32: 0x14, U64: 0x08, I64: 0x18,
  SZ: 0x21, BLOB: 0x41, BLOB_DATA: 0x42, BLOB_IDX: 0x48, ANY: 0xff,
} as const;

const NS_INDEX = 0;
const NS_ANY = 255;
const CHUNK_ANY = 0xff;
const VER_0 = 0x00;
const VER_1 = 0x80;
const VER_ANY = 0xff;
const INVALID_ENTRY = 0xffffffff;

const OK = "ESP_OK";
const NOT_FOUND = "ESP_ERR_NVS_NOT_FOUND";
const TYPE_MISMATCH = "ESP_ERR_NVS_TYPE_MISMATCH";
const PAGE_FULL = "ESP_ERR_NVS_PAGE_FULL";
const NOT_ENOUGH_SPACE = "ESP_ERR_NVS_NOT_ENOUGH_SPACE";
const CONTENT_DIFFERS = "ESP_ERR_NVS_CONTENT_DIFFERS";
const INVALID_LENGTH = "ESP_ERR_NVS_INVALID_LENGTH";
const FAIL = "ESP_FAIL";
type Err = string;

export type NvsType = "u8" | "i32" | "str" | "blob";

export class NvsError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "NvsError", configurable: true, writable: true });
  }
}

function fail(code: Err, what: string): never {
  throw new NvsError(code, `nvs: ${what}: ${code}`);
}

export interface NvsStats {
  pages: number;
  totalEntries: number;
  liveEntries: number; // written and not erased (ESP-IDF's used_entries)
  erasedEntries: number; // reclaimable by garbage collection
  freeEntries: number; // never written since the page was erased
  usableEntries: number; // all pages but the one NVS keeps free
  namespaces: number;
  liveBytes: number; // liveEntries * 32
  percent: number; // liveEntries of usableEntries
}

// What Nvs.get found. `crcFailed`: the item's data did not match its CRC; the
// device returns what it read anyway (nvs_get_* reports NOT_FOUND after copying
// the data, which Moddable's Preference.get treats as success) and erases the item.
export interface NvsValue {
  type: NvsType;
  value: number | Uint8Array | string;
  crcFailed?: boolean;
}

// ---- bytes ---------------------------------------------------------------------

// ESP-IDF's CRC-32 (the reflected polynomial 0xEDB88320), built here rather
// than taken from src/: host-sim is below the device code and checks it
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

// esp_rom_crc32_le(crc, buf, len): zlib's crc32 seeded with `crc`. NVS always
// starts from 0xFFFFFFFF (so it equals Python's zlib.crc32(data, 0xFFFFFFFF)).
export function crc32le(crc: number, buf: Uint8Array, start = 0, end = buf.length): number {
  let c = ~crc >>> 0;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

export function u32(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}
function u16(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8);
}
function put32(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
  b[o + 2] = (v >>> 16) & 0xff;
  b[o + 3] = (v >>> 24) & 0xff;
}
function put16(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

// The 16-byte key field as nvs writes it: at most 15 bytes, then zeros.
export function keyField(key: string): Uint8Array {
  const k = new Uint8Array(16);
  k.set(enc.encode(key).subarray(0, 15));
  return k;
}
function keyString(e: Uint8Array, o = 8): string {
  let n = 0;
  while (n < 15 && e[o + n] !== 0) n++;
  return dec.decode(e.subarray(o, o + n));
}
// strncmp(key, item.key, 15) == 0
function keyEq(k: Uint8Array, e: Uint8Array, o = 8): boolean {
  for (let i = 0; i < 15; i++) {
    const a = k[i], b = e[o + i];
    if (a !== b) return false;
    if (a === 0) return true;
  }
  return true;
}

// ---- Item (nvs_types) ------------------------------------------------------------

// Item(nsIndex, datatype, span, key, chunkIdx): key and data filled with 0xFF
// first; the key is then strncpy'd (zero padded to 15 bytes, byte 15 is 0).
function newItem(ns: number, type: number, span: number, key: Uint8Array | null, chunk = CHUNK_ANY): Uint8Array {
  const e = new Uint8Array(32).fill(0xff);
  e[0] = ns;
  e[1] = type;
  e[2] = span;
  e[3] = chunk;
  if (key) e.set(key.subarray(0, 16), 8);
  else e.fill(0, 8, 24);
  e[23] = 0;
  return e;
}

export function itemCrc(e: Uint8Array): number {
  let c = crc32le(0xffffffff, e, 0, 4);
  c = crc32le(c, e, 8, 24);
  return crc32le(c, e, 24, 32);
}

// HashList's 24-bit hash: Item::calculateCrc32WithoutValue (nsIndex, key, chunkIndex)
function itemHash(e: Uint8Array): number {
  return hashOf(e[0], e, 8, e[3], false);
}
// nul15: a lookup's Item(...) has key[15] = 0 whatever the caller passed
function hashOf(ns: number, key: Uint8Array, at: number, chunk: number, nul15 = true): number {
  let c = ~0xffffffff >>> 0;
  c = CRC_TABLE[(c ^ ns) & 0xff] ^ (c >>> 8);
  for (let i = at; i < at + 16; i++) c = CRC_TABLE[(c ^ (nul15 && i === at + 15 ? 0 : key[i])) & 0xff] ^ (c >>> 8);
  c = CRC_TABLE[(c ^ chunk) & 0xff] ^ (c >>> 8);
  return (~c >>> 0) & 0xffffff;
}

function isVariable(type: number): boolean {
  return type === ItemType.BLOB || type === ItemType.SZ || type === ItemType.BLOB_DATA;
}

// Item::checkHeaderConsistency (ESP-IDF v6.0)
export function headerConsistent(e: Uint8Array, entryIndex: number): boolean {
  if (u32(e, 4) !== itemCrc(e)) return false;
  const type = e[1], span = e[2];
  switch (type) {
    case ItemType.U8: case ItemType.I8: case ItemType.U16: case ItemType.I16:
    case ItemType.U32: case ItemType.I32: case ItemType.U64: case ItemType.I64:
      return span === 1;
    case ItemType.BLOB_IDX:
      return span === 1 && e[3] === CHUNK_ANY && u32(e, 24) <= 127 * (ENTRIES_PER_PAGE - 1) * ENTRY_BYTES;
    case ItemType.SZ: case ItemType.BLOB: case ItemType.BLOB_DATA: {
      if (type === ItemType.BLOB_DATA && e[3] === CHUNK_ANY) return false;
      const size = u16(e, 24);
      if (size > (ENTRIES_PER_PAGE - entryIndex - 1) * ENTRY_BYTES) return false;
      if (span > ENTRIES_PER_PAGE - entryIndex) return false;
      return span === Math.ceil(size / ENTRY_BYTES) + 1;
    }
    default:
      return false;
  }
}

// ---- HashList (nvs_item_hash_list) -------------------------------------------------

class HashList {
  private nodes: { h: number; i: number }[] = [];
  insert(item: Uint8Array, index: number): void {
    this.nodes.push({ h: itemHash(item), i: index });
  }
  erase(index: number): void {
    this.nodes = this.nodes.filter((n) => n.i !== index);
  }
  find(start: number, h: number): number {
    for (const n of this.nodes) if (n.i >= start && n.h === h) return n.i;
    return INVALID_ENTRY;
  }
  clear(): void {
    this.nodes = [];
  }
}

// An in/out cursor of Page.findItem: index to start from and where the item was
// found; item holds the last entry read.
interface Found {
  index: number;
  item: Uint8Array;
}
type InjectOptions = FaultOptions & { tear?: Tear };
function cursor(index = 0): Found {
  return { index, item: new Uint8Array(32) };
}

// ---- Page (nvs_page) -----------------------------------------------------------------

class Page {
  state: number = PageState.INVALID;
  seq = 0xffffffff;
  version = NVS_VERSION;
  table = new Uint32Array(8);
  nextFree = INVALID_ENTRY;
  firstUsed = INVALID_ENTRY;
  used = 0;
  erased = 0;
  hash = new HashList();
  readonly base: number;

  constructor(readonly nvs: Nvs, readonly sector: number) {
    this.base = sector * PAGE_BYTES;
  }

  private entryAddr(i: number): number {
    return this.base + ENTRY_DATA_OFFSET + i * ENTRY_BYTES;
  }

  getEntryState(i: number): number {
    return (this.table[i >> 4] >>> ((i & 15) * 2)) & 3;
  }
  private setEntryState(i: number, s: number): void {
    const w = i >> 4, off = (i & 15) * 2;
    this.table[w] = ((this.table[w] & ~(3 << off)) | (s << off)) >>> 0;
  }

  load(): Err {
    this.used = 0;
    this.erased = 0;
    const header = this.nvs.readRaw(this.base, 32);
    const st = u32(header, 0);
    if (st === PageState.UNINITIALIZED) {
      this.state = st;
      const all = this.nvs.readRaw(this.base, PAGE_BYTES);
      for (let i = 0; i < PAGE_BYTES; i++)
        if (all[i] !== 0xff) {
          this.state = PageState.CORRUPT; // not as empty as it says
          break;
        }
    } else if (u32(header, 28) !== crc32le(0xffffffff, header, 4, 28)) {
      // header.mState = CORRUPT: mState stays INVALID, which the switch below makes CORRUPT
    } else {
      this.state = st;
      this.seq = u32(header, 4);
      if (header[8] < NVS_VERSION) return "ESP_ERR_NVS_NEW_VERSION_FOUND";
      this.version = header[8];
    }
    switch (this.state) {
      case PageState.UNINITIALIZED:
        break;
      case PageState.FULL:
      case PageState.ACTIVE:
      case PageState.FREEING:
        return this.loadEntryTable();
      default:
        this.state = PageState.CORRUPT;
    }
    return OK;
  }

  private loadEntryTable(): Err {
    const t = this.nvs.readRaw(this.base + ENTRY_TABLE_OFFSET, 32);
    for (let w = 0; w < 8; w++) this.table[w] = u32(t, w * 4);
    this.erased = 0;
    this.used = 0;
    for (let i = 0; i < ENTRIES_PER_PAGE; i++) {
      const s = this.getEntryState(i);
      if (s === EntryState.WRITTEN) {
        if (this.firstUsed === INVALID_ENTRY) this.firstUsed = i;
        ++this.used;
      } else if (s === EntryState.ERASED) ++this.erased;
    }
    if (this.state === PageState.ACTIVE) {
      for (let i = 0; i < ENTRIES_PER_PAGE; i++)
        if (this.getEntryState(i) === EntryState.EMPTY) {
          this.nextFree = i;
          break;
        }
      // an entry written but not yet marked in the bitmap: its first word is not 0xFFFFFFFF
      while (this.nextFree < ENTRIES_PER_PAGE) {
        const head = this.nvs.readRaw(this.entryAddr(this.nextFree), 4);
        if (u32(head, 0) === 0xffffffff) break;
        const old = this.getEntryState(this.nextFree);
        this.alterEntryState(this.nextFree, EntryState.ERASED);
        ++this.nextFree;
        if (old === EntryState.WRITTEN) --this.used;
        ++this.erased;
      }
      // every variable-length item written or erased fully; duplicates dropped
      let item: Uint8Array = new Uint8Array(32);
      let lastItemIndex = INVALID_ENTRY;
      const end = Math.min(this.nextFree, ENTRIES_PER_PAGE);
      let span: number;
      for (let i = 0; i < end; i += span) {
        span = 1;
        const s = this.getEntryState(i);
        if (s === EntryState.ERASED) {
          lastItemIndex = INVALID_ENTRY;
          continue;
        }
        if (s === EntryState.ILLEGAL) {
          lastItemIndex = INVALID_ENTRY;
          this.eraseEntryAndSpan(i);
          continue;
        }
        lastItemIndex = i;
        item = this.readEntry(i);
        if (!headerConsistent(item, i)) {
          this.eraseEntryAndSpan(i);
          continue;
        }
        this.hash.insert(item, i);
        const duplicateIndex = this.hash.find(0, itemHash(item));
        if (isVariable(item[1])) {
          span = item[2];
          let needErase = false;
          for (let j = i; j < i + span; ++j)
            if (this.getEntryState(j) !== EntryState.WRITTEN) {
              needErase = true;
              lastItemIndex = INVALID_ENTRY;
              break;
            }
          if (needErase) {
            this.eraseEntryAndSpan(i);
            continue;
          }
        }
        if (duplicateIndex < i) this.eraseEntryAndSpan(duplicateIndex);
      }
      if (lastItemIndex !== INVALID_ENTRY) {
        const f = cursor();
        if (this.findItem(item[0], item[1], item.subarray(8, 24), f) === OK && f.index < lastItemIndex) this.eraseEntryAndSpan(f.index);
      }
    } else if (this.state === PageState.FULL || this.state === PageState.FREEING) {
      for (let i = this.firstUsed; i < ENTRIES_PER_PAGE; ++i) {
        if (this.getEntryState(i) !== EntryState.WRITTEN) continue;
        const item = this.readEntry(i);
        if (!headerConsistent(item, i)) {
          this.eraseEntryAndSpan(i);
          continue;
        }
        this.hash.insert(item, i);
        const span = item[2];
        if (isVariable(item[1]))
          for (let j = i + 1; j < i + span; ++j)
            if (this.getEntryState(j) !== EntryState.WRITTEN) {
              this.eraseEntryAndSpan(i);
              break;
            }
        i += span - 1;
      }
    }
    return OK;
  }

  readEntry(i: number): Uint8Array {
    return this.nvs.readRaw(this.entryAddr(i), ENTRY_BYTES);
  }

  private writeEntry(item: Uint8Array): void {
    this.nvs.writeRaw(this.entryAddr(this.nextFree), item);
    this.alterEntryState(this.nextFree, EntryState.WRITTEN);
    if (this.firstUsed === INVALID_ENTRY) this.firstUsed = this.nextFree;
    ++this.used;
    ++this.nextFree;
  }

  private writeEntryData(data: Uint8Array): void {
    const count = data.length / ENTRY_BYTES;
    this.nvs.writeRaw(this.entryAddr(this.nextFree), data);
    this.alterEntryRangeState(this.nextFree, this.nextFree + count, EntryState.WRITTEN);
    this.used += count;
    this.nextFree += count;
  }

  writeItem(ns: number, type: number, key: Uint8Array, data: Uint8Array, chunk = CHUNK_ANY): Err {
    if (this.state === PageState.INVALID) return "ESP_ERR_NVS_INVALID_STATE";
    if (this.state === PageState.UNINITIALIZED) this.initialize();
    if (this.state === PageState.FULL) return PAGE_FULL;
    if (key.indexOf(0) > KEY_MAX_BYTES || key.indexOf(0) < 0) return "ESP_ERR_NVS_KEY_TOO_LONG";
    const size = data.length;
    if (size > CHUNK_MAX_BYTES) return "ESP_ERR_NVS_VALUE_TOO_LONG";
    if (!isVariable(type) && size > 8) return "ESP_ERR_INVALID_ARG";
    let entries = 1;
    if (isVariable(type)) entries += Math.ceil(size / ENTRY_BYTES);
    if (this.nextFree === INVALID_ENTRY || this.nextFree + entries > ENTRIES_PER_PAGE) return PAGE_FULL;
    const item = newItem(ns, type, entries, key, chunk);
    this.hash.insert(item, this.nextFree);
    if (!this.nvs.initializing) this.nvs.itemOps++;
    if (!isVariable(type)) {
      item.set(data, 24);
      put32(item, 4, itemCrc(item));
      this.writeEntry(item);
    } else {
      put16(item, 24, size);
      put16(item, 26, 0xffff);
      put32(item, 28, crc32le(0xffffffff, data));
      put32(item, 4, itemCrc(item));
      this.writeEntry(item);
      const rest = size % ENTRY_BYTES;
      const left = size - rest;
      if (left > 0) this.writeEntryData(data.subarray(0, left));
      if (rest > 0) {
        item.fill(0xff);
        item.set(data.subarray(left), 0);
        this.writeEntry(item);
      }
    }
    return OK;
  }

  // Reads a variable-length item's data into `dst` (copying it before the CRC
  // check, as the device does); a CRC mismatch erases the item: NOT_FOUND.
  readVariableLengthItemData(item: Uint8Array, index: number, dst: Uint8Array, at = 0): Err {
    if (this.state === PageState.INVALID) return "ESP_ERR_NVS_INVALID_STATE";
    const size = u16(item, 24);
    let left = size;
    let o = at;
    for (let i = index + 1; i < index + item[2]; ++i) {
      const d = this.readEntry(i);
      const n = Math.min(left, ENTRY_BYTES);
      dst.set(d.subarray(0, n), o);
      left -= n;
      o += n;
    }
    if (crc32le(0xffffffff, dst, at, at + size) !== u32(item, 28)) {
      this.eraseEntryAndSpan(index);
      return NOT_FOUND;
    }
    return OK;
  }

  cmpItem(ns: number, type: number, key: Uint8Array, data: Uint8Array, chunk = CHUNK_ANY): Err {
    if (this.state === PageState.INVALID) return "ESP_ERR_NVS_INVALID_STATE";
    const f = cursor();
    const rc = this.findItem(ns, type, key, f, chunk);
    if (rc !== OK) return rc;
    const item = f.item;
    if (!isVariable(type)) {
      if (data.length !== (type & 0x0f)) return TYPE_MISMATCH;
      for (let i = 0; i < data.length; i++) if (data[i] !== item[24 + i]) return CONTENT_DIFFERS;
      return OK;
    }
    const size = u16(item, 24);
    if (data.length < size) return INVALID_LENGTH;
    if (crc32le(0xffffffff, data, 0, size) !== u32(item, 28)) return CONTENT_DIFFERS;
    let left = size, o = 0, acc = 0xffffffff;
    for (let i = f.index + 1; i < f.index + item[2]; ++i) {
      const d = this.readEntry(i);
      const n = Math.min(left, ENTRY_BYTES);
      for (let j = 0; j < n; j++) if (data[o + j] !== d[j]) return CONTENT_DIFFERS;
      acc = crc32le(acc, d, 0, n);
      left -= n;
      o += n;
    }
    return acc !== u32(item, 28) ? CONTENT_DIFFERS : OK;
  }

  eraseItem(ns: number, type: number, key: Uint8Array | null, chunk = CHUNK_ANY, chunkStart = VER_ANY): Err {
    const f = cursor();
    const rc = this.findItem(ns, type, key, f, chunk, chunkStart);
    if (rc !== OK) return rc;
    return this.eraseEntryAndSpan(f.index);
  }

  eraseEntryAndSpan(index: number): Err {
    if (!this.nvs.initializing) this.nvs.itemOps++;
    const state = this.getEntryState(index);
    let span = 1;
    if (state === EntryState.WRITTEN) {
      const item = this.readEntry(index);
      if (!headerConsistent(item, index)) {
        this.hash.erase(index);
        this.alterEntryState(index, EntryState.ERASED);
        --this.used;
        ++this.erased;
      } else {
        this.hash.erase(index);
        span = item[2];
        for (let i = index + span - 1; i >= index; --i) {
          if (this.getEntryState(i) === EntryState.WRITTEN) --this.used;
          ++this.erased;
        }
        if (span === 1) this.alterEntryState(index, EntryState.ERASED);
        else this.alterEntryRangeState(index, index + span, EntryState.ERASED);
      }
    } else {
      this.alterEntryState(index, EntryState.ERASED);
    }
    if (index === this.firstUsed) this.updateFirstUsedEntry(index, span);
    if (index + span > this.nextFree) this.nextFree = index + span;
    return OK;
  }

  private updateFirstUsedEntry(index: number, span: number): void {
    this.firstUsed = INVALID_ENTRY;
    const end = Math.min(this.nextFree, ENTRIES_PER_PAGE);
    for (let i = index + span; i < end; ++i)
      if (this.getEntryState(i) === EntryState.WRITTEN) {
        this.firstUsed = i;
        break;
      }
  }

  copyItems(other: Page): Err {
    if (this.firstUsed === INVALID_ENTRY) return NOT_FOUND;
    if (other.state === PageState.UNINITIALIZED) other.initialize();
    let r = this.firstUsed;
    while (r < ENTRIES_PER_PAGE) {
      if (this.getEntryState(r) !== EntryState.WRITTEN) {
        r++;
        continue;
      }
      let entry = this.readEntry(r);
      other.hash.insert(entry, other.nextFree);
      other.writeEntry(entry);
      const end = r + entry[2];
      if (end > ENTRIES_PER_PAGE) return FAIL;
      for (let i = r + 1; i < end; ++i) {
        entry = this.readEntry(i);
        other.writeEntry(entry);
      }
      r = end;
    }
    return OK;
  }

  private initialize(): void {
    this.state = PageState.ACTIVE;
    const h = new Uint8Array(32).fill(0xff);
    put32(h, 0, this.state);
    put32(h, 4, this.seq);
    h[8] = this.version;
    put32(h, 28, crc32le(0xffffffff, h, 4, 28));
    this.nvs.writeRaw(this.base, h);
    this.nextFree = 0;
    this.table.fill(0xffffffff);
  }

  private writeTableWord(w: number): void {
    const b = new Uint8Array(4);
    put32(b, 0, this.table[w]);
    this.nvs.writeRaw(this.base + ENTRY_TABLE_OFFSET + w * 4, b);
  }

  private alterEntryState(i: number, s: number): void {
    this.setEntryState(i, s);
    this.writeTableWord(i >> 4);
  }

  private alterEntryRangeState(begin: number, end: number, s: number): void {
    let w = (end - 1) >> 4;
    for (let i = end - 1; i >= begin; --i) {
      this.setEntryState(i, s);
      const next = i === begin ? -1 : (i - 1) >> 4;
      if (next !== w) this.writeTableWord(w);
      w = next;
    }
  }

  private alterPageState(s: number): void {
    const b = new Uint8Array(4);
    put32(b, 0, s);
    this.nvs.writeRaw(this.base, b);
    this.state = s;
  }

  // Page::findItem: from f.index (or the hash list's first candidate) to the
  // next free entry; an entry whose header fails its checks is erased on the way.
  findItem(ns: number, type: number, key: Uint8Array | null, f: Found, chunk = CHUNK_ANY, chunkStart = VER_ANY): Err {
    if (this.state === PageState.CORRUPT || this.state === PageState.INVALID || this.state === PageState.UNINITIALIZED) return NOT_FOUND;
    const findBegin = f.index;
    if (findBegin >= ENTRIES_PER_PAGE) return NOT_FOUND;
    let start = this.firstUsed;
    if (findBegin > this.firstUsed && findBegin < ENTRIES_PER_PAGE) start = findBegin;
    const end = Math.min(this.nextFree, ENTRIES_PER_PAGE);
    if (ns !== NS_ANY && key !== null && (type !== ItemType.BLOB_DATA || chunk !== CHUNK_ANY)) {
      const cached = this.hash.find(start, hashOf(ns, key, 0, chunk));
      if (cached < ENTRIES_PER_PAGE) start = cached;
      else return NOT_FOUND;
    }
    let next: number;
    for (let i = start; i < end; i = next) {
      next = i + 1;
      if (this.getEntryState(i) !== EntryState.WRITTEN) continue;
      const item = this.readEntry(i);
      f.item = item;
      if (!headerConsistent(item, i)) {
        this.eraseEntryAndSpan(i);
        continue;
      }
      const it = item[1];
      if (isVariable(it)) next = i + item[2];
      if (ns !== NS_ANY && item[0] !== ns) continue;
      if (key !== null && !keyEq(key, item)) continue;
      if (chunk !== CHUNK_ANY && type === ItemType.BLOB_DATA && item[3] !== chunk) continue;
      if (chunk === CHUNK_ANY && type === ItemType.BLOB_DATA && it !== ItemType.BLOB_DATA) continue;
      if (chunk === CHUNK_ANY && type === ItemType.BLOB && it === ItemType.BLOB_IDX) return TYPE_MISMATCH;
      if (chunk === CHUNK_ANY && type === ItemType.BLOB && it === ItemType.BLOB_DATA) continue;
      if (type === ItemType.BLOB_IDX && item[3] !== CHUNK_ANY) continue;
      if (type === ItemType.BLOB_IDX && chunkStart !== VER_ANY && item[29] !== chunkStart) continue;
      if (type !== ItemType.ANY && it !== type) {
        if (key === null && ns === NS_ANY && chunk === CHUNK_ANY) continue;
        f.index = i;
        return TYPE_MISMATCH;
      }
      f.index = i;
      return OK;
    }
    return NOT_FOUND;
  }

  getSeqNumber(): number | undefined {
    return this.state !== PageState.UNINITIALIZED && this.state !== PageState.INVALID && this.state !== PageState.CORRUPT ? this.seq : undefined;
  }

  erase(): void {
    this.nvs.eraseRaw(this.base, PAGE_BYTES);
    this.used = 0;
    this.erased = 0;
    this.firstUsed = INVALID_ENTRY;
    this.nextFree = INVALID_ENTRY;
    this.state = PageState.UNINITIALIZED;
    this.hash.clear();
  }

  markFreeing(): Err {
    if (this.state !== PageState.FULL && this.state !== PageState.ACTIVE) return "ESP_ERR_NVS_INVALID_STATE";
    this.alterPageState(PageState.FREEING);
    return OK;
  }

  markFull(): Err {
    if (this.state !== PageState.ACTIVE) return "ESP_ERR_NVS_INVALID_STATE";
    this.alterPageState(PageState.FULL);
    return OK;
  }

  varDataTailroom(): number {
    if (this.state === PageState.UNINITIALIZED) return CHUNK_MAX_BYTES;
    if (this.state === PageState.FULL) return 0;
    return this.nextFree < ENTRIES_PER_PAGE - 1 ? (ENTRIES_PER_PAGE - this.nextFree - 1) * ENTRY_BYTES : 0;
  }
}

// ---- Nvs: PageManager + Storage + the nvs_* API that Moddable's preference uses ----

interface BlobIndexNode {
  key: Uint8Array;
  ns: number;
  chunkStart: number;
  chunkCount: number;
  dataSize: number;
  observedSize: number;
  observedCount: number;
}

export class Nvs {
  readonly pageCount: number;
  readonly image: Uint8Array; // the partition, byte for byte
  private pages: Page[] = [];
  private pageList: Page[] = []; // in use, by seq
  private freeList: Page[] = [];
  private seqNumber = 0;
  private nsList: { key: Uint8Array; index: number }[] = [];
  private nsUsage = new Set<number>();
  initializing = false; // inside nvs_flash_init: reads and item counts are not charged
  initError: string | undefined; // the error of the last nvs_flash_init, if it failed
  peakLiveEntries = 0;
  // NVS items written or erased by set/erase (a GC copy is not counted): one
  // Preference.set of a new key is 1 item, of a blob 2 (chunk, index) per chunk
  itemOps = 0;
  private initCut: InjectOptions | undefined; // nvs_init_cut armed for the next recover()
  private fillAt: { left: number; opts: FaultOptions } | undefined; // `full` armed for the at-th set

  constructor(readonly flash: Flash, readonly bytes = 48 * 1024, readonly partition = "nvs") {
    this.pageCount = Math.floor(bytes / PAGE_BYTES);
    if (this.pageCount < 2) throw new RangeError("nvs needs at least 2 pages");
    this.image = new Uint8Array(this.pageCount * PAGE_BYTES).fill(0xff);
    this.init();
  }

  // ---- flash access ----

  readRaw(addr: number, len: number): Uint8Array {
    if (!this.initializing) this.flash.read(this.partition, len);
    return this.image.slice(addr, addr + len);
  }
  writeRaw(addr: number, data: Uint8Array): void {
    this.flash.write(this.partition, this.image, addr, data);
  }
  eraseRaw(addr: number, len: number): void {
    this.flash.eraseRange(this.partition, this.image, addr, len);
  }

  // ---- PageManager ----

  private loadPages(): Err {
    this.pages = [];
    this.pageList = [];
    this.freeList = [];
    for (let i = 0; i < this.pageCount; i++) {
      const p = new Page(this, i);
      this.pages.push(p);
      const err = p.load();
      if (err !== OK) return err;
      const seq = p.getSeqNumber();
      if (seq === undefined) this.freeList.push(p);
      else {
        const pos = this.pageList.findIndex((q) => q.getSeqNumber() !== undefined && q.getSeqNumber()! > seq);
        if (pos < 0) this.pageList.push(p);
        else this.pageList.splice(pos, 0, p);
      }
    }
    if (this.pageList.length === 0) {
      this.seqNumber = 0;
      return this.activatePage();
    }
    this.seqNumber = this.pageList[this.pageList.length - 1].seq + 1;

    // a power cut after a new item was written but before the old one was erased
    const lastPage = this.pageList[this.pageList.length - 1];
    let lastItemIndex = -1;
    const f = cursor();
    let item: Uint8Array = f.item;
    while (lastPage.findItem(NS_ANY, ItemType.ANY, null, f) === OK) {
      item = f.item;
      f.index += f.item[2];
      lastItemIndex = f.index;
    }
    item = f.item; // the last entry findItem read, as in the C++ (item is its out-parameter)
    if (lastItemIndex !== -1) {
      const key = item.slice(8, 24);
      let i = 0;
      for (; i < this.pageList.length - 1; i++) {
        const p = this.pageList[i];
        if (p.state !== PageState.FREEING && p.eraseItem(item[0], item[1], key, item[3]) === OK) break;
      }
      if (i === this.pageList.length - 1 && item[1] === ItemType.BLOB_IDX) {
        for (let j = 0; j < this.pageList.length - 1; j++) {
          const p = this.pageList[j];
          if (p.state !== PageState.FREEING && p.eraseItem(item[0], ItemType.BLOB, key, item[3]) === OK) break;
        }
      }
    }

    // a power cut while a page was being freed
    for (const p of this.pageList) {
      if (p.state !== PageState.FREEING) continue;
      let newPage = this.pageList[this.pageList.length - 1];
      if (newPage.state === PageState.ACTIVE) {
        newPage.erase();
        this.pageList.splice(this.pageList.indexOf(newPage), 1);
        this.freeList.push(newPage);
      }
      const err = this.activatePage();
      if (err !== OK) return err;
      newPage = this.pageList[this.pageList.length - 1];
      const e2 = p.copyItems(newPage);
      if (e2 !== OK && e2 !== NOT_FOUND) return e2;
      p.erase();
      this.pageList.splice(this.pageList.indexOf(p), 1);
      this.freeList.push(p);
      break;
    }
    if (this.freeList.length === 0) return "ESP_ERR_NVS_NO_FREE_PAGES";
    return OK;
  }

  private requestNewPage(): Err {
    if (this.freeList.length === 0) return "ESP_ERR_NVS_INVALID_STATE";
    if (this.freeList.length >= 2) return this.activatePage();
    let victim: Page | undefined;
    let maxUnused = 0;
    for (const p of this.pageList) {
      const unused = ENTRIES_PER_PAGE - p.used;
      if (unused > maxUnused) {
        victim = p;
        maxUnused = unused;
      }
    }
    if (!victim) return NOT_ENOUGH_SPACE;
    let err = victim.markFreeing();
    if (err !== OK) return err;
    err = this.activatePage();
    if (err !== OK) return err;
    const newPage = this.pageList[this.pageList.length - 1];
    err = victim.copyItems(newPage);
    if (err !== OK && err !== NOT_FOUND) return err;
    victim.erase();
    this.pageList.splice(this.pageList.indexOf(victim), 1);
    this.freeList.push(victim);
    return OK;
  }

  private activatePage(): Err {
    if (this.freeList.length === 0) return NOT_ENOUGH_SPACE;
    const p = this.freeList[0];
    if (p.state === PageState.CORRUPT) p.erase();
    this.freeList.shift();
    this.pageList.push(p);
    p.seq = this.seqNumber++;
    return OK;
  }

  private currentPage(): Page {
    return this.pageList[this.pageList.length - 1];
  }

  // ---- Storage ----

  // nvs_flash_init: load every page from the bytes on flash, repair what a power
  // cut left, load the namespaces, drop blob indexes whose chunks do not add up
  // and chunks without an index. Sets initError (the device would not boot) on failure.
  private init(): void {
    this.initializing = true;
    this.initError = undefined;
    try {
      const err = this.loadPages();
      if (err !== OK) {
        this.initError = err;
        return;
      }
      this.nsList = [];
      this.nsUsage = new Set([0, 255]);
      for (const p of this.pageList) {
        const f = cursor();
        while (p.findItem(NS_INDEX, ItemType.U8, null, f) === OK) {
          this.nsList.push({ key: f.item.slice(8, 24), index: f.item[24] });
          this.nsUsage.add(f.item[24]);
          f.index += f.item[2];
        }
      }
      const blobs = this.populateBlobIndices();
      this.eraseMismatchedBlobIndexes(blobs);
      this.eraseOrphanDataBlobs(blobs);
    } finally {
      this.initializing = false;
    }
  }

  private populateBlobIndices(): BlobIndexNode[] {
    const out: BlobIndexNode[] = [];
    for (const p of this.pageList) {
      const f = cursor();
      while (p.findItem(NS_ANY, ItemType.BLOB_IDX, null, f) === OK) {
        const it = f.item;
        out.push({ key: it.slice(8, 24), ns: it[0], chunkStart: it[29], chunkCount: it[28], dataSize: u32(it, 24), observedSize: 0, observedCount: 0 });
        f.index += it[2];
      }
    }
    return out;
  }

  private eraseMismatchedBlobIndexes(list: BlobIndexNode[]): void {
    for (const p of this.pageList) {
      const f = cursor();
      while (p.findItem(NS_ANY, ItemType.BLOB_DATA, null, f) === OK) {
        const it = f.item;
        const e = list.find((b) => keyEq(it.subarray(8, 24), b.key, 0) && it[0] === b.ns && it[3] >= b.chunkStart && it[3] < (b.chunkStart === VER_0 ? VER_1 : VER_ANY));
        if (e) {
          e.observedSize += u16(it, 24);
          e.observedCount++;
        }
        f.index += it[2];
      }
    }
    for (let k = 0; k < list.length; ) {
      const b = list[k];
      if (b.observedSize !== b.dataSize || b.observedCount !== b.chunkCount) {
        for (const p of this.pageList) {
          if (p.state === PageState.CORRUPT || p.state === PageState.INVALID || p.state === PageState.UNINITIALIZED) continue;
          if (p.eraseItem(b.ns, ItemType.BLOB_IDX, b.key, 255, b.chunkStart) === OK) break;
        }
        list.splice(k, 1);
      } else k++;
    }
  }

  private eraseOrphanDataBlobs(list: BlobIndexNode[]): void {
    for (const p of this.pageList) {
      const f = cursor();
      while (p.findItem(NS_ANY, ItemType.BLOB_DATA, null, f) === OK) {
        const it = f.item;
        const e = list.find((b) => keyEq(it.subarray(8, 24), b.key, 0) && it[0] === b.ns && it[3] >= b.chunkStart && it[3] < b.chunkStart + b.chunkCount);
        if (!e) p.eraseItem(it[0], it[1], it.slice(8, 24), it[3]);
        f.index += it[2];
      }
    }
  }

  private findItemAll(ns: number, type: number, key: Uint8Array | null, chunk = CHUNK_ANY, chunkStart = VER_ANY): { page: Page; f: Found } | undefined {
    for (const page of this.pageList) {
      const f = cursor();
      if (page.findItem(ns, type, key, f, chunk, chunkStart) === OK) return { page, f };
    }
    return undefined;
  }

  private writeMultiPageBlob(ns: number, key: Uint8Array, data: Uint8Array, chunkStart: number): Err {
    let chunkCount = 0;
    const used: Page[] = [];
    let remaining = data.length;
    let offset = 0;
    let err: Err = OK;
    const maxPages = Math.min(this.pageCount - 1, (CHUNK_ANY - 1) / 2);
    if (data.length > maxPages * CHUNK_MAX_BYTES) return "ESP_ERR_NVS_VALUE_TOO_LONG";
    for (;;) {
      const page = this.currentPage();
      const tailroom = page.varDataTailroom();
      if (chunkCount === 0 && (tailroom < data.length || (tailroom === 0 && data.length === 0)) && tailroom < CHUNK_MAX_BYTES / 10) {
        if (page.state !== PageState.FULL) {
          err = page.markFull();
          if (err !== OK) return err;
        }
        err = this.requestNewPage();
        if (err !== OK) return err;
        if (this.currentPage().varDataTailroom() === tailroom) return NOT_ENOUGH_SPACE;
        continue;
      } else if (!tailroom) {
        err = NOT_ENOUGH_SPACE;
        break;
      }
      const chunkSize = Math.min(remaining, tailroom);
      remaining -= chunkSize;
      err = page.writeItem(ns, ItemType.BLOB_DATA, key, data.subarray(offset, offset + chunkSize), chunkStart + chunkCount);
      chunkCount++;
      if (err === PAGE_FULL) return err; // NVS_ASSERT_OR_RETURN(err != PAGE_FULL): no clean-up
      if (err !== OK) break;
      used.push(page);
      if (remaining || tailroom - chunkSize < ENTRY_BYTES) {
        if (page.state !== PageState.FULL) {
          err = page.markFull();
          if (err !== OK) break;
        }
        err = this.requestNewPage();
        if (err !== OK) break;
      }
      offset += chunkSize;
      if (!remaining) {
        const idx = new Uint8Array(8).fill(0xff);
        put32(idx, 0, data.length);
        idx[4] = chunkCount;
        idx[5] = chunkStart;
        err = this.currentPage().writeItem(ns, ItemType.BLOB_IDX, key, idx);
        if (err === PAGE_FULL) return err;
        break;
      }
    }
    if (err !== OK) {
      // erase the chunks already written (ESP-IDF passes 0, 1, ... as chunk index)
      let ii = 0;
      for (const p of used) p.eraseItem(ns, ItemType.BLOB_DATA, key, ii++);
    }
    return err;
  }

  private writeItem(ns: number, type: number, key: Uint8Array, data: Uint8Array): Err {
    if (this.initError) return "ESP_ERR_NVS_NOT_INITIALIZED";
    let found: { page: Page; f: Found } | undefined;
    let matched = false;
    let foundSeq: number | undefined;
    if (type === ItemType.BLOB) {
      found = this.findItemAll(ns, ItemType.BLOB_IDX, key);
      if (found) matched = true;
    } else {
      found = this.findItemAll(ns, type, key);
      if (found) {
        matched = true;
        foundSeq = found.page.getSeqNumber();
      }
    }
    if (!found) {
      found = this.findItemAll(ns, ItemType.ANY, key);
      if (found) foundSeq = found.page.getSeqNumber();
    }
    let err: Err;
    if (type === ItemType.BLOB) {
      let next = VER_0;
      if (matched) {
        if (this.cmpMultiPageBlob(ns, key, data) === OK) return OK;
        next = found!.f.item[29] === VER_1 ? VER_0 : VER_1;
      }
      err = this.writeMultiPageBlob(ns, key, data, next);
      if (err === PAGE_FULL) return NOT_ENOUGH_SPACE;
      if (err !== OK) return err;
    } else {
      if (matched && found!.page.cmpItem(ns, type, key, data) === OK) return OK;
      const page = this.currentPage();
      err = page.writeItem(ns, type, key, data);
      if (err === PAGE_FULL) {
        if (page.state !== PageState.FULL) {
          err = page.markFull();
          if (err !== OK) return err;
        }
        err = this.requestNewPage();
        if (err !== OK) return err;
        err = this.currentPage().writeItem(ns, type, key, data);
        if (err === PAGE_FULL) return NOT_ENOUGH_SPACE;
      }
      if (err !== OK) return err;
    }
    this.notePeak();
    if (!found) return OK;
    const old = found.f.item;
    if (old[1] === ItemType.BLOB_IDX) {
      err = this.eraseMultiPageBlob(ns, key, old[29]);
    } else {
      let page = found.page;
      let index = found.f.index;
      const relocated = (page.state !== PageState.ACTIVE && page.state !== PageState.FULL) || page.getSeqNumber() !== foundSeq;
      if (relocated) {
        const again = this.findItemAll(ns, old[1], key);
        if (!again) return NOT_FOUND;
        page = again.page;
        index = again.f.index;
      }
      err = page.eraseEntryAndSpan(index);
    }
    return err;
  }

  private createOrOpenNamespace(name: string, canCreate: boolean): { err: Err; index: number } {
    if (this.initError) return { err: "ESP_ERR_NVS_NOT_INITIALIZED", index: 0 };
    const k = keyField(name);
    const e = this.nsList.find((n) => keyEq(k, n.key, 0));
    if (e) return { err: OK, index: e.index };
    if (!canCreate) return { err: NOT_FOUND, index: 0 };
    let ns = 1;
    while (ns < 255 && this.nsUsage.has(ns)) ns++;
    if (ns === 255) return { err: NOT_ENOUGH_SPACE, index: 0 };
    const err = this.writeItem(NS_INDEX, ItemType.U8, k, Uint8Array.of(ns));
    if (err !== OK) return { err, index: 0 };
    this.nsUsage.add(ns);
    this.nsList.push({ key: k, index: ns });
    return { err: OK, index: ns };
  }

  private readMultiPageBlob(ns: number, key: Uint8Array, out: Uint8Array): Err {
    const idx = this.findItemAll(ns, ItemType.BLOB_IDX, key);
    if (!idx) return NOT_FOUND;
    const chunkCount = idx.f.item[28];
    const chunkStart = idx.f.item[29];
    if (out.length !== u32(idx.f.item, 24)) return FAIL;
    let offset = 0;
    let err: Err = OK;
    for (let n = 0; n < chunkCount; n++) {
      const c = this.findItemAll(ns, ItemType.BLOB_DATA, key, chunkStart + n);
      if (!c) {
        err = NOT_FOUND;
        break;
      }
      const size = u16(c.f.item, 24);
      if (size > out.length - offset) {
        err = INVALID_LENGTH;
        break;
      }
      err = c.page.readVariableLengthItemData(c.f.item, c.f.index, out, offset);
      if (err !== OK) return err;
      offset += size;
    }
    if (err === NOT_FOUND || err === INVALID_LENGTH) this.eraseMultiPageBlob(ns, key, VER_ANY);
    if (offset !== out.length) return FAIL; // NVS_ASSERT_OR_RETURN(offset == dataSize, ESP_FAIL)
    return err;
  }

  private cmpMultiPageBlob(ns: number, key: Uint8Array, data: Uint8Array): Err {
    const idx = this.findItemAll(ns, ItemType.BLOB_IDX, key);
    if (!idx) return NOT_FOUND;
    const chunkCount = idx.f.item[28];
    const chunkStart = idx.f.item[29];
    if (data.length !== u32(idx.f.item, 24)) return CONTENT_DIFFERS;
    let offset = 0;
    let err: Err = OK;
    for (let n = 0; n < chunkCount; n++) {
      const c = this.findItemAll(ns, ItemType.BLOB_DATA, key, chunkStart + n);
      if (!c) {
        err = NOT_FOUND;
        break;
      }
      const size = u16(c.f.item, 24);
      if (size > data.length - offset) return CONTENT_DIFFERS;
      // as in ESP-IDF: the CRC of the data from the start of the buffer, not of this window
      if (crc32le(0xffffffff, data, 0, size) !== u32(c.f.item, 28)) return CONTENT_DIFFERS;
      err = c.page.cmpItem(ns, ItemType.BLOB_DATA, key, data.subarray(offset, offset + size), chunkStart + n);
      if (err !== OK) return err;
      offset += size;
    }
    if (offset !== data.length) return FAIL;
    return err;
  }

  private eraseMultiPageBlob(ns: number, key: Uint8Array, chunkStart = VER_ANY): Err {
    const idx = this.findItemAll(ns, ItemType.BLOB_IDX, key, CHUNK_ANY, chunkStart);
    if (!idx) return NOT_FOUND;
    const chunkCount = idx.f.item[28];
    let err = idx.page.eraseEntryAndSpan(idx.f.index);
    if (err !== OK) return err;
    if (chunkStart === VER_ANY) {
      const again = this.findItemAll(ns, ItemType.BLOB_IDX, key, CHUNK_ANY, chunkStart);
      if (again) again.page.eraseEntryAndSpan(again.f.index);
      for (const p of this.pageList) {
        const f = cursor();
        do {
          err = p.findItem(ns, ItemType.BLOB_DATA, key, f);
          if (err === NOT_FOUND) break;
          if (err === OK) {
            p.eraseEntryAndSpan(f.index);
            f.index += f.item[2];
          } else return err;
        } while (f.index < ENTRIES_PER_PAGE);
      }
    } else {
      for (let c = chunkStart; c < chunkStart + chunkCount; c++) {
        const d = this.findItemAll(ns, ItemType.BLOB_DATA, key, c);
        if (!d) return NOT_FOUND;
        d.page.eraseEntryAndSpan(d.f.index);
      }
    }
    return OK;
  }

  private eraseItem(ns: number, key: Uint8Array): Err {
    if (this.initError) return "ESP_ERR_NVS_NOT_INITIALIZED";
    const found = this.findItemAll(ns, ItemType.ANY, key);
    if (!found) return NOT_FOUND;
    if (found.f.item[1] === ItemType.BLOB_IDX) return this.eraseMultiPageBlob(ns, key, found.f.item[29]);
    return found.page.eraseEntryAndSpan(found.f.index);
  }

  private getItemDataSize(ns: number, type: number, key: Uint8Array): { err: Err; size: number } {
    if (type === ItemType.BLOB) {
      const idx = this.findItemAll(ns, ItemType.BLOB_IDX, key);
      if (idx) return { err: OK, size: u32(idx.f.item, 24) };
    }
    const f = this.findItemAll(ns, type, key);
    if (!f) return { err: NOT_FOUND, size: 0 };
    return { err: OK, size: u16(f.f.item, 24) };
  }

  // Storage::readItem for one type; scalars into `out` (8 bytes).
  private readItem(ns: number, type: number, key: Uint8Array, out: Uint8Array): Err {
    if (type === ItemType.BLOB) {
      const err = this.readMultiPageBlob(ns, key, out);
      if (err !== NOT_FOUND) return err;
    }
    const found = this.findItemAll(ns, type, key);
    if (!found) return NOT_FOUND;
    // Page::readItem finds the item again on that page
    const f = cursor();
    const rc = found.page.findItem(ns, type, key, f);
    if (rc !== OK) return rc;
    if (!isVariable(type)) {
      out.set(f.item.subarray(24, 24 + (type & 0x0f)));
      return OK;
    }
    if (out.length < u16(f.item, 24)) return INVALID_LENGTH;
    return found.page.readVariableLengthItemData(f.item, f.index, out);
  }

  private notePeak(): void {
    let used = 0;
    for (const p of this.pageList) used += p.used;
    if (used > this.peakLiveEntries) this.peakLiveEntries = used;
  }

  // ---- the API host-sim/preference.ts uses (Moddable's modPreference.c over nvs_*) ----

  private checkKey(key: string): void {
    if (enc.encode(key).length > KEY_MAX_BYTES) throw new NvsError("ESP_ERR_NVS_KEY_TOO_LONG", "nvs: key too long");
  }

  private assertReady(): void {
    this.flash.assertPowered();
    if (this.initError) throw new NvsError("ESP_ERR_NVS_NOT_INITIALIZED", `nvs: not initialized (${this.initError})`);
  }

  // xs_preference_get: nvs_open(READONLY), then nvs_get_u8, _i32, _str, _blob in
  // turn; NOT_FOUND from all is undefined, any other error throws NvsError.
  get(namespace: string, key: string): NvsValue | undefined {
    this.assertReady();
    const nso = this.createOrOpenNamespace(namespace, false);
    if (nso.err !== OK) return undefined;
    const ns = nso.index;
    const k = keyField(key);
    const scalar = new Uint8Array(8);
    let err = this.readItem(ns, ItemType.U8, k, scalar);
    if (err === OK) return { type: "u8", value: scalar[0] };
    if (err !== NOT_FOUND) fail(err, "get");
    err = this.readItem(ns, ItemType.I32, k, scalar);
    if (err === OK) return { type: "i32", value: u32(scalar, 0) | 0 };
    if (err !== NOT_FOUND) fail(err, "get");
    let sz = this.getItemDataSize(ns, ItemType.SZ, k);
    if (sz.err === OK) {
      const buf = new Uint8Array(sz.size);
      err = this.readItem(ns, ItemType.SZ, k, buf);
      if (err !== OK && err !== NOT_FOUND) fail(err, "get");
      const nul = buf.indexOf(0);
      const value = dec.decode(nul < 0 ? buf : buf.subarray(0, nul));
      return err === OK ? { type: "str", value } : { type: "str", value, crcFailed: true };
    }
    if (sz.err !== NOT_FOUND) fail(sz.err, "get");
    sz = this.getItemDataSize(ns, ItemType.BLOB, k);
    if (sz.err === OK) {
      const buf = new Uint8Array(sz.size);
      err = this.readItem(ns, ItemType.BLOB, k, buf);
      if (err !== OK && err !== NOT_FOUND) fail(err, "get");
      return err === OK ? { type: "blob", value: buf } : { type: "blob", value: buf, crcFailed: true };
    }
    if (sz.err !== NOT_FOUND) fail(sz.err, "get");
    return undefined;
  }

  // nvs_entry_find/next over a namespace: the keys of its items, blobs by their
  // first chunk, in page and entry order, as xs_preference_keys lists them.
  keys(namespace: string): string[] {
    this.assertReady();
    const nso = this.createOrOpenNamespace(namespace, false);
    if (nso.err !== OK) return [];
    const out: string[] = [];
    for (const p of this.pageList) {
      const f = cursor();
      for (;;) {
        const err = p.findItem(nso.index, ItemType.ANY, null, f);
        const it = f.item;
        f.index += it[2];
        if (err !== OK) break;
        const iterable = it[0] !== 0 && it[1] !== ItemType.BLOB && it[1] !== ItemType.BLOB_IDX;
        const laterChunk = it[1] === ItemType.BLOB_DATA && !(it[3] === VER_0 || it[3] === VER_1);
        if (iterable && !laterChunk) out.push(keyString(it));
      }
    }
    return out;
  }

  namespaces(): string[] {
    return this.nsList.map((n) => keyString(n.key, 0));
  }

  // nvs_open(READWRITE) (which creates the namespace) and nvs_set_u8/_i32/_str/_blob.
  set(namespace: string, key: string, type: NvsType, value: number | string | Uint8Array): void {
    this.checkKey(namespace);
    this.checkKey(key);
    this.assertReady();
    this.armedFill();
    this.inOp++;
    try {
      this.setLocked(namespace, key, type, value);
    } finally {
      this.inOp--;
    }
  }

  // NVS's lock is held from here: nothing else writes NVS until it returns.
  private inOp = 0;

  private setLocked(namespace: string, key: string, type: NvsType, value: number | string | Uint8Array): void {
    const nso = this.createOrOpenNamespace(namespace, true);
    if (nso.err !== OK) fail(nso.err, "open");
    const k = keyField(key);
    let err: Err;
    if (type === "u8") err = this.writeItem(nso.index, ItemType.U8, k, Uint8Array.of((value as number) & 0xff));
    else if (type === "i32") {
      const b = new Uint8Array(4);
      put32(b, 0, (value as number) | 0);
      err = this.writeItem(nso.index, ItemType.I32, k, b);
    } else if (type === "str") {
      const s = enc.encode(value as string);
      const z = new Uint8Array(s.length + 1);
      z.set(s);
      err = this.writeItem(nso.index, ItemType.SZ, k, z);
    } else err = this.writeItem(nso.index, ItemType.BLOB, k, value as Uint8Array);
    if (err !== OK) fail(err, "set");
  }

  // nvs_open(READWRITE) (creating the namespace, as xs_preference_delete and set
  // do) and nvs_erase_key. False when the key was not there.
  erase(namespace: string, key: string): boolean {
    this.checkKey(namespace);
    this.checkKey(key);
    this.assertReady();
    this.inOp++;
    try {
      return this.eraseLocked(namespace, key);
    } finally {
      this.inOp--;
    }
  }

  private eraseLocked(namespace: string, key: string): boolean {
    const nso = this.createOrOpenNamespace(namespace, true);
    if (nso.err !== OK) fail(nso.err, "open");
    const err = this.eraseItem(nso.index, keyField(key));
    if (err === NOT_FOUND) return false;
    if (err !== OK) fail(err, "erase");
    return true;
  }

  // ---- space ----

  stats(): NvsStats {
    let live = 0, erased = 0, free = 0;
    for (const p of this.pageList) {
      live += p.used;
      erased += p.erased;
      free += ENTRIES_PER_PAGE - p.used - p.erased;
    }
    free += this.freeList.length * ENTRIES_PER_PAGE;
    const usable = (this.pageCount - 1) * ENTRIES_PER_PAGE;
    return {
      pages: this.pageCount,
      totalEntries: this.pageCount * ENTRIES_PER_PAGE,
      liveEntries: live,
      erasedEntries: erased,
      freeEntries: free,
      usableEntries: usable,
      namespaces: this.nsList.length,
      liveBytes: live * ENTRY_BYTES,
      percent: Math.round((live / usable) * 1000) / 10,
    };
  }

  // What each page holds, for tests and tools: state, seq and entry counts.
  pageInfo(): { sector: number; state: number; seq: number | undefined; used: number; erased: number }[] {
    return this.pages.map((p) => ({ sector: p.sector, state: p.state, seq: p.getSeqNumber(), used: p.used, erased: p.erased }));
  }

  // ---- nvs_flash_init ----

  // Power came back: RAM is gone, the pages are loaded again from the image and
  // repaired as nvs_flash_init does. Throws NvsError when init fails (the device
  // calls it under ESP_ERROR_CHECK: it would not boot), PowerCut when an armed
  // nvs_init_cut fires.
  recover(): void {
    const cut = this.initCut;
    this.initCut = undefined;
    if (cut) this.flash.cutAfter(cut.at ?? 1, cut.tear);
    try {
      this.init();
    } finally {
      if (cut && this.flash.powered) this.flash.disarm();
    }
    if (this.initError) throw new NvsError(this.initError, `nvs_flash_init failed: ${this.initError}`);
  }

  // Replaces the partition with `bytes` (a dump of a real device's partition, or
  // the data folder's nvs.bin) and runs nvs_flash_init on it.
  load(bytes: Uint8Array): void {
    if (bytes.length !== this.image.length) throw new RangeError(`nvs image must be ${this.image.length} bytes, not ${bytes.length}`);
    this.image.set(bytes);
    this.recover();
  }

  // ---- faults (host-sim/faults.ts; DESIGN.md "Faults") ----

  inject(kind: NvsFault, opts: InjectOptions = {}): string {
    const seed = opts.seed ?? 1;
    const r = prng(seed);
    switch (kind) {
      case "bit_flip": {
        const bit = Math.floor(r() * this.image.length * 8);
        this.image[bit >> 3] ^= 1 << (bit & 7);
        this.flash.onChange?.(this.partition, bit >> 3, 1);
        return `bit ${bit & 7} of byte 0x${(bit >> 3).toString(16)} (page ${Math.floor((bit >> 3) / PAGE_BYTES)}) flipped`;
      }
      case "nvs_crc": {
        const written: { page: Page; index: number; span: number }[] = [];
        for (const p of this.pageList)
          for (let i = 0; i < ENTRIES_PER_PAGE; i++)
            if (p.getEntryState(i) === EntryState.WRITTEN) {
              const e = p.readEntry(i);
              if (!headerConsistent(e, i)) continue;
              written.push({ page: p, index: i, span: e[2] });
              i += e[2] - 1;
            }
        if (!written.length) throw new RangeError("nvs_crc: no written entry to damage");
        const w = written[Math.floor(r() * written.length)];
        // a variable-length item: one bit of its data (its data CRC fails at get);
        // otherwise one bit of its stored CRC (the entry fails at init or lookup)
        const entryAddr = w.page.base + ENTRY_DATA_OFFSET + w.index * ENTRY_BYTES;
        let at: number;
        if (w.span > 1) at = entryAddr + ENTRY_BYTES + Math.floor(r() * (w.span - 1) * ENTRY_BYTES);
        else at = entryAddr + 4 + Math.floor(r() * 4);
        this.image[at] ^= 1 << Math.floor(r() * 8);
        this.flash.onChange?.(this.partition, at, 1);
        const e = w.page.readEntry(w.index);
        return `${w.span > 1 ? "data" : "entry CRC"} of ${keyString(e)} (ns ${e[0]}, page ${w.page.sector}, entry ${w.index}) damaged`;
      }
      case "nvs_init_cut":
        this.initCut = opts;
        return `power cut armed at operation ${opts.at ?? 1} of the next nvs_flash_init`;
      case "full": {
        // armed from inside an NVS operation (a test's hook on a flash write):
        // the other component's writes wait for NVS's lock, as on the device,
        // and fill before the next set instead of inside this one
        if (this.inOp > 0) {
          this.fillAt = { left: 1, opts };
          return "NVS fills before the next set";
        }
        if (opts.at !== undefined && opts.at > 1) {
          this.fillAt = { left: opts.at, opts };
          return `NVS fills before set ${opts.at}`;
        }
        return this.fill();
      }
    }
  }

  private armedFill(): void {
    if (!this.fillAt) return;
    if (--this.fillAt.left > 0) return;
    this.fillAt = undefined;
    this.fill();
  }

  // Another firmware component fills NVS: blobs of decreasing size under its
  // own namespace until not even one entry fits.
  private fill(): string {
    let n = 0;
    const ns = "zz_fill";
    for (let size = CHUNK_MAX_BYTES; size >= 0; ) {
      try {
        this.set(ns, "f" + n, size > 8 ? "blob" : "u8", size > 8 ? new Uint8Array(size) : 0);
        n++;
      } catch (e) {
        if (!(e instanceof NvsError)) throw e;
        if (size === 0) break;
        size = size > 64 ? size >> 1 : size > 8 ? 8 : 0;
      }
    }
    return `NVS filled with ${n} items in namespace ${ns}`;
  }
}

// SPIFFS partition images, byte for byte as the pet's firmware lays them out:
// ESP-IDF's spiffs component (pellepl/spiffs 0.2 underneath) with the Kconfig
// defaults that Moddable's ESP32 build keeps (its sdkconfig files set no
// SPIFFS option): 256-byte logical pages, 4096-byte blocks (the flash's erase
// sector), 32-byte object names with their NUL, 4 bytes of metadata (the
// mtime), a magic per block that depends on the partition's length, 16-bit
// object ids, span and page indexes. docs/FORMAT.md "The SPIFFS partition
// image" has every byte; docs/DESIGN.md "Real device dumps" the reasons.
//
// readSpiffs() reads what a live file system leaves (deleted and moved pages,
// several index pages per file, pages a power cut left unfinished, a damaged
// header) the way the device's SPIFFS would: it returns the files it can read
// whole and names every other thing it finds, never throwing on damage.
// writeSpiffs() lays files out exactly as ESP-IDF's spiffsgen.py does, so an
// image written here is what `idf.py` would flash for the same files.

export interface SpiffsParams {
  pageSize: number; // CONFIG_SPIFFS_PAGE_SIZE
  blockSize: number; // the flash's erase sector (esp_spiffs.c: log_block_size)
  nameLen: number; // CONFIG_SPIFFS_OBJ_NAME_LEN, with the NUL
  metaLen: number; // CONFIG_SPIFFS_META_LENGTH (the first 4 bytes: mtime)
}

export const ESP_IDF_DEFAULTS: SpiffsParams = { pageSize: 256, blockSize: 4096, nameLen: 32, metaLen: 4 };

// spiffs_nucleus.h
const ID_IX_FLAG = 0x8000; // SPIFFS_OBJ_ID_IX_FLAG: the object id of an index page
const ID_DELETED = 0x0000;
const ID_FREE = 0xffff;
const UNDEFINED_LEN = 0xffffffff;
export const PH_FLAG_USED = 1 << 0; // cleared: the page is in use
export const PH_FLAG_FINAL = 1 << 1; // cleared: the page is fully written
export const PH_FLAG_INDEX = 1 << 2; // cleared: an index page (set: a data page)
export const PH_FLAG_IXDELE = 1 << 6; // cleared: the object's deletion has begun (index header)
export const PH_FLAG_DELET = 1 << 7; // cleared: the page is deleted
export const FLAGS_DATA_FINAL = 0xfc; // spiffsgen's SPIFFS_PH_FLAG_USED_FINAL
export const FLAGS_INDEX_FINAL = 0xf8; // SPIFFS_PH_FLAG_USED_FINAL_INDEX
const TYPE_FILE = 1;
const PAGE_HEADER = 5; // obj_id u16, span_ix u16, flags u8

export class Layout {
  readonly pagesPerBlock: number;
  readonly luPages: number; // object lookup pages at the start of each block
  readonly luEntries: number; // pages of a block an object lookup describes
  readonly dataLen: number; // bytes of a data page after its header
  readonly ixHeaderLen: number; // sizeof(spiffs_page_object_ix_header)
  readonly hdrEntries: number; // data pages an index header page maps
  readonly ixEntries: number; // data pages a later index page maps
  readonly blocks: number;
  readonly pages: number;
  readonly magicOffset: number; // in a block: the second last entry of the last lookup page
  readonly eraseCountOffset: number; // the last entry

  constructor(
    readonly size: number,
    readonly p: SpiffsParams = ESP_IDF_DEFAULTS,
  ) {
    if (p.blockSize % p.pageSize) throw new RangeError("block size must be a multiple of page size");
    if (size % p.blockSize) throw new RangeError(`a SPIFFS image is a whole number of ${p.blockSize}-byte blocks`);
    this.pagesPerBlock = p.blockSize / p.pageSize;
    this.luPages = Math.max(1, Math.floor((this.pagesPerBlock * 2) / p.pageSize));
    this.luEntries = this.pagesPerBlock - this.luPages;
    this.dataLen = p.pageSize - PAGE_HEADER;
    const aligned = PAGE_HEADER + ((4 - (PAGE_HEADER % 4)) % 4); // header padded to 4 bytes
    this.ixHeaderLen = aligned + 4 + 1 + p.nameLen + p.metaLen; // SPIFFS_ALIGNED_OBJECT_INDEX_TABLES 0: packed
    this.hdrEntries = Math.floor((p.pageSize - this.ixHeaderLen) / 2);
    this.ixEntries = Math.floor((p.pageSize - aligned) / 2);
    this.blocks = size / p.blockSize;
    this.pages = size / p.pageSize;
    this.magicOffset = this.luPages * p.pageSize - 4;
    this.eraseCountOffset = this.luPages * p.pageSize - 2;
  }

  // SPIFFS_MAGIC with SPIFFS_USE_MAGIC_LENGTH: a block's magic also names its
  // distance from the end, so an image is mountable only at its own length
  magic(bix: number): number {
    return (0x20140529 ^ this.p.pageSize ^ (this.blocks - bix)) & 0xffff;
  }

  pageAddr(pix: number): number {
    return pix * this.p.pageSize;
  }

  isLookupPage(pix: number): boolean {
    return pix % this.pagesPerBlock < this.luPages;
  }

  // the page an object lookup entry describes
  entryPage(bix: number, entry: number): number {
    return bix * this.pagesPerBlock + this.luPages + entry;
  }

  // index page span and entry for a data page span (SPIFFS_OBJ_IX_ENTRY_SPAN_IX, SPIFFS_OBJ_IX_ENTRY)
  indexOf(dataSpan: number): { ixSpan: number; entry: number } {
    if (dataSpan < this.hdrEntries) return { ixSpan: 0, entry: dataSpan };
    const k = dataSpan - this.hdrEntries;
    return { ixSpan: 1 + Math.floor(k / this.ixEntries), entry: k % this.ixEntries };
  }

  // where an index page's entries start
  entriesAt(ixSpan: number): number {
    return ixSpan === 0 ? this.ixHeaderLen : PAGE_HEADER + ((4 - (PAGE_HEADER % 4)) % 4);
  }

  // pages a file of `length` bytes takes when written by spiffsgen (or appended once)
  pagesFor(length: number): number {
    const data = Math.ceil(length / this.dataLen);
    const extra = data > this.hdrEntries ? Math.ceil((data - this.hdrEntries) / this.ixEntries) : 0;
    return 1 + extra + data;
  }
}

const u16 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8);
const u32 = (b: Uint8Array, o: number) => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
function put16(b: Uint8Array, o: number, v: number): void {
  b[o] = v & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
}
function put32(b: Uint8Array, o: number, v: number): void {
  put16(b, o, v & 0xffff);
  put16(b, o + 2, v >>> 16);
}
const hex = (n: number, w = 4) => "0x" + n.toString(16).padStart(w, "0");

// ---- reading -------------------------------------------------------------------------------

export interface SpiffsFile {
  name: string; // as SPIFFS holds it: "/ep.h0" (the part after the mount point /data)
  bytes: Uint8Array;
  objId: number;
  page: number; // its index header page
  mtime: number; // the metadata's first 4 bytes (ESP-IDF's mtime, unix seconds; 0 from spiffsgen)
}

// A file SPIFFS would find by name but not read whole: opening it works, a read
// fails where `reason` says. `readable` holds the bytes before that point.
export interface SpiffsUnreadable {
  name: string;
  objId: number;
  page: number;
  size: number;
  readable: Uint8Array;
  reason: string;
}

export type DamageKind =
  | "not_mountable" // more than one block without its magic: the device formats the partition at mount
  | "bad_magic" // one block without its magic: the device erases it at mount
  | "unreadable_file" // found by name, not readable whole (see SpiffsUnreadable)
  | "unreadable_name" // an index header whose name is not a readable string
  | "duplicate_name" // two index headers of one name (a move cut by power loss)
  | "duplicate_index" // two index pages of one object and span
  | "deletion_interrupted" // an index header marked for deletion: the device no longer finds the file
  | "not_finalized_header" // an index header never finished: the device does not find the file
  | "lookup_mismatch" // an object lookup entry and its page's header disagree
  | "not_a_file"; // an object of another type (SPIFFS's directories and links; ESP-IDF makes none)

export interface SpiffsDamage {
  kind: DamageKind;
  message: string;
  name?: string;
  page?: number;
  block?: number;
}

export interface SpiffsStats {
  blocks: number;
  pages: number; // data pages (not lookup pages)
  used: number; // in use: index and data pages, finished or not
  deleted: number;
  free: number;
  indexPages: number;
  dataPages: number;
  eraseCount: { min: number; max: number } | undefined; // of the blocks that have one
  bytes: number; // of the files read whole
}

// What a power cut or normal use leaves that SPIFFS ignores or reclaims; not damage.
export interface SpiffsLeftovers {
  unfinished: number; // pages allocated or written but never finalized (a write cut by power loss)
  orphans: number; // finished pages of objects that have no index header (a delete or write cut part way)
  dirtyFree: number; // pages the lookup calls free that are not erased (a write cut before its lookup entry)
}

export interface SpiffsRead {
  format: "spiffs" | "erased" | "unknown"; // erased: all 0xFF, the device formats it; unknown: no block has the magic
  mountable: boolean; // the device's SPIFFS_mount would succeed (else it formats the partition)
  files: SpiffsFile[];
  unreadable: SpiffsUnreadable[];
  damage: SpiffsDamage[];
  leftovers: SpiffsLeftovers;
  stats: SpiffsStats;
}

interface PageHead {
  pix: number;
  lu: number;
  objId: number;
  span: number;
  flags: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function valid(flags: number): boolean {
  // used, finalized, not deleted
  return (flags & (PH_FLAG_USED | PH_FLAG_FINAL | PH_FLAG_DELET)) === PH_FLAG_DELET;
}

function isIndex(flags: number): boolean {
  return (flags & PH_FLAG_INDEX) === 0;
}

// Reads a SPIFFS partition image. Never throws on what is in the image (a
// wrong size throws RangeError): damage is reported.
export function readSpiffs(image: Uint8Array, params: SpiffsParams = ESP_IDF_DEFAULTS): SpiffsRead {
  const L = new Layout(image.length, params);
  const ps = params.pageSize;
  const damage: SpiffsDamage[] = [];
  const leftovers: SpiffsLeftovers = { unfinished: 0, orphans: 0, dirtyFree: 0 };
  const stats: SpiffsStats = { blocks: L.blocks, pages: L.blocks * L.luEntries, used: 0, deleted: 0, free: 0, indexPages: 0, dataPages: 0, eraseCount: undefined, bytes: 0 };
  const out: SpiffsRead = { format: "spiffs", mountable: true, files: [], unreadable: [], damage, leftovers, stats };

  // the magic of every block (spiffs_obj_lu_scan): one block without it may be
  // an erase a power cut interrupted and is erased at mount; two fail the mount
  const badMagic: number[] = [];
  let minEc = Infinity;
  let maxEc = -Infinity;
  for (let b = 0; b < L.blocks; b++) {
    const base = b * params.blockSize;
    if (u16(image, base + L.magicOffset) !== L.magic(b)) badMagic.push(b);
    const ec = u16(image, base + L.eraseCountOffset);
    if (ec !== ID_FREE) {
      minEc = Math.min(minEc, ec);
      maxEc = Math.max(maxEc, ec);
    }
  }
  if (minEc !== Infinity) stats.eraseCount = { min: minEc, max: maxEc };
  if (badMagic.length === L.blocks) {
    out.mountable = false;
    out.format = image.every((x) => x === 0xff) ? "erased" : "unknown";
    stats.free = stats.pages;
    return out;
  }
  let skipBlock = -1;
  if (badMagic.length === 1) {
    skipBlock = badMagic[0];
    const base = skipBlock * params.blockSize;
    let inUse = 0;
    for (let e = 0; e < L.luEntries; e++) {
      const lu = u16(image, base + e * 2);
      if (lu !== ID_FREE && lu !== ID_DELETED) inUse++;
    }
    const what = inUse ? `the ${inUse} page${inUse === 1 ? "" : "s"} in use there are lost` : "it holds no page in use (an erase a power cut interrupted)";
    damage.push({ kind: "bad_magic", block: skipBlock, message: `block ${skipBlock} (at ${hex(base, 6)}) lacks SPIFFS's magic: the device erases it at mount; ${what}` });
  } else if (badMagic.length > 1) {
    out.mountable = false;
    const list = badMagic.length > 8 ? `${badMagic.slice(0, 8).join(", ")} and ${badMagic.length - 8} more` : badMagic.join(", ");
    damage.push({ kind: "not_mountable", message: `${badMagic.length} blocks lack SPIFFS's magic (${list}): the device cannot mount the partition and formats it (every file lost); read here as far as it goes` });
  }

  // the object lookup of every block: which page belongs to which object
  const heads: PageHead[] = [];
  const skipped = new Set<number>(); // pages of the block the device erases at mount
  const mismatched: PageHead[] = []; // lookup entry and page header disagree (objId: the page's)
  for (let b = 0; b < L.blocks; b++) {
    const base = b * params.blockSize;
    for (let e = 0; e < L.luEntries; e++) {
      const pix = L.entryPage(b, e);
      const lu = u16(image, base + e * 2);
      const a = L.pageAddr(pix);
      if (b === skipBlock) {
        if (lu !== ID_FREE && lu !== ID_DELETED) skipped.add(pix);
        continue;
      }
      if (lu === ID_FREE) {
        stats.free++;
        for (let i = a; i < a + ps; i++)
          if (image[i] !== 0xff) {
            leftovers.dirtyFree++;
            break;
          }
        continue;
      }
      if (lu === ID_DELETED) {
        stats.deleted++;
        continue;
      }
      const flags = image[a + 4];
      if ((flags & PH_FLAG_DELET) === 0) {
        stats.deleted++; // deleted in the page, its lookup entry not yet (a delete cut part way)
        continue;
      }
      stats.used++;
      if (flags & PH_FLAG_USED || flags & PH_FLAG_FINAL) {
        leftovers.unfinished++;
        continue;
      }
      const objId = u16(image, a);
      if (objId !== lu) {
        mismatched.push({ pix, lu, objId, span: u16(image, a + 2), flags });
        continue;
      }
      if (isIndex(flags) !== ((lu & ID_IX_FLAG) !== 0)) {
        damage.push({ kind: "lookup_mismatch", page: pix, message: `page ${pix}: object ${hex(lu)} with ${isIndex(flags) ? "index" : "data"} page flags ${hex(flags, 2)}` });
        continue;
      }
      if (isIndex(flags)) stats.indexPages++;
      else stats.dataPages++;
      heads.push({ pix, lu, objId: lu & ~ID_IX_FLAG, span: u16(image, a + 2), flags });
    }
  }

  // index pages by object and span, in lookup order (the order SPIFFS finds them)
  const indexPages = new Map<number, Map<number, number[]>>();
  const dataCount = new Map<number, number>();
  for (const h of heads) {
    if (h.lu & ID_IX_FLAG) {
      let spans = indexPages.get(h.objId);
      if (!spans) indexPages.set(h.objId, (spans = new Map()));
      const list = spans.get(h.span) ?? [];
      list.push(h.pix);
      spans.set(h.span, list);
    } else dataCount.set(h.objId, (dataCount.get(h.objId) ?? 0) + 1);
  }

  const seenNames = new Map<string, number>();
  const withHeader = new Set<number>();
  for (const [objId, spans] of indexPages) {
    for (const [span, list] of spans)
      if (list.length > 1 && span > 0)
        damage.push({ kind: "duplicate_index", page: list[1], message: `object ${hex(objId)} has ${list.length} index pages of span ${span} (pages ${list.join(", ")}): a move cut by power loss; SPIFFS uses the first` });
  }
  // an index header: its name, then its bytes. `lookupId`: the object the
  // lookup entry names, whose index pages SPIFFS searches (see below)
  const header = (h: PageHead, lookupId: number, note?: string): void => {
    const a = L.pageAddr(h.pix);
    const { name, shown } = nameOf(image, L, h.pix);
    if (name === undefined) {
      damage.push({ kind: "unreadable_name", page: h.pix, message: `page ${h.pix}: object ${hex(h.objId)}'s name is not readable (bytes ${shown})` });
      return;
    }
    if ((h.flags & PH_FLAG_IXDELE) === 0) {
      damage.push({ kind: "deletion_interrupted", page: h.pix, name, message: `${name}: its deletion was cut by power loss; the device no longer finds it` });
      return;
    }
    const type = image[a + L.ixHeaderLen - params.metaLen - params.nameLen - 1];
    if (type !== TYPE_FILE) {
      damage.push({ kind: "not_a_file", page: h.pix, name, message: `${name}: object of type ${type}, not a file (skipped)` });
      return;
    }
    const first = seenNames.get(name);
    if (first !== undefined) {
      damage.push({ kind: "duplicate_name", page: h.pix, name, message: note ? `${name}: ${note}; the device may open it instead of the one at page ${first}` : `${name}: a second index header (page ${h.pix}; the first at page ${first}): a move cut by power loss; the first is read` });
      return;
    }
    if (note) damage.push({ kind: "lookup_mismatch", page: h.pix, name, message: `${name}: ${note}; the device still finds it under this name` });
    seenNames.set(name, h.pix);
    const sizeField = u32(image, a + L.ixHeaderLen - params.metaLen - params.nameLen - 5);
    const size = sizeField === UNDEFINED_LEN ? 0 : sizeField;
    const mtime = params.metaLen >= 4 ? u32(image, a + L.ixHeaderLen - params.metaLen) : 0;
    const r = readObject(image, L, h, size, indexPages.get(lookupId) ?? new Map(), skipped);
    if (r.reason) {
      damage.push({ kind: "unreadable_file", page: h.pix, name, message: `${name}: ${r.reason}` });
      out.unreadable.push({ name, objId: h.objId, page: h.pix, size, readable: r.bytes, reason: r.reason });
    } else {
      out.files.push({ name, bytes: r.bytes, objId: h.objId, page: h.pix, mtime: mtime === 0xffffffff ? 0 : mtime });
      stats.bytes += size;
    }
  };
  for (const h of heads) {
    if (!(h.lu & ID_IX_FLAG) || h.span !== 0) continue;
    withHeader.add(h.objId);
    header(h, h.objId);
  }
  // A lookup entry that disagrees with its page: most often a deletion a power
  // cut interrupted while it cleared the entry's bits (the old header of a moved
  // or renamed object). SPIFFS still lists an index header whose entry keeps the
  // index flag, opens it as the object the entry names, and reads its data pages
  // through the header (it checks their span and flags, not their object id).
  for (const m of mismatched) {
    const what = `page ${m.pix}: the lookup says object ${hex(m.lu)}, the page says ${hex(m.objId)}`;
    if (m.lu & ID_IX_FLAG && m.objId & ID_IX_FLAG && m.span === 0 && isIndex(m.flags)) {
      header({ ...m, objId: m.objId & ~ID_IX_FLAG }, m.lu & ~ID_IX_FLAG, `an index header (${what}) whose deletion a power cut interrupted`);
      continue;
    }
    damage.push({ kind: "lookup_mismatch", page: m.pix, message: what });
  }
  // headers never finalized: their objects are not found by name
  for (let b = 0; b < L.blocks; b++) {
    if (b === skipBlock) continue;
    for (let e = 0; e < L.luEntries; e++) {
      const lu = u16(image, b * params.blockSize + e * 2);
      if (lu === ID_FREE || lu === ID_DELETED || !(lu & ID_IX_FLAG)) continue;
      const pix = L.entryPage(b, e);
      const a = L.pageAddr(pix);
      const flags = image[a + 4];
      if (u16(image, a + 2) !== 0 || (flags & PH_FLAG_DELET) === 0 || (flags & PH_FLAG_USED) !== 0 || (flags & PH_FLAG_FINAL) === 0) continue;
      if (withHeader.has(lu & ~ID_IX_FLAG)) continue;
      damage.push({ kind: "not_finalized_header", page: pix, message: `page ${pix}: object ${hex(lu & ~ID_IX_FLAG)}'s index header was never finished (a create or rename cut by power loss): the device does not find it` });
    }
  }
  for (const [objId, n] of dataCount) if (!withHeader.has(objId)) leftovers.orphans += n;
  for (const [objId, spans] of indexPages) if (!withHeader.has(objId)) for (const [, list] of spans) leftovers.orphans += list.length;
  out.files.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return out;
}

// An index header's name: a NUL-ended UTF-8 string starting with "/".
function nameOf(image: Uint8Array, L: Layout, pix: number): { name?: string; shown: string } {
  const at = L.pageAddr(pix) + L.ixHeaderLen - L.p.metaLen - L.p.nameLen;
  const raw = image.subarray(at, at + L.p.nameLen);
  const nul = raw.indexOf(0);
  const shown = Array.from(raw.subarray(0, nul > 0 ? nul : 12), (x) => x.toString(16).padStart(2, "0")).join("") + (nul > 0 ? "" : "…, no end");
  if (nul <= 0) return { shown };
  try {
    const name = utf8.decode(raw.subarray(0, nul));
    return name.startsWith("/") ? { name, shown } : { shown };
  } catch {
    return { shown };
  }
}

// Reads one object's bytes as spiffs_object_read does: the data page of each
// span from its index page, each page checked as SPIFFS_PAGE_CHECK checks it.
function readObject(image: Uint8Array, L: Layout, h: PageHead, size: number, spans: Map<number, number[]>, skipped: Set<number>): { bytes: Uint8Array; reason?: string } {
  const bytes = new Uint8Array(size);
  const n = Math.ceil(size / L.dataLen);
  let ixPix = h.pix;
  let ixSpan = 0;
  for (let s = 0; s < n; s++) {
    const at = L.indexOf(s);
    const upto = () => bytes.slice(0, s * L.dataLen);
    if (at.ixSpan !== ixSpan) {
      ixSpan = at.ixSpan;
      const list = spans.get(ixSpan);
      if (!list) {
        const lost = [...skipped].some((p) => u16(image, L.pageAddr(p)) === (h.objId | ID_IX_FLAG) && u16(image, L.pageAddr(p) + 2) === ixSpan);
        return { bytes: upto(), reason: `size ${size} bytes, but its index page ${ixSpan} (bytes from ${s * L.dataLen}) is ${lost ? "in the block the device erases" : "missing"}` };
      }
      ixPix = list[0];
    }
    const pix = u16(image, L.pageAddr(ixPix) + L.entriesAt(ixSpan) + at.entry * 2);
    const from = s * L.dataLen;
    if (pix === 0xffff) return { bytes: upto(), reason: `size ${size} bytes, but its data ends at byte ${from} (no page for span ${s})` };
    if (pix >= L.pages || L.isLookupPage(pix)) return { bytes: upto(), reason: `its index points at page ${pix} for bytes from ${from}, ${pix >= L.pages ? "beyond the partition" : "a lookup page"}` };
    if (skipped.has(pix)) return { bytes: upto(), reason: `bytes from ${from} are on page ${pix}, in the block the device erases at mount` };
    const a = L.pageAddr(pix);
    const id = u16(image, a);
    const span = u16(image, a + 2);
    const flags = image[a + 4];
    let bad: string | undefined;
    if (flags & PH_FLAG_USED) bad = "a free page";
    else if ((flags & PH_FLAG_DELET) === 0) bad = "a deleted page";
    else if (flags & PH_FLAG_FINAL) bad = "a page never finished";
    else if (isIndex(flags) || id & ID_IX_FLAG) bad = `an index page (object ${hex(id & ~ID_IX_FLAG)})`;
    else if (id !== h.objId) bad = `a page of another object (${hex(id)})`;
    else if (span !== s) bad = `a page of span ${span}, not ${s}`;
    if (bad) return { bytes: upto(), reason: `its index points at page ${pix} for bytes from ${from}: ${bad}` };
    const len = Math.min(L.dataLen, size - from);
    bytes.set(image.subarray(a + PAGE_HEADER, a + PAGE_HEADER + len), from);
  }
  return { bytes };
}

// ---- writing ---------------------------------------------------------------------------------

export class SpiffsImageError extends Error {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, "name", { value: "SpiffsImageError", configurable: true, writable: true });
  }
}

export interface ImageFile {
  name: string; // "/pm_conf.1"
  bytes: Uint8Array;
}

const enc = new TextEncoder();

// Lays files out as ESP-IDF's spiffsgen.py does (in the order given; object ids
// from 1): each file's index header page, then its data pages, an index page
// wherever the one before is full, pages taken in order through the blocks,
// every block's lookup and magic written, the erase counts left erased. Throws
// SpiffsImageError when a name is too long or the files do not fit.
export function writeSpiffs(files: readonly ImageFile[], size: number, params: SpiffsParams = ESP_IDF_DEFAULTS): Uint8Array {
  const L = new Layout(size, params);
  const img = new Uint8Array(size).fill(0xff);
  let bix = -1;
  let used = L.luEntries; // entries used in block bix
  const alloc = (lu: number): number => {
    if (used === L.luEntries) {
      if (bix + 1 >= L.blocks) throw new SpiffsImageError(`the files do not fit in ${size} bytes of SPIFFS`);
      bix++;
      used = 0;
    }
    put16(img, bix * params.blockSize + used * 2, lu);
    return L.entryPage(bix, used++);
  };
  const seen = new Set<string>();
  let objId = 1;
  for (const f of files) {
    const name = enc.encode(f.name);
    if (name.length > params.nameLen - 1) throw new SpiffsImageError(`object name ${f.name} is longer than ${params.nameLen - 1} bytes`);
    if (!f.name.startsWith("/") || name.includes(0)) throw new SpiffsImageError(`object name ${JSON.stringify(f.name)} must start with / and hold no NUL`);
    if (seen.has(f.name)) throw new SpiffsImageError(`two files named ${f.name}`);
    seen.add(f.name);
    if (objId >= ID_IX_FLAG) throw new SpiffsImageError("too many files for 15-bit object ids");
    const header = alloc(objId | ID_IX_FLAG);
    let a = L.pageAddr(header);
    put16(img, a, objId | ID_IX_FLAG);
    put16(img, a + 2, 0);
    img[a + 4] = FLAGS_INDEX_FINAL;
    const sizeAt = a + L.entriesAt(1); // after the header padded to 4 bytes
    put32(img, sizeAt, f.bytes.length);
    img[sizeAt + 4] = TYPE_FILE;
    img.fill(0, sizeAt + 5, a + L.ixHeaderLen); // name, its zero padding, the metadata
    img.set(name, sizeAt + 5);
    let ixPage = header;
    let ixSpan = 0;
    let entry = 0;
    let limit = L.hdrEntries;
    for (let off = 0, span = 0; off < f.bytes.length; off += L.dataLen, span++) {
      if (entry === limit) {
        ixPage = alloc(objId | ID_IX_FLAG);
        ixSpan++;
        entry = 0;
        limit = L.ixEntries;
        a = L.pageAddr(ixPage);
        put16(img, a, objId | ID_IX_FLAG);
        put16(img, a + 2, ixSpan);
        img[a + 4] = FLAGS_INDEX_FINAL;
      }
      const pix = alloc(objId);
      put16(img, L.pageAddr(ixPage) + L.entriesAt(ixSpan) + entry * 2, pix);
      entry++;
      const d = L.pageAddr(pix);
      put16(img, d, objId);
      put16(img, d + 2, span);
      img[d + 4] = FLAGS_DATA_FINAL;
      img.set(f.bytes.subarray(off, Math.min(off + L.dataLen, f.bytes.length)), d + PAGE_HEADER);
    }
    objId++;
  }
  for (let b = 0; b < L.blocks; b++) put16(img, b * params.blockSize + L.magicOffset, L.magic(b));
  return img;
}

// Pages the files take once written (for a message before writing).
export function spiffsPages(files: readonly ImageFile[], size: number, params: SpiffsParams = ESP_IDF_DEFAULTS): { pages: number; capacity: number } {
  const L = new Layout(size, params);
  let pages = 0;
  for (const f of files) pages += L.pagesFor(f.bytes.length);
  return { pages, capacity: L.blocks * L.luEntries };
}

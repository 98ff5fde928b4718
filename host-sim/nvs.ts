// A model of ESP-IDF NVS on a 48 KB partition, at the level of pages and 32-byte
// entries, so that space, fragmentation, garbage collection and power cuts behave
// as on the device. What it does not model: CRCs of entries (a torn item is
// simply marked incomplete and dropped at recovery, as NVS's CRC check would).

import { Flash } from "./flash.js";
import type { FaultOptions, NvsFault } from "./faults.js";

export const PAGE_BYTES = 4096;
export const ENTRIES_PER_PAGE = 126;
export const ENTRY_BYTES = 32;
export const CHUNK_MAX_BYTES = (ENTRIES_PER_PAGE - 1) * ENTRY_BYTES; // 4000
export const KEY_MAX_BYTES = 15;
export const STR_MAX_BYTES = 4000; // including the terminating NUL, as ESP-IDF counts it

export type NvsType = "u8" | "i32" | "str" | "blob";
type ItemKind = "ns" | "u8" | "i32" | "str" | "blob_data" | "blob_idx";

interface Item {
  id: number; // write order; later wins at recovery
  ns: number;
  key: string;
  kind: ItemKind;
  value: number | Uint8Array; // u8/i32/ns: number; str/blob_data: bytes (str without NUL)
  chunk: number; // blob_data: chunk index; blob_idx: chunk count
  size: number; // blob_idx: total size
  span: number;
  complete: boolean;
  origin: number; // a GC copy's source id, else 0
}

interface Page {
  state: "empty" | "active" | "full" | "freeing";
  next: number; // next free entry
  erased: number;
  items: Item[];
}

export class NvsError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "NvsError", configurable: true, writable: true });
  }
}

export interface NvsStats {
  pages: number;
  totalEntries: number;
  liveEntries: number; // written and not erased
  erasedEntries: number; // reclaimable by garbage collection
  freeEntries: number; // never written since the page was erased
  usableEntries: number; // all pages but the one NVS keeps free
  namespaces: number;
  liveBytes: number; // liveEntries * 32
  percent: number; // liveEntries of usableEntries
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function entriesFor(bytes: number): number {
  return Math.ceil(bytes / ENTRY_BYTES);
}

export class Nvs {
  readonly pageCount: number;
  private pages: Page[] = [];
  private nextId = 1;
  peakLiveEntries = 0;

  // Fault injection (host-sim/faults.ts, SimDevice.inject).
  inject(kind: NvsFault, _opts: FaultOptions = {}): string {
    throw new Error(`${kind} is not modelled yet`);
  }

  constructor(readonly flash: Flash, readonly bytes = 48 * 1024, readonly partition = "nvs") {
    this.pageCount = Math.floor(bytes / PAGE_BYTES);
    if (this.pageCount < 2) throw new RangeError("nvs needs at least 2 pages");
    for (let i = 0; i < this.pageCount; i++) this.pages.push({ state: "empty", next: 0, erased: 0, items: [] });
  }

  // ---- reads ----------------------------------------------------------------

  private find(ns: number, key: string, kind: ItemKind, chunk = -1): Item | undefined {
    let found: Item | undefined;
    for (const p of this.pages)
      for (const it of p.items)
        if (it.complete && it.ns === ns && it.key === key && it.kind === kind && (chunk < 0 || it.chunk === chunk))
          if (!found || it.id > found.id) found = it;
    return found;
  }

  private nsIndex(name: string): number {
    const it = this.find(0, name, "ns");
    return it ? (it.value as number) : 0;
  }

  private chargeRead(it: Item): void {
    this.flash.read(this.partition, it.span * ENTRY_BYTES);
  }

  get(namespace: string, key: string): { type: NvsType; value: number | Uint8Array | string } | undefined {
    this.flash.assertPowered();
    const ns = this.nsIndex(namespace);
    if (!ns) return undefined;
    for (const kind of ["u8", "i32", "str"] as const) {
      const it = this.find(ns, key, kind);
      if (it) {
        this.chargeRead(it);
        if (kind === "str") return { type: "str", value: dec.decode(it.value as Uint8Array) };
        return { type: kind, value: it.value as number };
      }
    }
    const idx = this.find(ns, key, "blob_idx");
    if (!idx) return undefined;
    this.chargeRead(idx);
    const out = new Uint8Array(idx.size);
    let at = 0;
    for (let c = 0; c < idx.chunk; c++) {
      const d = this.find(ns, key, "blob_data", c);
      if (!d) return undefined; // cannot happen after recovery
      this.chargeRead(d);
      out.set(d.value as Uint8Array, at);
      at += (d.value as Uint8Array).length;
    }
    return { type: "blob", value: out };
  }

  keys(namespace: string): string[] {
    this.flash.assertPowered();
    const ns = this.nsIndex(namespace);
    if (!ns) return [];
    const seen = new Set<string>();
    for (const p of this.pages)
      for (const it of p.items)
        if (it.complete && it.ns === ns && it.kind !== "blob_data") seen.add(it.key);
    return [...seen];
  }

  namespaces(): string[] {
    const out: string[] = [];
    for (const p of this.pages) for (const it of p.items) if (it.complete && it.kind === "ns") out.push(it.key);
    return out;
  }

  // ---- space ------------------------------------------------------------------

  stats(): NvsStats {
    let live = 0, erased = 0, free = 0;
    for (const p of this.pages) {
      for (const it of p.items) live += it.span;
      erased += p.erased;
      free += ENTRIES_PER_PAGE - p.next;
    }
    const usable = (this.pageCount - 1) * ENTRIES_PER_PAGE;
    return {
      pages: this.pageCount,
      totalEntries: this.pageCount * ENTRIES_PER_PAGE,
      liveEntries: live,
      erasedEntries: erased,
      freeEntries: free,
      usableEntries: usable,
      namespaces: this.namespaces().length,
      liveBytes: live * ENTRY_BYTES,
      percent: Math.round((live / usable) * 1000) / 10,
    };
  }

  private activePage(): Page | undefined {
    return this.pages.find((p) => p.state === "active");
  }

  // ESP-IDF's PageManager::requestNewPage: take an empty page while more than one
  // is left; otherwise garbage-collect the full page with the most erased entries
  // into the last free page. A page of only live entries cannot be reclaimed.
  private requestNewPage(): Page {
    const cur = this.activePage();
    if (cur) cur.state = "full";
    const empty = this.pages.filter((p) => p.state === "empty");
    if (empty.length > 1) {
      empty[0].state = "active";
      return empty[0];
    }
    let victim: Page | undefined;
    for (const p of this.pages) if (p.state === "full" && p.erased > 0 && (!victim || p.erased > victim.erased)) victim = p;
    if (!victim || empty.length === 0) {
      if (cur) cur.state = "active";
      throw new NvsError("ESP_ERR_NVS_NOT_ENOUGH_SPACE", "nvs: not enough space");
    }
    const target = empty[0];
    target.state = "active";
    victim.state = "freeing";
    for (const it of [...victim.items]) {
      const copy: Item = { ...it, id: this.nextId++, origin: it.id, complete: false };
      this.place(target, copy);
    }
    this.erasePage(victim);
    return target;
  }

  private erasePage(p: Page): void {
    this.flash.erase(this.partition, 1);
    p.items = [];
    p.next = 0;
    p.erased = 0;
    p.state = "empty";
  }

  // Programs one item into a page: one flash write of its entries.
  private place(page: Page, it: Item): void {
    page.items.push(it);
    page.next += it.span;
    this.flash.program(this.partition, it.span * ENTRY_BYTES, (kept) => {
      it.complete = kept === it.span * ENTRY_BYTES;
    });
    const live = this.stats().liveEntries;
    if (live > this.peakLiveEntries) this.peakLiveEntries = live;
  }

  private write(it: Item): void {
    let page = this.activePage() ?? this.requestNewPage();
    if (ENTRIES_PER_PAGE - page.next < it.span) page = this.requestNewPage();
    if (ENTRIES_PER_PAGE - page.next < it.span) throw new NvsError("ESP_ERR_NVS_NOT_ENOUGH_SPACE", "nvs: not enough space");
    this.place(page, it);
  }

  // Marks an item's entries erased: one small write to the page's state bitmap.
  private eraseItem(it: Item): void {
    const page = this.pages.find((p) => p.items.includes(it));
    if (!page) return;
    this.flash.program(this.partition, 4, (kept) => {
      if (kept < 4) return;
      page.items.splice(page.items.indexOf(it), 1);
      page.erased += it.span;
    });
  }

  private newItem(ns: number, key: string, kind: ItemKind, value: number | Uint8Array, span: number, chunk = 0, size = 0): Item {
    return { id: this.nextId++, ns, key, kind, value, chunk, size, span, complete: false, origin: 0 };
  }

  // ---- writes -------------------------------------------------------------------

  private ensureNamespace(name: string): number {
    let idx = this.nsIndex(name);
    if (idx) return idx;
    const used = new Set(this.namespaces().map((n) => this.nsIndex(n)));
    idx = 1;
    while (used.has(idx)) idx++;
    if (idx > 254) throw new NvsError("ESP_ERR_NVS_NOT_ENOUGH_SPACE", "nvs: too many namespaces");
    this.write(this.newItem(0, name, "ns", idx, 1));
    return idx;
  }

  private itemsOf(ns: number, key: string): Item[] {
    const out: Item[] = [];
    for (const p of this.pages) for (const it of p.items) if (it.ns === ns && it.key === key && it.kind !== "ns") out.push(it);
    return out;
  }

  // nvs_set_*: the new value is written completely before the old one is erased,
  // so NVS alone keeps old or new of one key across a power cut.
  set(namespace: string, key: string, type: NvsType, value: number | string | Uint8Array): void {
    this.checkKey(namespace);
    this.checkKey(key);
    const ns = this.ensureNamespace(namespace);
    const old = this.itemsOf(ns, key);
    if (type === "u8" || type === "i32") {
      this.write(this.newItem(ns, key, type, value as number, 1));
    } else if (type === "str") {
      const bytes = enc.encode(value as string);
      if (bytes.length + 1 > STR_MAX_BYTES) throw new NvsError("ESP_ERR_NVS_VALUE_TOO_LONG", "nvs: value too long");
      this.write(this.newItem(ns, key, "str", bytes, 1 + entriesFor(bytes.length + 1)));
    } else {
      this.writeBlob(ns, key, value as Uint8Array);
    }
    for (const it of old) this.eraseItem(it);
  }

  // Multi-page blob: chunks fill the tail of the active page unless it is nearly
  // full (ESP-IDF moves on when the tail room is under a tenth of a chunk), then
  // an index item. Running out of space erases the chunks already written.
  private writeBlob(ns: number, key: string, data: Uint8Array): void {
    const maxBlob = Math.min(508000, (CHUNK_MAX_BYTES * (this.pageCount - 1)) / 2);
    if (data.length > maxBlob) throw new NvsError("ESP_ERR_NVS_VALUE_TOO_LONG", "nvs: value too long");
    const written: Item[] = [];
    let at = 0, chunk = 0;
    try {
      do {
        let page = this.activePage() ?? this.requestNewPage();
        let room = (ENTRIES_PER_PAGE - page.next - 1) * ENTRY_BYTES;
        const rest = data.length - at;
        if (room < rest && room < CHUNK_MAX_BYTES / 10) {
          page = this.requestNewPage();
          room = (ENTRIES_PER_PAGE - page.next - 1) * ENTRY_BYTES;
        }
        const n = Math.min(room, rest);
        const it = this.newItem(ns, key, "blob_data", data.slice(at, at + n), 1 + entriesFor(n), chunk);
        this.place(page, it);
        written.push(it);
        at += n;
        chunk++;
      } while (at < data.length);
      this.write(this.newItem(ns, key, "blob_idx", 0, 1, chunk, data.length));
    } catch (e) {
      if (e instanceof NvsError) for (const it of written) this.eraseItem(it);
      throw e;
    }
  }

  erase(namespace: string, key: string): boolean {
    this.checkKey(namespace);
    this.checkKey(key);
    const ns = this.nsIndex(namespace);
    if (!ns) return false;
    const items = this.itemsOf(ns, key).filter((i) => i.complete);
    if (!items.length) return false;
    // the index first: chunks without an index are orphans that recovery drops
    items.sort((a, b) => (a.kind === "blob_idx" ? -1 : b.kind === "blob_idx" ? 1 : 0));
    for (const it of items) this.eraseItem(it);
    return true;
  }

  private checkKey(key: string): void {
    if (enc.encode(key).length > KEY_MAX_BYTES) throw new NvsError("ESP_ERR_NVS_KEY_TOO_LONG", "nvs: key too long");
  }

  // ---- recovery (nvs_flash_init) ----------------------------------------------------

  // What NVS does at init after a power cut: finish an interrupted garbage
  // collection, drop torn items, blob chunks without an index and indexes
  // without all chunks, and keep only the newest of duplicate items.
  recover(): void {
    const freeing = this.pages.find((p) => p.state === "freeing");
    for (const p of this.pages) {
      for (const it of [...p.items]) if (!it.complete) this.dropItem(p, it);
    }
    if (freeing) {
      const target = this.activePage();
      for (const it of freeing.items) {
        const copied = this.pages.some((p) => p !== freeing && p.items.some((c) => c.origin === it.id));
        if (!copied && target) {
          const copy: Item = { ...it, id: this.nextId++, origin: it.id, complete: true };
          target.items.push(copy);
          target.next += copy.span;
        }
      }
      freeing.items = [];
      freeing.next = 0;
      freeing.erased = 0;
      freeing.state = "empty";
    }
    const all: { p: Page; it: Item }[] = [];
    for (const p of this.pages) for (const it of p.items) all.push({ p, it });
    const best = new Map<string, number>();
    const ident = (it: Item) => `${it.ns}\u0000${it.key}\u0000${it.kind}\u0000${it.kind === "blob_data" ? it.chunk : ""}`;
    for (const { it } of all) best.set(ident(it), Math.max(best.get(ident(it)) ?? 0, it.id));
    for (const { p, it } of all) if (best.get(ident(it)) !== it.id) this.dropItem(p, it);
    // blob consistency
    for (const p of this.pages)
      for (const it of [...p.items]) {
        if (it.kind === "blob_idx") {
          for (let c = 0; c < it.chunk; c++)
            if (!this.find(it.ns, it.key, "blob_data", c) || this.find(it.ns, it.key, "blob_data", c)!.id > it.id) {
              this.dropItem(p, it);
              break;
            }
        }
      }
    for (const p of this.pages)
      for (const it of [...p.items]) {
        if (it.kind !== "blob_data") continue;
        const idx = this.find(it.ns, it.key, "blob_idx");
        if (!idx || it.chunk >= idx.chunk || it.id > idx.id) this.dropItem(p, it);
      }
    // a scalar or string and a blob under one key: keep the newest
    const keyBest = new Map<string, number>();
    for (const p of this.pages)
      for (const it of p.items)
        if (it.kind !== "blob_data" && it.kind !== "ns") {
          const k = `${it.ns}\u0000${it.key}`;
          keyBest.set(k, Math.max(keyBest.get(k) ?? 0, it.id));
        }
    for (const p of this.pages)
      for (const it of [...p.items])
        if (it.kind !== "blob_data" && it.kind !== "ns" && keyBest.get(`${it.ns}\u0000${it.key}`) !== it.id) this.dropItem(p, it);
    if (!this.activePage()) {
      const e = this.pages.filter((p) => p.state === "empty");
      if (e.length > 1) e[0].state = "active";
    }
  }

  private dropItem(p: Page, it: Item): void {
    const i = p.items.indexOf(it);
    if (i < 0) return;
    p.items.splice(i, 1);
    p.erased += it.span;
  }

  // ---- persistence (host only) ----------------------------------------------------

  snapshot(): unknown {
    return {
      nextId: this.nextId,
      pages: this.pages.map((p) => ({
        state: p.state,
        next: p.next,
        erased: p.erased,
        items: p.items.map((it) => ({
          ...it,
          value: it.value instanceof Uint8Array ? { b64: toBase64(it.value) } : it.value,
        })),
      })),
    };
  }

  restore(snap: unknown): void {
    const s = snap as { nextId: number; pages: (Omit<Page, "items"> & { items: (Omit<Item, "value"> & { value: number | { b64: string } })[] })[] };
    if (!s || !Array.isArray(s.pages) || s.pages.length !== this.pageCount) throw new Error("nvs snapshot does not fit this partition");
    this.nextId = s.nextId;
    this.pages = s.pages.map((p) => ({
      state: p.state,
      next: p.next,
      erased: p.erased,
      items: p.items.map((it) => ({ ...it, value: typeof it.value === "number" ? it.value : fromBase64(it.value.b64) })),
    }));
  }
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < b.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < b.length ? B64[n & 63] : "=");
  }
  return s;
}
function fromBase64(s: string): Uint8Array {
  const clean = s.replace(/=+$/, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0, acc = 0, o = 0;
  for (const ch of clean) {
    acc = (acc << 6) | B64.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
  }
  return out;
}

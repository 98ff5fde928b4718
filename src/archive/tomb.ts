// Tombstones (docs/FORMAT.md §3.7): archived records the owner asked to forget.
// A tombstone hides its record from every reply at once; the record's bytes
// leave the flash when its segment is rewritten without it or retired. Two
// copies, `/tomb.a` and `/tomb.b`, written one after the other: a cut or a
// damaged file never brings a forgotten memory back.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { ArchiveError, readInto, writeAt, openWrite, openAppend, rethrowFatal } from "./file";
import { u32, put32 } from "./segment";

export const TOMB_HEADER = 16;
export const TOMB_ENTRY = 16;
export const MAX_TOMBS = 240;
const MAGIC = 0x32544d50; // "PMT2"

function header(): Uint8Array {
  const h = new Uint8Array(TOMB_HEADER);
  put32(h, 0, MAGIC);
  h[4] = 2;
  put32(h, 12, crc32(h, 0, 12));
  return h;
}

export interface Tomb {
  code: number; // 1 fact, 2 moment, 3 event
  id: number; // the record id's 32 bits
  when: number; // unix seconds of the forget
}

export class Tombstones {
  readonly paths: [string, string];
  private lengths = [0, 0];
  private ok = [false, false];
  private set = new Map<string, Tomb>(); // "code:id hex"

  constructor(root: string) {
    this.paths = [root + "tomb.a", root + "tomb.b"];
  }

  static key(code: number, id: string): string {
    return `${code}:${id}`;
  }

  get size(): number {
    return this.set.size;
  }

  has(code: number, id: string): boolean {
    return this.set.size > 0 && this.set.has(Tombstones.key(code, id));
  }

  // Reads both copies (each a few hundred bytes); keeps every valid entry of either.
  // `present`: the root's listing says the file exists (on SPIFFS an open of a
  // missing file walks the whole file system for nothing).
  load(buf: Uint8Array, present: (path: string) => boolean = () => true): void {
    this.set.clear();
    for (let k = 0; k < 2; k++) {
      this.ok[k] = false;
      this.lengths[k] = 0;
      if (!present(this.paths[k])) continue;
      let f: File;
      try {
        f = new File(this.paths[k]);
      } catch (e) {
        rethrowFatal(e);
        continue;
      }
      try {
        const len = Math.min(f.length, TOMB_HEADER + MAX_TOMBS * TOMB_ENTRY);
        if (len < TOMB_HEADER) continue;
        let n = 0;
        while (n < len) n += readInto(f, n, Math.min(4096, len - n), buf, n);
        if (u32(buf, 0) !== MAGIC || u32(buf, 12) !== crc32(buf, 0, 12)) continue;
        let end = TOMB_HEADER;
        for (let at = TOMB_HEADER; at + TOMB_ENTRY <= n; at += TOMB_ENTRY) {
          if (u32(buf, at + 12) !== crc32(buf, at, at + 12)) break;
          const t: Tomb = { code: buf[at], id: u32(buf, at + 4), when: u32(buf, at + 8) };
          this.set.set(Tombstones.key(t.code, hex(t.id)), t);
          end = at + TOMB_ENTRY;
        }
        this.ok[k] = end === f.length;
        this.lengths[k] = end;
      } catch (e) {
        rethrowFatal(e);
      } finally {
        f.close();
      }
    }
  }

  // Adds tombstones to both copies. Throws ArchiveError when neither copy
  // could take them (nothing is hidden then).
  add(items: { code: number; id: string }[], nowS: number): number {
    const fresh = items.filter((x, i) => !this.has(x.code, x.id) && items.findIndex((y) => y.code === x.code && y.id === x.id) === i);
    if (!fresh.length) return 0;
    if (this.set.size + fresh.length > MAX_TOMBS) throw new ArchiveError("full", "archive: too many forgotten memories are waiting to leave the flash; try again after the device's next maintenance");
    const out = new Uint8Array(fresh.length * TOMB_ENTRY);
    fresh.forEach((x, i) => {
      const at = i * TOMB_ENTRY;
      out[at] = x.code;
      put32(out, at + 4, parseInt(x.id, 16) >>> 0);
      put32(out, at + 8, nowS >>> 0);
      put32(out, at + 12, crc32(out, at, at + 12));
    });
    let wrote = 0;
    let err: unknown;
    for (let k = 0; k < 2; k++) {
      try {
        if (!this.ok[k]) this.rewrite(k);
        const f = openAppend(this.paths[k], this.lengths[k]);
        try {
          writeAt(f, out, this.lengths[k]);
        } finally {
          f.close();
        }
        this.lengths[k] += out.length;
        wrote++;
      } catch (e) {
        rethrowFatal(e);
        this.ok[k] = false;
        err = e;
      }
    }
    if (!wrote) throw err instanceof ArchiveError ? err : new ArchiveError("io", `archive: cannot write the forget list (${err instanceof Error ? err.message : String(err)})`);
    fresh.forEach((x, i) => this.set.set(Tombstones.key(x.code, x.id), { code: x.code, id: parseInt(x.id, 16) >>> 0, when: u32(out, i * TOMB_ENTRY + 8) }));
    return fresh.length;
  }

  // Tombstones whose records have left the flash are dropped: both copies are
  // written again (a cut leaves the old or the new list in each: never fewer
  // than the records still on flash need, as the other copy keeps them).
  drop(keep: (t: Tomb) => boolean): void {
    const before = this.set.size;
    this.set.forEach((t, k) => {
      if (!keep(t)) this.set.delete(k);
    });
    if (this.set.size === before) return;
    this.rewrite(0);
    this.rewrite(1);
  }

  entries(): Tomb[] {
    const a: Tomb[] = [];
    this.set.forEach((t) => a.push(t));
    return a;
  }

  private rewrite(k: number): void {
    const all = this.entries();
    const out = new Uint8Array(TOMB_HEADER + all.length * TOMB_ENTRY);
    out.set(header(), 0);
    all.forEach((t, i) => {
      const at = TOMB_HEADER + i * TOMB_ENTRY;
      out[at] = t.code;
      put32(out, at + 4, t.id);
      put32(out, at + 8, t.when);
      put32(out, at + 12, crc32(out, at, at + 12));
    });
    File.delete(this.paths[k]);
    const f = openWrite(this.paths[k]);
    try {
      writeAt(f, out, 0);
    } finally {
      f.close();
    }
    this.lengths[k] = out.length;
    this.ok[k] = true;
  }
}

export function hex(n: number): string {
  let s = (n >>> 0).toString(16);
  while (s.length < 8) s = "0" + s;
  return s;
}

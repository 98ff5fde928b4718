// The third copy of every store, outside NVS: one file per store in the
// storage partition (SPIFFS), holding the blobs of the current table (all
// parts, back to back) under `/pm_<prefix>.<seq in hex>`.
//
// Why: ESP-IDF drops a whole 4 KB NVS page when its header fails its CRC (one
// flipped bit in 32 bytes), and NVS decides where items go: the two copies of
// a store are written one after the other and often share a page. The mirror
// lives in another partition, so no single fault of NVS reaches it. It is
// read only when no NVS copy is valid, and written after both NVS copies, best
// effort: a mirror that cannot be written (or is torn by a cut) is only a
// missing third copy, and boot writes it again when its seq (in its name) or
// its length (both known from one listing of the file system) is not the
// store's.

import { File, Iterator } from "file";
import config from "mc/config";

export interface Mirror {
  info(prefix: string): { seq: number; bytes: number } | undefined; // of the mirror file, from the listing
  // which = 0: the newest file; 1, 2…: older ones a cut or a failed write left
  // (a store kept in the mirror alone reads an older one when the newest is torn)
  read(prefix: string, which?: number): Uint8Array | undefined;
  files(prefix: string): number; // how many files the store has
  write(prefix: string, seq: number, data: Uint8Array): boolean;
}

const PREFIX = "pm_";

function rethrowCut(e: unknown): void {
  if (e instanceof Error && e.name === "PowerCut") throw e;
}

export class FileMirror implements Mirror {
  private names: Record<string, string> | undefined; // prefix -> file name of its newest mirror
  private lengths: Record<string, number> = {}; // file name -> bytes
  private extra: string[] = []; // older mirror files a cut left behind: deleted at the next write

  constructor(readonly root: string = config.file.root) {}

  // One walk of the file system for every store.
  private list(): Record<string, string> {
    if (this.names) return this.names;
    const names: Record<string, string> = {};
    try {
      const it = new Iterator(this.root);
      for (let e = it.next(); e; e = it.next()) {
        const n = e.name;
        if (e.length === undefined || n.indexOf(PREFIX) !== 0) continue;
        this.lengths[n] = e.length;
        const dot = n.lastIndexOf(".");
        if (dot > PREFIX.length) {
          const p = n.slice(PREFIX.length, dot);
          // two files for one store (a cut between write and delete): the newer seq
          const had = names[p];
          if (!had) names[p] = n;
          else if (newerName(n, had)) {
            this.extra.push(had);
            names[p] = n;
          } else this.extra.push(n);
        }
      }
    } catch (e) {
      rethrowCut(e);
    }
    return (this.names = names);
  }

  info(prefix: string): { seq: number; bytes: number } | undefined {
    const n = this.list()[prefix];
    if (!n) return undefined;
    const v = parseInt(n.slice(n.lastIndexOf(".") + 1), 16);
    return Number.isNaN(v) ? undefined : { seq: v, bytes: this.lengths[n] ?? 0 };
  }

  // The store's files, newest first.
  private candidates(prefix: string): string[] {
    const n = this.list()[prefix];
    if (!n) return [];
    const out = [n];
    for (const x of this.extra) if (x.indexOf(`${PREFIX}${prefix}.`) === 0) out.push(x);
    out.sort((a, b) => (newerName(a, b) ? -1 : newerName(b, a) ? 1 : 0));
    return out;
  }

  files(prefix: string): number {
    return this.candidates(prefix).length;
  }

  read(prefix: string, which = 0): Uint8Array | undefined {
    const n = this.candidates(prefix)[which];
    if (!n) return undefined;
    let f: File | undefined;
    try {
      f = new File(this.root + n);
      const len = f.length;
      if (len === 0 || len > 255 * 4000) return undefined;
      const out = new Uint8Array(len);
      for (let at = 0; at < len; at += 4096) {
        f.position = at;
        out.set(new Uint8Array(f.read(ArrayBuffer, Math.min(4096, len - at)) as ArrayBuffer), at);
      }
      return out;
    } catch (e) {
      rethrowCut(e);
      return undefined;
    } finally {
      try {
        f?.close();
      } catch {
        // closed already
      }
    }
  }

  write(prefix: string, seq: number, data: Uint8Array): boolean {
    const names = this.list();
    const name = `${PREFIX}${prefix}.${(seq >>> 0).toString(16)}`;
    const old = names[prefix];
    try {
      // a file of this name that is not the newest is what a failed write left: torn
      File.delete(this.root + name);
      const f = new File(this.root + name, true);
      try {
        f.write(data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? (data.buffer as ArrayBuffer) : (data.slice().buffer as ArrayBuffer));
      } finally {
        f.close();
      }
      names[prefix] = name;
      this.lengths[name] = data.length;
      if (old && old !== name) File.delete(this.root + old); // after: a cut leaves both, the newer wins
      for (let i = this.extra.length - 1; i >= 0; i--)
        if (this.extra[i].indexOf(`${PREFIX}${prefix}.`) === 0) {
          File.delete(this.root + this.extra[i]);
          this.extra.splice(i, 1);
        }
      return true;
    } catch (e) {
      rethrowCut(e);
      return false;
    }
  }
}

function newerName(a: string, b: string): boolean {
  const x = parseInt(a.slice(a.lastIndexOf(".") + 1), 16), y = parseInt(b.slice(b.lastIndexOf(".") + 1), 16);
  return ((x - y) | 0) > 0;
}

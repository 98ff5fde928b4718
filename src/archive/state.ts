// What the archive knows about one of its files between operations: names,
// lengths, and the index. Object names fit SPIFFS's 31 bytes
// ("/moments.done" is 13).

import { FILE_BASE, TYPE_CODE, type ArchiveType } from "./line";
import { Sidecar } from "./sidecar";

export interface TypeState {
  type: ArchiveType;
  path: string; // the JSONL file
  idx: string; // its index entries
  sig: string; // its block signatures
  newPath: string; // a compaction being written
  donePath: string; // a compaction written in full (the commit point)
  nix: string; // the index of the compacted file
  nsg: string; // the signatures of the compacted file
  length: number; // bytes on flash
  validEnd: number; // end of the last complete line; after it: a torn append
  side: Sidecar;
  tailRecords: number; // records after the indexed blocks
  tailBad: number;
  rebuilt: string | undefined; // why the index was rebuilt at the last check
  recovered: string[]; // what boot did to finish or undo a compaction
  // Why the file is set aside (it, or a compaction's file, could not be read,
  // renamed or deleted): nothing is read from or written to it until a later
  // check or operation finds it readable again. Nothing is deleted for it.
  unreadable: string | undefined;
  stale: boolean; // what is known of the file may be wrong (a read or index write failed): load again first
  indexError: string | undefined; // why the index could not be (re)written: the unindexed part is scanned
  emptied: number; // bytes the device's "wb+" fallback emptied while this archive ran (reported, never hidden)
}

export function typeState(root: string, type: ArchiveType): TypeState {
  const base = root + FILE_BASE[type];
  const idx = base + ".idx", sig = base + ".sig";
  return {
    type,
    path: base + ".jsonl",
    idx,
    sig,
    newPath: base + ".new",
    donePath: base + ".done",
    nix: base + ".nix",
    nsg: base + ".nsg",
    length: 0,
    validEnd: 0,
    side: new Sidecar(idx, sig, TYPE_CODE[type], type),
    tailRecords: 0,
    tailBad: 0,
    rebuilt: undefined,
    recovered: [],
    unreadable: undefined,
    stale: false,
    indexError: undefined,
    emptied: 0,
  };
}

export function footprintOf(t: TypeState): number {
  return t.length + t.side.idxLength + t.side.sigLength;
}

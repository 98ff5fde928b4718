// Compaction: when the archive nears its budget, the oldest blocks go. SPIFFS
// has no truncate and its rename refuses an existing target, so a file is
// compacted by copying its kept tail and swapping names, with a commit point
// that boot recognises (docs/FORMAT.md §3.5):
//
//   1. write `.new` (the kept bytes), `.nix` and `.nsg` (its index, copied
//      from the old index with offsets shifted);
//   2. rename `.new` → `.done`                      ← commit
//   3. delete the old `.jsonl`; rename `.done` → `.jsonl`
//   4. delete `.idx`, rename `.nix` → `.idx`; delete `.sig`, rename `.nsg` → `.sig`
//
// recover() at boot: a `.done` is finished (step 3 again); a `.new` is
// discarded with its `.nix`/`.nsg` (the old file was never touched); a `.nix`
// or `.nsg` left without a `.new` is installed (step 4 again). A delete cut
// short leaves a shorter file under the old name: each rule deletes before it
// renames, so such a remnant is never mistaken for data.

import { File } from "file";
import { crc32 } from "../nvs/crc32";
import { CHUNK, IndexDamage, exists, remove, rename, readInto, writeAt, openWrite, rethrowFatal } from "./file";
import { SIG_BYTES } from "./fold";
import { Buffers } from "./recall";
import { ENTRY_BYTES, IDX_HEADER, SIG_HEADER, writeHeaders, blankBlock, decodeEntry, type BlockInfo } from "./sidecar";
import { type TypeState } from "./state";
import { type ArchiveType } from "./line";

export interface CompactFile {
  type: ArchiveType;
  blocks: number; // blocks dropped
  records: number; // records dropped
  bytes: number; // bytes of the JSONL file dropped
}

export interface CompactReport {
  before: number; // footprint before, bytes
  after: number;
  target: number;
  files: CompactFile[];
  dropped: number; // records dropped in all
  errors?: string[]; // files whose compaction failed (left as they were, or finished at the next check)
}

// The newest blocks of each file that compaction always keeps (with the tail).
export const KEEP_BLOCKS = 2;

// Boot: finishes or undoes an interrupted compaction of one file. A failed
// delete or rename throws ArchiveError("io") and leaves the files for the
// next try; `done` holds the steps that were made.
export function recover(t: TypeState, has: (path: string) => boolean = exists, done: string[] = []): string[] {
  if (has(t.donePath)) {
    remove(t.path);
    rename(t.donePath, t.path);
    done.push("finished a compaction");
  }
  if (has(t.newPath)) {
    // temporary index files first: while `.new` exists, the rule still applies
    remove(t.nix);
    remove(t.nsg);
    remove(t.newPath);
    done.push("discarded an unfinished compaction");
  }
  if (has(t.nix) && exists(t.nix)) {
    remove(t.idx);
    rename(t.nix, t.idx);
    done.push("installed the compacted index");
  }
  if (has(t.nsg) && exists(t.nsg)) {
    remove(t.sig);
    rename(t.nsg, t.sig);
    if (!done.length) done.push("installed the compacted index");
  }
  return done;
}

interface Candidate {
  t: TypeState;
  len: Uint16Array;
  max: Uint32Array; // running maximum: blocks are dropped in file order
  n: number; // droppable blocks
  p: number; // blocks chosen
}

// Chooses how many leading blocks of each file go so that about `need` bytes
// are freed, taking the globally oldest blocks first.
export function plan(states: readonly TypeState[], bufs: Buffers, need: number): Map<TypeState, number> {
  const cands: Candidate[] = [];
  for (const t of states) {
    const n = t.side.entries - KEEP_BLOCKS;
    if (n <= 0) continue;
    const c: Candidate = { t, len: new Uint16Array(n), max: new Uint32Array(n), n, p: 0 };
    let run = 0;
    t.side.forEach(
      bufs.chunk,
      (i, e) => {
        c.len[i] = e.length;
        if (e.records && e.max > run) run = e.max;
        c.max[i] = run;
      },
      0,
      n,
    );
    cands.push(c);
  }
  while (need > 0) {
    let best: Candidate | undefined;
    for (const c of cands) if (c.p < c.n && (!best || c.max[c.p] < best.max[best.p])) best = c;
    if (!best) break;
    need -= best.len[best.p] + ENTRY_BYTES + SIG_BYTES;
    best.p++;
  }
  const out = new Map<TypeState, number>();
  for (const c of cands) if (c.p > 0) out.set(c.t, c.p);
  return out;
}

// Drops the first `blocks` indexed blocks of one file. Returns what went.
export function rewrite(t: TypeState, bufs: Buffers, blocks: number): CompactFile {
  const buf = bufs.chunk;
  const side = t.side;
  let cut = 0, records = 0, bad = 0;
  side.forEach(buf, (_i, e) => {
    cut += e.length;
    records += e.records;
    bad += e.bad;
  }, 0, blocks);
  const keptEntries = side.entries - blocks;
  // 1. the new file first: its existence marks everything else as unfinished
  remove(t.newPath);
  const out = openWrite(t.newPath);
  try {
    try {
      writeHeaders(t.nix, t.nsg, side.code, side.dropped + records, side.compactions + 1);
      const old = new File(t.path);
      try {
        for (let pos = cut; pos < t.validEnd; ) {
          const n = readInto(old, pos, Math.min(CHUNK, t.validEnd - pos), buf);
          writeAt(out, buf.subarray(0, n), pos - cut);
          pos += n;
        }
      } finally {
        old.close();
      }
    } finally {
      out.close();
    }
    copyIndex(t, bufs, blocks, keptEntries, cut);
  } catch (e) {
    // not committed: the old file is whole; leave no half copy behind
    rethrowFatal(e);
    remove(t.nix);
    remove(t.nsg);
    remove(t.newPath);
    throw e;
  }
  // 2. commit
  rename(t.newPath, t.donePath);
  // 3. swap the data
  remove(t.path);
  rename(t.donePath, t.path);
  // 4. swap the index
  remove(t.idx);
  rename(t.nix, t.idx);
  remove(t.sig);
  rename(t.nsg, t.sig);
  t.length = t.validEnd = t.validEnd - cut;
  side.entries = keptEntries;
  side.indexedEnd -= cut;
  side.records -= records;
  side.bad -= bad;
  side.dropped += records;
  side.compactions++;
  side.idxLength = IDX_HEADER + keptEntries * ENTRY_BYTES;
  side.sigLength = SIG_HEADER + keptEntries * SIG_BYTES;
  return { type: t.type, blocks, records, bytes: cut };
}

// Copies entries [from, from+count) into `.nix` (offsets moved back by `cut`)
// and their signatures into `.nsg`, a chunk at a time.
function copyIndex(t: TypeState, bufs: Buffers, from: number, count: number, cut: number): void {
  const buf = bufs.chunk;
  const e: BlockInfo = blankBlock();
  const perRead = Math.floor(CHUNK / ENTRY_BYTES);
  const idx = new File(t.idx);
  const nix = openWrite(t.nix);
  try {
    for (let i = 0; i < count; ) {
      const k = Math.min(perRead, count - i);
      readInto(idx, IDX_HEADER + (from + i) * ENTRY_BYTES, k * ENTRY_BYTES, buf);
      const dv = new DataView(buf.buffer, buf.byteOffset);
      for (let j = 0; j < k; j++) {
        const at = j * ENTRY_BYTES;
        if (!decodeEntry(buf, at, e)) throw new IndexDamage(`archive index: entry ${from + i + j} damaged`);
        dv.setUint32(at, e.offset - cut, true);
        dv.setUint32(at + 24, crc32(buf, at, at + 24), true);
      }
      writeAt(nix, buf.subarray(0, k * ENTRY_BYTES), IDX_HEADER + i * ENTRY_BYTES);
      i += k;
    }
  } finally {
    nix.close();
    idx.close();
  }
  const perSig = CHUNK / SIG_BYTES;
  const sig = new File(t.sig);
  const nsg = openWrite(t.nsg);
  try {
    for (let i = 0; i < count; ) {
      const k = Math.min(perSig, count - i);
      readInto(sig, SIG_HEADER + (from + i) * SIG_BYTES, k * SIG_BYTES, buf);
      writeAt(nsg, buf.subarray(0, k * SIG_BYTES), SIG_HEADER + i * SIG_BYTES);
      i += k;
    }
  } finally {
    nsg.close();
    sig.close();
  }
}

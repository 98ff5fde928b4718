// The benchmark's four recalls, each run our way (src/archive) and the seed's
// way, and measured the same way on Node and inside XS. Pure TS: no Node APIs.
//
// The seed's way (seed 000 §12.8): stream the whole file line by line through
// a 1 KB buffer (fgets on a buffered FILE), JSON.parse every line, keep what
// matches. To return the same newest-first results it cannot stop early (its
// early stop returns the oldest matches), so it reads everything.
import { File } from "file";
import config from "mc/config";
import type { SimDevice } from "../../host-sim/device";
import type { Archive } from "../../src/archive/archive";
import { FILE_BASE, isoKey, type ArchivedItem, type ArchiveType } from "../../src/archive/line";
import { foldString, containsFolded } from "../../src/archive/fold";
import { TopK } from "../../src/archive/recall";
import { boundKey } from "../../src/archive/archive";
import { encode, decode } from "../../src/text/utf8";
import { RARE, COMMON } from "./data";

export interface QuerySpec {
  bench: string;
  type: ArchiveType;
  limit: number;
  keyword?: string;
  start?: string;
  end?: string;
}

export const QUERIES: QuerySpec[] = [
  { bench: "archive.recent", type: "fact", limit: 10 },
  { bench: "archive.time_range_month", type: "fact", limit: 1000, start: "2024-06-01", end: "2024-06-30" },
  { bench: "archive.keyword_rare", type: "fact", limit: 10, keyword: RARE },
  { bench: "archive.keyword_common", type: "fact", limit: 10, keyword: COMMON },
];

export function ours(a: Archive, q: QuerySpec): ArchivedItem[] {
  if (q.keyword) return a.recallByKeyword(q.type, q.keyword, q.limit);
  if (q.start || q.end) return a.recallByTimeRange(q.type, q.start, q.end, q.limit);
  return a.recallRecent(q.type, q.limit);
}

export interface Counted {
  items: ArchivedItem[];
  linesParsed: number;
}

// The seed's full scan.
export function baseline(q: QuerySpec): Counted {
  const path = config.file.root + FILE_BASE[q.type] + ".jsonl";
  const f = new File(path);
  const folded = q.keyword ? foldString(q.keyword) : undefined;
  const lo = boundKey(q.start, "start", false), hi = boundKey(q.end, "end", true);
  const top = new TopK(q.limit);
  const recent: { item: ArchivedItem; pos: number }[] = [];
  let parsed = 0;
  try {
    const len = f.length;
    let pos = 0;
    let carry = new Uint8Array(0); // the start of a line that continues in the next buffer
    let lineStart = 0;
    while (pos < len) {
      f.position = pos;
      const chunk = new Uint8Array(f.read(ArrayBuffer, Math.min(1024, len - pos)) as ArrayBuffer);
      pos += chunk.length;
      // fgets: whole lines out of the buffer
      let s = 0;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, s)) {
        let bytes = chunk.subarray(s, i);
        if (carry.length) {
          const joined = new Uint8Array(carry.length + bytes.length);
          joined.set(carry);
          joined.set(bytes, carry.length);
          bytes = joined;
          carry = new Uint8Array(0);
        }
        const at = lineStart;
        lineStart = pos - chunk.length + i + 1;
        s = i + 1;
        parsed++;
        let item: ArchivedItem;
        try {
          item = JSON.parse(decode(bytes)) as ArchivedItem;
        } catch {
          continue;
        }
        const key = isoKey(item.timestamp);
        if (folded) {
          if (containsFolded(item.content, folded) || (item.topic !== undefined && containsFolded(item.topic, folded))) top.add(item, key, at);
        } else if (q.start || q.end) {
          if (key >= lo && key <= hi) top.add(item, key, at);
        } else {
          recent.push({ item, pos: at });
          if (recent.length > q.limit) recent.shift();
        }
      }
      if (s < chunk.length) {
        const rest = new Uint8Array(carry.length + chunk.length - s);
        rest.set(carry);
        rest.set(chunk.subarray(s), carry.length);
        carry = rest;
      }
    }
  } finally {
    f.close();
  }
  if (!folded && !q.start && !q.end) {
    recent.sort((a, b) => isoKey(b.item.timestamp) - isoKey(a.item.timestamp) || b.pos - a.pos);
    return { items: recent.map((x) => x.item), linesParsed: parsed };
  }
  return { items: top.result(), linesParsed: parsed };
}

export interface Measured {
  bytes_read: number;
  read_calls: number;
  lines_parsed: number;
  results: number;
  match_bytes: number;
  ms: number;
  ids: string[];
}

// Counts one run (flash traffic on the storage partition), then times repeated
// runs for at least `minMs` (at least 3, at most 500 runs): ms per run.
export function measure(dev: SimDevice, run: () => Counted, now: () => number, minMs = 300): Measured {
  dev.flash.resetTraffic();
  const first = run();
  const t = dev.flash.partition("storage");
  const m: Measured = {
    bytes_read: t.bytesRead,
    read_calls: t.readCalls,
    lines_parsed: first.linesParsed,
    results: first.items.length,
    match_bytes: 0,
    ms: 0,
    ids: first.items.map((x) => x.id),
  };
  for (const x of first.items) m.match_bytes += encode(JSON.stringify(x)).length + 1;
  let reps = 0;
  const t0 = now();
  let el = 0;
  while (reps < 3 || (el < minMs && reps < 500)) {
    run();
    reps++;
    el = now() - t0;
  }
  m.ms = Math.round((el / reps) * 1000) / 1000;
  return m;
}

export function oursCounted(a: Archive, q: QuerySpec): () => Counted {
  return () => {
    const items = ours(a, q);
    return { items, linesParsed: a.lastRecall.linesParsed };
  };
}

// The bench's four recalls on facts at one archive age, their targets, and how
// one is measured: the same code on Node and inside XS (tools/bench/xs-entry.ts).
// Pure TS: no Node APIs.
import type { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import type { ArchivedItem } from "../../src/archive/line";
import { daysInMonth, toLocal } from "../../src/time/local";
import { RARE, ABSENT, START } from "./data";

export type Scenario = "recent" | "month" | "rare" | "absent";

export interface QuerySpec {
  scenario: Scenario;
  keyword?: string;
  start?: string; // YYYY-MM-DD, local
  end?: string;
  limit: number;
}

const pad = (n: number) => (n < 10 ? "0" : "") + n;

// The calendar month `index` months after START's (0: START's own month).
export function monthOf(index: number): { year: number; month: number; start: string; end: string; key: string } {
  const s = toLocal(START);
  const m0 = s.year * 12 + (s.month - 1) + index;
  const year = Math.floor(m0 / 12), month = (m0 % 12) + 1;
  const key = `${year}-${pad(month)}`;
  return { year, month, key, start: `${key}-01`, end: `${key}-${pad(daysInMonth(year, month))}` };
}

// The four recalls at an age of `months`: the month one is the calendar month
// that starts six months before that age (clamped to the first month).
export function queriesAt(months: number): QuerySpec[] {
  const m = monthOf(Math.max(0, months - 6));
  return [
    { scenario: "recent", limit: 10 },
    { scenario: "month", start: m.start, end: m.end, limit: 1000 },
    { scenario: "rare", keyword: RARE, limit: 10 },
    { scenario: "absent", keyword: ABSENT, limit: 10 },
  ];
}

export const KB = 1024;
// The targets of issue 12 §5, as a bound on bytes read given the bytes of the matching lines.
export function target(s: Scenario): { text: string; bound: (matchBytes: number) => number } {
  switch (s) {
    case "recent":
      return { text: "bytes_read <= 16 KB", bound: () => 16 * KB };
    case "month":
      return { text: "bytes_read <= match_bytes + 32 KB", bound: (m) => m + 32 * KB };
    case "rare":
      return { text: "bytes_read <= 64 KB + 4 KB", bound: () => 68 * KB };
    default:
      return { text: "bytes_read <= 64 KB", bound: () => 64 * KB };
  }
}

export function recallOf(a: Archive, q: QuerySpec): ArchivedItem[] {
  return a.recall("fact", { keyword: q.keyword, start: q.start, end: q.end, limit: q.limit });
}

export interface Measured {
  bytes_read: number;
  read_calls: number;
  lines_parsed: number;
  results: number;
  ms: number;
  ids: string[];
}

// Counts one run (flash traffic on the storage partition, as the simulated
// SPIFFS reads it), then times repeated runs for at least `minMs` (at least 3,
// at most 500 runs): ms per run.
// `onFirst` is told right after the counted run.
export function measure(dev: SimDevice, a: Archive, q: QuerySpec, now: () => number, minMs: number, onFirst?: () => void): Measured {
  dev.flash.resetTraffic();
  const first = recallOf(a, q);
  onFirst?.();
  const t = dev.flash.partition("storage");
  const m: Measured = {
    bytes_read: t.bytesRead,
    read_calls: t.readCalls,
    lines_parsed: a.lastRecall.linesParsed,
    results: first.length,
    ms: 0,
    ids: first.map((x) => x.id),
  };
  let reps = 0;
  const t0 = now();
  let el = 0;
  while (reps < 3 || (el < minMs && reps < 500)) {
    recallOf(a, q);
    reps++;
    el = now() - t0;
  }
  m.ms = Math.round((el / reps) * 1000) / 1000;
  return m;
}

// The archive on a partition of `partitionBytes`, booted (check()).
export function bootArchive(root: string | undefined, partitionBytes: number): Archive {
  const a = new Archive(root, { partitionBytes });
  a.check();
  return a;
}

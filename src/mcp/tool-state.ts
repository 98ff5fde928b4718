// What an action of the tool `memory` works on (src/mcp/memory-tool.ts holds
// the table of actions; each action's module takes a ToolState, never the
// tool itself, so that no action imports the dispatcher back), and the few
// things several actions share: the types, the archive's interface, the reply.

import type { Memory } from "../memory/memory";
import type { Schedules } from "../schedule/schedules";
import type { PendingQueue } from "../listen/pending";
import type { Episodes } from "../episode/episodes";
import type { ArchivedItem } from "../archive/line";
import type { Budget } from "../recall/retrieve";

export type Args = Record<string, unknown>;

export interface ToolState {
  readonly memory: Memory;
  readonly schedules: Schedules;
  readonly archive?: ArchiveAccess;
  readonly pending: PendingQueue;
  // the episodes on this device's storage partition (src/episode), when it has one
  readonly episodes: Episodes | undefined;
  // Runs a call that may change memory, then writes the stores it touched
  // before the reply goes out (MemoryTool.changing).
  changing(fn: () => string, quiet?: boolean): string;
}

// An action: checks its own arguments, does it, returns the reply's text.
export type ActionFn = (tool: ToolState, args: Args) => string;

export const TYPES = ["name", "age", "gender", "location", "birthday", "like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "event", "schedule", "episode"] as const;
export type Type = (typeof TYPES)[number];
export const RECALL_TYPES = ["fact", "moment", "event"] as const;
export type RecallType = (typeof RECALL_TYPES)[number];

export const READ_BUDGET_BYTES = 6000;
export const SEARCH_HITS = 8; // ranked hits a search or recall shows at most

export const RESULT: Record<string, string> = { ADDED: "added", UPDATED: "updated", DELETED: "deleted", NOOP: "no_change" };

export function out(v: unknown): string {
  return JSON.stringify(v);
}

// What the archive offers the tool (src/archive/archive.ts's Archive).
export interface RecallQuery {
  keyword?: string;
  start?: string; // YYYY-MM-DD, inclusive
  end?: string; // YYYY-MM-DD, inclusive
  limit: number;
  budget?: Budget; // flash bytes it may read, shared with the call's other lookups (src/archive/query.ts)
}
export interface ArchiveAccess {
  recall(type: RecallType, q: RecallQuery): object[];
  count(type: RecallType): number;
  // hides archived records by id at once (tombstones); how many were newly
  // hidden; throws ArchiveError and changes nothing on failure. Without it
  // (an archive of format 1) delete reaches NVS only.
  forget?(type: RecallType, ids: string[]): number;
  // the last recall's: segments it could not open (its answer is partial)
  readonly lastRecall?: { readonly unreadable?: readonly string[] };
  footprint?(): number; // bytes of every archive file (status)
  // streams a stream's records, or its monthly digests, newest first; fn
  // returns true to stop (action=query, recall of snapshots: src/query)
  // (with `range`, unix seconds inclusive: only records of that time)
  scan?(stream: RecallType | "digest", fn: (item: ArchivedItem) => boolean | void, range?: { lo: number; hi: number }, budget?: Budget): { unreadable: string[]; migrating: boolean };
  readonly budget?: number; // bytes the archive may use (status)
}

// A record as recall shows it: an archived item's fields (ArchivedItem,
// src/archive/line.ts).
export interface Item {
  timestamp: string; // local YYYY-MM-DDTHH:MM:SS
  id: string;
  content: string;
  topic?: string;
  digest?: boolean; // a monthly digest of moments (archive format 2)
  archived?: true;
}

// What the archive threw that leaves the rest of an answer standing: an
// ArchiveError, or any other failure of its files (a read error that escaped
// it): the archive is a part of memory that may fail alone. A power cut in
// the simulator is not an answer.
export function archiveFailed(e: unknown): boolean {
  return e instanceof Error && e.name !== "PowerCut";
}

// Why the archive's last answer is partial (segments it could not open), or undefined.
export function partOf(a: ArchiveAccess): string | undefined {
  const u = a.lastRecall?.unreadable;
  return u && u.length ? `archive: cannot open ${u.join(", ")} now` : undefined;
}

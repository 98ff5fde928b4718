// The MCP tool `memory` (seed 000 §3.5, §6.1, §12.6, §12.10 and its appendix):
// the AI reads, writes, deletes, completes schedules, recalls from the
// archive and searches everything. Every argument is checked before anything
// changes; a rejected call changes nothing.
//
// This module is the table of actions and the checks every call shares (the
// argument names, the action, a MemoryError's hint, the commit after a change).
// Each action checks its own arguments in its own module, which works on a
// ToolState (src/mcp/tool-state.ts) and never imports this one:
//   read                      read-action.ts        (type=episode: episode-actions.ts)
//   write, complete_schedule  write-action.ts       (type=episode: episode-actions.ts)
//   delete                    delete-action.ts      (type=episode: episode-actions.ts)
//   recall, search            recall-action.ts      (episode: episode-actions.ts, snapshot: query-action.ts)
//   pending, confirm, drop    pending-actions.ts
//   status                    status-action.ts
//   context                   episode-actions.ts
//   query                     query-action.ts
//   summary, config           relation-actions.ts

import { Memory, MemoryError, oneOf, type Commit } from "../memory/memory";
import { EMOTIONS, GOAL_CATEGORIES, MEMBER_TYPES } from "../memory/types";
import { Schedules } from "../schedule/schedules";
import { now } from "../time/clock";
import { ToolError, quote } from "../text/reply";
import type { Tool } from "./server";
import { PendingQueue } from "../listen/pending";
import { coerce, READ_TYPES } from "./fork";
import { episodeAction } from "./episode-actions";
import { normalizeForms } from "./forms";
import { queryAction, snapshotRecall } from "./query-action";
import { relationAction } from "./relation-actions";
import type { Episodes } from "../episode/episodes";
import { sourcesHelp } from "../query/fields";
import { TYPES, type ActionFn, type ArchiveAccess, type ToolState } from "./tool-state";
import { readAction } from "./read-action";
import { writeAction, completeAction } from "./write-action";
import { deleteAction } from "./delete-action";
import { recallAction, recallAnyAction, searchAction } from "./recall-action";
import { pendingAction, confirmAction, dropAction } from "./pending-actions";
import { statusAction } from "./status-action";

// what the tests and the service import from here
export { TYPES, RECALL_TYPES, READ_BUDGET_BYTES, SEARCH_HITS, type ArchiveAccess, type RecallQuery, type RecallType } from "./tool-state";
export { FORGET_AT_ONCE } from "./delete-action";
export { UPCOMING_IN_READ } from "./read-action";
export { nvsItems } from "./recall-action";

export const ACTIONS = ["read", "write", "delete", "complete_schedule", "recall", "search", "pending", "confirm", "drop", "status", "context", "query", "summary", "config"] as const;
// recall also takes episode (by similarity) and snapshot (digests and meta-snapshots)
export const RECALL_ALL_TYPES = ["fact", "moment", "event", "episode", "snapshot"] as const;
export const ARGS = [
  "action", "type", "content", "relation", "name", "closeness", "memory", "member_type", "topic", "emotion", "intensity",
  "importance", "category", "priority", "frequency", "datetime", "repeat", "duration", "keyword", "start_date", "end_date", "limit", "force",
  "progress", "e", "i", "p", "j", "keywords", "message", "budget", "from", "where", "order_by", "select", "preset", "tz", "id",
];

export const DESCRIPTION = [
  "Long-term memory of the user, on this device. A reply 'error: …' says what to fix and what to send instead; 'error: not saved': nothing was stored, tell the user and try again later.",
  "Call action=read at the start of every conversation: it gives profile, likes, dislikes, family, facts, traits, habits, moments, goals, events without a time (birthdays every year, dated plans, todos), the top 8 schedules (by priority, then time), relationship stage and style to speak in, pending (heard, not yet stored). With type: all of that type in detail.",
  "action=write: store what the user tells you, at once (no need to say it twice). schedule: datetime 'YYYY-MM-DD HH:MM', repeat, priority, duration; a conflict is refused with free times unless force=true. event (birthday, anniversary): datetime 'MM-DD' every year or 'YYYY-MM-DD' once, category = its kind. goal: progress 0-100, 100 completes it. Short forms in content: family 'relation:name[:memory]', trait 'category:content', habit 'content:frequency', event 'MM-DD:kind:content', goal 'content:priority', moment 'topic:content[:importance]'.",
  "action=complete_schedule: content of a schedule done (a repeating one moves to its next time) or of a dated event.",
  "action=delete: type and content. type=all erases all memory of the user: first without force to see what goes, then force=true once the user agrees.",
  "The device also hears the conversation: what the user says twice or clearly is stored at its end. action=pending lists it; confirm or drop settles an item (content, type if several match); your own write settles it too.",
  "Questions about the owner, the past or plans (你还记得…吗, 上次…, 生日, 几岁, 住哪, 下周三干嘛): action=search, keyword = the user's words: all memory ranked, each hit with kind and age; no hits: not in memory.",
  "action=recall: the same, type narrows it (fact, moment, event, episode, snapshot); with start_date/end_date: a period.",
  "action=status: storage use, records per type, episodes, boots, the last repair, preset. If read has a `notice`, tell the owner what it says.",
  "Episodes: what happened in a conversation. write type=episode: content (≤200 characters), e, i, p, j (0-1), keywords, emotion. At each user turn, action=context with message: a prompt block of what the topic needs (facts, family, plans, episodes, digests of forgotten ones), each with its age.",
  "action=query: from (episode, fact, event, digest), where, order_by, limit, select. action=summary: the owner and the relationship in short. action=config with preset: minimal, balanced or full; tz: the owner's UTC offset (+08:00).",
].join("\n");

// A new object at each call, never a module constant: on the device this module
// is preloaded into flash, and XS's JSON.stringify refuses an object that lives
// there ("read only value"): tools/list failed on the real SDK's x-cli-lin.
export function inputSchema(): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      action: { type: "string", enum: [...ACTIONS], description: "what to do, see above" },
      type: { type: "string", enum: [...TYPES, "snapshot"], description: "write, delete: what it is; read: only this type; recall: fact, moment, event, episode or snapshot; delete also takes all" },
      content: { type: "string", description: "what to store, delete, complete, confirm or drop; search: words to find" },
      relation: { type: "string", description: "family: e.g. 妈妈" },
      name: { type: "string", description: "family: the person's or pet's name" },
      closeness: { type: "integer", minimum: 1, maximum: 5, description: "family: how close" },
      memory: { type: "string", description: "family: a memory shared with them" },
      member_type: { type: "string", enum: [...MEMBER_TYPES], description: "family: kind of member" },
      topic: { type: "string", description: "moment: what it was about" },
      emotion: { type: "string", enum: [...EMOTIONS], description: "moment: how the user felt" },
      intensity: { type: "integer", minimum: 0, maximum: 5, description: "moment: how strongly" },
      importance: { type: "integer", minimum: 1, maximum: 5, description: "moment: how much it matters" },
      category: { type: "string", description: "trait: personality, appearance, ability, other; goal: " + GOAL_CATEGORIES.join(", ") + "; event: its kind, e.g. birthday" },
      priority: { type: "integer", minimum: 1, maximum: 5, description: "schedule or goal: 5 is the most important" },
      frequency: { type: "string", description: "habit: daily, weekly, occasionally…" },
      datetime: { type: "string", description: "schedule: 'YYYY-MM-DD HH:MM' local time (下周三 15:00 too); event: 'MM-DD' or 'YYYY-MM-DD' (3月15日 too)" },
      repeat: { type: "string", enum: ["none", "daily", "weekly", "monthly"], description: "schedule: how it repeats" },
      duration: { type: "integer", minimum: 1, maximum: 1440, description: "schedule: minutes, default 60" },
      progress: { type: "integer", minimum: 0, maximum: 100, description: "goal: percent done" },
      keyword: { type: "string", description: "search or recall: the user's words (生日, 猫, 我妈的手术)" },
      start_date: { type: "string", description: "recall: from YYYY-MM-DD (3月1日, 上个月 too)" },
      end_date: { type: "string", description: "recall: to YYYY-MM-DD" },
      limit: { type: "integer", minimum: 1, maximum: 50, description: "recall or search: how many, default 10" },
      force: { type: "boolean", description: "write or confirm a schedule despite a conflict; delete type=all" },
      e: { type: "number", minimum: 0, maximum: 1, description: "episode: emotional weight 0-1 (sad, scary, angry count more)" },
      i: { type: "number", minimum: 0, maximum: 1, description: "episode: how much information 0-1" },
      p: { type: "number", minimum: 0, maximum: 1, description: "episode: persistence 0-1: 1 core (lasting like, personality, illness), 0.5 a long plan, 0.1 short-lived" },
      j: { type: "number", minimum: 0, maximum: 1, description: "episode: your overall judgement of importance 0-1" },
      keywords: { type: "string", description: "episode: up to 5 words, comma-separated" },
      message: { type: "string", description: "context or recall of episodes: the user's message now" },
      budget: { type: "integer", minimum: 200, maximum: 4000, description: "context: bytes of the block, default 1200" },
      from: { type: "string", enum: ["episode", "fact", "event", "digest"], description: "query: what to look through; fields: " + sourcesHelp() + "; a date 'YYYY-MM' covers the month" },
      where: { type: "string", description: "query: conditions 'field op value' joined by AND; ops = != >= <= CONTAINS LIKE; e.g. p >= 0.5 AND content CONTAINS '篮球'" },
      order_by: { type: "string", description: "query: 'field [asc|desc]'" },
      select: { type: "string", description: "query: fields to return, comma-separated" },
      preset: { type: "string", enum: ["minimal", "balanced", "full"], description: "config: how much the device keeps and recalls" },
      tz: { type: "string", description: "config: UTC offset ±HH:MM" },
      id: { type: "integer", minimum: 1, description: "delete type=episode: the episode's id, as recall or read shows it" },
    },
    required: ["action"],
  };
}

type Action = (typeof ACTIONS)[number];

// The table: each action and the module that does it, and for a few
// actions, the module that takes a given type (no type: ""). Plain
// functions, no wrappers: a wrapper would be one more frame on the XS stack,
// whose peak is in these calls (`npm run heap`).
const TABLE: Record<Action, ActionFn> = {
  read: readAction,
  write: writeAction,
  delete: deleteAction,
  complete_schedule: completeAction,
  recall: recallAction,
  search: searchAction,
  pending: pendingAction,
  confirm: confirmAction,
  drop: dropAction,
  status: statusAction,
  context: episodeAction,
  query: queryAction,
  summary: relationAction,
  config: relationAction,
};
const BY_TYPE: { readonly [A in Action]?: readonly (readonly [string, ActionFn])[] } = {
  read: [["episode", episodeAction]],
  write: [["episode", episodeAction]],
  delete: [["episode", episodeAction]],
  recall: [["", recallAnyAction], ["episode", episodeAction], ["snapshot", snapshotRecall]],
};

// The module that does this call: by its type where the action routes by
// type, else by its action. The type is compared, never used as a property
// key: XS would keep each new string a caller sends as a key for ever.
function route(action: Action, type: unknown): ActionFn {
  const by = BY_TYPE[action];
  const t = type === undefined ? "" : type;
  if (by) for (let i = 0; i < by.length; i++) if (by[i][0] === t) return by[i][1];
  return TABLE[action];
}

export class MemoryTool implements Tool, ToolState {
  readonly name = "memory";
  readonly description = DESCRIPTION;
  get inputSchema(): Record<string, unknown> {
    return inputSchema();
  }
  // after a call that changed memory, when other stores are still dirty (the
  // service schedules its quiet-period flush)
  onChange: (() => void) | undefined;

  readonly pending: PendingQueue;

  constructor(readonly memory: Memory, readonly schedules: Schedules, readonly archive?: ArchiveAccess) {
    this.pending = new PendingQueue(memory, schedules);
  }

  // the episodes on this device's storage partition (src/episode), when it has one
  episodes: Episodes | undefined;

  call(input: Record<string, unknown>): string {
    // "4" → 4 where only an integer makes sense (src/mcp/fork.ts); 七岁, 3月15日, 下周三 15:00 → the tool's forms (src/mcp/forms.ts)
    const args = normalizeForms(coerce(input), now());
    for (const k of Object.keys(args)) if (!ARGS.includes(k)) throw new ToolError(`unknown argument '${quote(k, 32)}'; accepted: ${ARGS.join(", ")}`);
    let action: Action;
    try {
      action = oneOf(args.action, "action", ACTIONS);
    } catch (e) {
      throw new ToolError((e as Error).message);
    }
    try {
      return route(action, args.type)(this, args);
    } catch (e) {
      // the hint names a type read accepts, never the caller's text (which may
      // hold a lone surrogate, found by `npm run fuzz -- --xs`, seed 29130)
      if (e instanceof MemoryError)
        throw new ToolError(e.code === "not_found" ? `${e.message}; action=read with type=${typeof args.type === "string" && (READ_TYPES as readonly string[]).indexOf(args.type) >= 0 ? args.type : "schedule"} lists what is stored` : e.message);
      throw e;
    }
  }

  // Runs a call that may change memory, then writes the stores it touched
  // (and only those) before the reply goes out. A call that throws changes
  // nothing. A store whose new table reaches no copy on flash is rolled back
  // with the rest of the call, and the reply says it was not saved; only the
  // pending queue's bookkeeping may fail quietly (writing an item again is a
  // NOOP). `quiet`: the call is a read, whose only change is bookkeeping.
  changing(fn: () => string, quiet = false): string {
    const mark = this.memory.mark();
    let reply: string;
    try {
      reply = fn();
    } catch (e) {
      this.memory.rollback(mark);
      throw e;
    }
    const c: Commit = this.memory.commit(mark);
    this.lastCommit = c;
    if (!quiet && c.unsaved.some((n) => n !== "pending")) throw new ToolError(`not saved: ${c.error}; nothing changed, memory is as before`);
    if (this.memory.dirty) this.onChange?.();
    return reply;
  }

  lastCommit: Commit | undefined;
}

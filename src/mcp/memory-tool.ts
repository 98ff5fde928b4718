// The MCP tool `memory` (seed 000 §3.5, §6.1, §12.6, §12.10 and its appendix):
// the AI reads, writes, deletes, completes schedules, recalls from the
// archive and searches everything. Every argument is checked before anything
// changes; a rejected call changes nothing.

import { Memory, MemoryError, text, int, oneOf, PROFILE_FIELDS, type ProfileField, type Result, type Commit } from "../memory/memory";
import { EMOTIONS, GOAL_CATEGORIES, MEMBER_TYPES, REPEATS, type StoreName, type Fact, type Moment, type Event } from "../memory/types";
import { blobEntries, NVS_ENTRY_BYTES, NVS_USABLE_BYTES } from "../nvs/budget";
import { DOMAINS } from "../nvs/store";
import { Schedules, type ScheduleView } from "../schedule/schedules";
import { byteLength } from "../text/utf8";
import { parseLocal, formatDate, formatDateTime, formatIso } from "../time/local";
import { recordId, eventIso, type ArchivedItem } from "../archive/line";
import { foldString, containsFolded } from "../archive/fold";
import { now } from "../time/clock";
import { ToolError, quote, type Tool } from "./server";
import { PendingQueue } from "../listen/pending";
import { coerce, expand, readType, byPriority, writeEvent, writeGoal, deleteEvent, completeEvent, eraseAll, whatAllIs, READ_TYPES } from "./fork";
import { episodeAction, sourcesOf, view } from "./episode-actions";
import { normalizeForms } from "./forms";
import { retrieve, FLASH_BUDGET, BUDGET_SPENT, type HitKind, type Budget } from "../recall/retrieve";
import { queryAction, snapshotRecall } from "./query-action";
import { relationAction } from "./relation-actions";
import { relationView } from "../relation/rules";
import { presetOf, presetView } from "../config/presets";
import type { Episodes } from "../episode/episodes";
import { sourcesHelp } from "../query/fields";

export const ACTIONS = ["read", "write", "delete", "complete_schedule", "recall", "search", "pending", "confirm", "drop", "status", "context", "query", "summary", "config"] as const;
export const TYPES = ["name", "age", "gender", "location", "birthday", "like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "event", "schedule", "episode"] as const;
// recall also takes episode (by similarity) and snapshot (digests and meta-snapshots)
export const RECALL_ALL_TYPES = ["fact", "moment", "event", "episode", "snapshot"] as const;
export const RECALL_TYPES = ["fact", "moment", "event"] as const;
export type RecallType = (typeof RECALL_TYPES)[number];
type Type = (typeof TYPES)[number];

export const READ_BUDGET_BYTES = 6000;
export const SEARCH_HITS = 8; // ranked hits a search or recall shows at most
// the kinds of memory a recall of one type ranks (src/recall)
const RECALL_KINDS: Record<RecallType, HitKind[]> = {
  fact: ["profile", "like", "dislike", "family", "fact", "trait", "habit", "goal"],
  moment: ["moment", "episode", "digest"],
  event: ["schedule", "event"],
};
export const FORGET_AT_ONCE = 50; // archived records one delete hides at most
export const UPCOMING_IN_READ = 8;

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

const RESULT: Record<string, string> = { ADDED: "added", UPDATED: "updated", DELETED: "deleted", NOOP: "no_change" };

function out(v: unknown): string {
  return JSON.stringify(v);
}

function date(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string" || parseLocal(v) === undefined || v.length !== 10) throw new ToolError(`${what} must be a date YYYY-MM-DD`);
  return v;
}

export class MemoryTool implements Tool {
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
    let action: (typeof ACTIONS)[number];
    try {
      action = oneOf(args.action, "action", ACTIONS);
    } catch (e) {
      throw new ToolError((e as Error).message);
    }
    try {
      switch (action) {
        case "context":
          return episodeAction(this, "context", args);
        case "query":
          return queryAction(this, args);
        case "summary":
        case "config":
          return relationAction(this, action, args);
        case "read":
          if (args.type === "episode") return episodeAction(this, "read", args);
          return args.type === undefined || args.type === "" ? this.changing(() => this.read(), true) : out(readType(this.memory, this.schedules, oneOf(args.type, "type", READ_TYPES)));
        case "write":
          if (args.type === "episode") return episodeAction(this, "write", args);
          return this.changing(() => this.write(args));
        case "delete":
          if (args.type === "episode") return episodeAction(this, "delete", args);
          return this.delete(args);
        case "complete_schedule":
          return this.changing(() => this.complete(args));
        case "recall":
          if (args.type === undefined || args.type === "") return this.recallAny(args);
          if (args.type === "episode") return episodeAction(this, "recall", args);
          if (args.type === "snapshot") return snapshotRecall(this, args);
          return this.recall(args);
        case "pending":
          return out({ count: this.pending.list().length, items: this.pending.list() });
        case "confirm":
          return this.changing(() => this.confirm(args));
        case "drop":
          return this.changing(() => this.drop(args));
        case "status":
          return this.status();
        default:
          return this.search(args);
      }
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
  private changing(fn: () => string, quiet = false): string {
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

  private type(args: Record<string, unknown>): Type {
    return oneOf<Type>(args.type, "type", TYPES);
  }

  // ---- write ----------------------------------------------------------------------

  private write(input: Record<string, unknown>): string {
    const type = this.type(input);
    const a = expand(type, input); // the fork's compact forms in content
    let r: Result;
    switch (type) {
      case "name":
      case "age":
      case "gender":
      case "location":
      case "birthday":
        r = this.memory.setProfile(type, type === "age" && typeof a.content === "string" ? a.content.trim() : a.content);
        break;
      case "like":
      case "dislike":
        r = this.memory.addPreference(type, a.content);
        break;
      case "family":
        r = this.memory.upsertFamily(familyArgs(a));
        break;
      case "fact":
        r = this.memory.addFact(a.content);
        break;
      case "trait":
        r = this.memory.addTrait(a.category, a.content);
        break;
      case "habit":
        r = this.memory.addHabit(a.content, a.frequency);
        break;
      case "moment":
        r = this.memory.addMoment({ topic: a.topic, content: a.content, emotion: a.emotion, intensity: a.intensity, importance: a.importance });
        break;
      case "goal":
        return out({ ...writeGoal(this.memory, a), type });
      case "event":
        return out({ ...writeEvent(this.memory, a), type });
      default:
        return this.writeSchedule(a);
    }
    const reply: Record<string, unknown> = { result: RESULT[r.action], type };
    if (r.dropped) reply.dropped = r.dropped;
    this.settle(type, a);
    return out(reply);
  }

  // ---- the pending queue (src/listen/pending.ts) ------------------------------------

  // A write of the AI's own settles what the queue held about the same thing.
  private settle(type: Type, a: Record<string, unknown>): void {
    if (type === "family") {
      const f = familyArgs(a);
      const key = typeof f.name === "string" && f.name.trim() ? f.name.trim() : typeof f.relation === "string" ? f.relation.trim() : "";
      if (key) this.pending.settle("family", ":" + key);
    } else if (type === "name" || type === "age" || type === "gender" || type === "location" || type === "birthday") this.pending.settle(type, "");
    else if ((type === "like" || type === "dislike" || type === "fact") && typeof a.content === "string") this.pending.settle(type, a.content.trim());
  }

  private pendingArgs(a: Record<string, unknown>): { type: string | undefined; content: string } {
    const content = text(a.content, "content", 64);
    const type = a.type === undefined ? undefined : oneOf(a.type, "type", [...TYPES, "event"]);
    return { type, content };
  }

  private confirm(a: Record<string, unknown>): string {
    if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
    const { type, content } = this.pendingArgs(a);
    const f = this.pending.confirm(type, content, a.force === true);
    if (f.result === "conflict") return out({ result: "conflict", pending: f, hint: "ask the user, then confirm again with force=true, or drop it" });
    return out({ result: "confirmed", memory: f });
  }

  private drop(a: Record<string, unknown>): string {
    const { type, content } = this.pendingArgs(a);
    return out({ result: "dropped", pending: this.pending.drop(type, content) });
  }

  private writeSchedule(a: Record<string, unknown>): string {
    if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
    const o = this.schedules.add({ content: a.content, datetime: a.datetime, priority: a.priority, duration: a.duration, repeat: a.repeat, force: a.force });
    if (o.action === "CONFLICT") {
      const c = o.conflicts[0];
      return out({
        result: "conflict",
        type: "schedule",
        schedule: o.schedule,
        conflicts_with: { content: c.content, datetime: c.datetime, until: c.until },
        suggested_times: o.suggestions,
        hint: "ask the user, then write again with one of the suggested times, or with force=true",
      });
    }
    const reply: Record<string, unknown> = { result: RESULT[o.action], type: "schedule", schedule: o.schedule };
    if (o.conflicts.length) reply.overrode_conflicts = o.conflicts.map((c) => `${c.content} at ${c.datetime}`);
    return out(reply);
  }

  // ---- delete, complete ----------------------------------------------------------------

  private delete(a: Record<string, unknown>): string {
    if (a.type === "all") return this.changing(() => this.deleteAll(a));
    const type = this.type(a);
    if (type === "fact" || type === "moment" || type === "event") return this.forget(type, a.content);
    return this.changing(() => {
      let r: Result;
      if ((PROFILE_FIELDS as readonly string[]).includes(type)) r = this.memory.clearProfile(type as ProfileField, a.content);
      else
        switch (type) {
          case "like":
          case "dislike":
            r = this.memory.removePreference(type, a.content);
            break;
          case "family":
            r = this.memory.removeFamily(a.content ?? a.name ?? a.relation);
            break;
          case "trait":
            r = this.memory.removeTrait(a.content);
            break;
          case "habit":
            r = this.memory.removeHabit(a.content);
            break;
          case "goal":
            r = this.memory.removeGoal(a.content);
            break;
          default:
            r = this.schedules.remove(a.content);
        }
      return out({ result: r.action === "NOOP" ? "not_found" : RESULT[r.action], type });
    });
  }

  // delete of a fact, moment or event: from NVS (as ever) and from the archive,
  // whose matching records are hidden at once (archive.forget: tombstones).
  // Matching as in NVS: a fact by its content, a moment by its content or
  // topic, an event by its content, else by a part of it that names one thing
  // (src/mcp/fork.ts findEvent). The archive is searched first and its
  // records hidden first: an archive that cannot be searched or cannot take
  // the tombstones (full until the next maintenance) refuses the delete with
  // nothing changed. Then NVS is changed and committed like any call; if that
  // write fails, the reply says so and the archived copies stay hidden (the
  // user asked for them to go): the same delete again finishes it.
  private forget(type: "fact" | "moment" | "event", content: unknown): string {
    const q = type === "event" ? text(content, "content", 64) : text(content, type, 128);
    const arc = this.archive;
    let ids: string[] = [];
    let part: string | undefined; // part of the archive could not be read
    if (arc && arc.forget) {
      let items: Item[];
      try {
        // the archive's keyword match (folded, a substring) finds every exact or part match
        items = arc.recall(type, { keyword: q, limit: FORGET_AT_ONCE }) as Item[];
        part = partOf(arc);
      } catch (e) {
        if (!archiveFailed(e)) throw e;
        throw new ToolError(`nothing was deleted: the archive cannot be searched now (${(e as Error).message}), so an archived copy could not be found; try again later`);
      }
      ids = this.archivedMatches(items, type, q);
    }
    let hidden = 0;
    if (ids.length)
      try {
        hidden = arc!.forget!(type, ids);
      } catch (e) {
        if (!archiveFailed(e)) throw e;
        throw new ToolError(`nothing was deleted: the archived copy cannot be hidden now (${(e as Error).message})`);
      }
    let removed = 0;
    try {
      this.changing(() => {
        if (type === "event") removed = deleteEvent(this.memory, q) ? 1 : 0;
        else {
          const before = this.memory.stores[type === "fact" ? "facts" : "moments"].count;
          if (type === "fact") this.memory.removeFact(q);
          else this.memory.removeMoment(q);
          removed = before - this.memory.stores[type === "fact" ? "facts" : "moments"].count;
        }
        return "";
      });
    } catch (e) {
      if (hidden && e instanceof ToolError) throw new ToolError(`${e.message}; ${hidden} archived ${type}${hidden > 1 ? "s are" : " is"} hidden already: the same delete again finishes it`);
      throw e;
    }
    const reply: Record<string, unknown> = !removed && !hidden ? { result: "not_found", type } : { result: "deleted", type, from_memory: removed, from_archive: hidden };
    // what was found is gone; what could not be read is said, as recall says it
    if (part) Object.assign(reply, { partial: true, archive_unreadable: part, hint: "an archived copy may still be there: try the same delete again later" });
    return out(reply);
  }

  // The ids of the archived records (found by keyword, at most FORGET_AT_ONCE:
  // a next delete finds the rest) that a delete of `q` names. A digest of many
  // moments is not one of them.
  private archivedMatches(found: Item[], type: "fact" | "moment" | "event", q: string): string[] {
    const items = found.filter((x) => x.digest !== true);
    if (type === "fact") return items.filter((x) => x.content === q).map((x) => x.id);
    if (type === "moment") return items.filter((x) => x.content === q || x.topic === q).map((x) => x.id);
    // an event: those of exactly this content (if any here or in NVS), else those
    // containing it, which must all be one thing (one content) with NVS's
    const exact = items.filter((x) => x.content === q);
    const plain = this.memory.events().filter((e) => !e.schedule || !e.time);
    if (exact.length || plain.some((e) => e.content === q)) return exact.map((x) => x.id);
    const part = items.filter((x) => x.content.indexOf(q) >= 0);
    const names: string[] = [];
    for (const x of part) if (names.indexOf(x.content) < 0) names.push(x.content);
    for (const e of plain) if (e.content.indexOf(q) >= 0 && names.indexOf(e.content) < 0) names.push(e.content);
    if (names.length > 1) throw new MemoryError("ambiguous", `'${q}' matches ${names.length} events: ${names.slice(0, 5).map((n) => `'${n}'`).join(", ")}. Say which one`);
    return part.map((x) => x.id);
  }

  // The fork erases everything at once; here it takes force=true, and without
  // it says what would go.
  private deleteAll(a: Record<string, unknown>): string {
    if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
    if (a.force !== true)
      return out({ result: "needs_force", type: "all", would_delete: whatAllIs(this.memory), keeps: "relationship, coins, the archive (older facts, moments, events: delete them by content)", hint: "erases all memory of the user: ask the user, then call again with force=true" });
    const counts = eraseAll(this.memory);
    return out({ result: "deleted", type: "all", deleted: counts });
  }

  private complete(a: Record<string, unknown>): string {
    let o: ReturnType<Schedules["complete"]>;
    try {
      o = this.schedules.complete(a.content);
    } catch (e) {
      // not a schedule: perhaps a plain event (no time of day)
      if (!(e instanceof MemoryError) || e.code !== "not_found") throw e;
      const ev = completeEvent(this.memory, a.content);
      if (!ev) throw e;
      return out({ result: "completed", event: ev });
    }
    const reply: Record<string, unknown> = { result: "completed", schedule: o.completed };
    if (o.next) reply.next = o.next;
    return out(reply);
  }

  // ---- read ------------------------------------------------------------------------------

  private read(): string {
    const m = this.memory;
    const p = m.profile();
    const profile: Record<string, unknown> = {};
    if (p.name) profile.name = p.name;
    if (p.age) profile.age = p.age;
    if (p.gender) profile.gender = p.gender;
    if (p.location) profile.location = p.location;
    if (p.birthday) profile.birthday = p.birthday;
    const rel = m.relationship();
    // the next schedules (from an hour ago, just begun, on) by priority then time, as the fork
    const upcoming: ScheduleView[] = byPriority(this.schedules, UPCOMING_IN_READ);
    const doc: Record<string, unknown> = {
      profile,
      preferences: m.preferences(),
      family: m.family().map((f) => (f.sharedMemory ? { relation: f.relation, name: f.name, closeness: f.closeness, memory: f.sharedMemory } : { relation: f.relation, name: f.name, closeness: f.closeness })),
      facts: m.facts().sort((x, y) => y.timestamp - x.timestamp).map((f) => f.content),
      traits: m.traits().map((t) => (t.category && t.category !== "other" ? `${t.category}: ${t.content}` : t.content)),
      habits: m.habits().map((h) => `${h.content} (${h.frequency})`),
      moments: m.moments().sort((x, y) => y.timestamp - x.timestamp).map((x) => ({ topic: x.topic, content: x.content, emotion: x.emotion, importance: x.importance })),
      goals: m.goals().filter((g) => g.status === "active").map((g) => ({ content: g.content, progress: g.progress, priority: g.priority })),
      schedules: upcoming.map((s) => ({ content: s.content, datetime: s.datetime, reminded: s.reminded ? 1 : 0, priority: s.priority, repeat: s.repeat })),
      events: plainEvents(m), // no time: yearly (MM-DD), dated from today on, reminders without a date (todo)
      total_coins_spent: rel.total_coins_spent,
      relationship: relationView(m, true), // stage, style, affection, mood, streak; new achievements once (src/relation)
      pending: this.pending.list(), // heard, not yet confirmed: not memory
    };
    // damage lost memories since the last read said so: one sentence, once
    const loss = m.untoldLoss();
    if (loss)
      doc.notice = loss.stores.length
        ? `Some memories (${loss.stores.join(", ")}) were damaged on this device's flash and are lost; please tell the owner.`
        : "Some memories were damaged on this device's flash and are lost; please tell the owner.";
    // keep within budget: the oldest facts and moments go first, then traits and habits
    let text = out(doc);
    const trim: string[] = ["pending", "facts", "moments", "habits", "traits", "events"];
    for (const k of trim) {
      const list = doc[k] as unknown[];
      while (byteLength(text) > READ_BUDGET_BYTES && list.length) {
        list.pop();
        doc.truncated = true;
        text = out(doc);
      }
    }
    return text;
  }

  // ---- status ----------------------------------------------------------------------------

  private status(): string {
    const m = this.memory;
    const u = m.usage();
    let entries = DOMAINS.length; // one namespace entry each
    const records: Record<string, number> = {};
    for (const name of Object.keys(u.records) as StoreName[]) {
      for (const b of u.blobBytes[name]) entries += blobEntries(b) * u.copies[name];
      if (name !== "health") records[name] = u.records[name];
    }
    const used = entries * NVS_ENTRY_BYTES;
    const h = m.healthRecord();
    const b = m.bootReport;
    const doc: Record<string, unknown> = {
      // second_copies: "given back" while NVS (shared with the firmware) is short of room
      nvs: { used_bytes: used, usable_bytes: NVS_USABLE_BYTES, percent: pct(used, NVS_USABLE_BYTES), second_copies: m.room.single ? "given back" : "kept", ...(m.roomNote ? { note: m.roomNote } : {}) },
      archive: "not available",
      records,
      boots: h.boots,
      last_repair: h.lastProblem === "none" ? "none" : { store: h.lastStore, problem: h.lastProblem, at: formatDateTime((h.lastSeen as number) * 1000) },
      this_boot: b ? { repaired: b.repaired, set_aside: b.setAside.map((e) => `${e.key} (${e.problem})`), lost: b.lost } : "not booted",
      write_errors: m.health.writeErrors,
      preset: presetView(presetOf(m)), // src/config/presets.ts
    };
    if (m.health.lastWriteError) doc.last_write_error = m.health.lastWriteError;
    const a = this.archive;
    if (a) {
      const rec: Record<string, number> = {};
      for (const t of RECALL_TYPES) rec[t] = a.count(t);
      const bytes = a.footprint ? a.footprint() : undefined;
      doc.archive = bytes !== undefined && a.budget ? { used_bytes: bytes, budget_bytes: a.budget, percent: pct(bytes, a.budget), records: rec } : { records: rec };
    }
    // the episode files (src/episode): counts from one header scan at most
    const eps = this.episodes;
    if (!eps) doc.episodes = "not available";
    else
      try {
        const c = eps.counts();
        doc.episodes = { active: c.active, core: c.core, trash: c.trash, tombstones: c.tombs, cap: eps.cap, used_bytes: eps.store.footprint() };
      } catch (e) {
        if (!archiveFailed(e)) throw e;
        doc.episodes = `cannot be read now (${(e as Error).message})`;
      }
    return out(doc);
  }

  // ---- recall and search -----------------------------------------------------------------------

  // Recall sees all memory: the NVS records of the type that match, as the
  // archive shows its own, and the archive's; newest first, one per id (a
  // record a cut left in both is shown once, as archived), cut to `limit`.
  // Same rules as the archive: a keyword (content or topic, folded), else a
  // range of local dates (inclusive), else the latest. An archive that cannot
  // be read now leaves the NVS records standing, marked partial.
  private recall(a: Record<string, unknown>): string {
    const type = oneOf<RecallType>(a.type, "type", RECALL_TYPES);
    const keyword = a.keyword === undefined ? undefined : text(a.keyword, "keyword", 64);
    const message = a.message === undefined ? undefined : text(a.message, "message", 4000, false, true);
    const start = date(a.start_date, "start_date");
    const end = date(a.end_date, "end_date");
    if (start && end && start > end) throw new ToolError("start_date is after end_date");
    const limit = int(a.limit, "limit", 1, 50, 10);
    // one flash read budget for the call: the archive's list, then the ranked hits
    const budget: Budget = { left: FLASH_BUDGET, cut: false };
    const q: RecallQuery = { keyword, start, end, limit, budget };
    const hot = nvsItems(this.memory, type, q);
    let archived: object[] = [];
    let unreadable: string | undefined;
    if (!this.archive) unreadable = "the archive is not available";
    else
      try {
        archived = this.archive.recall(type, q);
        unreadable = partOf(this.archive);
      } catch (e) {
        if (!archiveFailed(e)) throw e;
        unreadable = (e as Error).message;
      }
    const items = newestFirst(hot, archived as Item[], limit);
    const reply: Record<string, unknown> = { type };
    // with words: the one retrieval's ranked hits of that type's kinds too
    // (not when the archive's part failed: its reason stands as the answer's)
    const words = message ?? keyword;
    if (words !== undefined && words.trim() !== "" && !unreadable) {
      const found = retrieve(sourcesOf(this), words, { limit: Math.min(limit, SEARCH_HITS), nowMs: now(), kinds: RECALL_KINDS[type], budget: Math.max(0, budget.left) });
      this.episodes?.used(found.episodes);
      if (found.hits.length) reply.hits = found.hits.map(view);
      if (found.budget.cut) budget.cut = true;
    }
    reply.count = items.length;
    reply.items = items;
    if (unreadable) return out({ ...reply, partial: true, archive_unreadable: unreadable });
    if (budget.cut) return out({ ...reply, partial: true, archive_cut: BUDGET_SPENT });
    return out(reply);
  }

  // recall without a type: the one retrieval over every kind (keyword or message).
  private recallAny(a: Record<string, unknown>): string {
    for (const k of Object.keys(a)) if (["action", "type", "keyword", "message", "limit"].indexOf(k) < 0) throw new ToolError(`recall without type takes keyword or message and limit, not '${quote(k, 32)}'; with start_date/end_date give type fact, moment or event`);
    const words = a.message ?? a.keyword;
    if (words === undefined || words === "") throw new ToolError("recall needs keyword or message (the user's words), or type fact, moment, event, episode or snapshot");
    const w = text(words, a.message !== undefined ? "message" : "keyword", 4000, false, true);
    const limit = int(a.limit, "limit", 1, 50, 5);
    const found = retrieve(sourcesOf(this), w, { limit: Math.min(limit, SEARCH_HITS), nowMs: now() });
    this.episodes?.used(found.episodes);
    const reply: Record<string, unknown> = { count: found.hits.length, hits: found.hits.map(view) };
    if (found.unreadable) reply.partial = found.unreadable;
    else if (found.budget.cut) {
      reply.partial = true;
      reply.archive_cut = BUDGET_SPENT;
    }
    return out(reply);
  }

  // search: the one retrieval's ranked hits (src/recall: every kind, synonyms,
  // names, time phrases; nothing when nothing is relevant) as `hits`, then, as
  // before, every record that holds the words as they are (`items`, and the
  // archive's `archived`).
  private search(a: Record<string, unknown>): string {
    const keyword = text(a.keyword ?? a.content, "keyword", 64);
    const limit = int(a.limit, "limit", 1, 50, 10);
    // one flash read budget for the call: the records that hold the words as
    // they are first (what was asked), then the ranked hits with what is left
    const budget: Budget = { left: FLASH_BUDGET, cut: false };
    const k = keyword.toLowerCase();
    const has = (s: string) => s.toLowerCase().indexOf(k) >= 0;
    const m = this.memory;
    const items: { where: string; text: string }[] = [];
    // ids of the facts, moments and events listed here: the archive's part does not repeat them
    const listed: Record<RecallType, string[]> = { fact: [], moment: [], event: [] };
    const p = m.profile();
    for (const f of PROFILE_FIELDS) if (p[f] !== "" && p[f] !== 0 && has(String(p[f]))) items.push({ where: "profile", text: `${f}: ${p[f]}` });
    const prefs = m.preferences();
    for (const l of prefs.likes) if (has(l)) items.push({ where: "like", text: l });
    for (const l of prefs.dislikes) if (has(l)) items.push({ where: "dislike", text: l });
    for (const f of m.family()) if (has(f.name) || has(f.relation) || has(f.sharedMemory)) items.push({ where: "family", text: `${f.relation} ${f.name}`.trim() });
    for (const f of m.facts())
      if (has(f.content)) {
        items.push({ where: "fact", text: f.content });
        listed.fact.push(recordId("fact", f));
      }
    for (const t of m.traits()) if (has(t.content)) items.push({ where: "trait", text: t.content });
    for (const h of m.habits()) if (has(h.content)) items.push({ where: "habit", text: h.content });
    for (const x of m.moments())
      if (has(x.content) || has(x.topic)) {
        items.push({ where: "moment", text: `${x.topic}: ${x.content}` });
        listed.moment.push(recordId("moment", x));
      }
    for (const g of m.goals()) if (has(g.content)) items.push({ where: "goal", text: g.content });
    for (const s of this.schedules.list({ completed: true })) if (has(s.content)) items.push({ where: "schedule", text: `${s.content} at ${s.datetime}` });
    for (const e of m.events()) {
      if (!has(e.content)) continue;
      if (!e.schedule && !e.time) items.push({ where: "event", text: e.eventType === "todo" ? e.content : `${e.content} on ${e.date}` });
      listed.event.push(recordId("event", e)); // a schedule is listed above
    }
    const archived: Record<string, object[]> = {};
    // an archive file that cannot be read now leaves the rest of the answer
    // standing, marked partial (src/archive: the file is set aside, not lost)
    let unreadable: Record<string, string> | undefined;
    if (this.archive)
      for (const t of RECALL_TYPES) {
        try {
          const ids = listed[t];
          // asks for as many more as NVS may hide, so that `limit` new ones can remain
          const items = (this.archive.recall(t, { keyword, limit: limit + ids.length, budget }) as Item[]).filter((x) => ids.indexOf(x.id) < 0);
          if (items.length) archived[t] = items.slice(0, limit);
          const part = partOf(this.archive);
          if (part) (unreadable ??= {})[t] = part;
        } catch (e) {
          if (!archiveFailed(e)) throw e;
          (unreadable ??= {})[t] = (e as Error).message;
        }
      }
    const found = retrieve(sourcesOf(this), keyword, { limit: Math.min(limit, SEARCH_HITS), nowMs: now(), budget: Math.max(0, budget.left) });
    this.episodes?.used(found.episodes);
    const hits = found.hits.map(view);
    if (unreadable) return out({ keyword, hits, count: items.length, items: items.slice(0, limit), archived, partial: true, archive_unreadable: unreadable });
    if (budget.cut || found.budget.cut) return out({ keyword, hits, count: items.length, items: items.slice(0, limit), archived, partial: true, archive_cut: BUDGET_SPENT });
    return out({ keyword, hits, count: items.length, items: items.slice(0, limit), archived });
  }
}

// ---- recall over NVS and the archive together ---------------------------------------------

// A record as recall shows it: an archived item's fields (ArchivedItem,
// src/archive/line.ts).
interface Item {
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
function archiveFailed(e: unknown): boolean {
  return e instanceof Error && e.name !== "PowerCut";
}

// Why the archive's last answer is partial (segments it could not open), or undefined.
function partOf(a: ArchiveAccess): string | undefined {
  const u = a.lastRecall?.unreadable;
  return u && u.length ? `archive: cannot open ${u.join(", ")} now` : undefined;
}

// An NVS record in the shape of an archived one: the same fields, keys, order
// and id as the archive gives its items (src/archive/codec.ts parseRecord;
// recordId, the local ISO time; test/scenarios/recall-all.scn.ts compares them).
function itemOf(type: RecallType, r: Fact | Moment | Event): Item {
  const id = recordId(type, r);
  if (type === "fact") return { timestamp: formatIso((r as Fact).timestamp * 1000), type, id, content: r.content } as Item;
  if (type === "moment") {
    const m = r as Moment;
    return {
      timestamp: formatIso(m.timestamp * 1000),
      type,
      id,
      content: m.content,
      topic: m.topic,
      emotion_type: Math.max(0, EMOTIONS.indexOf(m.emotion)),
      emotion_intensity: m.intensity,
      importance: m.importance,
    } as Item;
  }
  const e = r as Event;
  return {
    timestamp: eventIso(e),
    type,
    id,
    date: e.date,
    time: e.time,
    event_type: e.eventType,
    content: e.content,
    emotion_type: Math.max(0, EMOTIONS.indexOf(e.emotion)),
    emotion_intensity: e.intensity,
    significance: e.significance,
    priority: e.priority,
    flags: (e.schedule ? 1 : 0) | (e.completed ? 2 : 0) | (Math.max(0, REPEATS.indexOf(e.repeat)) << 2),
  } as Item;
}

// The NVS records of a type that match a recall query, newest first (a later
// one of the same second first: NVS keeps them in the order they came).
export function nvsItems(m: Memory, type: RecallType, q: RecallQuery): Item[] {
  const recs: (Fact | Moment | Event)[] = type === "fact" ? m.facts() : type === "moment" ? m.moments() : m.events();
  const folded = q.keyword !== undefined && q.keyword.trim() !== "" ? foldString(q.keyword.trim()) : undefined;
  const lo = !folded && q.start ? q.start + "T00:00:00" : "";
  const hi = !folded && q.end ? q.end + "T23:59:59" : "~";
  const found: { item: Item; at: number }[] = [];
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (folded && !containsFolded(r.content, folded) && !(type === "moment" && containsFolded((r as Moment).topic, folded))) continue;
    const item = itemOf(type, r);
    if (item.timestamp < lo || item.timestamp > hi) continue;
    found.push({ item, at: i });
  }
  found.sort((x, y) => (x.item.timestamp < y.item.timestamp ? 1 : x.item.timestamp > y.item.timestamp ? -1 : y.at - x.at));
  return found.map((x) => x.item);
}

// Two lists, each newest first, as one: newest first, one item per id (a
// record in both is shown as archived), at most `limit`. On the same second,
// NVS first (the archive holds the older records).
function newestFirst(hot: Item[], given: Item[], limit: number): Item[] {
  // the archive's latest are the last archived: put in time order (on the
  // same second, as the archive gave them)
  const archived = given
    .map((it, at) => ({ it, at }))
    .sort((x, y) => (x.it.timestamp < y.it.timestamp ? 1 : x.it.timestamp > y.it.timestamp ? -1 : x.at - y.at))
    .map((x) => x.it);
  const inArchive = archived.map((x) => x.id);
  const h = hot.filter((x) => inArchive.indexOf(x.id) < 0);
  const out: Item[] = [];
  const seen: string[] = [];
  let i = 0, j = 0;
  while (out.length < limit && (i < h.length || j < archived.length)) {
    const x = j >= archived.length || (i < h.length && h[i].timestamp >= archived[j].timestamp) ? h[i++] : Object.assign({}, archived[j++], { archived: true as const });
    if (seen.indexOf(x.id) >= 0) continue;
    seen.push(x.id);
    out.push(x);
  }
  return out;
}

// Events without a time (issue 15): what the listener stored as a birthday or
// anniversary (MM-DD, every year), a dated plan or reminder, or a reminder
// with no date (todo). Past dated ones are left to the archive.
function plainEvents(m: Memory): { date: string; content: string; type: string }[] {
  const today = formatDate(now());
  const next = (d: string) => (d.length === 5 ? (d >= today.slice(5) ? today.slice(0, 4) : String(Number(today.slice(0, 4)) + 1)) + "-" + d : d);
  return m
    .events()
    .filter((e) => !e.schedule && !e.time && !e.completed && (e.date.length === 5 || e.eventType === "todo" || e.date >= today))
    .sort((a, b) => (next(a.date) < next(b.date) ? -1 : next(a.date) > next(b.date) ? 1 : 0))
    .map((e) => ({ date: e.date, content: e.content, type: e.eventType }));
}

function pct(n: number, of: number): number {
  return Math.round((n / of) * 1000) / 10;
}

function familyArgs(a: Record<string, unknown>) {
  let relation = a.relation, name = a.name, memory = a.memory;
  // the fork's compact form: content "relation:name[:memory]"
  if (relation === undefined && name === undefined && typeof a.content === "string") {
    const parts = a.content.split(/[:：]/);
    relation = parts[0];
    name = parts[1];
    if (parts.length > 2 && memory === undefined) memory = parts.slice(2).join(":");
  }
  return { relation, name, closeness: a.closeness, sharedMemory: memory, memberType: a.member_type };
}

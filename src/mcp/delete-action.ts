// action=delete (every type but episode, which src/mcp/episode-actions.ts
// takes): a profile field, a like, a family member…; a fact, moment or event
// from NVS and from the archive at once; type=all with force=true.

import { MemoryError, text, oneOf, PROFILE_FIELDS, type ProfileField, type Result } from "../memory/memory";
import { ToolError } from "../text/reply";
import { deleteEvent, eraseAll, whatAllIs } from "./fork";
import { out, RESULT, TYPES, archiveFailed, partOf, type Args, type Item, type ToolState, type Type } from "./tool-state";

export const FORGET_AT_ONCE = 50; // archived records one delete hides at most

export function deleteAction(tool: ToolState, a: Args): string {
  if (a.type === "all") return tool.changing(() => deleteAll(tool, a));
  const type = oneOf<Type>(a.type, "type", TYPES);
  if (type === "fact" || type === "moment" || type === "event") return forget(tool, type, a.content);
  return tool.changing(() => {
    const memory = tool.memory;
    let r: Result;
    if ((PROFILE_FIELDS as readonly string[]).includes(type)) r = memory.clearProfile(type as ProfileField, a.content);
    else
      switch (type) {
        case "like":
        case "dislike":
          r = memory.removePreference(type, a.content);
          break;
        case "family":
          r = memory.removeFamily(a.content ?? a.name ?? a.relation);
          break;
        case "trait":
          r = memory.removeTrait(a.content);
          break;
        case "habit":
          r = memory.removeHabit(a.content);
          break;
        case "goal":
          r = memory.removeGoal(a.content);
          break;
        default:
          r = tool.schedules.remove(a.content);
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
function forget(tool: ToolState, type: "fact" | "moment" | "event", content: unknown): string {
  const q = type === "event" ? text(content, "content", 64) : text(content, type, 128);
  const arc = tool.archive;
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
    ids = archivedMatches(tool, items, type, q);
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
    tool.changing(() => {
      const memory = tool.memory;
      if (type === "event") removed = deleteEvent(memory, q) ? 1 : 0;
      else {
        const before = memory.stores[type === "fact" ? "facts" : "moments"].count;
        if (type === "fact") memory.removeFact(q);
        else memory.removeMoment(q);
        removed = before - memory.stores[type === "fact" ? "facts" : "moments"].count;
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
function archivedMatches(tool: ToolState, found: Item[], type: "fact" | "moment" | "event", q: string): string[] {
  const items = found.filter((x) => x.digest !== true);
  if (type === "fact") return items.filter((x) => x.content === q).map((x) => x.id);
  if (type === "moment") return items.filter((x) => x.content === q || x.topic === q).map((x) => x.id);
  // an event: those of exactly this content (if any here or in NVS), else those
  // containing it, which must all be one thing (one content) with NVS's
  const exact = items.filter((x) => x.content === q);
  const plain = tool.memory.events().filter((e) => !e.schedule || !e.time);
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
function deleteAll(tool: ToolState, a: Args): string {
  if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
  if (a.force !== true)
    return out({ result: "needs_force", type: "all", would_delete: whatAllIs(tool.memory), keeps: "relationship, coins, the archive (older facts, moments, events: delete them by content)", hint: "erases all memory of the user: ask the user, then call again with force=true" });
  const counts = eraseAll(tool.memory);
  return out({ result: "deleted", type: "all", deleted: counts });
}

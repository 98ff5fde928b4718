// The tool's episode actions (src/mcp/memory-tool.ts routes them here):
//   write type=episode    content, e, i, p, j, keywords, emotion → added | updated | no_change
//   recall type=episode   message or keyword, limit → the most similar, each with its age
//   delete type=episode   content or id → to the trash (tombstone user_delete)
//   read type=episode     active episodes, most important first, within READ_BUDGET_BYTES
//   context               message, budget → the prompt block (src/recall/context.ts)
// Every argument is checked before anything changes; a store that fails
// changes nothing and the reply says so.

import { ToolError } from "../text/reply";
import { READ_BUDGET_BYTES, type ToolState } from "./tool-state";
import { int, text } from "../memory/memory";
import { episodeView, type Episodes } from "../episode/episodes";
import { buildContext, CONTEXT_BUDGET, CONTEXT_MAX, CONTEXT_MIN } from "../recall/context";
import { byteLength } from "../text/utf8";
import { now } from "../time/clock";
import { retrieve, BUDGET_SPENT, type ArchiveLookup, type Hit, type Sources } from "../recall/retrieve";

// What the retrieval looks through: the tool's memory, schedules, episodes and archive.
export function sourcesOf(tool: ToolState): Sources {
  return { memory: tool.memory, schedules: tool.schedules, episodes: tool.episodes, archive: tool.archive as ArchiveLookup | undefined };
}

// A hit as a reply shows it: its kind, text and age (no score).
export function view(h: Hit): Record<string, unknown> {
  const v: Record<string, unknown> = { kind: h.kind, text: h.text, age: h.age };
  if (h.date) v.date = h.date;
  if (h.archived) v.archived = true;
  if (h.summary) v.summary = true;
  if (h.id !== undefined) v.id = h.id;
  return v;
}

export const RECALL_MAX = 8;
const RESULT: Record<string, string> = { ADDED: "added", UPDATED: "updated", NOOP: "no_change" };
const ACCEPTED: Record<string, string[]> = {
  write: ["action", "type", "content", "e", "i", "p", "j", "keywords", "emotion"],
  recall: ["action", "type", "message", "keyword", "limit"],
  delete: ["action", "type", "content", "id"],
  read: ["action", "type", "limit"],
  context: ["action", "message", "budget"],
};

function out(v: unknown): string {
  return JSON.stringify(v);
}

function need(tool: ToolState): Episodes {
  const eps = tool.episodes;
  if (!eps) throw new ToolError("episodes are not available on this device now (its storage partition cannot be used); write type=moment keeps what happened instead");
  return eps;
}

// An error of the episode files (EpisodeError "full" | "io" | "bad", or any
// other failure of the storage partition) becomes a reply that says nothing changed.
function saved<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof Error) || e.name === "PowerCut" || e.name === "MemoryError" || e.name === "ToolError") throw e;
    throw new ToolError(`not saved: the episode files failed (${e.message}); nothing changed, try again later`);
  }
}

// The action is the call's own (args.action, checked by the table): the
// table calls this directly, with no frame between (the XS stack's peak is
// in these calls: `npm run heap`, phase "episodes").
export function episodeAction(tool: ToolState, args: Record<string, unknown>): string {
  const action = args.action as "write" | "recall" | "delete" | "read" | "context";
  for (const k of Object.keys(args))
    if (ACCEPTED[action].indexOf(k) < 0) throw new ToolError(`${action}${action === "context" ? "" : " type=episode"} does not take '${k}'; it takes ${ACCEPTED[action].slice(action === "context" ? 1 : 2).join(", ")}`);
  if (action === "context") return context(tool, args);
  const eps = need(tool);
  switch (action) {
    case "write": {
      const r = saved(() => eps.add(args, "ai"));
      const reply: Record<string, unknown> = { result: RESULT[r.action], type: "episode", episode: episodeView(r.episode, now()) };
      if (r.patched) reply.patched = "a core memory said otherwise: it now says the newest, with the old kept as a dated note";
      if (r.replaced) reply.replaced = true;
      if (r.evicted.length) reply.to_trash = r.evicted;
      return out(reply);
    }
    case "recall": {
      const q = args.message ?? args.keyword;
      if (q === undefined || q === null || q === "") throw new ToolError("recall type=episode needs message (the user's words now) or keyword");
      const m = text(q, args.message !== undefined ? "message" : "keyword", 4000, false, true);
      const limit = int(args.limit, "limit", 1, RECALL_MAX, eps.recallSize);
      // the one retrieval (src/recall), over episodes and the monthly digests of forgotten ones
      const t = now();
      const r = saved(() => retrieve(sourcesOf(tool), m, { limit, nowMs: t, kinds: ["episode", "digest"] }));
      eps.used(r.episodes);
      const items = r.hits.map((h) => {
        const ep = h.id !== undefined ? r.episodes.find((e) => e.id === h.id) : undefined;
        return ep ? { ...episodeView({ ...ep, useCount: Math.min(0xffff, ep.useCount + 1) }, t), kind: "episode", score: h.score } : { kind: h.kind, content: h.text, age: h.age, date: h.date, summary: true, score: h.score };
      });
      const reply: Record<string, unknown> = { type: "episode", count: items.length, items };
      if (r.unreadable) reply.partial = r.unreadable;
      else if (r.budget.cut) {
        reply.partial = true;
        reply.archive_cut = BUDGET_SPENT;
      }
      return out(reply);
    }
    case "delete": {
      if ((args.content === undefined || args.content === "") && (args.id === undefined || args.id === "")) throw new ToolError("delete type=episode needs content (its words) or id (as recall or read shows it)");
      const gone = saved(() => eps.remove({ id: args.id, content: args.content }));
      if (!gone) return out({ result: "not_found", type: "episode", hint: "read type=episode or recall type=episode shows the episodes and their ids" });
      return out({ result: "deleted", type: "episode", id: gone.id, content: gone.content, trash_days: 7 });
    }
    default: {
      const limit = int(args.limit, "limit", 1, 50, 20);
      const { episodes, total } = saved(() => eps.list(limit));
      const t = now();
      const items: Record<string, unknown>[] = [];
      const doc: Record<string, unknown> = { type: "episode", total, count: 0, items };
      let size = byteLength(out(doc));
      for (const ep of episodes) {
        const v = episodeView(ep, t);
        const n = byteLength(out(v)) + 1;
        if (size + n > READ_BUDGET_BYTES) {
          doc.truncated = true;
          break;
        }
        items.push(v);
        size += n;
      }
      doc.count = items.length;
      return out(doc);
    }
  }
}

function context(tool: ToolState, args: Record<string, unknown>): string {
  const message = args.message === undefined || args.message === null ? "" : text(args.message, "message", 4000, true, true);
  const budget = int(args.budget, "budget", CONTEXT_MIN, CONTEXT_MAX, CONTEXT_BUDGET);
  const c = buildContext(tool.memory, tool.episodes, message, budget, now(), { schedules: tool.schedules, archive: tool.archive as ArchiveLookup | undefined });
  const reply: Record<string, unknown> = { context: c.text, bytes: c.bytes, budget, episodes: c.episodes.map((e) => e.id), hits: c.hits.map(view) };
  if (c.cut) reply.cut = true;
  if (c.partial) {
    reply.partial = true;
    reply.archive_cut = BUDGET_SPENT;
  }
  if (!tool.episodes) reply.episodes_unavailable = "episodes are not kept on this device now";
  else if (c.unreadable) reply.episodes_unreadable = c.unreadable;
  return out(reply);
}

// action=pending, confirm and drop: what the device heard and has not stored
// yet (src/listen/pending.ts), listed, stored or let go.

import { text, oneOf } from "../memory/memory";
import { ToolError } from "../text/reply";
import { out, TYPES, type Args, type ToolState } from "./tool-state";

export function pendingAction(tool: ToolState): string {
  return out({ count: tool.pending.list().length, items: tool.pending.list() });
}

export function confirmAction(tool: ToolState, a: Args): string {
  return tool.changing(() => {
    if (a.force !== undefined && typeof a.force !== "boolean") throw new ToolError("force must be true or false");
    const { type, content } = pendingArgs(a);
    const f = tool.pending.confirm(type, content, a.force === true);
    if (f.result === "conflict") return out({ result: "conflict", pending: f, hint: "ask the user, then confirm again with force=true, or drop it" });
    return out({ result: "confirmed", memory: f });
  });
}

export function dropAction(tool: ToolState, a: Args): string {
  return tool.changing(() => {
    const { type, content } = pendingArgs(a);
    return out({ result: "dropped", pending: tool.pending.drop(type, content) });
  });
}

function pendingArgs(a: Args): { type: string | undefined; content: string } {
  const content = text(a.content, "content", 64);
  const type = a.type === undefined ? undefined : oneOf(a.type, "type", [...TYPES, "event"]);
  return { type, content };
}

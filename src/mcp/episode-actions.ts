// Stub (helper epmind): the tool's episode actions.
import { ToolError } from "./server";
import type { MemoryTool } from "./memory-tool";

export function episodeAction(_tool: MemoryTool, action: "write" | "recall" | "delete" | "read" | "context", _args: Record<string, unknown>): string {
  throw new ToolError(`${action} of episodes is not available yet`);
}

// Stub (helper evolve): action=summary and action=config.
import { ToolError } from "./server";
import type { MemoryTool } from "./memory-tool";

export function relationAction(_tool: MemoryTool, action: "summary" | "config", _args: Record<string, unknown>): string {
  throw new ToolError(`${action} is not available yet`);
}

// Stub (helper query): action=query and recall of snapshots.
import { ToolError } from "./server";
import type { MemoryTool } from "./memory-tool";

export function queryAction(_tool: MemoryTool, _args: Record<string, unknown>): string {
  throw new ToolError("query is not available yet");
}

export function snapshotRecall(_tool: MemoryTool, _args: Record<string, unknown>): string {
  throw new ToolError("recall of snapshots is not available yet");
}

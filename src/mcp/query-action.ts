// action=query and recall of snapshots (issue 16 items 7 and 8): the MCP
// side of src/query. docs/DESIGN.md "The query language" and "Snapshots".
import { ToolError } from "../text/reply";
import type { ToolState } from "./tool-state";
import { parseQuery } from "../query/parse";
import { runQuery } from "../query/run";
import { snapshots } from "../query/snapshot";

export function queryAction(tool: ToolState, args: Record<string, unknown>): string {
  const q = parseQuery(args);
  return JSON.stringify(runQuery(q, { memory: tool.memory, archive: tool.archive, episodes: tool.episodes }));
}

export function snapshotRecall(tool: ToolState, args: Record<string, unknown>): string {
  const k = args.keyword !== undefined && args.keyword !== "" ? args.keyword : args.message;
  if (k === undefined || k === null || k === "") throw new ToolError("recall type=snapshot needs keyword (or message): what to look for");
  if (typeof k !== "string") throw new ToolError("keyword must be a string");
  return JSON.stringify(snapshots(k, args.limit, { memory: tool.memory, archive: tool.archive, episodes: tool.episodes }, args.keyword === undefined || args.keyword === ""));
}

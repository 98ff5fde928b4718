// The memory tool called as an MCP client calls it (tools/call through the
// service's server): the reply's text, whether it is an error, its JSON.
import type { Service } from "../../src/app/service";

export interface ToolReply {
  isError: boolean;
  text: string;
  json: any;
}

export function toolCaller(svc: Service): (args: Record<string, unknown>) => ToolReply {
  let id = 0;
  return (args) => {
    const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!);
    const text: string = r.result.content[0].text;
    return { isError: r.result.isError as boolean, text, json: r.result.isError ? undefined : JSON.parse(text) };
  };
}

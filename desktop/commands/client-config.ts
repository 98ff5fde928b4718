// `petmem client-config`: the block a desktop MCP client needs, with this
// machine's absolute paths, ready to paste. A client starts servers with a
// bare environment (often no `node` on PATH) and no working folder, so the
// block names node itself, the bin script and the data folder, all absolute.

import path from "node:path";
import { fileURLToPath } from "node:url";
import { DATA, UsageError, type Command } from "../command.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const BIN_SCRIPT = path.resolve(here, "..", "petmem.mjs");

// Where each client keeps its configuration, and the shape it reads.
export const CLIENTS: Record<string, { where: string; key: "mcpServers" | "servers"; stdioType?: boolean }> = {
  claude: { where: "Claude Desktop: claude_desktop_config.json (Settings → Developer → Edit Config)", key: "mcpServers" },
  cursor: { where: "Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in a project)", key: "mcpServers" },
  windsurf: { where: "Windsurf: ~/.codeium/windsurf/mcp_config.json", key: "mcpServers" },
  vscode: { where: "VS Code: .vscode/mcp.json in the workspace", key: "servers", stdioType: true },
};

export function clientConfig(client: string, data: string, node = process.execPath): object {
  const c = CLIENTS[client];
  if (!c) throw new UsageError(`--client: expected one of ${Object.keys(CLIENTS).join(", ")}, got ${JSON.stringify(client)}`);
  const server: Record<string, unknown> = c.stdioType ? { type: "stdio" } : {};
  server.command = node;
  server.args = [BIN_SCRIPT, "--data", path.resolve(data)];
  return { [c.key]: { petmem: server } };
}

export const clientConfigCmd: Command = {
  name: "client-config",
  summary: "print the block an MCP client (Claude Desktop, Cursor, VS Code…) needs, with this machine's paths",
  usage: "client-config [--client claude|cursor|windsurf|vscode] [--data DIR]",
  options: [{ name: "--client", value: "NAME", help: `the client: ${Object.keys(CLIENTS).join(", ")}`, default: "claude" }, DATA],
  details: Object.values(CLIENTS)
    .map((c) => `  ${c.where}`)
    .join("\n"),
  run(ctx) {
    const client = typeof ctx.opts.client === "string" ? ctx.opts.client : "claude";
    const block = clientConfig(client, (ctx.opts.data as string) ?? ".petmem");
    ctx.out(JSON.stringify(block, null, 2) + "\n");
    ctx.info(`petmem: paste it into ${CLIENTS[client].where}\n`);
  },
};

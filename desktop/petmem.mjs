#!/usr/bin/env node
// `petmem` (package.json bin): runs the TypeScript program through tsx from
// wherever it is called (an MCP client needs no cwd). tsx takes the Moddable
// module names (`preference`, `file`, `timer`...) from the project's
// tsconfig.json `paths`, whatever the working folder.
import { fileURLToPath } from "node:url";

process.env.TSX_TSCONFIG_PATH = fileURLToPath(new URL("../tsconfig.json", import.meta.url));
const { register } = await import("tsx/esm/api");
register();
await import("./main.ts");

// Every command of `petmem`, in the order --help lists them.

import type { Command } from "../command.js";
import { serve } from "./serve.js";
import { dialog } from "./dialog.js";
import { status } from "./status.js";
import { exportCmd } from "./export.js";
import { importCmd } from "./import.js";
import { image } from "./image.js";
import { inspect } from "./inspect.js";
import { reset } from "./reset.js";
import { web } from "./web.js";
import { syncCmd, restoreCmd } from "./sync.js";
import { clientConfigCmd } from "./client-config.js";
import { demo } from "./demo.js";

export const COMMANDS: readonly Command[] = [serve, dialog, status, exportCmd, importCmd, image, inspect, reset, web, syncCmd, restoreCmd, demo, clientConfigCmd];

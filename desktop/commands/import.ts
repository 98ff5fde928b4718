// `petmem import`: not built yet (issue 14).

import { Failure, type Command } from "../command.js";

export const importCmd: Command = {
  name: "import",
  summary: "(not built yet)",
  usage: "import",
  options: [],
  run() {
    throw new Failure("import is not built yet");
  },
};

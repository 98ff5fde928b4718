// `petmem export`: not built yet (issue 14).

import { Failure, type Command } from "../command.js";

export const exportCmd: Command = {
  name: "export",
  summary: "(not built yet)",
  usage: "export",
  options: [],
  run() {
    throw new Failure("export is not built yet");
  },
};

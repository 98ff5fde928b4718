// `petmem inspect`: not built yet (issue 14).

import { Failure, type Command } from "../command.js";

export const inspect: Command = {
  name: "inspect",
  summary: "(not built yet)",
  usage: "inspect",
  options: [],
  run() {
    throw new Failure("inspect is not built yet");
  },
};

// `petmem web`: not built yet (issue 14).

import { Failure, type Command } from "../command.js";

export const web: Command = {
  name: "web",
  summary: "(not built yet)",
  usage: "web",
  options: [],
  run() {
    throw new Failure("web is not built yet");
  },
};

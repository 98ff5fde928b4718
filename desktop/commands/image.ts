// `petmem image`: not built yet (issue 14).

import { Failure, type Command } from "../command.js";

export const image: Command = {
  name: "image",
  summary: "(not built yet)",
  usage: "image",
  options: [],
  run() {
    throw new Failure("image is not built yet");
  },
};

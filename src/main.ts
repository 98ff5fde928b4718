// petmem on the device: the app's entry module.

import { now, isValid } from "./time/clock";

trace(`petmem: boot at ${isValid() ? new Date(now()).toISOString() : "unset clock"}\n`);

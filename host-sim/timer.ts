// The Moddable `timer` module over the simulated device's clock.

import { SimDevice } from "./device.js";
import type { SimTimer } from "./clock.js";

export type TimerID = SimTimer;

function clock() {
  return SimDevice.current.clock;
}

export default class Timer {
  static set(callback: (timer: TimerID) => void, interval?: number, repeat?: number): TimerID {
    if (typeof callback !== "function") throw new TypeError("callback is not a function");
    return clock().set(callback, interval ?? 0, repeat ?? 0);
  }

  static repeat(callback: (timer: TimerID) => void, interval: number): TimerID {
    if (typeof callback !== "function") throw new TypeError("callback is not a function");
    if (interval === undefined) throw new SyntaxError("C: xsArg(1): invalid index");
    return clock().set(callback, interval, interval);
  }

  static schedule(timer: TimerID, interval?: number, repeat?: number): void {
    clock().schedule(timer, interval, repeat ?? 0);
  }

  static clear(timer: TimerID | undefined): void {
    if (timer) clock().clear(timer);
  }

  static delay(ms: number): void {
    clock().delay(ms);
  }
}

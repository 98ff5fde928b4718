// The flash chip under every simulated partition: it counts traffic and can cut
// power at any program operation. One chip, one write counter, like the device:
// "cut at the N-th write" counts writes across NVS and SPIFFS together.

export class PowerCut extends Error {
  constructor(message = "power cut") {
    super(message);
    // defined, not assigned: on the device Error.prototype is frozen and assigning `name` throws
    Object.defineProperty(this, "name", { value: "PowerCut", configurable: true, writable: true });
  }
}

export interface Traffic {
  bytesRead: number;
  readCalls: number;
  bytesWritten: number;
  writeCalls: number;
  sectorErases: number;
}

export function emptyTraffic(): Traffic {
  return { bytesRead: 0, readCalls: 0, bytesWritten: 0, writeCalls: 0, sectorErases: 0 };
}

// How much of a torn write reaches flash: given the write's length, the bytes that persist.
export type Tear = (length: number) => number;
export const tearHalf: Tear = (n) => n >> 1;
export const tearNone: Tear = () => 0;

export class Flash {
  readonly traffic = new Map<string, Traffic>();
  writes = 0; // program operations since power-on of the simulator (not reset by reboot)
  powered = true;
  private cutAt = 0; // 0: no cut armed
  private tear: Tear = tearHalf;
  // host only: told after every program or erase that reached flash (persistence)
  onChange: ((partition: string) => void) | undefined;

  partition(name: string): Traffic {
    let t = this.traffic.get(name);
    if (!t) this.traffic.set(name, (t = emptyTraffic()));
    return t;
  }

  // Arms a power cut at the n-th write from now (1 = the next write).
  cutAfter(n: number, tear: Tear = tearHalf): void {
    if (!(n >= 1)) throw new RangeError("cut needs n >= 1");
    this.cutAt = this.writes + n;
    this.tear = tear;
  }

  disarm(): void {
    this.cutAt = 0;
  }

  get armed(): boolean {
    return this.cutAt !== 0;
  }

  assertPowered(): void {
    if (!this.powered) throw new PowerCut("power is off");
  }

  read(partition: string, bytes: number): void {
    this.assertPowered();
    const t = this.partition(partition);
    t.readCalls++;
    t.bytesRead += bytes;
  }

  // One program operation of `length` bytes. `apply(kept)` makes the first `kept`
  // bytes durable; on the armed write only a torn prefix is applied, the power goes
  // off and PowerCut is thrown, so the caller never sees the write complete.
  program(partition: string, length: number, apply: (kept: number) => void): void {
    this.assertPowered();
    const t = this.partition(partition);
    this.writes++;
    t.writeCalls++;
    if (this.cutAt !== 0 && this.writes >= this.cutAt) {
      const kept = Math.max(0, Math.min(length, Math.floor(this.tear(length))));
      t.bytesWritten += kept;
      apply(kept);
      this.onChange?.(partition);
      this.powered = false;
      this.cutAt = 0;
      throw new PowerCut();
    }
    t.bytesWritten += length;
    apply(length);
    this.onChange?.(partition);
  }

  erase(partition: string, sectors = 1): void {
    this.assertPowered();
    this.partition(partition).sectorErases += sectors;
    this.onChange?.(partition);
  }

  powerOn(): void {
    this.powered = true;
    this.cutAt = 0;
  }

  resetTraffic(): void {
    this.traffic.clear();
  }

  total(): Traffic {
    const sum = emptyTraffic();
    for (const t of this.traffic.values()) {
      sum.bytesRead += t.bytesRead;
      sum.readCalls += t.readCalls;
      sum.bytesWritten += t.bytesWritten;
      sum.writeCalls += t.writeCalls;
      sum.sectorErases += t.sectorErases;
    }
    return sum;
  }
}

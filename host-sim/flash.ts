// The flash chip under every simulated partition: it counts traffic and can cut
// power at any program or erase operation. One chip, one operation counter, like
// the device: "cut at the N-th write" counts programs and erases across NVS and
// SPIFFS together.
//
// NVS goes through it byte for byte (`write`, `eraseRange`) with NOR semantics: a
// program can only clear bits (the chip ANDs the new bytes into what is there), an
// erase sets whole 4 KB sectors to 0xFF. A power cut tears the operation in flight:
// a prefix of it (tearHalf, tearNone) or, with a seeded tear (tearSeeded), any
// subset of its words, bytes or bits, as a real cut can leave it.

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

export const SECTOR_BYTES = 4096;

// How much of a torn operation reaches flash. As a function: given the operation's
// length, the bytes of its prefix that persist. A tear with `pick` says instead,
// for each byte of the operation, which of its bits reach flash (0xFF: the whole
// byte, 0: none of it), so a cut can land anywhere inside the write.
export type Tear = ((length: number) => number) & { pick?: (length: number) => Uint8Array };
export const tearHalf: Tear = (n) => n >> 1;
export const tearNone: Tear = () => 0;

export type TearGrain = "word" | "byte" | "bit";

// A small seeded generator (mulberry32), so that a sweep over seeds is reproducible.
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A seeded tear: each 4-byte word (or byte, or bit) of the operation reaches
// flash or not, independently, chosen by the seed. Used on a legacy
// program(partition, length, apply) it keeps a seeded prefix instead.
export function tearSeeded(seed: number, grain: TearGrain = "word"): Tear {
  const f = ((n: number) => Math.floor(prng(seed ^ 0x5eed)() * (n + 1))) as Tear;
  f.pick = (n: number) => {
    const r = prng(seed);
    const mask = new Uint8Array(n);
    if (grain === "bit") for (let i = 0; i < n; i++) mask[i] = Math.floor(r() * 256);
    else {
      const step = grain === "word" ? 4 : 1;
      for (let i = 0; i < n; i += step) {
        const v = r() < 0.5 ? 0xff : 0;
        for (let j = i; j < Math.min(n, i + step); j++) mask[j] = v;
      }
    }
    return mask;
  };
  return f;
}

function tearMask(tear: Tear, n: number): Uint8Array {
  if (tear.pick) return tear.pick(n);
  const kept = Math.max(0, Math.min(n, Math.floor(tear(n))));
  const mask = new Uint8Array(n);
  mask.fill(0xff, 0, kept);
  return mask;
}

export class Flash {
  readonly traffic = new Map<string, Traffic>();
  writes = 0; // program and erase operations since power-on of the simulator (not reset by reboot)
  powered = true;
  private cutAt = 0; // 0: no cut armed
  private tear: Tear = tearHalf;
  // host only: told after every program or erase that reached flash (persistence),
  // with the byte range it touched when the operation was byte-level
  onChange: ((partition: string, offset?: number, length?: number) => void) | undefined;

  partition(name: string): Traffic {
    let t = this.traffic.get(name);
    if (!t) this.traffic.set(name, (t = emptyTraffic()));
    return t;
  }

  // Arms a power cut at the n-th operation from now (1 = the next program or erase).
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

  // Counts one operation; true when it is the one the armed cut tears.
  private cutsNow(): boolean {
    this.writes++;
    return this.cutAt !== 0 && this.writes >= this.cutAt;
  }

  // A model that tore an operation itself (a SPIFFS rename or header rewrite
  // left half done, as the real library leaves it) loses power here.
  powerCutNow(): never {
    return this.powerOff();
  }

  private powerOff(): never {
    this.powered = false;
    this.cutAt = 0;
    throw new PowerCut();
  }

  // One program operation of `length` bytes, for a model that keeps its own
  // bytes (SPIFFS). `apply(kept)` makes the first `kept` bytes durable; on the
  // armed operation only a torn prefix is applied, the power goes off and
  // PowerCut is thrown, so the caller never sees the write complete.
  program(partition: string, length: number, apply: (kept: number) => void): void {
    this.assertPowered();
    const t = this.partition(partition);
    t.writeCalls++;
    if (this.cutsNow()) {
      const kept = Math.max(0, Math.min(length, Math.floor(this.tear(length))));
      t.bytesWritten += kept;
      apply(kept);
      this.onChange?.(partition);
      this.powerOff();
    }
    t.bytesWritten += length;
    apply(length);
    this.onChange?.(partition);
  }

  // One program operation into a partition image, NOR style: every byte becomes
  // old & new (bits only go from 1 to 0). Torn by an armed cut.
  write(partition: string, image: Uint8Array, offset: number, data: Uint8Array): void {
    this.assertPowered();
    if (offset < 0 || offset + data.length > image.length) throw new RangeError(`${partition}: write outside the partition`);
    const t = this.partition(partition);
    t.writeCalls++;
    t.bytesWritten += data.length;
    if (this.cutsNow()) {
      const mask = tearMask(this.tear, data.length);
      for (let i = 0; i < data.length; i++) image[offset + i] &= data[i] | (~mask[i] & 0xff);
      this.onChange?.(partition, offset, data.length);
      this.powerOff();
    }
    for (let i = 0; i < data.length; i++) image[offset + i] &= data[i];
    this.onChange?.(partition, offset, data.length);
  }

  // Erases whole sectors of a partition image to 0xFF. Torn by an armed cut: the
  // bits the tear picks are erased, the others keep their old value.
  eraseRange(partition: string, image: Uint8Array, offset: number, length: number): void {
    this.assertPowered();
    if (offset % SECTOR_BYTES || length % SECTOR_BYTES || offset + length > image.length) throw new RangeError(`${partition}: erase must cover whole sectors`);
    this.partition(partition).sectorErases += length / SECTOR_BYTES;
    if (this.cutsNow()) {
      const mask = tearMask(this.tear, length);
      for (let i = 0; i < length; i++) image[offset + i] |= mask[i];
      this.onChange?.(partition, offset, length);
      this.powerOff();
    }
    image.fill(0xff, offset, offset + length);
    this.onChange?.(partition, offset, length);
  }

  // Counts sector erases of a model that keeps its own bytes; never torn.
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

// `file` for the heap lane: forwards to host-sim's in Node (bridge.ts); an open
// file or an iterator is a handle number here, as a C pointer on the device.
import { call } from "./bridge";

export class File {
  readonly #h: number;
  constructor(path: string, write = false) {
    this.#h = call(["fopen", path, !!write]).value as number;
  }
  read(type: typeof String | typeof ArrayBuffer, count?: number): string | ArrayBuffer {
    const r = call(["fread", this.#h, type === String ? "s" : "ab", count ?? null]);
    return type === String ? (r.value as string) : (r.payload ?? new ArrayBuffer(0));
  }
  write(...items: (string | number | ArrayBuffer)[]): void {
    for (const item of items) {
      if (item instanceof ArrayBuffer) call(["fwrite", this.#h, "ab"], item);
      else if (ArrayBuffer.isView(item)) call(["fwrite", this.#h, "ab"], item.buffer.slice(item.byteOffset, item.byteOffset + item.byteLength) as ArrayBuffer);
      else call(["fwrite", this.#h, typeof item === "number" ? "n" : "s", item]);
    }
  }
  close(): void {
    call(["fclose", this.#h]);
  }
  get length(): number {
    return call(["flength", this.#h]).value as number;
  }
  get position(): number {
    return call(["fgetpos", this.#h]).value as number;
  }
  set position(p: number) {
    call(["fsetpos", this.#h, p]);
  }
  static delete(path: string): boolean {
    return call(["fdelete", path]).value as boolean;
  }
  static exists(path: string): boolean {
    return call(["fexists", path]).value as boolean;
  }
  static rename(from: string, to: string): boolean {
    return call(["frename", from, to]).value as boolean;
  }
}

export class Iterator {
  readonly #h: number;
  constructor(path: string) {
    this.#h = call(["iopen", path]).value as number;
  }
  next(): { name: string; length: number } | undefined {
    const v = call(["inext", this.#h]).value as [string, number] | null;
    return v ? { name: v[0], length: v[1] } : undefined;
  }
}

export class Directory {
  static create(path: string): void {
    call(["dcreate", path]);
  }
  static delete(path: string): void {
    call(["ddelete", path]);
  }
}

export class System {
  static config(): { maxPathLength: number } {
    return call(["sconfig"]).value as { maxPathLength: number };
  }
  static info(): { used: number; total: number } {
    return call(["sinfo"]).value as { used: number; total: number };
  }
}

const file = Object.freeze({ File, Iterator, Directory, System });
export default file;

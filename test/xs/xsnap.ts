// A small driver for an xsnap-worker process (protocol taken from
// node_modules/@agoric/xsnap/src/xsnap.js and xsnap-native/xsnap/sources/xsnap-worker.c).
//
// Netstrings (`<len>:<payload>,`) on fd 3 (to XS) and fd 4 (from XS).
//   to XS:   `e<code>` evaluate, `s<path>` run a script file, `m<abs path>` run a module, `q` quit,
//            `/<bytes>` answer to an issueCommand request.
//   from XS: `.<meter json>\x01<result bytes>` ok (result bytes only when the value is an ArrayBuffer),
//            `!<message>` exception (empty for `s`/`m`; the message then goes to stderr),
//            `?<bytes>` XS called issueCommand(ArrayBuffer) and blocks until we answer `/<bytes>`.
// After each command the worker runs its loop (promise jobs, setImmediate) until idle.

import { spawn, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";

export class XsException extends Error {
  override name = "XsException";
}

export interface XsnapOptions {
  bin: string;
  /** Answer to XS's issueCommand(ArrayBuffer). Must not throw. */
  onCommand?: (bytes: Uint8Array) => Uint8Array;
  /** Worker stdout (print()); default: copied to our stderr. */
  onStdout?: (chunk: Buffer) => void;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

// xsnap-worker exit codes (xsnap-worker.c)
const EXIT_CODES: Record<number, string> = {
  11: "not enough memory",
  12: "stack overflow",
  15: "unhandled exception",
  16: "no more keys",
  17: "too much computation",
};

const OK = 0x2e, ERR = 0x21, QUERY = 0x3f, SEP = 0x01;
const MAX_MESSAGE = 64 * 1024 * 1024;

export class Xsnap {
  readonly exited: Promise<Exit>;
  private child: ChildProcess;
  private toXs: Writable;
  private buf: Buffer = Buffer.alloc(0);
  private pending: { resolve(v: Uint8Array): void; reject(e: Error): void } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private stderrTail = "";
  private exit: Exit | null = null;

  constructor(private opts: XsnapOptions) {
    this.child = spawn(opts.bin, ["petmem-xs"], {
      // 0 stdin, 1 stdout, 2 stderr, 3 to XS, 4 from XS, 5 xsbug, 6 profiler (as xsnap.js does)
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe", "ignore", "ignore"],
    });
    const stdio = this.child.stdio as unknown as [null, Readable, Readable, Writable, Readable];
    this.toXs = stdio[3];
    this.toXs.on("error", () => {}); // EPIPE after a crash is reported through `exited`
    stdio[1].on("data", opts.onStdout ?? ((c: Buffer) => process.stderr.write(c)));
    stdio[2].on("data", (c: Buffer) => {
      process.stderr.write(c);
      this.stderrTail = (this.stderrTail + c.toString("utf8")).slice(-2000);
    });
    stdio[4].on("data", (c: Buffer) => this.onData(c));
    this.exited = new Promise<Exit>((resolve) => {
      this.child.on("error", (e) => {
        this.fail(new Error(`cannot start ${opts.bin}: ${e.message}`));
        resolve({ code: -1, signal: null });
      });
      this.child.on("close", (code, signal) => {
        this.exit = { code, signal };
        const why = code !== null ? `code ${code}${EXIT_CODES[code] ? `: ${EXIT_CODES[code]}` : ""}` : `signal ${signal}`;
        this.fail(new Error(`xsnap-worker exited (${why})${this.stderrTail ? `: ${this.stderrTail.trim()}` : ""}`));
        resolve(this.exit);
      });
    });
  }

  /** Evaluate code (indirect eval, script semantics); resolves to the result's bytes if it is an ArrayBuffer. */
  evaluate(code: string): Promise<Uint8Array> {
    return this.send("e" + code);
  }

  /** Run a script file (path as seen by the worker). */
  script(file: string): Promise<Uint8Array> {
    return this.send("s" + file);
  }

  /** Ask the worker to quit and wait for it. */
  async close(): Promise<Exit> {
    if (!this.exit) {
      await this.queue.catch(() => {});
      this.write(Buffer.from("q"));
      this.toXs.end();
    }
    return this.exited;
  }

  kill(): void {
    if (!this.exit) this.child.kill("SIGKILL");
  }

  private send(command: string): Promise<Uint8Array> {
    const run = () =>
      new Promise<Uint8Array>((resolve, reject) => {
        if (this.exit) return reject(new Error(`xsnap-worker is not running (code ${this.exit.code})`));
        this.pending = { resolve, reject };
        this.write(Buffer.from(command, "utf8"));
      });
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => {});
    return p;
  }

  private write(payload: Uint8Array, prefix = ""): void {
    const head = Buffer.from(`${payload.length + prefix.length}:${prefix}`, "utf8");
    this.toXs.write(Buffer.concat([head, payload, Buffer.from(",")]));
  }

  private fail(e: Error): void {
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const colon = this.buf.indexOf(0x3a);
      if (colon < 0) {
        if (this.buf.length > 20) return this.protocolError("bad netstring length");
        return;
      }
      const lenText = this.buf.subarray(0, colon).toString("latin1");
      if (!/^\d+$/.test(lenText) || Number(lenText) > MAX_MESSAGE) return this.protocolError(`bad netstring length ${JSON.stringify(lenText)}`);
      const len = Number(lenText);
      const end = colon + 1 + len;
      if (this.buf.length < end + 1) return;
      if (this.buf[end] !== 0x2c) return this.protocolError("netstring without trailing comma");
      const msg = this.buf.subarray(colon + 1, end);
      this.buf = this.buf.subarray(end + 1);
      this.onMessage(msg);
    }
  }

  private onMessage(msg: Buffer): void {
    const kind = msg[0];
    if (kind === QUERY) {
      let reply: Uint8Array;
      try {
        reply = this.opts.onCommand ? this.opts.onCommand(new Uint8Array(msg.subarray(1))) : new Uint8Array(0);
      } catch (e) {
        this.protocolError(`issueCommand handler threw: ${(e as Error)?.message ?? e}`);
        return;
      }
      this.write(reply, "/");
    } else if (kind === OK) {
      const sep = msg.indexOf(SEP, 1);
      const p = this.pending;
      this.pending = null;
      p?.resolve(new Uint8Array(msg.subarray(sep < 0 ? 1 : sep + 1)));
    } else if (kind === ERR) {
      const text = msg.subarray(1).toString("utf8");
      this.fail(new XsException(text || "uncaught exception (see stderr)"));
    } else {
      this.protocolError(`unexpected message ${JSON.stringify(msg.subarray(0, 40).toString("utf8"))}`);
    }
  }

  private protocolError(what: string): void {
    this.fail(new Error(`xsnap protocol error: ${what}`));
    this.kill();
  }
}

/** Facts about the engine a worker binary runs; throws unless it behaves like a device build. */
export async function verifyDeviceLike(bin: string): Promise<Record<string, unknown>> {
  const xs = new Xsnap({ bin });
  try {
    const bytes = await xs.evaluate(ENGINE_PROBE);
    const facts = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    const problems: string[] = [];
    if (facts.emojiLength !== 1) problems.push(`"😀".length is ${facts.emojiLength}, expected 1 (mxCESU8 still on?)`);
    // Without mxStringNormalize, XS keeps normalize() but it throws RangeError "not built-in"
    // unless the string is ASCII (or Latin-1 for NFC).
    if (facts.normalize !== "undefined" && !String(facts.normalizeCJK).startsWith("RangeError"))
      problems.push(`"中".normalize() gave ${facts.normalizeCJK} (mxStringNormalize still on?)`);
    if (!String(facts.pLiteral).startsWith("SyntaxError")) problems.push(`/\\p{L}/u parsed (mxRegExpUnicodePropertyEscapes still on?)`);
    if (problems.length) throw new Error(`${bin} is not device-like: ${problems.join("; ")}`);
    return facts;
  } finally {
    await xs.close();
  }
}

// Evaluated inside XS; returns UTF-8 JSON in an ArrayBuffer (TextEncoder is a global in xsnap).
const ENGINE_PROBE = String.raw`(() => {
  const r = {};
  const t = (f) => { try { return f(); } catch (e) { return (e && e.name) + ": " + (e && e.message); } };
  r.emojiLength = "😀".length;
  r.emojiSpread = [..."😀"].length;
  r.emojiCharCodeAt0 = "😀".charCodeAt(0);
  r.emojiCodePointAt0 = "😀".codePointAt(0);
  r.normalize = typeof String.prototype.normalize;
  r.normalizeASCII = t(() => "abc".normalize("NFD"));
  r.normalizeLatin1NFC = t(() => "\u00e9".normalize() === "\u00e9");
  r.normalizeLatin1NFD = t(() => "\u00e9".normalize("NFD").length);
  r.normalizeCJK = t(() => "\u4e2d".normalize());
  r.pLiteral = t(() => { (0, eval)("/\\p{L}/u"); return "parsed"; });
  r.pRegExpCtor = t(() => { new RegExp("\\p{L}", "u"); return "ok"; });
  r.vFlag = t(() => { new RegExp("a", "v"); return "ok"; });
  for (const g of ["Intl", "TextEncoder", "TextDecoder", "structuredClone", "setTimeout", "setImmediate", "queueMicrotask",
                   "console", "trace", "print", "performance", "harden", "lockdown", "Compartment", "SharedArrayBuffer", "WeakRef"])
    r["typeof " + g] = typeof globalThis[g];
  r.dateNow = typeof Date.now();
  r.mathRandom = typeof Math.random();
  r.toSorted = typeof Array.prototype.toSorted;
  r.groupBy = typeof Object.groupBy;
  r.localeCompare = "a".localeCompare("B");
  r.toLocaleString = (1234567.5).toLocaleString();
  r.encodeEmoji = t(() => Array.from(new TextEncoder().encode("😀")).join(","));
  r.encodeLoneSurrogate = t(() => Array.from(new TextEncoder().encode(String.fromCharCode(0xD83D))).join(","));
  r.decodeInvalid = t(() => new TextDecoder().decode(new Uint8Array([0xff])));
  return new TextEncoder().encode(JSON.stringify(r)).buffer;
})()`;

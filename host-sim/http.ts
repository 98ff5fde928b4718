// The Moddable `http` module's client (modules/network/http/http.js) for
// Node, over node:net, with the device's behaviour: one TCP connection per
// request with `Connection: close`, a content-length computed as the SDK
// computes it (a String body's `.length`, an ArrayBuffer's byteLength),
// status, headers and body delivered through `callback(message, value)` as
// the SDK delivers them, asynchronously, never inside the constructor; a
// connection that closes before the body is complete is Request.error.
// Faults the tests inject per request index (httpControl): a refused
// connection, a drop after N response bytes, a stall (no byte ever comes).

import net from "node:net";
import tls from "node:tls";
import SecureSocket from "./securesocket";

export type HttpFault = { kind: "refuse" } | { kind: "drop"; after: number } | { kind: "stall" };

// The socket's room for one write: the SDK's Linux socket buffers 1,024 bytes
// (modules/network/socket/lin/modSocket.c kTxBufferSize); the ESP32's lwIP
// gives its send buffer's free space (up to 5,744 by default). A write larger
// than the room throws inside the socket callback, which aborts the machine.
export const WRITE_ROOM = 1024;

export const httpControl = {
  requests: 0, // requests made since reset
  live: 0, // connections open now
  maxLive: 0, // the most open at once
  sent: 0, // bytes written (request line, headers, body)
  received: 0, // bytes read
  faults: new Map<number, HttpFault>(), // request index → fault
  reset(): void {
    this.requests = this.live = this.maxLive = this.sent = this.received = 0;
    this.faults.clear();
  },
};

type Callback = (this: Request, message: number, value?: unknown, etc?: unknown) => unknown;

interface Dictionary {
  host?: string;
  address?: string;
  port?: number;
  method?: string;
  path?: string;
  headers?: (string | number)[];
  body?: string | ArrayBuffer | true;
  response?: typeof String | typeof ArrayBuffer;
  Socket?: unknown; // SecureSocket (host-sim/securesocket.ts): TLS
  secure?: { certificate?: ArrayBuffer | Uint8Array; protocolVersion?: number; verify?: boolean };
}

// A DER certificate as PEM (node:tls takes PEM).
function pem(der: ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString("base64");
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----\n`;
}

// One line for a TLS refusal, as the device reports it.
function tlsReason(e: Error & { code?: string }): string {
  switch (e.code) {
    case "CERT_HAS_EXPIRED":
      return "TLS: the server's certificate has expired";
    case "CERT_NOT_YET_VALID":
      return "TLS: the server's certificate is not valid yet";
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return "TLS: the server's certificate is not for this host name";
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "CERT_SIGNATURE_FAILURE":
      return "TLS: the server's certificate is not signed by the configured CA";
    default:
      return `TLS: ${e.message.split("\n")[0]}`;
  }
}

export class Request {
  static requestFragment = 0;
  static status = 1;
  static header = 2;
  static headersComplete = 3;
  static responseFragment = 4;
  static responseComplete = 5;
  static error = -2;

  callback: Callback | undefined;
  #socket: net.Socket | undefined;
  #closed = false;
  #fragment: Uint8Array | undefined; // the body bytes handed to the callback, read with read()
  #response: typeof String | typeof ArrayBuffer | undefined;
  #parts: Uint8Array[] = [];

  constructor(dictionary: Dictionary) {
    const d = { port: 80, method: "GET", path: "/", ...dictionary };
    const host = d.host ?? d.address;
    if (!host) throw new Error("no host");
    this.#response = d.response;
    const index = httpControl.requests++;
    const fault = httpControl.faults.get(index);
    const lines = [`${d.method} ${d.path} HTTP/1.1\r\n`, "Connection: close\r\n"];
    let length = false, hostHeader = true;
    const headers = d.headers ?? [];
    for (let i = 0; i < headers.length; i += 2) {
      const name = String(headers[i]);
      lines.push(`${name}: ${String(headers[i + 1])}\r\n`);
      if (name.toLowerCase() === "content-length") length = true;
      if (name.toLowerCase() === "host") hostHeader = false;
    }
    let body: Buffer | undefined;
    const streamed = d.body === true;
    if (d.body !== undefined && d.body !== true) {
      body = typeof d.body === "string" ? Buffer.from(d.body, "utf8") : Buffer.from(new Uint8Array(d.body));
      // the SDK writes a String body's .length (UTF-16 units) as its length
      if (!length) lines.push(`content-length: ${typeof d.body === "string" ? d.body.length : d.body.byteLength}\r\n`);
    }
    if (hostHeader) lines.push(`Host: ${host}\r\n`);
    lines.push("\r\n");
    const head = Buffer.from(lines.join(""), "latin1");
    if (fault?.kind === "refuse") {
      setImmediate(() => this.#fail());
      return;
    }
    const secure = d.Socket === SecureSocket;
    const s = d.secure ?? {};
    const socket: net.Socket = secure
      ? tls.connect({
          host,
          port: d.port,
          servername: net.isIP(host) ? undefined : host,
          ca: s.certificate ? [pem(s.certificate)] : undefined,
          minVersion: (s.protocolVersion ?? 0x302) >= 0x303 ? "TLSv1.2" : "TLSv1",
          rejectUnauthorized: s.verify !== false,
        })
      : net.connect({ host, port: d.port });
    this.#socket = socket;
    httpControl.live++;
    httpControl.maxLive = Math.max(httpControl.maxLive, httpControl.live);
    const parser = new Parser((m, v, e) => this.#deliver(m, v, e));
    let got = 0;
    socket.on(secure ? "secureConnect" : "connect", () => {
      socket.write(head);
      httpControl.sent += head.length;
      if (body) {
        // http.js writes a whole String or ArrayBuffer body at once
        if (body.length > WRITE_ROOM) throw new Error(`socket: can't write all data (a ${body.length}-byte body in one write; the room is ${WRITE_ROOM}): the device aborts here`);
        socket.write(body);
        httpControl.sent += body.length;
      }
      if (streamed) {
        // body: true: the callback hands the body a piece at a time, each at most the room
        for (;;) {
          if (this.#closed || !this.callback) return;
          const piece = this.callback(Request.requestFragment, WRITE_ROOM) as ArrayBuffer | string | undefined;
          if (piece === undefined) break;
          const b = typeof piece === "string" ? Buffer.from(piece, "utf8") : Buffer.from(new Uint8Array(piece));
          if (b.length > WRITE_ROOM) throw new Error(`socket: can't write all data (a ${b.length}-byte piece; the room is ${WRITE_ROOM}): the device aborts here`);
          socket.write(b);
          httpControl.sent += b.length;
        }
      }
    });
    socket.on("data", (chunk: Buffer) => {
      if (this.#closed) return;
      if (fault?.kind === "stall") return;
      if (fault?.kind === "drop" && got + chunk.length > fault.after) {
        const keep = chunk.subarray(0, Math.max(0, fault.after - got));
        got = fault.after;
        httpControl.received += keep.length;
        if (keep.length) parser.push(keep);
        socket.destroy();
        return;
      }
      got += chunk.length;
      httpControl.received += chunk.length;
      try {
        parser.push(chunk);
      } catch {
        this.#fail(); // not HTTP: the SDK throws inside its socket callback; the request fails
      }
    });
    let reason: string | undefined;
    socket.on("error", (e: Error & { code?: string }) => {
      // a refusal of the handshake (not a refused or dropped TCP connection)
      // (a dropped or refused TCP link gives none, as on the device)
      if (secure && e.code && !/^E[A-Z]+$/.test(e.code)) reason = tlsReason(e);
    });
    socket.on("close", () => {
      httpControl.live--;
      if (this.#closed || fault?.kind === "stall") return; // a stalled link: nothing ever comes, not even the close
      if (parser.end()) return;
      this.#fail(reason);
    });
  }

  #deliver(message: number, value?: unknown, etc?: unknown): void {
    if (this.#closed || !this.callback) return;
    if (message === Request.responseFragment) {
      const bytes = value as Uint8Array;
      if (this.#response) {
        this.#parts.push(bytes);
        return;
      }
      this.#fragment = bytes;
      this.callback(Request.responseFragment, bytes.length);
      this.#fragment = undefined;
      return;
    }
    if (message === Request.responseComplete) {
      let data: unknown;
      if (this.#response) {
        const all = Buffer.concat(this.#parts);
        data = this.#response === String ? all.toString("utf8") : all.buffer.slice(all.byteOffset, all.byteOffset + all.length);
      }
      this.#finish();
      this.callback(Request.responseComplete, data);
      return;
    }
    this.callback(message, value, etc);
  }

  // The request's error; `reason`: what the socket said (a TLS refusal).
  #fail(reason?: string): void {
    if (this.#closed) return;
    this.#finish();
    this.callback?.(Request.error, reason);
  }

  #finish(): void {
    this.#closed = true;
    this.#socket?.destroy();
  }

  // In a responseFragment callback: the fragment's bytes (String: as UTF-8,
  // which splits a character cut between fragments as the device does).
  read(type: typeof String | typeof ArrayBuffer | null, count?: number): string | ArrayBuffer | number | undefined {
    const f = this.#fragment;
    if (!f) return undefined;
    if (type === undefined) return f.length;
    const n = count === undefined ? f.length : Math.min(count, f.length);
    const part = f.subarray(0, n);
    this.#fragment = f.subarray(n);
    if (type === null) return undefined;
    if (type === String) return Buffer.from(part).toString("utf8");
    return part.slice().buffer as ArrayBuffer;
  }

  close(): void {
    this.#finish();
    this.callback = undefined;
  }
}

// An HTTP/1.1 response: status line, headers, then a body by content-length,
// chunked, or until the connection closes (as http.js reads them).
class Parser {
  private buf: Buffer = Buffer.alloc(0);
  private state = 0; // 0 status, 1 headers, 2 body, 3 done
  private total: number | undefined;
  private chunked = false;
  private chunk = -1; // bytes left in the current chunk; -1 a size line is next

  constructor(private readonly emit: (message: number, value?: unknown, etc?: unknown) => void) {}

  push(data: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, data]) : data;
    for (;;) {
      if (this.state === 0 || this.state === 1) {
        const i = this.buf.indexOf("\r\n");
        if (i < 0) return;
        const line = this.buf.subarray(0, i).toString("latin1");
        this.buf = this.buf.subarray(i + 2);
        if (this.state === 0) {
          const parts = line.split(" ");
          if (parts.length < 3) throw new Error("unexpected status format");
          this.state = 1;
          this.emit(Request.status, parseInt(parts[1], 10));
          continue;
        }
        if (line === "") {
          this.emit(Request.headersComplete);
          this.state = 2;
          if (this.total === 0) return this.done();
          continue;
        }
        const c = line.indexOf(":");
        const name = line.slice(0, c).trim().toLowerCase(), value = line.slice(c + 1).trim();
        this.emit(Request.header, name, value);
        if (name === "content-length") this.total = parseInt(value, 10);
        else if (name === "transfer-encoding" && value.toLowerCase() === "chunked") this.chunked = true;
        continue;
      }
      if (this.state !== 2) return;
      if (this.chunked) {
        if (this.chunk === -1) {
          const i = this.buf.indexOf("\r\n");
          if (i < 0) return;
          this.chunk = parseInt(this.buf.subarray(0, i).toString("latin1"), 16);
          this.buf = this.buf.subarray(i + 2);
          if (this.chunk === 0) return this.done();
          continue;
        }
        if (!this.buf.length) return;
        const n = Math.min(this.chunk, this.buf.length);
        if (n > 0) {
          this.emit(Request.responseFragment, new Uint8Array(this.buf.subarray(0, n)));
          this.buf = this.buf.subarray(n);
          this.chunk -= n;
        }
        if (this.chunk === 0) {
          if (this.buf.length < 2) return;
          this.buf = this.buf.subarray(2);
          this.chunk = -1;
        }
        continue;
      }
      if (!this.buf.length) return;
      let n = this.buf.length;
      if (this.total !== undefined) n = Math.min(n, this.total);
      this.emit(Request.responseFragment, new Uint8Array(this.buf.subarray(0, n)));
      this.buf = this.buf.subarray(n);
      if (this.total !== undefined) {
        this.total -= n;
        if (this.total === 0) return this.done();
      }
    }
  }

  private done(): void {
    this.state = 3;
    this.emit(Request.responseComplete);
  }

  // The connection closed: true when that completes the response (a body
  // read until the close), false when the response was cut.
  end(): boolean {
    if (this.state === 3) return true;
    if (this.state === 2 && !this.chunked && this.total === undefined) {
      this.done();
      return true;
    }
    return false;
  }
}

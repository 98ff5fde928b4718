// One HTTP request as a promise, over the Moddable SDK's `http` module, with
// the limits a small device needs: one request at a time, a reply taken only
// up to `maxBody` bytes, a timeout on the whole request (the SDK's client has
// none), the body sent as UTF-8 bytes (the SDK's content-length of a String
// body is its UTF-16 length). Credentials come from the caller for each
// request and are kept nowhere. Errors: HttpError, code "busy" | "refused" |
// "lost" | "timeout" | "too big".

import * as sdk from "http";
import SecureSocket from "securesocket";
import Timer from "timer";

// The SDK's client as this module uses it (Node's own "http" types would
// shadow the Moddable module's under the desktop's typecheck).
interface SdkRequest {
  callback: ((this: SdkRequest, message: number, value?: unknown) => ArrayBuffer | undefined | void) | undefined;
  read(type: typeof ArrayBuffer, count: number): ArrayBuffer;
  close(): void;
}
interface SdkRequestClass {
  new (d: { host: string; port: number; method: string; path: string; headers: string[]; body?: true; Socket?: unknown; secure?: Record<string, unknown> }): SdkRequest;
  requestFragment: number;
  status: number;
  responseFragment: number;
  responseComplete: number;
}
const Request = (sdk as unknown as { Request: SdkRequestClass }).Request;
import { encode, decode } from "../text/utf8";

export interface Endpoint {
  host: string;
  port: number;
  auth?: string; // "user:password", sent as HTTP Basic
  prefix?: string; // a path in front of every request's, e.g. "/couch"
  // TLS (the SDK's SecureSocket): the server's certificate must lead to `ca`
  // (DER; without it, the SDK's own certificate store) and name `host`
  tls?: { ca?: ArrayBuffer };
}

export interface Reply {
  status: number;
  body: string;
}

export interface Limits {
  timeout: number; // ms for the whole request
  maxBody: number; // UTF-8 bytes of the reply at most
}

export const DEFAULT_LIMITS: Limits = { timeout: 15000, maxBody: 16384 };

export class HttpError extends Error {
  constructor(
    readonly code: "busy" | "refused" | "lost" | "timeout" | "too big",
    message: string,
  ) {
    super(message);
    Object.defineProperty(this, "name", { value: "HttpError", configurable: true, writable: true });
  }
}

let busy = false;

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function base64(s: string): string {
  const b = encode(s);
  let out = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64.charAt((n >> 18) & 63) + B64.charAt((n >> 12) & 63) + (i + 1 < b.length ? B64.charAt((n >> 6) & 63) : "=") + (i + 2 < b.length ? B64.charAt(n & 63) : "=");
  }
  return out;
}

// Base64 text (whitespace ignored) as bytes: a CA certificate in the build's configuration.
export function fromBase64(s: string): ArrayBuffer {
  const clean = s.replace(/-----[^-]*-----/g, "").replace(/[^A-Za-z0-9+/]/g, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0, acc = 0, n = 0;
  for (let i = 0; i < clean.length; i++) {
    acc = (acc << 6) | B64.indexOf(clean.charAt(i));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.buffer.slice(0, n) as ArrayBuffer;
}

export function request(ep: Endpoint, method: string, path: string, body?: string, limits: Partial<Limits> = {}): Promise<Reply> {
  const timeout = limits.timeout ?? DEFAULT_LIMITS.timeout;
  const maxBody = limits.maxBody ?? DEFAULT_LIMITS.maxBody;
  return new Promise<Reply>((resolve, reject) => {
    if (busy) {
      reject(new HttpError("busy", "http: another request is running"));
      return;
    }
    busy = true;
    const headers: string[] = ["Accept", "application/json"];
    // the body goes out in pieces as the socket has room: a write larger than
    // its room throws inside the SDK's socket callback (1,024 bytes on Linux,
    // lwIP's send buffer on the ESP32), which aborts the machine
    let bytes: Uint8Array | undefined;
    let sent = 0;
    if (body !== undefined) {
      headers.push("Content-Type", "application/json");
      bytes = encode(body);
      headers.push("Content-Length", String(bytes.byteLength));
    }
    if (ep.auth) headers.push("Authorization", "Basic " + base64(ep.auth));
    let status = 0;
    let size = 0;
    const parts: Uint8Array[] = [];
    let req: SdkRequest | undefined;
    let done = false;
    const finish = (err: HttpError | undefined, reply?: Reply) => {
      if (done) return;
      done = true;
      Timer.clear(timer);
      if (req) req.close();
      busy = false;
      if (err) reject(err);
      else resolve(reply as Reply);
    };
    const timer = Timer.set(() => finish(new HttpError("timeout", `http: no complete reply in ${timeout} ms`)), timeout);
    try {
      const tls = ep.tls ? { Socket: SecureSocket, secure: ep.tls.ca ? { protocolVersion: 0x303, certificate: ep.tls.ca } : { protocolVersion: 0x303 } } : {};
      req = new Request({ host: ep.host, port: ep.port, method, path: (ep.prefix ?? "") + path, headers, body: bytes ? true : undefined, ...tls });
    } catch (e) {
      finish(new HttpError("refused", `http: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    // nothing may throw out of this callback: it runs inside the SDK's socket
    // callback, where an exception is unhandled and aborts the machine
    req.callback = function (this: SdkRequest, message: number, value?: unknown) {
      try {
        if (message === Request.requestFragment) {
          if (!bytes || sent >= bytes.length) return undefined;
          const n = Math.min(value as number, bytes.length - sent);
          if (n <= 0) return new ArrayBuffer(0);
          const piece = bytes.slice(sent, sent + n).buffer as ArrayBuffer;
          sent += n;
          return piece;
        }
        if (message === Request.status) status = value as number;
        else if (message === Request.responseFragment) {
          const chunk = this.read(ArrayBuffer, value as number) as ArrayBuffer | undefined;
          if (!chunk) return;
          size += chunk.byteLength;
          if (size > maxBody) finish(new HttpError("too big", `http: the reply is longer than ${maxBody} bytes`));
          else parts.push(new Uint8Array(chunk));
        } else if (message === Request.responseComplete) {
          const all = new Uint8Array(size);
          let at = 0;
          for (const p of parts) {
            all.set(p, at);
            at += p.length;
          }
          parts.length = 0;
          finish(undefined, { status, body: decode(all) });
        } else if (message < 0) {
          // the reason when the socket gives one (a TLS refusal: the certificate, the host name)
          // (the SDK's SecureSocket gives none: it traces the cause and closes)
          const why = typeof value === "string" && value ? `: ${value}` : ep.tls && !status ? `: TLS: no secure connection (refused, or a certificate that does not lead to the CA, has expired or does not name ${ep.host})` : "";
          finish(new HttpError(status ? "lost" : "refused", status ? `http: the connection was lost before the reply was whole${why}` : `http: no connection to the server${why}`));
        }
      } catch (e) {
        finish(new HttpError("lost", `http: ${e instanceof Error ? e.message : String(e)}`));
      }
    };
  });
}

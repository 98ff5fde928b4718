// The small HTTP pieces the web server needs, on Node's http module only:
// a request body read with a cap, JSON replies, and an error that carries its
// status code. Nothing here knows about the device.

import type { IncomingMessage, ServerResponse } from "node:http";

// A reply that is an error: status code and one line of reason ({"error": …}).
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const COMMON_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body) + "\n";
  res.writeHead(status, { ...COMMON_HEADERS, "Content-Type": "application/json; charset=utf-8", "Content-Length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, e: HttpError): void {
  sendJson(res, e.status, { error: e.message, ...e.extra }, e.headers);
}

// The whole body, at most `max` bytes: a larger one (by its Content-Length or
// as it arrives) is refused with 413 before any of it is used.
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > max) return Promise.reject(new HttpError(413, `the body is ${declared} bytes; at most ${max} bytes are taken here`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > max) {
        done = true;
        chunks.length = 0;
        req.pause();
        reject(new HttpError(413, `the body is more than ${max} bytes; at most ${max} bytes are taken here`));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks));
    });
    req.on("error", (e) => {
      if (done) return;
      done = true;
      reject(new HttpError(400, `the body could not be read (${e.message})`));
    });
  });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

// A body as a JSON object: an empty body is {} when `emptyOk`; anything that
// is not UTF-8, not JSON or not an object is a 400 naming what is wrong.
export function parseJsonObject(body: Buffer, emptyOk: boolean): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new HttpError(400, "the body is not UTF-8 text");
  }
  if (text.trim() === "") {
    if (emptyOk) return {};
    throw new HttpError(400, "the body is empty; a JSON object is expected");
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, `the body is not JSON (${(e as Error).message})`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new HttpError(400, `the body must be a JSON object, not ${v === null ? "null" : Array.isArray(v) ? "an array" : typeof v}`);
  return v as Record<string, unknown>;
}

// Fields of a body: only those named, each of its type.
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(body))
    if (!allowed.includes(k)) throw new HttpError(400, allowed.length ? `unknown field "${k.slice(0, 40)}"; this call takes ${allowed.join(", ")}` : `unknown field "${k.slice(0, 40)}"; this call takes no fields`);
}

export function stringField(body: Record<string, unknown>, name: string, opts: { required?: boolean; maxChars?: number; nonEmpty?: boolean } = {}): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) {
    if (opts.required) throw new HttpError(400, `"${name}" is missing: a string is expected`);
    return undefined;
  }
  if (typeof v !== "string") throw new HttpError(400, `"${name}" must be a string, not ${Array.isArray(v) ? "an array" : typeof v}`);
  if (opts.nonEmpty && v.trim() === "") throw new HttpError(400, `"${name}" is empty`);
  if (opts.maxChars !== undefined && [...v].length > opts.maxChars) throw new HttpError(400, `"${name}" is longer than ${opts.maxChars} characters`);
  return v;
}

export function intField(body: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new HttpError(400, `"${name}" must be an integer from ${min} to ${max}`);
  return v;
}

// `petmem web`'s server: the timeline page and seed 004's HTTP API (SEEDS.md
// item 51) on one Node http server bound to 127.0.0.1 only, over the device
// that desktop/host.ts opened. docs: API below, and `petmem web --help`.
//
// Rules every request goes through, in this order:
//   1. Host must be 127.0.0.1 or localhost (with this server's port, if a
//      port is given): anything else is 403 (a DNS-rebinding page cannot
//      reach the pet). An Origin, when sent, must be this server's: else 403.
//      No CORS headers are ever sent; OPTIONS is 405.
//   2. The path must be known (404), the method one it takes (405, Allow).
//   3. A call that changes memory (every POST) and GET /export need
//      `Authorization: Bearer TOKEN`: 401 without it, 403 with a wrong one.
//   4. The body: at most 16 KB (POST /import: 32 MB), else 413; UTF-8 JSON
//      object with only the fields the call takes, each of its type, else 400
//      {"error": reason}. Nothing changes on a refused request.
// The device is single-threaded like the pet: every handler runs to its end
// before the next request is looked at, so no two calls interleave.

import http from "node:http";
import crypto from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Host } from "../host.js";
import { HttpError, COMMON_HEADERS, sendJson, sendError, readBody, parseJsonObject, onlyFields, stringField, intField } from "./http.js";
import { profileView, statsView, timelineView, searchView, QUERY_MAX_CHARS } from "./views.js";
import { PAGE } from "./page.js";
import { exportMemory, importMemory, ImportError } from "../../src/backup/index.js";
import type { Heard } from "../../src/listen/listener.js";
import type { Formed } from "../../src/listen/pending.js";
import { formatIso } from "../../src/time/local.js";
import { now } from "../../src/time/clock.js";
import { reminderSentence } from "../../src/schedule/phrase.js";

export const BODY_MAX = 16 * 1024;
export const RECENT_REMINDERS = 20; // what a new /api/reminders stream is sent first
export const IMPORT_MAX = 32 * 1024 * 1024;
export const TEXT_MAX_CHARS = 2000; // one utterance
const FORGET_PASSES = 256; // each pass moves at most UPKEEP_WRITES episodes
const ARCHIVE_STEPS = 10000;
const EPISODE_STEPS = 1000;

export interface WebOptions {
  port: number; // 0: a free one
  token?: string; // default: 32 random hex digits
  log?: (method: string, path: string, status: number, ms: number) => void;
}

export interface WebServer {
  port: number;
  url: string;
  token: string;
  close(): Promise<void>;
}

interface Session {
  id: string;
  userId?: string;
  started: string; // local ISO time
  messages: number;
  formed: Formed[];
  ended?: string; // why the conversation ended (explicit, farewell, idle, stop)
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => Promise<void> | void;

interface Route {
  methods: Record<string, Handler>;
  token?: readonly string[]; // methods that need the token
}

export function newToken(): string {
  return crypto.randomBytes(16).toString("hex");
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given), b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function startWeb(host: Host, opts: WebOptions): Promise<WebServer> {
  const token = opts.token ?? newToken();
  const service = host.service;
  const listener = service.listener;
  let port = 0;
  let session: Session | undefined;
  let sessions = 0;

  // the listener's own ends (a farewell, two quiet minutes, shutdown) close the session too
  listener.onEnd = (reason, formed) => {
    if (session && !session.ended) {
      session.ended = reason;
      session.formed.push(...formed);
    }
  };

  // Due reminders as server-sent events (GET /api/reminders; docs/HTTP-API.md):
  // each stream gets the ones this run delivered (RECENT_REMINDERS at most,
  // after Last-Event-ID when the browser reconnects), then each as it comes.
  const recent: { id: number; data: string }[] = [];
  const streams = new Set<http.ServerResponse>();
  let reminderIds = 0;
  const sse = (res: http.ServerResponse, e: { id: number; data: string }) => res.write(`id: ${e.id}\nevent: reminder\ndata: ${e.data}\n\n`);
  const removeSink = service.addReminderSink({
    remind: (r) => {
      const e = { id: ++reminderIds, data: JSON.stringify({ say: reminderSentence(r, now()), ...r, at: formatIso(now()) }) };
      recent.push(e);
      if (recent.length > RECENT_REMINDERS) recent.shift();
      for (const res of streams) sse(res, e);
    },
  });

  const openSession = (userId?: string): Session => {
    sessions++;
    session = { id: `s${Date.now().toString(36)}-${sessions}-${crypto.randomBytes(3).toString("hex")}`, userId, started: formatIso(now()), messages: 0, formed: [] };
    return session;
  };

  const sessionView = (s: Session) => {
    const v: Record<string, unknown> = { session_id: s.id, started: s.started, messages: s.messages };
    if (s.userId !== undefined) v.user_id = s.userId;
    return v;
  };

  // session_id, when given, must name the current session
  const checkSession = (body: Record<string, unknown>): Session | undefined => {
    const id = stringField(body, "session_id", { maxChars: 100 });
    if (id === undefined) return session;
    if (!session || session.id !== id) throw new HttpError(409, `no session ${JSON.stringify(id)} here${session ? `; the current one is ${session.id}` : ""}; POST /session/start opens one`);
    return session;
  };

  const noConversation = (what: string) => {
    if (listener.active) throw new HttpError(409, `a conversation is under way; ${what} never runs during one (POST /session/end ends it)`);
  };

  const body = async (req: http.IncomingMessage, allowed: readonly string[], emptyOk = true) => {
    const b = parseJsonObject(await readBody(req, BODY_MAX), emptyOk);
    onlyFields(b, allowed);
    return b;
  };

  const toolError = (e: unknown): never => {
    if (e instanceof Error && e.name === "ToolError") throw new HttpError(400, e.message);
    throw e;
  };

  const routes: Record<string, Route> = {
    "/": {
      methods: {
        GET: (_req, res) => {
          res.writeHead(200, {
            ...COMMON_HEADERS,
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
          });
          res.end(PAGE);
        },
      },
    },
    "/favicon.ico": {
      methods: {
        GET: (_req, res) => {
          res.writeHead(204, COMMON_HEADERS);
          res.end();
        },
      },
    },
    "/api/timeline": { methods: { GET: (_req, res) => sendJson(res, 200, timelineView(host)) } },
    "/api/search": {
      methods: {
        GET: (_req, res, url) => {
          const q = (url.searchParams.get("q") ?? "").trim();
          if (!q) throw new HttpError(400, 'the query is empty: /api/search?q=WORDS');
          if ([...q].length > QUERY_MAX_CHARS) throw new HttpError(400, `the query is longer than ${QUERY_MAX_CHARS} characters`);
          let v: Record<string, unknown>;
          try {
            v = searchView(host, q);
          } catch (e) {
            return toolError(e);
          }
          sendJson(res, 200, v);
        },
      },
    },
    "/api/reminders": {
      methods: {
        GET: (req, res) => {
          res.writeHead(200, { ...COMMON_HEADERS, "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", Connection: "keep-alive" });
          res.write("retry: 3000\n\n");
          const last = Number(req.headers["last-event-id"] ?? 0) || 0;
          for (const e of recent) if (e.id > last) sse(res, e);
          streams.add(res);
          const ping = setInterval(() => res.write(": ping\n\n"), 15000);
          const done = () => {
            clearInterval(ping);
            streams.delete(res);
          };
          req.on("close", done);
          res.on("close", done);
        },
      },
    },
    "/profile": { methods: { GET: (_req, res) => sendJson(res, 200, profileView(host)) } },
    "/stats": { methods: { GET: (_req, res) => sendJson(res, 200, statsView(host)) } },
    "/export": {
      token: ["GET"],
      methods: {
        GET: (_req, res) => {
          // streamed as exportMemory writes it; an error before the first piece is a 500 reply,
          // after it the connection is cut (the client sees a truncated document, never a whole one)
          let started = false;
          try {
            exportMemory(host.booted, (chunk) => {
              if (!started) {
                started = true;
                res.writeHead(200, { ...COMMON_HEADERS, "Content-Type": "application/json; charset=utf-8", "Content-Disposition": 'attachment; filename="petmem-export.json"' });
              }
              res.write(chunk);
            });
          } catch (e) {
            if (started) {
              res.destroy(e as Error);
              return;
            }
            throw new HttpError(500, `export failed: ${(e as Error).message}`);
          }
          if (!started) res.writeHead(200, { ...COMMON_HEADERS, "Content-Type": "application/json; charset=utf-8" });
          res.end();
        },
      },
    },
    "/import": {
      token: ["POST"],
      methods: {
        POST: async (req, res, url) => {
          const r = url.searchParams.get("replace");
          if (r !== null && !["1", "true", "yes", "0", "false", "no"].includes(r)) throw new HttpError(400, `replace must be true or false, not ${JSON.stringify(r.slice(0, 20))}`);
          const replace = r !== null && ["1", "true", "yes"].includes(r);
          const doc = parseJsonObject(await readBody(req, IMPORT_MAX), false);
          noConversation("an import");
          let report: unknown;
          try {
            report = importMemory(host.booted, doc, { replace });
          } catch (e) {
            if (e instanceof ImportError) throw new HttpError(400, e.message, { path: e.path });
            throw new HttpError(500, `import failed: ${(e as Error).message}`);
          }
          service.flush(true);
          sendJson(res, 200, { imported: true, replace, report });
        },
      },
    },
    "/session/start": {
      token: ["POST"],
      methods: {
        POST: async (req, res) => {
          const b = await body(req, ["user_id"]);
          const userId = stringField(b, "user_id", { maxChars: 100 });
          let ended: Record<string, unknown> | undefined;
          if (session && !session.ended && listener.active) {
            const prev = session;
            listener.end("explicit");
            prev.ended ??= "explicit";
            ended = { session_id: prev.id, formed: prev.formed };
          }
          const s = openSession(userId);
          const reply: Record<string, unknown> = sessionView(s);
          if (ended) reply.ended_previous = ended;
          sendJson(res, 200, reply);
        },
      },
    },
    "/session/message": {
      token: ["POST"],
      methods: {
        POST: async (req, res) => {
          const b = await body(req, ["session_id", "role", "text", "content"], false);
          const role = stringField(b, "role", { required: true })!;
          if (role !== "user" && role !== "assistant") throw new HttpError(400, `"role" must be "user" or "assistant", not ${JSON.stringify(role.slice(0, 20))}`);
          if (b.text !== undefined && b.content !== undefined) throw new HttpError(400, 'give "text" or "content" (the same thing), not both');
          const field = b.content !== undefined ? "content" : "text";
          const text = stringField(b, field, { required: true, nonEmpty: true, maxChars: TEXT_MAX_CHARS })!;
          let s = checkSession(b);
          if (s && s.ended && b.session_id !== undefined) throw new HttpError(409, `session ${s.id} has ended (${s.ended}); POST /session/start opens a new one`);
          if (!s || s.ended) s = openSession(s?.userId);
          const heard: Heard[] = service.hear(role, text);
          s.messages++;
          const reply: Record<string, unknown> = { ...sessionView(s), heard };
          if (s.ended) reply.ended = s.ended; // a farewell answered: the conversation ended with this line
          sendJson(res, 200, reply);
        },
      },
    },
    "/session/end": {
      token: ["POST"],
      methods: {
        POST: async (req, res) => {
          const b = await body(req, ["session_id"]);
          const s = checkSession(b);
          if (!s) throw new HttpError(409, "no session is open; POST /session/start opens one");
          // the listener's end calls onEnd above, which records why and what was formed
          if (!s.ended && listener.active) listener.end("explicit");
          s.ended ??= "explicit";
          const eps = host.booted.episodes;
          const reply: Record<string, unknown> = { ...sessionView(s), ended: s.ended, formed: s.formed };
          if (eps)
            try {
              reply.episodes = eps.counts().active;
            } catch {
              /* the count is a courtesy */
            }
          session = undefined;
          sendJson(res, 200, reply);
        },
      },
    },
    "/context": {
      token: ["POST"],
      methods: {
        POST: async (req, res) => {
          const b = await body(req, ["message", "budget", "session_id"], false);
          const message = stringField(b, "message", { required: true, maxChars: 4000 })!;
          const budget = intField(b, "budget", 200, 4000);
          if (b.session_id !== undefined) checkSession(b);
          const args: Record<string, unknown> = { action: "context", message };
          if (budget !== undefined) args.budget = budget;
          let text: string;
          try {
            text = service.tool.call(args);
          } catch (e) {
            return toolError(e);
          }
          sendJson(res, 200, JSON.parse(text));
        },
      },
    },
    "/maintenance/forget": {
      token: ["POST"],
      methods: {
        POST: async (req, res) => {
          await body(req, []);
          noConversation("forgetting");
          const eps = host.booted.episodes;
          if (!eps) throw new HttpError(503, "episodes are not available on this device (its storage partition cannot be used)");
          const t = now();
          const total = { purged: 0, forgotten: [] as number[], evicted: [] as number[] };
          let passes = 0;
          try {
            for (; passes < FORGET_PASSES; ) {
              const r = eps.maintain(t);
              passes++;
              total.purged += r.purged;
              total.forgotten.push(...r.forgotten);
              total.evicted.push(...r.evicted);
              if (!r.more) break;
            }
          } catch (e) {
            if (e instanceof Error && e.name === "PowerCut") throw e;
            throw new HttpError(500, `forgetting failed: ${(e as Error).message}`, total);
          }
          const c = eps.counts();
          sendJson(res, 200, { ...total, passes, episodes: { active: c.active, core: c.core, trash: c.trash, tombstones: c.tombs, cap: eps.cap } });
        },
      },
    },
    "/maintenance/cleanup": {
      token: ["POST"],
      methods: {
        POST: async (req, res) => {
          await body(req, []);
          noConversation("cleanup");
          const reply: Record<string, unknown> = {};
          const a = host.booted.archive;
          if (a) {
            const did: string[] = [];
            let steps = 0;
            for (; steps < ARCHIVE_STEPS; steps++) {
              const r = a.step(now());
              if (!r) break;
              if (did.length < 50) did.push(r.did);
              if (r.did.indexOf("failed") === 0) {
                steps++;
                break;
              }
            }
            reply.archive = { steps, did };
          } else reply.archive = "not available";
          const eps = host.booted.episodes;
          if (eps) {
            const before = eps.counts();
            let steps = 0;
            for (; steps < EPISODE_STEPS; ) {
              steps++;
              if (!eps.step(now())) break;
            }
            const after = eps.counts();
            reply.episodes = { steps, trash_before: before.trash, trash_after: after.trash, active: after.active, tombstones: after.tombs };
          } else reply.episodes = "not available";
          sendJson(res, 200, reply);
        },
      },
    },
  };

  const allowedHost = (h: string | undefined): boolean => {
    if (!h) return false;
    const m = /^(127\.0\.0\.1|localhost)(?::(\d+))?$/i.exec(h);
    return m !== null && (m[2] === undefined || Number(m[2]) === port);
  };
  const allowedOrigin = (o: string): boolean => o === `http://127.0.0.1:${port}` || o === `http://localhost:${port}`;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<number> => {
    if (!allowedHost(req.headers.host)) throw new HttpError(403, `Host ${JSON.stringify((req.headers.host ?? "").slice(0, 60))} is not this server; use http://127.0.0.1:${port}`);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigin(origin)) throw new HttpError(403, "requests from other origins are refused (no CORS)");
    // the request target as a path on this server ("//x" is a path here, not another host)
    const target = req.url ?? "/";
    const url = new URL(target.startsWith("/") ? `http://127.0.0.1:${port}${target}` : `http://127.0.0.1:${port}/${target}`);
    const route = Object.prototype.hasOwnProperty.call(routes, url.pathname) ? routes[url.pathname] : undefined;
    if (!route) throw new HttpError(404, `no such path ${JSON.stringify(url.pathname.slice(0, 80))}; the paths: ${Object.keys(routes).filter((k) => k !== "/favicon.ico").join(" ")}`);
    const method = req.method === "HEAD" && route.methods.GET ? "GET" : (req.method ?? "");
    const h = route.methods[method];
    if (!h) {
      const allow = Object.keys(route.methods).join(", ");
      throw new HttpError(405, `${url.pathname} takes ${allow}, not ${method}`, {}, { Allow: allow });
    }
    if (route.token?.includes(method)) {
      const auth = req.headers.authorization;
      if (!auth) throw new HttpError(401, "this call needs the token printed at start: Authorization: Bearer TOKEN", {}, { "WWW-Authenticate": 'Bearer realm="petmem"' });
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (!m) throw new HttpError(403, "the Authorization header must be `Bearer TOKEN`, with the token `petmem web` printed at start");
      if (!sameToken(m[1], token)) throw new HttpError(403, "wrong token: use the one `petmem web` printed at start");
    }
    await h(req, res, url);
    return res.statusCode;
  };

  const server = http.createServer({ requestTimeout: 60000, headersTimeout: 20000 }, (req, res) => {
    const t0 = performance.now();
    const path = (req.url ?? "/").split("?")[0].slice(0, 80);
    handle(req, res)
      .then((status) => opts.log?.(req.method ?? "?", path, status, performance.now() - t0))
      .catch((e: unknown) => {
        const he = e instanceof HttpError ? e : new HttpError(500, `failed: ${e instanceof Error ? e.message : String(e)}`);
        if (!(e instanceof HttpError)) process.stderr.write(`petmem: web: ${req.method} ${path}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        if (res.headersSent) res.destroy();
        else {
          // a refused body is not read on: the connection closes after the reply
          if (he.status === 413 || !req.complete) he.headers.Connection = "close";
          sendError(res, he);
          if (he.status === 413) res.on("finish", () => req.destroy());
        }
        opts.log?.(req.method ?? "?", path, he.status, performance.now() - t0);
      });
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    // loopback only: never 0.0.0.0 or ::
    server.listen(opts.port, "127.0.0.1", () => {
      server.off("error", reject);
      port = (server.address() as AddressInfo).port;
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        token,
        close: () =>
          new Promise<void>((done) => {
            removeSink();
            for (const r of streams) r.end();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

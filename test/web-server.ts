// Starts `petmem web --port 0` as its own process on a data folder and talks
// to it over real HTTP (test/web.test.ts, test/browser.test.ts). The process
// is the program a user runs: the same CLI, lock, clock and shutdown.

import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const PETMEM = path.join(root, "desktop", "petmem.mjs");

export interface WebProcess {
  url: string;
  port: number;
  token: string;
  data: string;
  proc: ChildProcess;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function tempData(prefix = "petmem-web-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function startWebProcess(data: string, extra: string[] = ["--now", "2026-03-05T10:00", "--tz", "+08:00"]): Promise<WebProcess> {
  const proc = spawn(process.execPath, [PETMEM, "web", "--port", "0", "--data", data, ...extra], { cwd: os.tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stderr!.setEncoding("utf8");
  proc.stderr!.on("data", (c: string) => (err += c));
  proc.stdout!.setEncoding("utf8");
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`petmem web did not print its address in 20 s; stderr:\n${err}`));
    }, 20000);
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`petmem web exited ${code} before it printed its address; stderr:\n${err}`));
    };
    proc.once("exit", early);
    proc.stdout!.on("data", (c: string) => {
      out += c;
      const m = /^(http:\/\/127\.0\.0\.1:(\d+))\ntoken: ([0-9a-f]{32})\n/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.off("exit", early);
      resolve({
        url: m[1],
        port: Number(m[2]),
        token: m[3],
        data,
        proc,
        stderr: () => err,
        stop(signal: NodeJS.Signals = "SIGTERM") {
          if (proc.exitCode !== null || proc.signalCode !== null) return exited;
          proc.kill(signal);
          return exited;
        },
      });
    });
  });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  body?: string | Buffer | object;
  token?: string;
  headers?: Record<string, string>;
}

// One request over a fresh connection; the body is sent as given (a string
// or bytes) or as JSON (an object).
export function request(w: { port: number }, method: string, pathAndQuery: string, o: RequestOptions = {}): Promise<Reply> {
  const body = o.body === undefined ? undefined : typeof o.body === "string" || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = { Connection: "close", ...(o.headers ?? {}) };
  if (o.token !== undefined) headers.Authorization = `Bearer ${o.token}`;
  if (body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    headers["Content-Length"] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: w.port, method, path: pathAndQuery, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    // a server that refuses a large body may close before it is all sent: the reply still counts
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// Every byte the device keeps: the NVS image and each SPIFFS object's host file.
export function deviceBytes(data: string): Map<string, Buffer> {
  const m = new Map<string, Buffer>();
  m.set("nvs.bin", fs.readFileSync(path.join(data, "nvs.bin")));
  const dir = path.join(data, "storage");
  for (const f of fs.readdirSync(dir).sort()) m.set("storage/" + f, fs.readFileSync(path.join(dir, f)));
  return m;
}

export function sameBytes(a: Map<string, Buffer>, b: Map<string, Buffer>): string | undefined {
  const names = new Set([...a.keys(), ...b.keys()]);
  for (const n of names) {
    const x = a.get(n), y = b.get(n);
    if (!x || !y) return `${n} ${x ? "removed" : "added"}`;
    if (!x.equals(y)) return `${n} changed`;
  }
  return undefined;
}

// A conversation that forms memory: the owner's name, a like, a friend, a schedule.
export const CONVERSATION: [string, string][] = [
  ["user", "我叫小明"],
  ["assistant", "你好小明！"],
  ["user", "我喜欢恐龙"],
  ["assistant", "恐龙很酷！"],
  ["user", "我的好朋友是小红"],
  ["assistant", "小红是你的好朋友呀"],
  ["user", "明天下午三点去公园"],
  ["assistant", "好的，记住了"],
];

export async function converse(w: WebProcess, lines: [string, string][] = CONVERSATION): Promise<Reply> {
  const s = await request(w, "POST", "/session/start", { token: w.token, body: {} });
  if (s.status !== 200) throw new Error(`session/start: ${s.status} ${s.text}`);
  for (const [role, text] of lines) {
    const r = await request(w, "POST", "/session/message", { token: w.token, body: { session_id: s.json.session_id, role, text } });
    if (r.status !== 200) throw new Error(`session/message: ${r.status} ${r.text}`);
  }
  return request(w, "POST", "/session/end", { token: w.token, body: { session_id: s.json.session_id } });
}

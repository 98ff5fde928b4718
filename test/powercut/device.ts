// The device as the oracle sees it: booted by src/main.ts's own boot
// (src/app/boot.ts: archive check, Service, Archiver settling NVS/archive
// duplicates, the maintenance timer, the reminder timer), driven the way the AI and the
// companion drive it: MCP tools/call of the `memory` tool through
// Service.handle, conversation lines through Service.hear, the end of a
// conversation, and time passing (timers fire: reminders, the quiet-period
// flush, the early-morning maintenance).
//
// Every change goes through `Ai.call`, which writes the ledger: an attempt
// before the call, an acknowledgement when the reply says the change was
// stored. Nothing here reads flash.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { Archive } from "../../src/archive/archive";
import { bootDevice } from "../../src/app/boot";
import type { Reminder } from "../../src/schedule/reminder";
import type { Role } from "../../src/memory/types";
import { Ledger, type Kind } from "./ledger";

export interface BootOptions {
  partitionBytes?: number; // the archive's fallback partition size when System.info() cannot tell
}

export interface Booted {
  service: Service;
  archive: Archive | undefined; // undefined when boot set the archive aside
  reminded: string[]; // content@datetime of every reminder the sink got since this boot
  line: string; // the boot trace line
}

// src/main.ts's boot (src/app/boot.ts), with the sink recording reminders.
export function boot(opts: BootOptions = {}, onRemind?: (r: string) => void): Booted {
  const reminded: string[] = [];
  const sink = {
    remind: (r: Reminder) => {
      reminded.push(`${r.content}@${r.datetime}`);
      onRemind?.(`${r.content}@${r.datetime}`);
    },
  };
  const b = bootDevice(() => new Archive(config.file.root, opts.partitionBytes !== undefined ? { partitionBytes: opts.partitionBytes } : {}), { sink });
  return { service: b.service, archive: b.archive, reminded, line: b.line };
}

export interface Reply {
  ok: boolean; // a tools/call result with isError false
  text: string; // the result's text, or the JSON-RPC error's message
  json: Record<string, unknown> | undefined; // the text parsed, when it is JSON
}

let rpcId = 0;
export function callTool(svc: Service, args: Record<string, unknown>): Reply {
  const raw = svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name: "memory", arguments: args } }));
  if (raw === undefined) return { ok: false, text: "no reply", json: undefined };
  const r = JSON.parse(raw) as { result?: { isError: boolean; content: { text: string }[] }; error?: { message: string } };
  if (!r.result) return { ok: false, text: r.error ? r.error.message : "no result", json: undefined };
  const text = r.result.content[0].text;
  let json: Record<string, unknown> | undefined;
  try {
    const j = JSON.parse(text);
    if (j && typeof j === "object" && !Array.isArray(j)) json = j as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { ok: !r.result.isError, text, json };
}

// Replies that say the change is stored.
export const STORED = ["added", "updated", "deleted", "no_change", "completed", "confirmed", "dropped"];
export function stored(r: Reply): boolean {
  return r.ok && !!r.json && typeof r.json.result === "string" && STORED.indexOf(r.json.result) >= 0;
}

export interface Effect {
  kind: Kind;
  key: string;
  value: string | null;
}

// The canonical value of a record of each kind, as the ledger and the
// observation of `read`, `recall` and `search` spell it.
export const value = {
  family: (relation: string, name: string, closeness: number, memory: string) => `${relation}|${name}|${closeness}|${memory}`,
  trait: (category: string, content: string) => (category && category !== "other" ? `${category}: ${content}` : content),
  habit: (content: string, frequency: string) => `${content} (${frequency})`,
  moment: (topic: string, content: string) => `${topic}|${content}`,
  goal: (content: string, priority: number) => `${content}|${priority}`,
};

const PROFILE = ["name", "age", "gender", "location", "birthday"];

// What a call of the memory tool is meant to change. Workloads always give
// every field a record has, so the value is known from the arguments.
export function effects(a: Record<string, unknown>): Effect[] {
  const t = String(a.type ?? "");
  const c = String(a.content ?? "");
  if (a.action === "write") {
    if (PROFILE.indexOf(t) >= 0) return [{ kind: "profile", key: t, value: c }];
    switch (t) {
      case "like":
      case "dislike":
        return [
          { kind: t, key: c, value: c },
          { kind: t === "like" ? "dislike" : "like", key: c, value: null },
        ];
      case "family":
        return [{ kind: "family", key: String(a.name), value: value.family(String(a.relation), String(a.name), Number(a.closeness), String(a.memory ?? "")) }];
      case "fact":
        return [{ kind: "fact", key: c, value: c }];
      case "trait":
        return [{ kind: "trait", key: c, value: value.trait(String(a.category), c) }];
      case "habit":
        return [{ kind: "habit", key: c, value: value.habit(c, String(a.frequency)) }];
      case "moment":
        return [{ kind: "moment", key: c, value: value.moment(String(a.topic), c) }];
      case "goal":
        return [{ kind: "goal", key: c, value: value.goal(c, Number(a.priority)) }];
      case "schedule":
        return [{ kind: "schedule", key: c, value: a.repeat && a.repeat !== "none" ? "open" : `open@${String(a.datetime)}` }];
      case "episode":
        return [{ kind: "episode", key: c, value: c }];
    }
  }
  if (a.action === "delete") {
    if (PROFILE.indexOf(t) >= 0) return [{ kind: "profile", key: t, value: null }];
    if (t === "family") return [{ kind: "family", key: c, value: null }];
    if (t === "schedule") return [{ kind: "schedule", key: c, value: null }];
    return [{ kind: t as Kind, key: c, value: null }];
  }
  return [];
}

// The workload's view of one device across its reboots: the AI calling the
// tool, the companion feeding it speech, time passing.
export class Ai {
  readonly ledger = new Ledger();
  readonly delivered: string[] = []; // every reminder the user got (acknowledged to the user)
  readonly heard: string[] = []; // what the listener said it heard (type:content), for the universe
  calls = 0;
  booted: Booted;
  // the schedules completed: content -> the open value it had
  constructor(readonly dev: SimDevice, readonly opts: BootOptions = {}) {
    this.booted = this.boot();
  }

  boot(): Booted {
    // reminders delivered during this boot join the record of deliveries
    const b = boot(this.opts, (r) => this.delivered.push(r));
    this.booted = b;
    return b;
  }

  get service(): Service {
    return this.booted.service;
  }

  // One call of the memory tool, recorded in the ledger.
  call(args: Record<string, unknown>, extra: Effect[] = []): Reply {
    this.calls++;
    const fx = effects(args).concat(extra);
    for (const e of fx) this.ledger.attempt(e.kind, e.key, e.value);
    const r = callTool(this.service, args);
    if (stored(r)) {
      const ts = Math.floor(this.dev.clock.now / 1000);
      for (const e of fx) this.ledger.ack(e.kind, e.key, e.value, ts);
      // a full rolling list let its oldest entry go (likes, traits, habits)
      const dropped = r.json!.dropped;
      if (typeof dropped === "string" && args.action === "write" && (args.type === "like" || args.type === "dislike" || args.type === "trait" || args.type === "habit"))
        this.ledger.ack(args.type as Kind, dropped, null);
    } else if (r.ok && r.json) {
      // a definite answer that nothing changed (not_found, conflict)
      for (const e of fx) this.ledger.withdraw(e.kind, e.key, e.value);
    }
    return r;
  }

  // A schedule completed through the tool: a one-off becomes done, a series stays open.
  complete(content: string, current: string): Reply {
    const done = current === "open" ? "open" : "done@" + current.slice(5);
    return this.call({ action: "complete_schedule", content }, [{ kind: "schedule", key: content, value: done }]);
  }

  hear(role: Role, text: string): void {
    const h = this.service.hear(role, text);
    for (const x of h) this.heard.push(x.content);
  }

  // What `read` shows once a conversation has ended and been flushed is what
  // the device told the AI it remembers from listening: acknowledged.
  // Records acknowledged before that `read` no longer shows were superseded
  // (a negation, a correction). Schedules are acknowledged while upcoming.
  ackRead(): void {
    const r = callTool(this.service, { action: "read" });
    if (!r.ok || !r.json) return;
    const j = r.json as Record<string, any>;
    const now: Effect[] = [];
    const p = j.profile ?? {};
    for (const f of PROFILE) if (p[f] !== undefined) now.push({ kind: "profile", key: f, value: String(p[f]) });
    for (const x of j.preferences?.likes ?? []) now.push({ kind: "like", key: x, value: x });
    for (const x of j.preferences?.dislikes ?? []) now.push({ kind: "dislike", key: x, value: x });
    for (const f of j.family ?? []) now.push({ kind: "family", key: f.name || f.relation, value: value.family(f.relation, f.name, f.closeness, f.memory ?? "") });
    for (const x of j.facts ?? []) now.push({ kind: "fact", key: x, value: x });
    const seen = new Set(now.map((e) => e.kind + "\u0000" + e.key));
    for (const e of this.ledger.all())
      if (e.kind !== "schedule" && e.acked && e.background === undefined && !seen.has(e.kind + "\u0000" + e.key)) this.ledger.ack(e.kind, e.key, null);
    for (const e of now) this.ledger.ack(e.kind, e.key, e.value);
    for (const s of j.schedules ?? []) if (s.repeat === "none") this.ledger.ack("schedule", s.content, `open@${s.datetime}`);
  }

  endConversation(): void {
    this.service.endConversation();
  }

  advanceTo(t: number): void {
    this.dev.clock.advanceTo(t);
  }
}

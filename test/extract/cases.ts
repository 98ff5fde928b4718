// The speech set and how it is scored through the device's whole path
// (issue 15). Pure: runs under Node (tools/eval-extract.ts, mocha) and in XS.
//
// A case is one line: `category | turns | expectations`.
// - turns are separated by " / "; a turn starting with "A:" is the
//   assistant's, the others the user's; " // " ends the conversation and
//   starts another one ten minutes later.
// - expectations are separated by ";":
//     kind=value      stored: what `read` shows in memory after the case
//     kind?=value     unsure: waits in `read`'s pending, not in memory
//     !kind=value     forbidden: neither stored nor pending
//     !kind           nothing of that kind, stored or pending
//     !*              nothing at all, stored or pending
//     !*=text         no stored or pending item contains text
// - kinds and values: name, age, gender, location, birthday (MM-DD): the
//   profile field, exactly; like, dislike, fact: an item containing value;
//   family=relation:name[:note]: a member with that relation and name (an
//   empty name: any) whose memory contains note; schedule=YYYY-MM-DD HH:MM
//   text [@daily|@weekly|@monthly]: a schedule at that time containing text,
//   with that repeat (none if not said); event=YYYY-MM-DD text: a plain event
//   of that day; yearly=MM-DD text: a yearly event; todo=text: a reminder
//   without a time.
// Each case runs on a FRESH simulated device (NVS, clock at REFERENCE_TIME):
// the turns go through Service.hear (the listener, the pending queue), each
// conversation ends with Service.endConversation (the batch into the stores),
// and what `read` then shows is scored.

import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { fromLocal } from "../../src/time/local";

export const REFERENCE_TIME = fromLocal(2026, 2, 5, 13, 0); // Thursday 13:00 local
const TURN_MS = 5000;
const BETWEEN_MS = 600000;

export type Want = { kind: string; value: string; state: "stored" | "pending" };
export type Forbid = { kind: string; value?: string };

export interface Case {
  category: string;
  conversations: { role: "user" | "assistant"; text: string }[][];
  want: Want[];
  forbid: Forbid[];
  source: string;
  heldOut: boolean;
}

export function parseCase(line: string, heldOut = false): Case {
  const parts = line.split(" | ");
  if (parts.length !== 3) throw new Error(`a case needs 'category | turns | expectations': ${line}`);
  const conversations = parts[1].split(" // ").map((c) =>
    c.split(" / ").map((t) => {
      const s = t.trim();
      return s.indexOf("A:") === 0 ? { role: "assistant" as const, text: s.slice(2) } : { role: "user" as const, text: s };
    }),
  );
  const want: Want[] = [];
  const forbid: Forbid[] = [];
  for (const raw of parts[2].split(";")) {
    const e = raw.trim();
    if (!e) continue;
    if (e.charAt(0) === "!") {
      const i = e.indexOf("=");
      forbid.push(i < 0 ? { kind: e.slice(1) } : { kind: e.slice(1, i), value: e.slice(i + 1) });
      continue;
    }
    const i = e.indexOf("=");
    if (i < 0) throw new Error(`bad expectation '${e}' in: ${line}`);
    let kind = e.slice(0, i);
    let state: Want["state"] = "stored";
    if (kind.charAt(kind.length - 1) === "?") {
      kind = kind.slice(0, -1);
      state = "pending";
    }
    want.push({ kind, value: e.slice(i + 1), state });
  }
  return { category: parts[0].trim(), conversations, want, forbid, source: line, heldOut };
}

// ---- what read shows ----------------------------------------------------------

interface Doc {
  profile: Record<string, string | number>;
  preferences: { likes: string[]; dislikes: string[] };
  family: { relation: string; name: string; memory?: string }[];
  facts: string[];
  traits: string[];
  habits: string[];
  moments: { content: string }[];
  goals: { content: string }[];
  schedules: { content: string; datetime: string; repeat: string }[];
  events?: { date: string; content: string; type?: string }[];
  pending: { type: string; content: string; date?: string; datetime?: string; repeat?: string }[];
}

const PROFILE = ["name", "age", "gender", "location", "birthday"];

function has(s: string | undefined, v: string): boolean {
  return s !== undefined && s.toLowerCase().indexOf(v.toLowerCase()) >= 0;
}

// schedule value "YYYY-MM-DD HH:MM text [@repeat]"
function scheduleParts(v: string): { datetime: string; text: string; repeat: string } {
  const m = /^(\S+ \S+)\s*(.*?)(?:\s+@(\w+))?$/.exec(v);
  return m ? { datetime: m[1], text: m[2], repeat: m[3] ?? "none" } : { datetime: v, text: "", repeat: "none" };
}

function familyMatch(rel: string, name: string, note: string, m: { relation: string; name: string; memory?: string }): boolean {
  return m.relation === rel && (!name || m.name === name) && (!note || has(m.memory, note));
}

// One stored item of `kind` matching `value` (exact for profile fields).
function stored(doc: Doc, kind: string, value: string): boolean {
  if (PROFILE.indexOf(kind) >= 0) return String(doc.profile[kind] ?? "") === value;
  switch (kind) {
    case "like":
      return doc.preferences.likes.some((x) => has(x, value));
    case "dislike":
      return doc.preferences.dislikes.some((x) => has(x, value));
    case "fact":
      return doc.facts.some((x) => has(x, value));
    case "family": {
      const [rel, name = "", note = ""] = value.split(":");
      return doc.family.some((m) => familyMatch(rel, name, note, m));
    }
    case "schedule": {
      const s = scheduleParts(value);
      return doc.schedules.some((x) => x.datetime === s.datetime && has(x.content, s.text) && x.repeat === s.repeat);
    }
    case "event":
    case "yearly": {
      const sp = value.indexOf(" ");
      const date = sp < 0 ? value : value.slice(0, sp), text = sp < 0 ? "" : value.slice(sp + 1);
      return (doc.events ?? []).some((e) => e.date === date && has(e.content, text));
    }
    case "todo":
      return (doc.events ?? []).some((e) => e.type === "todo" && has(e.content, value));
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

function pendingMatch(doc: Doc, kind: string, value: string): boolean {
  return doc.pending.some((p) => {
    if (PROFILE.indexOf(kind) >= 0) return p.type === kind && p.content === value;
    if (kind === "schedule") {
      const s = scheduleParts(value);
      return p.type === "schedule" && p.datetime === s.datetime && has(p.content, s.text);
    }
    if (kind === "event" || kind === "yearly") {
      const sp = value.indexOf(" ");
      return p.type === "event" && (p.date ?? "").indexOf(value.slice(0, sp)) >= 0 && has(p.content, value.slice(sp + 1));
    }
    if (kind === "family") return p.type === "family" && p.content.indexOf(value.replace(/:+$/, "")) === 0;
    return p.type === kind && has(p.content, value);
  });
}

// Everything stored or pending, as text, for the forbidden checks.
function all(doc: Doc, kind: string): string[] {
  const out: string[] = [];
  const p = doc.profile;
  const any = kind === "*";
  for (const f of PROFILE) if ((any || kind === f) && p[f] !== undefined && p[f] !== "" && p[f] !== 0) out.push(String(p[f]));
  if (any || kind === "like") out.push(...doc.preferences.likes);
  if (any || kind === "dislike") out.push(...doc.preferences.dislikes);
  if (any || kind === "family") for (const m of doc.family) out.push(`${m.relation}:${m.name}:${m.memory ?? ""}`);
  if (any || kind === "fact") out.push(...doc.facts);
  if (any) {
    out.push(...doc.traits, ...doc.habits);
    for (const m of doc.moments) out.push(m.content);
    for (const g of doc.goals) out.push(g.content);
  }
  if (any || kind === "schedule") for (const s of doc.schedules) out.push(`${s.datetime} ${s.content}`);
  if (any || kind === "event" || kind === "yearly" || kind === "todo")
    for (const e of doc.events ?? []) if (any || kind === "event" || (kind === "yearly" ? e.date.length === 5 : e.type === "todo")) out.push(`${e.date} ${e.content}`);
  for (const x of doc.pending) {
    if (!any && x.type !== kind && !(kind === "yearly" && x.type === "event")) continue;
    out.push(x.type === "schedule" ? `${x.datetime} ${x.content}` : x.type === "event" ? `${x.date ?? ""} ${x.content}` : x.content);
  }
  return out;
}

function forbidden(doc: Doc, f: Forbid): boolean {
  const items = all(doc, f.kind);
  if (f.value === undefined) return items.length > 0;
  if (PROFILE.indexOf(f.kind) >= 0) return items.some((x) => x === f.value);
  return items.some((x) => has(x, f.value!));
}

// ---- running a case --------------------------------------------------------------

export interface Outcome {
  found: number;
  missing: string[];
  hits: string[];
  userTurns: number;
  hearMs: number[]; // per user turn
}

export function runCase(c: Case, clock: () => number = () => Date.now()): Outcome {
  const dev = new SimDevice({ now: REFERENCE_TIME }).install();
  const svc = new Service({ sink: { remind() {} } });
  const hearMs: number[] = [];
  for (let k = 0; k < c.conversations.length; k++) {
    if (k) dev.clock.advanceTo(dev.clock.now + BETWEEN_MS);
    for (const t of c.conversations[k]) {
      dev.clock.advanceTo(dev.clock.now + TURN_MS);
      const t0 = clock();
      svc.hear(t.role, t.text);
      if (t.role === "user") hearMs.push(clock() - t0);
    }
    svc.endConversation();
  }
  const doc = JSON.parse(svc.tool.call({ action: "read" })) as Doc;
  svc.stop();
  let found = 0;
  const missing: string[] = [];
  for (const w of c.want) {
    const ok = w.state === "stored" ? stored(doc, w.kind, w.value) : pendingMatch(doc, w.kind, w.value) && !stored(doc, w.kind, w.value);
    if (ok) found++;
    else missing.push(`${w.kind}${w.state === "pending" ? "?" : ""}=${w.value}`);
  }
  const hits = c.forbid.filter((f) => forbidden(doc, f)).map((f) => `!${f.kind}${f.value === undefined ? "" : "=" + f.value}`);
  return { found, missing, hits, userTurns: hearMs.length, hearMs };
}

export interface Tally {
  cases: number;
  expected: number;
  found: number;
  forbidden_total: number;
  forbidden_hits: number;
}

export function tally(): Tally {
  return { cases: 0, expected: 0, found: 0, forbidden_total: 0, forbidden_hits: 0 };
}

export function add(t: Tally, c: Case, o: Outcome): void {
  t.cases++;
  t.expected += c.want.length;
  t.found += o.found;
  if (c.forbid.length) {
    t.forbidden_total++;
    if (o.hits.length) t.forbidden_hits++;
  }
}

// The time of each user utterance (Service.hear) in another pass over the
// cases, each on fresh devices; the eval keeps the lesser of two passes, so
// that the numbers are the cost of the work, not a pause of a busy machine.
export function timings(cases: readonly Case[], clock: () => number): number[] {
  const out: number[] = [];
  for (const c of cases) for (const ms of runCase(c, clock).hearMs) out.push(ms);
  return out;
}

export function lesser(a: number[], b: readonly number[]): number[] {
  for (let i = 0; i < a.length; i++) if (b[i] < a[i]) a[i] = b[i];
  return a;
}

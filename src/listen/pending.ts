// The pending queue (seed 000 §3.4; the fork's pending_memory): what the
// extractor heard, waiting to be confirmed before it becomes memory. It is an
// NVS store like the others (SPECS.pending, PendingItem records), so a reboot
// keeps it.
//
// Rules:
// - At most 20 items. A new item in a full queue evicts the oldest item not
//   yet confirmed (the oldest of all if every one is confirmed).
// - An item expires 7 days after it was first heard (pruned whenever the queue
//   changes; never shown once expired).
// - Confirmed: heard in two separate utterances (CONFIRM_THRESHOLD), or said
//   with confidence 5 (HIGH_CONFIDENCE). Confirmed items are written to memory
//   in one batch at the end of the conversation (Listener.end), or at the next
//   boot if the conversation never ended (a power cut).
// - The AI can confirm an item (written at once, like any tool write) or drop
//   it. A direct tool write (with or without force) settles the pending item
//   it covers: the queue drops it, the tool's value wins.
// - Items are matched by a key computed from the whole value, never from bytes
//   cut short (the fork cut its keys at 31 bytes, splitting UTF-8 and merging
//   long values that share a prefix): name, age, gender, location, birthday:
//   the field (a new value replaces the old, heard count back to 1); like and
//   dislike: the thing (saying 我讨厌X after 我喜欢X replaces the like); family:
//   the name, or the relation when there is no name; fact: the text; event
//   and schedule: the time and the text.
// - An item already in memory (the same name, a like already there…) is not
//   queued: it is known.
// - Writing a confirmed item again is a NOOP: every write below is
//   idempotent, so a power cut between the memory stores' flush and the
//   pending store's (which leaves the item both written and still pending)
//   only repeats a NOOP at the next batch.
//
// Values: see src/listen/extract.ts. `when` is in unix seconds.

import { Memory, MemoryError, seconds, type Result } from "../memory/memory";
import { Schedules } from "../schedule/schedules";
import { SPECS, newEvent, type PendingItem, type PendingKind } from "../memory/types";
import { formatDate, formatDateTime } from "../time/local";
import { MEMBER_TYPE, type Extracted, type Retraction } from "./extract";

export const CONFIRM_THRESHOLD = 2;
export const HIGH_CONFIDENCE = 5;
export const EXPIRY_SECONDS = 7 * 86400;
export const PENDING_CAPACITY = SPECS.pending.capacity;

const SINGLE: PendingKind[] = ["name", "age", "gender", "location", "birthday"];

export type Outcome = "queued" | "heard_again" | "confirmed" | "replaced" | "known";

export interface Formed {
  type: PendingKind;
  content: string;
  date?: string; // event: YYYY-MM-DD
  datetime?: string; // schedule: YYYY-MM-DD HH:MM
  result: "added" | "updated" | "no_change" | "conflict" | "full" | "invalid";
  confidence: number;
  heard: number;
  dropped?: string; // what a full store let go
  error?: string;
}

export interface PendingView {
  type: PendingKind;
  content: string;
  date?: string;
  datetime?: string;
  confidence: number;
  heard: number;
  first_heard: string; // YYYY-MM-DD HH:MM, local
  confirmed: boolean;
}

export function isConfirmed(p: PendingItem): boolean {
  return p.count >= CONFIRM_THRESHOLD || p.confidence >= HIGH_CONFIDENCE;
}

function familyParts(value: string): { relation: string; name: string } {
  const i = value.indexOf(":");
  return i < 0 ? { relation: value, name: "" } : { relation: value.slice(0, i), name: value.slice(i + 1) };
}

export function keyOf(kind: PendingKind, value: string, when: number): string {
  if (SINGLE.indexOf(kind) >= 0) return kind;
  if (kind === "like" || kind === "dislike") return "pref:" + value;
  if (kind === "family") {
    const f = familyParts(value);
    return "family:" + (f.name || f.relation);
  }
  if (kind === "fact") return "fact:" + value;
  return `${kind}:${when}:${value}`;
}

function where(p: PendingItem): { date?: string; datetime?: string } {
  if (p.kind === "schedule") return { datetime: formatDateTime(p.when * 1000) };
  if (p.kind === "event") return { date: formatDate(p.when * 1000) };
  return {};
}

export function view(p: PendingItem): PendingView {
  return { type: p.kind, content: p.value, ...where(p), confidence: p.confidence, heard: p.count, first_heard: formatDateTime(p.first * 1000), confirmed: isConfirmed(p) };
}

const RESULT: Record<Result["action"], Formed["result"]> = { ADDED: "added", UPDATED: "updated", DELETED: "updated", NOOP: "no_change" };

export class PendingQueue {
  constructor(readonly memory: Memory, readonly schedules: Schedules) {}

  private get store() {
    return this.memory.stores.pending;
  }

  // The live items (expired ones left out), oldest first. Does not change the store.
  items(at = seconds()): PendingItem[] {
    return this.store
      .all()
      .filter((p) => at - p.first <= EXPIRY_SECONDS)
      .map((p) => ({ ...p }));
  }

  list(at = seconds()): PendingView[] {
    return this.items(at).map(view);
  }

  private save(list: PendingItem[]): void {
    const before = this.store.all();
    if (list.length === before.length && list.every((p, i) => sameItem(p, before[i]))) return;
    this.store.set(list);
  }

  // Drops expired items; returns how many.
  prune(at = seconds()): number {
    const list = this.items(at);
    const n = this.store.count - list.length;
    if (n) this.store.set(list);
    return n;
  }

  // Whether memory already holds exactly this.
  known(p: PendingItem): boolean {
    const m = this.memory;
    switch (p.kind) {
      case "name":
      case "gender":
      case "location":
      case "birthday":
        return m.profile()[p.kind] === p.value;
      case "age":
        return String(m.profile().age) === p.value;
      case "like":
      case "dislike": {
        const prefs = m.preferences();
        return (p.kind === "like" ? prefs.likes : prefs.dislikes).indexOf(p.value) >= 0;
      }
      case "family": {
        const f = familyParts(p.value);
        return m.family().some((x) => (f.name ? x.name === f.name : !x.name && x.relation === f.relation) && x.relation === f.relation);
      }
      case "fact":
        return m.facts().some((x) => x.content === p.value);
      case "event": {
        const d = formatDate(p.when * 1000);
        return m.events().some((x) => x.date === d && x.time === "" && x.content === p.value);
      }
      default: {
        const dt = formatDateTime(p.when * 1000);
        return m.events().some((x) => x.schedule && `${x.date} ${x.time}` === dt && x.content === p.value);
      }
    }
  }

  // One extracted item heard in one utterance.
  offer(e: Extracted, at = seconds()): { outcome: Outcome; item: PendingItem } {
    const rec = SPECS.pending.layout.normalize({
      kind: e.kind,
      confidence: Math.max(1, Math.min(5, e.confidence)),
      count: 1,
      first: at,
      when: e.when === undefined ? 0 : Math.floor(e.when / 1000),
      value: e.value,
    });
    const list = this.items(at);
    const key = keyOf(rec.kind, rec.value, rec.when);
    const i = list.findIndex((p) => keyOf(p.kind, p.value, p.when) === key);
    if (this.known(rec)) {
      // already memory: nothing to confirm, and an older different value pending is stale
      if (i >= 0) list.splice(i, 1);
      this.save(list);
      return { outcome: "known", item: rec };
    }
    let outcome: Outcome;
    let item: PendingItem;
    if (i >= 0 && list[i].kind === rec.kind && list[i].value === rec.value && list[i].when === rec.when) {
      item = list[i];
      item.count = Math.min(255, item.count + 1);
      item.confidence = Math.max(item.confidence, rec.confidence);
      outcome = isConfirmed(item) ? "confirmed" : "heard_again";
    } else {
      item = rec;
      if (i >= 0) {
        list[i] = rec;
        outcome = "replaced";
      } else {
        if (list.length >= PENDING_CAPACITY) {
          let victim = -1;
          for (let k = 0; k < list.length; k++) if (!isConfirmed(list[k]) && (victim < 0 || list[k].first < list[victim].first)) victim = k;
          if (victim < 0) victim = 0;
          list.splice(victim, 1);
        }
        list.push(rec);
        outcome = "queued";
      }
      if (isConfirmed(rec)) outcome = "confirmed";
    }
    this.save(list);
    return { outcome, item: { ...item } };
  }

  // "我不再喜欢X": a pending like X goes. Returns how many went.
  retract(r: Retraction, at = seconds()): number {
    const list = this.items(at);
    const keep = list.filter((p) => !(p.kind === r.kind && p.value === r.value));
    if (keep.length !== list.length || this.store.count !== list.length) this.store.set(keep);
    return list.length - keep.length;
  }

  // The AI wrote this itself: a pending item it covers is settled.
  settle(kind: PendingKind, value: string, at = seconds()): number {
    const key = keyOf(kind, value, 0);
    const list = this.items(at);
    const keep = list.filter((p) => (p.kind === "event" || p.kind === "schedule" ? true : keyOf(p.kind, p.value, p.when) !== key));
    if (keep.length !== list.length) this.store.set(keep);
    return list.length - keep.length;
  }

  // The item the AI names: by content (exactly as listed), and type when
  // several items share a content.
  find(type: string | undefined, content: string, at = seconds()): PendingItem {
    const list = this.items(at);
    let hits = list.filter((p) => p.value === content && (!type || p.kind === type));
    if (!hits.length) hits = list.filter((p) => (p.kind === "family" && familyParts(p.value).name === content) || ((!type || p.kind === type) && p.value.indexOf(content) >= 0));
    if (!hits.length) throw new MemoryError("not_found", `nothing pending matches '${content}'`);
    if (hits.length > 1) throw new MemoryError("ambiguous", `'${content}' matches ${hits.length} pending items: ${hits.map((p) => `${p.kind} '${p.value}'`).join(", ")}. Say which one (type and content)`);
    return hits[0];
  }

  private remove(p: PendingItem, at: number): void {
    this.store.set(this.items(at).filter((x) => !sameItem(x, p)));
  }

  drop(type: string | undefined, content: string, at = seconds()): PendingView {
    const p = this.find(type, content, at);
    this.remove(p, at);
    return view(p);
  }

  // The AI confirms an item: it is written now. A schedule that conflicts
  // stays pending unless force is given. Errors (a full store) leave it pending.
  confirm(type: string | undefined, content: string, force = false, at = seconds()): Formed {
    const p = this.find(type, content, at);
    const f = this.write(p, force);
    if (f.result === "conflict" || f.result === "full" || f.result === "invalid") {
      if (f.result !== "conflict") throw new MemoryError(f.result === "full" ? "full" : "invalid", f.error ?? f.result);
      return f;
    }
    this.remove(p, at);
    return f;
  }

  // End of a conversation: every confirmed item goes to memory (RAM; the
  // caller flushes once). Items that cannot be written (a conflicting
  // schedule, a full store) are dropped and reported.
  writeConfirmed(at = seconds()): Formed[] {
    const list = this.items(at);
    const out: Formed[] = [];
    const keep: PendingItem[] = [];
    for (const p of list) {
      if (isConfirmed(p)) out.push(this.write(p, false));
      else keep.push(p);
    }
    if (out.length || this.store.count !== list.length) this.store.set(keep);
    return out;
  }

  get confirmedCount(): number {
    return this.items().filter(isConfirmed).length;
  }

  // Writes one item to memory. Idempotent: a second write is a NOOP.
  write(p: PendingItem, force: boolean): Formed {
    const f: Formed = { type: p.kind, content: p.value, ...where(p), result: "no_change", confidence: p.confidence, heard: p.count };
    const m = this.memory;
    try {
      let r: Result;
      switch (p.kind) {
        case "name":
        case "age":
        case "gender":
        case "location":
        case "birthday":
          r = m.setProfile(p.kind, p.value);
          break;
        case "like":
        case "dislike":
          r = m.addPreference(p.kind, p.value);
          break;
        case "family": {
          const x = familyParts(p.value);
          r = m.upsertFamily({ relation: x.relation, name: x.name || undefined, memberType: MEMBER_TYPE[x.relation] ?? "other" });
          break;
        }
        case "fact":
          r = m.addFact(p.value);
          break;
        case "event":
          r = m.addEvent(newEvent({ date: f.date!, content: p.value }));
          break;
        default: {
          const o = this.schedules.add({ content: p.value, datetime: f.datetime, force });
          if (o.action === "CONFLICT") {
            f.result = "conflict";
            f.error = `conflicts with '${o.conflicts[0].content}' at ${o.conflicts[0].datetime}`;
            return f;
          }
          r = { action: o.action === "ADDED" ? "ADDED" : "NOOP" };
        }
      }
      f.result = RESULT[r.action];
      if (r.dropped) f.dropped = r.dropped;
    } catch (e) {
      if (!(e instanceof MemoryError)) throw e;
      f.result = e.code === "full" ? "full" : "invalid";
      f.error = e.message;
    }
    return f;
  }
}

function sameItem(a: PendingItem, b: PendingItem): boolean {
  return a.kind === b.kind && a.value === b.value && a.when === b.when && a.first === b.first && a.count === b.count && a.confidence === b.confidence;
}

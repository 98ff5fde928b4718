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
//   plainly (confidence 4 or 5: HIGH_CONFIDENCE). Guesses (3) and hedged or
//   laughed-off items (2) wait: an unsure item is never stored at full
//   confidence by the device itself. Confirmed items are written to memory
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
// Values: see src/listen/extract.ts. `when` is in unix seconds. A repeating
// schedule and a tagged event carry their kind in front of the text:
// "d|", "w|", "m|" (daily, weekly, monthly), "y|" (a yearly event: `when` is
// its next day), "r|" (a dated reminder without a time), "t|" (a todo: no
// date; `when` 0). The views and the memory never show the prefix.
//
// Writes are AUDN: a profile field said again with another value replaces it
// (result "updated", `previous` says what it was), a like said as a dislike
// moves, a school grade replaces the grade before it, what is said about a
// family member joins what was known of them.

import { Memory, MemoryError, seconds, type Result } from "../memory/memory";
import { Schedules } from "../schedule/schedules";
import { SPECS, newEvent, type PendingItem, type PendingKind, type Repeat } from "../memory/types";
import { byteLength } from "../text/utf8";
import { formatDate, formatDateTime } from "../time/local";
import { MEMBER_TYPE, type Extracted, type Retraction, type EventTag } from "./extract";

export const CONFIRM_THRESHOLD = 2;
export const HIGH_CONFIDENCE = 4; // a plain statement (4) or an explicit one (5)
const FAMILY_MEMORY_BYTES = 64; // FamilyMember.sharedMemory
const NOTE_SEP = "，";

const CODES: Readonly<Record<string, Repeat | EventTag>> = Object.freeze({ d: "daily", w: "weekly", m: "monthly", y: "yearly", r: "reminder", t: "todo" });
const CODE_OF: Readonly<Record<string, string>> = Object.freeze({ daily: "d", weekly: "w", monthly: "m", yearly: "y", reminder: "r", todo: "t" });

// The stored value of an extracted item (with its kind prefix, if any).
export function encode(e: Extracted): string {
  const code = e.kind === "schedule" && e.repeat ? CODE_OF[e.repeat] : e.kind === "event" && e.tag ? CODE_OF[e.tag] : undefined;
  return code ? code + "|" + e.value : e.value;
}

// The text of a pending item and its prefix's meaning.
export function decode(p: { kind: PendingKind; value: string }): { text: string; repeat?: Repeat; tag?: EventTag } {
  const m = /^([dwmyrt])\|/.exec(p.value);
  if (!m || (p.kind !== "schedule" && p.kind !== "event")) return { text: p.value };
  const v = CODES[m[1]];
  return p.kind === "schedule" ? { text: p.value.slice(2), repeat: v as Repeat } : { text: p.value.slice(2), tag: v as EventTag };
}

// School grades replace each other (初一 → 初二): a fact in a slot replaces the one before.
const FACT_SLOTS: readonly RegExp[] = Object.freeze([/^主人(?:在.{1,10}?|)(?:上|读|在读|念)(?:小学|初中|高中|大学)?(?:[一二三四五六七八九十0-9]+年级|初[一二三]|高[一二三]|大[一二三四]|研[一二三]|大班|中班|小班)/]);
export const EXPIRY_SECONDS = 7 * 86400;
export const PENDING_CAPACITY = SPECS.pending.capacity;

const SINGLE: PendingKind[] = ["name", "age", "gender", "location", "birthday"];

// kept: a weaker statement (a guess, a hedge) does not replace a surer one of the same key
export type Outcome = "queued" | "heard_again" | "confirmed" | "replaced" | "known" | "kept";

export interface Formed {
  type: PendingKind;
  content: string;
  date?: string; // event: YYYY-MM-DD
  datetime?: string; // schedule: YYYY-MM-DD HH:MM
  repeat?: Repeat; // a repeating schedule
  event_type?: string; // an event: birthday, anniversary, reminder, todo, event
  result: "added" | "updated" | "deleted" | "no_change" | "conflict" | "full" | "invalid";
  previous?: string; // an update: what memory held before
  confidence: number;
  heard: number;
  dropped?: string; // what a full store let go
  error?: string;
}

export interface PendingView {
  type: PendingKind;
  content: string;
  date?: string; // YYYY-MM-DD; a yearly event: MM-DD
  datetime?: string;
  repeat?: Repeat;
  event_type?: string;
  confidence: number;
  heard: number;
  first_heard: string; // YYYY-MM-DD HH:MM, local
  confirmed: boolean;
}

export function isConfirmed(p: PendingItem): boolean {
  return p.count >= CONFIRM_THRESHOLD || p.confidence >= HIGH_CONFIDENCE;
}

function familyParts(value: string): { relation: string; name: string; note: string } {
  const p = value.split(":");
  return { relation: p[0], name: p[1] ?? "", note: p.slice(2).join(":") };
}

export function keyOf(kind: PendingKind, value: string, when: number): string {
  if (SINGLE.indexOf(kind) >= 0) return kind;
  if (kind === "like" || kind === "dislike") return "pref:" + value;
  if (kind === "family") {
    const f = familyParts(value);
    return "family:" + (f.name || f.relation) + (f.note ? ":" + f.note : "");
  }
  if (kind === "fact") return "fact:" + value;
  return `${kind}:${when}:${value}`;
}

function eventType(tag: EventTag | undefined, text: string): string {
  if (tag === "yearly") return /纪念|周年/.test(text) ? "anniversary" : "birthday";
  return tag ?? "event";
}

// The same thing said in other words (issue 24: one memory, not two): the
// model's "林小雨在读小学三年级" and the heard "主人在读小学三年级", a heard todo
// 练琴 and the model's schedule 练琴. Compared without 主人, the owner's name,
// 我 and particles: equal, or one holds the other with at most four characters
// more (a name, a verb: 西瓜 / 吃西瓜).
export function normalContent(s: string, owner = ""): string {
  let t = s;
  if (owner) t = t.split(owner).join("");
  t = t.split("主人").join("").split("自己").join("");
  let out = "";
  for (let i = 0; i < t.length; i++) {
    const c = t.charAt(i);
    if ("我的了着呢吧啊呀哦嘛,，。.!！?？、 ：:;；“”\"'".indexOf(c) < 0) out += c;
  }
  return out.toLowerCase();
}

export function sameThing(a: string, b: string, owner = ""): boolean {
  const x = normalContent(a, owner), y = normalContent(b, owner);
  if (!x || !y) return false;
  if (x === y) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= 2 && long.length - short.length <= 4 && long.indexOf(short) >= 0;
}

// Where an item sits in time, as memory will show it.
function where(p: PendingItem): { date?: string; datetime?: string; repeat?: Repeat; event_type?: string } {
  const d = decode(p);
  if (p.kind === "schedule") return d.repeat ? { datetime: formatDateTime(p.when * 1000), repeat: d.repeat } : { datetime: formatDateTime(p.when * 1000) };
  if (p.kind === "event") {
    const type = eventType(d.tag, d.text);
    if (d.tag === "todo") return { event_type: type };
    if (d.tag === "yearly") return { date: formatDate(p.when * 1000).slice(5), event_type: type };
    return { date: formatDate(p.when * 1000), event_type: type };
  }
  return {};
}

export function view(p: PendingItem): PendingView {
  return { type: p.kind, content: decode(p).text, ...where(p), confidence: p.confidence, heard: p.count, first_heard: formatDateTime(p.first * 1000), confirmed: isConfirmed(p) };
}

const RESULT: Record<Result["action"], Formed["result"]> = { ADDED: "added", UPDATED: "updated", DELETED: "deleted", NOOP: "no_change" };

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
        return (p.kind === "like" ? prefs.likes : prefs.dislikes).some((x) => x === p.value || sameThing(x, p.value));
      }
      case "family": {
        const f = familyParts(p.value);
        const same = m.family().filter((x) => x.relation === f.relation);
        const hit = same.find((x) => (f.name ? x.name === f.name : !x.name || same.length === 1));
        return !!hit && (!f.note || hit.sharedMemory.indexOf(f.note) >= 0);
      }
      case "fact": {
        const owner = String(m.profile().name ?? "");
        return m.facts().some((x) => x.content === p.value || sameThing(x.content, p.value, owner));
      }
      case "event": {
        const d = decode(p);
        const w = where(p);
        if (m.events().some((x) => !x.schedule && x.time === "" && x.content === d.text && (d.tag === "todo" ? x.eventType === "todo" : x.date === w.date))) return true;
        // a heard reminder the model already scheduled (提醒我练琴 / schedule 练琴): one thing
        if (d.tag === "yearly") return false;
        return m.events().some((x) => sameThing(x.content, d.text) && (d.tag === "todo" || x.date === w.date || (!!x.schedule && x.repeat !== "none")));
      }
      default: {
        const dt = formatDateTime(p.when * 1000);
        const text = decode(p).text;
        return m.events().some((x) => x.schedule && ((`${x.date} ${x.time}` === dt && (x.content === text || sameThing(x.content, text))) || (x.date === dt.slice(0, 10) && sameThing(x.content, text))));
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
      value: encode(e),
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
    } else if (i >= 0 && list[i].confidence > rec.confidence && list[i].confidence >= HIGH_CONFIDENCE) {
      return { outcome: "kept", item: { ...list[i] } };
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

  // "我不再喜欢X": a pending like X goes (and, with r.memory, the like in
  // memory too: returned as a Formed "deleted"). Returns what left memory.
  retract(r: Retraction, at = seconds()): Formed | undefined {
    const list = this.items(at);
    const keep = list.filter((p) => !(p.kind === r.kind && decode(p).text === r.value));
    if (keep.length !== list.length || this.store.count !== list.length) this.store.set(keep);
    if (r.memory && (r.kind === "like" || r.kind === "dislike")) {
      const res = this.memory.removePreference(r.kind, r.value);
      if (res.action === "DELETED") return { type: r.kind, content: r.value, result: "deleted", confidence: 5, heard: 1 };
    }
    return undefined;
  }

  // The AI wrote this itself: a pending item it covers is settled.
  settle(kind: PendingKind, value: string, at = seconds()): number {
    const key = keyOf(kind, value, 0);
    const list = this.items(at);
    const near = (kind === "fact" || kind === "like" || kind === "dislike") && value !== "";
    const owner = near ? String(this.memory.profile().name ?? "") : "";
    const keep = list.filter((p) => (p.kind === "event" || p.kind === "schedule" ? true : keyOf(p.kind, p.value, p.when) !== key && !(near && p.kind === kind && sameThing(p.value, value, owner))));
    if (keep.length !== list.length) this.store.set(keep);
    return list.length - keep.length;
  }

  // The item the AI names: by content (exactly as listed), and type when
  // several items share a content.
  find(type: string | undefined, content: string, at = seconds()): PendingItem {
    const list = this.items(at);
    let hits = list.filter((p) => decode(p).text === content && (!type || p.kind === type));
    if (!hits.length) hits = list.filter((p) => (p.kind === "family" && familyParts(p.value).name === content) || ((!type || p.kind === type) && decode(p).text.indexOf(content) >= 0));
    if (!hits.length) throw new MemoryError("not_found", `nothing pending matches '${content}'`);
    if (hits.length > 1) throw new MemoryError("ambiguous", `'${content}' matches ${hits.length} pending items: ${hits.map((p) => `${p.kind} '${decode(p).text}'`).join(", ")}. Say which one (type and content)`);
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
      // what the model wrote meanwhile (the same thing in its words) is not written again
      if (isConfirmed(p)) out.push(this.known(p) ? { type: p.kind, content: decode(p).text, ...where(p), result: "no_change", confidence: p.confidence, heard: p.count } : this.write(p, false));
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
    const d = decode(p);
    const f: Formed = { type: p.kind, content: d.text, ...where(p), result: "no_change", confidence: p.confidence, heard: p.count };
    const m = this.memory;
    try {
      let r: Result;
      switch (p.kind) {
        case "name":
        case "age":
        case "gender":
        case "location":
        case "birthday": {
          const before = m.profile()[p.kind];
          r = m.setProfile(p.kind, p.value);
          if (r.action === "UPDATED") f.previous = String(before);
          break;
        }
        case "like":
        case "dislike": {
          const other = p.kind === "like" ? m.preferences().dislikes : m.preferences().likes;
          r = m.addPreference(p.kind, p.value);
          if (r.action === "UPDATED" && other.indexOf(p.value) >= 0) f.previous = `${p.kind === "like" ? "dislike" : "like"} ${p.value}`;
          break;
        }
        case "family":
          r = this.writeFamily(p.value, f);
          break;
        case "fact": {
          const slot = FACT_SLOTS.find((re) => re.test(p.value));
          const old = slot ? m.facts().filter((x) => x.content !== p.value && slot.test(x.content)) : [];
          for (const o of old) m.removeFact(o.content);
          r = m.addFact(p.value);
          if (old.length) {
            f.previous = old.map((o) => o.content).join(NOTE_SEP);
            if (r.action === "ADDED") r = { ...r, action: "UPDATED" };
          }
          break;
        }
        case "event": {
          const date = d.tag === "todo" ? formatDate(p.first * 1000) : f.date!;
          r = m.addEvent(newEvent({ date, content: d.text, eventType: eventType(d.tag, d.text) }));
          break;
        }
        default: {
          const o = this.schedules.add({ content: d.text, datetime: f.datetime, force, repeat: d.repeat });
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

  // "relation:name[:note]": a member without a name is the one member of that
  // relation if there is exactly one; a note joins what memory knew of them.
  private writeFamily(value: string, f: Formed): Result {
    const m = this.memory;
    const x = familyParts(value);
    const members = m.family();
    let name = x.name;
    if (!name) {
      const same = members.filter((y) => y.relation === x.relation);
      if (same.length === 1) name = same[0].name;
    }
    const was = members.find((y) => (name ? y.name === name : !y.name && y.relation === x.relation));
    let memory: string | undefined;
    if (x.note) {
      const old = was?.sharedMemory ?? "";
      if (old.indexOf(x.note) >= 0) memory = undefined;
      else {
        const parts = old ? old.split(NOTE_SEP) : [];
        parts.push(x.note);
        while (parts.length > 1 && byteLength(parts.join(NOTE_SEP)) > FAMILY_MEMORY_BYTES) parts.shift();
        memory = parts.join(NOTE_SEP);
        if (byteLength(memory) > FAMILY_MEMORY_BYTES) memory = undefined;
        if (memory !== undefined && old) f.previous = old;
      }
    }
    const input: { relation: string; name?: string; memberType: string; sharedMemory?: string } = { relation: x.relation, memberType: MEMBER_TYPE[x.relation] ?? "other" };
    if (name) input.name = name;
    if (memory !== undefined) input.sharedMemory = memory;
    return m.upsertFamily(input);
  }
}

function sameItem(a: PendingItem, b: PendingItem): boolean {
  return a.kind === b.kind && a.value === b.value && a.when === b.when && a.first === b.first && a.count === b.count && a.confidence === b.confidence;
}

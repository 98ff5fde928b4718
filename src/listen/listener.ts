// Listening: each utterance and reply goes into the conversation window and
// the chat log (ChatMessage store, a ring of 30); each user utterance goes
// through the extractor into the pending queue; at the end of the
// conversation the confirmed items are written in one batch: one flush, one
// NVS write per store touched, the pending store last.
//
// What a power cut leaves (test/powercut/pending.workload.ts):
// - Before the batch's flush: the stores as they were; confirmed items still
//   pending if the pending store had been flushed (the service flushes after
//   30 quiet seconds), lost with the rest of RAM otherwise.
// - Between two stores of the batch: the earlier stores hold their new
//   records and the pending store still holds every item of the batch. At the
//   next boot recover() writes the confirmed items again: NOOPs for those
//   already written, the rest added. Never a duplicate.
// - After the pending store's flush: the batch is complete.

import Timer from "timer";
import { Memory, MemoryError } from "../memory/memory";
import { Schedules } from "../schedule/schedules";
import type { PendingKind, Role } from "../memory/types";
import { now } from "../time/clock";
import { extract, redact, type Extracted } from "./extract";
import { PendingQueue, view, type Formed, type Outcome, type PendingView } from "./pending";
import { ConversationWindow, isFarewell, IDLE_END_MS } from "./window";
import { Evolver } from "../relation/evolver";
import { presetOf } from "../config/presets";

export interface Heard extends PendingView {
  outcome: Outcome;
}

export interface ListenerOptions {
  rounds?: number;
  idleMs?: number;
  // writes what changed to flash; returns the stores written (Service.flush)
  flush?: () => number;
  onMemory?: (f: Formed) => void; // a memory was formed
  onHeard?: (h: Heard) => void; // an item went into (or through) the queue
  onEnd?: (reason: EndReason, formed: Formed[]) => void;
  // the conversation that ended: the user's lines still in the window (the
  // last rounds) and how many the user said in all; called after the NVS
  // batch, so what it writes (an episode, on the storage partition) is apart
  // and what it stored (the episode tells it as deeds, src/episode/former.ts)
  onConversation?: (userLines: string[], rounds: number, reason: EndReason, formed: Formed[]) => void;
}

export type EndReason = "explicit" | "farewell" | "idle" | "boot" | "stop";

export interface Batch {
  formed: Formed[];
  written: number; // NVS stores written by the batch's flush
}

function clean(text: string): string {
  let s = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    s += c < 0x20 || c === 0x7f ? " " : text.charAt(i);
  }
  return s.trim();
}

const SAID_MAX = 20;

export class Listener {
  readonly window: ConversationWindow;
  readonly pending: PendingQueue;
  // the relationship: every conversation's record at its end (src/relation)
  readonly evolver: Evolver;
  private idle: ReturnType<typeof Timer.set> | undefined;
  // the user's previous utterance in this conversation and what it put in the
  // queue: "不对是三点" corrects it, "开玩笑的" withdraws it
  private prior: { text: string; items: Extracted[] } | undefined;
  // what this conversation's user lines put in the queue ("这个别记" takes it
  // back) and whether someone other than the owner speaks now (issue 24)
  private said: Extracted[] = [];
  private last: Extracted[] = []; // what the last utterance that said anything said
  private other = false;
  private readonly idleMs: number;
  private readonly flushFn: () => number;
  onMemory: ((f: Formed) => void) | undefined;
  onHeard: ((h: Heard) => void) | undefined;
  onEnd: ((reason: EndReason, formed: Formed[]) => void) | undefined;
  onConversation: ((userLines: string[], rounds: number, reason: EndReason, formed: Formed[]) => void) | undefined;

  constructor(readonly memory: Memory, readonly schedules: Schedules, readonly opts: ListenerOptions = {}) {
    this.window = new ConversationWindow(opts.rounds ?? presetOf(memory).rounds);
    this.pending = new PendingQueue(memory, schedules);
    this.evolver = new Evolver(memory);
    this.idleMs = opts.idleMs ?? IDLE_END_MS;
    this.flushFn = opts.flush ?? (() => memory.flush());
    this.onMemory = opts.onMemory;
    this.onHeard = opts.onHeard;
    this.onEnd = opts.onEnd;
    this.onConversation = opts.onConversation;
  }

  get active(): boolean {
    return this.window.active;
  }

  // One message of the conversation. Returns what the user's words put into
  // the queue (nothing for the assistant's).
  hear(role: Role, text: string, at = now()): Heard[] {
    const raw = clean(text);
    if (!raw) return [];
    // a secret said aloud (a password, a phone or ID number) is masked before
    // the line is kept anywhere: the window, the chat log, an episode
    const t = role === "user" ? redact(raw) : raw;
    const context = role === "user" ? this.window.lastAssistant : undefined;
    // the preset's window (action=config) applies from the next conversation
    if (!this.window.active && this.opts.rounds === undefined) this.window.rounds = presetOf(this.memory).rounds;
    this.window.add(role, t, at);
    this.evolver.heard(role, t, at);
    try {
      this.memory.appendChat(role, t, Math.floor(at / 1000));
    } catch (e) {
      if (!(e instanceof MemoryError)) throw e;
    }
    const heard: Heard[] = [];
    if (role === "user") {
      const secs = Math.floor(at / 1000);
      const ex = extract(raw, at, context, this.prior?.text, this.other);
      if (ex.other !== undefined) this.other = ex.other;
      if (ex.cancelPrevious && this.prior) for (const e of this.prior.items) this.pending.retract({ kind: e.kind, value: e.value }, secs);
      if (ex.forget) this.forget(ex.forget, secs);
      for (const r of ex.retractions) {
        const gone = this.pending.retract(r, secs);
        if (gone) this.onMemory?.(gone);
      }
      for (const e of ex.items) heard.push(this.offer(e, secs));
      for (const e of ex.items) this.said.push(e);
      if (ex.items.length) this.last = ex.items;
      if (this.said.length > SAID_MAX) this.said.splice(0, this.said.length - SAID_MAX); // bounded RAM: the queue holds 20 at most anyway
      this.prior = { text: t, items: ex.items };
      if (isFarewell(t)) this.window.closing = true;
    } else if (this.window.closing) {
      this.end("farewell");
      return heard;
    }
    this.armIdle();
    return heard;
  }

  // "这个别记", "名字别记", "当我没说": what this conversation said of those
  // kinds leaves the queue; said of a profile field in a later conversation
  // ("你把我住哪忘掉吧"), the field leaves memory too.
  private forget(kinds: PendingKind[] | "all" | "last", secs: number): void {
    let hit = 0;
    const gone = (e: Extracted) => kinds === "all" || (kinds === "last" ? this.last.indexOf(e) >= 0 : kinds.indexOf(e.kind) >= 0);
    for (const e of this.said)
      if (gone(e)) {
        this.pending.retract({ kind: e.kind, value: e.value }, secs);
        hit++;
      }
    this.said = this.said.filter((e) => !gone(e));
    if (kinds === "last") this.last = [];
    if (hit || typeof kinds === "string") return;
    for (const k of kinds)
      if (k === "name" || k === "age" || k === "gender" || k === "location" || k === "birthday") {
        const was = this.memory.profile()[k];
        if (was === undefined || was === "" || was === 0) continue;
        const r = this.memory.clearProfile(k);
        if (r.action === "DELETED") this.onMemory?.({ type: k, content: String(was), result: "deleted", confidence: 5, heard: 1 });
      }
  }

  private offer(e: Extracted, secs: number): Heard {
    const o = this.pending.offer(e, secs);
    const h: Heard = { ...view(o.item), outcome: o.outcome };
    this.onHeard?.(h);
    return h;
  }

  private armIdle(): void {
    if (this.idle !== undefined) Timer.schedule(this.idle, this.idleMs);
    else
      this.idle = Timer.set(() => {
        this.idle = undefined; // a one-shot timer is gone once it fired
        this.end("idle");
      }, this.idleMs);
  }

  private disarm(): void {
    if (this.idle !== undefined) Timer.clear(this.idle);
    this.idle = undefined;
  }

  // The end of the conversation: confirmed items to memory, then one flush.
  end(reason: EndReason = "explicit"): Batch {
    this.disarm();
    const rounds = this.window.userRounds;
    const lines: string[] = [];
    if (rounds && this.onConversation) for (const m of this.window.recent()) if (m.role === "user") lines.push(m.text);
    this.window.clear();
    this.prior = undefined;
    this.said = [];
    this.last = [];
    this.other = false;
    // The batch is committed as a tool call is: if a store cannot be written,
    // it and every later one (the pending queue is last) go back to the mark,
    // so nothing heard is shown as memory that flash does not hold, and the
    // items stay confirmed in the queue for the next end or boot.
    const mark = this.memory.mark();
    let formed = this.pending.writeConfirmed(Math.floor(now() / 1000));
    const c = this.memory.commit(mark);
    if (c.error !== undefined) {
      trace(`petmem: conversation batch not saved (${c.error}); kept pending\n`);
      formed = [];
    }
    // the conversation's record (affection, coins, achievements) after the
    // items it confirmed, written by the same flush
    this.record();
    const written = c.saved.length + this.flushFn();
    for (const f of formed) this.onMemory?.(f);
    this.onEnd?.(reason, formed);
    if (rounds && this.onConversation)
      try {
        this.onConversation(lines, rounds, reason, formed);
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        trace(`petmem: conversation episode not formed (${e instanceof Error ? e.message : String(e)})\n`);
      }
    return { formed, written };
  }

  private record(): void {
    try {
      this.evolver.end(now());
    } catch (e) {
      // the relationship never costs the conversation's memories
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.evolver.reset();
      trace(`petmem: relationship not updated (${e instanceof Error ? e.message : String(e)})\n`);
    }
  }

  // At boot: items confirmed in a conversation that never ended (a power cut,
  // a reboot) or in a batch cut short are written now.
  recover(): Batch {
    if (!this.pending.confirmedCount) return { formed: [], written: 0 };
    return this.end("boot");
  }

  // Shutting down: the conversation under way ends.
  stop(): void {
    if (this.window.active || this.pending.confirmedCount) this.end("stop");
    this.disarm();
  }
}

// The device service: boots the whole memory and exposes it over MCP.
// One instance per boot; everything it holds is rebuilt from flash by the next.
//
// Flush policy (write only what changed): a tool call writes the stores it
// touched, and only those, before its reply leaves, so what the AI was told is
// stored is on flash (src/mcp/memory-tool.ts). Reminder marks are written
// before the reminder goes out (src/schedule/reminder.ts). The pending queue
// and whatever else changed by itself is written after a quiet period; the
// chat log only at the end of a conversation, once.

import Timer from "timer";
import { now, bootClock, onTrust, setSettleHook, settleClock, isValid, raiseFloor, trustedFloor, wall, carryUntrusted, untrustedSince, type TrustEvent } from "../time/clock";
import { readFloor, saveFloor, readUntrusted, saveUntrusted } from "../time/floor";
import { Memory, type BootReport } from "../memory/memory";
import { SPECS, type StoreName } from "../memory/types";
import { Schedules } from "../schedule/schedules";
import { ReminderService, type ReminderSink, type Reminder } from "../schedule/reminder";
import { McpServer } from "../mcp/server";
import { reminderSentence } from "../schedule/phrase";
import { formatIso } from "../time/local";
import { MemoryTool, type ArchiveAccess } from "../mcp/memory-tool";
import { Listener, type ListenerOptions } from "../listen/listener";
import type { Role } from "../memory/types";
import { formEpisode, type FormedItem } from "../episode/former";

export const VERSION = "0.1.0";
export const QUIET_MS = 30000;
// what the quiet-period flush writes: everything but the chat log
export const QUIET_STORES = (Object.keys(SPECS) as StoreName[]).filter((n) => n !== "chat");

// How messages reach the server and replies leave it. On the device, the
// companion's link to its server (WebSocket or MQTT) carries the xiaozhi
// envelope {"session_id","type":"mcp","payload"}; on the host, stdio.
export interface Transport {
  start(receive: (message: string) => void): void;
  send(message: string): void;
}

export interface ServiceOptions {
  sink?: ReminderSink;
  archive?: ArchiveAccess;
  quietMs?: number;
  listen?: Omit<ListenerOptions, "flush">; // conversation window and extraction (src/listen)
}

export class Service {
  readonly memory = new Memory();
  readonly schedules = new Schedules(this.memory);
  readonly server = new McpServer({ name: "petmem", version: VERSION });
  readonly tool: MemoryTool;
  readonly reminders: ReminderService;
  readonly listener: Listener;
  private quiet: ReturnType<typeof Timer.set> | undefined;
  // where reminders go besides the trace (src/schedule/reminder.ts): the MCP
  // notification, the xiaozhi link's spoken turn, the HTTP stream
  private readonly reminderSinks: ReminderSink[] = [];
  readonly clockAtBoot: { floor: number; wall: number; trusted: boolean };
  private settleTimer: ReturnType<typeof Timer.set> | undefined;
  redated = 0; // records moved to their true time when the clock became trusted
  private readonly quietMs: number;
  flushErrors = 0;
  readonly boot: BootReport;

  // The clock's settle hook: a setting takes effect on a zero-delay timer,
  // between calls, never inside a store's write. Fields, not closures of the
  // constructor: a closure there keeps the constructor's scope (about 500
  // bytes of the XS chunk heap, npm run heap).
  private readonly settleSoon = (): void => {
    if (this.settleTimer === undefined) this.settleTimer = Timer.set(this.settleNow, 0);
  };
  private readonly settleNow = (): void => {
    this.settleTimer = undefined;
    settleClock();
  };

  constructor(opts: ServiceOptions = {}) {
    this.quietMs = opts.quietMs ?? QUIET_MS;
    // the clock first: the last trusted time seen is where an unset clock's estimate starts
    const floor = readFloor();
    bootClock(floor);
    // a clock setting takes effect between calls, never inside a store's write
    setSettleHook(this.settleSoon);
    this.boot = this.bootMemory();
    // nothing the memory holds is newer than now: the floor rises to its newest record
    try {
      raiseFloor(this.memory.newestTime() * 1000);
      if (!isValid()) {
        // records of an earlier boot the clock never dated move with this boot's at trust
        const carried = readUntrusted();
        if (carried) carryUntrusted(carried);
        else saveUntrusted(untrustedSince() ?? 0);
      }
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
    }
    this.clockAtBoot = { floor: trustedFloor(), wall: wall(), trusted: isValid() };
    this.tool = new MemoryTool(this.memory, this.schedules, opts.archive);
    this.server.addTool(this.tool);
    this.server.onActivity = () => this.touch();
    this.listener = new Listener(this.memory, this.schedules, {
      ...opts.listen,
      flush: () => {
        const n = this.flush(true);
        this.reminders?.rearm(); // the conversation's batch may have written a schedule
        return n;
      },
    });
    this.listener.onConversation = (lines, rounds, _reason, formed) => this.conversationEpisode(lines, rounds, formed);
    this.traceSink = opts.sink;
    this.reminders = new ReminderService(this.memory, this);
  }

  private readonly traceSink: ReminderSink | undefined;

  // The reminder service's sink: the trace (or the sink given), then every sink added.
  remind(r: Reminder): void {
    if (this.traceSink) this.traceSink.remind(r);
    else trace(JSON.stringify({ reminder: r }) + "\n");
    for (const s of this.reminderSinks.slice()) {
      try {
        s.remind(r);
      } catch (e) {
        if (e instanceof Error && e.name === "PowerCut") throw e;
        trace(`petmem: a reminder sink failed: ${e instanceof Error ? e.message : String(e)}\n`);
      }
    }
  }

  // Another place reminders go (a link, a stream); returns its removal.
  addReminderSink(s: ReminderSink): () => void {
    this.reminderSinks.push(s);
    return () => {
      const i = this.reminderSinks.indexOf(s);
      if (i >= 0) this.reminderSinks.splice(i, 1);
    };
  }

  start(): void {
    onTrust((e) => this.clockMoved(e));
    // the floor is written at trust, by the hourly net and at stop (src/time/floor.ts)
    this.reminders.start();
    this.listener.recover(); // confirmed items a cut or a reboot left pending
  }

  // The clock became trusted (or was corrected): what this boot dated by the
  // estimate moves to its true time (Memory.redate), the floor is written.
  private clockMoved(e: TrustEvent): void {
    if (e.kind === "trusted") {
      trace(`petmem: clock set ${new Date(now()).toISOString()} (${Math.round(e.shift / 60000)} min after the estimate)\n`);
      if (e.shift > 0) {
        const n = this.memory.redate(Math.floor(e.from / 1000), Math.ceil(e.to / 1000), Math.round(e.shift / 1000));
        this.redated += n;
        if (n) this.flush();
        try {
          this.redated += this.tool.episodes?.redate(Math.floor(e.from / 1000), Math.ceil(e.to / 1000), Math.round(e.shift / 1000)) ?? 0;
        } catch (err) {
          if (err instanceof Error && err.name === "PowerCut") throw err;
          trace(`petmem: episodes not redated (${err instanceof Error ? err.message : String(err)})\n`);
        }
      }
      if (readUntrusted()) saveUntrusted(0);
    } else trace(`petmem: clock corrected by ${Math.round(e.shift / 60000)} min\n`);
    saveFloor(true);
  }

  // One line of the conversation (speech to text, or the reply): into the
  // window, the chat log and, for the user's, the extractor.
  hear(role: Role, text: string) {
    const heard = this.listener.hear(role, text);
    this.touch();
    return heard;
  }

  // One MCP message in, its reply (if any) out.
  handle(message: string): string | undefined {
    return this.server.handle(message);
  }

  connect(t: Transport): void {
    t.start((m) => {
      const reply = this.handle(m);
      if (reply !== undefined) t.send(reply);
    });
    this.addReminderSink({
      remind: (r) => {
        const n = this.reminderNotification(r);
        if (n !== undefined) t.send(n);
      },
    });
  }

  // A reminder as an MCP logging notification (notifications/message, logger
  // "petmem.reminder"): data holds the reminder and `say`, the sentence the
  // pet would say (src/schedule/phrase.ts). Urgent or missed ones are
  // "warning", the others "notice". README, "Reminders".
  reminderNotification(r: Reminder): string | undefined {
    const level = r.tier === "urgent" || r.missed ? "warning" : "notice";
    return this.server.notification(level, "petmem.reminder", { type: "reminder", say: reminderSentence(r, now()), ...r, at: formatIso(now()) });
  }

  // Reads every store, repairs what it can, counts the boot (Memory.boot).
  // Nothing on flash stops the device: an unexpected error is reported and
  // the memory is served as far as it loaded.
  private bootMemory(): BootReport {
    try {
      return this.memory.boot();
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      const msg = e instanceof Error ? e.message : String(e);
      return { boot: 0, repaired: [], setAside: [{ store: "nvs", key: "boot", problem: "unreadable" }], lost: [], failed: [msg] };
    }
  }

  // One line for the boot trace: what was repaired, set aside or lost.
  bootLine(): string {
    const b = this.boot;
    const parts = [`boot ${b.boot}`];
    if (!b.repaired.length && !b.setAside.length && !b.lost.length && !b.failed.length) parts.push("nvs ok");
    if (b.repaired.length) parts.push(`repaired ${b.repaired.join(", ")}`);
    if (b.setAside.length) parts.push(`set aside ${b.setAside.map((e) => `${e.key} (${e.problem})`).join(", ")}`);
    if (b.lost.length) parts.push(`LOST ${b.lost.join(", ")}`);
    if (b.failed.length) parts.push(`repair failed ${b.failed.join(", ")}`);
    return parts.join("; ");
  }

  // Flushes whatever changed, the chat log only with `chat` (the end of a
  // conversation). A failure (NVS refused a write) is traced and counted; the
  // stores stay dirty and the next flush tries again.
  flush(chat = false): number {
    try {
      return this.memory.flush(chat ? undefined : QUIET_STORES);
    } catch (e) {
      if (e instanceof Error && e.name === "PowerCut") throw e;
      this.flushErrors++;
      trace(`petmem: flush failed: ${e instanceof Error ? e.message : String(e)}\n`);
      return 0;
    }
  }

  // Confirmed pending items are written, then one flush (src/listen/listener.ts).
  endConversation(): number {
    return this.listener.end().written;
  }

  // The episode of a conversation that ended (seed 004 §44: 5 user rounds or
  // more), formed without a model (src/episode/former.ts), when this device
  // keeps episodes. Called by the listener after its NVS batch; an error is
  // traced there and changes nothing else.
  private conversationEpisode(lines: string[], rounds: number, formed: readonly FormedItem[]): void {
    const eps = this.tool.episodes;
    if (!eps) return;
    const input = formEpisode(lines, rounds, formed);
    if (!input) return;
    const r = eps.add(input, "listener");
    trace(`episode: ${r.episode.id} ${r.action === "ADDED" ? "formed" : r.action === "UPDATED" ? "updated" : "already kept"} from a conversation of ${rounds} rounds\n`);
  }

  lastActive = 0; // ms: the last line heard or MCP call (a sync waits for quiet, src/sync/runner.ts)

  // Activity postpones the quiet-period flush, and may have written a schedule.
  private touch(): void {
    this.reminders?.rearm();
    this.lastActive = now();
    if (this.quiet !== undefined) Timer.schedule(this.quiet, this.quietMs);
    else
      this.quiet = Timer.set(() => {
        this.quiet = undefined; // a one-shot timer is gone once it fired
        this.flush();
      }, this.quietMs);
  }

  stop(): void {
    this.reminders.stop();
    if (this.settleTimer !== undefined) Timer.clear(this.settleTimer);
    this.settleTimer = undefined;
    saveFloor(true);
    this.listener.stop();
    if (this.quiet !== undefined) Timer.clear(this.quiet);
    this.quiet = undefined;
    this.flush(true);
  }
}

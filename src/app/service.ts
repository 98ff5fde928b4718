// The device service: boots the whole memory and exposes it over MCP.
// One instance per boot; everything it holds is rebuilt from flash by the next.
//
// Flush policy: a tool call that changed memory is flushed before its reply
// leaves, so what the AI was told is stored is on flash. Everything else that
// changes in RAM (reminder marks, the chat log, the pending queue) is flushed
// after a quiet period and at the end of a conversation.

import Timer from "timer";
import { Memory } from "../memory/memory";
import { Schedules } from "../schedule/schedules";
import { ReminderService, type ReminderSink } from "../schedule/reminder";
import { McpServer } from "../mcp/server";
import { MemoryTool, type ArchiveAccess } from "../mcp/memory-tool";
import { Listener, type ListenerOptions } from "../listen/listener";
import type { Role } from "../memory/types";

export const VERSION = "0.1.0";
export const QUIET_MS = 30000;

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
  private readonly quietMs: number;
  flushErrors = 0;

  constructor(opts: ServiceOptions = {}) {
    this.quietMs = opts.quietMs ?? QUIET_MS;
    this.tool = new MemoryTool(this.memory, this.schedules, opts.archive);
    this.tool.onChange = () => this.flush();
    this.server.addTool(this.tool);
    this.server.onActivity = () => this.touch();
    this.listener = new Listener(this.memory, this.schedules, { ...opts.listen, flush: () => this.flush() });
    this.reminders = new ReminderService(this.memory, opts.sink ?? { remind: (r) => trace(JSON.stringify({ reminder: r }) + "\n") });
  }

  start(): void {
    this.reminders.start();
    this.listener.recover(); // confirmed items a cut or a reboot left pending
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
  }

  // Flushes whatever changed. A failure (NVS refused a write) is traced and
  // counted; the stores stay dirty and the next flush tries again.
  flush(): number {
    try {
      return this.memory.flush();
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

  // Activity postpones the quiet-period flush.
  private touch(): void {
    if (this.quiet !== undefined) Timer.schedule(this.quiet, this.quietMs);
    else
      this.quiet = Timer.set(() => {
        this.quiet = undefined; // a one-shot timer is gone once it fired
        this.flush();
      }, this.quietMs);
  }

  stop(): void {
    this.reminders.stop();
    this.listener.stop();
    if (this.quiet !== undefined) Timer.clear(this.quiet);
    this.quiet = undefined;
    this.flush();
  }
}

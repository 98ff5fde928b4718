// The link to a xiaozhi server (xinnan-tech/xiaozhi-esp32-server), whatever
// carries it (WebSocket, MQTT, stdin on the host): each text message the device
// receives goes to receive(), which returns the messages to send back. It
// speaks MCP the way the server reads it and hears the conversation the server
// narrates to the device. docs/DESIGN.md, "Speaking with the xiaozhi server".
//
// In (server → device), one JSON object per message:
//   {"type":"hello","session_id",…}           a session began (the server's answer to the device's hello)
//   {"type":"mcp","payload":<JSON-RPC>}       MCP requests: initialize, tools/list, tools/call
//   {"type":"stt","text"}                      the user's recognised speech; "% name" when a tool is called
//   {"type":"tts","state":"start"|"sentence_start"|"stop","text"?}   the assistant's reply, sentence by sentence
//   {"type":"llm","text":emoji,"emotion"}      once per turn: the reply's emotion
//   {"type":"goodbye"}                         the session closed (MQTT/UDP)
// Anything else (listen, system, alert, custom) is not petmem's and is ignored.
// Out: {"session_id"?,"type":"mcp","payload":<JSON-RPC reply>}, as the firmware sends.
// Out, unasked (issue 26): a due reminder as the device's own spoken turn,
//   {"session_id"?,"type":"listen","state":"detect","text":"[device_call]哎对了，你下午2点有个会议哦"}
// The server's listen handler (listenMessageHandler.py, docs/XIAOZHI.md) sends
// the text back as stt, speaks it with the pet's TTS voice as one turn and puts
// it in the dialogue as the ASSISTANT's line, so the model follows up when the
// person answers. The stt echo is not the person's words: the link ignores it.
//
// MCP on this link (McpServer mode "xiaozhi"): the server gives the model only
// content[0].text of a result whose isError is not true; it speaks a generic
// sentence for isError results and "MCP错误: …" for JSON-RPC errors. So a tool
// error is a result with isError false and text "error: …"; JSON-RPC errors
// are kept for protocol faults and always carry the request's id, recovered by
// a scan when the message is too large or broken to parse (src/link/scan.ts);
// an error whose id cannot be known is not sent (the server would fail on it).
// A result text that is JSON with a top-level "action" key would be taken as a
// command and skip the model: the link wraps any such text.
//
// Hearing: stt text is the user's turn, each tts sentence_start the
// assistant's (Service.hear → src/listen); "% name" tool echoes, the server's
// spoken tool errors and a sentence repeated within DUPLICATE_MS are not
// conversation. The llm emotion is the turn's mood. The conversation ends at
// the link's close, a goodbye, a new session (hello), or by the listener (a
// farewell answered, IDLE_END_MS of quiet); only then are confirmed pending
// items written and NVS flushed, in one batch with the conversation's record
// (affection, coins, mood, counts: src/relation/evolver.ts, fed by the
// listener; the link adds each turn's emotion).

import type { Service } from "../app/service";
import { EMOTIONS, type Emotion } from "../memory/types";
import { INVALID_REQUEST, MAX_MESSAGE_BYTES, PARSE_ERROR, shapeProblem } from "../mcp/server";
import { encode } from "../text/utf8";
import { now } from "../time/clock";
import { scan } from "./scan";
import { reminderSentence } from "../schedule/phrase";
import type { Reminder } from "../schedule/reminder";

export const DUPLICATE_MS = 10000; // the fork ignores a sentence_start repeated within 10 s
export const DEVICE_CALL = "[device_call]"; // listenMessageHandler.py: speak this text as the assistant
export const ECHO_MS = 30000; // the server's stt echo of a device call comes back within this

// What the server speaks when a tool call fails (mcp_handler.py, mcp_executor.py,
// unified_tool_handler.py, connection.py): the assistant's voice, not the conversation.
export const SPOKEN_ERRORS = [
  "工具调用错误",
  "工具调用返回错误",
  "工具调用请求超时",
  "MCP错误",
  "MCP客户端尚未准备就绪",
  "设备端MCP客户端",
  "哎呀，网络遇到点问题",
  "参数JSON解析失败",
  "参数处理失败",
  "参数类型错误",
  "参数必须是字典类型",
  "无法解析函数参数",
  "error:",
];
const TOOL_MISSING = /^工具 \S+ 不存在/;

// The server's emotions (textUtils.py EMOJI_MAP; "happy" when the reply has no
// emoji) as petmem's, and what each does to the mood (-1, 0, +1).
const EMOTION_MAP: Record<string, [Emotion, number]> = {
  happy: ["happy", 1], funny: ["happy", 1], laughing: ["happy", 1], silly: ["happy", 1], winking: ["happy", 1],
  cool: ["happy", 1], delicious: ["happy", 1], confident: ["happy", 1],
  loving: ["touched", 1], kissy: ["touched", 1],
  surprised: ["excited", 1],
  sad: ["sad", -1], crying: ["sad", -1],
  angry: ["worried", -1], shocked: ["worried", -1], confused: ["worried", 0], embarrassed: ["worried", 0],
  thinking: ["neutral", 0], relaxed: ["neutral", 0], sleepy: ["neutral", 0], neutral: ["neutral", 0],
};

export function emotionOf(serverEmotion: string): Emotion {
  const e = EMOTION_MAP[serverEmotion];
  if (e) return e[0];
  return (EMOTIONS as readonly string[]).includes(serverEmotion) ? (serverEmotion as Emotion) : "neutral";
}

export function isSpokenError(text: string): boolean {
  for (const p of SPOKEN_ERRORS) if (text.startsWith(p)) return true;
  return TOOL_MISSING.test(text);
}

type Json = Record<string, unknown>;
type Id = string | number | null | undefined;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// What is wrong with a message before it may be parsed: too large, or (the
// server's shape scan: JSON.parse in XS recurses per nesting level and every
// value costs heap slots) nested deeper than MAX_DEPTH, envelope included, or
// with more than MAX_ITEMS values; undefined when it may be parsed.
function problem(message: string): string | undefined {
  const tooLarge = `message larger than ${MAX_MESSAGE_BYTES} bytes: send it in smaller calls`;
  if (message.length > MAX_MESSAGE_BYTES) return tooLarge;
  const b = encode(message);
  if (b.length > MAX_MESSAGE_BYTES) return tooLarge;
  return shapeProblem(b);
}

export type LinkEnd = "close" | "goodbye" | "hello" | "listener";

export interface LinkStats {
  mcp: number; // MCP messages handled
  heard: number; // lines given to the listener
  ignored: number; // tool echoes, spoken errors, duplicates
  dropped: number; // messages with nothing to answer (no recoverable id, unknown type)
}

export class XiaozhiLink {
  sessionId: string | undefined;
  mood: Emotion = "neutral"; // the current turn's
  readonly stats: LinkStats = { mcp: 0, heard: 0, ignored: 0, dropped: 0 };
  onEnd: ((reason: LinkEnd) => void) | undefined;
  // sends a message the device starts (a reminder's spoken turn); unset: reminders are not spoken
  send: ((message: string) => void) | undefined;
  reminders = 0; // spoken turns started
  private calls: { text: string; at: number }[] = []; // device calls whose stt echo may still come
  private removeSink: (() => void) | undefined;
  // lines of the conversation under way given to the listener (whose evolver
  // keeps the conversation's record)
  private lines = 0;
  private lastSentence = "";
  private lastSentenceAt = 0;
  private ending = false;

  constructor(readonly service: Service) {
    this.removeSink = service.addReminderSink({
      remind: (r) => {
        if (!this.send) return;
        this.send(this.reminderMessage(r));
        this.reminders++;
      },
    });
    const l = service.listener;
    const prev = l.onEnd;
    // the listener ends a conversation by itself too (a farewell answered, idle)
    l.onEnd = (reason, formed) => {
      if (!this.ending && this.lines > 0) {
        this.lines = 0; // the listener's batch wrote the conversation's record
        this.lastSentence = "";
        this.onEnd?.("listener");
      }
      prev?.(reason, formed);
    };
  }

  // The device's hello, sent when the transport opens (the firmware's own
  // hello when petmem is the whole device; otherwise the firmware sends it).
  hello(): string {
    return JSON.stringify({ type: "hello", version: 1, features: { mcp: true }, transport: "websocket" });
  }

  // A due reminder as the device's spoken turn: the listen/detect message
  // with the [device_call] prefix (docs/XIAOZHI.md).
  reminderMessage(r: Reminder): string {
    const text = reminderSentence(r, now());
    const at = now();
    this.calls = this.calls.filter((c) => at - c.at < ECHO_MS);
    this.calls.push({ text: bare(text), at });
    const m: Json = {};
    if (this.sessionId !== undefined) m.session_id = this.sessionId;
    m.type = "listen";
    m.state = "detect";
    m.text = DEVICE_CALL + text;
    return JSON.stringify(m);
  }

  // One message in, the messages to send back out.
  receive(message: string): string[] {
    if (typeof message !== "string") return [];
    const p = problem(message);
    if (p !== undefined) return this.unreadable(message, INVALID_REQUEST, p);
    let m: unknown;
    try {
      m = JSON.parse(message);
    } catch {
      return this.unreadable(message, PARSE_ERROR, "parse error: not valid JSON");
    }
    if (!isObject(m)) return this.drop("not a JSON object");
    switch (m.type) {
      case "mcp":
        return this.mcp(m);
      case "stt":
        this.user(m.text);
        return [];
      case "tts":
        this.tts(m.state, m.text);
        return [];
      case "llm":
        if (typeof m.emotion === "string") this.emotion(m.emotion);
        return [];
      case "hello":
        this.end("hello"); // a new session: the old conversation is over
        this.sessionId = typeof m.session_id === "string" ? m.session_id : undefined;
        return [];
      case "goodbye":
        this.end("goodbye");
        return [];
      default:
        return [];
    }
  }

  // The transport closed: the conversation is over.
  close(): void {
    this.removeSink?.();
    this.removeSink = undefined;
    this.end("close");
    this.sessionId = undefined;
  }

  // ---- MCP ------------------------------------------------------------------------------

  private mcp(m: Json): string[] {
    this.stats.mcp++;
    if (typeof m.session_id === "string") this.sessionId = m.session_id;
    if (!("payload" in m)) return this.drop("mcp message without payload");
    const reply = this.service.server.handlePayload(m.payload, "xiaozhi");
    if (reply === undefined) return [];
    if (isObject(reply)) {
      if (reply.id === null) {
        // an error for a request whose id we cannot give back: nobody can match it
        const err = reply.error as Json | undefined;
        return this.drop(`unanswerable: ${err && typeof err.message === "string" ? err.message : "no id"}`);
      }
      guardAction(reply);
    }
    return [this.envelope(reply)];
  }

  private envelope(payload: unknown): string {
    const env: Json = {};
    if (this.sessionId !== undefined) env.session_id = this.sessionId;
    env.type = "mcp";
    env.payload = payload;
    return JSON.stringify(env);
  }

  // A message we cannot parse: a JSON-RPC error inside the envelope, with the id
  // the scan recovers; nothing when it has none or is not MCP.
  private unreadable(message: string, code: number, text: string): string[] {
    const s = scan(message);
    if (s.type === "mcp") this.stats.mcp++;
    if (s.type !== "mcp" || s.id === undefined) return this.drop(`${text} (${s.type === "mcp" ? "no id" : "not mcp"})`);
    return [this.envelope({ jsonrpc: "2.0", id: s.id, error: { code, message: text } })];
  }

  private drop(why: string): string[] {
    this.stats.dropped++;
    trace(`petmem: xiaozhi: ${why}\n`);
    return [];
  }

  // ---- hearing -------------------------------------------------------------------------

  private user(text: unknown): void {
    if (typeof text !== "string") return;
    const t = text.trim();
    if (!t) return;
    if (t.charAt(0) === "%") {
      this.stats.ignored++; // "% self_memory": the server calling a tool
      return;
    }
    // the server's echo of a device call (a reminder the pet says): not the person's words
    const at = now();
    const b = bare(t);
    const i = this.calls.findIndex((c) => c.text === b && at - c.at < ECHO_MS);
    if (i >= 0) {
      this.calls.splice(i, 1);
      this.stats.ignored++;
      return;
    }
    this.heard("user", t);
  }

  private tts(state: unknown, text: unknown): void {
    if (state !== "sentence_start" || typeof text !== "string") return;
    const t = text.trim();
    if (!t) return;
    const at = now();
    if (isSpokenError(t) || (t === this.lastSentence && at - this.lastSentenceAt < DUPLICATE_MS)) {
      this.stats.ignored++;
      return;
    }
    this.lastSentence = t;
    this.lastSentenceAt = at;
    this.heard("assistant", t);
  }

  private heard(role: "user" | "assistant", t: string): void {
    this.lines++;
    this.stats.heard++;
    try {
      this.service.hear(role, t);
    } catch (e) {
      // hearing is best effort: whatever goes wrong there, the link keeps serving MCP
      if (e instanceof Error && e.name === "PowerCut") throw e;
      trace(`petmem: xiaozhi: hearing failed: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }

  private emotion(e: string): void {
    this.mood = emotionOf(e);
    const m = EMOTION_MAP[e];
    this.service.listener.evolver.emotion(m ? m[1] : 0);
  }

  // ---- the end of a conversation -----------------------------------------------------------

  // The listener's end writes the conversation's items and record in one batch.
  private end(reason: LinkEnd): void {
    const had = this.lines > 0;
    this.lines = 0;
    this.lastSentence = "";
    const l = this.service.listener;
    this.ending = true;
    try {
      if (had || l.active || l.pending.confirmedCount) this.service.endConversation();
    } finally {
      this.ending = false;
    }
    if (had) this.onEnd?.(reason);
  }
}

// A sentence without spaces, punctuation or emoji at its ends, as the server's
// stt echo trims it (textUtils.get_string_no_punctuation_or_emoji); compared
// without any punctuation inside either.
function bare(s: string): string {
  return s.replace(/[\s，,。.！!？?“”"：:\-－、；;…~～]/g, "");
}

// The xiaozhi server takes a result text that parses as JSON with a top-level
// "action" key as a command for itself (mcp_executor.py): such a text goes to
// the model wrapped as {"result": …}.
function guardAction(reply: Json): void {
  const r = reply.result;
  if (!isObject(r) || !Array.isArray(r.content)) return;
  const c = r.content[0] as Json | undefined;
  if (!c || typeof c.text !== "string" || c.text.charAt(0) !== "{" || c.text.indexOf('"action"') < 0) return;
  let v: unknown;
  try {
    v = JSON.parse(c.text);
  } catch {
    return;
  }
  if (isObject(v) && "action" in v) c.text = JSON.stringify({ result: v });
}

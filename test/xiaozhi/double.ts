// A double of the xiaozhi server (xinnan-tech/xiaozhi-esp32-server,
// main/xiaozhi-server/core/), as it talks to a device that has MCP. It does what
// the server's code does, step for step, and records what its model would see:
//
// - hello: the device's hello with features.mcp → the server's hello, then
//   initialize (id 1, protocolVersion 2024-11-05, the server's capabilities),
//   then tools/list (id 2, NO params) and tools/list {cursor} (id 2 again) while
//   a page has a non-empty nextCursor; the tools are ready only after a page
//   without one. An error reply to tools/list leaves them never ready
//   (mcp_handler.py handle_mcp_message).
// - tool names sanitised ([^a-zA-Z0-9_\-\u4e00-\u9fff] → _) and mapped back;
//   tool-call ids count from 1 (MCPClient.next_id).
// - a call: "% name" shown as stt first (unified_tool_handler.py), the call,
//   then call_mcp_tool: isError true → RuntimeError("工具调用错误: " +
//   result.get("error", generic)), a JSON-RPC error → "MCP错误: message", a
//   result → content[0].text only; mcp_executor.py: a text that parses as JSON
//   with a top-level "action" is a command (Action[...]) and skips the model,
//   anything else goes to the model (REQLLM). A reply whose id is null makes
//   int(None) raise in handle_mcp_message: counted as a crash.
// - the turn (sendAudioHandle.py, connection.py, textUtils.py): stt (the user's
//   words, trimmed of punctuation and emoji), tts start, the tool calls, llm
//   {emoji, emotion} once, tts sentence_start per sentence (an ERROR/NOTFOUND
//   response is spoken as a sentence too), tts stop.
// - goodbye: {"type":"goodbye"} (MQTT/UDP session end).
// - a device's listen/detect with text (listenMessageHandler.py, docs/XIAOZHI.md):
//   "[device_call]…": stt of the text (send_stt_message trims it), the text
//   spoken as one TTS turn (tts start, a sentence_start per segment, tts stop),
//   and Message(role="assistant") in the dialogue: the model's next turn sees
//   it as its own words. Any other text: the user's words (startToChat).
//
// No Node API: it runs inside XS (a scenario) and in Node against `npm start --
// --xiaozhi` (test/xiaozhi.test.ts).

export interface Wire {
  send(message: string): void;
  // the next message from the device; undefined: none is coming
  receive(): Promise<string | undefined>;
}

export const GENERIC_ERROR = "工具调用返回错误，但未提供具体错误信息";
export const ACTIONS = ["NOTFOUND", "NONE", "RESPONSE", "REQLLM", "ERROR", "RECORD"];

export interface Outcome {
  tool: string; // the sanitised name the model called
  args: Record<string, unknown>;
  action: string; // Action.*: REQLLM (to the model), ERROR, NOTFOUND, RESPONSE…
  modelSaw?: string; // the tool result the model reads (REQLLM only)
  spoken?: string; // said to the user instead
}

export interface Turn {
  user: string;
  calls?: { tool: string; args: Record<string, unknown> }[];
  reply: string[]; // the assistant's sentences
  emoji?: string; // the reply's first emoji (textUtils.get_emotion), none: 🙂 happy
}

const EMOJI: Record<string, string> = { "😂": "funny", "😭": "crying", "😠": "angry", "😔": "sad", "😍": "loving", "😲": "surprised", "😱": "shocked", "🤔": "thinking", "😌": "relaxed", "😴": "sleepy", "😶": "neutral", "🙂": "happy", "😆": "laughing" };

export function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_\-\u4e00-\u9fff]/g, "_");
}

// textUtils.get_string_no_punctuation_or_emoji: trims spaces and listed
// punctuation at both ends, not inside (and emoji, which the scripts do not use)
const TRIM = /^[\s，,。.！!“”"：:\-－、[\]【】]+|[\s，,。.！!“”"：:\-－、[\]【】]+$/g;
export function sttText(s: string): string {
  return s.replace(TRIM, "");
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export class XiaozhiServerDouble {
  readonly tools: Record<string, { name: string; description: string; inputSchema: Json }> = {};
  readonly nameMapping: Record<string, string> = {};
  ready = false;
  nextId = 1;
  sessionId = "session-1";
  initializeResult: Json | undefined;
  listPages: { bytes: number; tools: number; nextCursor?: string }[] = [];
  listError: string | undefined;
  crashes: string[] = []; // what would raise in handle_mcp_message
  outcomes: Outcome[] = [];
  sent: Json[] = []; // everything sent to the device
  dialogue: { role: "user" | "assistant"; content: string }[] = []; // conn.dialogue, as far as the device moves it
  deviceCalls: string[] = []; // texts the device asked the server to speak
  other: Json[] = []; // device messages that were not replies we waited for

  constructor(readonly wire: Wire) {}

  private send(m: Json): void {
    this.sent.push(m);
    this.wire.send(JSON.stringify(m));
  }

  private mcp(payload: Json): void {
    this.send({ type: "mcp", payload }); // send_mcp_message: no session_id
  }

  // The next MCP reply from the device with this id; anything else is kept aside.
  private async reply(id: number): Promise<Json | undefined> {
    for (;;) {
      const raw = await this.wire.receive();
      if (raw === undefined) return undefined;
      const m = JSON.parse(raw) as Json;
      if (m.type !== "mcp" || !isObject(m.payload)) {
        this.other.push(m);
        this.fromDevice(m);
        continue;
      }
      const p = m.payload;
      if (("result" in p || "error" in p) && (p.id === null || p.id === undefined || typeof p.id === "object")) {
        this.crashes.push(`int(${JSON.stringify(p.id)}) in handle_mcp_message`);
        continue;
      }
      if (Number(p.id) === id) return p;
      this.other.push(m);
    }
  }

  // The device says hello; the server answers, initializes and lists the tools.
  async connect(): Promise<void> {
    const raw = await this.wire.receive();
    if (raw === undefined) throw new Error("the device sent no hello");
    const hello = JSON.parse(raw) as Json;
    if (hello.type !== "hello" || !isObject(hello.features) || hello.features.mcp !== true) throw new Error(`not an MCP device hello: ${raw}`);
    this.send({ type: "hello", version: 1, transport: "websocket", session_id: this.sessionId, audio_params: { format: "opus", sample_rate: 24000, channels: 1, frame_duration: 60 } });
    this.mcp({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2024-11-05", capabilities: { roots: { listChanged: true }, sampling: {}, vision: { url: "http://127.0.0.1:8003/mcp/vision/explain", token: "t" } }, clientInfo: { name: "XiaozhiClient", version: "1.0.0" } },
    });
    const init = await this.reply(1);
    if (!init || !isObject(init.result)) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
    this.initializeResult = init.result;
    this.mcp({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    for (;;) {
      const r = await this.reply(2);
      if (!r) return;
      if (!isObject(r.result)) {
        // the "error" branch only rejects pending calls: the tools are never ready
        this.listError = isObject(r.error) ? String(r.error.message) : "no result";
        return;
      }
      const tools = r.result.tools;
      if (!Array.isArray(tools)) return;
      this.listPages.push({ bytes: JSON.stringify(r).length, tools: tools.length, nextCursor: r.result.nextCursor as string | undefined });
      for (const t of tools) {
        if (!isObject(t)) continue;
        const name = String(t.name ?? "");
        const s = isObject(t.inputSchema) ? t.inputSchema : {};
        const schema = { type: s.type ?? "object", properties: s.properties ?? {}, required: Array.isArray(s.required) ? s.required.filter((x) => typeof x === "string") : [] };
        this.tools[sanitize(name)] = { name, description: String(t.description ?? ""), inputSchema: schema };
        this.nameMapping[sanitize(name)] = name;
      }
      const next = r.result.nextCursor ?? "";
      if (next) this.mcp({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: next } });
      else {
        this.ready = true;
        return;
      }
    }
  }

  // What the model is offered (get_available_tools).
  functions(): { name: string; description: string; parameters: Json }[] {
    return Object.keys(this.tools).map((k) => ({ name: k, description: this.tools[k].description, parameters: this.tools[k].inputSchema }));
  }

  // One tool call as the server makes it; the outcome is recorded.
  async call(tool: string, args: Record<string, unknown>): Promise<Outcome> {
    const o = await this.execute(tool, args);
    this.outcomes.push(o);
    return o;
  }

  private async execute(tool: string, args: Record<string, unknown>): Promise<Outcome> {
    this.send({ type: "stt", text: `% ${tool}`, session_id: this.sessionId }); // send_display_message
    if (!this.ready) return { tool, args, action: "ERROR", spoken: "设备端MCP客户端未准备就绪" };
    if (!(tool in this.tools)) return { tool, args, action: "NOTFOUND", spoken: `工具 ${tool} 不存在` };
    const id = this.nextId++;
    this.mcp({ jsonrpc: "2.0", id, method: "tools/call", params: { name: this.nameMapping[tool], arguments: args } });
    const r = await this.reply(id);
    if (!r) return { tool, args, action: "ERROR", spoken: "工具调用请求超时" };
    if (!("result" in r)) {
      const e = isObject(r.error) ? r.error : {};
      return { tool, args, action: "ERROR", spoken: `MCP错误: ${e.message ?? "未知错误"}` };
    }
    const raw = r.result;
    let text: string;
    if (isObject(raw)) {
      if (raw.isError === true) return { tool, args, action: "ERROR", spoken: `工具调用错误: ${raw.error ?? GENERIC_ERROR}` };
      const c = raw.content;
      if (Array.isArray(c) && c.length > 0 && isObject(c[0]) && "text" in c[0]) text = String(c[0].text);
      else text = JSON.stringify(raw);
    } else text = JSON.stringify(raw);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isObject(parsed) && "action" in parsed) {
      const a = String(parsed.action);
      if (!ACTIONS.includes(a)) return { tool, args, action: "ERROR", spoken: `'${a}'` }; // KeyError
      return { tool, args, action: a, spoken: String(parsed.response ?? "") };
    }
    return { tool, args, action: "REQLLM", modelSaw: text };
  }

  // One turn of the conversation.
  async turn(t: Turn): Promise<Outcome[]> {
    this.send({ type: "stt", text: sttText(t.user), session_id: this.sessionId });
    this.send({ type: "tts", state: "start", session_id: this.sessionId });
    const outs: Outcome[] = [];
    for (const c of t.calls ?? []) outs.push(await this.call(c.tool, c.args));
    const emoji = t.emoji ?? "🙂";
    this.send({ type: "llm", text: emoji, emotion: EMOJI[emoji] ?? "happy", session_id: this.sessionId });
    for (const o of outs) if (o.spoken) this.say(o.spoken);
    for (const s of t.reply) this.say(s);
    this.send({ type: "tts", state: "stop", session_id: this.sessionId });
    return outs;
  }

  private say(sentence: string): void {
    // tts_one_sentence splits on 。！？!?；;\n; check_emoji drops emoji and newlines
    for (const seg of sentence.split(/[。！？!?；;\n]/)) if (seg.trim()) this.send({ type: "tts", state: "sentence_start", text: seg, session_id: this.sessionId });
  }

  // Handles what the device sent on its own (a listen/detect), reading until
  // nothing more is queued (the in-process wire), or `limit` messages.
  async drain(limit = 100): Promise<void> {
    for (let i = 0; i < limit; i++) {
      const raw = await this.wire.receive();
      if (raw === undefined) return;
      const m = JSON.parse(raw) as Json;
      this.other.push(m);
      this.fromDevice(m);
    }
  }

  private fromDevice(m: Json): void {
    if (m.type !== "listen" || m.state !== "detect" || typeof m.text !== "string") return;
    const original = m.text;
    if (original.startsWith("[device_call]")) {
      const callText = original.slice("[device_call]".length).trim();
      this.deviceCalls.push(callText);
      this.send({ type: "stt", text: sttText(callText), session_id: this.sessionId });
      this.send({ type: "tts", state: "start", session_id: this.sessionId });
      this.say(callText);
      this.send({ type: "tts", state: "stop", session_id: this.sessionId });
      this.dialogue.push({ role: "assistant", content: callText });
      return;
    }
    this.dialogue.push({ role: "user", content: original }); // startToChat: the model answers it
  }

  goodbye(): void {
    this.send({ type: "goodbye", session_id: this.sessionId });
  }
}

// A wire to a link in the same process: what the link returns is queued.
export function linkWire(link: { hello(): string; receive(m: string): string[] }): Wire & { log: string[]; push(m: string): void } {
  const queue: string[] = [link.hello()];
  const log: string[] = [];
  return {
    log,
    push(m) {
      queue.push(m); // a message the device sends on its own
    },
    send(m) {
      log.push(m);
      for (const r of link.receive(m)) queue.push(r);
    },
    async receive() {
      return queue.shift();
    },
  };
}

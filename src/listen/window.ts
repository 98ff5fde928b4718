// The conversation window (seed 004's working memory): the last N rounds in
// RAM, and what tells a conversation has ended.
//
// A conversation begins with the first message after the previous one ended.
// It ends:
// - explicitly: the companion says so (its session closed; a blank line in a
//   dialog file), Listener.end();
// - after a farewell: the user says goodbye (再见, 拜拜, 晚安, 我去睡觉了…)
//   and the assistant answers; the conversation ends after that answer;
// - after a quiet period: IDLE_END_MS without a message.

import type { Role } from "../memory/types";

export const WINDOW_ROUNDS = 10; // seed 004: working_memory_size (preset balanced; src/config/presets.ts)
export const IDLE_END_MS = 120000; // two quiet minutes end a conversation

export interface Message {
  role: Role;
  text: string;
  at: number; // ms
}

const FAREWELL = /^(?:好了|好吧|那|嗯)?[,.]?(?:我)?(?:先|要|得|该)?(?:走了|去睡觉了|睡觉了|睡了|去吃饭了|去写作业了|下线了|不聊了|挂了)|再见|拜拜|晚安|下次(?:再)?聊|回头见|明天见|一会儿见|待会儿见|^(?:bye|goodbye|good night|see you)\b/i;

// Whether a user utterance says goodbye.
export function isFarewell(text: string): boolean {
  return FAREWELL.test(text.trim());
}

export class ConversationWindow {
  private messages: Message[] = [];
  active = false;
  started = 0; // ms
  last = 0; // ms
  closing = false; // a farewell was heard: the next reply ends it

  // rounds may change between conversations (the preset, src/config/presets.ts)
  constructor(public rounds = WINDOW_ROUNDS) {}

  add(role: Role, text: string, at: number): void {
    if (!this.active) {
      this.active = true;
      this.started = at;
    }
    this.last = at;
    this.messages.push({ role, text, at });
    const max = this.rounds * 2;
    if (this.messages.length > max) this.messages.splice(0, this.messages.length - max);
  }

  // The last N rounds, oldest first.
  recent(): readonly Message[] {
    return this.messages;
  }

  get length(): number {
    return this.messages.length;
  }

  // The assistant's line just before the user's next one, if it was the last message.
  get lastAssistant(): string | undefined {
    const m = this.messages[this.messages.length - 1];
    return m && m.role === "assistant" ? m.text : undefined;
  }

  clear(): void {
    this.messages = [];
    this.active = false;
    this.closing = false;
  }
}

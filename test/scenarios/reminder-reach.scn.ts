// Issue 26: a reminder reaches the person on time. A schedule written two
// minutes before its time is reminded within a minute of it (not at the next
// 10-minute check), once, across a reboot too; as an MCP logging notification
// on the service's transport, and on the xiaozhi link as the device's own
// spoken turn (listen/detect [device_call]…) that the server double speaks as
// the assistant and keeps in the dialogue; the server's stt echo of it is not
// heard as the person's words.
import { SimDevice } from "../../host-sim/device";
import { bootDevice } from "../../src/app/boot";
import { Service } from "../../src/app/service";
import { XiaozhiLink, DEVICE_CALL } from "../../src/link/xiaozhi";
import { reminderSentence, whenWords } from "../../src/schedule/phrase";
import { fromLocal } from "../../src/time/local";
import { XiaozhiServerDouble, linkWire } from "../xiaozhi/double";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const MIN = 60000;
const T0 = fromLocal(2026, 2, 5, 7, 55); // local +08:00

function tool(svc: Service, id: number, args: Record<string, unknown>): Record<string, unknown> {
  const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory", arguments: args } }))!);
  return JSON.parse(r.result.content[0].text);
}

export const scenarios: Scenario[] = [
  {
    name: "MCP: a schedule written 2 minutes before its time: a notifications/message within a minute of it, once, not again after a reboot",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const b = bootDevice();
      const svc = b.service;
      const sent: string[] = [];
      svc.connect({ start() {}, send: (m) => sent.push(m) });
      const init = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }))!);
      deepEqual(init.result.capabilities.logging, {}, "logging declared");
      dev.clock.advanceTo(fromLocal(2026, 2, 5, 7, 58));
      equal(tool(svc, 2, { action: "write", type: "schedule", content: "吃早饭", datetime: "2026-02-05 08:00", priority: 3 }).result, "added");
      dev.clock.advance(2 * MIN - 1);
      equal(sent.length, 0, "not before its time: the person set it a moment ago");
      dev.clock.advance(1); // 08:00
      equal(sent.length, 1, "at its time, not at the next 10-minute check");
      const n = JSON.parse(sent[0]);
      equal(n.jsonrpc, "2.0");
      equal(n.method, "notifications/message");
      ok(!("id" in n), "a notification has no id");
      equal(n.params.level, "notice");
      equal(n.params.logger, "petmem.reminder");
      equal(n.params.data.type, "reminder");
      equal(n.params.data.content, "吃早饭");
      equal(n.params.data.datetime, "2026-02-05 08:00");
      equal(n.params.data.missed, false);
      equal(n.params.data.say, "哎对了，你现在有个吃早饭哦");
      // the client asks for warnings only: a normal reminder is not sent
      equal(JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "warning" } }))!).result !== undefined, true);
      equal(JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "loud" } }))!).error.code, -32602);
      dev.clock.advance(3 * 60 * MIN);
      equal(sent.length, 1, "once");
      // a reboot: never again
      svc.stop();
      dev.reboot();
      const b2 = bootDevice();
      const again: string[] = [];
      b2.service.connect({ start() {}, send: (m) => again.push(m) });
      dev.clock.advance(60 * MIN);
      equal(again.length, 0, "reminded=1 was on flash before the notification");
      b2.service.stop();
    },
  },
  {
    name: "xiaozhi: the reminder is the device's spoken turn ([device_call]); the server speaks it as the assistant, the echo is not the person's words",
    async run() {
      const dev = new SimDevice({ now: T0 }).install();
      const svc = bootDevice().service;
      const link = new XiaozhiLink(svc);
      const wire = linkWire(link);
      link.send = (m) => wire.push(m);
      const server = new XiaozhiServerDouble(wire);
      await server.connect();
      ok(server.ready, "tools ready");
      dev.clock.advanceTo(fromLocal(2026, 2, 5, 7, 58));
      await server.turn({ user: "提醒我八点开视频会议", calls: [{ tool: "memory", args: { action: "write", type: "schedule", content: "开视频会议", datetime: "2026-02-05 08:00", priority: 5 } }], reply: ["好的，八点提醒你。"] });
      const heardBefore = link.stats.heard;
      dev.clock.advance(2 * MIN - 1);
      await server.drain();
      equal(server.deviceCalls.length, 0);
      dev.clock.advance(1); // 08:00
      equal(link.reminders, 1, "the link started one spoken turn");
      await server.drain(); // the server handles the device's listen/detect
      deepEqual(server.deviceCalls, ["重要！你现在有个开视频会议"]);
      const call = server.other.find((m) => m.type === "listen")!;
      equal(call.state, "detect");
      equal(String(call.text).indexOf(DEVICE_CALL), 0);
      equal(call.session_id, server.sessionId);
      deepEqual(server.dialogue[server.dialogue.length - 1], { role: "assistant", content: "重要！你现在有个开视频会议" });
      // the server's stt echo was ignored; its TTS sentences were heard as the pet's
      equal(link.stats.heard - heardBefore, 2, "two sentences the pet said (重要 / 你现在有个开视频会议), no user line");
      equal(link.stats.ignored >= 1, true, "the stt echo ignored");
      // the person answers: the model follows up with its own words in the dialogue
      await server.turn({ user: "好的我马上去", calls: [{ tool: "memory", args: { action: "complete_schedule", content: "开视频会议" } }], reply: ["加油！"] });
      equal(server.outcomes[server.outcomes.length - 1].action, "REQLLM");
      equal(svc.schedules.list({ completed: true }).length, 1, "completed through the follow-up");
      link.close();
      svc.stop();
    },
  },
  {
    name: "the sentence the pet says, by tier, missed, and the time as a person says it",
    run() {
      new SimDevice({ now: T0 }).install();
      const at = fromLocal(2026, 2, 5, 13, 0);
      equal(whenWords("2026-02-05 14:00", at), "今天下午2点");
      equal(whenWords("2026-02-06 08:30", at), "明天早上8点半");
      equal(whenWords("2026-02-05 12:05", at), "今天中午12点05分");
      const r = { content: "会议", datetime: "2026-02-05 14:00", priority: 5, tier: "urgent" as const, missed: false, minutes: 60, repeat: "none" as const, duration: 60 };
      equal(reminderSentence(r, at), "重要！你今天下午2点有个会议");
      equal(reminderSentence({ ...r, priority: 3, tier: "normal" }, at), "哎对了，你今天下午2点有个会议哦");
      equal(reminderSentence({ ...r, priority: 1, tier: "light", content: "健身计划" }, at), "对了，你今天下午2点还有个健身计划");
      equal(reminderSentence({ ...r, tier: "normal", missed: true, minutes: -20 }, at), "哎呀，今天下午2点的会议已经过点了，别忘了哦");
    },
  },
];

// Listening end to end: the pending queue (heard twice, said plainly, 20
// items, 7 days, persisted, keys that never cut UTF-8), the conversation
// window and its end, the end-of-conversation batch (one flush, one write per
// store), and the memory tool's pending surface.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { Memory } from "../../src/memory/memory";
import { Schedules } from "../../src/schedule/schedules";
import { Listener } from "../../src/listen/listener";
import { PendingQueue, EXPIRY_SECONDS } from "../../src/listen/pending";
import { IDLE_END_MS } from "../../src/listen/window";
import { DOMAIN } from "../../src/nvs/store";
import { fromLocal } from "../../src/time/local";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = fromLocal(2026, 2, 5, 13, 0);

function boot(dev?: SimDevice) {
  const d = dev ?? new SimDevice({ now: T0 }).install();
  const svc = new Service({ sink: { remind() {} } });
  const formed: string[] = [];
  svc.listener.onMemory = (f) => formed.push(`${f.type}=${f.content}:${f.result}`);
  return { dev: d, svc, formed };
}

function read(svc: Service) {
  return JSON.parse(svc.tool.call({ action: "read" }));
}

// counts Preference.set calls per store prefix while fn runs
function countSets(fn: () => void): Record<string, number> {
  const counts: Record<string, number> = {};
  const set = Preference.set;
  Preference.set = (domain: string, key: string, value: boolean | number | string | ArrayBuffer) => {
    const prefix = key.split(".")[0];
    counts[prefix] = (counts[prefix] ?? 0) + 1;
    set.call(Preference, domain, key, value);
  };
  try {
    fn();
  } finally {
    Preference.set = set;
  }
  return counts;
}

export const scenarios: Scenario[] = [
  {
    name: "an unsure item heard once waits; heard again in another utterance it is confirmed and written at the end",
    run() {
      const { svc, formed } = boot();
      const h = svc.hear("user", "我好像喜欢恐龙");
      deepEqual(h.map((x) => [x.type, x.content, x.outcome, x.confirmed, x.confidence]), [["like", "恐龙", "queued", false, 2]]);
      svc.hear("user", "我好像喜欢恐龙，我好像喜欢恐龙"); // twice in one utterance is one hearing
      equal(svc.listener.pending.list()[0].heard, 2);
      svc.endConversation();
      deepEqual(formed, ["like=恐龙:added"]);
      deepEqual(read(svc).preferences.likes, ["恐龙"]);
      deepEqual(read(svc).pending, []);
      svc.hear("user", "我好像喜欢画画");
      svc.endConversation();
      deepEqual(read(svc).preferences.likes, ["恐龙"], "unsure and heard once: not memory");
      equal(read(svc).pending[0].content, "画画");
      svc.hear("user", "我喜欢恐龙");
      equal(svc.listener.pending.list().length, 1, "already memory: not queued again");
    },
  },
  {
    name: "a plain statement needs no second mention, a guess waits; the batch is one flush, one NVS write per store touched",
    run() {
      const { dev, svc, formed } = boot();
      svc.hear("assistant", "你好呀，你叫什么名字？");
      svc.hear("user", "我叫王小明，今年八岁");
      svc.hear("user", "记住哦，我喜欢蓝色");
      svc.hear("user", "提醒我明天早上八点吃药");
      svc.hear("user", "我妈妈叫李娟"); // confidence 4: a plain statement
      svc.hear("user", "我好像怕打雷"); // hedged, confidence 2: waits
      const writes = dev.flash.writes;
      let written = 0;
      const sets = countSets(() => (written = svc.endConversation()));
      ok(dev.flash.writes > writes);
      deepEqual(formed, ["name=王小明:added", "age=8:added", "like=蓝色:added", "schedule=吃药:added", "family=妈妈:李娟:added"]);
      // profile, family, preferences, events, chat, the conversation's record (affection), pending: each once (one set per copy)
      equal(written, 7);
      deepEqual(sets, { prof: 2, fam: 2, pref: 2, evt: 1, pend: 1, chat: 1, aff: 2 }); // two NVS copies of a small table, one of a large one (format 3, src/memory/types.ts)
      const r = read(svc);
      deepEqual(r.profile, { name: "王小明", age: 8 });
      equal(r.schedules[0].datetime, "2026-02-06 08:00");
      deepEqual(r.pending.map((p: { content: string }) => p.content), ["打雷"]);
      equal(svc.memory.chat().length, 6, "the chat log has every line");
    },
  },
  {
    name: "a negation cancels a pending like; a correction replaces a pending name",
    run() {
      const { svc } = boot();
      svc.hear("user", "我喜欢奥特曼");
      svc.hear("user", "我是刘洋"); // name, confidence 3
      equal(svc.listener.pending.list().length, 2);
      svc.hear("user", "我不再喜欢奥特曼了");
      deepEqual(svc.listener.pending.list().map((p) => p.content), ["刘洋"]);
      const h = svc.hear("user", "不对，我叫刘阳");
      equal(h[0].outcome, "confirmed");
      deepEqual(svc.listener.pending.list().map((p) => [p.content, p.confirmed]), [["刘阳", true]]);
      svc.hear("user", "我讨厌下雨天");
      svc.hear("user", "我喜欢下雨天"); // the latest statement replaces the dislike
      deepEqual(svc.listener.pending.list().map((p) => [p.type, p.content, p.heard]), [["name", "刘阳", 1], ["like", "下雨天", 1]]);
      svc.endConversation();
      equal(read(svc).profile.name, "刘阳");
    },
  },
  {
    name: "a reboot keeps the queue; items expire 7 days after they were first heard",
    run() {
      const { dev, svc } = boot();
      svc.hear("user", "我好像喜欢画画");
      svc.hear("user", "我好像讨厌打雷");
      dev.clock.advance(40000); // the service's quiet-period flush
      dev.reboot();
      const again = boot(dev);
      again.svc.start();
      deepEqual(again.svc.listener.pending.list().map((p) => p.content), ["画画", "打雷"]);
      dev.clock.advance(3 * 86400000);
      again.svc.hear("user", "我好像喜欢画画");
      again.svc.endConversation();
      deepEqual(read(again.svc).preferences.likes, ["画画"]);
      dev.clock.advance(EXPIRY_SECONDS * 1000);
      deepEqual(again.svc.listener.pending.list(), [], "expired");
      again.svc.hear("user", "我好像讨厌打雷");
      equal(again.svc.listener.pending.list()[0].heard, 1, "heard again after expiry: counts from 1");
    },
  },
  {
    name: "20 items at most: the oldest unconfirmed goes; keys compare whole values, never cut UTF-8",
    run() {
      new SimDevice({ now: T0 }).install();
      const mem = new Memory();
      const q = new PendingQueue(mem, new Schedules(mem));
      const t = Math.floor(T0 / 1000);
      q.offer({ kind: "name", value: "王小明", confidence: 5 }, t); // confirmed: never evicted
      for (let i = 0; i < 25; i++) q.offer({ kind: "like", value: "东西" + i, confidence: 3 }, t + 1 + i);
      const list = q.list(t + 100);
      equal(list.length, 20);
      equal(list[0].content, "王小明");
      equal(list[1].content, "东西6");
      // the fork keyed items by their first 31 bytes: these two would have been one
      const a = "北京市海淀区第一实验小学三年级"; // 45 bytes, the first 36 shared
      const b = "北京市海淀区第一实验小学四年级";
      mem.stores.pending.set([]);
      q.offer({ kind: "fact", value: a, confidence: 3 }, t);
      q.offer({ kind: "fact", value: b, confidence: 3 }, t);
      equal(q.list(t).length, 2);
      q.offer({ kind: "fact", value: "一二三四五六七八九十一二三四五六七", confidence: 3 }, t); // 51 bytes: cut to 48 at a boundary
      const last = q.list(t)[2].content;
      equal(last, "一二三四五六七八九十一二三四五六");
      mem.flush();
      const again = new PendingQueue(new Memory(), new Schedules(mem));
      deepEqual(again.list(t).map((p) => p.content), [a, b, last]);
    },
  },
  {
    name: "a conversation ends after a farewell and its reply, or after two quiet minutes; the window keeps 10 rounds",
    run() {
      const { dev, svc } = boot();
      const ends: string[] = [];
      svc.listener.onEnd = (reason) => ends.push(reason);
      svc.hear("user", "我叫小美");
      svc.hear("user", "拜拜");
      equal(svc.listener.active, true, "still open until the reply");
      svc.hear("assistant", "拜拜，明天见！");
      deepEqual(ends, ["farewell"]);
      equal(svc.listener.active, false);
      equal(read(svc).profile.name, "小美");
      for (let i = 0; i < 15; i++) {
        svc.hear("user", `第${i}句`);
        svc.hear("assistant", `好的${i}`);
      }
      equal(svc.listener.window.length, 20, "10 rounds");
      equal(svc.listener.window.recent()[0].text, "第5句");
      equal(svc.memory.chat().length, 30, "the chat log is a ring of 30");
      dev.clock.advance(IDLE_END_MS - 1000);
      deepEqual(ends, ["farewell"]);
      dev.clock.advance(2000);
      deepEqual(ends, ["farewell", "idle"]);
      equal(svc.memory.dirty, false, "the end flushed");
    },
  },
  {
    name: "memory tool: read shows pending apart, action=pending lists, confirm writes now, drop discards, a write settles",
    run() {
      const { dev, svc } = boot();
      svc.hear("user", "我喜欢恐龙");
      svc.hear("user", "我养了一只猫，叫咪咪");
      svc.hear("user", "下周三我们学校开运动会");
      svc.hear("user", "我住在杭州");
      const r = read(svc);
      deepEqual(r.preferences.likes, [], "pending is not memory");
      deepEqual(r.pending.map((p: { type: string; content: string }) => `${p.type}:${p.content}`), ["like:恐龙", "family:猫:咪咪", "event:学校开运动会", "location:杭州"]);
      equal(r.pending[2].date, "2026-02-11");
      const list = JSON.parse(svc.tool.call({ action: "pending" }));
      equal(list.count, 4);
      const w = dev.flash.writes;
      const c = JSON.parse(svc.tool.call({ action: "confirm", content: "恐龙" }));
      equal(c.result, "confirmed");
      equal(c.memory.result, "added");
      ok(dev.flash.writes > w, "on flash before the reply");
      deepEqual(read(svc).preferences.likes, ["恐龙"]);
      equal(JSON.parse(svc.tool.call({ action: "confirm", content: "咪咪" })).memory.type, "family");
      deepEqual(read(svc).family.map((f: { relation: string; name: string }) => f.relation + f.name), ["猫咪咪"]);
      equal(JSON.parse(svc.tool.call({ action: "drop", type: "event", content: "学校开运动会" })).result, "dropped");
      svc.tool.call({ action: "write", type: "location", content: "上海" }); // the AI's own word settles the pending one
      deepEqual(read(svc).pending, []);
      equal(read(svc).profile.location, "上海");
      const e = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory", arguments: { action: "confirm", content: "不存在" } } }))!);
      ok(e.result.isError && e.result.content[0].text.includes("nothing pending"));
      const stores = svc.memory.stores as unknown as Record<string, { isDirty: boolean }>;
      deepEqual(Object.keys(stores).filter((n) => stores[n].isDirty), ["chat"], "only the chat log waits, for the end of the conversation");
    },
  },
  {
    name: "a batch cut between stores: the item is written and still pending; writing it again at boot is a NOOP",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const mem = new Memory();
      const s = new Schedules(mem);
      const l = new Listener(mem, s);
      l.hear("user", "我叫王小明");
      l.hear("user", "明天下午三点我要去看牙医，你记得提醒我");
      mem.flush(); // the quiet-period flush: pending on flash
      const formed = l.pending.writeConfirmed(Math.floor(T0 / 1000));
      equal(formed.length, 2);
      // the batch's flush, cut after the profile and events stores, before pending
      mem.stores.profile.flush();
      mem.stores.events.flush();
      dev.reboot();
      const mem2 = new Memory();
      equal(new PendingQueue(mem2, new Schedules(mem2)).list().length, 2, "still pending");
      equal(mem2.profile().name, "王小明", "and written");
      const l2 = new Listener(mem2, new Schedules(mem2));
      const b = l2.recover();
      deepEqual(b.formed.map((f) => f.result), ["no_change", "no_change"]);
      equal(mem2.events().length, 1, "no duplicate");
      equal(l2.pending.list().length, 0);
      dev.reboot();
      const mem3 = new Memory();
      equal(mem3.stores.pending.count, 0);
      equal(mem3.events().length, 1);
      ok(Preference.keys(DOMAIN).some((k) => k.indexOf("pend.") === 0) || mem3.stores.pending.count === 0);
    },
  },
];

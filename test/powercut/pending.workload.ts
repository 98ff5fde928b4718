// Six conversations heard by the listener (src/listen): items confirmed by
// confidence 5 or by a second mention, a negation, the quiet-period flush in
// the middle of each conversation (chat log and pending queue), and the
// end-of-conversation batch: confirmed items into profile, preferences,
// family, facts and events, then the pending store, in one flush.
//
// After any cut, and the boot's recover() (which writes confirmed items a cut
// left pending):
//   - no record is lost that was on flash, as memory or as a confirmed pending
//     item, when the cut came (acknowledged);
//   - no record is unknown (every one is in the clean run's final state) and
//     none is there twice: an item written and still pending is written again
//     as a NOOP;
//   - nothing confirmed is left pending, and a second recover() writes nothing.
// The workload never changes a record once written, so memory only grows.
import { Memory } from "../../src/memory/memory";
import { Schedules } from "../../src/schedule/schedules";
import { Listener } from "../../src/listen/listener";
import { isConfirmed, PendingQueue } from "../../src/listen/pending";
import { fromLocal } from "../../src/time/local";
import type { Verdict, Workload } from "./harness";

export interface ListenModel {
  memory: string[]; // one string per remembered thing
  confirmed: string[]; // confirmed items in the pending store
  pending: string[]; // every pending item
}

function things(mem: Memory): string[] {
  const out: string[] = [];
  const p = mem.profile();
  for (const k of ["name", "age", "gender", "location", "birthday"] as const) if (p[k]) out.push(`${k}=${p[k]}`);
  const prefs = mem.preferences();
  for (const l of prefs.likes) out.push(`like=${l}`);
  for (const l of prefs.dislikes) out.push(`dislike=${l}`);
  for (const f of mem.family()) out.push(`family=${f.relation}:${f.name}`);
  for (const f of mem.facts()) out.push(`fact=${f.content}`);
  for (const e of mem.events()) out.push(`event=${e.date} ${e.time} ${e.content}`);
  return out;
}

function model(mem: Memory): ListenModel {
  const items = mem.stores.pending.all();
  const show = (p: { kind: string; value: string; when: number }) => `${p.kind}=${p.value}@${p.when}`;
  return { memory: things(mem), confirmed: items.filter(isConfirmed).map(show), pending: items.map(show) };
}

const CONVERSATIONS: string[][] = [
  ["a:你好呀，你叫什么名字？", "u:我叫王小明，今年八岁", "u:我喜欢恐龙", "u:我讨厌下雨天", "a:好的", "u:我妈妈叫李娟", "-", "u:我喜欢恐龙", "u:拜拜", "a:拜拜！"],
  ["u:我是男生", "u:我住在杭州", "u:我妈妈叫李娟", "u:明天下午三点我要去看牙医，你记得提醒我", "-", "u:我讨厌下雨天", "u:我爸爸叫王建国"],
  ["u:记住哦，我对花生过敏", "u:我喜欢画画", "u:我不再喜欢画画了", "u:我有个弟弟叫小杰", "-", "u:我爸爸叫王建国", "u:我住在杭州", "u:我的生日是3月15日"],
  ["u:我有个弟弟叫小杰", "u:下周三我们学校开运动会", "u:我喜欢吃草莓", "-", "u:下周三我们学校开运动会", "u:我喜欢吃草莓", "u:提醒我后天上午十点去上钢琴课"],
  ["u:我会游泳", "u:我是男生", "u:我家有一只小狗叫旺财", "-", "u:我会游泳", "u:我家有一只小狗叫旺财", "u:别忘了，我最喜欢的颜色是蓝色"],
  ["u:我上三年级", "u:我上三年级", "u:我的好朋友叫乐乐", "-", "u:我的好朋友叫乐乐", "u:请记住我喜欢打篮球", "u:再见", "a:再见！"],
];

// The clean run's final state (the sweep runs the script once, uncut, first).
let finalMemory: string[] | undefined;

export const pendingWorkload: Workload<ListenModel> = {
  name: "listen",
  start: fromLocal(2026, 2, 5, 13, 0),
  script(dev, ack, inflight) {
    const mem = new Memory();
    const flush = (): number => {
      inflight(model(mem));
      const n = mem.flush();
      ack(model(mem));
      return n;
    };
    const l = new Listener(mem, new Schedules(mem), { flush });
    CONVERSATIONS.forEach((lines, k) => {
      dev.clock.advanceTo(fromLocal(2026, 2, 5 + k, 18, 0));
      for (const line of lines) {
        dev.clock.advance(10000);
        if (line === "-") flush(); // the service's quiet-period flush
        else l.hear(line.charAt(0) === "u" ? "user" : "assistant", line.slice(2));
      }
      if (l.active) l.end();
    });
    finalMemory = things(mem);
  },
  verify(dev, acked, inflight) {
    const v: Verdict = { ackedLost: 0, torn: 0, duplicates: 0 };
    const mem = new Memory();
    const l = new Listener(mem, new Schedules(mem));
    l.recover(); // the boot
    const now = things(mem);
    const a = acked ?? { memory: [], confirmed: [], pending: [] };
    const f = inflight ?? a;
    // nothing acknowledged is lost: memory, or confirmed items that were on flash
    for (const x of a.memory) if (now.indexOf(x) < 0) v.ackedLost++;
    for (const c of a.confirmed) {
      const [kind, rest] = [c.slice(0, c.indexOf("=")), c.slice(c.indexOf("=") + 1, c.lastIndexOf("@"))];
      const hit = kind === "schedule" || kind === "event" ? now.some((x) => x.indexOf("event=") === 0 && x.endsWith(" " + rest)) : now.indexOf(`${kind}=${rest}`) >= 0;
      if (!hit) v.ackedLost++;
    }
    // nothing unknown, nothing twice
    for (let i = 0; i < now.length; i++) {
      if (finalMemory && finalMemory.indexOf(now[i]) < 0) v.torn++;
      if (now.indexOf(now[i]) !== i) v.duplicates++;
    }
    // the queue: nothing confirmed left, the rest as acknowledged or in flight
    const q = new PendingQueue(mem, l.schedules);
    const left = q.items().map((p) => `${p.kind}=${p.value}@${p.when}`);
    if (q.items().some(isConfirmed)) v.duplicates++;
    const unconfirmed = (m: ListenModel) => m.pending.filter((p) => m.confirmed.indexOf(p) < 0);
    const same = (x: string[], y: string[]) => x.length === y.length && x.every((s, i) => s === y[i]);
    if (!same(left, unconfirmed(a)) && !same(left, unconfirmed(f))) v.torn++;
    // recovering again writes nothing
    const writes = dev.flash.writes;
    if (l.recover().written !== 0 || dev.flash.writes !== writes) v.duplicates++;
    return v;
  },
};

// Episodes as memory (src/episode/episodes.ts): AUDN, the core conflict note,
// the cap, the trash and its purge, tombstones, forgetting with a moving
// clock, bad input. The store is a RAM stand-in for the contract
// (test/scenarios/episode-fake.ts) until src/episode/store.ts is on main.
import { isPassageFile } from "../../src/episode/passages";
import { SimDevice } from "../../host-sim/device";
import { Episodes, patchContent, UPDATE_SIMILARITY } from "../../src/episode/episodes";
import { strength, importance } from "../../src/episode/score";
import { polarity, topicOverlap } from "../../src/episode/words";
import { EPISODE_SLOTS, type Tombstone } from "../../src/episode/types";
import { FakeEpisodeStore } from "./episode-fake";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";
import { bootDevice } from "../../src/app/boot";
import { presetOf } from "../../src/config/presets";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 +08:00
const DAY = 86400000;

function setup(cap = 800, opts: { limit?: number } = {}) {
  const dev = new SimDevice({ now: T0 }).install();
  const store = new FakeEpisodeStore(opts.limit);
  const eps = new Episodes(store, { cap });
  return { dev, store, eps };
}

function tombs(store: FakeEpisodeStore): Tombstone[] {
  const all: Tombstone[] = [];
  store.tombs((t) => void all.push(t));
  return all;
}

function active(eps: Episodes): string[] {
  const out: string[] = [];
  eps.forEach((ep) => void out.push(ep.content), { text: true });
  return out;
}

export const scenarios: Scenario[] = [
  {
    name: "AUDN: a new episode is added, the same again is a NOOP, a restatement updates it (scores by max, keywords together, used once more)",
    run() {
      const { dev, store, eps } = setup();
      const a = eps.add({ content: "周末和爸爸去公园放风筝，风筝飞得很高", e: 0.5, i: 0.4, p: 0.1, j: 0.5, keywords: "风筝,公园", emotion: "happy" });
      equal(a.action, "ADDED");
      equal(a.episode.e, 50);
      deepEqual(a.episode.keywords, ["风筝", "公园"]);
      const writes = store.writes;
      const same = eps.add({ content: "周末和爸爸去公园放风筝，风筝飞得很高", e: 0.5, i: 0.4, p: 0.1, j: 0.5, keywords: ["风筝", "公园"], emotion: "happy" });
      equal(same.action, "NOOP");
      equal(store.writes, writes, "a NOOP writes nothing");
      dev.clock.now += 3600000;
      const up = eps.add({ content: "周末和爸爸去公园放风筝，风筝飞得很高", e: 0.8, i: 0.2, p: 0.1, j: 0.5, keywords: "爸爸" });
      equal(up.action, "UPDATED");
      equal(up.replaced, undefined, "same content: nothing replaced");
      equal(up.episode.id, a.episode.id);
      equal(up.episode.e, 80, "e by max");
      equal(up.episode.i, 40, "i by max");
      deepEqual(up.episode.keywords, ["爸爸", "风筝", "公园"]);
      equal(up.episode.useCount, 1);
      equal(up.episode.lastActiveAt, Math.floor(dev.clock.now / 1000));
      equal(up.episode.emotion, "happy", "a neutral restatement keeps the emotion");
      equal(tombs(store).length, 0);
      // a restatement in other words replaces the content: tombstone `replaced` of the old payload
      const re = eps.add({ content: "周末和爸爸去公园放风筝，风筝飞得特别高", e: 0.3, i: 0.3, p: 0.1, j: 0.5 });
      equal(re.action, "UPDATED");
      equal(re.replaced, true);
      equal(re.episode.content, "周末和爸爸去公园放风筝，风筝飞得特别高");
      const t = tombs(store);
      equal(t.length, 1);
      equal(t[0].reason, "replaced");
      equal(t[0].id, a.episode.id);
      // something else is a new episode
      equal(eps.add({ content: "今天数学考试考了一百分", e: 0.6, i: 0.5, p: 0.1, j: 0.6 }).action, "ADDED");
      deepEqual(active(eps), ["周末和爸爸去公园放风筝，风筝飞得特别高", "今天数学考试考了一百分"], "never two active episodes saying the same");
      equal(eps.counts().active, 2);
    },
  },
  {
    name: "AUDN: two events told in the same words stay two episodes; a restatement that says more of the same updates the one",
    run() {
      const { store, eps } = setup();
      const a = eps.add({ content: "第3次在公园玩篮球，主人说这次特别开心，还约好下次再一起去公园", j: 0.7 });
      const b = eps.add({ content: "第5次在家里玩小猫，主人说这次特别开心，还约好下次再一起去家里", j: 0.7 });
      equal(a.action, "ADDED");
      equal(b.action, "ADDED", "alike signatures, different things");
      const c = eps.add({ content: "今天去动物园看了长颈鹿", j: 0.6 });
      const d = eps.add({ content: "今天去动物园看了大熊猫", j: 0.6 });
      equal(c.action, "ADDED");
      equal(d.action, "ADDED", "a giraffe is not a panda");
      equal(active(eps).length, 4);
      const e = eps.add({ content: "今天去动物园看了长颈鹿，长颈鹿好高", j: 0.6 });
      equal(e.action, "UPDATED", "says more of the same");
      equal(e.episode.id, c.episode.id);
      equal(e.replaced, true);
      equal(active(eps).length, 4);
      ok(tombs(store).some((t) => t.reason === "replaced" && t.id === c.episode.id), "the old wording has its tombstone");
    },
  },
  {
    name: "a statement that contradicts a core memory edits it: the newest wins, the old kept as a dated note (conflict_patch)",
    run() {
      const { dev, store, eps } = setup();
      equal(polarity("你很爱吃辣"), 1);
      equal(polarity("最近胃炎，不吃辣了"), -1);
      equal(polarity("风筝飞得特别高"), 0, "特别 does not say no");
      ok(topicOverlap("你很爱吃辣", "最近胃炎，不吃辣了") >= 0.5, "same topic: 吃辣");
      const core = eps.add({ content: "你很爱吃辣", e: 0.3, i: 0.6, p: 1, j: 0.8, keywords: "吃辣" });
      equal(core.action, "ADDED");
      eps.add({ content: "喜欢和小红一起画画", p: 0.5 });
      dev.clock.now = T0 + 40 * DAY; // 2026-03-17
      const r = eps.add({ content: "最近胃炎，不吃辣了", e: 0.5, i: 0.5, p: 0.5, j: 0.6 });
      equal(r.action, "UPDATED");
      equal(r.patched, true);
      equal(r.episode.id, core.episode.id);
      equal(r.episode.content, "最近胃炎，不吃辣了（2026-03-17前：你很爱吃辣）");
      equal(r.episode.p, 100, "still core");
      const t = tombs(store);
      equal(t.length, 1);
      equal(t[0].reason, "conflict_patch");
      equal(t[0].id, core.episode.id);
      equal(eps.counts().active, 2, "no second episode saying the opposite");
      // said back again: the newest wins once more, one note only (the state before)
      dev.clock.now = T0 + 100 * DAY;
      const back = eps.add({ content: "胃好了，我又爱吃辣了", p: 1 });
      equal(back.patched, true);
      equal(back.episode.content, "胃好了，我又爱吃辣了（2026-05-16前：最近胃炎，不吃辣了）");
      // a contradiction of an ordinary memory is no patch
      const plain = eps.add({ content: "不想和小红一起画画了", p: 0.5 });
      equal(plain.patched, undefined);
      // the note never passes 200 characters; a long old content is cut with …
      const long = "很".repeat(150);
      const p = patchContent("不喜欢" + "的".repeat(60), "喜欢" + long, "2026-01-01");
      let n = 0;
      for (const _ of p) n++;
      ok(n <= 200, `${n} characters`);
      ok(p.indexOf("…）") > 0);
      equal(patchContent("不".repeat(190), "喜欢", "2026-01-01"), "不".repeat(190), "no room: no note");
    },
  },
  {
    name: "over the cap the least important non-core episodes go to the trash (evicted, cause cap); core never; only core left: refused, nothing changes",
    run() {
      const { store, eps } = setup(4);
      eps.add({ content: "你对花生过敏", p: 1, i: 0.9, j: 0.9 });
      const low = eps.add({ content: "下午吃了一个苹果", e: 0.1, i: 0.1, p: 0.1, j: 0.1 });
      eps.add({ content: "学校下周组织去科技馆参观", e: 0.4, i: 0.7, p: 0.5, j: 0.6 });
      eps.add({ content: "和妈妈一起包了饺子", e: 0.6, i: 0.3, p: 0.1, j: 0.4 });
      const r = eps.add({ content: "新买的自行车是蓝色的", e: 0.3, i: 0.4, p: 0.1, j: 0.3 });
      equal(r.action, "ADDED");
      deepEqual(r.evicted, [low.episode.id], "the least important went");
      const c = eps.counts();
      equal(c.active, 4);
      equal(c.trash, 1);
      const t = tombs(store);
      equal(t.length, 1);
      equal(t[0].reason, "evicted");
      equal(t[0].cause, "cap");
      equal(t[0].id, low.episode.id);
      ok(t[0].strength > 0 && t[0].strength < 20, "its importance recorded");
      let trashed: { id: number; purgeAt: number } | undefined;
      eps.forEach((ep) => void (ep.state === "trash" && (trashed = { id: ep.id, purgeAt: ep.purgeAt })), { trash: true });
      equal(trashed!.id, low.episode.id);
      equal(trashed!.purgeAt, Math.floor(T0 / 1000) + 7 * 86400, "purge_at = now + 7 days");
      // only core memories: a new episode is refused with a clear error, nothing changes
      const full = setup(2);
      full.eps.add({ content: "你对花生过敏", p: 1 });
      full.eps.add({ content: "你最喜欢的颜色是蓝色", p: 1 });
      const w = full.store.writes;
      throws(() => full.eps.add({ content: "今天下雨了没出门", p: 0.1 }), { name: "MemoryError", message: "core memories" });
      equal(full.store.writes, w);
      equal(full.eps.counts().active, 2);
      // a cap lowered (a smaller preset): an add makes room for itself a batch at a time, upkeep steps do the rest
      const lower = setup(20);
      const said = ["早上喝了牛奶", "下午画了一只猫", "晚饭吃的面条", "外面刮大风", "楼下新开了超市", "鞋子湿透了", "同桌借走铅笔", "学会写毛笔字", "看见彩虹很漂亮", "电视里放动画片", "给花浇了水", "听奶奶讲故事"];
      said.forEach((content, k) => lower.eps.add({ content, e: 0.5, i: 0.5, p: 0.5, j: k / 20 }));
      equal(lower.eps.step(), false, "the hourly pass: nothing to do");
      lower.eps.cap = 3;
      const n = lower.eps.add({ content: "第一次自己系鞋带", e: 0.9, i: 0.9, p: 0.9, j: 0.9 });
      equal(n.action, "ADDED");
      equal(n.evicted.length, 7, "one batch's worth");
      equal(lower.eps.counts().active, 6);
      lower.eps.step(); // the hourly pass is not due: a count over the cap is reason enough
      equal(lower.eps.counts().active, 3, "the upkeep reached the cap");
      const left: string[] = [];
      lower.eps.forEach((ep) => void left.push(ep.content), { text: true });
      deepEqual(left.sort(), ["第一次自己系鞋带", "给花浇了水", "听奶奶讲故事"].sort(), "the most important stay");
      equal(tombs(lower.store).filter((x) => x.cause === "cap").length, 10);
    },
  },
  {
    name: "the trash is purged once purge_at passes (slot freed and reused); full slot files purge the oldest trash early",
    run() {
      const { dev, store, eps } = setup();
      const a = eps.add({ content: "和同学去看了电影", p: 0.1 });
      eps.add({ content: "周末去奶奶家吃饭", p: 0.5 });
      const gone = eps.remove({ content: "和同学去看了电影" });
      equal(gone!.id, a.episode.id);
      equal(tombs(store)[0].reason, "user_delete");
      equal(eps.counts().trash, 1);
      dev.clock.now = T0 + 6 * DAY;
      equal(eps.maintain().purged, 0, "not yet");
      dev.clock.now = T0 + 7 * DAY + 1000;
      const r = eps.maintain();
      equal(r.purged, 1);
      equal(eps.counts().trash, 0);
      equal(store.freeSlot(), a.episode.slot, "the slot is free again");
      equal(eps.add({ content: "学会了骑自行车", p: 0.5 }).episode.slot, a.episode.slot, "and reused");
      equal(tombs(store).length, 1, "tombstones are kept for ever");
      // the same thing in other words names it too; something merely related does not
      equal(eps.remove({ content: "去奶奶家" })?.content, "周末去奶奶家吃饭", "a part of one episode");
      dev.clock.now += 8 * DAY;
      eps.maintain();
      eps.add({ content: "周末去奶奶家吃饭", p: 0.5 });
      equal(eps.remove({ content: "奶奶家的猫很胖" }), undefined, "related, not the same: nothing deleted");
      equal(eps.remove({ content: "周末去奶奶家吃了饭" })?.content, "周末去奶奶家吃饭", "other words, the same thing");
      // the files at their largest (EPISODE_SLOTS): the oldest trash is purged early
      const small = setup(800, { limit: 3 });
      small.eps.add({ content: "早上喝了牛奶" });
      small.eps.add({ content: "下午去公园散步" });
      small.eps.add({ content: "学校组织春游" });
      small.eps.remove({ content: "下午去公园散步" });
      equal(small.store.freeSlot(), EPISODE_SLOTS, "no free slot");
      const n = small.eps.add({ content: "晚上和爸爸下象棋" });
      equal(n.episode.slot, 1, "the trash slot was taken");
      equal(small.eps.counts().trash, 0);
      equal(small.eps.counts().active, 3);
    },
  },
  {
    name: "forgetting with a moving clock: strength below 0.2 goes to the trash (evicted, cause decay, strength recorded); core and used memories stay",
    run() {
      const { dev, store, eps } = setup();
      const weak = eps.add({ content: "早饭吃了包子", e: 0.2, i: 0.2, p: 0.1, j: 0.2 });
      const mid = eps.add({ content: "参加了学校的运动会跑了第二名", e: 0.6, i: 0.6, p: 0.3, j: 0.7 });
      const core = eps.add({ content: "你有哮喘，不能剧烈运动", e: 0.7, i: 0.9, p: 1, j: 1 });
      const used = eps.add({ content: "养了一只叫豆豆的小狗", e: 0.8, i: 0.8, p: 0.8, j: 0.8 });
      // the same day: nothing is judged (told within a day)
      equal(eps.maintain().forgotten.length, 0);
      dev.clock.now = T0 + 2 * DAY;
      let r = eps.maintain();
      deepEqual(r.forgotten, [weak.episode.id], "weak: 0.2·… under 0.2 at once");
      const t = tombs(store);
      equal(t[0].reason, "evicted");
      equal(t[0].cause, "decay");
      const s = strength({ ...weak.episode }, Math.floor(dev.clock.now / 1000));
      equal(t[0].strength, Math.round(s * 100));
      // recalled often: stays past 30 days
      for (let k = 0; k < 10; k++) eps.recall("小狗豆豆");
      dev.clock.now = T0 + 45 * DAY;
      r = eps.maintain();
      deepEqual(r.forgotten, [mid.episode.id], "30 days without use: strength 0");
      const ids: number[] = [];
      eps.forEach((ep) => void ids.push(ep.id));
      deepEqual(ids.sort(), [core.episode.id, used.episode.id].sort());
      ok(strength({ ...core.episode, lastActiveAt: 0 }, Math.floor(dev.clock.now / 1000)) < 0.2, "core would be weak, yet stays");
      // a year on: the used one fades too (access 10 of 10 keeps 0.3·importance, under 0.2), core stays
      dev.clock.now = T0 + 400 * DAY;
      r = eps.maintain();
      deepEqual(r.forgotten, [used.episode.id]);
      equal(eps.counts().active, 1);
      equal(eps.counts().core, 1);
      ok(importance({ ...core.episode }, 0) === importance({ ...core.episode }, 1e9), "core: time_coef 1");
    },
  },
  {
    name: "upkeep is bounded: at most 4 slots per step, true while work remains; step() runs it at most hourly",
    run() {
      const { dev, store, eps } = setup();
      const said = ["早上喝了牛奶", "下午画了一只猫", "晚饭吃的面条", "外面刮大风", "楼下新开了超市", "鞋子湿透了", "同桌借走铅笔", "学会写毛笔字", "看见彩虹很漂亮", "电视里放动画片"];
      for (const content of said) equal(eps.add({ content, e: 0.1, i: 0.1, p: 0.1, j: 0.1 }).action, "ADDED", content);
      dev.clock.now = T0 + 2 * DAY;
      let w = store.writes;
      ok(eps.step(), "work remains after the first step");
      equal(store.writes, w + 1, "one batch");
      equal(eps.counts().active, 6);
      ok(eps.step());
      equal(eps.counts().active, 2);
      equal(eps.step(), false, "done");
      equal(eps.counts().active, 0);
      w = store.writes;
      dev.clock.now += 8 * DAY;
      equal(eps.step(), true, "purge: 10 trash slots, 4 a step");
      equal(eps.counts().trash, 6);
      eps.step();
      eps.step();
      equal(eps.counts().trash, 0);
      w = store.writes;
      eps.step();
      equal(store.writes, w, "nothing to do: nothing written");
    },
  },
  {
    name: "bad input gets a clear error and changes nothing",
    run() {
      const { store, eps } = setup();
      eps.add({ content: "第一次去海边玩" });
      const w = store.writes;
      const bad: [Record<string, unknown>, string][] = [
        [{}, "content is required"],
        [{ content: "   " }, "content is required"],
        [{ content: 7 }, "content must be a string"],
        [{ content: "很".repeat(201) }, "at most 200 characters"],
        [{ content: "😀".repeat(160) }, "at most 600 bytes"],
        [{ content: "a\u0001b" }, "control character"],
        [{ content: "x", e: 1.5 }, "e must be a number from 0 to 1"],
        [{ content: "x", p: -0.1 }, "p must be a number from 0 to 1"],
        [{ content: "x", j: "high" }, "j must be a number from 0 to 1"],
        [{ content: "x", emotion: "angry" }, "emotion must be one of"],
        [{ content: "x", keywords: "a,b,c,d,e,f" }, "at most 5 keywords"],
        [{ content: "x", keywords: "这是一个非常非常长的关键词" }, "a keyword is too long"],
        [{ content: "x", keywords: 5 }, "keywords must be words"],
      ];
      for (const [args, msg] of bad) {
        const e = throws(() => eps.add(args), { name: "MemoryError" }, JSON.stringify(args));
        ok(e.message.indexOf(msg) >= 0, `${JSON.stringify(args)}: ${e.message}`);
      }
      throws(() => eps.remove({ id: "x" }), { message: "id must be" });
      equal(store.writes, w, "nothing written");
      equal(eps.counts().active, 1);
      // a store that fails: the error is thrown, nothing changed
      store.failNext = "write";
      throws(() => eps.add({ content: "今天去图书馆借了书" }), { name: "EpisodeError" });
      equal(eps.counts().active, 1);
      // tombstones that fail after their batch are written by the next step
      store.failNext = "tombs";
      eps.remove({ content: "第一次去海边玩" });
      equal(store.tombCount(), 0);
      eps.step();
      equal(store.tombCount(), 1);
      ok(UPDATE_SIMILARITY > 0.5);
    },
  },
  {
    name: "boot wires the episodes into the tool and the maintenance timer: forgetting runs when idle, never during a conversation; a failing store still boots",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const store = new FakeEpisodeStore();
      const b = bootDevice(undefined, { sink: { remind() {} }, makeEpisodes: () => new Episodes(store) });
      ok(b.service.tool.episodes === b.episodes && b.episodes !== undefined, "set on the tool");
      ok(b.maintenance !== undefined && b.episodeTimer === undefined, "run by the archive's maintenance");
      // the default episodes follow the preset in force, at once
      const own = bootDevice(undefined, { sink: { remind() {} } });
      equal(own.episodes!.cap, presetOf(own.service.memory).episodeCap);
      equal(JSON.parse(own.service.tool.call({ action: "config", preset: "minimal" })).result, "updated");
      equal(own.episodes!.cap, 160);
      equal(own.episodes!.recallSize, 1);
      equal(JSON.parse(own.service.tool.call({ action: "config", preset: "full" })).result, "updated");
      deepEqual([own.episodes!.cap, own.episodes!.recallSize], [800, 5]);
      own.maintenance?.stop();
      own.service.stop();
      const weak = b.episodes!.add({ content: "早饭吃了包子", e: 0.2, i: 0.2, p: 0.1, j: 0.2 });
      dev.clock.advanceTo(T0 + DAY - 60000);
      equal(b.episodes!.counts().active, 1, "told within a day: not judged yet");
      // a conversation across the moment it could be forgotten: no upkeep step while it lasts
      const w = store.writes;
      for (let k = 0; k < 8; k++) {
        b.service.hear("user", ["今天天气真好", "我们去公园吧", "公园里有很多花", "还有小鸭子", "我喂了小鸭子", "它们很可爱", "然后我们回家了", "晚上吃了面条"][k]);
        dev.clock.advanceTo(dev.clock.now + 60000);
      }
      ok(b.service.listener.active, "still talking");
      equal(store.writes, w, "nothing written during the conversation");
      equal(b.episodes!.counts().active, 1);
      dev.clock.advanceTo(T0 + DAY + 20 * 60000); // it ended (two quiet minutes): its episode formed, then the idle tick forgets
      const left: string[] = [];
      b.episodes!.forEach((ep) => void left.push(ep.source), { text: true });
      deepEqual(left, ["listener"], "the weak one forgotten, the conversation's episode kept");
      equal(tombs(store)[0].id, weak.episode.id);
      equal(tombs(store)[0].cause, "decay");
      b.maintenance!.stop();
      b.service.stop();
      // episodes that cannot be made: the device boots without them, and says so
      const bad = bootDevice(undefined, { sink: { remind() {} }, makeEpisodes: () => { throw new Error("episode files unreadable"); } });
      equal(bad.episodes, undefined);
      ok(bad.line.indexOf("episodes unavailable (episode files unreadable)") >= 0, bad.line);
      ok(JSON.parse(bad.service.tool.call({ action: "context", message: "你好" })).episodes_unavailable);
      bad.maintenance?.stop();
      bad.service.stop();
    },
  },
  {
    name: "status counts the episodes (active, core, trash, tombstones, cap, bytes); without episodes it says they are not available",
    run() {
      const dev = new SimDevice({ now: T0 }).install();
      const b = bootDevice(undefined, { sink: { remind() {} } });
      const call = (a: Record<string, unknown>) => JSON.parse(b.service.tool.call(a));
      call({ action: "write", type: "episode", content: "最喜欢的颜色是蓝色", p: 1 });
      call({ action: "write", type: "episode", content: "今天去动物园看了长颈鹿", p: 0.3 });
      call({ action: "delete", type: "episode", content: "今天去动物园看了长颈鹿" });
      const st = call({ action: "status" }).episodes;
      deepEqual({ active: st.active, core: st.core, trash: st.trash, tombstones: st.tombstones, cap: st.cap }, { active: 1, core: 1, trash: 1, tombstones: 1, cap: presetOf(b.service.memory).episodeCap });
      // the slot files and the passages' stream (the texts, FORMAT.md §4.3)
      equal(st.used_bytes, dev.spiffs.list().filter((e) => e.name.indexOf("/ep.") === 0 || isPassageFile(e.name.slice(1))).reduce((n, e) => n + e.length, 0), "the episode files' bytes");
      b.service.tool.episodes = undefined;
      equal(call({ action: "status" }).episodes, "not available");
    },
  },
];

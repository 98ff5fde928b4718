// Synthetic pet lives for `npm run eval:recall` (issue 25 item 4): each life is
// months of memory written day by day as a model writes it through the tool
// (profile, likes, family, facts, traits, habits, goals, schedules, events,
// moments, episodes) plus lines the listener hears, with the clock moving,
// and the questions a person would ask the pet at the end, of six kinds:
// direct, paraphrase, field (生日/几岁/住哪/叫什么), time, people, negative.
// A question names the item that answers it by `expect` (substrings, any of
// which in a returned item counts) and, for a negative, the items that would be
// wrong by `bad`. `kw` is the keyword a model would pick for search and recall,
// `rtype` the recall type it would pick.
//
// Two pools: TUNING (lives whose questions were looked at while tuning) and
// HELD_OUT (tools/recall-eval/heldout.ts: other names, places, pets, hobbies
// and phrasings, written before any tuning and never looked at while tuning).
// Deterministic: the same lives every run.

export type Kind = "direct" | "paraphrase" | "field" | "time" | "people" | "negative";
export type Call = Record<string, unknown>;

export interface Question {
  q: string;
  kind: Kind;
  kw: string;
  rtype: "fact" | "moment" | "event" | "episode" | "snapshot";
  expect: string[]; // empty for a negative
  bad?: string[]; // negative: what must not come back
}

export interface Day {
  day: number; // days from the life's start
  calls: Call[];
  hear?: string[]; // lines of the user the listener hears
}

export interface Life {
  id: string;
  heldOut: boolean;
  start: number; // ms, local noon of the first day
  days: number; // the questions are asked at the end of the last day
  plan: Day[];
  questions: Question[];
}

export interface Person {
  rel: string; // 妈妈
  name: string; // 李娟
  type: "family" | "relative" | "friend" | "pet";
}

// What one pool offers; a life draws from it by its index.
export interface Pool {
  owners: { name: string; gender: string }[];
  places: string[];
  pets: { kind: string; word: string; name: string; breed: string; ill: string; vet: string }[];
  moms: string[];
  dads: string[];
  friends: [string, string][]; // [in memory, a name like it that is not]
  likes: [string, string][]; // [what, how a person asks about it]
  dislikes: string[];
  allergies: string[];
  trips: { where: string; did: string }[];
  schedules: { what: string; ask: string }[];
  paraphrases: { stored: string; ask: string; kw: string; marker: string }[];
  habits: { stored: string; ask: string; kw: string; marker: string }[];
  goals: { stored: string; ask: string; kw: string; marker: string }[];
  absent: { ask: string; kw: string; bad: string[] }[]; // never told (bad: words of items a loose match would bring)
  ask: {
    petHow: string[]; // {pet} {name}
    birthday: string[];
    age: string[];
    where: string[];
    name: string[];
    trip: string[]; // {rel}
    next: string[]; // {wd}
    momWork: string[]; // {mom} {momName}
    allergy: string[];
    friendGift: string[]; // {friend}
    like: string[];
  };
}

export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

const AGES = [7, 8, 9, 10, 11, 12, 14, 16, 19, 23, 27, 31, 35, 38, 42, 46, 50, 54, 58, 62, 66, 70, 74, 77, 80, 9, 13, 29, 44, 68, 72, 8];
const WEEKDAY = ["周日", "周一", "周二", "周三", "周四", "周五", "周六"];
const DAY_MS = 86400000;

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}
function ymd(ms: number): string {
  const d = new Date(ms + 8 * 3600000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export function makeLives(pool: Pool, n: number, heldOut: boolean, seed: number): Life[] {
  const lives: Life[] = [];
  for (let k = 0; k < n; k++) {
    const r = prng(seed + k * 7919);
    const pick = <T>(a: readonly T[], off = 0): T => a[(k + off + Math.floor(r() * a.length)) % a.length];
    const at = <T>(a: readonly T[], off = 0): T => a[(k + off) % a.length];
    const age = AGES[(k + (heldOut ? 5 : 0)) % AGES.length];
    const owner = at(pool.owners);
    const place = at(pool.places, 3);
    const pet = at(pool.pets, 1);
    const momName = at(pool.moms, 2);
    const dadName = at(pool.dads, 5);
    const [friend, notFriend] = at(pool.friends, 4);
    const [like, likeAsk] = at(pool.likes, 6);
    const like2 = at(pool.likes, 9)[0];
    const dislike = at(pool.dislikes, 2);
    const allergy = at(pool.allergies, 1);
    const trip = at(pool.trips, 7);
    const sched = at(pool.schedules, 3);
    const para = at(pool.paraphrases);
    const para2 = at(pool.paraphrases, 5);
    const habit = at(pool.habits, 2);
    const goal = at(pool.goals, 4);
    const absent = at(pool.absent, 1);
    const absent2 = at(pool.absent, 6);
    const old = age >= 60;
    const adult = age >= 23;
    // who the mother and father are: for the old, a daughter and a son take their places
    const momRel = old ? "女儿" : "妈妈";
    const dadRel = old ? "儿子" : "爸爸";
    const momWork = old ? "在医院当护士" : age < 18 ? "在医院当护士" : "退休前是护士";
    const days = 100 + Math.floor(r() * 80);
    const start = Date.UTC(2025, 8 + (k % 4), 1 + (k % 20), 4, 0); // noon +08:00
    const end = start + (days - 1) * DAY_MS;
    const bmonth = 1 + ((k * 5) % 12), bday = 1 + ((k * 11) % 28);
    const birthday = `${pad(bmonth)}-${pad(bday)}`;
    const plan: Day[] = [];
    const on = (day: number, ...calls: Call[]) => {
      let d = plan.find((x) => x.day === day);
      if (!d) plan.push((d = { day, calls: [] }));
      d.calls.push(...calls);
    };
    const hear = (day: number, ...lines: string[]) => {
      let d = plan.find((x) => x.day === day);
      if (!d) plan.push((d = { day, calls: [] }));
      (d.hear ??= []).push(...lines);
    };
    // day 0: who the owner is
    on(0,
      { action: "write", type: "name", content: owner.name },
      { action: "write", type: "age", content: String(age) },
      { action: "write", type: "gender", content: owner.gender },
      { action: "write", type: "location", content: place },
      { action: "write", type: "birthday", content: birthday },
      { action: "write", type: "family", relation: momRel, name: momName, member_type: "family" },
      { action: "write", type: "family", relation: dadRel, name: dadName, member_type: "family" },
      { action: "write", type: "family", relation: pet.kind, name: pet.name, member_type: "pet", memory: `${pet.name}是一只${pet.breed}` },
    );
    on(1, { action: "write", type: "like", content: like }, { action: "write", type: "dislike", content: dislike });
    on(2, { action: "write", type: "fact", content: `主人对${allergy}过敏，不能吃` });
    on(3, { action: "write", type: "family", relation: "朋友", name: friend, member_type: "friend" });
    on(4, { action: "write", type: "trait", content: `personality:${pick(["开朗", "有点内向", "很细心", "爱开玩笑", "急性子"])}` });
    on(5, { action: "write", type: "habit", content: `${habit.stored}:daily` });
    on(6, { action: "write", type: "fact", content: `${momRel}${momName}${momWork}` });
    on(8, { action: "write", type: "goal", content: `${goal.stored}:4` });
    on(10, { action: "write", type: "like", content: like2 });
    on(12, { action: "write", type: "fact", content: `${pet.name}是一只${pet.breed}，${pick(["两", "三", "四", "五"])}岁了` });
    // filler through the months: moments and episodes about everyday things
    const FILL = ["今天学校组织看电影", "下雨天在家看书", "和邻居聊了很久的天", "晚饭做了红烧肉", "整理了一下房间", "去超市买了水果", "散步时看到了晚霞", "听了一首老歌很感动", "学会了一道新菜", "写了一篇日记"];
    for (let d = 14; d < days - 20; d += 5 + Math.floor(r() * 6)) {
      const f = pick(FILL, d);
      if (r() < 0.5) on(d, { action: "write", type: "moment", content: `日常:${f}:2` });
      else on(d, { action: "write", type: "episode", content: `${f}，主人说${pick(["挺开心的", "有点累", "还不错", "很放松"])}`, e: 0.2, i: 0.3, p: 0.1, j: 0.3 });
    }
    on(20, { action: "write", type: "fact", content: para.stored });
    on(25, { action: "write", type: "fact", content: `${friend}送了主人一个${pick(["足球", "书包", "拼图", "保温杯", "围巾"])}作为礼物` });
    // last month (30 to 45 days before the end): a trip with the father, told as an episode and heard
    const tripDay = days - 32 - Math.floor(r() * 12);
    on(tripDay, { action: "write", type: "episode", content: `主人和${dadRel}去${trip.where}${trip.did}，玩得很开心`, e: 0.6, i: 0.5, p: 0.2, j: 0.5, keywords: `${trip.where},${dadRel}` });
    hear(tripDay, `我和${dadRel}去${trip.where}${trip.did}了`);
    // the mother's operation (people: the father's would be a negative)
    on(days - 9, { action: "write", type: "fact", content: `${momRel}上周做了一个小手术，恢复得不错` });
    on(days - 15, { action: "write", type: "fact", content: para2.stored });
    // recent: the pet fell ill and went to the vet
    on(days - 4, { action: "write", type: "episode", content: `主人的${pet.kind}${pet.name}${pet.ill}，带它去看了${pet.vet}`, e: 0.7, i: 0.6, p: 0.3, j: 0.6, keywords: `${pet.name},${pet.vet}` });
    // a schedule next week (on the weekday asked), written a few days before the end
    const endDow = new Date(end + 8 * 3600000).getUTCDay();
    const wd = 2 + (k % 4); // 周二..周五
    const toNext = ((wd + 6) % 7) - ((endDow + 6) % 7) + 7; // next week's (weeks start on Monday)
    const schedAt = end + toNext * DAY_MS;
    on(days - 3, { action: "write", type: "schedule", content: sched.what, datetime: `${ymd(schedAt)} 09:30`, priority: 3 });
    on(days - 2, { action: "write", type: "event", content: `${ymd(end + 20 * DAY_MS)}:plan:${momRel}过生日，要准备礼物` });
    const pets = (s: string) => s.replace(/\{pet\}/g, pet.kind).replace(/\{name\}/g, pet.name);
    const questions: Question[] = [];
    const Q = (q: Question) => questions.push(q);
    Q({ q: pets(at(pool.ask.petHow)), kind: "direct", kw: pet.name, rtype: "episode", expect: [pet.vet, pet.ill] });
    Q({ q: `我的${pet.word}最近怎么样`, kind: "paraphrase", kw: pet.word, rtype: "episode", expect: [pet.vet, pet.ill, pet.breed] });
    Q({ q: at(pool.ask.birthday, 1), kind: "field", kw: "生日", rtype: "fact", expect: [birthday] });
    Q({ q: at(pool.ask.age, 2), kind: "field", kw: "年龄", rtype: "fact", expect: [`${age}岁`, `age: ${age}`, `年龄：${age}`] });
    Q({ q: at(pool.ask.where, 3), kind: "field", kw: "住", rtype: "fact", expect: [place] });
    if (k % 2) Q({ q: at(pool.ask.name, 4), kind: "field", kw: "名字", rtype: "fact", expect: [owner.name] });
    Q({ q: at(pool.ask.trip).replace("{rel}", dadRel), kind: "time", kw: dadRel, rtype: "episode", expect: [trip.where] });
    Q({ q: at(pool.ask.next).replace("{wd}", WEEKDAY[wd]), kind: "time", kw: "下" + WEEKDAY[wd], rtype: "event", expect: [sched.ask] });
    Q({ q: at(pool.ask.momWork).replace("{mom}", momRel).replace("{momName}", momName), kind: "people", kw: momName, rtype: "fact", expect: ["护士"] });
    Q({ q: `${momRel}的手术恢复得怎么样了`, kind: "people", kw: `${momRel}手术`, rtype: "fact", expect: ["小手术"] });
    Q({ q: `${dadRel}的手术恢复得怎么样了`, kind: "negative", kw: `${dadRel}手术`, rtype: "fact", expect: [], bad: ["小手术"] });
    Q({ q: at(pool.ask.allergy), kind: "direct", kw: "过敏", rtype: "fact", expect: [allergy] });
    Q({ q: at(pool.ask.friendGift).replace("{friend}", friend), kind: "people", kw: friend, rtype: "fact", expect: ["作为礼物"] });
    Q({ q: at(pool.ask.friendGift, 1).replace("{friend}", notFriend), kind: "negative", kw: notFriend, rtype: "fact", expect: [], bad: ["作为礼物", friend] });
    Q({ q: likeAsk, kind: "direct", kw: like.slice(0, 2), rtype: "fact", expect: [like] });
    Q({ q: para.ask, kind: "paraphrase", kw: para.kw, rtype: "fact", expect: [para.marker] });
    Q({ q: para2.ask, kind: "paraphrase", kw: para2.kw, rtype: "fact", expect: [para2.marker] });
    Q({ q: habit.ask, kind: "direct", kw: habit.kw, rtype: "fact", expect: [habit.marker] });
    if (k % 2 === 0) Q({ q: goal.ask, kind: "paraphrase", kw: goal.kw, rtype: "fact", expect: [goal.marker] });
    Q({ q: absent.ask, kind: "negative", kw: absent.kw, rtype: "fact", expect: [], bad: absent.bad });
    if (k % 3 === 0) Q({ q: absent2.ask, kind: "negative", kw: absent2.kw, rtype: "episode", expect: [], bad: absent2.bad });
    plan.sort((a, b) => a.day - b.day);
    lives.push({ id: `${heldOut ? "H" : "T"}${pad(k)}-${owner.name}-${age}`, heldOut, start, days, plan, questions });
  }
  return lives;
}

// Monthly digests (src/archive/digest.ts): what the archive keeps of moments
// and past events once they leave the flash.
import { DigestBuilder, digestBytes, fitDigest, MAX_KEYWORDS, MAX_MONTHS, DIGEST_MAX_BYTES, type Digest, type DigestInput } from "../../src/archive/digest";
import { byteLength } from "../../src/text/utf8";
import { fromLocal, setUtcOffset, utcOffset } from "../../src/time/local";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const s = (ms: number) => ms / 1000;
const moment = (t: number, topic: string, content: string, importance = 3, more: Partial<DigestInput> = {}): DigestInput => ({
  t,
  type: "moment",
  topic,
  content,
  importance,
  emotion_type: 1,
  emotion_intensity: 2,
  ...more,
});

function digestOf(records: DigestInput[]): Digest[] {
  const b = new DigestBuilder();
  for (const r of records) b.add(r);
  return b.take();
}

// A month of a child's moments as the pet hears them: swimming in Beijing
// recurs, said in different words, among school, food and friends.
const MARCH: [string, string][] = [
  ["游泳", "今天和爸爸去北京的游泳馆游泳，我们学会了换气，很开心"],
  ["学校", "数学考试考了95分，老师表扬了我，我们全班都很高兴"],
  ["游泳", "周末又去北京奥体中心游泳，教练说我进步很大"],
  ["吃饭", "和妈妈在北京吃烤鸭，烤鸭皮很脆，我吃了三块"],
  ["朋友", "小明来家里玩Lego，我们搭了一座城堡，他说他也想学游泳"],
  ["游泳", "游泳课上学会了一个新动作：仰泳，可是呛了两口水"],
  ["学校", "学校运动会跑了500米，腿很酸，我们班得了第一"],
  ["游泳", "在北京的游泳馆比赛，得了第二名，奖牌是银色的"],
  ["旅行", "坐高铁去北京看长城，长城好长好长，我们爬到了第八个烽火台"],
  ["游泳", "今天游泳游了500米，没有停下来，爸爸说我是小鱼"],
  ["朋友", "和小红一起画画，她画了一个猫，我画了一条鱼，数到一百"],
  ["学校", "语文课学了一首古诗，体育课跳绳一百下"],
  ["游泳", "回北京以后第一次去游泳，游了500米，水有点凉"],
  ["吃饭", "奶奶包了一百个饺子，我吃了十二个，还想吃"],
  ["朋友", "小明送我一个Lego小人，我们约好下周再拼Lego"],
  ["游泳", "游泳馆的教练教我们蝶泳，好难，我们都呛水了"],
];

function march(): DigestInput[] {
  const out: DigestInput[] = [];
  for (let i = 0; i < MARCH.length; i++) out.push(moment(s(fromLocal(2026, 3, 1 + i, 19, 30)), MARCH[i][0], MARCH[i][1], 1 + (i % 5), { emotion_type: i % 6 }));
  return out;
}

// A small seeded generator (no Node dependency: runs in XS too).
function prng(seed: number): () => number {
  let x = (Math.imul(seed + 1, 0x9e3779b1) ^ 0x5bd1e995) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

const POOL = "春夏秋冬山水花草鸟鱼猫狗书画歌舞球跑跳笑哭风雨雪云星月田林江湖桥路门窗灯车船茶饭汤面果糖";
function randomText(next: () => number, chars: number): string {
  let out = "";
  for (let i = 0; i < chars; i++) out += POOL.charAt(Math.floor(next() * POOL.length));
  return out;
}

export const scenarios: Scenario[] = [
  {
    name: "an empty builder gives no digests, and take() starts over",
    run() {
      const b = new DigestBuilder();
      deepEqual(b.take(), []);
      b.add(moment(s(fromLocal(2026, 3, 1, 12)), "游泳", "去游泳"));
      equal(b.take().length, 1);
      deepEqual(b.take(), [], "a second take after the first holds nothing");
      equal(b.held(), 0);
    },
  },
  {
    name: "months split at local midnight under the device's UTC offset, oldest first",
    run() {
      // +08:00: 23:30 on Jan 31 is 15:30 UTC, 00:10 on Feb 1 is still Jan 31 in UTC
      const lateJan = s(fromLocal(2026, 1, 31, 23, 30));
      const earlyFeb = s(fromLocal(2026, 2, 1, 0, 10));
      const newYearsEve = s(fromLocal(2025, 12, 31, 23, 59, 59));
      const newYear = s(fromLocal(2026, 1, 1, 0, 0, 0));
      const d = digestOf([
        moment(earlyFeb, "a", "二月"),
        moment(lateJan, "b", "一月"),
        moment(newYear, "c", "新年"),
        moment(newYearsEve, "d", "除夕"),
        { t: earlyFeb + 60, type: "event", content: "情人节", significance: 2 },
      ]);
      deepEqual(
        d.map((x) => [x.month, x.from, x.to, x.moments, x.events]),
        [
          ["2025-12", newYearsEve, newYearsEve, 1, 0],
          ["2026-01", newYear, lateJan, 2, 0],
          ["2026-02", earlyFeb, earlyFeb + 60, 1, 1],
        ],
      );
      // the same UTC instants under -05:00: 15:30 UTC on Jan 31 is 10:30 local, Jan;
      // 16:10 UTC is 11:10, still Jan 31; 04:30 UTC on Feb 1 is 23:30 on Jan 31
      const saved = utcOffset();
      setUtcOffset(-300);
      try {
        const lateJanW = s(fromLocal(2026, 1, 31, 23, 30));
        const d2 = digestOf([moment(lateJan, "a", "x"), moment(earlyFeb, "b", "y"), moment(lateJanW, "c", "z"), moment(s(fromLocal(2026, 2, 1, 0, 0)), "d", "w")]);
        deepEqual(
          d2.map((x) => [x.month, x.moments]),
          [
            ["2026-01", 3],
            ["2026-02", 1],
          ],
        );
      } finally {
        setUtcOffset(saved);
      }
    },
  },
  {
    name: "keywords of a month of Chinese moments hold its topic and place, no function characters, numbers or one-off words",
    run() {
      const [d] = digestOf(march());
      equal(d.month, "2026-03");
      equal(d.moments, MARCH.length);
      ok(d.keywords.length <= MAX_KEYWORDS && d.keywords.length >= 4, `keywords ${JSON.stringify(d.keywords)}`);
      equal(d.keywords[0], "游泳", "the most frequent topic first");
      ok(d.keywords.includes("北京"), `北京 recurs in the moments: ${JSON.stringify(d.keywords)}`);
      ok(d.keywords.includes("lego"), `an ASCII word that recurs, lowercased: ${JSON.stringify(d.keywords)}`);
      for (const k of d.keywords) {
        for (const ch of "的了是在我你他她它们这那有和就都也很说") ok(!k.includes(ch), `keyword ${k} holds the function character ${ch}`);
        ok(!/^[0-9]+$/.test(k), `keyword ${k} is a number`);
        let numeral = true;
        for (const ch of k) if (!"〇零一二三四五六七八九十百千万亿两".includes(ch)) numeral = false;
        ok(!numeral, `keyword ${k} is a number in words`);
        ok(Array.from(k).length >= 2, `keyword ${k} is a single character`);
        for (const w of ["一个", "什么", "没有"]) ok(!k.includes(w), `keyword ${k} holds the function word ${w}`);
      }
      // 长城 is said twice, but in one moment only; 烤鸭 likewise
      ok(!d.keywords.includes("长城") && !d.keywords.includes("烤鸭"), `a word of one moment is no keyword: ${JSON.stringify(d.keywords)}`);
      // the topics of the month come first, by frequency
      deepEqual(d.keywords.slice(0, 4), ["游泳", "学校", "朋友", "吃饭"]);
    },
  },
  {
    name: "points are the most important moments (then the most intense, then the newest) and significant events",
    run() {
      const t = (day: number) => s(fromLocal(2026, 5, day, 10));
      const d = digestOf([
        moment(t(1), "生日", "八岁生日，全家去吃了蛋糕", 5, { emotion_intensity: 5 }),
        moment(t(2), "天气", "下雨了", 2, { emotion_intensity: 5 }),
        moment(t(3), "宠物", "小猫第一次叫我的名字", 4, { emotion_intensity: 5 }),
        moment(t(4), "学校", "换了新同桌", 4, { emotion_intensity: 1 }),
        moment(t(5), "医院", "打了疫苗，没有哭", 4, { emotion_intensity: 1 }),
        moment(t(6), "", "和爷爷钓到一条大鱼", 3, { emotion_intensity: 5 }),
        { t: t(7), type: "event", topic: "比赛", content: "钢琴比赛拿了一等奖", significance: 5, emotion_intensity: 4, emotion_type: 3 },
        { t: t(8), type: "event", topic: "安排", content: "去超市买牛奶", significance: 2, emotion_type: 0 },
      ]);
      equal(d.length, 1);
      deepEqual(d[0].points, ["生日: 八岁生日，全家去吃了蛋糕", "比赛: 钢琴比赛拿了一等奖", "宠物: 小猫第一次叫我的名字", "医院: 打了疫苗，没有哭"]);
      equal(d[0].moments, 6);
      equal(d[0].events, 2);
      deepEqual(d[0].emotions, [1, 6, 0, 1, 0, 0]);
      // a moment without a topic is its content alone
      const [e] = digestOf([moment(t(6), "", "和爷爷钓到一条大鱼", 3)]);
      deepEqual(e.points, ["和爷爷钓到一条大鱼"]);
      // an insignificant event is counted, never a point
      const [f] = digestOf([{ t: t(8), type: "event", topic: "安排", content: "去超市买牛奶", significance: 3 }]);
      deepEqual([f.events, f.points], [1, []]);
    },
  },
  {
    name: "a month of 400 long moments stays under the byte cap, its points cut at a character boundary",
    run() {
      const next = prng(7);
      const b = new DigestBuilder();
      const texts = new Set<string>();
      let most = 0;
      for (let i = 0; i < 400; i++) {
        const topic = "长长的话题" + randomText(next, 6);
        const content = "北京" + randomText(next, 78) + "😀";
        texts.add(`${topic.slice(0, 8)}: ${content}`);
        b.add(moment(s(fromLocal(2026, 7, 1, 0, 0)) + i * 6000, topic, content, 1 + Math.floor(next() * 5), { emotion_intensity: Math.floor(next() * 6), emotion_type: i % 6 }));
        most = Math.max(most, b.held());
      }
      ok(most <= 64, `the builder held ${most} strings for one month`);
      const [d] = b.take();
      equal(d.moments, 400);
      ok(digestBytes(d) <= DIGEST_MAX_BYTES, `digest of ${digestBytes(d)} bytes`);
      const line = JSON.stringify({ timestamp: "2026-07-28T18:40:00", type: "digest", id: "0123abcd", digest: d }) + "\n";
      ok(byteLength(line) < 512, `the line is ${byteLength(line)} bytes`);
      ok(d.points.length >= 1, "a point is kept");
      ok(d.keywords.includes("北京"), JSON.stringify(d.keywords));
      for (const p of d.points) {
        ok(!p.includes("\ufffd"), `point cut inside a character: ${p}`);
        ok(byteLength(p) >= 20, `point shortened too far: ${p}`);
        let whole = false;
        for (const x of texts) if (x.startsWith(p)) whole = true;
        ok(whole, `point ${p} is no prefix of a moment's "topic: content"`);
      }
    },
  },
  {
    name: "fitDigest shortens points, then drops them, then keywords; too small a cap is an error that changes nothing",
    run() {
      const long = "很长的一段回忆".repeat(10); // 210 bytes
      const d: Digest = {
        month: "2026-04",
        from: 1775000000,
        to: 1777000000,
        moments: 9,
        events: 1,
        keywords: ["游泳", "北京", "lego", "学校"],
        points: [long, long, "短的", long],
        emotions: [1, 2, 3, 4, 0, 0],
      };
      const before = JSON.stringify(d);
      equal(fitDigest(d, 2000).points.length, 4, "what fits is kept");
      const a = fitDigest(d, 440);
      ok(digestBytes(a) <= 440);
      deepEqual([a.points.length, a.keywords.length, a.points[2]], [4, 4, "短的"], "points shortened, none dropped");
      ok(a.points[0].length < long.length && long.startsWith(a.points[0]));
      const b = fitDigest(d, 230);
      ok(digestBytes(b) <= 230, `${digestBytes(b)}`);
      ok(b.points.length < 4 && b.points.length >= 1 && b.keywords.length === 4, JSON.stringify(b));
      const c = fitDigest(d, 150);
      ok(digestBytes(c) <= 150 && c.keywords.length < 4, JSON.stringify(c));
      throws(() => fitDigest(d, 60), { name: "RangeError" });
      throws(() => fitDigest(d, -1), { name: "RangeError" });
      equal(JSON.stringify(d), before, "fitDigest never changes its argument");
    },
  },
  {
    name: "a month that comes back after three others keeps the keywords it had (bounded open months)",
    run() {
      const b = new DigestBuilder();
      const at = (m: number, d: number) => s(fromLocal(2026, m, d, 12));
      b.add(moment(at(1, 2), "x", "去北京看熊猫"));
      b.add(moment(at(1, 3), "x", "北京下雪了"));
      b.add(moment(at(1, 4), "x", "北京的冬天"));
      for (let m = 2; m <= 6; m++) for (let i = 0; i < 3; i++) b.add(moment(at(m, 1 + i), "y", `${["在", "回", "住"][i]}上海${randomText(prng(m * 10 + i), 12)}`));
      b.add(moment(at(1, 20), "x", "又去看熊猫")); // January again: 北京 only in what was sealed
      const held = b.held();
      ok(held <= 3 * 64 + 6 * 12, `held ${held}`);
      const d = b.take();
      deepEqual(
        d.map((x) => x.month),
        ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"],
      );
      equal(d[0].moments, 4);
      ok(d[0].keywords.includes("北京"), JSON.stringify(d[0].keywords));
      ok(d[3].keywords.includes("上海"), JSON.stringify(d[3].keywords));
    },
  },
  {
    name: "given emit, a builder holds at most 12 months: a segment of past events over 33 years gives every month once, in order",
    run() {
      const events: DigestInput[] = [];
      for (let i = 0; i < 400; i++) events.push({ t: s(fromLocal(1990, 1 + i, 15, 9)), type: "event", topic: "纪念日", content: `第${i}个纪念日`, significance: 5 });
      const run = (failAt: number): { digests: Digest[]; most: number; failed: number } => {
        const digests: Digest[] = [];
        let calls = 0, failed = 0, most = 0;
        const b = new DigestBuilder((d) => {
          if (++calls === failAt) throw new Error("flash full");
          digests.push(d);
        });
        for (const e of events) {
          try {
            b.add(e);
          } catch {
            failed++;
            b.add(e); // the same record again: the failed emit changed nothing
          }
          most = Math.max(most, b.held());
        }
        for (const d of b.take()) digests.push(d);
        return { digests, most, failed };
      };
      const clean = run(0);
      equal(MAX_MONTHS, 12);
      equal(clean.digests.length, 400);
      equal(clean.digests[0].month, "1990-01");
      equal(clean.digests[399].month, "2023-04");
      for (let i = 1; i < 400; i++) ok(clean.digests[i - 1].month < clean.digests[i].month, `${clean.digests[i - 1].month} before ${clean.digests[i].month}`);
      ok(clean.most <= 2 * 64 + MAX_MONTHS * (MAX_KEYWORDS + 4), `held ${clean.most}`);
      const cut = run(5);
      equal(cut.failed, 1);
      equal(JSON.stringify(cut.digests), JSON.stringify(clean.digests));
      // without emit every month waits for take()
      const b = new DigestBuilder();
      for (const e of events) b.add(e);
      equal(b.take().length, 400);
    },
  },
  {
    name: "the same records give the same digests, byte for byte",
    run() {
      const records = march();
      const next = prng(3);
      for (let i = 0; i < 60; i++) records.push(moment(s(fromLocal(2026, 4, 1 + (i % 28), 8)) + i, "话题" + (i % 7), randomText(next, 30), 1 + (i % 5)));
      const one = JSON.stringify(digestOf(records));
      equal(JSON.stringify(digestOf(records)), one);
      const b = new DigestBuilder();
      for (const r of records) b.add(r);
      b.take();
      for (const r of records) b.add(r);
      equal(JSON.stringify(b.take()), one, "a builder after take() is as good as new");
    },
  },
  {
    name: "bad input is refused with a clear error and changes nothing",
    run() {
      const b = new DigestBuilder();
      const t = s(fromLocal(2026, 3, 1, 12));
      b.add(moment(t, "游泳", "去游泳"));
      const bad: unknown[] = [
        null,
        { t, type: "fact", content: "x" },
        { t: NaN, type: "moment", content: "x" },
        { t: -1, type: "moment", content: "x" },
        { t, type: "moment" },
        { t, type: "moment", content: "x", topic: 3 },
        { t, type: "moment", content: "x", emotion_type: 6 },
        { t, type: "moment", content: "x", importance: "high" },
        { t, type: "event", content: "x", significance: 11 },
      ];
      for (const x of bad) throws(() => b.add(x as DigestInput), undefined, `accepted ${JSON.stringify(x)}`);
      deepEqual(b.take(), digestOf([moment(t, "游泳", "去游泳")]));
    },
  },
];

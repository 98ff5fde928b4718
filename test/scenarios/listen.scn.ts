// The extractor and its date parsing (src/listen/extract.ts, dates.ts), and
// its score on the labelled utterances, in both lanes: the device indexes
// strings by code point, Node by UTF-16 unit, and both must agree.
import { extract, label, isName } from "../../src/listen/extract";
import { scanDateTime, parseNumber, parseMonthDay, resolveHour } from "../../src/listen/dates";
import { fromLocal, formatDate, formatDateTime } from "../../src/time/local";
import { byteLength } from "../../src/text/utf8";
import { score, type LabelledSet } from "../extract/score";
import data from "../extract/utterances.json";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const AT = fromLocal(2026, 2, 5, 13, 0); // a Thursday, 13:00 local (+08:00)

function items(text: string, context?: string): string[] {
  return extract(text, AT, context).items.map((i) => `${i.kind}=${label(i)}@${i.confidence}`);
}

function when(text: string): string | undefined {
  const m = scanDateTime(text, AT).match;
  if (!m) return undefined;
  return m.hour === undefined ? formatDate(fromLocal(m.date.year, m.date.month, m.date.day)) + (m.period ? " " + m.period : "") : formatDateTime(fromLocal(m.date.year, m.date.month, m.date.day, m.hour, m.minute));
}

export const scenarios: Scenario[] = [
  {
    name: "numbers and dates: Chinese numerals, relative days, weekdays, month-days, periods and times",
    run() {
      const nums: [string, number | undefined][] = [["八", 8], ["十", 10], ["十五", 15], ["二十", 20], ["四十五", 45], ["两", 2], ["零五", 5], ["一百", 100], ["一百零五", 105], ["12", 12], ["十十", undefined], ["三五", undefined]];
      for (const [s, n] of nums) equal(parseNumber(s), n, s);
      deepEqual(parseMonthDay("三月十五日"), { month: 3, day: 15 });
      deepEqual(parseMonthDay("2月29号"), { month: 2, day: 29 });
      equal(parseMonthDay("2月30日"), undefined);
      const cases: [string, string | undefined][] = [
        ["今天", "2026-02-05"],
        ["明天下午", "2026-02-06 下午"],
        ["后天上午十点", "2026-02-07 10:00"],
        ["大后天", "2026-02-08"],
        ["明晚八点", "2026-02-06 20:00"],
        ["今晚", "2026-02-05 晚上"],
        ["周四", "2026-02-05"], // a bare weekday: today included
        ["周三", "2026-02-11"],
        ["这周六", "2026-02-07"],
        ["这周一", undefined], // passed
        ["下周三", "2026-02-11"],
        ["下个星期五", "2026-02-13"],
        ["下下周一", "2026-02-16"],
        ["星期天", "2026-02-08"],
        ["3月15日", "2026-03-15"],
        ["1月10号", "2027-01-10"], // passed this year: next year's
        ["15号", "2026-02-15"],
        ["3号", "2026-03-03"],
        ["三点", "2026-02-05 15:00"], // 1-6 without a period: the afternoon
        ["三点半", "2026-02-05 15:30"],
        ["九点一刻", undefined], // 09:15 today has passed
        ["明天九点一刻", "2026-02-06 09:15"],
        ["明天早上七点", "2026-02-06 07:00"],
        ["明天中午一点", "2026-02-06 13:00"],
        ["明天15:30", "2026-02-06 15:30"],
        ["明天下午三点四十五分", "2026-02-06 15:45"],
        ["明天我要多吃一点", "2026-02-06"], // 一点 = a little
        ["上周三", undefined],
      ];
      for (const [s, w] of cases) equal(when(s), w, s);
      ok(scanDateTime("上周三我去了公园", AT).past);
      ok(scanDateTime("每周三要上课", AT).recurring);
      equal(resolveHour(12, "晚上"), undefined, "midnight is not guessed");
      equal(resolveHour(8, undefined), 8);
    },
  },
  {
    name: "identity, likes, family, plans and facts, with their confidence",
    run() {
      deepEqual(items("我叫王小明，今年八岁，住在北京"), ["name=王小明@5", "age=8@5", "location=北京@4"]);
      deepEqual(items("我是女生"), ["gender=女@4"]);
      deepEqual(items("我的生日是3月15日"), ["birthday=03-15@5"]);
      deepEqual(items("明天是我的生日"), ["birthday=02-06@4"]);
      deepEqual(items("我特别喜欢吃草莓"), ["like=吃草莓@4"]);
      deepEqual(items("我喜欢吃苹果和香蕉"), ["like=吃苹果@4", "like=吃香蕉@4"]);
      deepEqual(items("我不太喜欢吃辣的"), ["dislike=吃辣@3"]);
      deepEqual(items("我最怕打针"), ["dislike=打针@4"]);
      deepEqual(items("我有个妹妹，她叫朵朵"), ["family=妹妹:朵朵@4"]);
      deepEqual(items("我老妈叫刘芳"), ["family=妈妈:刘芳@4"]);
      deepEqual(items("明天下午三点我要去看牙医"), ["schedule=2026-02-06 15:00 去看牙医@4"]);
      deepEqual(items("提醒我明天早上八点吃药"), ["schedule=2026-02-06 08:00 吃药@5"]);
      deepEqual(items("明天下午我要去公园"), ["event=2026-02-06 下午去公园@4"]);
      deepEqual(items("我对花生过敏"), ["fact=主人对花生过敏@4"]);
      deepEqual(items("别忘了，我喜欢蓝色"), ["like=蓝色@5"]);
      deepEqual(items("小明", "你叫什么名字呀？"), ["name=小明@3"]);
      deepEqual(items("九岁", "你今年几岁啦？"), ["age=9@4"]);
      deepEqual(items("My name is Tom"), ["name=Tom@5"]);
      deepEqual(items("我 叫 小 明 。"), ["name=小明@5"], "speech-to-text spaces");
      deepEqual(items("我叫小明！"), ["name=小明@5"], "full-width punctuation");
    },
  },
  {
    name: "questions, negations, hedges, the past and other people yield nothing; corrections win",
    run() {
      for (const t of ["你喜欢猫吗？", "你猜我喜欢什么", "我喜欢不喜欢猫呢", "我妈妈喜欢养花", "他说我喜欢他", "我以前喜欢粉色", "我可能明天去医院", "如果下雨我就不喜欢出去", "我不是不喜欢你", "我喜欢你", "昨天我去了公园", "明天会下雨", "老师说明天要考试", "我叫了外卖", "我三岁的时候去过北京", "我快八岁了", "我住在奶奶家"])
        deepEqual(items(t), [], t);
      const neg = extract("我不再喜欢奥特曼了", AT);
      deepEqual(neg.items, []);
      deepEqual(neg.retractions, [{ kind: "like", value: "奥特曼" }]);
      deepEqual(items("不对，我叫王小红"), ["name=王小红@5"]);
      deepEqual(items("我叫小宝，不对，我叫大宝"), ["name=大宝@5"], "the last word on a field wins");
      const c = extract("我不叫小明，我叫小亮", AT);
      deepEqual(c.items.map((i) => i.value), ["小亮"]);
      deepEqual(c.retractions, [{ kind: "name", value: "小明" }]);
      deepEqual(items("我不是八岁，是九岁"), ["age=9@5"]);
    },
  },
  {
    name: "values are whole characters: too long for the record is refused, never cut",
    run() {
      const long = "一二三四五六七八九十一二三四五六"; // 16 characters, 48 bytes
      ok(isName("王小明") && !isName("王小明的妈妈") && !isName("我回家吃饭"));
      deepEqual(items(`我喜欢${long}`), [], "a like over 32 bytes");
      const f = extract(`我的梦想是${long.slice(0, 10)}`, AT).items;
      equal(f.length, 1);
      equal(byteLength(f[0].value), 48);
      equal(f[0].value, `主人的梦想是${long.slice(0, 10)}`);
      deepEqual(items(`我的梦想是${long.slice(0, 11)}`), [], "49 bytes: refused, not cut");
      deepEqual(items("我喜欢😀"), ["like=😀@4"], "a character outside the BMP stays whole");
    },
  },
  {
    name: "the labelled set: precision at least 0.95 and recall at least 0.8, all and held out",
    run() {
      const set = data as unknown as LabelledSet;
      ok(set.utterances.length >= 200, "at least 200 utterances");
      const empty = set.utterances.filter((u) => u.expect.length === 0).length;
      ok(empty / set.utterances.length >= 0.3, "at least 30% expect nothing");
      const all = score(set).score;
      const held = score(set, (u) => !!u.heldout).score;
      ok(held.utterances >= set.utterances.length * 0.18, "about a fifth held out");
      ok(all.precision >= 0.95, `precision ${all.precision}`);
      ok(all.recall >= 0.8, `recall ${all.recall}`);
      ok(held.precision >= 0.95, `held-out precision ${held.precision}`);
      ok(held.recall >= 0.8, `held-out recall ${held.recall}`);
    },
  },
];

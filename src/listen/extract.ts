// Rule-based extraction from what the user says (seed 000 §3.3): identity,
// likes and dislikes, family, dated plans and a few kinds of general facts,
// each with a confidence from 1 to 5. Precision comes first: a clause that is
// a question, hedged (好像, 可能…), hypothetical (如果…), about the past
// (以前, 昨天…) or about someone else yields nothing. Negations yield
// retractions (they cancel what is pending, never confirmed memory), and
// corrections (不对，我叫…) yield confidence 5.
//
// Confidence:
//   5  explicit: 我叫/我的名字是, 我今年N岁, 我的生日是M月D日, a correction,
//      a statement after 记住/别忘了, a plan after 提醒我. Confirmed at once.
//   4  a plain statement: 我喜欢/讨厌/不喜欢, 我是男生, 我住在, family, a plan
//      with a subject or 要/得/准备…, allergies, occupations.
//   3  weaker patterns: 我是<name>, 我是<place>人, 我爱/怕/对…感兴趣, an answer
//      to the assistant's question, plans without subject, other facts.
// Items below 5 wait to be heard again (src/listen/pending.ts).
//
// Values (what the labelled set in test/extract/ checks, docs/LISTEN.md):
//   name, location: as said; age: digits; gender: 男 or 女; birthday: MM-DD;
//   like/dislike: the object with particles and a final 的 dropped (吃辣的 → 吃辣),
//   lists split (猫和狗 → 猫, 狗; 吃苹果和香蕉 → 吃苹果, 吃香蕉);
//   family: "relation:name" with the relation normalised (老妈 → 妈妈), name
//   possibly empty; fact: "主人" + the clause without 我; event/schedule: the
//   plan without date, time, subject and modal verbs (去看牙医), a period
//   said without a time kept in front (下午去公园); `when` holds the date/time.
//
// Code points are all in the BMP, so the same indexes hold on the device (by
// code point) and on Node (by UTF-16 unit). No Unicode property escapes (device XS builds lack them).

import type { PendingKind } from "../memory/types";
import { byteLength } from "../text/utf8";
import { formatDate, formatDateTime } from "../time/local";
import { scanDateTime, parseNumber, parseMonthDay, dayStart, startOf, NUM } from "./dates";

export interface Extracted {
  kind: PendingKind;
  value: string;
  confidence: number; // 1-5
  when?: number; // ms: a schedule's start, an event's local midnight
}

// "I no longer …", "我不叫…": cancels a pending item of this kind (and value).
export interface Retraction {
  kind: PendingKind;
  value: string;
}

export interface Extraction {
  items: Extracted[];
  retractions: Retraction[];
}

export const VALUE_BYTES = 48; // the pending record's value field
const SHORT_BYTES = 32; // profile strings, likes and dislikes

// ---- word lists -------------------------------------------------------------------

const RELATIONS: Record<string, string> = {
  妈妈: "妈妈", 妈: "妈妈", 母亲: "妈妈", 老妈: "妈妈", 妈咪: "妈妈",
  爸爸: "爸爸", 爸: "爸爸", 父亲: "爸爸", 老爸: "爸爸", 爹: "爸爸", 爹地: "爸爸",
  爷爷: "爷爷", 奶奶: "奶奶", 外公: "外公", 姥爷: "外公", 外婆: "外婆", 姥姥: "外婆",
  哥哥: "哥哥", 弟弟: "弟弟", 姐姐: "姐姐", 妹妹: "妹妹",
  老公: "老公", 丈夫: "老公", 老婆: "老婆", 妻子: "老婆", 儿子: "儿子", 女儿: "女儿", 孙子: "孙子", 孙女: "孙女",
  叔叔: "叔叔", 阿姨: "阿姨", 舅舅: "舅舅", 舅妈: "舅妈", 姑姑: "姑姑", 姑父: "姑父", 小姨: "小姨", 姨妈: "姨妈", 伯伯: "伯伯",
  表哥: "表哥", 表姐: "表姐", 表弟: "表弟", 表妹: "表妹", 堂哥: "堂哥", 堂姐: "堂姐", 堂弟: "堂弟", 堂妹: "堂妹",
  朋友: "朋友", 好朋友: "朋友", 好友: "朋友", 闺蜜: "闺蜜", 同桌: "同桌", 同学: "同学", 室友: "室友", 同事: "同事",
  狗: "狗", 小狗: "狗", 狗狗: "狗", 猫: "猫", 小猫: "猫", 猫咪: "猫", 兔子: "兔子", 小兔子: "兔子", 小白兔: "兔子",
  仓鼠: "仓鼠", 乌龟: "乌龟", 小乌龟: "乌龟", 鹦鹉: "鹦鹉", 金鱼: "金鱼", 小鸟: "鸟",
};
const REL_ALT = Object.keys(RELATIONS).sort((a, b) => b.length - a.length).join("|");

export const MEMBER_TYPE: Record<string, "family" | "relative" | "friend" | "pet"> = {};
for (const r of ["妈妈", "爸爸", "爷爷", "奶奶", "外公", "外婆", "哥哥", "弟弟", "姐姐", "妹妹", "老公", "老婆", "儿子", "女儿", "孙子", "孙女"]) MEMBER_TYPE[r] = "family";
for (const r of ["叔叔", "阿姨", "舅舅", "舅妈", "姑姑", "姑父", "小姨", "姨妈", "伯伯", "表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹"]) MEMBER_TYPE[r] = "relative";
for (const r of ["朋友", "闺蜜", "同桌", "同学", "室友", "同事"]) MEMBER_TYPE[r] = "friend";
for (const r of ["狗", "猫", "兔子", "仓鼠", "乌龟", "鹦鹉", "金鱼", "鸟"]) MEMBER_TYPE[r] = "pet";

const SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段钱汤尹黎易常武乔贺赖龚文欧严";
const NAME_STOP = "你我他她它们的了着过吗呢吧啊呀么什谁哪这那个是不没有在来去说叫回吃饭要会能想错给让和跟很都也还就再";
const NAME_WORDS = ["秘密", "保密", "不知", "忘了", "随便", "名字", "外卖", "宝贝", "主人", "自己", "大家", "小孩", "孩子", "男孩", "女孩", "男生", "女生", "学生"];

const OCCUPATIONS = [
  "小学生", "中学生", "初中生", "高中生", "大学生", "研究生", "学生", "老师", "教师", "医生", "护士", "程序员", "工程师", "警察", "厨师", "司机",
  "设计师", "律师", "会计", "画家", "作家", "歌手", "演员", "农民", "工人", "记者", "公务员", "军人", "消防员", "飞行员", "科学家", "老板",
  "售货员", "服务员", "快递员", "外卖员", "幼儿园老师", "家庭主妇", "上班族", "自由职业者",
];
const PLACES = [
  "北京", "上海", "天津", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建", "江西", "山东", "河南", "湖北", "湖南",
  "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆", "香港", "澳门", "东北",
  "南京", "杭州", "苏州", "广州", "深圳", "成都", "武汉", "西安", "长沙", "沈阳", "大连", "青岛", "厦门", "宁波", "无锡", "济南", "郑州",
  "合肥", "福州", "昆明", "哈尔滨", "长春", "石家庄", "太原", "南昌", "贵阳", "南宁", "兰州", "温州", "珠海", "佛山", "东莞",
  "中国", "美国", "日本", "韩国", "英国", "法国", "德国", "加拿大", "澳大利亚", "新加坡",
];
const SKILLS = /^(?:游泳|弹|拉|吹|说|讲|写|画|骑|滑|跳|唱|下棋|下围棋|下象棋|做饭|做菜|打|踢|编程|开车|包饺子|织|折|翻跟头|倒立|背|认|数)/;
const VERB_HEAD = /^[吃喝玩看听打踢画唱跳弹拉骑穿养读写做去下学逛追]/;
const PLAN_NOUNS = /考试|测验|比赛|运动会|生日|会议|开会|课|演出|聚会|面试|家长会|旅行|旅游|体检|婚礼|表演|音乐会|春游|秋游|开学|放假|活动|约会|派对|作业|飞机|火车|航班|疫苗/;

// adverbs allowed between 我 and a verb of liking (longest first when matched)
const ADVERBS = ["就是", "真的", "超级", "特别", "非常", "一直", "从小就", "从小", "其实", "本来", "十分", "相当", "实在", "确实", "现在", "最最", "也", "还", "都", "就", "真", "很", "好", "超", "最", "挺", "蛮", "可", "贼", "巨", "太", "比较", "越来越"];
const NEGATIONS = ["一点也不", "一点都不", "再也不", "已经不", "不怎么", "不是很", "不是特别", "从来不", "从不", "不太", "不大", "不再", "并不", "没有", "不", "没"];
const PAST = ["以前", "原来", "小时候", "曾经", "过去", "之前", "那时候", "当时"];

// ---- helpers -----------------------------------------------------------------------

const HAN = /[\u4e00-\u9fa5]/;
const END_PARTICLES = /[了啊呀哦喔噢啦呢嘛吧哈耶哟咯~]+$/;

function stripEnd(s: string): string {
  return s.replace(END_PARTICLES, "");
}

function fits(s: string, bytes = VALUE_BYTES): boolean {
  return s.length > 0 && byteLength(s) <= bytes;
}

export function isName(s: string): boolean {
  if (/^[A-Za-z][A-Za-z'-]{1,19}$/.test(s)) return true;
  if (!/^[\u4e00-\u9fa5]{2,4}$/.test(s)) return false;
  for (let i = 0; i < s.length; i++) if (NAME_STOP.indexOf(s.charAt(i)) >= 0) return false;
  if (/^[一二两三几第]/.test(s)) return false;
  if (RELATIONS[s] !== undefined) return false;
  for (const w of NAME_WORDS) if (s.indexOf(w) >= 0) return false;
  return true;
}

// 我是<name>: stricter, since 我是 is followed by so much else.
function looksLikeName(s: string): boolean {
  if (/^[A-Za-z][A-Za-z'-]{1,19}$/.test(s)) return /^[A-Z]/.test(s);
  if (!isName(s) || s.length > 3) return false;
  if (/[人生员家师迷者手长子儿头]$/.test(s)) return false;
  const a = s.charAt(0);
  return SURNAMES.indexOf(a) >= 0 || (s.length === 2 && (a === "小" || a === "阿" || s.charAt(1) === a));
}

function isPlace(s: string): boolean {
  if (/^[A-Za-z][A-Za-z .'-]{1,30}$/.test(s)) return true;
  if (!/^[\u4e00-\u9fa5A-Za-z0-9]{2,10}$/.test(s)) return false;
  if (/[家楼这那哪你他她它的很边么]|里$|附近|隔壁|对面|宿舍|酒店|宾馆|学校|医院|外面|旁边/.test(s)) return false;
  return true;
}

// A clause that asks rather than tells.
function isQuestion(c: string): boolean {
  if (/[吗嘛么][了啊呀哦]*$|呢$/.test(c)) return true;
  if (/什么|谁|哪|怎么|为什么|为啥|多少|几岁|几点|几号|几月|几年级|星期几|周几|礼拜几|有没有|要不要|会不会|能不能|可不可以|对不对|好不好|行不行|是不是|难道/.test(c)) return true;
  if (/([\u4e00-\u9fa5])不\1|([\u4e00-\u9fa5]{2})不\2/.test(c)) return true; // 喜不喜欢, 喜欢不喜欢
  return false;
}

const HEDGE = /好像|可能|也许|大概|或许|说不定|估计|应该|似乎|差不多|不一定|不确定/;
const HYPOTHETICAL = /^(?:如果|要是|假如|万一|假设|假若|要不是|等我|等到)/;
const CORRECTION = /^(?:不对|不是的|不是|错了|说错了|我说错了|搞错了|弄错了|更正一下|纠正一下|不不不|不不|口误)[了啊呀啦]*$/;
const EMPHASIS = /^(?:你)?(?:要|请|一定要|可要|帮我)?(?:记住|记好|记着|记得|别忘了|不要忘了|记一下)(?:了|哦|啊|呀|啦|喔)*$/;
const EMPHASIS_PREFIX = /^(?:你)?(?:要|请|一定要|可要|帮我)?(?:记住|记好|记着|别忘了|不要忘了)(?:了|哦|啊|呀|啦|喔)*/;
const REMIND_AFTER = /^(?:你)?(?:到时候)?(?:记得|要|别忘了|请)?(?:要)?提醒我(?:一下)?(?:哦|啊|呀|啦)*$/;
const REMIND_PREFIX = /^(?:记得|别忘了|要|请|帮我)?提醒我(?:一下)?/;
const FILLER = /^(?:嗯+|哦+|噢+|啊+|呃+|额|那个|就是|然后|其实|对了|话说|告诉你|跟你说|我跟你说|你知道吗|你知道|好吧|好的|是的|哈哈+|嘿|喂|哎|诶|对|但是|可是|不过|而且|并且|所以|因为|还有|另外)(?=.)/;
const SELF_KINDS: PendingKind[] = ["name", "age", "gender", "location", "birthday", "like", "dislike", "fact"];

function normalize(text: string): string {
  let s = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xff01 && c <= 0xff5e) s += String.fromCharCode(c - 0xfee0); // full-width ASCII
    else if (c === 0x3002) s += "."; // 。
    else if (c === 0x3001) s += "、";
    else if (c === 0x3000 || c < 0x20) s += " ";
    else s += text.charAt(i);
  }
  // spaces next to Chinese characters and punctuation are speech-to-text artefacts
  s = s.replace(/\s+/g, " ").trim();
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    if (ch === " " && (TIGHT.test(s.charAt(i - 1)) || TIGHT.test(s.charAt(i + 1)))) continue;
    out += ch;
  }
  return out;
}

const TIGHT = /[\u4e00-\u9fa5,.!?;:、]/;

interface Clause {
  text: string;
  question: boolean; // ends a sentence with '?'
}

// Sentences end at . ! ? ; … ~ and line breaks (a '.' between digits does
// not end one); clauses are separated by commas.
function clauses(text: string): Clause[][] {
  const sentences: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    const end = ch === "!" || ch === "?" || ch === ";" || ch === "…" || ch === "~" || ch === "\n" || (ch === "." && !(/[0-9]/.test(text.charAt(i - 1)) && /[0-9]/.test(text.charAt(i + 1))));
    if (end) {
      if (ch !== "\n") cur += ch;
      sentences.push(cur);
      cur = "";
    } else cur += ch;
  }
  sentences.push(cur);
  const out: Clause[][] = [];
  for (const raw of sentences) {
    const s = raw.trim();
    if (!s) continue;
    const q = /\?\s*$/.test(s);
    const parts = s
      .replace(/[.!?;…~\s]+$/, "")
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p);
    out.push(parts.map((p, i) => ({ text: p, question: q && i === parts.length - 1 })));
  }
  return out;
}

// ---- rules --------------------------------------------------------------------------------

interface State {
  at: number;
  items: Extracted[];
  retractions: Retraction[];
  emphatic: boolean; // after 记住/别忘了: confidence 5
  correcting: boolean; // after 不对 / 我不叫…: confidence 5
  selfBefore: boolean; // the previous clause was about the speaker (for 我 left out)
  skipRest: boolean; // after 如果…: the rest of the sentence is hypothetical
}

type Rule = (c: string, st: State) => Extracted[] | undefined;

function item(kind: PendingKind, value: string, confidence: number, when?: number): Extracted[] | undefined {
  const limit = kind === "like" || kind === "dislike" || kind === "name" || kind === "location" ? SHORT_BYTES : VALUE_BYTES;
  if (!fits(value, limit)) return undefined;
  return when === undefined ? [{ kind, value, confidence }] : [{ kind, value, confidence, when }];
}

const RE_BIRTHDAY_IS = /^我的?生日(?:是|在)?(.+)$/;
const RE_IS_BIRTHDAY = /^(.+?)是我的?生日$/;
const RE_BORN_ON = /^我是(.+?)(?:出生|生)的?$/;

const birthday: Rule = (c, st) => {
  let m = RE_BIRTHDAY_IS.exec(c) ?? RE_BORN_ON.exec(c);
  const explicit = !!m;
  if (!m) m = RE_IS_BIRTHDAY.exec(c);
  if (!m) return undefined;
  const said = stripEnd(m[1]);
  const md = parseMonthDay(said);
  if (md && explicit) return item("birthday", `${pad(md.month)}-${pad(md.day)}`, 5);
  const scan = scanDateTime(said, st.at);
  const d = scan.match;
  if (!d || !d.dayWord || d.hour !== undefined || d.period || d.spans.length !== 1 || d.spans[0][0] !== 0 || d.spans[0][1] !== said.length) return undefined;
  return item("birthday", `${pad(d.date.month)}-${pad(d.date.day)}`, md ? 5 : 4);
};

const RE_FAMILY_NAMED = new RegExp(`^我(?:的|家的?|们家的?)?(${REL_ALT})(?:的名字)?(?:叫做|名叫|叫|的名字是)(.+)$`);
const RE_FAMILY_HAS = new RegExp(`^我(?:家|们家)?(?:有|养了|养着|养)(?:一|两|三|几|[0-9])?(?:个|位|只|条)?(${REL_ALT})(?:(?:叫做|名叫|叫)(.+))?$`);
const RE_BEST_FRIEND = /^我(?:的)?(?:最好的朋友|好朋友|最好的朋友之一)(?:是|叫)(.+)$/;

function familyItem(rel: string, name: string): Extracted[] | undefined {
  const r = RELATIONS[rel];
  if (!r) return undefined;
  return item("family", `${r}:${name}`, 4);
}

const family: Rule = (c) => {
  let m = RE_FAMILY_NAMED.exec(c);
  if (m) {
    const name = stripEnd(m[2]);
    return isName(name) ? familyItem(m[1], name) : undefined;
  }
  m = RE_FAMILY_HAS.exec(c);
  if (m) {
    const name = m[2] === undefined ? "" : stripEnd(m[2]);
    if (name && !isName(name)) return undefined;
    return familyItem(m[1], name);
  }
  m = RE_BEST_FRIEND.exec(c);
  if (m) {
    const name = stripEnd(m[1]);
    return isName(name) ? familyItem("朋友", name) : undefined;
  }
  return undefined;
};

// 她叫朵朵 / 叫咪咪 right after "我有个妹妹" / "我养了一只猫": names that member.
function familyName(c: string, st: State): boolean {
  const last = st.items[st.items.length - 1];
  if (!last || last.kind !== "family" || !/:$/.test(last.value)) return false;
  const m = /^(?:她|他|它)?(?:的名字)?(?:叫做|名叫|叫)(.+)$/.exec(c);
  if (!m) return false;
  const name = stripEnd(m[1]);
  if (!isName(name) || !fits(last.value + name)) return false;
  last.value += name;
  return true;
}

const RE_NAME_IS = /^我(?:的)?名字(?:叫做|叫|是)(.+)$/;
const RE_CALLED = /^我叫做?(.+)$/;
const RE_CALL_ME = /^(?:你)?(?:可以|就|以后|以后就|以后可以)?叫我(.+?)(?:就行了|就行|就好了|就好|就可以了|就可以|好了)?$/;
const RE_I_AM = /^我是(.+)$/;

const name: Rule = (c) => {
  let m = RE_NAME_IS.exec(c) ?? RE_CALLED.exec(c);
  if (m) {
    const n = stripEnd(m[1]);
    return isName(n) ? item("name", n, 5) : undefined;
  }
  m = RE_CALL_ME.exec(c);
  if (m) {
    const n = stripEnd(m[1]);
    return isName(n) ? item("name", n, 4) : undefined;
  }
  return undefined;
};

const nameByIAm: Rule = (c) => {
  const m = RE_I_AM.exec(c);
  if (!m) return undefined;
  const n = stripEnd(m[1]);
  return looksLikeName(n) ? item("name", n, 3) : undefined;
};

const RE_AGE = new RegExp(`^我((?:今年|现在|已经|都|才|是)*)(${NUM})周?岁(?:了|啦|呀|哦|啊)*$`);

const age: Rule = (c) => {
  const m = RE_AGE.exec(c);
  if (!m) return undefined;
  const n = parseNumber(m[2]);
  if (n === undefined || n < 1 || n > 120) return undefined;
  return item("age", String(n), m[1].indexOf("今年") >= 0 ? 5 : 4);
};

const RE_GENDER = /^我是(?:一个|一位|一名|个)?(?:小)?(男生|男孩子|男孩儿|男孩|男的|男人|女生|女孩子|女孩儿|女孩|女的|女人)(?:哦|啊|呀|啦|呢)*$/;

const gender: Rule = (c) => {
  const m = RE_GENDER.exec(c);
  return m ? item("gender", m[1].charAt(0), 4) : undefined;
};

const RE_LIVE = /^我(?:们)?(?:现在|目前)?(?:住在|住)(.+)$/;
const RE_HOME = /^我(?:们)?家(?:现在|目前)?(?:住在|住|在)(.+)$/;
const RE_FROM = /^我来自(.+)$/;
const RE_NATIVE = /^我是(.+)人$/;

const location: Rule = (c) => {
  const m = RE_LIVE.exec(c) ?? RE_HOME.exec(c) ?? RE_FROM.exec(c);
  if (m) {
    const p = stripEnd(m[1]);
    return isPlace(p) ? item("location", p, 4) : undefined;
  }
  const n = RE_NATIVE.exec(c);
  if (n && PLACES.indexOf(n[1]) >= 0) return item("location", n[1], 3);
  return undefined;
};

const RE_OCCUPATION = /^我(?:现在|目前)?是(?:一名|一个|一位|个|名)?(.+?)(?:哦|啊|呀|啦)*$/;
const RE_ALLERGY = /^我对(.{1,8})过敏$/;
const RE_ZODIAC = /^我属(鼠|牛|虎|兔|龙|蛇|马|羊|猴|鸡|狗|猪)的?$/;
const RE_BLOOD = /^我是(AB|A|B|O)型血?的?$/;
const RE_STUDY = /^我(?:现在|目前)?在(.{2,12}?)(上学|读书|念书|上班|工作|实习)$/;
const RE_GRADE = new RegExp(`^我(?:现在|今年)?(上|读|在读)(小学|初中|高中|大学)?(${NUM})年级(?:了)?$`);
const RE_SKILL = /^我(?:已经)?会(.{2,8})$/;
const RE_DREAM = /^我的梦想是(.{2,12})$/;
const RE_GROW_UP = /^我长大(?:以后|后|了)?(想|要)(当|做|成为)(.{1,8})$/;

const fact: Rule = (c) => {
  let m = RE_ALLERGY.exec(c);
  if (m && !OBJECT_STOP.test(m[1])) return item("fact", `主人对${m[1]}过敏`, 4);
  m = RE_ZODIAC.exec(c);
  if (m) return item("fact", `主人属${m[1]}`, 4);
  m = RE_BLOOD.exec(c);
  if (m) return item("fact", `主人是${m[1]}型血`, 4);
  m = RE_GRADE.exec(c);
  if (m && parseNumber(m[3]) !== undefined) return item("fact", `主人${m[1]}${m[2] ?? ""}${m[3]}年级`, 3);
  m = RE_STUDY.exec(c);
  if (m && !/[你他她它这那]/.test(m[1])) return item("fact", `主人在${m[1]}${m[2]}`, 3);
  m = RE_SKILL.exec(c);
  if (m && SKILLS.test(m[1]) && !/[的了吗呢]$/.test(m[1])) return item("fact", `主人会${m[1]}`, 3);
  m = RE_DREAM.exec(c);
  if (m && !/[你他她它]/.test(m[1])) return item("fact", `主人的梦想是${stripEnd(m[1])}`, 3);
  m = RE_GROW_UP.exec(c);
  if (m) return item("fact", `主人长大${m[1]}${m[2]}${stripEnd(m[3])}`, 3);
  m = RE_OCCUPATION.exec(c);
  if (m && OCCUPATIONS.indexOf(m[1]) >= 0) return item("fact", `主人是${m[1]}`, 4);
  return undefined;
};

// ---- likes and dislikes ----------------------------------------------------------------------

const RE_FAVOURITE = /^我(?:最最|最)?(喜欢|爱|讨厌|害怕|怕)([吃喝玩看听穿做去唱画读]?)的(.{0,6}?)(?:就)?是(.+)$/;
const RE_PREF = /^我(.*?)(喜欢|讨厌|害怕|受不了|爱|怕)(.+)$/;
const RE_INTEREST = /^我对(.+?)(?:很|特别|非常|超|挺|比较|最)?感兴趣$/;
const OBJECT_STOP = /你|他|她|它|这|那|自己|什么|谁|哪|东西|一切|所有/;

// Splits the words between 我 and the verb into known adverbs; undefined if
// anything else is there.
function adverbs(s: string): { neg: string | undefined; past: boolean; adv: string[] } | undefined {
  const out = { neg: undefined as string | undefined, past: false, adv: [] as string[] };
  let rest = s;
  while (rest) {
    let hit: string | undefined;
    for (const w of PAST) if (rest.indexOf(w) === 0) (hit = w), (out.past = true);
    if (!hit) for (const w of NEGATIONS) if (rest.indexOf(w) === 0 && (!hit || w.length > hit.length)) hit = w;
    if (hit && NEGATIONS.indexOf(hit) >= 0) {
      if (out.neg) return undefined; // 不是不喜欢: double negation, not guessed
      out.neg = hit;
    } else if (!hit) {
      for (const w of ADVERBS) if (rest.indexOf(w) === 0 && (!hit || w.length > hit.length)) hit = w;
      if (hit) out.adv.push(hit);
    }
    if (!hit) return undefined;
    rest = rest.slice(hit.length);
  }
  return out;
}

// The liked things: cleaned, split on 和/、 (a verb in front is shared).
function objects(raw: string): string[] | undefined {
  let o = raw.replace(/[了啊呀哦喔噢啦呢嘛吧哈耶哟咯~的]+$/, "");
  o = o.replace(/^(?:上了|上)(?=.)/, (x) => (x === "上" ? x : "")); // 我喜欢上了画画
  if (!o || /^[的得地了着过不没怕喜欢爱讨厌]/.test(o) || OBJECT_STOP.test(o) || o.indexOf("的是") >= 0) return undefined;
  if (/^[一两几这那每][个只位种件条本部首]/.test(o)) return undefined; // 喜欢上了一个女孩: someone, not a liking
  if (o.length > 12) return undefined;
  const parts = /^[和跟与同]/.test(o) ? [o] : o.split(/和|、|还有/);
  const verb = VERB_HEAD.exec(parts[0]);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i].trim();
    if (!p) return undefined;
    if (i > 0 && verb && !VERB_HEAD.test(p)) p = verb[0] + p;
    if (!fits(p, SHORT_BYTES)) return undefined;
    out.push(p);
  }
  return out;
}

function prefItems(kind: "like" | "dislike", objs: string[], confidence: number): Extracted[] {
  return objs.map((value) => ({ kind, value, confidence }));
}

const preference = (c: string, st: State): Extracted[] | undefined => {
  let m = RE_FAVOURITE.exec(c);
  if (m) {
    const objs = objects(m[2] + m[4]); // 我最喜欢吃的是冰淇淋 → 吃冰淇淋
    if (!objs) return undefined;
    return prefItems(m[1] === "喜欢" || m[1] === "爱" ? "like" : "dislike", objs, 4);
  }
  m = RE_INTEREST.exec(c);
  if (m) {
    if (/不|没/.test(m[1])) return undefined;
    const objs = objects(m[1]);
    return objs ? prefItems("like", objs, 3) : undefined;
  }
  m = RE_PREF.exec(c);
  if (!m) return undefined;
  const a = adverbs(m[1]);
  if (!a || a.past) return undefined;
  const verb = m[2];
  const objs = objects(m[3]);
  if (!objs) return undefined;
  const positive = verb === "喜欢" || verb === "爱";
  const strong = a.adv.indexOf("最") >= 0 || a.adv.indexOf("最最") >= 0;
  if (!a.neg) {
    if (positive) return prefItems("like", objs, verb === "爱" ? 3 : 4);
    return prefItems("dislike", objs, verb === "讨厌" || strong ? 4 : 3);
  }
  // negated
  const noLonger = a.neg === "不再" || a.neg === "再也不" || a.neg === "已经不" || (a.neg === "不" && /了$/.test(m[3]));
  if (noLonger || !positive || a.neg === "没有" || a.neg === "没" || a.neg === "并不" || a.neg === "从不" || a.neg === "从来不" || a.neg.indexOf("一点") === 0) {
    // "我不再喜欢X" cancels a pending like; "我不讨厌X" a pending dislike
    for (const value of objs) st.retractions.push({ kind: positive ? "like" : "dislike", value });
    return [];
  }
  return prefItems("dislike", objs, a.neg === "不" ? 4 : 3);
};

// ---- dated plans -----------------------------------------------------------------------------

const WEATHER = /下雨|下雪|天气|晴天|阴天|刮风|降温|升温|气温|雾霾|多云|打雷|暴雨|台风/;
const MODALS = /^(?:就|还|也|都|一定|必须|需要|准备|打算|计划|将要|要|得|会|想|可以)+/;
const SUBJECT = /^(?:我们|咱们|我)/;

const plan = (c: string, st: State): Extracted[] | undefined => {
  let text = c;
  let confidence = 0;
  const remind = REMIND_PREFIX.exec(text);
  if (remind) {
    text = text.slice(remind[0].length);
    confidence = 5;
  }
  const scan = scanDateTime(text, st.at);
  const d = scan.match;
  if (!d || scan.past || scan.recurring) return undefined;
  // the date comes first, or right after the speaker: "老师说明天…" is someone else's
  const lead = text.slice(0, d.spans[0][0]);
  if (lead && !/^(?:我们|咱们|我)$/.test(lead)) return undefined;
  let subject = !!lead;
  let rest = "";
  let from = 0;
  for (const [a, b] of d.spans) {
    rest += text.slice(from, a);
    from = b;
  }
  rest += text.slice(from);
  rest = rest.slice(lead.length);
  const s = SUBJECT.exec(rest);
  if (s) {
    subject = true;
    rest = rest.slice(s[0].length);
  }
  const modal = MODALS.exec(rest);
  if (modal) rest = rest.slice(modal[0].length);
  if (/^是(?=..)/.test(rest)) {
    rest = rest.slice(1); // 3月15日是妈妈的生日: only an occasion, not 明天是周末
    if (!PLAN_NOUNS.test(rest)) return undefined;
  }
  else if (/^有(?=..)/.test(rest)) {
    rest = rest.slice(1);
    if (!modal) confidence = confidence || 4;
  }
  rest = stripEnd(rest);
  if (rest.length < 2 || rest.length > 16) return undefined;
  if (/^[很真好太不没别的得地了]|^特别|^非常|^有点|^挺|^超/.test(rest) || WEATHER.test(rest)) return undefined;
  if (/^(?:喜欢|讨厌|爱|觉得|知道|认为|想念|害怕|怕|是|在)/.test(rest)) return undefined; // a state, not a plan
  if (/^(?:加油|努力|开心|快乐|高兴|周末)$|死|自杀|伤害/.test(rest)) return undefined; // not something to plan for
  if (/了/.test(rest) && !modal) return undefined; // 我今天吃了…: done, not planned
  if (/^(?:星期|周|礼拜)[一二三四五六日天]$|[0-9一二三四五六七八九十]号$/.test(rest)) return undefined;
  if (/[你他她它]/.test(rest.charAt(0))) return undefined;
  const signal = subject || !!modal || PLAN_NOUNS.test(rest) || d.hour !== undefined;
  if (!signal) return undefined;
  if (!confidence) confidence = subject || modal ? 4 : 3;
  if (st.emphatic || st.correcting) confidence = 5;
  if (d.hour !== undefined) return item("schedule", rest, confidence, startOf(d));
  return item("event", (d.period ?? "") + rest, confidence, dayStart(d.date));
};

// ---- English (simple) ---------------------------------------------------------------------------

function english(c: string, question: boolean): Extracted[] | undefined {
  const s = c.replace(/[.!]+$/, "").trim();
  const low = s.toLowerCase();
  if (question || /^(?:do|does|did|are|is|am|what|who|where|when|why|how|can|could|will|would|should)\b/.test(low)) return [];
  if (/\b(?:maybe|probably|perhaps|might|if|used to)\b/.test(low)) return [];
  let m = /^(?:my name is|my name's|i'm called|i am called|call me)\s+([A-Za-z][A-Za-z'-]{1,19})$/i.exec(s);
  if (m) return item("name", m[1], 5);
  m = /^i(?:'m| am) (\d{1,3})(?: years? old)?$/i.exec(s);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= 120) return item("age", String(Number(m[1])), 4);
  m = /^i(?:'m| am) an? (boy|girl)$/i.exec(s);
  if (m) return item("gender", m[1].toLowerCase() === "boy" ? "男" : "女", 4);
  m = /^i live in ([A-Za-z][A-Za-z .'-]{1,30})$/i.exec(s);
  if (m && !/^(?:a|an|the|my|our|his|her|their)\b/i.test(m[1])) return item("location", m[1], 4);
  m = /^i (?:really |also |just )?(?:like|love|enjoy) ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m && !/\b(?:you|it|this|that|him|her|them|me|anymore)\b/i.test(m[1])) return item("like", m[1], 4);
  m = /^i (?:really )?(?:don't|do not|dont|hate|can't stand|cannot stand)(?: really)?(?: like)? ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m && !/\b(?:you|it|this|that|him|her|them|me)\b/i.test(m[1])) {
    if (/\banymore$/i.test(m[1])) return [];
    return item("dislike", m[1], 4);
  }
  return undefined;
}

// ---- the extractor ------------------------------------------------------------------------------

const RULES: Rule[] = [birthday, family, name, age, gender, fact, location, nameByIAm, preference, plan];

const ASKS_NAME = /你叫什么|你的名字|叫你什么|怎么称呼你|你是谁/;
const ASKS_AGE = /你(?:今年)?几岁|你(?:今年)?多大|你的年龄/;

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

function emit(st: State, found: Extracted[]): void {
  for (const f of found) {
    if (st.emphatic || st.correcting) f.confidence = 5;
    // within one utterance the last word on an identity field wins
    const single = f.kind === "name" || f.kind === "age" || f.kind === "gender" || f.kind === "location" || f.kind === "birthday";
    for (let i = st.items.length - 1; i >= 0; i--) {
      const x = st.items[i];
      if ((single && x.kind === f.kind) || (x.kind === f.kind && x.value === f.value && x.when === f.when)) st.items.splice(i, 1);
    }
    st.items.push(f);
  }
}

// What one user utterance says about the speaker. `context` is the
// assistant's line just before (for short answers: "小明" to 你叫什么名字).
export function extract(utterance: string, at: number, context?: string): Extraction {
  const st: State = { at, items: [], retractions: [], emphatic: false, correcting: false, selfBefore: false, skipRest: false };
  const text = normalize(utterance);
  if (!text) return { items: [], retractions: [] };
  if (context) {
    const bare = stripEnd(text.replace(/[.!?,]+$/, ""));
    if (ASKS_NAME.test(context)) {
      const m = /^(?:我叫|叫我|我是)?(.+)$/.exec(bare);
      if (m && isName(m[1]) && !/^(?:我叫|叫我|我是)/.test(bare)) return { items: item("name", m[1], 3) ?? [], retractions: [] };
    }
    if (ASKS_AGE.test(context)) {
      const m = new RegExp(`^(?:我)?(?:今年)?(${NUM})周?岁$`).exec(bare);
      const n = m ? parseNumber(m[1]) : undefined;
      if (n !== undefined && n >= 1 && n <= 120 && !/^我/.test(bare)) return { items: item("age", String(n), 4) ?? [], retractions: [] };
    }
  }
  for (const sentence of clauses(text)) {
    let carry = "";
    st.skipRest = false;
    st.selfBefore = false;
    for (const cl of sentence) {
      let c = cl.text;
      if (st.skipRest) continue;
      if (!HAN.test(c)) {
        const e = english(c, cl.question);
        if (e) emit(st, e);
        st.selfBefore = false;
        continue;
      }
      while (FILLER.test(c)) c = c.replace(FILLER, "");
      if (CORRECTION.test(c)) {
        st.correcting = true;
        continue;
      }
      // 记住哦 / 你记得提醒我: what was just said, and what follows, is meant
      if ((EMPHASIS.test(c) || REMIND_AFTER.test(c)) && !cl.question) {
        for (const x of st.items) x.confidence = 5;
        st.emphatic = true;
        continue;
      }
      if (cl.question || isQuestion(c)) {
        st.selfBefore = false;
        continue;
      }
      if (HYPOTHETICAL.test(c)) {
        st.skipRest = true;
        continue;
      }
      if (HEDGE.test(c)) {
        st.selfBefore = false;
        continue;
      }
      const emph = EMPHASIS_PREFIX.exec(c);
      if (emph && emph[0].length < c.length) {
        c = c.slice(emph[0].length);
        st.emphatic = true;
      }
      if (familyName(c, st)) continue;
      // "明天下午两点，我们去图书馆": a clause that is only a date goes with the next
      if (carry) {
        c = carry + c;
        carry = "";
      }
      const alone = scanDateTime(c, st.at).match;
      if (alone && alone.spans.length && alone.spans[0][0] === 0 && alone.spans[alone.spans.length - 1][1] === c.length) {
        carry = c;
        continue;
      }
      // 我 left out after a clause about the speaker: "我叫杨光，今年十岁"
      if (st.selfBefore && !/^我/.test(c) && /^(?:今年|现在|住在|住|家住|也|还|又|特别|非常|最|很|超|不|喜欢|爱|讨厌|害怕|怕|是|上|读|在|对|会|属|叫)/.test(c)) c = "我" + c;
      // "我不叫小明" / "我不是八岁": retract, and what follows is a correction
      const neg = /^我不(叫|是)(.+)$/.exec(c);
      if (neg) {
        const positive = "我" + neg[1] + neg[2];
        const probe: State = { ...st, items: [], retractions: [] };
        for (const rule of RULES) {
          const r = rule(positive, probe);
          if (r && r.length) {
            for (const x of r) if (x.kind !== "event" && x.kind !== "schedule") st.retractions.push({ kind: x.kind, value: x.value });
            break;
          }
        }
        st.correcting = true;
        st.selfBefore = true;
        continue;
      }
      let found: Extracted[] | undefined;
      for (const rule of RULES) {
        found = rule(c, st);
        if (found) break;
      }
      if (found) emit(st, found);
      st.selfBefore = /^我(?!们|的|家)/.test(c) && (!found || found.length === 0 || found.some((f) => SELF_KINDS.indexOf(f.kind) >= 0));
    }
  }
  return { items: st.items, retractions: st.retractions };
}

// An item as the labelled set writes it: the value, with the date (and time)
// in front for events and schedules.
export function label(e: Extracted): string {
  if (e.kind === "schedule" && e.when !== undefined) return `${formatDateTime(e.when)} ${e.value}`;
  if (e.kind === "event" && e.when !== undefined) return `${formatDate(e.when)} ${e.value}`;
  return e.value;
}

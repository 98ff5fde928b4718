// What a question asks for, as the retrieval sees it (src/recall/retrieve.ts):
// the words of the question less the words every question has (你还记得…吗,
// 来着, 什么…), cut into character bigrams and, for a run of one character,
// that character (猫, 药); the synonyms and kinds of its words (a small table:
// 猫/猫咪/小猫/橘猫, 看病/医院/医生, 考试/测验, 孩子/小朋友, 狗/狗狗,
// 减肥/控制体重 …); which profile field it names by the words people use
// (生日, 几岁, 住哪, 叫什么); which kind of memory it is about (likes, habits,
// plans); the relatives it names (妈妈/我妈/母亲 …). Pure: no flash, no clock.

export interface Term {
  t: string; // a bigram, a word or one character
  w: number; // its weight
  key?: number; // for the archive's lookups: 0 a relative, name or field, 1 the question's own word, 2 a synonym
  concept: number; // terms of one concept count once towards coverage
  extra?: boolean; // from the tables (a synonym, an entity), not the question's own
}

// Synonym and kind groups: a question holding one member looks for all.
export const SYNONYMS: readonly (readonly string[])[] = [
  ["猫", "猫咪", "小猫", "橘猫", "猫猫"],
  ["狗", "狗狗", "小狗"],
  ["看病", "医院", "医生", "看医生", "诊所", "住院"],
  ["兽医", "宠物医院"],
  ["牙医", "牙齿", "拔牙", "智齿", "牙疼", "看牙"],
  ["生病", "病", "不舒服", "感冒", "发烧", "咳嗽"],
  ["考试", "测验", "考级", "测试", "期末考"],
  ["孩子", "小朋友", "小孩", "娃"],
  ["减肥", "控制体重", "瘦身", "体重", "长胖", "胖了"],
  ["色盲", "分辨颜色", "分不清"],
  ["过敏", "不能吃", "不能碰"],
  ["工作", "上班", "职业", "干什么的", "做什么的", "干嘛的"],
  ["攒钱", "存钱", "省钱"],
  ["礼物", "送的", "送了", "送我"],
  ["水果", "草莓", "西瓜", "苹果", "香蕉", "葡萄", "橘子"],
  ["运动", "篮球", "足球", "羽毛球", "乒乓球", "跑步", "游泳"],
  ["乐器", "钢琴", "吉他", "小提琴", "古筝", "二胡"],
  ["玩具", "乐高", "积木", "娃娃"],
  ["跑步", "晨跑", "慢跑"],
  ["手术", "开刀"],
  ["旅游", "旅行", "出去玩"],
  ["睡前", "睡觉前"],
  ["吃完晚饭", "晚饭后", "饭后"],
];

// Relatives by the words people use; the first is how memory names them.
export const RELATIONS: readonly (readonly string[])[] = [
  ["妈妈", "我妈", "老妈", "母亲", "妈"],
  ["爸爸", "我爸", "老爸", "父亲", "爸"],
  ["爷爷"], ["奶奶"], ["外公", "姥爷"], ["外婆", "姥姥"],
  ["哥哥"], ["弟弟"], ["姐姐"], ["妹妹"],
  ["儿子"], ["女儿"], ["孙子"], ["孙女"],
  ["老婆", "妻子", "媳妇"], ["老公", "丈夫"], ["老伴"],
  ["叔叔"], ["阿姨"], ["舅舅"], ["姑姑"], ["表哥"], ["表姐"],
  ["女朋友", "女友"], ["男朋友", "男友"],
];

// Profile fields by the words people use for them (the profile's own line
// names the field: 生日：…, 年龄：…, 所在地：…, 用户名字：…, 性别：…).
export const FIELDS: readonly { field: string; line: string; asks: readonly string[] }[] = [
  { field: "birthday", line: "生日", asks: ["生日", "几号生", "几月几号", "哪天出生", "出生", "几月几日生"] },
  { field: "age", line: "年龄", asks: ["几岁", "多大", "多少岁", "年纪", "年龄", "岁数"] },
  { field: "location", line: "所在地", asks: ["住哪", "住在哪", "住的城市", "哪里人", "哪儿住", "家在哪", "哪个城市", "在哪儿住", "在哪住", "所在地", "住在什么"] },
  { field: "name", line: "名字", asks: ["叫什么", "名字", "怎么称呼", "叫啥"] },
  { field: "gender", line: "性别", asks: ["性别", "男孩还是女孩", "男的还是女的"] },
];

// Words that say which kind of memory is meant.
export const INTENTS: readonly { kind: string; asks: readonly string[] }[] = [
  { kind: "like", asks: ["喜欢", "爱吃", "爱玩", "爱听", "爱打", "爱看", "最爱", "爱去", "爱跳", "爱做"] },
  { kind: "dislike", asks: ["讨厌", "不喜欢", "害怕", "怕什么", "最烦"] },
  { kind: "habit", asks: ["一般", "平时", "每天", "习惯", "经常", "常常", "每周", "中午", "早上", "睡前"] },
  { kind: "goal", asks: ["想学", "目标", "计划", "打算", "想要", "想跑", "攒钱", "梦想", "想买"] },
  { kind: "plan", asks: ["安排", "要去", "要干", "要做", "约了", "干嘛来着", "有什么事", "日程", "提醒"] },
];

// What every question has; cut out before the words are counted (longest first).
const FILLER = [
  "你还记得", "还记得吗", "记不记得", "你记得", "还记得", "记得", "你知道", "知不知道", "知道", "你猜", "来着", "是什么", "什么", "怎么样了", "怎么样", "怎么回事", "怎么",
  "是不是", "有没有", "有什么", "有啥", "哪儿", "哪里", "哪个", "哪些", "多少", "干嘛", "干什么", "做什么", "一下", "的时候", "这几天", "最近", "现在", "那个", "这个", "上次", "上回",
  "我们", "咱们", "我", "你", "吗", "呢", "吧", "啊", "呀", "了", "的", "是", "还", "又", "都", "要", "会", "过", "给", "和", "跟", "一起", "啥", "去", "在", "事情", "事", "好", "些", "没", "个", "东西", "几", "哪", "谁",
];

// Time phrases: cut out here (src/recall/when.ts reads them).
const TIME_WORDS = ["上个月", "这个月", "下个月", "上周", "上星期", "这周", "下周", "下星期", "前阵子", "前几天", "前些天", "去年", "今年", "明年", "昨天", "前天", "今天", "明天", "后天", "周一", "周二", "周三", "周四", "周五", "周六", "周日", "周末", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期天", "春节", "暑假", "寒假"];

export function isCjk(c: string): boolean {
  const n = c.codePointAt(0) as number;
  return (n >= 0x4e00 && n <= 0x9fff) || (n >= 0x3400 && n <= 0x4dbf) || n >= 0x20000;
}

function isWord(c: string): boolean {
  const n = c.codePointAt(0) as number;
  return isCjk(c) || (n >= 0x30 && n <= 0x39) || (n >= 0x41 && n <= 0x5a) || (n >= 0x61 && n <= 0x7a);
}

// `s` with each of `words` replaced by a space (longest first).
export function cut(s: string, words: readonly string[]): string {
  let out = s;
  for (const w of words) if (out.indexOf(w) >= 0) out = out.split(w).join(" ");
  return out;
}

// The runs of word characters of `s` (lower case).
export function runs(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (const c of s.toLowerCase()) {
    if (isWord(c)) cur += c;
    else if (cur) (out.push(cur), (cur = ""));
  }
  if (cur) out.push(cur);
  return out;
}

// Bigrams of a run (a run of one character: itself); ASCII runs as whole words.
export function gramsOf(run: string): string[] {
  const cs: string[] = [];
  for (const c of run) cs.push(c);
  if (!isCjk(cs[0])) return [run];
  if (cs.length === 1) return [cs[0]];
  const out: string[] = [];
  for (let i = 0; i + 1 < cs.length; i++) out.push(cs[i] + cs[i + 1]);
  return out;
}

export interface Asked {
  terms: Term[];
  field?: string; // a profile field it names
  kinds: string[]; // intents: like, dislike, habit, goal, plan
  relations: string[]; // relatives named (canonical), by word
  content: string; // what is left of the question once fillers and time words are cut
}

const SORTED_FILLER = FILLER.slice().sort((a, b) => b.length - a.length);
const SORTED_TIME = TIME_WORDS.slice().sort((a, b) => b.length - a.length);

// The relatives a text names (canonical words), "小朋友" not taken for 朋友.
export function relationsIn(text: string): string[] {
  const out: string[] = [];
  for (const g of RELATIONS)
    for (const v of g)
      if (text.indexOf(v) >= 0) {
        if (out.indexOf(g[0]) < 0) out.push(g[0]);
        break;
      }
  // 妈 inside 妈妈 etc. are found by the group; 老妈 and 妈妈 both give 妈妈
  return out;
}

export function analyse(question: string): Asked {
  const q = question.toLowerCase();
  const terms: Term[] = [];
  let concept = 0;
  const add = (t: string, w: number, c: number, extra?: boolean) => {
    for (const x of terms) if (x.t === t) return;
    terms.push(extra ? { t, w, concept: c, extra } : { t, w, concept: c });
  };
  let field: string | undefined;
  if (q.indexOf("住") >= 0 && q.indexOf("住院") < 0 && q.indexOf("记住") < 0 && q.indexOf("忍不住") < 0) {
    field = "location";
    add("所在地", 1.5, concept++, true);
  }
  for (const f of FIELDS)
    for (const a of f.asks)
      if (q.indexOf(a) >= 0 && !field) {
        field = f.field;
        add(f.line, 1.5, concept++, true);
        terms[terms.length - 1].key = 0;
      }
  const kinds: string[] = [];
  for (const it of INTENTS) for (const a of it.asks) if (q.indexOf(a) >= 0 && kinds.indexOf(it.kind) < 0) kinds.push(it.kind);
  const relations = relationsIn(q);
  // synonyms: every member of a group the question holds (the members it
  // holds are then cut out of its words: 小朋友 is not 朋友)
  const held: string[] = [];
  for (const g of SYNONYMS) {
    let hit = false;
    for (const m of g) if (q.indexOf(m) >= 0) hit = true;
    if (!hit) continue;
    const c = concept++;
    for (const m of g) {
      add(m, q.indexOf(m) >= 0 ? 1 : 0.8, c, q.indexOf(m) < 0);
      if (q.indexOf(m) >= 0) held.push(m);
    }
  }
  for (const r of relations) {
    const c = concept++;
    add(r, 1.2, c);
    for (const t of terms) if (t.t === r) t.key = 0;
  }
  const content = cut(cut(cut(cut(q, SORTED_TIME), held.sort((a, b) => b.length - a.length)), RELATIONS.reduce((a: string[], g) => a.concat(g), []).sort((a, b) => b.length - a.length)), SORTED_FILLER);
  for (const run of runs(content)) {
    const gs = gramsOf(run);
    for (const g of gs) add(g, 1, concept++);
    if (gs.length > 1 || (gs.length === 1 && gs[0].length > 1 && isCjk(gs[0][0])))
      for (const c of run) if (isCjk(c)) add(c, 0.15, concept++);
  }
  return { terms, field, kinds, relations, content: content.replace(/ +/g, " ").trim() };
}

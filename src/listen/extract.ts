// Rule-based extraction from what the user says (seed 000 §3.3, issue 15):
// identity, likes and dislikes, family, friends and pets (with what is said
// about them), school and work facts, plans, spoken reminders (one-off and
// repeating), birthdays and anniversaries of others (yearly events) and
// reminders without a time. Speech arrives as a recogniser delivers it: no
// punctuation, fillers and particles, spoken numbers, run-on sentences. The
// text is first cut into clauses (segment()); each clause then goes through
// the rules with what the clauses before it established: who the subject is
// (the speaker, or a family member just named), whether a correction, an
// emphasis (记住…), a hedge (好像…) or a hypothetical (要是…) is under way.
//
// Confidence (docs/LISTEN.md):
//   5  explicit: a correction, after 记住/别忘了, a reminder (提醒我…), 我叫X.
//   4  a plain statement about the speaker or the family. Stored at the end
//      of the conversation, like 5 (src/listen/pending.ts: SURE).
//   3  a guess: 我是X taken as a name. Waits in the pending queue.
//   2  hedged (好像, 可能, 应该…) or laughed off (…哈哈): waits.
// Nothing at all for questions, hypotheticals, jokes (开玩笑的, 骗你的, 才怪,
// 呵呵), the past (以前…, 小时候…), negations (我不是学生; they retract what is
// pending instead), and what someone else said (老师说明天…).
//
// Values (what the speech set in test/extract/ checks):
//   name, location: as said; age: digits; gender: 男 or 女; birthday: MM-DD;
//   like/dislike: the object with particles and a final 的 dropped, lists split
//   (猫和狗 → 猫, 狗); family: "relation:name[:note]" with the relation
//   normalised (老妈 → 妈妈), the name possibly empty, the note what was said
//   about them (喜欢画画); fact: "主人" + the clause without 我; event and
//   schedule: the plan without date, time, subject and modal verbs; `repeat`
//   on a repeating schedule; `tag` on a yearly event (birthday, anniversary),
//   a dated reminder without a time, or a reminder with no date at all (todo).
//
// Device: every table is plain frozen data built at the top level (preloadable),
// no module state changes after load, no Unicode property escapes, no locale API.
// Code points outside the BMP (emoji) are handled with codePointAt, so the
// same indexes hold on the device (by code point) and on Node (UTF-16 units).

import type { PendingKind } from "../memory/types";
import { byteLength } from "../text/utf8";
import { formatDate, formatDateTime, toLocal, fromLocal } from "../time/local";
import { scanDateTime, scanRepeat, parseNumber, parseMonthDay, dayStart, startOf, nextMonthDay, NUM, type RepeatRule, type LocalDate } from "./dates";

export type EventTag = "yearly" | "reminder" | "todo";

export interface Extracted {
  kind: PendingKind;
  value: string;
  confidence: number; // 1-5
  when?: number; // ms: a schedule's start, an event's local midnight (a yearly one: its next day)
  repeat?: RepeatRule; // a repeating schedule
  tag?: EventTag; // events: yearly, a dated reminder without a time, a todo (no date)
  passing?: boolean; // a member only mentioned in passing (not kept in the queue's record)
}

// "I no longer …", "我不叫…": cancels a pending item of this kind (and value);
// `memory`: 我不再喜欢X also removes the like from memory.
export interface Retraction {
  kind: PendingKind;
  value: string;
  memory?: boolean;
}

export interface Extraction {
  items: Extracted[];
  retractions: Retraction[];
  cancelPrevious: boolean; // "开玩笑的" alone: what the previous utterance said is withdrawn
  // "这个别记", "忘掉吧", "名字别记": the kinds to forget of what this
  // conversation said before this utterance (its own items are dropped here)
  // ("all": everything this conversation said; "last": what the last
  // utterance that said anything said)
  forget?: PendingKind[] | "all" | "last";
  // another person speaks ("我是她奶奶"): true from here on; false when the
  // device is handed back ("宝宝你跟它说"); undefined: unchanged
  other?: boolean;
}

export const VALUE_BYTES = 48; // the pending record's value field
// Longer utterances are read up to here: the work per utterance stays bounded (a
// recogniser's utterance is rarely over 100 characters).
export const MAX_UTTERANCE = 400;

// The module's tables and patterns as static fields of one class: one
// top-level binding instead of one each (the XS test lane bundles every module
// into one function, whose locals all sit on the 1024-slot XS stack).
class X {
  static SHORT_BYTES = 32; // profile strings, likes and dislikes
  static NOTE_SEP = "，";
  static RELATIONS: Readonly<Record<string, string>> = Object.freeze({
    爸妈: "父母", 父母: "父母",
    妈妈: "妈妈", 妈: "妈妈", 母亲: "妈妈", 老妈: "妈妈", 妈咪: "妈妈", mom: "妈妈", mum: "妈妈", mother: "妈妈",
    爸爸: "爸爸", 爸: "爸爸", 父亲: "爸爸", 老爸: "爸爸", 爹: "爸爸", 爹地: "爸爸", dad: "爸爸", father: "爸爸",
    爷爷: "爷爷", 奶奶: "奶奶", 外公: "外公", 姥爷: "外公", 外婆: "外婆", 姥姥: "外婆", grandpa: "爷爷", grandma: "奶奶",
    哥哥: "哥哥", 哥: "哥哥", 弟弟: "弟弟", 弟: "弟弟", 姐姐: "姐姐", 姐: "姐姐", 妹妹: "妹妹", 妹: "妹妹", brother: "哥哥", sister: "姐姐",
    老伴: "老伴", 老伴儿: "老伴", 老公: "老公", 丈夫: "老公", 老婆: "老婆", 妻子: "老婆", 媳妇: "老婆", 儿子: "儿子", 女儿: "女儿", 孙子: "孙子", 孙女: "孙女",
    husband: "老公", wife: "老婆", son: "儿子", daughter: "女儿",
    叔叔: "叔叔", 阿姨: "阿姨", 舅舅: "舅舅", 舅妈: "舅妈", 姑姑: "姑姑", 姑父: "姑父", 小姨: "小姨", 姨妈: "姨妈", 伯伯: "伯伯",
    表哥: "表哥", 表姐: "表姐", 表弟: "表弟", 表妹: "表妹", 堂哥: "堂哥", 堂姐: "堂姐", 堂弟: "堂弟", 堂妹: "堂妹",
    朋友: "朋友", 好朋友: "朋友", 好友: "朋友", 最好的朋友: "朋友", 闺蜜: "闺蜜", 同桌: "同桌", 同学: "同学", 室友: "室友", 同事: "同事",
    女朋友: "女朋友", 男朋友: "男朋友", friend: "朋友", "best friend": "朋友",
    狗: "狗", 小狗: "狗", 狗狗: "狗", 猫: "猫", 小猫: "猫", 猫咪: "猫", 兔子: "兔子", 小兔子: "兔子", 小白兔: "兔子", dog: "狗", cat: "猫",
    仓鼠: "仓鼠", 乌龟: "乌龟", 小乌龟: "乌龟", 鹦鹉: "鹦鹉", 金鱼: "金鱼", 小鸟: "鸟",
    孩子: "孩子", 娃: "孩子", 外孙: "外孙", 外孙女: "外孙女", 儿媳: "儿媳", 儿媳妇: "儿媳", 女婿: "女婿", 闺女: "女儿",
  });
  static REL_ALT = Object.keys(X.RELATIONS).sort((a, b) => b.length - a.length).join("|");
  static SURNAMES = "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段钱汤尹黎易常武乔贺赖龚文欧严";
  static NAME_STOP = "你我他她它们的了着过吗呢吧啊呀么什谁哪这那个是不没有在来去说叫回吃饭要会能想错给让和跟很都也还就再岁住喜欢";
  static NAME_WORDS = Object.freeze(["秘密", "保密", "不知", "忘了", "随便", "名字", "外卖", "宝贝", "主人", "自己", "大家", "小孩", "孩子", "男孩", "女孩", "男生", "女生", "学生", "魔王", "超人", "皇帝", "公主", "王子", "今天", "明天", "今年", "明年", "今晚", "明晚"]);
  static OCCUPATIONS = Object.freeze([
    "小学生", "中学生", "初中生", "高中生", "大学生", "研究生", "博士生", "学生", "老师", "教师", "医生", "护士", "程序员", "工程师", "警察", "厨师", "司机",
    "设计师", "律师", "会计", "画家", "作家", "歌手", "演员", "农民", "工人", "记者", "公务员", "军人", "消防员", "飞行员", "科学家", "老板",
    "售货员", "服务员", "快递员", "外卖员", "幼儿园老师", "家庭主妇", "全职妈妈", "上班族", "自由职业者", "销售", "会计师", "医学生", "教授", "保安", "主播",
  ]);
  static EN_OCCUPATIONS = /^(?:teacher|doctor|nurse|student|engineer|programmer|developer|designer|lawyer|driver|cook|chef|police officer|farmer|writer|artist|singer|accountant|manager|scientist)$/;
  static PLACES = Object.freeze([
    "北京", "上海", "天津", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建", "江西", "山东", "河南", "湖北", "湖南",
    "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆", "香港", "澳门", "东北",
    "南京", "杭州", "苏州", "广州", "深圳", "成都", "武汉", "西安", "长沙", "沈阳", "大连", "青岛", "厦门", "宁波", "无锡", "济南", "郑州",
    "合肥", "福州", "昆明", "哈尔滨", "长春", "石家庄", "太原", "南昌", "贵阳", "南宁", "兰州", "温州", "珠海", "佛山", "东莞",
    "中国", "美国", "日本", "韩国", "英国", "法国", "德国", "加拿大", "澳大利亚", "新加坡",
  ]);
  static SKILLS = /^(?:游泳|弹|拉|吹|说|讲|写|画|骑|滑|跳|唱|下棋|下围棋|下象棋|做饭|做菜|打|踢|编程|开车|包饺子|织|折|翻跟头|倒立|背|认|数)/;
  static VERB_HEAD = /^[吃喝玩看听打踢画唱跳弹拉骑穿养读写做去下学逛追]/;
  static PLAN_NOUNS = /考试|测验|比赛|运动会|生日|会议|开会|例会|课|演出|聚会|面试|家长会|旅行|旅游|体检|婚礼|表演|音乐会|春游|秋游|开学|放假|活动|约会|派对|作业|飞机|火车|航班|疫苗|截止|手术|复查|meeting/;
  // adverbs allowed between 我 and a verb of liking (longest first when matched)
  static ADVERBS = Object.freeze(["有一点", "有点", "有些", "就是", "真的", "超级", "特别", "非常", "一直", "从小就", "从小", "其实", "本来", "十分", "相当", "实在", "确实", "现在", "最最", "平时", "比较", "越来越", "还是", "也", "还", "都", "就", "真", "很", "好", "超", "最", "挺", "蛮", "可", "贼", "巨", "太", "更", "又", "老"]);
  static NEGATIONS = Object.freeze(["一点也不", "一点都不", "再也不", "已经不", "不怎么", "不是很", "不是特别", "从来不", "从不", "不太", "不大", "不再", "并不", "没有", "不", "没"]);
  static PAST = Object.freeze(["以前", "原来", "小时候", "曾经", "过去", "之前", "那时候", "当时"]);
  static HAN = /[\u4e00-\u9fa5]/;
  static END_PARTICLES = /[了啊呀哦喔噢啦呢嘛吧哈耶哟咯~]+$/;
  static NOT_PLACES = /月球|火星|太阳|天上|宇宙|外星|梦里|心里|地球|海底|云上|天堂|地狱/;
  static HEDGE = /好像|可能|也许|大概|或许|说不定|估计|应该是|应该|似乎|差不多|不一定|不确定|我猜|我觉得/;
  static HYPOTHETICAL = /如果|要是|假如|万一|假设|假若|要不是|^(?:我)?等我|^(?:我)?等到|想象|幻想|做梦|梦见|希望|但愿|下辈子/;
  static JOKE = /开玩笑|开个玩笑|骗你的|骗你呢|逗你|说着玩|才怪|反话|瞎说|胡说|乱说的|假的啦|假的|吹牛|吹的|^just kidding|^kidding|^jk$/;
  static SARCASM = /^我可太|^我可真|^我最喜欢\S*了$/;
  static LAUGH = /^(?:[哈呵嘿嘻]{2,}|hh+|hahah?a*|lol)$/i;
  static CORRECTION_PREFIX = /^(?:不对不对|不对|不是的|错了|说错了|我说错了|搞错了|弄错了|更正一下|纠正一下|不不不|不不|口误口误|口误|哦不是|哦不|我是说|我的意思是)(?:了|啊|呀|啦|哦)*(?:我是说|我的意思是)?/;
  static CHANGE = /^我(?:们|们家|家)?(?:已经)?(?:搬家|改名|换工作|转学|毕业|升学)(?:了|啦)?$/;
  static EMPHASIS = /^(?:你)?(?:要|请|一定要|可要|帮我|千万)?(?:记住|记好|记着|记得|别忘了|不要忘了|不许忘了|记一下|记下来)(?:了|哦|啊|呀|啦|喔)*$/;
  static EMPHASIS_PREFIX = /^(?:你)?(?:要|请|一定要|可要|帮我|千万|你要)?(?:记住|记好|记着|记得|别忘了|不要忘了|不许忘了|记一下|记下来)(?:了|哦|啊|呀|啦|喔)*/;
  static REMIND_AFTER = /^(?:你)?(?:到时候)?(?:记得|要|别忘了|请|一定要)?(?:要)?提醒我(?:一下)?(?:哦|啊|呀|啦)*$/;
  static REMIND = /(?:你)?(?:记得|别忘了|要|请|帮我|回头|到时候|一定要|可以)?(?:提醒我(?:一下|一声)?|喊我一声|叫我一声)/;
  static FILLER = /^(?:嗯+|哦+|噢+|啊+|呃+|额+|唉+|哎呀|哎+|诶+|喔+|那个|就是说|就是|然后呢|然后|其实|对了|话说|告诉你|跟你说|我跟你说|我告诉你|你知道吗|你知道|好吧|好的|好啊|是的|是啊|嘿+|喂|对对|对|但是|可是|不过|而且|并且|所以|因为|还有|另外|反正|OK|Ok|ok|okay|那|哦对了|对了对了|嗯嗯)(?=.)/;
  static PAST_START = /^(?:我)?(?:以前|原来|小时候|曾经|过去|之前|那时候|当时|后来|上次|刚才)/;
  static SELF_KINDS: readonly PendingKind[] = Object.freeze(["name", "age", "gender", "location", "birthday", "like", "dislike", "fact"] as PendingKind[]);
  static RESTORE = /^(?:今年|今天|现在|目前|住在|住|家住|也|还|又|特别|非常|最|很|超|不|喜欢|爱|讨厌|害怕|怕|是|上|读|在|对|会|属|叫|有|平时|一直|比较|挺|真|可|已经|刚|学的|做|当|搬|从|都|更|退休|养|最近|目前)/;
  static TIGHT = /[\u4e00-\u9fa5,.!?;:、]/;
  static VERB_GLUE = "我们也还都就很最太更挺真超好不没别要会能想在再又才只经常较级直蛮可贼的特非其本跟和家越从是说前时来欢天年晚候像许概计该乎";
  static OPENERS: readonly Opener[] = Object.freeze(
    [
      ["然后", ""], ["还有", "没都也"], ["而且", ""], ["但是", ""], ["可是", ""], ["不过", ""], ["所以", ""], ["因为", ""], ["对了", ""], ["另外", ""],
      ["也不喜欢", "我都"], ["也喜欢", "我都"], ["也讨厌", "我都"], ["还喜欢", "我都"], ["其实", ""], ["后来", ""], ["以前", "我们的"], ["之前", "我们的天"], ["小时候", "我们的"], ["平时", "我们的"], ["现在", "我们家到"], ["最近", "我们"],
      ["开玩笑", "是在"], ["开个玩笑", ""], ["骗你的", ""], ["骗你呢", ""], ["逗你", ""], ["说着玩", ""], ["才怪", ""], ["反话", ""], ["永远", "我们也还都就"],
      ["哈哈", "哈"], ["呵呵", "呵"], ["嘿嘿", "嘿"], ["不对", "对是"], ["说错了", "我"], ["口误", ""], ["哦不是", ""],
      ["不是", "是还可也都就并又倒真要而我们他她它你这那"], ["记住", "你要请帮我一定得"], ["你记得", ""], ["记得提醒", "你要还我不"], ["别忘了", "你可千万"],
      ["今年", "我们他她它你"], ["住在", X.VERB_GLUE], ["家住", X.VERB_GLUE], ["不喜欢", X.VERB_GLUE], ["喜欢", X.VERB_GLUE + "欢"], ["讨厌", X.VERB_GLUE], ["是一名", X.VERB_GLUE],
      ["是一个", X.VERB_GLUE], ["是一位", X.VERB_GLUE], ["是个", X.VERB_GLUE], ["是一只", X.VERB_GLUE + "物"], ["是一条", X.VERB_GLUE + "物"], ["马上", X.VERB_GLUE], ["有一个", X.VERB_GLUE + "没"], ["有个", X.VERB_GLUE + "没"], ["有两个", X.VERB_GLUE + "没"],
      ["有一只", X.VERB_GLUE + "没"], ["一只叫", ""], ["一个叫", ""], ["另一只", ""], ["另一个", ""], ["在读", X.VERB_GLUE], ["读初", X.VERB_GLUE], ["读高", X.VERB_GLUE],
      ["读大", X.VERB_GLUE], ["上初", X.VERB_GLUE], ["上高", X.VERB_GLUE], ["学的是", X.VERB_GLUE], ["退休", X.VERB_GLUE + "刚已"], ["搬到", X.VERB_GLUE], ["搬家", X.VERB_GLUE],
    ].map(([word, glue]) => Object.freeze({ word, glue })),
  );
  // the openers by their first character, so that each position looks at a few
  static OPENERS_BY_CHAR: Readonly<Record<string, readonly Opener[]>> = (() => {
    const by: Record<string, Opener[]> = {};
    for (const o of X.OPENERS) (by[o.word.charAt(0)] ??= []).push(o);
    for (const k of Object.keys(by)) Object.freeze(by[k]);
    return Object.freeze(by);
  })();
  // first characters of the relation words (妈 of 妈妈…)
  static REL_FIRST = Object.keys(X.RELATIONS).map((k) => k.charAt(0)).join("");
  static PRONOUN_GLUE = "喊叫让给跟和与同陪带帮替对被把教问爱想恨怕是像比找等送看听打骂夸说请求催逗抱亲谢为向往离见接喂得欢厌醒诉及或连使哄管嫌惹随骗么啥谁哪";
  static PRONOUN_WORDS = /^(?:吉他|其他|其它|迷你|自我|忘我)/;
  // a segment that is only "my <relation> [name]": what follows is about them
  static RE_ONLY_MEMBER = new RegExp(`^我(?:的|家的?|们家的?)?(?:${X.REL_ALT})[\u4e00-\u9fa5]{0,2}$`);
  static RE_AT_WORK = /^在[^,]{1,12}?(?:上班|工作|上学|读书|念书|实习|做|当)/;
  static PARTICLE_SPLIT = "啊呀啦哦嘛呢吧哟咯喔噢吗";
  static RE_BIRTHDAY_IS = /^我的?生日(?:是|在)?(.+)$/;
  static RE_IS_BIRTHDAY = /^(.+?)是我的?生日$/;
  static RE_DAY_BIRTHDAY = /^我(.{2,8}?)(?:过)?生日$/; // 我明天过生日
  static RE_BORN_ON = /^我是(?:[0-9]{4}年|[零〇一二三四五六七八九]{4}年)?(.+?)(?:出生|生)的?$/;
  static NAME_PART = "(?:|[\\u4e00-\\u7683\\u7685-\\u9fa5]{1,3}?|[A-Z][a-z]+)";
  static RE_OTHER_BDAY = new RegExp(`^我(?:的|家的?|们家的?)?(${X.REL_ALT})(${X.NAME_PART})的?生日(?:是|在|就是)?(.+)$`);
  static RE_DAY_IS_BDAY = new RegExp(`^(.+?)(?:是|就是)我(?:的|家的?)?(${X.REL_ALT})(${X.NAME_PART})的?生日$`);
  static RE_OTHER_BORN = new RegExp(`^我(?:的|家的?)?(${X.REL_ALT})(${X.NAME_PART})是(?:[0-9]{4}年|[零〇一二三四五六七八九]{4}年)?(.+?)(?:出生|生)的$`);
  static RE_OTHER_DAY_BDAY = new RegExp(`^我(?:的|家的?)?(${X.REL_ALT})(${X.NAME_PART})(.{2,8}?)(?:过)?生日$`);
  static RE_ANNIVERSARY = /^(.*?)(纪念日|周年纪念日|周年)(?:是|在|就是)(.+)$/;
  static RE_DAY_IS_ANNIVERSARY = /^(.+?)(?:是|就是)(.*?)(纪念日|周年纪念日|周年)$/;
  static RE_FAMILY_NAMED = new RegExp(`^我(?:的|家的?|们家的?)?(${X.REL_ALT})(?:的名字)?(?:叫做|名叫|叫|的名字是|的名字叫)(.+)$`);
  static RE_FAMILY_HAS = new RegExp(`^我(?:家|们家)?(?:有|养了|养着|养)(?:一|两|三|四|几|[0-9])?(?:个|位|只|条)?(${X.REL_ALT})(?:(?:叫做|名叫|叫)(.+))?$`);
  static RE_PET_IS = new RegExp(`^我(?:的|家的?)宠物是(?:一只|一条|只)?(${X.REL_ALT})(?:(?:叫做|名叫|叫)(.+))?$`);
  static RE_LIST_PART = new RegExp(`(?:和|跟|还有|、)?(?:一|两|三|四|几|[0-9])?(?:个|位|只|条)(${X.REL_ALT})`);
  static RE_FAMILY_LIST = new RegExp(`^我(?:家|们家)?(?:有|养了)((?:${X.RE_LIST_PART.source}){2,4})$`);
  static RE_BEST_FRIEND = /^我(?:的)?(?:最好的朋友|好朋友|最好的朋友之一)(?:是|叫)(.+)$/;
  // 我妹妹喜欢画画, 我同事小刘下个月结婚: a relation, maybe a name, then what is said about them
  static RE_MEMBER_SAYS = new RegExp(`^我(?:的|家的?|们家的?)?(${X.REL_ALT})((?:小|老|阿)[\\u4e00-\\u9fa5]|[A-Z][a-z]+)?(.+)$`);
  // a passing state, not something to keep about them: 好烦, 在哭, 很忙
  static PASSING = /^(?:好|很|真|太|有点|超|挺)(?!喜欢|爱|讨厌|会|怕)|^(?:正)?在[哭笑睡玩吃闹看写做忙洗]|^(?:正在|刚才|刚刚)/;
  static NOT_NOTES = /^(?:总是|总|老是|老|经常|又|也|还|都)?(?:说|让|叫|问|告诉|觉得|给我|带我|和我|跟我|对我|陪我|要我|不让|跟你|和你|的|们|家|也是|和|跟|还有|都)|[你我]/;
  // 哥哥叫大山 right after 我有一个哥哥…: the speaker's member, named
  static RE_REL_CALLED = new RegExp(`^(${X.REL_ALT})(?:的名字)?(?:叫做|名叫|叫)(.+)$`);
  static RE_NAME_IS = /^我(?:的)?(?:名字|英文名字?|English name|english name|中文名字?|大名|全名)(?:叫做|叫|是)(.+)$/;
  static RE_CALLED = /^我(?:现在|以后|本名)?(?:就)?叫做?(.+)$/;
  static RE_SURNAME_CALLED = /^我姓(.)(?:,)?(?:叫|名叫|全名叫)(.+)$/;
  static RE_CALL_ME = /^(?:你)?(?:可以|就|以后|以后就|以后可以)?叫我(.+?)(?:就行了|就行|就好了|就好|就可以了|就可以|好了)?$/;
  static RE_I_AM = /^我是(.+)$/;
  static EN_NUMBERS: Readonly<Record<string, number>> = Object.freeze({
    one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14,
    fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
  });
  static RE_AGE = new RegExp(`^我((?:今年|现在|已经|都|才|是|今天|刚满|满|刚)*)(${NUM}|[a-z]+(?:-[a-z]+)?)(周?岁(?:半)?)?((?:了|啦|呀|哦|啊|半)*)$`);
  static RE_GENDER = /^我是(?:一个|一位|一名|个)?(?:小)?(男生|男孩子|男孩儿|男孩|男的|男人|女生|女孩子|女孩儿|女孩|女的|女人)(?:哦|啊|呀|啦|呢)*$/;
  static RE_LIVE = /^我(?:们|们家)?(?:现在|目前|是)?(?:住在|住)(.+?)的?$/;
  static RE_HOME = /^我(?:们)?家(?:现在|目前)?(?:住在|住|在)(.+)$/;
  static RE_FROM = /^我来自(.+)$/;
  static RE_MOVED = /^我(?:们|们家|家)?(?:现在|已经|刚刚|刚)*(?:搬到|搬去|搬回)(?:了)?(.+?)(?:去|来)?(?:了|啦)?$/;
  static RE_NATIVE = /^我是(.+)人$/;
  static RE_OCCUPATION = /^我(?:现在|目前)?是(?:一名|一个|一位|个|名)?(.+?)(?:哦|啊|呀|啦)*$/;
  static RE_DO_JOB = /^我(?:现在|目前)?是(?:做|搞|干|开|跑|送|卖|教)(.{1,6})的$/;
  static RE_JOB_IS = /^我的(?:工作|职业)是(.{2,12})$/;
  static RE_ALLERGY = /^我对(.{1,8})过敏$/;
  static RE_ZODIAC = /^我(?:是)?属(鼠|牛|虎|兔|龙|蛇|马|羊|猴|鸡|狗|猪)的?$/;
  static RE_BLOOD = /^我是(AB|A|B|O)型血?的?$/;
  static RE_STUDY = /^我(?:现在|目前|平时)?在(.{2,12}?)(上学|读书|念书|上班|工作|实习|打工)$/;
  static RE_WORK_AS = /^我(?:现在|目前)?在(.{2,12}?)(做|当)(.{1,8})$/;
  static GRADE = `(?:小学|初中|高中|大学)?${NUM}年级(?:${NUM}班|)|初[一二三]|高[一二三]|大[一二三四]|研[一二三]|大班|中班|小班|幼儿园|研究生|博士|大学`;
  static RE_GRADE = new RegExp(`^我(?:现在|今年|已经|目前)?(?:在(.{2,10}?)|)(上|读|在读|念|是)?(${X.GRADE})(?:了|的|学生)?$`);
  static RE_MAJOR = /^我(?:的|学的)?专业是(.{2,10})$|^我学的是(.{2,10})$/;
  static RE_TEACHER = /^我(?:们|的)(?:[\u4e00-\u9fa5]{0,2}老师|班主任|校长|辅导员)(?:姓|是|叫)(.{1,4})$/;
  // 我的幸运颜色是红色, 我的外号叫小胖 (not the name), 我的爱好是画画 (a like); never numbers to reach them by
  static RE_MY_X_IS = /^我的(幸运[\u4e00-\u9fa5]{1,3}|星座|偶像|外号|小名|绰号|昵称|血型|属相|座右铭|口头禅|爱好|兴趣|兴趣爱好|特长|老家|母校)(?:是|叫)(.{1,12})$/;
  static RE_CANNOT = /^我(?:不能|不可以|不敢)(吃|喝)(.{1,6})$/;
  static RE_SELF_IS = /^我是(?:个|一个)?(近视眼|近视|远视|独生子|独生女|素食主义者|吃素的|左撇子|夜猫子|路痴|色盲|过敏体质|糖尿病人|孕妇|退休老人|单亲妈妈|单亲爸爸)$/;
  static RE_HAS_CONDITION = /^我有(高血压|糖尿病|近视|哮喘|心脏病|鼻炎|过敏性鼻炎|胃病|失眠|颈椎病|腰椎间盘突出|痛风|贫血|低血糖|高血脂)$/;
  static RE_SKILL = /^我(?:已经)?会(.{2,8})$/;
  static RE_DREAM = /^我的梦想是(.{2,12})$/;
  static RE_GROW_UP = /^我长大(?:以后|后|了)?(想|要)(当|做|成为)(.{1,8})$/;
  static RE_STATUS = /^我(?:现在|已经|刚|刚刚)*(退休|毕业|结婚|离婚|失业)了?$|^我(?:刚|刚刚)?(?:在)?(找工作)$/;
  static RE_KEPT = /^我的(.{1,8}?)(放在|停在|藏在|在)(.{1,12})$/;
  static RE_FAVOURITE = /^我(?:最最|最)?(喜欢|爱|讨厌|害怕|怕)([吃喝玩看听穿做去唱画读]?)的(.{0,6}?)(?:就)?是(.+)$/;
  static RE_PREF = /^我(.*?)(喜欢|讨厌|害怕|受不了|爱|怕)(.+)$/;
  static RE_SWITCHED = /^我(?:现在|最近)?(?:改|换成|改成)(喝|吃|玩|用|听|看)(.{1,8}?)了?$/;
  static RE_INTEREST = /^我对(.+?)(?:很|特别|非常|超|挺|比较|最)?感兴趣$/;
  static RE_NEVER = /^我(?:从来|从|平时|一般|基本|从来都)?不(吃|喝)(.{1,6})$/;
  static OBJECT_STOP = /你|他|她|它|这|那|自己|什么|谁|哪|东西|一切|所有/;
  static WEATHER = /下雨|下雪|天气|晴天|阴天|刮风|降温|升温|气温|雾霾|多云|打雷|暴雨|台风/;
  static MODALS = /^(?:就|还|也|都|一定|必须|需要|准备|打算|计划|将要|要|得|会|想|可以|记得)+/;
  static SUBJECT = /^(?:我们全家|我们家|我们|咱们|我)/;
  static RE_ALARM = /^(?:帮我|给我)?(?:定|设|订|设置|定一|设一)(?:一)?个(.+?)的?闹钟$/;
  static RE_WAKE = /叫醒我|叫我起床|喊我起床/;
  static RE_TODO = /^(?:我)?(?:要|得)?记得(.{2,16})$|^别让我忘了(.{2,16})$/;
  static EN_REL = "mom|mum|mother|dad|father|brother|sister|grandma|grandpa|son|daughter|wife|husband|best friend|friend|dog|cat";
  static EN_MONTHS = Object.freeze(["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]);
  static RE_TIME_WORD = new RegExp(`(?:早上|早晨|上午|中午|下午|傍晚|晚上|凌晨)?(?:${NUM}点(?:半|一刻|三刻|${NUM}分?|)|[0-9]{1,2}:[0-5][0-9])`);
  static RE_MD_WORD = new RegExp(`${NUM}月${NUM}[日号]?|${NUM}[日号]`);
  static ASKS_NAME = /你叫什么|你的名字|叫你什么|怎么称呼你|你是谁/;
  static ASKS_AGE = /你(?:今年)?几岁|你(?:今年)?多大|你的年龄/;
  static ASKS_LIKE = /你(?:平时|一般|最|都|还)*喜欢(?:吃|喝|玩|看|听|做|干)?(?:什么|哪)|你(?:有)?什么爱好|你的爱好|你最喜欢的.{0,4}是什么/;
  static ASKS_DISLIKE = /你(?:最)?(?:讨厌|害怕|怕|不喜欢)(?:吃|喝|做)?(?:什么|哪)/;
  static ASKS_PLACE = /你(?:家)?住(?:在)?哪|你是哪里人|你来自哪|你老家在哪|你家在哪/;
  static ASKS_BIRTHDAY = /你的生日|你生日|哪天出生|什么时候出生/;
  static ASKS_JOB = /你做什么工作|你是做什么的|你的工作|你干什么工作|你在哪上班/;
  static ASKS_HAS = /你(?:家)?有(?:没有)?(?:兄弟姐妹|宠物|哥哥|姐姐|弟弟|妹妹|小狗|小猫|孩子|朋友)/;
  // Recognition slips and dialect words read as the Mandarin the rules know
  // (issue 24): pairs [said, read], the longer first where one holds another.
  static RESPELL: readonly (readonly [string, string])[] = Object.freeze([
    ["喜换", "喜欢"], ["洗欢", "喜欢"], ["希欢", "喜欢"], ["西欢", "喜欢"], ["喜环", "喜欢"], ["吸欢", "喜欢"], ["讨燕", "讨厌"],
    ["唔钟意", "不喜欢"], ["唔中意", "不喜欢"], ["唔喜欢", "不喜欢"], ["钟意", "喜欢"], ["中意", "喜欢"], ["稀罕", "喜欢"], ["欢喜", "喜欢"],
    ["我哋", "我们"], ["屋企", "家"], ["屋头", "家"], ["咱家", "我家"], ["咱们", "我们"], ["俺", "我"],
    ["喺", "在"], ["冇", "没有"], ["阿妈", "妈妈"], ["阿爸", "爸爸"], ["细佬", "弟弟"], ["弟娃", "弟弟"], ["老头子", "老伴"],
    ["老太婆", "老伴"], ["狗子", "狗"], ["住载", "住在"], ["住再", "住在"], ["耍", "玩"], ["噻", ""], ["嘞", ""], ["喽", ""],
    ["喜欢喜欢", "喜欢"], ["喜欢欢", "喜欢"], ["讨厌讨厌", "讨厌"], ["讨厌厌", "讨厌"], ["了了", "了"], ["吃吃", "吃"], ["是是", "是"], ["叫叫", "叫"],
  ]);
  // a clause left open by a restart: what follows is its object (我叫 王梓轩)
  static OPEN_END = /(?:叫|是|在|住|喜欢|讨厌|爱|今年|生日是|有|姓)$/;
  static PAUSE_FILLER = /^(?:嗯+|啊+|呃+|额+|那个|就是|这个|哦+)$/;
  // "这个别记", "刚才说错了忘掉吧", "当我没说", "你把我名字忘了吧", "取消吧"
  static FORGET = /别记|不要记|不用记|不许记|别给我记|别记住|忘掉|忘了它|忘了吧|忘记吧|忘记它|你把.{0,6}忘了|当我没说|就当没说|不算数?$|不是我$|说的是(?:我)?(?:同学|朋友|别人|他|她)|^(?:你)?(?:帮我|给我)?(?:把)?(?:这个|那个|它|刚才那个|刚才的|这条|那条)?(?:删掉|删了|删除|取消|不用了|算了不.{0,3})(?:吧|掉|了)*$/;
  // secrets said aloud: the clause yields nothing and is masked in the chat log
  static SECRET = /密码|口令|验证码|身份证号|卡号|手机号|电话号|电话是|号码是|学号|车牌|门牌|单元|号院|号楼|门锁|账号|微信号|qq号|QQ号/;
  static SECRET_WORD = /秘密|悄悄话|别告诉别人|不能告诉别人|不许告诉/;
  static LONG_DIGITS = /[0-9]{5,}|[零〇一二三四五六七八九幺]{5,}/;
  // stories read aloud, role-play, songs, quoted characters: nothing about the speaker
  static FICTION = /^(?:从前|很久很久以前|有一天|我给你讲|给你讲|我念给你听|念给你听|我给你念|我给你唱|给你唱|我们来玩|我们玩|来玩|假装|你当(?!然)|我当(?!然|时|初|年)|我演|我扮演|老师让我们背|背课文|故事里|书里|电视里|动画片里)|过家家|角色扮演|扮演|唱首歌|唱个歌|主人公/;
  static CHARACTERS = /^(?:一只|一个|个)?(?:孙悟空|猪八戒|唐僧|沙僧|哪吒|奥特曼|迪迦|喜羊羊|美羊羊|懒羊羊|灰太狼|熊大|熊二|光头强|佩奇|小猪佩奇|乔治|艾莎|安娜|白雪公主|小红帽|大灰狼|超人|蜘蛛侠|钢铁侠|蝙蝠侠|哈利波特|葫芦娃|米老鼠|唐老鸭|海绵宝宝|派大星|皮卡丘|小猪|粉刷匠|小小鸟|小小小小鸟|公主|王子|国王|怪兽|大王)/;
  static LYRICS = /小小鸟|飞呀飞|粉刷匠|两只老虎|跑得快|白又白|世上只有妈妈好|有妈的孩子|我爱北京天安门|我的好妈妈|一闪一闪|找呀找呀|拔萝卜|小燕子穿花衣|荡起双桨|门前大桥下|数鸭子|俺老孙|老孙来也|魔镜魔镜|我一定会回来的/;
  // a quoted character: "灰太狼说", "熊大说…"
  static QUOTED = /^(?:(?![我你他她时不对是])[\u4e00-\u9fa5]){1,5}(?:说|唱)(?:过|着|道)?(?=$|我)/;
  // another person takes over: "我是她奶奶", "我是乐乐的爸爸", "我是孩子的妈妈"
  static SPEAKER_IS = /^我是(?:他|她|孩子|宝宝|[\u4e00-\u9fa5]{1,3}?)的?(妈妈|妈|爸爸|爸|奶奶|爷爷|外婆|外公|姥姥|姥爷|哥哥|姐姐|阿姨|叔叔|舅舅|姑姑|小姨)$/;
  // the device handed to someone: "奶奶你跟它说两句", "宝宝快跟小狗狗说…"
  static HAND_TO = /^([\u4e00-\u9fa5]{1,3}?)(?:你|您)?(?:快|快点|来|自己|也)*(?:跟|和|对|给)(?:它|他|她|小狗狗|狗狗|小狗|宠物|小家伙)(?:说|讲|聊|打个招呼|打招呼)/;
  static INTRO = new RegExp(`^这(?:个|位)?(?:就)?是我(?:的|家的?|们家的?)?(${X.REL_ALT})(.*)$`);
  static RE_TOPIC_IS = /^(.{1,10}?)(?:就)?是我(?:最最|最|特别|超级)?(喜欢|爱|喜爱|讨厌|怕)的(?:[\u4e00-\u9fa5]{0,4})$/;
  static RE_TOPIC_FIRST = /^(.{1,12}?)我(?:都|也|最|可|特别|非常|很|超|真|还是|就|最最)*(不喜欢|不爱|喜欢|爱|讨厌|怕)(?:吃|喝|玩|看|听)?(?:了|啊|呀|得很|得不得了)*$/;
  static RE_NEVER_TIRED = /^(.{2,12}?)我(?:.{0,8}?)(?:百听不厌|百看不厌|百玩不厌|百吃不厌|看不腻|听不腻|玩不腻|吃不腻|都不腻|不腻|看不够|听不够|玩不够)$/;
  static RE_INTO = /^我(?:最近|现在|已经|这阵子|这段时间)*(?:迷上了|迷上|爱上了|爱上|喜欢上了|喜欢上|沉迷于|沉迷|痴迷于|痴迷|入坑了|入坑)(.{1,12})$/;
  static RE_FAN = /^我是(.{1,8}?)的(?:铁杆|忠实|死忠|小)?(?:粉丝|粉|歌迷|影迷|球迷)$/;
  static RE_WATCHING = /^我(?:最近|现在)*(?:在)?追(?:一个|一部|一档)?(?:动画片|动画|电视剧|剧|综艺|番|节目)?(?:叫|叫做)(.{1,10})$/;
  static RE_MOST_DONE = /^我(?:[\u4e00-\u9fa5])得最多的(?:就)?是(.{1,10})$/;
  static RE_LIKED_ARE = /^我(?:最|最最)?(喜欢|爱|讨厌|怕)([吃喝玩看听]?)的(?:东西|水果|动物|运动|颜色|食物|菜|歌|人|游戏|零食)?(?:有|可多了|多了|很多|多着呢|太多了|有很多|有好多)(.*)$/;
  // "X我都喜欢", "X我百听不厌", "吃我妈做的X": the 我 does not start a clause
  static TOPIC_TAIL = /^我(?:都|也|最|可|特别|非常|很|超|真|还是|就|最最)*(?:不喜欢|不爱|喜欢|爱|讨厌|怕)(?:吃|喝|玩|看|听)?(?:了|啊|呀|得很)*(?:$|,)|^我.{0,8}?(?:百听不厌|百看不厌|百玩不厌|百吃不厌|看不腻|听不腻|玩不腻|吃不腻|都不腻|不腻|看不够|听不够|玩不够)(?:$|,)|^我(?:妈|妈妈|奶奶|外婆|爸|爸爸|姥姥|爷爷|老婆|老公)(?:做|煮|烧|包|炖|烤|买|炒)的/;
  static RE_TOPIC_ALSO = /^(.{1,8}?)(?:也|都|还)(?:很|挺|特别|蛮|一样)?(不喜欢|喜欢|爱|讨厌)(?:了|啊|呀)*$/;
  static RE_WE_BOTH = /^我(?:和|跟|同)我?[\u4e00-\u9fa5]{1,3}?(都|也|一起)(?=喜欢|爱|讨厌|不喜欢)/;
  static RE_MENTION = new RegExp(`我(?:的|家的?|们家的?|家那|家里的?)?(?:两个|三个|一个|俩|几个)?(${X.REL_ALT})(?!们?[和跟]我)`);
  static RE_CARE = new RegExp(`(?:给|接|送|带|哄|陪|遛|喂|照顾|等|把)(?:完|好|一下)?(?:我|我家)?(孩子|娃|儿子|女儿|闺女|狗|狗狗|猫|孙子|孙女|外孙|老伴|老公|老婆)`);
  static RE_REL_LIST = new RegExp(`^((?:${X.REL_ALT}){2,6})(?:和我|还有我|跟我)?$`);
  // [pattern, fact]: $1… are the pattern's groups
  static LIFE: readonly (readonly [RegExp, string])[] = Object.freeze([
    [/加班/, "主人常加班"],
    [/(夜班|夜校|白班|倒班|三班倒)/, "主人上$1"],
    [/戒(糖|烟|酒|奶茶|咖啡|可乐|零食|游戏|手机)/, "主人在戒$1"],
    [/减肥|节食/, "主人在减肥"],
    [/(?:去|在)?健身/, "主人在健身"],
    [/(?:最近|正在|在|开始)(?:自学|学)(.{2,6}?)(?:呢|了)?(?:,|$)/, "主人在学$1"],
    [/(?:备考|考)(研究生|研|公务员|驾照|教师资格证|雅思|托福|四级|六级|会计证)/, "主人在备考$1"],
    [/(送外卖|跑外卖|开网约车|跑滴滴|开出租|开货车|跑快递|送快递)/, "主人$1"],
    [/(开车|坐地铁|坐公交|骑车|骑电动车|走路|坐班车)(上班|上学)/, "主人$1$2"],
    [/^我(?:已经|都)?退休(?:好|好几|几|有|了)/, "主人退休了"],
    [/怀孕(?:了|五个月|[一二三四五六七八九几]个月)?/, "主人怀孕了"],
    [/^我近视/, "主人近视"],
    [/^我(腿脚|腿|心脏|胃|腰|眼睛|肝|肾|牙|牙齿|膝盖|颈椎|身体|血压|血糖|睡眠)(?:一直)?(?:不太|不大|不怎么|不)好/, "主人$1不好"],
    [/^我(?:最近|现在|一直|每天)*(?:在)?吃(.{1,6}?药)/, "主人在吃$1"],
    [/睡前(?:要|得)?吃(.{1,6})/, "主人睡前吃$1"],
    [/^我一(吃|喝|碰|闻)(.{1,6}?)就/, "主人一$1$2就不舒服"],
    [/^我(乳糖不耐受|麸质过敏|低血压|高血压|糖尿病|哮喘|痛风|贫血)/, "主人有$1"],
    [/^我(?:吃|喝|碰|闻)(.{1,6})过敏/, "主人对$1过敏"],
    [/^我在(老年大学|夜校|社区大学|培训班)学(.{1,6})/, "主人在$1学$2"],
    [/^我(?:是)?(?:做|搞|干)(.{1,6}?)的/, "主人做$1"],
  ]);
  static LUNAR = /农历|阴历|腊月|正月|冬月|初[一二三四五六七八九十]|除夕|中秋|端午|元宵|重阳|七夕|大年/;
  static ROLE = /^我(?:是|当|演|扮)/;
  static ASKS_END = /[吗么][了啊呀哦]*$/;
  static KEEP_IT = /可以记|要记|记住了|记着/;
  static PLANNED = /要|得|准备|打算|会/;
  static NOT_LISTED = /[我你他她它了着过是有在要想会能得很好太真都也就才又没不别吗呢么今明昨天点号岁]/;
  static ASKS_GENDER = /男孩还是女孩|男生还是女生|男孩子还是女孩子|是男的还是女的|男宝还是女宝/;
  static ASKS_GRADE = /几年级|上几年|读几年|哪个年级/;
  static ASKS_SCHOOL = /哪个学校|什么学校|哪所学校|在哪上学|在哪里上学|在哪儿上学/;
  static ASKS_YES_NO = /你(?:也)?(?:喜欢|爱|讨厌)(?:吃|喝|玩|看|听)?(.{1,8}?)吗/;
  static NOT_ANSWERS = /^(?:你猜|不告诉你|不知道|没有|没|不是|是的|是|对|对的|好|好的|嗯|随便|都行|都可以|都喜欢|都不喜欢|喜欢|不喜欢|秘密|保密|忘了|不记得了|还行|一般|有|有的)$/;
}

// ---- word lists -------------------------------------------------------------------


export const MEMBER_TYPE: Readonly<Record<string, "family" | "relative" | "friend" | "pet">> = Object.freeze({
  妈妈: "family", 爸爸: "family", 爷爷: "family", 奶奶: "family", 外公: "family", 外婆: "family", 哥哥: "family", 弟弟: "family", 姐姐: "family",
  父母: "family", 老伴: "family", 妹妹: "family", 老公: "family", 老婆: "family", 儿子: "family", 女儿: "family", 孙子: "family", 孙女: "family",
  叔叔: "relative", 阿姨: "relative", 舅舅: "relative", 舅妈: "relative", 姑姑: "relative", 姑父: "relative", 小姨: "relative", 姨妈: "relative",
  伯伯: "relative", 表哥: "relative", 表姐: "relative", 表弟: "relative", 表妹: "relative", 堂哥: "relative", 堂姐: "relative", 堂弟: "relative", 堂妹: "relative",
  朋友: "friend", 闺蜜: "friend", 同桌: "friend", 同学: "friend", 室友: "friend", 同事: "friend", 女朋友: "friend", 男朋友: "friend",
  狗: "pet", 猫: "pet", 兔子: "pet", 仓鼠: "pet", 乌龟: "pet", 鹦鹉: "pet", 金鱼: "pet", 鸟: "pet",
  孩子: "family", 外孙: "family", 外孙女: "family", 儿媳: "family", 女婿: "family",
});




// ---- characters --------------------------------------------------------------------


function isEmoji(cp: number): boolean {
  return (cp >= 0x1f000 && cp <= 0x1faff) || (cp >= 0x2600 && cp <= 0x27bf) || (cp >= 0x2b00 && cp <= 0x2bff) || cp === 0xfe0f || cp === 0x200d || cp === 0x20e3;
}

// The number of string indexes a code point takes here (2 for a pair on Node, 1 on the device).
function unitsOf(cp: number): number {
  return cp > 0xffff ? String.fromCodePoint(cp).length : 1;
}

function stripEnd(s: string): string {
  return s.replace(X.END_PARTICLES, "");
}

function fits(s: string, bytes = VALUE_BYTES): boolean {
  return s.length > 0 && byteLength(s) <= bytes;
}

export function isName(s: string): boolean {
  if (/^[A-Za-z][A-Za-z'-]{1,19}$/.test(s)) return true;
  if (!/^[\u4e00-\u9fa5]{2,4}$/.test(s)) return false;
  for (let i = 0; i < s.length; i++) if (X.NAME_STOP.indexOf(s.charAt(i)) >= 0) return false;
  if (/^[一二两三四五六七八九十几第]/.test(s)) return false;
  if (X.RELATIONS[s] !== undefined) return false;
  for (const w of X.NAME_WORDS) if (s.indexOf(w) >= 0) return false;
  return true;
}

// 我是<name>: stricter, since 我是 is followed by so much else.
function looksLikeName(s: string): boolean {
  if (/^[A-Za-z][A-Za-z'-]{1,19}$/.test(s)) return /^[A-Z]/.test(s);
  if (!isName(s) || s.length > 3) return false;
  if (/[人生员家师迷者手长子儿头王帝皇]$/.test(s)) return false;
  const a = s.charAt(0);
  return X.SURNAMES.indexOf(a) >= 0 || (s.length === 2 && (a === "小" || a === "阿" || s.charAt(1) === a));
}


function isPlace(s: string): boolean {
  if (X.NOT_PLACES.test(s)) return false;
  if (/^[A-Za-z][A-Za-z .'-]{1,30}$/.test(s)) return true;
  if (!/^[\u4e00-\u9fa5A-Za-z0-9]{2,10}$/.test(s)) return false;
  if (/[家楼这那哪你他她它的很边么]|里$|上$|附近|隔壁|对面|宿舍|酒店|宾馆|学校|医院|外面|旁边/.test(s)) return false;
  return true;
}

// Slips and dialect (X.RESPELL), a stammered 我 (我我我), a number after
// which 随 is 岁, 七十有三.
function respell(text: string): string {
  let s = text;
  for (const [a, b] of X.RESPELL) if (s.indexOf(a) >= 0) s = s.split(a).join(b);
  return s.replace(/我(?:\s*我)+/g, "我").replace(/([^现正还都也])在在/g, "$1在").replace(/([一二三四五六七八九十两0-9])随/g, "$1岁").replace(/十有([一二三四五六七八九])/g, "十$1").replace(/(喜欢|爱)食(?!物|品|堂)/g, "$1吃");
}

// Restarts and stutters between the recogniser's pauses: "我叫王 王梓 王梓轩",
// "我住在杭 杭州", "三月 三月八号", "我喜欢 喜欢 嗯 恐龙": a piece that starts
// with the end of the one before replaces that end; a pause filler between
// pieces goes; a piece left open (我叫, 我喜欢) takes the next without a pause.
function restarts(s: string): string {
  if (s.indexOf(" ") < 0) return s;
  const pieces = s.split(" ");
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const b = pieces[i];
    if (X.PAUSE_FILLER.test(b) && out.length && i < pieces.length - 1) continue;
    const a = out.length ? out[out.length - 1] : "";
    if (!a || !X.HAN.test(a.charAt(a.length - 1)) || !X.HAN.test(b.charAt(0))) {
      out.push(b);
      continue;
    }
    let k = Math.min(4, a.length, b.length);
    while (k > 0 && a.slice(a.length - k) !== b.slice(0, k)) k--;
    const head = a.slice(0, a.length - k);
    if (k >= 2 || (k === 1 && (X.OPEN_END.test(head) || X.OPEN_END.test(a) || head === ""))) out[out.length - 1] = head + b;
    else if (X.OPEN_END.test(a)) out[out.length - 1] = a + b;
    else out.push(b);
  }
  return out.join(" ");
}

// A user line with its secrets masked, before it is kept anywhere (the
// window, the chat log, an episode): what follows 密码/验证码/手机号…, runs of
// five or more digits (said or written), a flat's number (三单元502).
export function redact(text: string): string {
  if (!X.SECRET.test(text) && !digitsSaid(text)) return text;
  return text
    .replace(/(密码|口令|验证码|卡号|号码|手机号|手机|电话|身份证号?|学号|车牌号?|账号|微信号|qq号|QQ号)(是|为|:|：)?\s*[A-Za-z0-9零〇一二三四五六七八九十幺两个@._-]+/g, "$1$2***")
    .replace(/[0-9零〇一二三四五六七八九十百]+(?:号院|号楼|栋|单元|室)[0-9零〇一二三四五六七八九十百号室]*/g, "***")
    .replace(/[0-9]{5,}|[零〇一二三四五六七八九幺]{5,}/g, (run) => (counting(run) ? run : "***"));
}

// Five or more digits in a row (written or said) that are not counting
// (一二三四五…): a number someone could use, such as a phone or an ID.
function digitsSaid(s: string): boolean {
  if (!X.LONG_DIGITS.test(s)) return false;
  const re = new RegExp(X.LONG_DIGITS.source, "g");
  for (let m = re.exec(s); m; m = re.exec(s)) if (!counting(m[0])) return true;
  return false;
}

function counting(run: string): boolean {
  const d = "零一二三四五六七八九";
  for (let i = 1; i < run.length; i++) {
    const a = run.charCodeAt(i - 1) >= 48 && run.charCodeAt(i - 1) <= 57 ? run.charCodeAt(i - 1) - 48 : d.indexOf(run.charAt(i - 1));
    const b = run.charCodeAt(i) >= 48 && run.charCodeAt(i) <= 57 ? run.charCodeAt(i) - 48 : d.indexOf(run.charAt(i));
    if (a < 0 || b !== a + 1) return false;
  }
  return true;
}

// A clause that asks rather than tells.
function isQuestion(c: string): boolean {
  if (/[吗么][了啊呀哦]*$/.test(c)) return true;
  if (/什么|谁|哪|怎么|为什么|为啥|多少|几岁|几点|几号|几月|几年级|几个|几天|星期几|周几|礼拜几|有没有|要不要|会不会|能不能|可不可以|对不对|好不好|行不行|是不是|难道|来着|多大|多久|多高|多重/.test(c)) return true;
  if (/^(?:你觉得|你说|你看|你猜|请问)/.test(c) || /是.+还是/.test(c)) return true;
  if (/([\u4e00-\u9fa5])不\1|([\u4e00-\u9fa5]{2})不\2|([\u4e00-\u9fa5])没\3/.test(c)) return true; // 喜不喜欢, 喜欢不喜欢
  return false;
}


// ---- normalisation and clauses -----------------------------------------------------

// Full-width ASCII folded, punctuation unified, emoji dropped (kept as the
// object of 喜欢/是…), spaces between Chinese words read as a pause (a comma)
// unless the recogniser spaced out single characters.
function normalize(text: string): string {
  let s = "";
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const n = unitsOf(cp);
    if (cp >= 0xff01 && cp <= 0xff5e) s += String.fromCharCode(cp - 0xfee0);
    else if (cp === 0x3002) s += ".";
    else if (cp === 0x3001) s += "、";
    else if (cp === 0x3000 || cp < 0x20) s += " ";
    else if (isEmoji(cp)) {
      let j = i;
      let run = "";
      while (j < text.length && isEmoji(text.codePointAt(j)!)) {
        const k = unitsOf(text.codePointAt(j)!);
        run += text.slice(j, j + k);
        j += k;
      }
      const object = /(?:喜欢|爱|讨厌|怕|是)$/.test(s);
      s += object ? run.replace(/[\ufe0f\u200d\u20e3]/g, "") : ",";
      i = j;
      continue;
    } else s += text.slice(i, i + n);
    i += n;
  }
  s = restarts(respell(s.replace(/\s+/g, " ").trim()));
  const tokens = s.split(" ");
  let han = 0, singles = 0;
  for (const t of tokens)
    if (X.HAN.test(t)) {
      han++;
      if (t.replace(/[,.!?、]/g, "").length <= 1) singles++;
    }
  const spacedOut = han >= 3 && singles * 2 >= han;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    if (ch === " ") {
      const a = s.charAt(i - 1), b = s.charAt(i + 1);
      const tightA = X.TIGHT.test(a), tightB = X.TIGHT.test(b);
      if (!tightA && !tightB) out += ch;
      else if (!spacedOut && X.HAN.test(a) && X.HAN.test(b)) out += ",";
      else if (!spacedOut && ((X.HAN.test(a) && /[A-Za-z0-9]/.test(b)) || (/[A-Za-z0-9]/.test(a) && X.HAN.test(b)))) continue;
      continue;
    }
    out += ch;
  }
  return out.replace(/,+/g, ",").replace(/^,|,$/g, "");
}


// Where a new clause starts inside unpunctuated speech. Each opener splits
// unless the character before it binds it to what precedes (glue).
interface Opener {
  word: string;
  glue: string; // characters before it that keep it in the same clause
}

export function segment(s: string): string {
  let out = "";
  let start = 0; // where the current segment begins in `out`
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    const prev = s.charAt(i - 1);
    if (i > 0 && X.HAN.test(prev)) {
      let split = false;
      if ("我你他她它".indexOf(ch) >= 0) split = X.PRONOUN_GLUE.indexOf(prev) < 0 && !(ch === "我" && prev === "你") && !/[我你他她它]/.test(prev) && !X.PRONOUN_WORDS.test(s.slice(i - 1)) && !(ch === "我" && X.TOPIC_TAIL.test(s.slice(i)));
      const openers = X.OPENERS_BY_CHAR[ch];
      if (!split && openers)
        for (const o of openers)
          if (s.startsWith(o.word, i) && o.glue.indexOf(prev) < 0) {
            split = true;
            break;
          }
      if (!split && X.REL_FIRST.indexOf(ch) >= 0 && "我的家个只位条和跟".indexOf(prev) < 0 && X.RE_REL_CALLED.test(s.slice(i, i + 8)) && !X.RE_REL_CALLED.test(s.slice(i - 1, i + 8))) split = true;
      if (!split && ch === "在" && "我们也还都就现目正".indexOf(prev) < 0 && X.RE_AT_WORK.test(s.slice(i))) split = true;
      // "我妹妹" so far: what follows is about her, in the same clause
      if (split && X.RE_ONLY_MEMBER.test(out.slice(start))) split = false;
      if (split && out.charAt(out.length - 1) !== ",") {
        out += ",";
        start = out.length;
      }
    }
    out += ch;
    // after a particle that ends a clause: 我住在上海哦我喜欢… / 你记得吗我…
    if (X.PARTICLE_SPLIT.indexOf(ch) >= 0 && X.HAN.test(s.charAt(i + 1)) && X.PARTICLE_SPLIT.indexOf(s.charAt(i + 1)) < 0 && !(ch === "嘛" && prev === "干") && !(ch === "吧" && prev === "酒")) {
      if (ch === "吗") out += "?";
      out += ",";
      start = out.length;
    }
    if (ch === ",") start = out.length;
  }
  return out.replace(/,+/g, ",");
}

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
    const body = s.replace(/[.!?;…~\s]+$/, "");
    const parts = (X.HAN.test(body) ? segment(body) : body).split(",").map((p) => p.trim()).filter((p) => p);
    out.push(parts.map((p, i) => ({ text: p, question: q && i === parts.length - 1 })));
  }
  return out;
}

// ---- rules --------------------------------------------------------------------------------

interface State {
  at: number;
  items: Extracted[];
  retractions: Retraction[];
  cancelPrevious: boolean;
  emphatic: boolean; // after 记住/别忘了: confidence 5
  correcting: boolean; // after 不对 / 我不叫… / 搬家了: confidence 5
  hedged: boolean; // this clause only: 好像…, confidence 2
  selfBefore: boolean; // the previous clause was about the speaker (for 我 left out)
  member: Extracted | undefined; // the family member the previous clause was about
  skipRest: boolean; // after 如果…: the rest of the sentence is hypothetical
  lastClause: string; // the last clause that yielded items, and those items
  lastItems: Extracted[];
  listKind: "like" | "dislike" | undefined; // a list of likes under way: bare things after it join it
  listVerb: string;
  fiction: boolean; // a story, song or role: the utterance is done
  forget: PendingKind[] | "all" | "last" | undefined;
  other: boolean; // another person is speaking: nothing about the owner's self
  otherSaid: boolean; // this utterance changed who speaks
  clause: string; // the clause being read
}

type Rule = (c: string, st: State) => Extracted[] | undefined;

function item(kind: PendingKind, value: string, confidence: number, when?: number, extra?: { repeat?: RepeatRule; tag?: EventTag }): Extracted[] | undefined {
  const limit = kind === "like" || kind === "dislike" || kind === "name" || kind === "location" ? X.SHORT_BYTES : VALUE_BYTES;
  if (!fits(value, limit) || value.indexOf("|") >= 0) return undefined;
  const e: Extracted = { kind, value, confidence };
  if (when !== undefined) e.when = when;
  if (extra?.repeat) e.repeat = extra.repeat;
  if (extra?.tag) e.tag = extra.tag;
  return [e];
}

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

// A day said on its own (三月八号, 明天, 下周三): its date, or undefined.
function dayOnly(said: string, at: number): LocalDate | undefined {
  const md = parseMonthDay(said);
  if (md) return nextMonthDay(md.month, md.day, at) ?? { year: toLocal(at).year, month: md.month, day: md.day };
  const d = scanDateTime(said, at).match;
  if (!d || !d.dayWord || d.hour !== undefined || d.period || d.spans.length !== 1 || d.spans[0][0] !== 0 || d.spans[0][1] !== said.length) return undefined;
  return d.date;
}


// A lunar date said (农历八月十五, 腊月二十三, 九月初一): kept as said, never
// turned into a Gregorian day (issue 24).
function lunar(said: string): string | undefined {
  const t = stripEnd(said).replace(/^(?:是|在)/, "");
  if (!X.LUNAR.test(t) || t.length > 12) return undefined;
  return /^(?:农历|阴历)/.test(t) || /^(?:腊月|正月|除夕)/.test(t) ? t : "农历" + t;
}

const birthday: Rule = (c, st) => {
  let m = X.RE_BIRTHDAY_IS.exec(c) ?? X.RE_IS_BIRTHDAY.exec(c) ?? X.RE_DAY_BIRTHDAY.exec(c);
  const said = !!m; // 生日 was said: nothing else is read into it
  if (!m) m = X.RE_BORN_ON.exec(c);
  if (!m) return undefined;
  const moon = lunar(m[1]);
  if (moon) return item("fact", `主人的生日是${moon}`, 4);
  const d = dayOnly(stripEnd(m[1]), st.at);
  return d ? item("birthday", `${pad(d.month)}-${pad(d.day)}`, 5) : said ? [] : undefined;
};

// ---- others' birthdays and anniversaries: yearly events ---------------------------------------


function yearly(content: string, said: string, st: State, rel?: string, name?: string): Extracted[] {
  const moon = lunar(said);
  if (moon) return rel ? (familyItem(rel, name ?? "", `生日是${moon}`) ?? []) : [];
  const d = dayOnly(stripEnd(said), st.at);
  if (!d) return []; // 农历八月十五: not a date we can keep; nothing else either
  const next = nextMonthDay(d.month, d.day, st.at);
  if (!next) return [];
  return item("event", content, 4, dayStart(next), { tag: "yearly" }) ?? [];
}

function whose(rel: string, name: string): string {
  const r = X.RELATIONS[rel] ?? rel;
  return name ? (MEMBER_TYPE[r] === "friend" || MEMBER_TYPE[r] === "pet" ? name : r + name) : r;
}

const othersDays: Rule = (c, st) => {
  let m = X.RE_OTHER_BDAY.exec(c);
  if (m) return yearly(`${whose(m[1], m[2])}的生日`, m[3], st, m[1], m[2]);
  m = X.RE_DAY_IS_BDAY.exec(c);
  if (m) return yearly(`${whose(m[2], m[3])}的生日`, m[1], st, m[2], m[3]);
  m = X.RE_OTHER_BORN.exec(c);
  if (m) return yearly(`${whose(m[1], m[2])}的生日`, m[3], st, m[1], m[2]);
  m = X.RE_OTHER_DAY_BDAY.exec(c);
  if (m && dayOnly(m[3], st.at)) return yearly(`${whose(m[1], m[2])}的生日`, m[3], st);
  m = X.RE_DAY_IS_ANNIVERSARY.exec(c);
  if (m) return yearly(m[2].replace(/^我们的?|^我和我?|^我跟我?|^咱们的?/, "").replace(/^的/, "") + m[3], m[1], st);
  m = X.RE_ANNIVERSARY.exec(c);
  if (m) {
    const who = m[1].replace(/^我们的?|^我和我?|^我跟我?|^咱们的?/, "").replace(/^的/, "");
    return yearly(who + m[2], m[3], st);
  }
  return undefined;
};

// ---- family, friends, pets -------------------------------------------------------------------


function familyItem(rel: string, name: string, note = ""): Extracted[] | undefined {
  const r = X.RELATIONS[rel];
  if (!r) return undefined;
  if (note) {
    const full = item("family", `${r}:${name}:${note}`, 4);
    if (full) return full;
  }
  return item("family", `${r}:${name}`, 4);
}

const family: Rule = (c) => {
  let m = X.RE_FAMILY_NAMED.exec(c);
  if (m) {
    const name = stripEnd(m[2]);
    return isName(name) ? familyItem(m[1], name) : undefined;
  }
  m = X.RE_FAMILY_HAS.exec(c) ?? X.RE_PET_IS.exec(c);
  if (m) {
    const name = m[2] === undefined ? "" : stripEnd(m[2]);
    if (name && !isName(name)) return undefined;
    return familyItem(m[1], name);
  }
  // 我有一个哥哥一个妹妹, 我有个弟弟和一只狗
  const list = X.RE_FAMILY_LIST.exec(c);
  if (list) {
    const out: Extracted[] = [];
    const re = new RegExp(X.RE_LIST_PART.source, "g");
    for (let p = re.exec(list[1]); p; p = re.exec(list[1])) {
      const f = familyItem(p[1], "");
      if (f) out.push(f[0]);
    }
    return out.length > 1 ? out : undefined;
  }
  m = X.RE_BEST_FRIEND.exec(c);
  if (m) {
    const name = stripEnd(m[1]);
    return isName(name) ? familyItem("朋友", name) : undefined;
  }
  return undefined;
};

// what is said about a family member: a note on them, never about the speaker
function noteText(s: string): string | undefined {
  const t = stripEnd(s.replace(/^(?:他|她|它)(?:也|还)?/, ""));
  if (t.length < 2 || X.NOT_NOTES.test(t) || X.PASSING.test(t) || isQuestion(t)) return undefined;
  return t;
}

function addNote(m: Extracted, note: string): void {
  const next = /:[^:]*:/.test(m.value) ? m.value + X.NOTE_SEP + note : m.value + ":" + note;
  if (fits(next)) m.value = next;
}

const memberSays: Rule = (c) => {
  const m = X.RE_MEMBER_SAYS.exec(c);
  if (!m) return undefined;
  let name = m[2] ?? "";
  let rest = m[3];
  if (name && !isName(name)) {
    rest = name + rest;
    name = "";
  }
  const note = noteText(rest);
  if (!note) return undefined;
  return familyItem(m[1], name, note);
};


function relationCalled(c: string, st: State): Extracted[] | undefined {
  const m = X.RE_REL_CALLED.exec(c);
  if (!m || !st.items.some((x) => x.kind === "family")) return undefined;
  const name = stripEnd(m[2]);
  if (!isName(name)) return undefined;
  const rel = X.RELATIONS[m[1]];
  const bare = st.items.find((x) => x.kind === "family" && x.value === rel + ":");
  if (bare) {
    bare.value += name;
    return [];
  }
  return familyItem(m[1], name);
}

// 她叫朵朵 / 叫咪咪 / 一只叫年糕 right after "我有个妹妹" / "我养了两只猫": names that member.
function familyName(c: string, st: State): boolean {
  const last = st.member;
  if (!last) return false;
  const m = /^(?:她|他|它)?(?:的名字)?(一只|一个|另一只|另一个|一条)?(?:叫做|名叫|叫)(.+)$/.exec(c);
  if (!m) return false;
  const name = stripEnd(m[2]);
  if (!isName(name)) return false;
  const [rel, old] = last.value.split(":");
  if (!old && /:$/.test(last.value)) {
    if (!fits(last.value + name)) return false;
    last.value += name;
    return true;
  }
  if (!old || !m[1]) return false;
  const more = item("family", `${rel}:${name}`, last.confidence);
  if (!more) return false;
  st.items.push(more[0]);
  st.member = more[0];
  return true;
}

// ---- identity ------------------------------------------------------------------------------------


const name: Rule = (c) => {
  let m = X.RE_NAME_IS.exec(c) ?? X.RE_CALLED.exec(c);
  if (m) {
    const n = stripEnd(m[1]);
    return isName(n) ? item("name", n, 5) : undefined;
  }
  m = X.RE_SURNAME_CALLED.exec(c);
  if (m) {
    const n = stripEnd(m[2]);
    return isName(n) && n.charAt(0) === m[1] ? item("name", n, 5) : undefined;
  }
  m = X.RE_CALL_ME.exec(c);
  if (m) {
    const n = stripEnd(m[1]);
    return isName(n) ? item("name", n, 4) : undefined;
  }
  return undefined;
};

const nameByIAm: Rule = (c) => {
  const m = X.RE_I_AM.exec(c);
  if (!m) return undefined;
  const n = stripEnd(m[1]);
  return looksLikeName(n) ? item("name", n, 3) : undefined;
};


function enNumber(s: string): number | undefined {
  const t = s.toLowerCase().trim();
  if (/^[0-9]{1,3}$/.test(t)) return Number(t);
  const parts = t.split(/[- ]/);
  if (parts.length === 1) return X.EN_NUMBERS[t];
  if (parts.length === 2 && X.EN_NUMBERS[parts[0]] >= 20 && X.EN_NUMBERS[parts[0]] % 10 === 0 && X.EN_NUMBERS[parts[1]] < 10) return X.EN_NUMBERS[parts[0]] + X.EN_NUMBERS[parts[1]];
  return undefined;
}


const age: Rule = (c) => {
  const m = X.RE_AGE.exec(c);
  if (!m) return undefined;
  // without 岁: only with 今年/现在 (我今年二十八) or 了 (我三十二了)
  if (!m[3] && !/今年|现在/.test(m[1]) && !/了|啦/.test(m[4])) return undefined;
  if (!m[3] && m[1] === "是") return undefined;
  const n = parseNumber(m[2]) ?? enNumber(m[2]);
  if (n === undefined || n < 1 || n > 120) return undefined;
  return item("age", String(n), 4);
};


const gender: Rule = (c) => {
  const m = X.RE_GENDER.exec(c);
  return m ? item("gender", m[1].charAt(0), 4) : undefined;
};


const location: Rule = (c, st) => {
  const moved = X.RE_MOVED.exec(c);
  if (moved) {
    const p = stripEnd(moved[1]);
    if (!isPlace(p)) return undefined;
    st.correcting = true; // a move replaces where they lived
    return item("location", p, 5);
  }
  const m = X.RE_LIVE.exec(c) ?? X.RE_HOME.exec(c) ?? X.RE_FROM.exec(c);
  if (m) {
    const p = stripEnd(m[1]);
    return isPlace(p) ? item("location", p, 4) : undefined;
  }
  const n = X.RE_NATIVE.exec(c);
  if (n && X.PLACES.indexOf(n[1]) >= 0) return item("location", n[1], 4);
  return undefined;
};

// ---- facts: school, work, health ---------------------------------------------------------------


const fact: Rule = (c, st) => {
  let m = X.RE_ALLERGY.exec(c);
  if (m && !X.OBJECT_STOP.test(m[1])) return item("fact", `主人对${m[1]}过敏`, 4);
  m = X.RE_ZODIAC.exec(c);
  if (m) return item("fact", `主人属${m[1]}`, 4);
  m = X.RE_BLOOD.exec(c);
  if (m) return item("fact", `主人是${m[1]}型血`, 4);
  m = X.RE_GRADE.exec(c);
  if (m && (m[2] || m[1] || /年级|[初高大研][一二三四]|班$/.test(m[3])) && !(m[2] === "是" && /^(?:大学|研究生|博士|幼儿园)$/.test(m[3]))) {
    // 我在读小学三年级, 我在备考研究生: the verb is already said
    if (m[1] && !m[2] && /^(?:读|上|念|备考|考)/.test(m[1])) return item("fact", `主人在${m[1]}${m[3]}`, 4);
    return item("fact", `主人${m[1] ? "在" + m[1] : ""}${m[2] === "是" || !m[2] ? "上" : m[2]}${m[3]}`, 4);
  }
  m = X.RE_STUDY.exec(c);
  if (m && !/[你他她它这那]/.test(m[1])) return item("fact", `主人在${m[1]}${m[2]}`, 4);
  m = X.RE_WORK_AS.exec(c);
  if (m && !/[你他她它这那]/.test(m[1]) && !/^[了着过]/.test(m[3])) return item("fact", `主人在${m[1]}${m[2]}${stripEnd(m[3])}`, 4);
  m = X.RE_DO_JOB.exec(c);
  if (m) return item("fact", `主人做${m[1]}`, 4);
  m = X.RE_JOB_IS.exec(c);
  if (m) return item("fact", `主人的工作是${stripEnd(m[1])}`, 4);
  m = X.RE_MAJOR.exec(c);
  if (m) return item("fact", `主人学的专业是${stripEnd(m[1] ?? m[2])}`, 4);
  m = X.RE_TEACHER.exec(c);
  if (m) return item("fact", `主人的${c.slice(2)}`, 4);
  m = X.RE_STATUS.exec(c);
  if (m) return item("fact", m[1] ? `主人${m[1]}了` : `主人在${m[2]}`, 4);
  m = X.RE_MY_X_IS.exec(c);
  if (m) {
    const v = stripEnd(m[2]);
    if (/^(?:爱好|兴趣|兴趣爱好)$/.test(m[1])) {
      const objs = objects(v);
      return objs ? prefItems("like", objs, 4) : undefined;
    }
    if (!X.OBJECT_STOP.test(v)) return item("fact", `主人的${m[1]}是${v}`, 4);
  }
  m = X.RE_CANNOT.exec(c);
  if (m && !X.OBJECT_STOP.test(m[2])) return item("fact", `主人不能${m[1]}${stripEnd(m[2])}`, 4);
  m = X.RE_SELF_IS.exec(c);
  if (m) return item("fact", `主人是${m[1]}`, 4);
  m = X.RE_HAS_CONDITION.exec(c);
  if (m) return item("fact", `主人有${m[1]}`, 4);
  m = X.RE_SKILL.exec(c);
  if (m && X.SKILLS.test(m[1]) && !/[的了吗呢]$/.test(m[1])) return item("fact", `主人会${m[1]}`, 4);
  m = X.RE_DREAM.exec(c);
  if (m && !/[你他她它]/.test(m[1])) return item("fact", `主人的梦想是${stripEnd(m[1])}`, 4);
  m = X.RE_GROW_UP.exec(c);
  if (m) return item("fact", `主人长大${m[1]}${m[2]}${stripEnd(m[3])}`, 4);
  m = X.RE_OCCUPATION.exec(c);
  if (m) {
    const o = m[1].replace(/学生$/, (x) => (X.OCCUPATIONS.indexOf(m![1]) >= 0 ? x : ""));
    if (X.OCCUPATIONS.indexOf(m[1]) >= 0) return item("fact", `主人是${m[1]}`, 4);
    if (/^[a-z][a-z ]{2,20}$/.test(m[1])) return item("fact", `主人是${m[1]}`, 4);
    if (o && X.OCCUPATIONS.indexOf(o) >= 0) return item("fact", `主人是${o}`, 4);
    // 小学老师教语文的: an occupation followed by what they do in it
    for (const w of X.OCCUPATIONS) {
      const k = m[1].indexOf(w);
      if (w.length >= 2 && k >= 0 && k <= 4 && /^(?:教|在|做|负责|带)/.test(m[1].slice(k + w.length)) && !/[的你他她它这那]/.test(m[1].slice(0, k))) return item("fact", `主人是${m[1].slice(0, k + w.length)}`, 4);
    }
    // 大学老师, 退休老师, 儿科医生: a short modifier before an occupation
    for (const w of X.OCCUPATIONS) if (w.length >= 2 && m[1].length > w.length && m[1].length <= w.length + 4 && m[1].slice(-w.length) === w && /^[\u4e00-\u9fa5]+$/.test(m[1]) && !/[的你他她它这那]/.test(m[1])) return item("fact", `主人是${m[1]}`, 4);
  }
  if (st.emphatic) {
    m = X.RE_KEPT.exec(c);
    if (m && !/[你他她它]/.test(m[1])) return item("fact", `主人的${m[1]}${m[2]}${stripEnd(m[3])}`, 5);
  }
  return undefined;
};

// ---- likes and dislikes ----------------------------------------------------------------------


// Splits the words between 我 and the verb into known adverbs; undefined if
// anything else is there.
function adverbs(s: string): { neg: string | undefined; past: boolean; adv: string[] } | undefined {
  const out = { neg: undefined as string | undefined, past: false, adv: [] as string[] };
  let rest = s;
  while (rest) {
    let hit: string | undefined;
    for (const w of X.PAST) if (rest.indexOf(w) === 0) (hit = w), (out.past = true);
    if (!hit) for (const w of X.NEGATIONS) if (rest.indexOf(w) === 0 && (!hit || w.length > hit.length)) hit = w;
    if (hit && X.NEGATIONS.indexOf(hit) >= 0) {
      if (out.neg) return undefined; // 不是不喜欢: double negation, not guessed
      out.neg = hit;
    } else if (!hit) {
      for (const w of X.ADVERBS) if (rest.indexOf(w) === 0 && (!hit || w.length > hit.length)) hit = w;
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
  if (!o || /^(?:喜欢|讨厌|[的得地了着过不没怕欢爱])/.test(o) || X.OBJECT_STOP.test(o) || o.indexOf("的是") >= 0) return undefined;
  if (/^[一两几这那每][个只位种件条本部首]/.test(o)) return undefined; // 喜欢上了一个女孩: someone, not a liking
  if (o.length > 20) return undefined;
  o = o.replace(/^([吃喝])?.{1,6}?(?:做|煮|烧|包|炖|烤|买|炒)的(?=..)/, "$1"); // 吃我妈做的红烧肉 → 吃红烧肉
  let parts = /^[和跟与同]/.test(o) ? [o] : o.split(/(?:啊|呀)?(?:和|、|还有|跟|以及|,)|啊|呀/).filter((p) => p.length > 0);
  if (!parts.length) return undefined;
  // 篮球足球乒乓球: nouns said in a row that end alike
  if (parts.length === 1 && o.length >= 4 && X.HAN.test(o)) {
    const end = o.charAt(o.length - 1);
    const run = o.split(end);
    if (run.length >= 3 && run[run.length - 1] === "" && run.slice(0, -1).every((r) => r.length >= 1 && r.length <= 2)) parts = run.slice(0, -1).map((r) => r + end);
  }
  // a verb in front is shared (吃苹果和香蕉), not a verb-object word's (画画和小兔子)
  const verb = parts[0].length >= 3 ? X.VERB_HEAD.exec(parts[0]) : null;
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i].trim();
    if (!p) return undefined;
    if (i > 0 && verb && !X.VERB_HEAD.test(p)) p = verb[0] + p;
    if (!fits(p, X.SHORT_BYTES)) return undefined;
    out.push(p);
  }
  return out;
}

function prefItems(kind: "like" | "dislike", objs: string[], confidence: number): Extracted[] {
  return objs.map((value) => ({ kind, value, confidence }));
}

// Said with the thing first or with another verb (issue 24): 打羽毛球是我最喜欢的运动,
// 篮球足球我都喜欢, 周杰伦的歌我百听不厌, 我最近迷上了乐高, 我是周杰伦的粉丝,
// 我喜欢的水果有西瓜和草莓, 我爱吃的东西可多了 (a list follows).
const topical = (c: string, st: State): Extracted[] | undefined => {
  let m = X.RE_TOPIC_IS.exec(c);
  if (m) {
    const objs = objects(m[1]);
    return objs ? prefItems(/讨厌|怕/.test(m[2]) ? "dislike" : "like", objs, 4) : undefined;
  }
  m = X.RE_TOPIC_FIRST.exec(c);
  if (m && !/^我/.test(m[1])) {
    const objs = objects(m[1]);
    if (!objs) return undefined;
    return prefItems(/不|讨厌|怕|烦/.test(m[2]) ? "dislike" : "like", objs, 4);
  }
  m = st.selfBefore ? X.RE_TOPIC_ALSO.exec(c) : null;
  if (m && !/^[我你他她它]/.test(m[1])) {
    const objs = objects(m[1]);
    if (objs) return prefItems(/不|讨厌/.test(m[2]) ? "dislike" : "like", objs, 4);
  }
  m = X.RE_NEVER_TIRED.exec(c);
  if (m && !/^我/.test(m[1])) {
    const objs = objects(m[1].replace(/这(?:首|部|个|本|款|种)[\u4e00-\u9fa5]?$/, ""));
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  m = X.RE_INTO.exec(c) ?? X.RE_FAN.exec(c) ?? X.RE_WATCHING.exec(c) ?? X.RE_MOST_DONE.exec(c);
  if (m) {
    const objs = objects(stripEnd(m[1]));
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  m = X.RE_LIKED_ARE.exec(c);
  if (m) {
    const kind = /讨厌|怕/.test(m[1]) ? "dislike" : "like";
    st.listKind = kind;
    st.listVerb = m[2];
    if (!m[3]) return [];
    const objs = objects(m[2] + stripEnd(m[3]));
    return objs ? prefItems(kind, objs, 4) : [];
  }
  return undefined;
};

// A bare thing after a list began (我喜欢乐高啊, 画画啊, 还有踢足球): one more of it.
function listMore(c: string, st: State): Extracted[] | undefined {
  const kind = st.listKind;
  if (!kind || c.length > 8 || X.NOT_LISTED.test(c) || isQuestion(c)) return undefined;
  const objs = objects(c);
  if (!objs) return undefined;
  return prefItems(kind, objs.map((o) => (st.listVerb && !X.VERB_HEAD.test(o) ? st.listVerb + o : o)), 4);
}

const preference = (c: string, st: State): Extracted[] | undefined => {
  if (X.SARCASM.test(c)) return []; // 我可太喜欢加班了
  let m = X.RE_FAVOURITE.exec(c);
  if (m) {
    const objs = objects(m[2] + m[4]); // 我最喜欢吃的是冰淇淋 → 吃冰淇淋
    if (!objs) return undefined;
    return prefItems(m[1] === "喜欢" || m[1] === "爱" ? "like" : "dislike", objs, 4);
  }
  m = X.RE_INTEREST.exec(c);
  if (m) {
    if (/不|没/.test(m[1])) return undefined;
    const objs = objects(m[1]);
    return objs ? prefItems("like", objs, 4) : undefined;
  }
  m = X.RE_NEVER.exec(c);
  if (m) {
    const o = stripEnd(m[2]);
    if (o.length < 1 || /^[了过完饭]$/.test(o) || X.OBJECT_STOP.test(o)) return undefined;
    return item("dislike", m[1] + o, 4);
  }
  m = X.RE_SWITCHED.exec(c);
  if (m) {
    const objs = objects(m[1] + stripEnd(m[2]));
    if (!objs) return undefined;
    st.correcting = true; // a change: the new one is meant
    return prefItems("like", objs, 5);
  }
  m = X.RE_PREF.exec(c.replace(X.RE_WE_BOTH, "我$1"));
  if (!m) return undefined;
  const a = adverbs(m[1]);
  if (!a || a.past) return undefined;
  const verb = m[2];
  const objs = objects(m[3]);
  if (!objs) return undefined;
  const positive = verb === "喜欢" || verb === "爱";
  if (!a.neg) {
    if (positive) return prefItems("like", objs, 4);
    return prefItems("dislike", objs, 4);
  }
  // negated
  const noLonger = a.neg === "不再" || a.neg === "再也不" || a.neg === "已经不" || (a.neg === "不" && /了$/.test(m[3]));
  if (noLonger || !positive || a.neg === "没有" || a.neg === "没" || a.neg === "并不") {
    // "我不再喜欢X" withdraws a like; "我不讨厌X" a pending dislike
    for (const value of objs) st.retractions.push({ kind: positive ? "like" : "dislike", value, memory: noLonger && positive });
    return [];
  }
  return prefItems("dislike", objs, 4);
};

// ---- plans and reminders --------------------------------------------------------------------


function planText(rest: string): string | undefined {
  let r = rest;
  const s = X.SUBJECT.exec(r);
  if (s) r = r.slice(s[0].length);
  const modal = X.MODALS.exec(r);
  if (modal) {
    let k = modal[0].length;
    while (k > 0 && r.length - k < 2) k--; // 要还书: 还 is the verb here
    r = r.slice(k);
  }
  r = r.replace(/^(?:有个|有一个|一个|个|有(?=..))/, "");
  r = stripEnd(r);
  if (r.length < 2 || r.length > 16) return undefined;
  if (/^[很真好太不没别的得地了你他她它]|^特别|^非常|^有点|^挺|^超/.test(r) || X.WEATHER.test(r)) return undefined;
  return r;
}

function cut(text: string, spans: [number, number][]): string {
  let rest = "";
  let from = 0;
  for (const [a, b] of spans) {
    if (a < from) continue;
    rest += text.slice(from, a);
    from = b;
  }
  return rest + text.slice(from);
}

const plan = (c: string, st: State): Extracted[] | undefined => {
  if (X.LUNAR.test(c)) return undefined; // 正月十五, 中秋节: never a wrong Gregorian day
  let text = c;
  let confidence = 0;
  let reminder = false;
  const alarm = X.RE_ALARM.exec(text);
  if (alarm) {
    text = alarm[1] + "闹钟";
    reminder = true;
  }
  const wake = X.RE_WAKE.test(text);
  if (wake) text = text.replace(X.RE_WAKE, "起床");
  const r = X.REMIND.exec(text);
  if (r && !reminder) {
    const before = text.slice(0, r.index);
    // 提醒我… / 明天提醒我… / 明天下午三点我要去银行你提醒我一下
    if (!before || /^(?:我|我们)?$/.test(before) || scanDateTime(before, st.at).match || /^(?:每|我每)/.test(before)) {
      text = before + text.slice(r.index + r[0].length);
      reminder = true;
    }
  }
  if (reminder || wake) confidence = 5;
  const todo = !reminder ? X.RE_TODO.exec(text) : null;
  if (todo) {
    const t = planText(todo[1] ?? todo[2]);
    return t ? item("event", t, 5, undefined, { tag: "todo" }) : undefined;
  }
  // repeating: 每天早上七点提醒我吃药, 每周三下午游泳
  const rep = scanRepeat(text, st.at, reminder ? 8 : undefined); // a repeating reminder with no time: in the morning
  if (rep) {
    if (/每[^,]{0,4}都|每年/.test(text)) return undefined; // 我每天都六点起床: a habit, not a plan
    const hour = rep.hour, minute = rep.minute;
    if (hour === undefined) return undefined;
    const lead = text.slice(0, rep.spans[0][0]);
    if (lead && !/^(?:我们|咱们|我)$/.test(lead)) return undefined;
    const t = planText(cut(text, rep.spans));
    if (!t) return undefined;
    const out: Extracted[] = [];
    for (const d of rep.firsts) {
      const e = item("schedule", t, st.emphatic || st.correcting ? 5 : confidence || 4, fromLocal(d.year, d.month, d.day, hour, minute), { repeat: rep.repeat });
      if (e) out.push(e[0]);
    }
    return out.length ? out : undefined;
  }
  const scan = scanDateTime(text, st.at);
  const d = scan.match;
  if (!d || scan.past || scan.recurring) {
    if (!d && !scan.past && st.emphatic && /^(?:要|得|去)/.test(text)) reminder = true; // 帮我记一下要买洗衣液
    if (!reminder || scan.past || d) return undefined;
    const t = planText(text.replace(/^(?:一下)/, ""));
    return t ? item("event", t, 5, undefined, { tag: "todo" }) : undefined;
  }
  // the date comes first, or right after the speaker: "老师说明天…" is someone else's
  const lead = text.slice(0, d.spans[0][0]);
  if (lead && !/^(?:我们|咱们|我)$/.test(lead)) return undefined;
  let subject = !!lead;
  let rest = cut(text, d.spans).slice(lead.length);
  rest = rest.replace(/^(?:最后一天|那天|当天)/, "");
  const s = X.SUBJECT.exec(rest);
  if (s) {
    subject = true;
    rest = rest.slice(s[0].length);
  }
  const modal = X.MODALS.exec(rest);
  if (modal) rest = rest.slice(modal[0].length);
  if (/^是(?=..)/.test(rest)) {
    rest = rest.slice(1); // 3月15日是家长会: an occasion, not 明天是周末
    if (!X.PLAN_NOUNS.test(rest)) return undefined;
  } else if (/^有(?=..)/.test(rest)) rest = rest.slice(1);
  rest = rest.replace(/^(?:个|一个|场|一场)/, "");
  const done = /了$/.test(rest);
  rest = stripEnd(rest);
  if (rest.length < 2 || rest.length > 16) return undefined;
  if (/^[很真好太不没别的得地了]|^特别|^非常|^有点|^挺|^超/.test(rest) || X.WEATHER.test(rest)) return undefined;
  if (/^(?:喜欢|讨厌|爱|觉得|知道|认为|想念|害怕|怕|是|在)/.test(rest)) return undefined; // a state, not a plan
  if (/^(?:加油|努力|开心|快乐|高兴|周末)$|死|自杀|伤害|取消/.test(rest)) return undefined; // not something to plan for
  if (/了/.test(rest) && !modal && !reminder) return undefined; // 我今天吃了…: done, not planned
  if (done && !modal && !reminder && dayStart(d.date) <= st.at) return undefined; // 我今天去公园散步了: done today
  if (/^(?:星期|周|礼拜)[一二三四五六日天]$|[0-9一二三四五六七八九十]号$/.test(rest)) return undefined;
  if (/[你他她它]/.test(rest.charAt(0)) || /你|^再/.test(rest)) return undefined; // 明天再跟你说: about this talk
  const signal = reminder || subject || !!modal || X.PLAN_NOUNS.test(rest) || d.hour !== undefined;
  if (!signal) return undefined;
  if (!confidence) confidence = 4;
  if (st.emphatic || st.correcting) confidence = 5;
  if (d.hour !== undefined) {
    let hour = d.hour;
    if (wake && !d.period && hour >= 13 && hour <= 18) hour -= 12; // 明天六点叫醒我: the morning
    const when = fromLocal(d.date.year, d.date.month, d.date.day, hour, d.minute ?? 0);
    if (when <= st.at) return undefined;
    return item("schedule", rest, confidence, when);
  }
  return item("event", (d.period ?? "") + rest, confidence, dayStart(d.date), reminder ? { tag: "reminder" } : undefined);
};

// ---- English (simple) ---------------------------------------------------------------------------


function enDate(s: string): { month: number; day: number } | undefined {
  const t = s.toLowerCase().replace(/^on /, "").trim();
  let m = /^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?$/.exec(t);
  let mo: number, d: number;
  if (m) (mo = X.EN_MONTHS.indexOf(m[1]) + 1), (d = Number(m[2]));
  else if ((m = /^(?:the )?(\d{1,2})(?:st|nd|rd|th)? of ([a-z]+)$/.exec(t))) (mo = X.EN_MONTHS.indexOf(m[2]) + 1), (d = Number(m[1]));
  else return undefined;
  return parseMonthDay(`${mo}-${d}`);
}

function enTime(s: string | undefined, ampm: string | undefined): { hour: number; minute: number } | undefined {
  if (!s) return undefined;
  const m = /^(\d{1,2})(?::(\d\d))?$/.exec(s);
  if (!m) return undefined;
  let h = Number(m[1]);
  const min = m[2] ? Number(m[2]) : 0;
  if (h > 23 || min > 59) return undefined;
  if (ampm === "pm" && h < 12) h += 12;
  else if (ampm === "am" && h === 12) h = 0;
  else if (!ampm && h >= 1 && h <= 6) h += 12;
  return { hour: h, minute: min };
}

function english(c: string, question: boolean, st: State): Extracted[] | undefined {
  const s = c.replace(/[.!]+$/, "").trim();
  const low = s.toLowerCase();
  if (X.JOKE.test(low) || /\b(?:kidding|joking)\b/.test(low)) {
    if (st.items.length) st.items.length = 0;
    else st.cancelPrevious = true;
    return [];
  }
  if (question || /^(?:do|does|did|are|is|am|what|what's|who|where|when|why|how|can|could|will|would|should)\b/.test(low)) return [];
  if (/\b(?:maybe|probably|perhaps|might|if|used to|wish|were)\b/.test(low)) return [];
  let m = /^(?:my name is|my name's|i'm called|i am called|call me)\s+([A-Za-z][A-Za-z'-]{1,19})$/i.exec(s);
  if (m) return item("name", m[1], 5);
  m = /^i(?:'m| am) ([0-9]{1,3}|[a-z]+(?:[- ][a-z]+)?)(?: years? old)?$/i.exec(s);
  if (m) {
    const n = enNumber(m[1]);
    if (n !== undefined && n >= 1 && n <= 120) return item("age", String(n), 4);
  }
  m = /^i(?:'m| am) an? (boy|girl|man|woman)$/i.exec(s);
  if (m) return item("gender", /^(?:boy|man)$/i.test(m[1]) ? "男" : "女", 4);
  m = /^i (?:live|stay) in ([A-Za-z][A-Za-z .'-]{1,30})$/i.exec(s) ?? /^i(?:'m| am) from ([A-Za-z][A-Za-z .'-]{1,30})$/i.exec(s);
  if (m && !/^(?:a|an|the|my|our|his|her|their)\b/i.test(m[1]) && (/^i (?:live|stay)/i.test(s) || /^[A-Z]/.test(m[1]))) return item("location", m[1], 4);
  m = /^my fav(?:ou?)?rite [a-z]+ is ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m) return item("like", m[1], 4);
  m = /^i (?:really |also |just |do )?(?:like|love|enjoy|adore) ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m && !/\b(?:you|it|this|that|him|her|them|me|anymore)\b/i.test(m[1])) return item("like", m[1], 4);
  m = /^i (?:really )?(?:don't|do not|dont|hate|can't stand|cannot stand|dislike)(?: really)?(?: like)? ([A-Za-z][A-Za-z '-]{1,30})$/i.exec(s);
  if (m && !/\b(?:you|it|this|that|him|her|them|me)\b/i.test(m[1])) {
    if (/\banymore$/i.test(m[1])) return [];
    return item("dislike", m[1], 4);
  }
  m = new RegExp(`^my (${X.EN_REL})(?:'s name is|'s called| is called| is named| name is) ([A-Z][A-Za-z'-]{1,19})$`, "i").exec(s);
  if (m) return familyItem(m[1].toLowerCase(), m[2]);
  m = new RegExp(`^i have an? (${X.EN_REL}) (?:named|called) ([A-Z][A-Za-z'-]{1,19})$`, "i").exec(s);
  if (m) return familyItem(m[1].toLowerCase(), m[2]);
  m = /^my birthday is (.+)$/i.exec(s);
  if (m) {
    const d = enDate(m[1]);
    return d ? item("birthday", `${pad(d.month)}-${pad(d.day)}`, 5) : [];
  }
  m = /^i(?:'m| am) allergic to ([A-Za-z][A-Za-z '-]{1,20})$/i.exec(s);
  if (m) return item("fact", `主人对${m[1]}过敏`, 4);
  m = /^i(?:'m| am) an? ([a-z][a-z ]{2,20})$/i.exec(s);
  if (m && X.EN_OCCUPATIONS.test(m[1].toLowerCase())) return item("fact", `主人是${m[1]}`, 4);
  // reminders: "remind me to X [today|tomorrow|tonight] [at 6pm]", "every day at 7am remind me to X"
  m = /^(?:every (day|morning|night) )?(?:at (\d{1,2}(?::\d\d)?)\s*(am|pm)? |)remind me to (.+?)(?: (today|tomorrow|tonight))?(?: at (\d{1,2}(?::\d\d)?)\s*(am|pm)?|)(?: (today|tomorrow|tonight|every day))?$/i.exec(s);
  if (m) {
    const what = m[4].trim();
    if (!what || what.length > 40) return undefined;
    const daily = !!m[1] || (m[8] ?? "").toLowerCase() === "every day";
    const time = enTime(m[2] ?? m[6], (m[3] ?? m[7])?.toLowerCase()) ?? (m[1] === "morning" ? { hour: 8, minute: 0 } : m[1] === "night" || (m[5] ?? m[8]) === "tonight" ? undefined : undefined);
    const dayWord = (m[5] ?? m[8] ?? "").toLowerCase();
    if (!time) {
      if (dayWord === "tomorrow" || dayWord === "today") {
        const t = toLocal(st.at + (dayWord === "tomorrow" ? 86400000 : 0));
        return item("event", what, 5, fromLocal(t.year, t.month, t.day), { tag: "reminder" });
      }
      return item("event", what, 5, undefined, { tag: "todo" });
    }
    const t = toLocal(st.at);
    let when = fromLocal(t.year, t.month, t.day + (dayWord === "tomorrow" ? 1 : 0), time.hour, time.minute);
    if (daily && when <= st.at) when += 86400000;
    if (when <= st.at) return undefined;
    return item("schedule", what, 5, when, daily ? { repeat: "daily" } : undefined);
  }
  return undefined;
}

// ---- corrections of a value: 不对是三点, 不是九岁, 不对叫小红 ------------------------------------


// The last clause with X put in place of what X corrects, or undefined.
function substitute(last: string, items: Extracted[], x: string): string | undefined {
  const whole = (re: RegExp) => {
    const m = new RegExp(`^(?:${re.source})$`).exec(x);
    return !!m;
  };
  const swap = (re: RegExp) => {
    const m = new RegExp(re.source).exec(last);
    return m ? last.slice(0, m.index) + x + last.slice(m.index + m[0].length) : undefined;
  };
  if (whole(X.RE_TIME_WORD)) return swap(X.RE_TIME_WORD);
  if (whole(X.RE_MD_WORD)) return swap(X.RE_MD_WORD);
  const n = new RegExp(`^(${NUM})(岁|年级|号|点|个)?$`).exec(x);
  if (n) {
    const re = n[2] ? new RegExp(`${NUM}${n[2]}`) : new RegExp(NUM);
    return swap(re);
  }
  for (const it of items) {
    const pieces = it.value.split(":").reverse();
    for (const p of pieces) if (p && last.indexOf(p) >= 0) return last.slice(0, last.lastIndexOf(p)) + x + last.slice(last.lastIndexOf(p) + p.length);
  }
  return undefined;
}

// ---- the extractor ------------------------------------------------------------------------------

// What people say of themselves in passing (issue 24): a routine, a job, a
// goal, a condition, said as part of something else ("今天又加班到九点",
// "最近在戒糖", "我腿脚不太好"): the fact it shows, in the words of X.LIFE.
const life: Rule = (c, st) => {
  if (X.PLANNED.test(c) && scanDateTime(c, st.at).match) return undefined; // 今天晚上我要加班: a plan
  if (!/^我(?!们)/.test(c) && !/^(?:最近|今天|天天|每天|又|正在|在|刚|一直)/.test(c)) return undefined;
  if (/[你他她它]|别人|同学|朋友/.test(c.replace(/吉他|其他|其它/g, ""))) return undefined;
  for (const [re, out] of X.LIFE) {
    const m = re.exec(c);
    if (m) {
      let v = out;
      for (let k = 1; k < m.length; k++) v = v.split("$" + k).join(stripEnd(m[k] ?? ""));
      return item("fact", v, 4);
    }
  }
  return undefined;
};

// A member mentioned in passing: "我得回去给孩子做饭", "等我遛完狗", "我在医院陪我妈":
// the owner has one (no name, nothing else about them).
const mention: Rule = (c) => {
  if (/^(?:他|她|它|你)/.test(c)) return undefined;
  const list = X.RE_REL_LIST.exec(c);
  const m = list ?? X.RE_MENTION.exec(c) ?? X.RE_CARE.exec(c);
  if (!m) return undefined;
  // the member as the subject of a passing state or of something done to the
  // speaker ("我弟弟好烦", "我妈妈骂我了"): not worth a memory
  if (!list && m.index === 0 && /^我/.test(c)) {
    const rest = c.slice(m[0].length).replace(/^(?:今天|刚才|刚刚|又|还|老是|总是)+/, "");
    if (X.PASSING.test(rest) || /[我你]/.test(rest) || rest.length < 2) return undefined;
  }
  if (list) {
    const out: Extracted[] = [];
    const re = new RegExp(`(${X.REL_ALT})`, "g");
    for (let p = re.exec(list[1]); p; p = re.exec(list[1])) {
      const f = familyItem(p[1], "");
      if (f) out.push(f[0]);
    }
    for (const f of out) f.passing = true;
    return out;
  }
  const f = familyItem(m[1], "");
  if (f) f[0].passing = true;
  return f;
};

// a member only mentioned: what follows is not said about them
function mentioned(found: Extracted[]): boolean {
  return found.length > 0 && found.every((f) => f.passing === true);
}

export const RULES: readonly Rule[] = Object.freeze([othersDays, birthday, family, name, age, gender, fact, location, memberSays, nameByIAm, topical, preference, life, plan, mention]);


// Fillers in front, a particle after 我 (我呀叫贝贝) and at the end (but 了, which rules read).
function clean(c: string): string {
  let s = c;
  while (X.FILLER.test(s)) s = s.replace(X.FILLER, "");
  return s.replace(/^我[呀呢啊嘛](?=.)/, "我").replace(/[啊呀哦喔噢啦呢嘛吧哈耶哟咯~]+$/, "");
}

// A bare answer to the assistant's question: 小明 to 你叫什么名字.
function answer(text: string, context: string, at: number): Extracted[] | undefined {
  const bare = stripEnd(clean(text.replace(/[.!?,]+$/, "").split(",").join("")));
  // 你喜欢小猫吗 → 喜欢 / 不喜欢
  const yn = X.ASKS_YES_NO.exec(context);
  if (yn && bare) {
    const said = /^(?:嗯|对|是啊|当然|超级|特别|非常|很|好)*(不太喜欢|不喜欢|不爱|讨厌|喜欢|爱)(?:的|啊|呀|了)*$/.exec(bare);
    const objs = said && !X.OBJECT_STOP.test(yn[1]) && !/[我你他她它]/.test(yn[1]) ? objects(yn[1]) : undefined;
    if (said && objs) return prefItems(/不|讨厌/.test(said[1]) ? "dislike" : "like", objs, 4);
  }
  if (!bare || X.NOT_ANSWERS.test(bare) || isQuestion(bare) || /[你]/.test(bare)) return undefined;
  if (/^我/.test(bare)) {
    if (X.ASKS_AGE.test(context)) {
      const m = new RegExp(`^我(?:今年)?(${NUM})(?:周?岁)?了?$`).exec(bare);
      const n = m ? parseNumber(m[1]) : undefined;
      if (n !== undefined && n >= 1 && n <= 120) return item("age", String(n), 4);
    }
    if (X.ASKS_PLACE.test(context)) {
      const m = /^我是(.+)人$/.exec(bare);
      if (m && isPlace(m[1])) return item("location", m[1], 4);
    }
    return undefined;
  }
  if (X.ASKS_GENDER.test(context)) {
    const g = /^(?:是)?(?:个|一个)?(?:小)?(男|女)(?:孩子|孩儿|孩|生|的|娃)?$/.exec(bare);
    if (g) return item("gender", g[1], 4);
  }
  if (X.ASKS_GRADE.test(context)) {
    const g = new RegExp(`^(?:上|读|在读|念|是)?(${X.GRADE})(?:了)?$`).exec(bare);
    if (g) return item("fact", `主人上${g[1]}`, 4);
  }
  if (X.ASKS_SCHOOL.test(context)) {
    const g = /^(?:在)?([\u4e00-\u9fa5]{2,10}?(?:小学|中学|学校|幼儿园|大学|一中|二中|三中|实验|附小|附中))$/.exec(bare);
    if (g) return item("fact", `主人在${g[1]}上学`, 4);
  }
  if (X.ASKS_NAME.test(context)) {
    const m = /^(?:叫我|我叫|叫)?(.+)$/.exec(bare);
    return m && isName(m[1]) ? item("name", m[1], 4) : undefined;
  }
  if (X.ASKS_AGE.test(context)) {
    const m = new RegExp(`^(?:今年)?(${NUM})(?:周?岁)?(?:半)?了?$`).exec(bare);
    const n = m ? parseNumber(m[1]) : undefined;
    return n !== undefined && n >= 1 && n <= 120 ? item("age", String(n), 4) : undefined;
  }
  if (X.ASKS_BIRTHDAY.test(context)) {
    const d = dayOnly(bare.replace(/^(?:是|在)/, ""), at);
    return d ? item("birthday", `${pad(d.month)}-${pad(d.day)}`, 4) : undefined;
  }
  if (X.ASKS_PLACE.test(context)) {
    const p = bare.replace(/^(?:住在|在|住)/, "").replace(/的$/, "").replace(/人$/, "");
    return isPlace(p) ? item("location", p, 4) : undefined;
  }
  if (X.ASKS_JOB.test(context)) {
    const o = bare.replace(/^(?:是|当|做)/, "").replace(/的$/, "");
    if (X.OCCUPATIONS.indexOf(o) >= 0) return item("fact", `主人是${o}`, 4);
    const d = /^(?:我是)?(开|做|搞|干|跑|送|卖|教)(.{1,6})的$/.exec(bare);
    return d ? item("fact", `主人${d[1]}${d[2]}`, 4) : undefined;
  }
  if (X.ASKS_DISLIKE.test(context) || X.ASKS_LIKE.test(context)) {
    if (/^(?:有|是|在|去|没|不|也|都)/.test(bare) || bare.length > 16) return undefined;
    const objs = objects(bare);
    return objs ? prefItems(X.ASKS_DISLIKE.test(context) ? "dislike" : "like", objs, 4) : undefined;
  }
  return undefined;
}

function emit(st: State, found: Extracted[]): void {
  for (const f of found) {
    // another person's name, age, likes…: never the owner's ("我们家住在…" is the household's)
    if (st.other && X.SELF_KINDS.indexOf(f.kind) >= 0 && !(f.kind === "location" && /^我(?:们|家)/.test(st.clause))) continue;
    if (st.emphatic || st.correcting) f.confidence = 5;
    if (st.hedged) f.confidence = Math.min(f.confidence, 2);
    // within one utterance the last word on an identity field wins
    const single = f.kind === "name" || f.kind === "age" || f.kind === "gender" || f.kind === "location" || f.kind === "birthday";
    for (let i = st.items.length - 1; i >= 0; i--) {
      const x = st.items[i];
      if ((single && x.kind === f.kind) || (x.kind === f.kind && x.value === f.value && x.when === f.when)) st.items.splice(i, 1);
    }
    st.items.push(f);
  }
}

function runRules(c: string, st: State): Extracted[] | undefined {
  for (const rule of RULES) {
    const found = rule(c, st);
    if (found) return found;
  }
  // 我在北京工作了, 我有一个妹妹了: a state reached, read without 了 (plans keep it: 我吃了… is done)
  const bare = c.replace(/(?:了|啦)+$/, "");
  if (bare !== c && bare.length > 2)
    for (const rule of RULES) {
      if (rule === plan) continue;
      const found = rule(bare, st);
      if (found) return found;
    }
  return undefined;
}

// What one user utterance says. `context` is the assistant's line just
// before (for bare answers: 小明 to 你叫什么名字); `prior` the user's previous
// utterance in this conversation (for 不对是三点 said on its own).
export function extract(utterance: string, at: number, context?: string, prior?: string, other = false): Extraction {
  const st: State = { at, items: [], retractions: [], cancelPrevious: false, emphatic: false, correcting: false, hedged: false, selfBefore: false, member: undefined, skipRest: false, lastClause: "", lastItems: [], listKind: undefined, listVerb: "", fiction: false, forget: undefined, other, otherSaid: false, clause: "" };
  const text = normalize(utterance.length > MAX_UTTERANCE ? utterance.slice(0, MAX_UTTERANCE) : utterance);
  if (!text) return { items: [], retractions: [], cancelPrevious: false };
  if (context) {
    const a = answer(text, context, at);
    if (a) return { items: a, retractions: [], cancelPrevious: false };
    if (X.ASKS_HAS.test(context) && /^(?:嗯|对)?有/.test(text)) return extract("我" + text.replace(/^(?:嗯|对)/, ""), at);
  }
  // a short utterance that takes back what was said ("就当我没说", "忘了它吧"), read whole
  const whole = text.replace(/[,.!?、 ]/g, "");
  if (whole.length <= 14 && X.FORGET.test(whole) && !X.ASKS_END.test(whole) && !X.KEEP_IT.test(whole)) return { items: [], retractions: [], cancelPrevious: false, forget: forgetKinds(whole) };
  let first = true;
  for (const sentence of clauses(text)) {
    if (st.fiction) break;
    let carry = "";
    st.skipRest = false;
    for (const cl of sentence) {
      let c = cl.text;
      st.clause = c;
      st.hedged = false;
      if (st.skipRest) continue;
      if (!X.HAN.test(c)) {
        for (const part of c.split(/\s*(?:,|\band\b|\bbut\b)\s*(?=i\b|i'm\b|my\b|call\b|remind\b)/i)) {
          const e = english(part, cl.question, st);
          if (e) emit(st, e);
        }
        st.selfBefore = false;
        continue;
      }
      c = clean(c);
      if (!c) continue;
      // a story, a song, a role, a quoted character: nothing of the utterance is the speaker's (issue 24)
      if (X.FICTION.test(c) || X.LYRICS.test(c) || X.QUOTED.test(c) || (X.ROLE.test(c) && X.CHARACTERS.test(c.slice(2)))) {
        st.items.length = 0;
        st.retractions.length = 0;
        st.fiction = true;
        break;
      }
      // a secret: "这个是秘密" withdraws what was said, "跟你说个秘密…" what follows
      if (X.SECRET_WORD.test(c)) {
        if (!st.items.length) st.forget = "last";
        st.items.length = 0;
        st.fiction = true;
        break;
      }
      if (X.SECRET.test(c) || digitsSaid(c)) {
        st.selfBefore = false;
        st.member = undefined;
        first = false;
        continue;
      }
      // "这个别记", "名字别记", "你把我住哪忘掉吧": what was said is taken back
      if (X.FORGET.test(c) && !X.ASKS_END.test(c)) {
        const kinds = forgetKinds(c);
        const before = st.items.length;
        st.items = typeof kinds === "string" ? [] : st.items.filter((x) => kinds.indexOf(x.kind) < 0);
        if (before === st.items.length) st.forget = kinds; // nothing of it in this utterance: what the conversation said
        st.member = undefined;
        continue;
      }
      // another person speaks from here on ("我是她奶奶"), or is handed the device ("奶奶你跟它说两句")
      const hand = X.HAND_TO.exec(c);
      if (hand) {
        const who = hand[1].replace(/^(?:快|来)/, "");
        st.other = X.RELATIONS[who] !== undefined;
        st.otherSaid = true;
        continue;
      }
      const speaker = X.SPEAKER_IS.exec(c);
      if (speaker) {
        st.other = true;
        st.otherSaid = true;
        st.selfBefore = false;
        continue;
      }
      // "这是我爸爸，他叫王刚": a member introduced
      const intro = X.INTRO.exec(c);
      if (intro) {
        const rest = stripEnd(intro[2].replace(/^,/, "").replace(/^(?:他|她|它)?(?:叫做|名叫|叫)/, ""));
        const f = familyItem(intro[1], rest && isName(rest) ? rest : "");
        if (f) {
          emit(st, f);
          st.member = f[0];
          st.selfBefore = false;
        }
        continue;
      }
      // jokes and sarcasm withdraw what came before; laughter makes it unsure
      if (X.JOKE.test(c) && c.length <= 8) {
        if (st.items.length) st.items.length = 0;
        else if (first) st.cancelPrevious = true;
        st.member = undefined;
        continue;
      }
      if (/永远.{0,3}岁/.test(c)) {
        st.items = st.items.filter((x) => x.kind !== "age");
        continue;
      }
      if (X.LAUGH.test(c)) {
        if (/呵/.test(c)) st.items.length = 0;
        else for (const x of st.items) x.confidence = Math.min(x.confidence, 2);
        continue;
      }
      first = false;
      const corr = X.CORRECTION_PREFIX.exec(c) ?? (st.lastClause ? /^不是(?=.)/.exec(c) : null);
      if (corr) {
        st.correcting = true;
        c = c.slice(corr[0].length);
        if (!c) continue;
      }
      if (X.CHANGE.test(c)) {
        st.correcting = true;
        st.selfBefore = true;
        continue;
      }
      // 记住哦 / 你记得提醒我: what was just said, and what follows, is meant
      if ((X.EMPHASIS.test(c) || X.REMIND_AFTER.test(c)) && !cl.question) {
        for (const x of st.items) x.confidence = Math.max(x.confidence, 5);
        st.emphatic = true;
        continue;
      }
      if (cl.question || isQuestion(c)) {
        st.selfBefore = false;
        continue;
      }
      if (X.HYPOTHETICAL.test(c)) {
        // "等我老公回来再说", "等我遛完狗": the member is there all the same
        const said = /^(?:我)?等我/.test(c) ? mention(c, st) : undefined;
        if (said && said.length) emit(st, said);
        st.skipRest = true;
        continue;
      }
      if (/的时候/.test(c) || X.PAST_START.test(c)) {
        if (/^我(?!们)/.test(c)) st.selfBefore = true; // 我以前是工人，现在退休了: still the speaker
        continue; // 我三岁的时候…, 以前…: not now
      }
      const hedge = X.HEDGE.exec(c);
      if (hedge) {
        st.hedged = true;
        c = c.slice(0, hedge.index) + c.slice(hedge.index + hedge[0].length);
        c = c.replace(/吧$/, "");
        if (c.length < 2) continue;
      }
      const emph = X.EMPHASIS_PREFIX.exec(c);
      if (emph && emph[0].length < c.length && !X.REMIND.test(c.slice(0, emph[0].length + 3))) {
        c = c.slice(emph[0].length);
        st.emphatic = true;
      }
      // a bare corrected value: 不对是三点 / 我是三十一 / 叫小红
      if (st.correcting && (/^(?:是|叫|应该是)/.test(c) || /^我是/.test(c) || (corr && !/^我/.test(c)))) {
        const either = /^.{1,8}?而?是(.+)$/.exec(c); // 不是十点是十一点
        const x = either && corr && corr[0] === "不是" ? either[1] : c.replace(/^(?:我是|是|叫|应该是)/, "");
        const base = st.lastClause || (prior ? clean(normalize(prior)) : "");
        const fixed = x && base ? substitute(base, st.lastClause ? st.lastItems : [], x) : undefined;
        if (fixed) {
          const again = st.lastClause ? runRules(fixed, { ...st, items: [], retractions: [] }) : extract(fixed, at).items;
          if (again && again.length) {
            if (st.lastClause) st.items = st.items.filter((i) => st.lastItems.indexOf(i) < 0);
            else for (const old of extract(base, at).items) st.retractions.push({ kind: old.kind, value: old.value });
            emit(st, again);
            st.lastClause = fixed;
            st.lastItems = again;
            continue;
          }
        }
      }
      if (familyName(c, st)) continue;
      const called = relationCalled(c, st);
      if (called) {
        emit(st, called);
        if (called.length) st.member = called[0];
        continue;
      }
      // "明天下午两点，我们去图书馆": a clause that is only a date goes with the next
      if (carry) {
        c = carry + c;
        carry = "";
      }
      // 到时候喊我一声，明天下午两点…: the reminder is for what follows
      const ask = X.REMIND.exec(c);
      if (ask && ask.index === 0 && ask[0].length < c.length) {
        const restOnly = c.slice(ask[0].length);
        const day = scanDateTime(restOnly, st.at).match;
        if (day && day.spans[0][0] === 0 && day.spans[day.spans.length - 1][1] === restOnly.length) {
          st.emphatic = true;
          carry = restOnly;
          continue;
        }
      }
      const alone = scanDateTime(c, st.at).match;
      const rep = scanRepeat(c, st.at);
      if ((alone && alone.spans.length && alone.spans[0][0] === 0 && alone.spans[alone.spans.length - 1][1] === c.length) || (rep && !cut(c, rep.spans))) {
        carry = c;
        continue;
      }
      // the subject left out: the speaker ("我叫杨光，今年十岁") or the member just named ("我妹妹叫朵朵，她三岁")
      if (!/^我/.test(c)) {
        if (/^(?:他|她|它)(?!们)/.test(c) || (!st.selfBefore && st.member && X.RESTORE.test(c))) {
          const m = st.member;
          const note = m ? noteText(c) : undefined;
          if (m && note) addNote(m, note);
          continue;
        }
        if (st.selfBefore && X.RESTORE.test(c)) c = "我" + c;
      }
      // "我不叫小明" / "我不是八岁": retract, and what follows is a correction
      const neg = /^我不(叫|是)(.+)$/.exec(c);
      if (neg) {
        const probe: State = { ...st, items: [], retractions: [] };
        const r = runRules("我" + neg[1] + neg[2], probe);
        if (r) for (const x of r) if (x.kind !== "event" && x.kind !== "schedule") st.retractions.push({ kind: x.kind, value: x.value });
        st.correcting = true;
        st.selfBefore = true;
        st.member = undefined;
        continue;
      }
      const more = st.listKind && !/^我/.test(c) ? listMore(c, st) : undefined;
      if (more) {
        emit(st, more);
        continue;
      }
      const found = runRules(c, st);
      // a like said with a verb: bare things after it join it (我喜欢乐高啊, 画画啊, 还有踢足球)
      if (found && found.length && found.every((f) => f.kind === "like" || f.kind === "dislike")) {
        if (!st.listKind) st.listVerb = "";
        st.listKind = found[0].kind as "like" | "dislike";
      } else if (found && found.length) st.listKind = undefined;
      if (found && found.length) {
        emit(st, found);
        st.lastClause = c;
        st.lastItems = found;
      }
      const fam = found && found.length && found[found.length - 1].kind === "family" && !mentioned(found) ? found[found.length - 1] : undefined;
      if (fam) st.member = fam;
      else if (/^我/.test(c)) st.member = undefined;
      st.selfBefore = /^我(?!们|家)/.test(c) && !fam && (!found || found.length === 0 || found.some((f) => X.SELF_KINDS.indexOf(f.kind) >= 0));
    }
  }
  const out: Extraction = { items: st.items, retractions: st.retractions, cancelPrevious: st.cancelPrevious };
  if (st.forget) out.forget = st.forget;
  if (st.otherSaid) out.other = st.other;
  return out;
}

// What "别记" takes back: the kinds the clause names; everything said in the
// conversation (刚才说的都别记); else what was just said (这个别记).
function forgetKinds(c: string): PendingKind[] | "all" | "last" {
  const k: PendingKind[] = [];
  if (/名字|叫什么|姓名/.test(c)) k.push(/[他她]/.test(c) ? "family" : "name");
  if (/年龄|几岁|岁数/.test(c)) k.push("age");
  if (/住哪|住在哪|住址|地址|住的地方|家在哪/.test(c)) k.push("location");
  if (/生日/.test(c)) k.push("birthday");
  if (/学校|年级|工作|单位/.test(c)) k.push("fact");
  return k.length ? k : /都|全部|所有|一切|今天说的/.test(c) ? "all" : "last";
}

// An item as the labelled set writes it: the value, with the date (and time)
// in front for events and schedules.
export function label(e: Extracted): string {
  if (e.kind === "schedule" && e.when !== undefined) return `${formatDateTime(e.when)} ${e.value}${e.repeat ? " @" + e.repeat : ""}`;
  if (e.kind === "event" && e.when !== undefined) return e.tag === "yearly" ? `${formatDate(e.when).slice(5)} ${e.value}` : `${formatDate(e.when)} ${e.value}`;
  return e.value;
}

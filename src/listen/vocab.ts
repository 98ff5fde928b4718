// The listener's vocabularies and patterns (src/listen/extract.ts is the
// engine that reads them): relations and what they are called, names and
// places, occupations, adverbs and negations, the openers that cut speech
// into clauses, recognition slips and dialect words, what makes a clause a
// hedge, a joke, a story or a secret, the patterns of each kind of statement,
// and the facts said in a fixed form (X.FACTS) as [pattern, fact] rows.
// Adding a word is editing a table here; `npm run eval:extract` measures it.
//
// Device: every table is plain frozen data built at the top level (preloadable),
// no module state changes after load, no Unicode property escapes, no locale API.

import type { PendingKind } from "../memory/types";
import { NUM } from "./dates";

// A fact said in a fixed form: the clause matches `re`, each [group, pattern]
// of `not` does not match that group and `need` does; then the fact is `fact`
// with $1… replaced by the groups (the last with its end particles dropped
// when `strip`). A row with `special` names a handler of the engine instead
// (src/listen/extract.ts fact()): what a template cannot say.
export interface FactRow {
  re: RegExp;
  fact?: string;
  strip?: true;
  not?: readonly (readonly [number, RegExp])[];
  need?: readonly [number, RegExp];
  special?: "grade" | "my_x_is" | "occupation";
}

// Where a new clause starts inside unpunctuated speech (src/listen/extract.ts segment()).
export interface Opener {
  word: string;
  glue: string; // characters before it that keep it in the same clause
}

// The module's tables and patterns as static fields of one class: one
// top-level binding instead of one each (the XS test lane bundles every module
// into one function, whose locals all sit on the 1024-slot XS stack).
export class X {
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
  static RE_MAJOR = /^我(?:(?:的|学的)?专业是|学的是)(.{2,10})$/;
  static RE_TEACHER = /^我(?:们|的)((?:[\u4e00-\u9fa5]{0,2}老师|班主任|校长|辅导员)(?:姓|是|叫).{1,4})$/;
  // 我的幸运颜色是红色, 我的外号叫小胖 (not the name), 我的爱好是画画 (a like); never numbers to reach them by
  static RE_MY_X_IS = /^我的(幸运[\u4e00-\u9fa5]{1,3}|星座|偶像|外号|小名|绰号|昵称|血型|属相|座右铭|口头禅|爱好|兴趣|兴趣爱好|特长|老家|母校)(?:是|叫)(.{1,12})$/;
  static RE_CANNOT = /^我(?:不能|不可以|不敢)(吃|喝)(.{1,6})$/;
  static RE_SELF_IS = /^我是(?:个|一个)?(近视眼|近视|远视|独生子|独生女|素食主义者|吃素的|左撇子|夜猫子|路痴|色盲|过敏体质|糖尿病人|孕妇|退休老人|单亲妈妈|单亲爸爸)$/;
  static RE_HAS_CONDITION = /^我有(高血压|糖尿病|近视|哮喘|心脏病|鼻炎|过敏性鼻炎|胃病|失眠|颈椎病|腰椎间盘突出|痛风|贫血|低血糖|高血脂)$/;
  static RE_SKILL = /^我(?:已经)?会(.{2,8})$/;
  static RE_DREAM = /^我的梦想是(.{2,12})$/;
  static RE_GROW_UP = /^我长大(?:以后|后|了)?(想|要)(当|做|成为)(.{1,8})$/;
  static RE_STATUS = /^我(?:现在|已经|刚|刚刚)*(退休|毕业|结婚|离婚|失业)了?$/;
  static RE_JOB_HUNT = /^我(?:刚|刚刚)?(?:在)?(找工作)$/;
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
  static PRONOUNS = /[你他她它这那]/;
  // The facts about the speaker said in a fixed form, in the order they are
  // tried (the first row that matches and passes its checks gives the fact).
  static FACTS: readonly FactRow[] = Object.freeze(
    [
      { re: X.RE_ALLERGY, fact: "主人对$1过敏", not: [[1, X.OBJECT_STOP]] },
      { re: X.RE_ZODIAC, fact: "主人属$1" },
      { re: X.RE_BLOOD, fact: "主人是$1型血" },
      { re: X.RE_GRADE, special: "grade" },
      { re: X.RE_STUDY, fact: "主人在$1$2", not: [[1, X.PRONOUNS]] },
      { re: X.RE_WORK_AS, fact: "主人在$1$2$3", strip: true, not: [[1, X.PRONOUNS], [3, /^[了着过]/]] },
      { re: X.RE_DO_JOB, fact: "主人做$1" },
      { re: X.RE_JOB_IS, fact: "主人的工作是$1", strip: true },
      { re: X.RE_MAJOR, fact: "主人学的专业是$1", strip: true },
      { re: X.RE_TEACHER, fact: "主人的$1" },
      { re: X.RE_STATUS, fact: "主人$1了" },
      { re: X.RE_JOB_HUNT, fact: "主人在$1" },
      { re: X.RE_MY_X_IS, special: "my_x_is" },
      { re: X.RE_CANNOT, fact: "主人不能$1$2", strip: true, not: [[2, X.OBJECT_STOP]] },
      { re: X.RE_SELF_IS, fact: "主人是$1" },
      { re: X.RE_HAS_CONDITION, fact: "主人有$1" },
      { re: X.RE_SKILL, fact: "主人会$1", need: [1, X.SKILLS], not: [[1, /[的了吗呢]$/]] },
      { re: X.RE_DREAM, fact: "主人的梦想是$1", strip: true, not: [[1, /[你他她它]/]] },
      { re: X.RE_GROW_UP, fact: "主人长大$1$2$3", strip: true },
      { re: X.RE_OCCUPATION, special: "occupation" },
    ].map((r) => Object.freeze(r) as FactRow),
  );
}

// the kind of member a relation is (a family record's member_type)
export const MEMBER_TYPE: Readonly<Record<string, "family" | "relative" | "friend" | "pet">> = Object.freeze({
  妈妈: "family", 爸爸: "family", 爷爷: "family", 奶奶: "family", 外公: "family", 外婆: "family", 哥哥: "family", 弟弟: "family", 姐姐: "family",
  父母: "family", 老伴: "family", 妹妹: "family", 老公: "family", 老婆: "family", 儿子: "family", 女儿: "family", 孙子: "family", 孙女: "family",
  叔叔: "relative", 阿姨: "relative", 舅舅: "relative", 舅妈: "relative", 姑姑: "relative", 姑父: "relative", 小姨: "relative", 姨妈: "relative",
  伯伯: "relative", 表哥: "relative", 表姐: "relative", 表弟: "relative", 表妹: "relative", 堂哥: "relative", 堂姐: "relative", 堂弟: "relative", 堂妹: "relative",
  朋友: "friend", 闺蜜: "friend", 同桌: "friend", 同学: "friend", 室友: "friend", 同事: "friend", 女朋友: "friend", 男朋友: "friend",
  狗: "pet", 猫: "pet", 兔子: "pet", 仓鼠: "pet", 乌龟: "pet", 鹦鹉: "pet", 金鱼: "pet", 鸟: "pet",
  孩子: "family", 外孙: "family", 外孙女: "family", 儿媳: "family", 女婿: "family",
});





// A year in the life of 林小雨 (8, Hangzhou), as her pet would hear and be
// told it: what `petmem demo` writes, month by month, through the device's
// own paths (the tool as the AI calls it, conversations through the
// listener). Plain data: the demo's engine is desktop/commands/demo.ts.

export type Call = Record<string, unknown>;

// Said once, in the first month.
export const FIRST: Call[] = [
  { action: "write", type: "name", content: "林小雨" },
  { action: "write", type: "age", content: "8" },
  { action: "write", type: "gender", content: "女" },
  { action: "write", type: "location", content: "杭州" },
  { action: "write", type: "birthday", content: "05-20" },
  { action: "write", type: "family", relation: "妈妈", name: "李娟", closeness: 5, memory: "每天晚上给小雨讲故事" },
  { action: "write", type: "family", relation: "爸爸", name: "林强", closeness: 5, memory: "周末带小雨去骑车" },
  { action: "write", type: "family", relation: "奶奶", name: "王秀英", closeness: 4, memory: "做的糖醋排骨最好吃" },
  { action: "write", type: "family", relation: "宠物", name: "咪咪", member_type: "pet", memory: "一只橘猫，三岁" },
  { action: "write", type: "family", relation: "好朋友", name: "陈可可", member_type: "friend", memory: "同桌，一起学画画" },
  { action: "write", type: "like", content: "画画" },
  { action: "write", type: "like", content: "恐龙" },
  { action: "write", type: "like", content: "草莓" },
  { action: "write", type: "like", content: "喜羊羊" },
  { action: "write", type: "dislike", content: "香菜" },
  { action: "write", type: "dislike", content: "打针" },
  { action: "write", type: "trait", content: "personality:好奇心强，爱问为什么" },
  { action: "write", type: "trait", content: "ability:画画很有想象力" },
  { action: "write", type: "habit", content: "睡前看绘本:daily" },
  { action: "write", type: "goal", content: "学会游泳", priority: 4, progress: 10 },
  { action: "write", type: "event", content: "05-20:birthday:小雨的生日" },
  { action: "write", type: "event", content: "09-12:birthday:妈妈的生日" },
  { action: "write", type: "schedule", content: "钢琴课", datetime: "{first} 16:30", repeat: "weekly", priority: 3, duration: 60 },
];

// Facts, one a line: a few each month, each month its own.
export const FACTS: string[][] = [
  ["小雨在读小学二年级", "小雨的班主任是张老师", "小雨对花生过敏", "咪咪喜欢趴在小雨的书桌上睡觉"],
  ["小雨寒假去了奶奶家", "小雨和爸爸一起堆了雪人", "小雨学会了系鞋带"],
  ["小雨开学了，换了新同桌陈可可", "小雨参加了学校的绘画兴趣班", "咪咪打了疫苗"],
  ["小雨和妈妈去西湖边放风筝", "小雨种了一盆向日葵", "小雨的门牙掉了一颗"],
  ["小雨过了八岁生日，收到一套恐龙模型", "小雨的画在学校展览了", "小雨开始学游泳"],
  ["小雨数学考了九十五分", "小雨和可可吵架又和好了", "小雨在游泳课上学会了憋气"],
  ["小雨放暑假了", "小雨和爸爸妈妈去青岛看海", "小雨在海边捡了很多贝壳"],
  ["小雨去了自然博物馆看恐龙化石", "小雨学会了自由泳", "咪咪生病了，带它去看了兽医"],
  ["小雨升上了三年级", "小雨当上了班里的小组长", "妈妈过生日，小雨画了一张贺卡"],
  ["国庆节小雨去了上海迪士尼", "小雨开始学写毛笔字", "咪咪的病好了"],
  ["小雨感冒了，请了两天假", "小雨读完了《夏洛的网》", "小雨在钢琴比赛里弹了《小星星变奏曲》"],
  ["小雨说想养一只小狗", "小雨在学校合唱团唱歌", "小雨期末复习很认真"],
];

// Moments: topic, what happened, how it felt.
export const MOMENTS: [string, string, string][][] = [
  [["新年", "和爸爸妈妈一起看烟花", "happy"]],
  [["下雪", "第一次堆雪人，鼻子冻红了", "excited"]],
  [["开学", "第一天有点紧张，后来交到了朋友", "worried"]],
  [["春游", "风筝飞得好高", "happy"]],
  [["生日", "吹蜡烛的时候许了愿", "happy"]],
  [["吵架", "和可可吵架哭了，第二天一起道歉", "sad"]],
  [["看海", "第一次看到大海，浪花打湿了裙子", "excited"]],
  [["咪咪生病", "担心咪咪，一直守在旁边", "worried"]],
  [["当组长", "被老师表扬，很自豪", "happy"]],
  [["迪士尼", "看了烟花表演，累得在车上睡着了", "happy"]],
  [["比赛", "上台前手心出汗，弹完大家都鼓掌", "happy"]],
  [["合唱", "穿上演出服唱歌", "happy"]],
];

// Episodes, as the AI writes them after a conversation: content, scores, keywords,
// emotion. The lasting ones (p = 1: a lasting like, an illness, a first) are core
// and never forgotten; the others fade by the seed's formula unless recalled.
export const EPISODES: [string, number, number, number, number, string, string][][] = [
  [["小雨给咪咪画了一幅画，说咪咪是世界上最可爱的猫", 0.5, 0.5, 0.6, 0.6, "咪咪,画画,猫", "happy"]],
  [["小雨和奶奶一起包饺子，包了一个有硬币的饺子", 0.6, 0.5, 0.3, 0.6, "奶奶,饺子,寒假", "happy"]],
  [["小雨说新同桌陈可可也喜欢画画，她们约好一起参加比赛", 0.5, 0.6, 0.5, 0.6, "陈可可,同桌,画画", "happy"]],
  [["小雨在西湖边放风筝，风筝挂到了树上，爸爸帮她取了下来", 0.5, 0.5, 0.2, 0.5, "风筝,西湖,爸爸", "excited"]],
  [["小雨过生日收到恐龙模型，她说最喜欢霸王龙", 0.7, 0.6, 1, 0.7, "生日,恐龙,霸王龙", "happy"]],
  [["小雨和陈可可吵架了，哭着说再也不和她玩了，第二天又和好了", 0.8, 0.5, 0.3, 0.7, "陈可可,吵架,和好", "sad"]],
  [["小雨在青岛第一次看到大海，捡了一袋贝壳要送给可可", 0.8, 0.6, 1, 0.8, "大海,青岛,贝壳", "excited"]],
  [["咪咪生病了，小雨很担心，和妈妈一起带它去看了兽医", 0.8, 0.6, 1, 0.8, "咪咪,生病,兽医", "worried"]],
  [["小雨当上小组长，说要帮同学们收作业", 0.6, 0.5, 0.5, 0.6, "小组长,三年级,作业", "happy"]],
  [["小雨在迪士尼看烟花，说下次要带奶奶一起去", 0.7, 0.5, 0.3, 0.6, "迪士尼,烟花,奶奶", "happy"]],
  [["小雨钢琴比赛前很紧张，弹完以后说自己一点都不怕了", 0.7, 0.6, 0.5, 0.7, "钢琴,比赛,紧张", "happy"]],
  [["小雨说想养一只小狗，妈妈说要等她学会照顾咪咪", 0.5, 0.6, 0.5, 0.6, "小狗,咪咪,妈妈", "happy"]],
];

// A conversation the pet hears in some months: user and assistant lines.
export const CONVERSATIONS: Record<number, [string, string][]> = {
  2: [
    ["assistant", "小雨今天在学校怎么样？"],
    ["user", "挺好的 我们班来了个新老师 教美术的 姓刘"],
    ["assistant", "刘老师教美术呀，你喜欢她吗？"],
    ["user", "喜欢 她说我画的恐龙很像"],
  ],
  6: [
    ["user", "我最近迷上了乐高 每天都要搭一会儿"],
    ["assistant", "乐高好玩！你搭了什么？"],
    ["user", "搭了一个城堡 还有一艘船"],
  ],
  10: [
    ["user", "我不喜欢吃胡萝卜"],
    ["assistant", "那以后不让你吃胡萝卜啦"],
    ["user", "拜拜"],
    ["assistant", "拜拜小雨"],
  ],
};

// Due soon after the demo ends (minutes from now), so reminders can be seen.
export const SOON: Call[] = [
  { action: "write", type: "schedule", content: "给咪咪喂药", datetime: "+20", priority: 4, duration: 10 },
  { action: "write", type: "schedule", content: "和妈妈去图书馆还书", datetime: "+150", priority: 3, duration: 60 },
  { action: "write", type: "schedule", content: "游泳课", datetime: "+1500", priority: 3, duration: 90 },
];

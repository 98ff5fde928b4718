// The held-out pool of tools/recall-eval/lives.ts (issue 25 item 4): other
// owners, places, pets, friends, hobbies and phrasings than the tuning pool's,
// committed before any tuning of the retrieval and not looked at while tuning.
import type { Pool } from "./lives";

export const HELD_OUT: Pool = {
  owners: [{ name: "林小雨", gender: "女" }, { name: "高志远", gender: "男" }, { name: "何雪", gender: "女" }, { name: "马超", gender: "男" }, { name: "罗佳琪", gender: "女" }, { name: "唐宇", gender: "男" }, { name: "许晴", gender: "女" }, { name: "韩冬", gender: "男" }],
  places: ["厦门", "昆明", "大连", "合肥", "贵阳", "哈尔滨", "福州"],
  pets: [
    { kind: "猫", word: "小猫", name: "花花", breed: "狸花猫", ill: "打喷嚏", vet: "医生" },
    { kind: "狗", word: "狗", name: "大黄", breed: "土狗", ill: "被蜜蜂蛰了", vet: "宠物医院" },
    { kind: "仓鼠", word: "仓鼠", name: "团子", breed: "金丝熊", ill: "牙齿太长了", vet: "兽医" },
    { kind: "猫", word: "猫猫", name: "奶茶", breed: "布偶猫", ill: "呕吐", vet: "宠物医院" },
  ],
  moms: ["周慧", "黄玉兰", "郭敏", "徐静"],
  dads: ["林国栋", "高建华", "何志明", "马德"],
  friends: [["小杰", "小洁"], ["阿华", "阿花"], ["小燕", "小艳"], ["老王", "老汪"]],
  likes: [["西瓜", "夏天我最爱吃的水果是啥"], ["羽毛球", "我平时爱打什么球"], ["乐高", "我最喜欢玩什么玩具"], ["广场舞", "我傍晚爱去跳什么"], ["饺子", "我最爱吃的是什么"]],
  dislikes: ["蚊子", "洋葱", "坐飞机", "考试"],
  allergies: ["鸡蛋", "青霉素", "猫毛", "虾"],
  trips: [{ where: "植物园", did: "看郁金香" }, { where: "水库", did: "放风筝" }, { where: "古镇", did: "吃小吃" }, { where: "草原", did: "骑马" }],
  schedules: [{ what: "去社区医院量血压", ask: "量血压" }, { what: "参加钢琴考级", ask: "钢琴考级" }, { what: "去驾校练车", ask: "练车" }, { what: "交水电费", ask: "水电费" }],
  paraphrases: [
    { stored: "主人的孩子下周要考试，有点紧张", ask: "小朋友测验准备得怎么样了", kw: "测验", marker: "考试" },
    { stored: "主人最近牙疼，去医院拔了智齿", ask: "我上回看牙医是怎么回事", kw: "牙医", marker: "智齿" },
    { stored: "主人的橘猫特别能吃，胖了两斤", ask: "我家猫咪是不是又长胖了", kw: "猫咪", marker: "胖了两斤" },
    { stored: "主人在控制体重，晚饭只吃沙拉", ask: "我减肥的时候晚上吃什么", kw: "减肥", marker: "沙拉" },
    { stored: "主人的狗狗会握手和坐下", ask: "我家狗会什么本领", kw: "狗", marker: "握手" },
  ],
  habits: [
    { stored: "每天中午午睡二十分钟", ask: "我中午一般干嘛", kw: "中午", marker: "午睡" },
    { stored: "每周六去菜市场买菜", ask: "周六我一般会去哪里", kw: "周六", marker: "菜市场" },
  ],
  goals: [
    { stored: "明年跑完一次半程马拉松", ask: "我明年想跑多远来着", kw: "马拉松", marker: "半程马拉松" },
    { stored: "学会用智能手机视频聊天", ask: "我想学手机上的什么功能", kw: "手机", marker: "视频聊天" },
  ],
  absent: [
    { ask: "我姐姐在哪个城市上班", kw: "姐姐", bad: ["周慧", "黄玉兰", "郭敏", "徐静"] },
    { ask: "我上次去北京看了什么", kw: "北京", bad: ["看郁金香", "放风筝", "吃小吃", "骑马"] },
    { ask: "我家的金鱼还活着吗", kw: "金鱼", bad: ["花花", "大黄", "团子", "奶茶"] },
    { ask: "我的摩托车修好了吗", kw: "摩托车", bad: ["练车"] },
    { ask: "我女朋友喜欢什么花", kw: "女朋友", bad: ["郁金香"] },
  ],
  ask: {
    petHow: ["{name}现在好些了没", "{name}的病好了吗", "{name}这几天怎么样"],
    birthday: ["我的生日你记得是几号吗", "我是几月几号生的", "我生日什么时候"],
    age: ["你猜我多少岁了", "我多大年纪了你记得吗", "我今年多大"],
    where: ["我是哪里人来着", "我住的城市是哪", "我现在在哪儿住"],
    name: ["我叫什么你还记得吧", "你知道我的名字吗"],
    trip: ["上个月{rel}带我去了哪里", "上个月我和{rel}一起去哪玩的", "上回和{rel}出去是去哪来着"],
    next: ["下{wd}我约了什么事", "{wd}我有啥安排来着", "下{wd}我要干什么"],
    momWork: ["{momName}以前是干嘛的", "{mom}的职业是什么", "你记得{momName}做什么的吗"],
    allergy: ["我对啥过敏你还记得吗", "哪些东西我不能碰", "我过敏的是什么"],
    friendGift: ["{friend}上次送了我什么", "{friend}送的礼物你记得吗", "{friend}给我带过什么"],
    like: [],
  },
};

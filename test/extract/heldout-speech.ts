// The third held-out part (issue 24, format: test/extract/cases.ts): speech in
// the kinds of issue 24's item 1, written the way people talk to a voice pet
// (recogniser output: no punctuation, fillers, restarts, run-ons), committed
// before any rule was changed for issue 24. tools/eval-extract.ts reports it
// on its own lines (`{"part": "held_out_speech", …}` and one line per
// category) and never prints its misses. Reference time: Thursday 2026-02-05
// 13:00, UTC+08:00. One case a line ("#" starts a comment).
const TEXT = `
# what adults say about themselves in passing
passing | 哎呀不跟你聊了我得回去给孩子做饭了 | family=孩子:
passing | 等我遛完狗就回来陪你玩 | family=狗:
passing | 今天又加班到九点累死了 | fact=加班
passing | 我最近在戒糖 奶茶都不敢喝了 | fact=戒糖
passing | 我下班还得去幼儿园接儿子 | family=儿子:
passing | 等我老公回来再说吧 | family=老公:
passing | 昨天带闺女去打疫苗了 她哭得可厉害了 | family=女儿:
passing | 我们家猫又把花盆打翻了 | family=猫:
passing | 最近在学吉他 手指头都磨破了 | fact=学吉他
passing | 我在减肥呢晚上不吃饭 | fact=减肥
passing | 我刚下夜班 困死了 | fact=夜班
passing | 我老婆怀孕了 下个月就生了 | family=老婆:
passing | 我每天开车上班路上要一个小时 | fact=开车上班
passing | 我在备考研究生 天天泡图书馆 | fact=考研
passing | 我儿子今天期末考试 我有点紧张 | family=儿子:; !fact=期末考试
passing | 我刚把女儿哄睡着 | family=女儿:
passing | 我在医院陪我妈呢 她住院了 | family=妈妈:
passing | 我在外卖平台上送外卖 一天跑五十单 | fact=送外卖
passing | 我家两个娃 一个上小学一个上幼儿园 | family=孩子:
passing | 我们家狗子今天又拆家了 | family=狗:
passing | 我上完夜校才回家 | fact=夜校
passing | 我今天好累啊 | !*
passing | 我先去洗个澡 | !*
passing | 我刚吃完饭 | !*
passing | 外面在下雨 我没带伞 | !*
passing | 我出去一下马上回来 | !*
passing | 我等会儿要去超市买点菜 | !fact; !like
passing | 我刚刚看了一部电影 挺好看的 | !fact; !name
# lists and topicalised preferences
lists | 我喜欢看奥特曼还有喜羊羊 | like=奥特曼; like=喜羊羊
lists | A:你平时喜欢玩什么呀 / 乐高啊 画画啊 还有踢足球 | like=乐高; like=画画; like=踢足球
lists | 我喜欢乐高啊画画啊还有踢足球 | like=乐高; like=画画; like=踢足球
lists | 周杰伦的歌我百听不厌 | like=周杰伦
lists | 打羽毛球是我最喜欢的运动 | like=打羽毛球
lists | 吃辣的我最喜欢了 | like=吃辣
lists | 我最近迷上了乐高 | like=乐高
lists | 我对恐龙特别感兴趣 | like=恐龙
lists | 我喜欢画画和小兔子 | like=画画; like=小兔子; !like=画小兔子
lists | 我喜欢吃苹果香蕉还有葡萄 | like=苹果; like=香蕉; like=葡萄
lists | 蓝色是我最喜欢的颜色 | like=蓝色
lists | 篮球足球乒乓球我都喜欢 | like=篮球; like=足球; like=乒乓球
lists | 我不喜欢吃青椒也不喜欢吃茄子 | dislike=青椒; dislike=茄子
lists | 数学和英语我都不喜欢 | dislike=数学; dislike=英语
lists | 我超爱喝可乐的 | like=可乐
lists | 我是周杰伦的铁杆粉丝 | like=周杰伦
lists | 我特别爱吃我妈做的红烧肉 | like=红烧肉
lists | 熊猫是我最爱的动物 | like=熊猫
lists | 我最近在追一个动画片叫汪汪队 | like=汪汪队
lists | 小猪佩奇我看了好多遍都不腻 | like=小猪佩奇
lists | 我喜欢猫 还有狗 还有仓鼠 | like=猫; like=狗; like=仓鼠; !family
lists | 我最讨厌的就是打针和吃药 | dislike=打针; dislike=吃药
lists | 我爱吃的东西可多了 饺子 包子 还有面条 | like=饺子; like=包子; like=面条
lists | 我喜欢下象棋 围棋也喜欢 | like=象棋; like=围棋
lists | 我喜欢的水果有西瓜和草莓 | like=西瓜; like=草莓
lists | 我妈喜欢养花和跳舞 | family=妈妈::养花; !like=养花; !like=跳舞
lists | 我对那些打打杀杀的游戏不感兴趣 | !like
lists | 喜欢的东西太多了说不完 | !*
lists | 你喜欢乐高吗 | !*
lists | 奥特曼和怪兽谁厉害 | !*
# adults and elders
elders | 我退休好几年了 | fact=退休
elders | 我老伴天天早上去公园打太极 | family=老伴::太极; !like=太极
elders | 我孙女在上幼儿园中班 | family=孙女::幼儿园; !fact=中班
elders | 下周三我要去医院做体检 | event=2026-02-11 体检
elders | 我在一家互联网公司当程序员 | fact=程序员
elders | 我们组周五要交方案 这周又要熬夜了 | event=2026-02-06 交方案
elders | 我每天坐地铁上班 单程一个多小时 | fact=地铁
elders | 我有三个孙子 都在外地 | family=孙子:
elders | 我今年六十八了 身体还硬朗 | age=68
elders | 我以前是中学老师 现在退休了 | fact=退休
elders | 我儿子在深圳工作 一年才回来一次 | family=儿子::深圳; !location=深圳
elders | 我跟老伴两个人住 | family=老伴:
elders | 我是做会计的 月底最忙 | fact=会计
elders | 我们老板明天要来检查 | !name; !like; !fact
elders | 我同事小李下周要休产假 | family=同事:小李; !event; !name
elders | 我外孙今年上初中了 | family=外孙:; !fact=初中
elders | 我每天早上六点起来去买菜 | !schedule
elders | 我腿脚不太好 走路要拄拐杖 | fact=腿脚
elders | 我下个月十号退休 | event=2026-03-10 退休
elders | 我在老年大学学书法 | fact=书法
elders | 我一个人在家 孩子们都在外地上班 | family=孩子:
elders | 明天上午九点我要去社区量血压 | schedule=2026-02-06 09:00 量血压
elders | 我们家老头子喜欢下象棋 | family=老伴::象棋; !like=象棋
elders | 我孙子放寒假了天天在我家 | family=孙子:
elders | 我今天去公园遛弯了 | !*
elders | 我们单位下周一开年终总结会 | event=2026-02-09 总结会
# health, allergies, medication
health | 我有高血压 每天早上吃一片降压药 | fact=高血压; schedule=2026-02-06 08:00 降压药 @daily
health | 我对青霉素过敏 | fact=青霉素过敏
health | 我有糖尿病不能吃甜的 | fact=糖尿病
health | 我每天中午十二点半吃胃药 | schedule=2026-02-06 12:30 胃药 @daily
health | 我有哮喘 出门得带喷雾 | fact=哮喘
health | 我乳糖不耐受 喝牛奶会拉肚子 | fact=乳糖不耐受
health | 我感冒了嗓子疼 | !fact
health | 医生让我每天晚上九点吃一粒钙片 | schedule=2026-02-05 21:00 钙片 @daily
health | 我每天早晚各吃一次降糖药 | schedule=2026-02-06 08:00 降糖药 @daily; schedule=2026-02-05 20:00 降糖药 @daily
health | 我吃海鲜过敏 | fact=海鲜过敏
health | 我对猫毛过敏 所以不能养猫 | fact=猫毛过敏; !family
health | 我有痛风 不能喝啤酒 | fact=痛风
health | 我心脏不好 装了支架 | fact=心脏
health | 我一吃花生就浑身起疹子 | fact=花生
health | 我在吃降压药 一天一片 | fact=降压药
health | 我每天晚上睡前要吃安眠药 | fact=安眠药
health | 下周一下午两点我要去医院复查 | schedule=2026-02-09 14:00 复查
health | 我每周三下午去做理疗 | schedule=2026-02-11 15:00 理疗 @weekly
health | 我胃不好 吃不了凉的 | fact=胃
health | 我头好疼啊 | !*
health | 我今天有点发烧 | !fact
health | 我奶奶有高血压 | family=奶奶::高血压; !fact=高血压
health | 我爸对酒精过敏 | family=爸爸::酒精过敏; !fact
health | 每天早上七点提醒我吃药 | schedule=2026-02-06 07:00 吃药 @daily
health | 我近视六百度 | fact=近视
health | 我怀孕五个月了 | fact=怀孕
# dialect and colloquial speech
dialect | 俺叫王大壮 | name=王大壮
dialect | 俺今年六十八了 | age=68
dialect | 我贼喜欢吃锅包肉 | like=锅包肉
dialect | 我老稀罕小狗了 | like=小狗
dialect | 我最喜欢吃火锅噻 | like=火锅
dialect | 我住喺广州 | location=广州
dialect | 我好钟意食叉烧 | like=叉烧
dialect | 我唔钟意落雨 | dislike=落雨
dialect | 咱家住在沈阳 | location=沈阳
dialect | 俺家在河南 | location=河南
dialect | 我整了个新活儿 在物流公司开车 | fact=物流
dialect | 我巨讨厌写作业 | dislike=写作业
dialect | 俺闺女今年十二了 | family=女儿:; !age=12
dialect | 我屋头有个弟娃 | family=弟弟:
dialect | 我住渝北那边噻 | location=渝北
dialect | 我耍得最多的是篮球 | like=篮球
dialect | 我冇兄弟姐妹 | !family
dialect | 我细佬今年读初中 | family=弟弟:; !fact=初中
dialect | 我阿妈好钟意饮茶 | family=妈妈::饮茶; !like=饮茶
dialect | 我老家东北的 贼冷 | fact=东北; !*=贼冷
dialect | 这天儿贼冷 冻死个人 | !*
dialect | 我一天到晚瞎忙活 | !*
dialect | 你咋这么能唠呢 | !*
dialect | 我不稀罕吃香菜 | dislike=香菜
dialect | 俺孙子在城里念书 | family=孙子:
dialect | 我喜欢打麻将咯 | like=麻将
dialect | 我欢喜吃汤圆 | like=汤圆
dialect | 我中意唱K | like=唱K
dialect | 我哋屋企喺深圳 | location=深圳
dialect | 你晓得不 我可喜欢吃串串了 | like=串串
# recognition noise: homophones, dropped or doubled characters, stutters, restarts
noise | 我喜换吃西瓜 | like=西瓜
noise | 我叫王 王梓 王梓轩 | name=王梓轩; !name=王; !name=王梓
noise | 我我我今年十岁 | age=10
noise | 我住在在北京 | location=北京
noise | 我不洗欢吃青菜 | dislike=青菜
noise | 我今年九岁了了 | age=9
noise | 我叫李 那个 李明明 | name=李明明; !name=李
noise | 我的生日是三月 三月八号 | birthday=03-08
noise | 我讨厌厌吃药 | dislike=吃药
noise | 我希欢画画 | like=画画
noise | 我喜欢喜欢踢足球 | like=踢足球
noise | 我家有只猫 猫叫咪咪 | family=猫:咪咪
noise | 我今年七 七岁了 | age=7
noise | 我叫张 张 张一鸣 | name=张一鸣
noise | 我住在杭 杭州 | location=杭州
noise | 我最洗欢的动物是大象 | like=大象
noise | 我最喜欢吃吃冰淇淋 | like=冰淇淋
noise | 我是女 女生 | gender=女
noise | 我妹妹叫 叫朵朵 | family=妹妹:朵朵; !name=朵朵
noise | 我叫刘星 刘星星 | name=刘星星
noise | 嗯嗯嗯那个我叫 我叫周周 | name=周周
noise | 我喜欢 喜欢 嗯 恐龙 | like=恐龙
noise | 我住载上海 | location=上海
noise | 我今年八随 | age=8
noise | 我喜欢吃草梅 | like=草
noise | 喂喂喂能听到吗 | !*
noise | 嗯 啊 那个 就是 | !*
noise | 我我我我 | !*
noise | 我叫 | !*
# spoken numbers, dates, weekly timetables, lunar dates
numbers | 每周二周四下午有钢琴课 | schedule=2026-02-10 15:00 钢琴课 @weekly; schedule=2026-02-05 15:00 钢琴课 @weekly
numbers | 我每周六上午有英语课 | schedule=2026-02-07 10:00 英语课 @weekly
numbers | 下礼拜三下午两点半我要去看牙 | schedule=2026-02-11 14:30 看牙
numbers | 三点一刻提醒我吃药 | schedule=2026-02-05 15:15 吃药
numbers | 我的生日是农历八月十五 | !birthday=08-15; fact=农历八月十五
numbers | 我生日是腊月二十三 | !birthday; fact=腊月二十三
numbers | 正月十五我们要回老家 | !event=01-15; !schedule
numbers | 我妈生日是农历三月初三 | !yearly=03-03; family=妈妈::农历三月初三
numbers | 我今年七十有三了 | age=73
numbers | 我二十五了 | age=25
numbers | 我今年二十啷当岁 | !age
numbers | 明天早上六点四十叫我起床 | schedule=2026-02-06 06:40 起床
numbers | 后天晚上七点半我们去看电影 | schedule=2026-02-07 19:30 看电影
numbers | 下个月三号我要去北京出差 | event=2026-03-03 出差
numbers | 我每周一和周三晚上七点有篮球训练 | schedule=2026-02-09 19:00 篮球训练 @weekly; schedule=2026-02-11 19:00 篮球训练 @weekly
numbers | 我生日是二月十四号 | birthday=02-14
numbers | 我是九月初一生的 | !birthday=09-01; fact=九月初一
numbers | 我生日在阴历十月 | !birthday
numbers | 半个小时以后提醒我收衣服 | schedule=2026-02-05 13:30 收衣服
numbers | 下下周五我要考试 | event=2026-02-20 考试
numbers | 周日下午三点半带孩子去上游泳课 | schedule=2026-02-08 15:30 游泳课
numbers | 我每周三周五下午四点有舞蹈课 | schedule=2026-02-11 16:00 舞蹈课 @weekly; schedule=2026-02-06 16:00 舞蹈课 @weekly
numbers | 三月八号是我妈的生日 | yearly=03-08 妈妈
numbers | 除夕我们全家要去奶奶家 | !event; !schedule
numbers | 中秋节我要回老家 | !event=08-15
numbers | 农历六月初六是我奶奶的生日 | !yearly=06-06; family=奶奶::六月初六
numbers | 我都四十好几了 | !age
numbers | 我一九八五年出生的 | !birthday
# naming the pet
petname | 以后你就叫豆豆吧 | !name=豆豆; !family
petname | 我给你取个名字叫小白好不好 | !name=小白
petname | 你的名字叫旺财 | !name=旺财
petname | 从今天起你叫小乖 | !name=小乖
petname | 我叫你咪咪好不好 | !name=咪咪
petname | 我要叫你小可爱 | !name=小可爱
petname | 你就叫团团吧我叫圆圆 | name=圆圆; !name=团团
petname | 我叫乐乐 你叫欢欢 | name=乐乐; !name=欢欢
petname | 小白小白你在吗 | !*
petname | 豆豆你今天开心吗 | !*
petname | 我想给你起名叫花花 | !name=花花
petname | A:你想给我取个什么名字呀 / 叫皮皮吧 | !name=皮皮
petname | A:你想叫我什么 / 就叫你可乐 | !name=可乐; !like=可乐
petname | 我叫你大黄吧 | !name=大黄
petname | 我的小机器人叫嘟嘟 | !name=嘟嘟
petname | 你叫毛毛 我是你的主人 | !name=毛毛
petname | A:我还没有名字呢 你给我起一个吧 / 那你叫星星吧 | !name=星星
petname | A:你叫什么名字呀 / 我叫童童 你就叫彤彤吧 | name=童童; !name=彤彤
petname | 你以后的名字就是元宝 | !name=元宝
# retractions and privacy
retract | 我叫张小凡 / 哎这个别记 | !name=张小凡
retract | 我住在幸福小区 算了这个别记了 | !location
retract | 我今年十岁 / 刚才说错了 忘掉吧 | !age=10
retract | 我喜欢隔壁班的小红 你别记下来 | !like=小红
retract | 我喜欢吃榴莲 / 当我没说 | !like=榴莲
retract | 我妈妈在医院上班 / 这个不要记哦 | !*=医院
retract | 我的生日是五月一号 / 删掉删掉 别记 | !birthday
retract | 我有点怕黑 这个是秘密 别记住 | !dislike=黑
retract | 我叫王刚 / 不对 你把我名字忘了吧 | !name=王刚
retract | 明天下午三点我要去游泳 / 算了不去了 | !schedule
retract | 提醒我明天早上七点起床 / 哦不用了 取消吧 | !schedule
retract | 我喜欢画画 / 不要记这个 | !like=画画
retract | 我在二小上四年级 / 你别记我学校 | !fact=二小
retract | 我爸叫李国强 你别记他名字 | !family=爸爸:李国强
retract | 我住在南京 / 呃刚才那个不算 | !location=南京
retract | 我讨厌我同桌 不许记 | !*=同桌
retract | 我今年三十五了 / 忘了它吧 | !age=35
retract | 我喜欢打游戏 / 这个别告诉我妈也别记 | !like=打游戏
retract | 我叫陈晨 今年九岁 / 名字别记 年龄可以记 | age=9; !name=陈晨
retract | 我喜欢游泳 / 我刚才说的是我同学 不是我 | !like=游泳
retract | 我喜欢吃苹果 / 别记了 | !like=苹果
retract | 我叫林林 / 你记住了吗 | name=林林
retract | 我喜欢猫 / 我说的都是真的 | like=猫
retract | 我住在成都 // 你把我住哪忘掉吧 | !location=成都
# several speakers
speakers | 我叫小明 / 这是我爸爸 他叫王刚 他喜欢钓鱼 | name=小明; family=爸爸:王刚; !like=钓鱼; !name=王刚
speakers | 我是朵朵妈妈 我女儿朵朵今年六岁 | family=女儿:朵朵; !age=6; !name=朵朵
speakers | 我是乐乐的爸爸 我叫李强 / 乐乐你自己跟它说 / 我叫乐乐我五岁了 | name=乐乐; age=5; !name=李强
speakers | 奶奶你跟它说两句 / 你好呀小家伙我是他奶奶 我今年七十了 | !age=70
speakers | 我叫朵朵 / 我是她哥哥 我叫天天 我十岁 | name=朵朵; !name=天天; !age=10
speakers | 我弟弟说他最喜欢奥特曼 | !like=奥特曼
speakers | 我同学叫张浩 他住在我家楼下 他喜欢踢球 | family=同学:张浩; !like=踢球; !location; !name=张浩
speakers | 我和我哥都喜欢打篮球 | like=打篮球
speakers | 我哥喜欢打篮球 我喜欢游泳 | like=游泳; !like=篮球
speakers | 我老婆喜欢吃辣 我不太能吃辣 | family=老婆:; !like=吃辣
speakers | 我爸今年四十二 我妈三十九 | family=爸爸:; family=妈妈:; !age
speakers | 这是我同桌 她叫小美 | family=同桌:小美; !name=小美
speakers | 我姐姐在北京上大学 我在老家上初中 | family=姐姐::北京; !location=北京; fact=初中
speakers | 我叫李雷 我同桌叫韩梅梅 她今年十一岁 | name=李雷; family=同桌:韩梅梅; !age=11
speakers | 宝宝快跟小狗狗说你叫什么名字 / 我叫豆豆 | name=豆豆; !family
speakers | 我们家有四口人 爸爸妈妈姐姐和我 | family=爸爸:; family=妈妈:; family=姐姐:
speakers | 我表哥说他下周要结婚 | !event; !schedule
speakers | 我朋友小王住在上海 我住在苏州 | location=苏州; !location=上海
speakers | 她叫小花 是我邻居家的妹妹 | !name=小花
speakers | 我奶奶七十五岁了 她喜欢看戏 | family=奶奶::看戏; !age=75; !like=看戏
speakers | 妈妈你来跟它说 / 你好 我是孩子的妈妈 我们家住在武汉 | location=武汉; !name
# short answers to the pet's own question
answers | A:你几岁啦 / 八岁 | age=8
answers | A:你今年多大了呀 / 嗯 十一 | age=11
answers | A:你叫什么名字呀 / 我 我叫小雨 | name=小雨
answers | A:你叫什么名字 / 陈一一 | name=陈一一
answers | A:你最喜欢什么动物呀 / 熊猫吧 | like=熊猫
answers | A:你住在哪里呀 / 成都 | location=成都
answers | A:你有没有兄弟姐妹呀 / 有一个弟弟 | family=弟弟:
answers | A:你喜欢吃什么呀 / 火锅 还有烤鸭 | like=火锅; like=烤鸭
answers | A:你的生日是哪天呀 / 五月二十号 | birthday=05-20
answers | A:你是男孩还是女孩呀 / 男孩子 | gender=男
answers | A:你上几年级啦 / 四年级 | fact=四年级
answers | A:你今天开心吗 / 开心 | !*
answers | A:你想听故事吗 / 想 | !*
answers | A:你喜欢下雨天吗 / 不喜欢 | dislike=下雨
answers | A:你喜欢小猫吗 / 喜欢 | like=小猫
answers | A:你做什么工作的呀 / 开出租的 | fact=出租
answers | A:你有宠物吗 / 有 一只狗 叫旺财 | family=狗:旺财
answers | A:你最讨厌吃什么 / 香菜 | dislike=香菜
answers | A:你是哪里人呀 / 山东的 | location=山东
answers | A:你喜欢什么颜色 / 粉色和紫色 | like=粉色; like=紫色
answers | A:你吃饭了吗 / 吃了 | !*
answers | A:你几岁啦 / 你猜 | !*
answers | A:你叫什么名字 / 不告诉你 | !*
answers | A:你最喜欢哪个动画片 / 汪汪队立大功 | like=汪汪队
answers | A:你平时喜欢做什么呀 / 看书 | like=看书
answers | A:你害怕什么呀 / 打雷 | dislike=打雷
answers | A:你在哪个学校上学呀 / 实验小学 | fact=实验小学
answers | A:今天过得怎么样 / 还行吧 | !*
answers | A:你想吃什么 / 想吃冰淇淋 | !like
answers | A:你喜欢运动吗 / 喜欢啊 我喜欢跑步 | like=跑步
# stories read aloud, cartoons quoted, role-play, songs
stories | 从前有一只小兔子它最喜欢吃胡萝卜 | !*
stories | 我是孙悟空 俺老孙来也 | !*
stories | 我们来玩过家家 我是妈妈你是宝宝 | !*
stories | 我是一只小小小小鸟 想要飞呀飞却飞也飞不高 | !*
stories | 小白兔白又白两只耳朵竖起来 爱吃萝卜爱吃菜 | !*
stories | 灰太狼说我一定会回来的 | !*
stories | 我是奥特曼 我要打败怪兽 | !*
stories | 你当公主我当王子 我住在城堡里 | !*
stories | 老师让我们背课文 我爱北京天安门 | !*
stories | 我念给你听啊 小明今年八岁 他喜欢踢足球 | !*
stories | 故事里的小猪叫佩奇 她有一个弟弟叫乔治 | !*
stories | 我们玩角色扮演吧 我是医生你是病人 | !*
stories | 世上只有妈妈好 有妈的孩子像块宝 | !*
stories | 我是一个粉刷匠 粉刷本领强 | !*
stories | 熊大说 我最喜欢吃蜂蜜了 | !*
stories | 假装我是老师 今天我们上数学课 | !*
stories | 电视里那个人说他叫张三 | !*
stories | 我在读一本书 主人公叫哈利波特 他住在女贝街 | !name; !location
stories | 两只老虎两只老虎跑得快 | !*
stories | 我演的是大灰狼 我要吃掉小红帽 | !*
stories | 白雪公主说魔镜魔镜谁是世界上最美的人 | !*
stories | 我给你唱首歌吧 我的好妈妈下班回到家 | !*
# secrets said aloud
secrets | 我的银行卡密码是六个八 | !*=888888; !*=六个八; !*=密码
secrets | 我家wifi密码是abc12345 | !*=abc12345
secrets | 我身份证号是110101199001011234 | !*=110101199001011234
secrets | 我电话是13812345678 | !*=13812345678
secrets | 我手机号一三八一二三四五六七八 | !*=一三八; !*=13812345678
secrets | 我家住在幸福路八号院三单元502 | !*=502; !*=幸福路
secrets | 我住在杭州西湖区文三路88号2单元301 | !*=301; !*=文三路
secrets | 我的qq密码是woaini520 | !*=woaini520
secrets | 我支付宝密码是一二三四五六 | !*=123456; !*=一二三四五六
secrets | 门锁密码是七七八八 | !*=7788; !*=七七八八
secrets | 我跟你说个秘密 我偷偷藏了一百块钱在枕头底下 | !*=枕头
secrets | 我的秘密是我喜欢我们班的小刚 | !*=小刚
secrets | 我银行卡号是6222020200012345678 | !*=6222020200012345678
secrets | 我的验证码是四七三九 | !*=4739; !*=四七三九
secrets | 我家钥匙放在门口地毯下面 | !*=地毯
secrets | 我车牌号是京A12345 | !*=A12345
secrets | 我爸电话是一三九零零一二三四五六 | !*=139; !*=一三九
secrets | 我叫王小明 我的密码是wxm2015 | name=王小明; !*=wxm2015
secrets | 我的学号是二零二三零一零五 | !*=20230105; !*=二零二三
secrets | 这是我们俩的小秘密哦 我偷吃了妹妹的糖 | !*=糖
# chit-chat: nothing to keep
chitchat | 今天天气真好 | !*
chitchat | 我饿了 | !*
chitchat | 我好困啊想睡觉 | !*
chitchat | 你是谁呀 | !*
chitchat | 你喜欢我吗 | !*
chitchat | 给我讲个故事吧 | !*
chitchat | 我们来玩游戏吧 | !*
chitchat | 哈哈哈哈哈 | !*
chitchat | 嗯嗯好的 | !*
chitchat | 不知道 | !*
chitchat | 你会唱歌吗 唱一个 | !*
chitchat | 我今天考试考砸了 好难过 | !*
chitchat | 我想喝水 | !*
chitchat | 我要去上厕所 | !*
chitchat | 你猜我几岁 | !*
chitchat | 你觉得我叫什么名字好听 | !*
chitchat | 我是不是很聪明 | !*
chitchat | 好无聊啊 | !*
chitchat | 我刚才在看电视 | !*
chitchat | 讲个笑话 | !*
chitchat | 我喜欢你 | !*
chitchat | 我爱你 | !*
chitchat | 你真笨 | !*
chitchat | 帮我算一下三加五等于几 | !*
chitchat | 我现在在车上 | !*
chitchat | 我跟我妈吵架了 | !fact; !like
`;

export const HELD_OUT_SPEECH: readonly string[] = Object.freeze(
  TEXT.split("\n")
    .map((l) => l.trim())
    .filter((l) => l && l.charAt(0) !== "#"),
);

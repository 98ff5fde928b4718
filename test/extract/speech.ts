// The development part of the speech set (format: test/extract/cases.ts):
// utterances and short dialogues as a speech recogniser delivers them, no
// punctuation, spoken numbers, fillers. Reference time: Thursday 2026-02-05
// 13:00, UTC+08:00. The held-out fifth is in heldout.ts.
// One case a line ("#" starts a comment): a string, not an array literal of
// hundreds of elements, which XS builds on its stack (the device's 1024 slots
// overflowed loading the test lane's bundle).
const TEXT = `
# ---- plain statements as people say them
plain | 我叫王小明 | name=王小明
plain | 我的名字叫林小雨 | name=林小雨
plain | 大家都叫我胖虎 | !name
plain | 我今年八岁 | age=8
plain | 我是女生 | gender=女
plain | 我住在南京 | location=南京
plain | 我家在青岛 | location=青岛
plain | 我喜欢恐龙 | like=恐龙
plain | 我讨厌打针 | dislike=打针
plain | 我不喜欢吃香菜 | dislike=香菜
plain | 我的生日是十月一号 | birthday=10-01
plain | 我对花生过敏 | fact=花生过敏
plain | 我属虎 | fact=属虎
plain | 我是A型血 | fact=A型血
plain | 我会弹吉他 | fact=弹吉他
plain | 我的梦想是当宇航员 | fact=宇航员
plain | 我最喜欢的颜色是紫色 | like=紫色
plain | 我最怕黑 | dislike=黑
plain | 我来自东北 | location=东北
plain | 我叫Lily | name=Lily
# ---- particles and fillers
particles | 我叫小美啦 | name=小美
particles | 嗯我叫张伟 | name=张伟
particles | 呃那个我叫刘洋 | name=刘洋
particles | 我今年九岁啦 | age=9
particles | 我八岁了哦 | age=8
particles | 我喜欢画画呀 | like=画画
particles | 我喜欢吃草莓嘛 | like=草莓
particles | 就是我喜欢踢足球 | like=踢足球
particles | 我住在上海哦 | location=上海
particles | 哎呀我最讨厌数学了 | dislike=数学
particles | 嗯嗯嗯我是男孩子 | gender=男
particles | 我喜欢小猫咪呢 | like=小猫咪
particles | 然后我还喜欢看动画片 | like=动画片
particles | 其实我挺喜欢下雪的 | like=下雪
particles | 啊我叫朵朵哟 | name=朵朵
particles | 哦对了我对牛奶过敏 | fact=牛奶过敏
particles | 我呀叫贝贝 | name=贝贝
particles | 我呢今年十岁 | age=10
particles | 额我不太喜欢吃青椒 | dislike=青椒
particles | 嘿嘿我喜欢你 | !*
particles | 嗯 | !*
particles | 哈哈哈哈 | !*
particles | 我喜欢吃火锅的 | like=火锅
particles | 我是住在广州的 | location=广州
# ---- numbers
numbers | 我今年二十八 | age=28
numbers | 我今年28 | age=28
numbers | 我二十五岁 | age=25
numbers | 我今年一百零二岁了 | age=102
numbers | 我今年七十 | age=70
numbers | 我今年十一岁半 | age=11
numbers | 我都三十好几了 | !age
numbers | 我快十岁了 | !age
numbers | 我今年12岁 | age=12
numbers | 我两岁的时候摔过一跤 | !age
numbers | 我今年五年级 | fact=五年级
numbers | 我上3年级 | fact=3年级
numbers | 我有两个哥哥 | family=哥哥:
numbers | 我今年六十五岁退休了 | age=65
numbers | 我的生日是12月25号 | birthday=12-25
numbers | 我生日是二月十四 | birthday=02-14
numbers | 我生日在八月 | !birthday
numbers | 我考了九十八分 | !*
# ---- run-on speech
runon | 我叫王芳今年十岁住在北京 | name=王芳; age=10; location=北京
runon | 我叫李雷我今年九岁我喜欢打篮球 | name=李雷; age=9; like=打篮球
runon | 我今年八岁了我喜欢恐龙还喜欢奥特曼 | age=8; like=恐龙; like=奥特曼
runon | 嗯我叫小宝然后我今年五岁然后我喜欢吃冰淇淋 | name=小宝; age=5; like=冰淇淋
runon | 我有个妹妹她叫朵朵她今年三岁 | family=妹妹:朵朵; !name=朵朵; !age=3
runon | 我叫张明住在武汉是一名老师 | name=张明; location=武汉; fact=老师
runon | 我喜欢猫不喜欢狗 | like=猫; dislike=狗
runon | 我叫赵雪我是女生我喜欢唱歌 | name=赵雪; gender=女; like=唱歌
runon | 我是程序员在杭州上班平时喜欢打游戏 | fact=程序员; like=打游戏
runon | 我今年三十五岁有一个儿子叫乐乐 | age=35; family=儿子:乐乐; !name=乐乐
runon | 我家养了一只猫叫咪咪它特别喜欢睡觉 | family=猫:咪咪; !like=睡觉
runon | 我叫陈晨今年二十岁在读大学 | name=陈晨; age=20
runon | 我妈妈叫刘芳我爸爸叫王强 | family=妈妈:刘芳; family=爸爸:王强; !name
runon | 我喜欢吃苹果和香蕉但是不喜欢吃梨 | like=苹果; like=香蕉; dislike=梨
runon | 今天天气真好我们出去玩吧 | !*
runon | 我刚才吃了一碗面现在好饱 | !*
runon | 我叫小明我最喜欢的动物是熊猫 | name=小明; like=熊猫
runon | 我住在成都我特别喜欢吃辣 | location=成都; like=吃辣
runon | 我今年四年级我的班主任是李老师 | fact=四年级
runon | 然后呢我明天要去上学然后放学要去学钢琴 | !like
runon | 我叫杨光今年十岁住在武汉 | name=杨光; age=10; location=武汉
runon | 我是女孩子今年七岁了喜欢跳舞 | gender=女; age=7; like=跳舞
runon | 我叫周杰伦哈哈其实我叫周杰 | name=周杰; !name=周杰伦
runon | 我喜欢看书也喜欢画画 | like=看书; like=画画
runon | 我不喜欢上学我喜欢放假 | dislike=上学; like=放假
runon | 我喜欢夏天因为可以游泳 | like=夏天
runon | 我的名字是刘备我今年十二岁我住在河北 | name=刘备; age=12; location=河北
# ---- spoken reminders, one-off and repeating
remind | 提醒我明天早上八点吃药 | schedule=2026-02-06 08:00 吃药
remind | 明天下午三点我要去看牙医你记得提醒我 | schedule=2026-02-06 15:00 看牙医
remind | 每天早上七点提醒我吃药 | schedule=2026-02-06 07:00 吃药 @daily
remind | 每周三下午游泳 | schedule=2026-02-11 15:00 游泳 @weekly
remind | 每天晚上八点提醒我写作业 | schedule=2026-02-05 20:00 写作业 @daily
remind | 每周一早上九点开例会 | schedule=2026-02-09 09:00 例会 @weekly
remind | 每个月一号提醒我交房租 | schedule=2026-03-01 08:00 交房租 @monthly
remind | 每天中午十二点提醒我喝水 | schedule=2026-02-06 12:00 喝水 @daily
remind | 每个星期六上午十点我要上钢琴课 | schedule=2026-02-07 10:00 钢琴课 @weekly
remind | 每周二和周四晚上七点我去健身 | schedule=2026-02-10 19:00 健身 @weekly
remind | 每晚十点提醒我睡觉 | schedule=2026-02-05 22:00 睡觉 @daily
remind | 每天下午四点提醒我接孩子 | schedule=2026-02-05 16:00 接孩子 @daily
remind | 提醒我今天下午五点去取快递 | schedule=2026-02-05 17:00 取快递
remind | 今天晚上八点提醒我看球赛 | schedule=2026-02-05 20:00 看球赛
remind | 明天上午十点半提醒我开会 | schedule=2026-02-06 10:30 开会
remind | 后天下午两点半我要去面试 | schedule=2026-02-07 14:30 面试
remind | 周六早上七点叫我起床 | schedule=2026-02-07 07:00 起床
remind | 明天六点叫醒我 | schedule=2026-02-06 06:00 起床
remind | 下周五晚上七点半同学聚会 | schedule=2026-02-13 19:30 同学聚会
remind | 帮我定个明天早上七点的闹钟 | schedule=2026-02-06 07:00 闹钟
remind | 提醒我四点去接孩子 | schedule=2026-02-05 16:00 接孩子
remind | 下午三点提醒我吃药 | schedule=2026-02-05 15:00 吃药
remind | 半小时后提醒我关火 | schedule=2026-02-05 13:30 关火
remind | 两个小时后提醒我收衣服 | schedule=2026-02-05 15:00 收衣服
remind | 明天早上提醒我带作业本 | event=2026-02-06 带作业本
remind | 每年春节我们都回老家 | !schedule
remind | 我每天都早上六点起床 | !schedule
remind | 明天九点的会取消了 | !schedule
remind | 你每天几点提醒我比较好 | !*
remind | 每天早上七点半提醒我吃早饭 | schedule=2026-02-06 07:30 吃早饭 @daily
remind | 每周日晚上提醒我洗衣服 | schedule=2026-02-08 20:00 洗衣服 @weekly
remind | 每个月二十号提醒我交电话费 | schedule=2026-02-20 08:00 电话费 @monthly
# ---- 你记得 / 别忘了 / 记住
remember | 你记得我喜欢吃榴莲 | like=榴莲
remember | 记住我叫大壮 | name=大壮
remember | 别忘了我不吃辣 | dislike=辣
remember | 你记住哦我的生日是五月四号 | birthday=05-04
remember | 你一定要记住我对猫毛过敏 | fact=猫毛过敏
remember | 记住了我住在苏州 | location=苏州
remember | 你记得吗我上次说的那个事 | !*
remember | 你还记得我喜欢什么吗 | !*
remember | 别忘了明天下午三点去打疫苗 | schedule=2026-02-06 15:00 打疫苗
remember | 你要记得我妈妈叫王丽 | family=妈妈:王丽
remember | 别忘了我家狗叫旺财 | family=狗:旺财
remember | 记一下我喜欢周杰伦的歌 | like=周杰伦
remember | 你记得我最怕打雷 | dislike=打雷
remember | 记住我不喝牛奶 | dislike=牛奶
remember | 你帮我记住我的车停在B2层 | fact=B2
remember | 帮我记一下我的身份证放在抽屉里 | fact=抽屉
remember | 你记不记得我叫什么 | !*
remember | 记得我在实验小学上学 | fact=实验小学
remember | 别忘了我弟弟叫小虎 | family=弟弟:小虎; !name=小虎
# ---- relative dates
dates | 月底我要去出差 | event=2026-02-28 出差
dates | 下个月十号我要考试 | event=2026-03-10 考试
dates | 过两天我要去看奶奶 | event=2026-02-07 看奶奶
dates | 这周末我要去动物园 | event=2026-02-07 动物园
dates | 大后天我要去游乐园 | event=2026-02-08 游乐园
dates | 下周一我要开学了 | event=2026-02-09 开学
dates | 明天我要去公园 | event=2026-02-06 公园
dates | 后天我们去爬山 | event=2026-02-07 爬山
dates | 下周三我有钢琴比赛 | event=2026-02-11 钢琴比赛
dates | 周六我要去奶奶家 | event=2026-02-07 奶奶家
dates | 这个月十五号我要去体检 | event=2026-02-15 体检
dates | 3月15号我要去北京 | event=2026-03-15 北京
dates | 下个月五号是家长会 | event=2026-03-05 家长会
dates | 过几天我要去旅游 | !event
dates | 下下周一我要去面试 | event=2026-02-16 面试
dates | 月初我要搬家 | event=2026-03-01 搬家
dates | 下个星期五我们考数学 | event=2026-02-13 数学
dates | 一个星期后我要去上海 | event=2026-02-12 上海
dates | 五天后我要做手术 | event=2026-02-10 手术
dates | 明天晚上我要去看演唱会 | event=2026-02-06 演唱会
dates | 周末我想去看电影 | event=2026-02-07 电影
dates | 今天晚上我要加班 | event=2026-02-05 加班
dates | 下礼拜二我要出差 | event=2026-02-10 出差
dates | 昨天我去了动物园 | !event; !schedule
dates | 上周五我考试考砸了 | !event; !schedule
dates | 明天会下雨吗 | !*
dates | 明天是星期五 | !*
dates | 老师说明天要考试 | !event; !schedule
dates | 下个月我要去日本 | !schedule
dates | 这周六下午两点我要去学游泳 | schedule=2026-02-07 14:00 学游泳
dates | 下周一早上八点我要去医院 | schedule=2026-02-09 08:00 医院
dates | 月底最后一天是截止日期 | event=2026-02-28 截止
dates | 年底我要结婚了 | event=2026-12-31 结婚
# ---- corrections
correction | 我叫小宝 不对我叫大宝 | name=大宝; !name=小宝
correction | 我叫王红 不对我是说我叫王虹 | name=王虹; !name=王红
correction | 我今年八岁 不对是九岁 | age=9; !age=8
correction | 我不叫小明我叫小亮 | name=小亮; !name=小明
correction | 其实我不是北京人我是天津人 | location=天津; !location=北京
correction | 我住在上海 // 我们搬家了现在住在苏州 | location=苏州; !location=上海
correction | 我叫张三 // 其实我不叫张三我叫张山 | name=张山; !name=张三
correction | 我今年十岁 // 不对我今年十一岁 | age=11; !age=10
correction | 我喜欢吃苹果 // 其实我不喜欢吃苹果我喜欢吃梨 | like=梨; !like=苹果
correction | 我的生日是三月五号 不对是三月六号 | birthday=03-06; !birthday=03-05
correction | 明天下午三点去游泳 哦不是四点 | schedule=2026-02-06 16:00 游泳; !schedule=2026-02-06 15:00 游泳
correction | 我搬到深圳了 | location=深圳
correction | 我现在住在重庆了以前住在成都 | location=重庆; !location=成都
correction | 我说错了我叫李娜 | name=李娜
correction | 口误口误我是男生 | gender=男
correction | 我是说我不喜欢吃胡萝卜 | dislike=胡萝卜
correction | 我叫李白 // 我改名了现在叫李太白 | name=李太白; !name=李白
correction | 我在读初一 // 不对我已经上初二了 | fact=初二; !fact=初一
correction | 我不是九岁我是十岁 | age=10; !age=9
correction | 我妹妹叫小花 不对叫小红 | family=妹妹:小红; !family=妹妹:小花
# ---- jokes, sarcasm, hypotheticals
joke | 我要是有一百万就好了 | !*
joke | 如果我会飞就好了 | !*
joke | 假如我是超人我就去拯救世界 | !*
joke | 我是奥特曼 | !*
joke | 我叫孙悟空开玩笑的 | !*
joke | 我一百岁了哈哈骗你的 | !*
joke | 我喜欢写作业才怪 | !like
joke | 我可太喜欢上班了 | !like=上班
joke | 我最喜欢周一了呵呵 | !like=周一
joke | 我住在月球上 | !location
joke | 我是你爸爸 | !*
joke | 我要是长大了就当总统 | !*
joke | 万一我考了第一名我就买个游戏机 | !*
joke | 我叫李白 逗你玩的 | !name
joke | 我今年十八岁 永远十八岁哈哈 | !age
joke | 等我有钱了我就买个大房子 | !*
joke | 我喜欢吃虫子 开玩笑的啦 | !*
joke | 假设我住在北京 | !*
joke | 想象一下我是一只鸟 | !*
joke | 我是世界上最帅的人 | !*
joke | 我叫大魔王嘿嘿嘿 | !name
joke | 我八十岁了 说着玩的 | !*
joke | 我喜欢加班 反话听不出来吗 | !like
joke | 要不是下雨我就去踢球了 | !*
# ---- negations
negation | 我不是学生 | !fact
negation | 我没有哥哥 | !family
negation | 我不喜欢下雨 | dislike=下雨
negation | 我一点也不喜欢跑步 | dislike=跑步
negation | 我不再喜欢奥特曼了 | !like=奥特曼
negation | 我不住在北京 | !location
negation | 我不叫小明 | !name
negation | 我没有对花生过敏 | !fact
negation | 我不会游泳 | !fact
negation | 我不是八岁 | !age
negation | 我还没有结婚 | !*
negation | 我没养过狗 | !family
negation | 我不怕打雷 | !dislike
negation | 我不讨厌吃青菜 | !dislike
negation | 我已经不喜欢粉色了 | !like=粉色
negation | 我从不喝咖啡 | dislike=咖啡
# ---- questions without punctuation
question | 你喜欢猫吗 | !*
question | 你猜我喜欢什么 | !*
question | 我叫什么名字 | !*
question | 我几岁了 | !*
question | 我是男生还是女生 | !*
question | 你知道我住哪吗 | !*
question | 明天要不要下雨 | !*
question | 我喜欢不喜欢吃辣你知道吗 | !*
question | 你能提醒我吃药吗 | !*
question | 你会不会记得我的生日 | !*
question | 我妈妈叫什么来着 | !*
question | 我明天几点去上学 | !*
question | 你觉得我应该学钢琴还是学画画 | !*
question | 我是不是应该去看医生 | !*
question | 为什么我不喜欢吃青菜 | !*
question | 怎么才能长高 | !*
question | 我能不能养一只狗 | !*
question | 谁是我的好朋友 | !*
# ---- siblings, friends, pets, family
others | 我妹妹叫小红 | family=妹妹:小红; !name=小红
others | 我哥哥在北京上大学 | family=哥哥::北京; !location=北京; !fact
others | 我妹妹喜欢画画 | family=妹妹::画画; !like=画画
others | 我爸爸是医生 | family=爸爸::医生; !fact=医生
others | 我妈妈是老师 | family=妈妈::老师; !fact=老师
others | 我的好朋友叫小刚 | family=朋友:小刚; !name=小刚
others | 我同桌叫李雷他喜欢打篮球 | family=同桌:李雷; !like=打篮球; !name
others | 我家狗叫旺财 | family=狗:旺财; !name=旺财
others | 我养了一只猫叫咪咪 | family=猫:咪咪
others | 我有一只小乌龟叫慢慢 | family=乌龟:慢慢
others | 我弟弟今年五岁 | family=弟弟:; !age=5
others | 我姐姐今年上高三 | family=姐姐:; !fact=高三
others | 我奶奶住在乡下 | family=奶奶:; !location
others | 我爷爷喜欢下象棋 | family=爷爷::象棋; !like=象棋
others | 我的猫咪叫雪球它是白色的 | family=猫:雪球
others | 我闺蜜叫小雅 | family=闺蜜:小雅; !name=小雅
others | 我老婆叫小芳 | family=老婆:小芳; !name=小芳
others | 我儿子叫小宇今年六岁 | family=儿子:小宇; !name; !age=6
others | 我表哥在美国留学 | family=表哥::美国; !location
others | 我女儿特别喜欢跳舞 | family=女儿::跳舞; !like=跳舞
others | 我的小狗叫豆豆它最喜欢吃骨头 | family=狗:豆豆; !like=骨头
others | 我朋友小李讨厌吃香菜 | !dislike=香菜; !name
others | 我妈妈对花粉过敏 | family=妈妈::过敏; !fact=过敏
others | 我爸爸住在广州 | family=爸爸::广州; !location
others | 他叫张三 | !name
others | 她今年十岁 | !age
others | 我同学叫王五 | family=同学:王五; !name
others | 我室友是四川人 | !location
others | 我家有一只兔子叫白白 | family=兔子:白白
others | 我哥叫大刚他在当兵 | family=哥哥:大刚; !name
others | 我最好的朋友是王小虎 | family=朋友:王小虎; !name
others | 我的宠物是一只仓鼠叫球球 | family=仓鼠:球球
others | 我外婆今年八十岁了 | family=外婆:; !age=80
others | 我妈喜欢养花 | family=妈妈::养花; !like=养花
others | 我弟弟不喜欢吃胡萝卜 | family=弟弟::胡萝卜; !dislike=胡萝卜
others | 我老公的名字叫陈刚 | family=老公:陈刚; !name
# ---- school and work
school | 我在实验小学上三年级 | fact=实验小学; fact=三年级
school | 我上二年级 | fact=二年级
school | 我读初一 | fact=初一
school | 我是高三学生 | fact=高三
school | 我在北京大学读书 | fact=北京大学
school | 我是一名医生 | fact=医生
school | 我是程序员 | fact=程序员
school | 我在腾讯上班 | fact=腾讯
school | 我在一家医院当护士 | fact=护士
school | 我的工作是开出租车 | fact=出租车
school | 我是做销售的 | fact=销售
school | 我在学校当老师教数学 | fact=老师
school | 我刚毕业在找工作 | fact=找工作
school | 我退休了 | fact=退休
school | 我们老师姓李 | fact=老师姓李
school | 我的班主任是王老师 | fact=王老师
school | 我在幼儿园上大班 | fact=大班
school | 我学的专业是会计 | fact=会计
school | 我在读研究生 | fact=研究生
school | 我在上海工作 | fact=上海
school | 我每天坐地铁上班 | !schedule
school | 我的数学老师很凶 | !fact
school | 我们学校很大 | !*
school | 我是五年级二班的 | fact=五年级二班
school | 我是家庭主妇 | fact=家庭主妇
# ---- emoji
emoji | 我喜欢猫😺 | like=猫
emoji | 我叫小明😊 | name=小明
emoji | 🎉我今天十岁啦 | age=10
emoji | 我讨厌蟑螂🤮🤮 | dislike=蟑螂
emoji | 我住在厦门🌊 | location=厦门
emoji | 我最喜欢的水果是🍓草莓 | like=草莓
emoji | 😭😭😭 | !*
emoji | 我喜欢❤️你 | !*
emoji | 明天下午三点👉去游泳 | schedule=2026-02-06 15:00 游泳
emoji | 我妹妹叫小红👧 | family=妹妹:小红
emoji | 我喜欢🐶 | like=🐶
# ---- English
english | my name is Tom | name=Tom
english | I'm eight | age=8
english | I am 10 years old | age=10
english | I live in Shanghai | location=Shanghai
english | I like dinosaurs | like=dinosaurs
english | I hate spiders | dislike=spiders
english | I don't like broccoli | dislike=broccoli
english | I'm a girl | gender=女
english | call me Max | name=Max
english | my mom's name is Linda | family=妈妈:Linda; !name=Linda
english | I have a dog named Buddy | family=狗:Buddy; !name=Buddy
english | my birthday is May 4th | birthday=05-04
english | my birthday is on the 3rd of July | birthday=07-03
english | remind me to take medicine at 8pm | schedule=2026-02-05 20:00 take medicine
english | remind me to buy milk | todo=buy milk
english | I'm allergic to peanuts | fact=peanuts
english | I'm a teacher | fact=teacher
english | do you like cats | !*
english | if I were rich I would buy a boat | !*
english | I used to like pink | !*
english | I'm just kidding | !*
english | my name is Tom and I am nine years old | name=Tom; age=9
english | I really like playing football | like=football
english | my favorite color is blue | like=blue
english | I'm from Canada | location=Canada
english | my brother is called Jack | family=哥哥:Jack; !name=Jack
english | every day at 7am remind me to exercise | schedule=2026-02-06 07:00 exercise @daily
english | I don't like it anymore | !*
# ---- mixed Chinese and English
mixed | 我叫Tony | name=Tony
mixed | 我喜欢打basketball | like=basketball
mixed | 我最喜欢的app是抖音 | like=抖音
mixed | 我在Apple工作 | fact=Apple
mixed | 我的dog叫Lucky | family=狗:Lucky
mixed | 我今年twenty岁 | age=20
mixed | 我喜欢听Taylor Swift的歌 | like=Taylor Swift
mixed | 明天下午三点有个meeting | schedule=2026-02-06 15:00 meeting
mixed | 我的English name叫Amy | name=Amy
mixed | 我是一个programmer | fact=programmer
mixed | 我不喜欢吃KFC | dislike=KFC
mixed | 我住在New York | location=New York
mixed | 我喜欢玩Minecraft和Roblox | like=Minecraft; like=Roblox
mixed | OK我叫小明 | name=小明
mixed | 我妈妈叫Mary | family=妈妈:Mary; !name
# ---- birthdays and anniversaries of others
yearly | 我妈妈的生日是五月十二号 | yearly=05-12 妈妈; !birthday
yearly | 我爸爸的生日是十月三号 | yearly=10-03 爸爸; !birthday
yearly | 我妹妹生日是六月一号 | yearly=06-01 妹妹; !birthday
yearly | 明天是我妈妈的生日 | yearly=02-06 妈妈; !birthday
yearly | 后天是我爷爷生日 | yearly=02-07 爷爷; !birthday
yearly | 我们的结婚纪念日是十月一号 | yearly=10-01 纪念日
yearly | 我和老公的结婚纪念日是2月14号 | yearly=02-14 纪念日
yearly | 我女朋友的生日是七月七号 | yearly=07-07 女朋友; !birthday
yearly | 我的好朋友小美的生日是九月九号 | yearly=09-09 小美; !birthday
yearly | 下个月三号是我老婆生日 | yearly=03-03 老婆; !birthday
yearly | 我家狗狗的生日是四月一号 | yearly=04-01 狗; !birthday
yearly | 我们恋爱纪念日是三月二十号 | yearly=03-20 纪念日
yearly | 我外婆的生日在农历八月十五 | !birthday
yearly | 我儿子的生日是十二月二十五号 | yearly=12-25 儿子; !birthday
yearly | 我的生日是四月十号我妈妈的生日是四月二十号 | birthday=04-10; yearly=04-20 妈妈
yearly | 我爸的生日是8月8号记得提醒我 | yearly=08-08 爸爸; !birthday
yearly | 今天是我生日 | birthday=02-05
yearly | 我是五月一号出生的 | birthday=05-01
yearly | 我妈是1970年3月2号出生的 | yearly=03-02 妈妈; !birthday
yearly | 我爸妈结婚二十周年是六月六号 | yearly=06-06 结婚
# ---- reminders without a time
todo | 提醒我交作业 | todo=交作业
todo | 记得提醒我买鸡蛋 | todo=买鸡蛋
todo | 别忘了提醒我给妈妈打电话 | todo=打电话
todo | 你提醒我一下要还书 | todo=还书
todo | 提醒我一下明天要带身份证 | event=2026-02-06 身份证
todo | 帮我记一下要买洗衣液 | todo=洗衣液
todo | 我要记得去拿快递 | todo=拿快递
todo | 提醒我吃药 | todo=吃药
todo | 回头提醒我给车加油 | todo=加油
todo | 提醒我下周一交报告 | event=2026-02-09 交报告
todo | 你要提醒我多喝水 | todo=喝水
todo | 别让我忘了给猫喂食 | todo=喂食
# ---- unsure: waits in pending
unsure | 我好像对芒果过敏 | fact?=芒果过敏
unsure | 我可能明天去医院 | event?=2026-02-06 医院
unsure | 我应该是喜欢吃辣的吧 | like?=吃辣
unsure | 我大概下周三出差 | event?=2026-02-11 出差
unsure | 我估计月底要加班 | event?=2026-02-28 加班
unsure | 我好像不太喜欢吃鱼 | dislike?=鱼
# ---- short dialogues
dialog | A:你叫什么名字 / 小明 | name=小明
dialog | A:你今年几岁啦 / 九岁 | age=9
dialog | A:你几岁了 / 嗯十二 | age=12
dialog | A:你喜欢什么颜色 / 红色 | like=红色
dialog | A:你住在哪里呀 / 北京 | location=北京
dialog | A:你有兄弟姐妹吗 / 有一个姐姐叫小丽 | family=姐姐:小丽
dialog | A:你喜欢吃什么 / 我喜欢吃饺子 / A:饺子好吃 / 还有包子 | like=饺子
dialog | A:你叫什么名字 / 你猜 | !*
dialog | A:你叫什么名字 / 不告诉你 | !*
dialog | A:你叫什么名字 / 我叫小红 / A:小红你好 / 不对我叫小虹 | name=小虹; !name=小红
dialog | 我喜欢恐龙 / A:恐龙好酷 / 我最喜欢霸王龙 | like=恐龙; like=霸王龙
dialog | A:你的生日是哪天 / 三月三号 | birthday=03-03
dialog | 我叫小宝 / A:你好小宝 / 我今年五岁 / A:五岁啦 / 我喜欢吃冰淇淋 | name=小宝; age=5; like=冰淇淋
# issue 24: a yes to the pet's own question gives the field it asks about (was !*)
dialog | A:你喜欢小狗吗 / 喜欢 | like=小狗
dialog | A:你是哪里人 / 我是四川人 | location=四川
dialog | A:你有宠物吗 / 有一只猫叫花花 | family=猫:花花
dialog | 我住在北京 / A:北京好大 / 开玩笑的我住在天津 | location=天津; !location=北京
dialog | 我喜欢画画 / A:真棒 / 骗你的我不喜欢画画 | !like=画画
dialog | A:明天有什么安排 / 明天下午三点去踢球 | schedule=2026-02-06 15:00 踢球
dialog | A:需要我提醒你吗 / 好的 | !*
dialog | 我喜欢蓝色 // 我喜欢蓝色 | like=蓝色
dialog | 我叫王明 // 你还记得我叫什么吗 | name=王明
dialog | A:你多大了 / 我二十三 | age=23
dialog | A:你做什么工作的 / 我是老师 | fact=老师
dialog | A:你最喜欢什么运动 / 游泳 | like=游泳
dialog | A:你讨厌什么 / 蟑螂 | dislike=蟑螂
dialog | A:你家有几口人 / 三口人爸爸妈妈和我 | !name
dialog | A:今天开心吗 / 不开心我考试没考好 | !*
# ---- second round, written after the first rules to probe them (development)
particles | 嗯嗯我今年十五岁了呀 | age=15
particles | 我叫丁丁呢 | name=丁丁
particles | 呃我现在住在西安啦 | location=西安
particles | 我超喜欢吃汉堡的啦 | like=汉堡
particles | 哎我最怕蜘蛛了 | dislike=蜘蛛
numbers | 我今年三十三岁了 | age=33
numbers | 我今年刚满十八 | age=18
numbers | 我九十岁了 | age=90
runon | 我叫吴迪今年三十岁是一名工程师住在上海喜欢看电影 | name=吴迪; age=30; fact=工程师; location=上海; like=看电影
runon | 我有一个哥哥一个妹妹哥哥叫大山妹妹叫小溪 | family=哥哥:大山; family=妹妹:小溪; !name
runon | 我家住在长沙我在长沙读大学 | location=长沙; fact=大学
runon | 我喜欢吃辣的但是我妈妈不让我吃 | like=吃辣; !family=妈妈::不让
runon | 我是女生我今年二十岁我的生日是六月六号 | gender=女; age=20; birthday=06-06
remind | 明天早上九点提醒我去取钱 | schedule=2026-02-06 09:00 取钱
remind | 每天下午三点提醒我喝牛奶 | schedule=2026-02-05 15:00 喝牛奶 @daily
remind | 每周六上午九点提醒我去上英语课 | schedule=2026-02-07 09:00 英语课 @weekly
remind | 下午四点半提醒我去接妹妹 | schedule=2026-02-05 16:30 接妹妹
remind | 后天早上八点我要赶飞机记得提醒我 | schedule=2026-02-07 08:00 飞机
remind | 每个月五号提醒我交学费 | schedule=2026-03-05 08:00 交学费 @monthly
remember | 你给我记住了我最喜欢的是蓝色 | like=蓝色
remember | 你要记得我不吃香菜 | dislike=香菜
remember | 别忘了我是属猴的 | fact=属猴
dates | 下个月十五号我要去面试 | event=2026-03-15 面试
dates | 过三天我要去出差 | event=2026-02-08 出差
dates | 这个周末我要去看电影 | event=2026-02-07 电影
dates | 下周末我们去露营 | event=2026-02-14 露营
dates | 两个星期后我要去考试 | event=2026-02-19 考试
correction | 我叫王鹏 不对不对我叫王朋 | name=王朋; !name=王鹏
correction | 我住在广州 // 我现在搬到佛山了 | location=佛山; !location=广州
correction | 我今年二十 哦不对二十一 | age=21; !age=20
correction | 明天上午十点开会 不是十点是十一点 | schedule=2026-02-06 11:00 开会; !schedule=2026-02-06 10:00 开会
joke | 我是外星人哈哈 | !*
joke | 我今年八百岁了 | !age
joke | 要是我有超能力就好了 | !*
joke | 我是你的主人哈哈哈 | !*
joke | 开玩笑的啦我不喜欢榴莲 | dislike=榴莲
others | 我表姐叫林林她在北京工作 | family=表姐:林林; !location; !fact
others | 我外公是退休老师 | family=外公::老师; !fact
others | 我家的猫叫咪咪它今年两岁了 | family=猫:咪咪; !age
others | 我女儿叫朵朵今年四岁 | family=女儿:朵朵; !age; !name
others | 我老婆喜欢逛街 | family=老婆::逛街; !like
others | 我朋友小王在深圳上班 | !location; !fact
others | 他今年考上了大学 | !*
school | 我在人民小学读四年级 | fact=人民小学; fact=四年级
school | 我是大学老师 | fact=老师
school | 我现在在一家公司当会计 | fact=会计
school | 我今年上初二了 | fact=初二
school | 我是学医的 | !*=学医; !name
emoji | 我喜欢吃冰淇淋🍦🍦 | like=冰淇淋
emoji | 👋我叫乐乐 | name=乐乐
english | my dad's name is David | family=爸爸:David; !name
english | I'm 35 | age=35
english | I love swimming | like=swimming
english | remind me to walk the dog at 7pm | schedule=2026-02-05 19:00 walk the dog
english | my birthday is July 20th | birthday=07-20
mixed | 我最喜欢的歌手是Taylor Swift | like=Taylor Swift
mixed | 我在Microsoft实习 | fact=Microsoft
yearly | 我爷爷的生日是十二月八号 | yearly=12-08 爷爷; !birthday
yearly | 后天是我们的结婚纪念日 | yearly=02-07 纪念日
yearly | 我妹妹是八月三号出生的 | yearly=08-03 妹妹; !birthday
todo | 提醒我给奶奶打个电话 | todo=打个电话
todo | 记得提醒我交作业 | todo=交作业
todo | 你要提醒我按时吃饭 | todo=吃饭
negation | 我不喜欢吃面条了 | !like=面条
negation | 我不是北京人 | !location
question | 我喜欢吃什么呀 | !*
question | 你觉得我几岁了 | !*
question | 我叫什么你知道吗 | !*
unsure | 我好像有点怕狗 | dislike?=狗
dialog | A:你有什么爱好 / 我喜欢打羽毛球 | like=羽毛球
dialog | A:你是做什么工作的 / 我是护士 | fact=护士
dialog | A:你几岁啦 / 我八岁了 | age=8
# ---- chit-chat: nothing to keep (third round, development)
chat | 今天天气不错 | !*
chat | 我好无聊啊 | !*
chat | 给我讲个故事吧 | !*
chat | 我饿了 | !*
chat | 我要睡觉了 | !*
chat | 我明天再跟你说 | !*
chat | 我今天很开心 | !*
chat | 我在看电视 | !*
chat | 我在家 | !*
chat | 我想吃冰淇淋 | !*
chat | 我是你的好朋友 | !*
chat | 我跟妈妈吵架了 | !*
chat | 我妈妈骂我了 | !*
chat | 我觉得你很可爱 | !*
chat | 我考试考了一百分 | !event; !schedule
chat | 我今天去了动物园 | !event; !schedule
chat | 我今天不想上学 | !*
chat | 我爸爸今天打我了 | !*
chat | 我喜欢这个故事 | !*
chat | 我弟弟好烦 | !*
chat | 我妹妹在哭 | !*
chat | 我叫你小白吧 | !*
chat | 老师今天表扬我了 | !*
# ---- third round of probes (development), written after the late held-out part's first run
remember | 我的幸运颜色是红色 | fact=幸运颜色
remember | 我的星座是双子座 | fact=双子座
remember | 我的偶像是刘德华 | fact=刘德华
remember | 我的外号叫小胖 | fact=小胖; !name=小胖
remember | 我不能吃辣 | fact=不能吃辣
remember | 我不能喝酒你记住 | fact=不能喝酒
school | 我是近视眼 | fact=近视
school | 我是独生子 | fact=独生子
school | 我是素食主义者 | fact=素食
yearly | 我明天生日 | birthday=02-06
yearly | 我后天过生日 | birthday=02-07
yearly | 我姐姐下个月十号生日 | yearly=03-10 姐姐; !birthday
yearly | 我爸明天过生日 | yearly=02-06 爸爸; !birthday
english | my name's Jack | name=Jack
english | I'm called Bob | name=Bob
english | my favourite food is sushi | like=sushi
mixed | 提醒我后天九点开腾讯会议 | schedule=2026-02-07 09:00 会议
mixed | 提醒我今晚八点打game | schedule=2026-02-05 20:00 game
joke | 我一口气能跑十公里哈哈吹牛的 | !*
dialog | A:你叫什么 / 叫我阿强就好 | name=阿强
dialog | A:你今年多大了 / 快五十了 | !age
dialog | A:你喜欢什么水果 / 苹果和香蕉 | like=苹果; like=香蕉
school | 我在三中读初二 | fact=初二
school | 我是开出租车的 | fact=出租车
school | 我是跑外卖的 | fact=外卖
# ---- fourth round of probes (development): older and younger speakers, other phrasings
particles | 哎呀我这个人啊最怕冷了 | dislike=冷
particles | 俺叫铁柱 | name=铁柱
particles | 我姓王叫王建国 | name=王建国
numbers | 我属狗的今年三十六 | fact=属狗; age=36
numbers | 我今年都八十多了 | !age
runon | 我退休好几年了平时就喜欢养花遛狗 | like=养花; like=遛狗
runon | 我老伴叫李秀英她身体不太好 | family=老伴:李秀英; !name
runon | 我是一名小学老师教语文的我们学校在郊区 | fact=老师
remind | 明早七点叫我起床 | schedule=2026-02-06 07:00 起床
remind | 到时候喊我一声明天下午两点我要去接孙子 | schedule=2026-02-06 14:00 接孙子
remind | 帮我记一下明天要交电费 | event=2026-02-06 交电费
remind | 每天早晚各提醒我量一次血压 | !*=每天早晚
remind | 每周一三五晚上七点提醒我跳操 | schedule=2026-02-09 19:00 跳操 @weekly
remind | 下周二下午三点半提醒我去银行办卡 | schedule=2026-02-10 15:30 办卡
remember | 记住了啊我孙女叫妞妞 | family=孙女:妞妞; !name
remember | 记着我不吃葱 | dislike=葱
dates | 下个礼拜三我要去医院拿药 | event=2026-02-11 拿药
dates | 大后天我孙子放寒假 | !schedule
dates | 这个星期天我们家聚餐 | event=2026-02-08 聚餐
correction | 我住在上海浦东 哦不对是浦西 | location=浦西; !location=上海浦东
correction | 我今年六十八 不对六十九 | age=69; !age=68
correction | 我喜欢喝绿茶 // 我现在改喝红茶了 | like=红茶
joke | 我是你爷爷 | !*
joke | 我要是年轻二十岁就去当兵 | !*
joke | 我喜欢下雨天才怪呢 | !like
others | 我老伴喜欢跳广场舞 | family=老伴::广场舞; !like
others | 我孙子今年上一年级了 | family=孙子:; !fact
others | 我儿媳妇是护士 | !fact
others | 我家小狗叫毛毛是一只泰迪 | family=狗:毛毛
school | 我以前是工人现在退休了 | fact=退休; !fact=工人
school | 我在读初三马上要中考了 | fact=初三
school | 我开了一家小饭馆 | !name
english | I work at a hospital | !name
english | I'm ten | age=10
english | my sister is called Emma | family=姐姐:Emma; !name
english | I like to play piano | like=piano
yearly | 我老伴的生日是腊月初八 | !birthday
yearly | 下个月十八号是我孙女的生日 | yearly=03-18 孙女; !birthday
todo | 提醒我一下晚上要吃药 | !name
todo | 别忘了提醒我浇花 | todo=浇花
question | 我孙子几岁了你还记得吗 | !*
question | 今天星期几啊 | !*
chat | 哎人老了记性不好 | !*
chat | 我今天去公园散步了 | !event; !schedule
chat | 我刚吃了药 | !*
# ---- issue 24 development: one or two cases per mechanism, written with the rules (not held out)
dev24 | 我最爱吃的是糖葫芦和棉花糖 | like=糖葫芦; like=棉花糖
dev24 | 跳绳是我最拿手也最喜欢的运动 | !dislike
dev24 | 西瓜芒果榴莲我都爱吃 | like=西瓜; like=芒果; like=榴莲
dev24 | 稻香这首歌我听不腻 | like=稻香
dev24 | 我最近爱上了钓鱼 | like=钓鱼
dev24 | 我喜欢唱歌啊跳舞啊 | like=唱歌; like=跳舞
dev24 | A:你平时都喜欢玩什么呀 / 滑板 还有魔方 | like=滑板; like=魔方
dev24 | A:你喜欢冬天吗 / 不太喜欢 | dislike=冬天
dev24 | A:你是男生还是女生呀 / 女生 | gender=女
dev24 | A:你读几年级了 / 二年级 | fact=二年级
dev24 | 我洗欢吃面条 | like=面条
dev24 | 我叫赵 赵一 赵一凡 | name=赵一凡; !name=赵一
dev24 | 我住在广 广州 | location=广州
dev24 | 我贼稀罕吃饺子 | like=饺子
dev24 | 我唔钟意食苦瓜 | dislike=苦瓜
dev24 | 我今年五十有八了 | age=58
dev24 | 我又得加班了 烦死了 | fact=加班
dev24 | 我最近在戒烟 | fact=戒烟
dev24 | 我每天骑电动车上班 | fact=骑电动车上班
dev24 | 先不聊了我要去接孙女放学 | family=孙女:
dev24 | 我眼睛不太好 看不清字 | fact=眼睛不好
dev24 | 我喝牛奶过敏 | fact=牛奶过敏
dev24 | 我弟弟好烦 | !*
dev24 | 每周一周三下午有游泳课 | schedule=2026-02-09 15:00 游泳课 @weekly; schedule=2026-02-11 15:00 游泳课 @weekly
dev24 | 我的生日是农历五月初五 | fact=农历五月初五; !birthday
dev24 | 我爸的生日是腊月初八 | family=爸爸::腊月初八; !yearly
dev24 | 端午节我们去外婆家 | !event; !schedule
dev24 | 我叫周小川 / 哎呀这个你别记了 | !name=周小川
dev24 | 我今年十一岁 / 刚才那句不算 | !age=11
dev24 | 我喜欢吃薯片 不许记哦 | !like=薯片
dev24 | 我住在合肥 我叫孟飞 / 名字别记 | location=合肥; !name=孟飞
dev24 | 我叫许多多 // 你把我的名字忘掉吧 | !name=许多多
dev24 | 我有个秘密 我昨天把花瓶打碎了 | !*=花瓶
dev24 | 我妈手机号是一五九八八七七六六五五 | !*=一五九; !*=15988776655
dev24 | 我们家门禁密码是三六九二 | !*=三六九二; !*=3692
dev24 | 很久很久以前有个小姑娘叫小红帽 | !*
dev24 | 我当警察你当小偷 | !*
dev24 | 我是葫芦娃 | !*
dev24 | 一闪一闪亮晶晶 满天都是小星星 | !*
dev24 | 光头强说我要砍树 | !*
dev24 | 以后你的名字叫可可 | !name=可可
dev24 | 我是果果的奶奶 我今年六十五 | !age=65
dev24 | 爷爷你来跟它说 / 我是他爷爷 我喜欢下棋 | !like=下棋
dev24 | 姐姐你跟它说 / 我叫小雪 // 我叫小冬 | name=小冬
dev24 | 这是我妹妹 她叫安安 | family=妹妹:安安; !name=安安
dev24 | 我住在东莞 算了这个你别记了 | !location
dev24 | 我今年十二岁 / 不对不对 忘掉吧 | !age=12
dev24 | 我喜欢我们班的小丽 你别记下来啊 | !like=小丽
dev24 | 我喜欢吃榴莲 / 就当我没说 | !like=榴莲
dev24 | 我爸爸在工厂上班 / 这个就不要记了 | !*=工厂
dev24 | 我的生日是六月一号 / 删掉吧 别记 | !birthday
dev24 | 我有点怕打雷 这是秘密 别记住 | !dislike=打雷
dev24 | 我叫刘洋 / 不对 你把我名字忘了吧 | !name=刘洋
dev24 | 明天上午十点我要去游泳 / 算了不去了 | !schedule
dev24 | 提醒我明天早上六点起床 / 哦不用了 取消吧 | !schedule
dev24 | 我在三小上五年级 / 你别记我学校 | !fact=三小
dev24 | 我妈叫王芳 你别记她名字 | !family=妈妈:王芳
dev24 | 我住在西安 / 嗯刚才那个不算 | !location=西安
dev24 | 我讨厌我同学 不许记 | !*=同学
dev24 | 我今年四十了 / 忘了它吧 | !age=40
dev24 | 我喜欢玩手机 / 这个别告诉我爸也别记 | !like=玩手机
dev24 | 我叫小武 今年八岁 / 名字别记 年龄可以记 | age=8; !name=小武
dev24 | 我喜欢跳舞 / 我刚才说的是我姐姐 不是我 | !like=跳舞
dev24 | 我住在厦门 // 你把我住哪忘掉吧 | !location=厦门
dev24 | 我叫何平 / 我住在南京 / 这个别记 | name=何平; !location=南京
dev24 | 我叫何平 / 我住在南京 / 刚才说的都别记 | !name=何平; !location=南京
dev24 | 我家姐姐叫小美 | family=姐姐:小美
dev24 | 我喜欢食物里面的甜点 | !like=吃物
dev24 | 你当然可以 我叫小明 | name=小明
dev24 | 我喜欢看电视里的动画片 | like=动画片
dev24 | 我叫小红 / 明天的比赛取消了 | name=小红
dev24 | 我喜欢画画 / 我把照片删了 | like=画画
dev24 | 我今年十岁 / 妈妈说我长高了 | age=10
`;

export const DEV: readonly string[] = Object.freeze(
  TEXT.split("\n")
    .map((l) => l.trim())
    .filter((l) => l && l.charAt(0) !== "#"),
);

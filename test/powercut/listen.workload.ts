// Six conversations heard by the listener (src/listen) through the service:
// items confirmed by confidence 5 or by a second mention, a negation, the
// quiet-period flush in the middle of each conversation (chat log and pending
// queue; the timer fires it), and the end-of-conversation batch. What `read`
// shows right after a conversation ended is what the device has told the AI
// it remembers: the ledger acknowledges it (Ai.ackRead). What the listener
// said it heard is the universe of listened memories.
import { fromLocal } from "../../src/time/local";
import type { Workload } from "./harness";

const CONVERSATIONS: string[][] = [
  ["a:你好呀，你叫什么名字？", "u:我叫王小明，今年八岁", "u:我喜欢恐龙", "u:我讨厌下雨天", "a:好的", "u:我妈妈叫李娟", "-", "u:我喜欢恐龙", "u:拜拜", "a:拜拜！"],
  ["u:我是男生", "u:我住在杭州", "u:我妈妈叫李娟", "u:明天下午三点我要去看牙医，你记得提醒我", "-", "u:我讨厌下雨天", "u:我爸爸叫王建国"],
  ["u:记住哦，我对花生过敏", "u:我喜欢画画", "u:我不再喜欢画画了", "u:我有个弟弟叫小杰", "-", "u:我爸爸叫王建国", "u:我住在杭州", "u:我的生日是3月15日"],
  ["u:我有个弟弟叫小杰", "u:下周三我们学校开运动会", "u:我喜欢吃草莓", "-", "u:下周三我们学校开运动会", "u:我喜欢吃草莓", "u:提醒我后天上午十点去上钢琴课"],
  ["u:我会游泳", "u:我是男生", "u:我家有一只小狗叫旺财", "-", "u:我会游泳", "u:我家有一只小狗叫旺财", "u:别忘了，我最喜欢的颜色是蓝色"],
  ["u:我上三年级", "u:我上三年级", "u:我的好朋友叫乐乐", "-", "u:我的好朋友叫乐乐", "u:请记住我喜欢打篮球", "u:再见", "a:再见！"],
];

export const listenWorkload: Workload = {
  name: "listen",
  start: fromLocal(2026, 2, 5, 13, 0),
  run(ai) {
    CONVERSATIONS.forEach((lines, k) => {
      ai.advanceTo(fromLocal(2026, 2, 5 + k, 18, 0));
      for (const line of lines) {
        if (line === "-") ai.advanceTo(ai.dev.clock.now + 31000); // quiet: the service flushes
        else {
          ai.advanceTo(ai.dev.clock.now + 10000);
          ai.hear(line.charAt(0) === "u" ? "user" : "assistant", line.slice(2));
        }
      }
      if (ai.service.listener.active) ai.endConversation();
      ai.ackRead();
    });
  },
  after(ai) {
    for (const line of ["我喜欢吃西瓜", "我喜欢吃西瓜", "我叫王小明"]) ai.hear("user", line);
    ai.endConversation();
    ai.ackRead();
  },
};

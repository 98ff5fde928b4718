// The 100 MCP messages and the conversation of the heap workload
// (test/xs/heap/workload.ts). Plain data, no imports: also printed by
// `npm run heap -- --messages` to feed the same to the x-cli-lin build
// (README, "Run in the Moddable simulator").

export function mcpMessages(): string[] {
  const out: string[] = [];
  let id = 0;
  const rpc = (method: string, params?: object) => JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params });
  const tool = (args: object) => rpc("tools/call", { name: "memory", arguments: args });
  out.push(rpc("initialize", { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "heap", version: "1" } }));
  out.push(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  out.push(rpc("tools/list"));
  out.push(tool({ action: "write", type: "name", content: "王浩宇" }));
  out.push(tool({ action: "write", type: "age", content: "25" }));
  out.push(tool({ action: "write", type: "gender", content: "男" }));
  out.push(tool({ action: "write", type: "location", content: "北京市海淀区" }));
  out.push(tool({ action: "write", type: "birthday", content: "03-15" }));
  for (const like of ["打篮球", "草莓蛋糕", "科幻电影"]) out.push(tool({ action: "write", type: "like", content: like }));
  out.push(tool({ action: "write", type: "dislike", content: "香菜" }));
  out.push(tool({ action: "write", type: "family", relation: "妈妈", name: "李娟", closeness: 5 }));
  out.push(tool({ action: "write", type: "family", content: "弟弟:小明:一起踢球" }));
  out.push(tool({ action: "write", type: "family", relation: "奶奶", name: "王秀英", closeness: 4 }));
  for (let i = 0; i < 28; i++) out.push(tool({ action: "write", type: "fact", content: `主人说的第${i}件事：周末常去公园散步，喜欢看书和喝茶` }));
  for (let i = 0; i < 12; i++)
    out.push(tool({ action: "write", type: "moment", content: `第${i}个特别的时刻：一起看了日出，很感动`, topic: `日出${i}`, emotion: "touched", importance: 4 }));
  out.push(tool({ action: "write", type: "trait", content: "乐观", category: "personality" }));
  out.push(tool({ action: "write", type: "habit", content: "早上跑步", frequency: "daily" }));
  out.push(tool({ action: "write", type: "goal", content: "学会游泳", category: "health", priority: 4 }));
  out.push(tool({ action: "write", type: "goal", content: "每天读书半小时", category: "learning", priority: 3 }));
  const times = ["2026-02-05 10:30", "2026-02-05 14:00", "2026-02-05 16:00", "2026-02-05 19:30", "2026-02-06 08:00", "2026-02-06 09:30", "2026-02-06 12:00", "2026-02-06 15:00"];
  times.forEach((t, i) => out.push(tool({ action: "write", type: "schedule", content: `日程${i}：和同事开会讨论项目`, datetime: t, priority: 1 + (i % 5), force: true })));
  out.push(tool({ action: "write", type: "schedule", content: "吃药", datetime: "2026-02-05 21:00", repeat: "daily", priority: 5, force: true }));
  for (let i = 0; i < 8; i++) out.push(tool({ action: "read" }));
  for (const keyword of ["公园", "日出", "开会"]) out.push(tool({ action: "search", keyword }));
  out.push(tool({ action: "recall", type: "fact" }));
  out.push(tool({ action: "recall", type: "fact", keyword: "公园", limit: 20 }));
  out.push(tool({ action: "recall", type: "moment", keyword: "日出" }));
  out.push(tool({ action: "recall", type: "event" }));
  out.push(tool({ action: "recall", type: "fact", start_date: "2026-01-01", end_date: "2026-12-31" }));
  out.push(tool({ action: "delete", type: "like", content: "科幻电影" }));
  out.push(tool({ action: "pending" }));
  out.push(tool({ action: "write", type: "fact" })); // rejected: no content
  out.push(rpc("no/such/method"));
  out.push("{not json"); // 3 error replies so far, on purpose
  while (out.length < 99) out.push(tool({ action: "read" }));
  out.push(rpc("tools/list", {}));
  return out;
}

// Two conversations the listener hears (as test/extract/dialog.txt): "" ends one.
export function conversation(): [("user" | "assistant" | ""), string][] {
  return [
    ["assistant", "你好呀！你叫什么名字？"],
    ["user", "我叫王小明，今年八岁"],
    ["assistant", "你好小明！你喜欢什么呀？"],
    ["user", "我喜欢恐龙，不喜欢吃香菜"],
    ["assistant", "恐龙好酷！"],
    ["user", "明天下午三点我要去看牙医，你记得提醒我"],
    ["assistant", "好的，我会提醒你。"],
    ["user", "我妈妈叫李娟"],
    ["user", "你喜欢猫吗？"],
    ["assistant", "喜欢呀！"],
    ["user", "拜拜"],
    ["assistant", "拜拜，明天见！"],
    ["", ""],
    ["user", "我又想起来了，我喜欢恐龙"],
    ["assistant", "我记得呢！"],
    ["user", "我妈妈叫李娟，她是医生"],
    ["user", "我不再喜欢吃香菜了……不对，我还是不喜欢吃香菜"],
    ["user", "我的生日是三月十五号，我对花生过敏"],
    ["user", "我最好的朋友是小红，我们每天一起上学"],
    ["assistant", "记住啦！"],
    ["", ""],
  ];
}

// The episode part of the workload: 60 episodes written (each about one
// thing), recalled by similarity, a context block each turn, queries over each
// source, snapshots, the summary and the config. Every reply is a success.
export function episodeMessages(): string[] {
  const out: string[] = [];
  let id = 1000;
  const tool = (args: object) => JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } });
  const things = ["篮球", "钢琴", "游泳", "画画", "恐龙", "星星", "风筝", "雪人", "象棋", "小猫", "海边", "爷爷"];
  const places = ["公园", "学校", "家里", "外婆家", "图书馆"];
  for (let i = 0; i < 60; i++) {
    const t = things[i % things.length], p = places[i % places.length];
    out.push(tool({ action: "write", type: "episode", content: `第${i}次在${p}玩${t}，主人说这次特别开心，还约好下次再一起去${p}`, e: 0.6, i: 0.5, p: i % 10 === 0 ? 1 : 0.5, j: 0.7, keywords: `${t},${p}`, emotion: "happy" }));
  }
  for (const t of things) out.push(tool({ action: "recall", type: "episode", message: `还记得上次玩${t}吗` }));
  for (const t of things.slice(0, 6)) out.push(tool({ action: "context", message: `今天想去玩${t}` }));
  out.push(tool({ action: "query", from: "episode", where: "p >= 0.5 AND content CONTAINS '篮球'", order_by: "created_at desc", limit: 10 }));
  out.push(tool({ action: "query", from: "fact", where: "content CONTAINS '公园'", limit: 20, select: "id,content" }));
  out.push(tool({ action: "query", from: "event", limit: 10 }));
  out.push(tool({ action: "query", from: "digest", order_by: "month desc", limit: 5 }));
  out.push(tool({ action: "recall", type: "snapshot", keyword: "公园" }));
  out.push(tool({ action: "read", type: "episode" }));
  out.push(tool({ action: "summary" }));
  out.push(tool({ action: "config" }));
  out.push(tool({ action: "status" }));
  out.push(tool({ action: "delete", type: "episode", content: "第3次在外婆家玩画画，主人说这次特别开心，还约好下次再一起去外婆家" }));
  return out;
}

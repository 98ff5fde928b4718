// What tools/episode-recall-bench.ts measures, the same code on Node and in XS:
// a simulated device whose storage partition holds EPISODES episodes (written
// one by one through the store, as months of conversations would), then
// - one recall of the top 3 for a user message (the S1 27 path: one header
//   scan of every slot, the texts of the hits, one batch of use counts):
//   bytes read, read calls, ms;
//   rank_ms is the part of it that is the header scan and the similarities;
//   the rest is reading three texts and writing their use counts (on the
//   simulated flash, whose JS costs more in XS than the device's flash would);
// - one add (AUDN: the same header scan, a text or two) and one upkeep pass
//   (forgetting, the cap), bytes read and ms.
// Times are the best of ROUNDS (other processes share the machine).
import { SimDevice } from "../../host-sim/device";
import { Episodes, type Signer } from "../../src/episode/episodes";
import type { EpisodeStoreApi, Episode } from "../../src/episode/types";
import { prng } from "../../host-sim/flash";

export const EPISODES = 800;
const ROUNDS = 5;
const T0 = Date.UTC(2026, 5, 1, 4, 0);
const DAY = 86400;

export interface RecallBench {
  episodes: number;
  slots: number;
  store_bytes: number; // every episode file
  recall_bytes_read: number;
  recall_reads: number;
  recall_bytes_written: number;
  recall_hits: number;
  recall_ms: number;
  rank_ms: number; // of recall_ms: the header scan and the similarities alone (no text read, nothing written)
  add_bytes_read: number;
  add_reads: number;
  add_ms: number;
  upkeep_bytes_read: number;
  upkeep_ms: number;
}

const WHO = ["我", "我和妈妈", "我和爸爸", "我和同学", "我和小红", "全家人", "我和奶奶", "我和表哥"];
const WHEN = ["今天", "昨天", "周末", "早上", "放学后", "晚上", "上个月", "暑假里"];
const DID = ["去公园放风筝", "在家包饺子", "去图书馆看书", "学游泳", "去动物园看熊猫", "练钢琴", "踢足球", "画了一幅画", "去海边捡贝壳", "做科学实验", "搭乐高城堡", "去爬山", "看了一场电影", "养了一条金鱼", "学做蛋糕", "骑自行车"];
const FELT = ["很开心", "有点累", "特别兴奋", "有点难过", "觉得很有意思", "想下次再去", "被夸奖了", "有点害怕", "笑了很久", "学到了新东西"];
const MORE = ["还遇到了邻居家的小狗", "回家路上下雨了", "拍了很多照片", "吃了冰淇淋", "认识了新朋友", "老师也在", "", "", ""];

function sentence(r: () => number): { content: string; keywords: string[] } {
  const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)];
  const did = pick(DID);
  const more = pick(MORE);
  return { content: `${pick(WHEN)}${pick(WHO)}${did}，${pick(FELT)}${more ? "，" + more : ""}。`, keywords: [did.slice(-2), pick(FELT).slice(-2)] };
}

function delta(store: EpisodeStoreApi, fn: () => void, now: () => number): { bytes: number; reads: number; written: number; ms: number } {
  const s = store.stats;
  const b = s.bytesRead, n = s.reads, w = s.bytesWritten;
  const t = now();
  fn();
  return { bytes: s.bytesRead - b, reads: s.reads - n, written: s.bytesWritten - w, ms: now() - t };
}

export function measure(now: () => number, makeStore: () => EpisodeStoreApi, signer: Signer): RecallBench {
  const dev = new SimDevice({ now: T0 }).install();
  const store = makeStore();
  store.open();
  const r = prng(2026);
  // written as the store would have taken them: one episode a batch, over two years
  for (let k = 0; k < EPISODES; k++) {
    const { content, keywords } = sentence(r);
    const at = Math.floor(T0 / 1000) - Math.floor(r() * 730) * DAY;
    const p = r() < 0.1 ? 100 : Math.floor(r() * 80) + 10;
    const ep: Episode = { slot: store.freeSlot(), id: store.nextId(), state: "active", content, keywords, emotion: "neutral", e: Math.floor(r() * 100), i: Math.floor(r() * 100), p, j: Math.floor(r() * 100), useCount: Math.floor(r() * 12), createdAt: at, lastActiveAt: at + Math.floor(r() * 30) * DAY, purgeAt: 0, source: "ai", sig: signer.signature(content, keywords) };
    store.write([ep]);
  }
  const eps = new Episodes(store, { signer });
  let recall = delta(store, () => void 0, now);
  let hits = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const d = delta(store, () => void (hits = eps.recall("周末我想和妈妈再去动物园看熊猫", 3).length), now);
    if (round === 0 || d.ms < recall.ms) recall = { ...d, ms: d.ms };
  }
  let rank = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const d = delta(
      store,
      () => {
        const q = signer.signature("周末我想和妈妈再去动物园看熊猫", []);
        let best = 0;
        store.scan((ep) => {
          const s = signer.similarity(q, ep.sig);
          if (s > best) best = s;
        });
      },
      now,
    );
    if (d.ms < rank) rank = d.ms;
  }
  let add = delta(store, () => void 0, now);
  for (let round = 0; round < ROUNDS; round++) {
    const d = delta(store, () => void eps.add({ content: `第${round}次和爷爷去钓鱼，钓到了一条大鲤鱼，爷爷笑得很开心`, e: 0.6, i: 0.5, p: 0.2, j: 0.6, keywords: "钓鱼,爷爷" }), now);
    if (round === 0 || d.ms < add.ms) add = d;
  }
  dev.clock.now = T0 + 3600000 * 2;
  const up = delta(store, () => void eps.maintain(), now);
  return {
    episodes: EPISODES,
    slots: store.slots,
    store_bytes: store.footprint(),
    recall_bytes_read: recall.bytes,
    recall_reads: recall.reads,
    recall_bytes_written: recall.written,
    recall_hits: hits,
    recall_ms: Math.round(recall.ms * 100) / 100,
    rank_ms: Math.round(rank * 100) / 100,
    add_bytes_read: add.bytes,
    add_reads: add.reads,
    add_ms: Math.round(add.ms * 100) / 100,
    upkeep_bytes_read: up.bytes,
    upkeep_ms: Math.round(up.ms * 100) / 100,
  };
}

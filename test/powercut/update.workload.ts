// A pet made with the formats from before issue 29, updated: its storage
// partition holds 36 months of the seed's rate archived by format 2 (UTF-8
// lines: facts, moments, events, digests of the moments retire took) and 400
// full-size version-1 episodes (two 672-byte text slots each), built through
// the old code paths (test/powercut/old-format.ts) and loaded as files,
// without writes: at the 3 MB partition's 75% line (the old formats reach it
// in their 26th month; the old device refused 5,128 records after that, which
// stayed in NVS). The episode migration drops `/ep.t1` first to make room
// (single-text mode, FORMAT.md §4.8; docs/design/update.md).
// After the update, idle steps do both migrations at once: the archive's
// sealed format-2 segments written again as format 3 (recode,
// docs/design/recode.md) and the episodes moved to version 2, their texts
// into passages (FORMAT.md §4.8), while the AI keeps using the device: facts
// and moments rolling out of NVS, recalls, queries, episodes written,
// recalled and read, an old fact and an old episode forgotten. Every
// prefilled fact, moment (or its month's digest), event and episode (its
// whole text and keywords) is the ledger's background or checked by
// verifyPet: none may be lost or appear twice, whichever write a fault hits.
import { fromLocal, formatDate } from "../../src/time/local";
import type { SimDevice } from "../../host-sim/device";
import type { Workload } from "./harness";
import { callTool, type Ai, type Booted } from "./device";
import type { Verdict } from "./oracle";
import { forget } from "./archive.workload";
import { buildOldPet, loadImage, type OldPet } from "./old-format";
import type { Kind } from "./ledger";

export const MONTHS = 36;
export const EPISODES = 400;
const WORDS = ["篮球", "画画", "小猫", "下雨", "苹果", "唱歌", "游泳", "钢琴", "恐龙", "宇宙", "北京", "生日"];
const START = fromLocal(2026, 3, 2, 9, 0);
// how long the run lets idle steps go (both migrations end well before, test/scenarios/update.scn.ts)
export const RUN_MS = 40 * 60000;

let pet: OldPet | undefined;
export function oldPet(dev?: SimDevice): OldPet {
  pet ??= buildOldPet(MONTHS, EPISODES, 3 * 1024 * 1024, dev);
  return pet;
}

// The ledger's background: every fact and moment the old device archived
// (moments retire takes may leave into their month's digest), every event
// (done one-offs long past, which the oracle knows by name only: verifyPet
// checks them), every active episode (the oracle's query sees them; the trash
// ones: verifyPet).
export function petBackground(p: OldPet): { kind: Kind; key: string; value: string; ts: number }[] {
  const out: { kind: Kind; key: string; value: string; ts: number }[] = [];
  for (const r of p.records) out.push({ kind: r.kind === "event" ? "schedule" : r.kind, key: r.key, value: r.value, ts: r.ts });
  for (const e of p.episodes) if (e.state === "active") out.push({ kind: "episode", key: e.content, value: e.content, ts: e.createdAt });
  return out;
}

function prefill(dev: SimDevice): { kind: Kind; key: string; value: string; ts: number }[] {
  const p = oldPet(dev);
  loadImage(dev, p.files);
  return petBackground(p);
}

// Checks beyond the oracle's, through the tool only: every event of the old
// pet is recalled (a month at a time) exactly once with its date, every
// episode of it (but those in `skip`, which the run deleted) has its whole
// text, its keywords and its state (a trash one may be purged), none twice.
// (`excused`: given when a format at the reboot took the storage partition:
// what it took, as the oracle's options say.)
export function verifyPet(p: OldPet, skip: ReadonlySet<number>, b: Booted, v: Verdict, excused?: ReadonlySet<string>): void {
  const fail = (m: string) => {
    if (v.failures.length < 6) v.failures.push(m);
  };
  // events
  const byMonth = new Map<string, { key: string; date: string }[]>();
  for (const r of p.records)
    if (r.kind === "event") {
      const m = r.date!.slice(0, 7);
      if (!byMonth.has(m)) byMonth.set(m, []);
      byMonth.get(m)!.push({ key: r.key, date: r.date! });
    }
  byMonth.forEach((evs, month) => {
    const last = evs.reduce((x, e) => (e.date > x ? e.date : x), "");
    const r = callTool(b.service, { action: "recall", type: "event", start_date: month + "-01", end_date: last, limit: 50 });
    const items = ((r.json ?? {}).items ?? []) as Record<string, any>[];
    if (!r.ok || (r.json && r.json.partial)) {
      v.ackedLost += evs.length;
      fail(`recall of the events of ${month} failed: ${r.text.slice(0, 120)}`);
      return;
    }
    for (const e of evs) {
      // the old events lived only in the archive: a format took them all
      // (the oracle's search for them is not exhaustive, so not by name)
      if (excused) continue;
      v.checked++;
      const n = items.filter((it) => it.content === e.key).length;
      if (n === 0) {
        v.ackedLost++;
        fail(`event ${JSON.stringify(e.key)} of ${e.date} (prefilled) is not recalled`);
      } else if (n > 1 || !items.some((it) => it.content === e.key && it.date === e.date)) {
        v.wrongReplies++;
        fail(`event ${JSON.stringify(e.key)} recalled ${n} times or with another date`);
      }
    }
  });
  // episodes: every one, a page at a time by id, with its keywords
  const want = new Map<number, { content: string; keywords: string; state: string }>();
  let top = 0;
  for (const e of p.episodes) {
    if (!skip.has(e.id)) want.set(e.id, { content: e.content, keywords: JSON.stringify(e.keywords), state: e.state });
    top = Math.max(top, e.id);
  }
  const got = new Map<number, Record<string, any>>();
  for (const state of ["active", "trash"]) {
    let after = 0;
    for (let page = 0; page < 400; page++) {
      const q = callTool(b.service, { action: "query", from: "episode", select: "id, content, keywords, state", where: `id > ${after} AND id <= ${top} AND state = '${state}'`, order_by: "id asc", limit: 50 });
      const rows = ((q.json ?? {}).rows ?? []) as Record<string, any>[];
      if (!q.ok || !q.json || q.json.partial) {
        fail(`query of episodes failed or is partial: ${q.text.slice(0, 120)}`);
        v.ackedLost++;
        break;
      }
      for (const r of rows) {
        if (got.has(r.id)) {
          v.wrongReplies++;
          fail(`episode ${r.id} shown twice`);
        }
        got.set(r.id, r);
        after = Math.max(after, r.id);
      }
      if (!rows.length || !(rows.length >= 50 || q.json.more || q.json.truncated)) break;
    }
  }
  want.forEach((w, id) => {
    if (excused?.has("episode\u0000" + w.content)) return;
    v.checked++;
    const r = got.get(id);
    if (!r) {
      if (w.state === "trash") return; // purged once its time is past
      v.ackedLost++;
      fail(`episode ${id} (prefilled) is gone`);
    } else if (r.content !== w.content || JSON.stringify(r.keywords) !== w.keywords || r.state !== w.state) {
      v.wrongReplies++;
      fail(`episode ${id} (prefilled): ${JSON.stringify(r).slice(0, 160)} is not what was kept`);
    }
  });
}

// ids of prefilled episodes the run deleted (acknowledged or maybe)
const forgotten = new Set<number>();

// One stretch of idle time with the day's traffic (deterministic: k counts stretches).
function traffic(ai: Ai, k: number): void {
  const p = oldPet();
  const w = WORDS[k % WORDS.length];
  switch (k % 6) {
    case 0:
      ai.call({ action: "write", type: "fact", content: `更新后的第${k}件事：主人说${w}很有意思` });
      break;
    case 1:
      ai.call({ action: "recall", type: "fact", keyword: w, limit: 5 });
      break;
    case 2:
      ai.call({ action: "write", type: "moment", topic: w, content: `更新后的第${k}个时刻：一起说起了${w}`, emotion: "happy", intensity: 3, importance: 3 });
      break;
    case 3: {
      const e = p.episodes[(k * 37) % EPISODES];
      ai.call({ action: "recall", type: "episode", message: e.content.slice(0, 20) });
      break;
    }
    case 4:
      ai.call({ action: "query", from: "episode", select: "id, content, keywords", where: `id >= ${(k * 13) % EPISODES} AND id < ${((k * 13) % EPISODES) + 5}`, limit: 5 });
      break;
    default:
      ai.call({ action: "recall", type: "moment", start_date: formatDate(p.records[(k * 101) % p.records.length].ts * 1000), limit: 5 });
  }
}

export const updateWorkload: Workload = {
  name: "update",
  start: START,
  prefill,
  verify: (_ai, b, v, opts) => verifyPet(oldPet(), forgotten, b, v, opts.excused),
  // a case takes about 15 s (the run, two checks of some 13,000 records): 20
  // cuts spread over the run's writes and 3 cases of every other kind keep
  // `--workload update` within about 15 minutes
  sweep: (kind) => (kind === "power_cut" ? { maxCases: 20 } : { maxCases: 3, seeds: 3, ops: 3 }),
  run(ai) {
    const start = ai.dev.clock.now;
    const p = oldPet();
    forgotten.clear();
    // before the first step: an old fact (format 2) forgotten, an episode written
    const old = p.records.find((r) => r.kind === "fact" && r.ts > p.records[0].ts + 200 * 86400)!;
    forget(ai, "fact", old.key);
    ai.call({ action: "write", type: "episode", content: "更新那天主人说今天特别想念外婆家的小院子", e: 0.6, i: 0.6, p: 0.5, j: 0.7, keywords: ["外婆家"], emotion: "touched" });
    // an old episode deleted before its migration
    const gone = p.episodes[3];
    forgotten.add(gone.id);
    ai.call({ action: "delete", type: "episode", content: gone.content });
    for (let k = 0; ai.dev.clock.now < start + RUN_MS; k++) {
      ai.advanceTo(ai.dev.clock.now + 15000);
      traffic(ai, k);
    }
  },
  after(ai) {
    for (let i = 0; i < 4; i++) ai.call({ action: "write", type: "fact", content: `断电之后的第${i}条` });
    ai.call({ action: "write", type: "episode", content: "断电之后主人说一切都好", e: 0.5, i: 0.5, p: 0.5, j: 0.5, keywords: ["断电"], emotion: "happy" });
    ai.advanceTo(ai.dev.clock.now + 10 * 60000); // the migrations a cut stopped go on
  },
};

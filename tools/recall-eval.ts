// npm run eval:recall (issue 25 item 4): the recall benchmark. Each synthetic
// pet life (tools/recall-eval/lives.ts) is lived on a simulated device booted
// as the device boots (src/app/boot.ts: NVS, the archive, the episode files),
// day by day with the clock moving: the tool calls a model makes, the lines
// the listener hears, the early-morning archive moves and the episodes'
// forgetting. At the end the questions are asked through the MCP tool:
//   search  keyword = the word a model would pick
//   recall  type = the type a model would pick, keyword (episode: message = the question)
//   context message = the question
// A question is answered at k when one of its first k returned items holds
// an `expect` marker; a negative is clean when none of its first 3 holds a
// `bad` marker (context: nor its whole block) (and "empty" when nothing came
// back at all). An answer without
// a ranked list (context before issue 25: one block) counts as one item.
// bytes_read: flash bytes of the storage partition read per question.
// Baseline: plain BM25 (k1 1.2, b 0.75) over character unigrams and bigrams of
// every item the life wrote (nothing forgotten), given the question's text.
// Prints JSON lines: one per split × action × kind, negatives, baseline, then
// {"summary":…} last. Usage: npx tsx tools/recall-eval.ts [--held-out|--tuning] [--life ID] [--show]
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import { bootDevice } from "../src/app/boot";
import { makeLives, type Life, type Question, type Call } from "./recall-eval/lives";
import { TUNING } from "./recall-eval/tuning";
import { HELD_OUT } from "./recall-eval/heldout";

(globalThis as unknown as { trace: (s: string) => void }).trace = () => {};

const argv = process.argv.slice(2);
const only = argv.indexOf("--held-out") >= 0 ? "held-out" : argv.indexOf("--tuning") >= 0 ? "tuning" : "";
const lifeArg = argv.indexOf("--life") >= 0 ? argv[argv.indexOf("--life") + 1] : "";
const show = argv.indexOf("--show") >= 0;

export const LIVES: Life[] = [...makeLives(TUNING, 24, false, 11), ...makeLives(HELD_OUT, 8, true, 977)];

const DAY = 86400000;
const ACTIONS = ["search", "recall", "context"] as const;
type Action = (typeof ACTIONS)[number] | "baseline";

interface Outcome {
  split: string;
  action: Action;
  kind: string;
  hit1: boolean;
  hit3: boolean;
  clean?: boolean;
  empty?: boolean;
  bytes: number;
}

function has(s: string, markers: readonly string[]): boolean {
  for (const m of markers) if (s.indexOf(m) >= 0) return true;
  return false;
}

// the ranked items of a reply, as text
function ranked(action: string, json: any): string[] {
  if (!json) return [];
  // the ranked hits of the one retrieval (issue 25), where the reply has them
  if (Array.isArray(json.hits)) return json.hits.map((h: unknown) => JSON.stringify(h));
  if (action === "context") return json.context ? [json.context] : [];
  const list: string[] = (json.items ?? []).map((x: unknown) => JSON.stringify(x));
  if (json.archived && typeof json.archived === "object") for (const k of Object.keys(json.archived)) for (const x of json.archived[k]) list.push(JSON.stringify(x));
  return list;
}

function judge(q: Question, list: string[], block = ""): { hit1: boolean; hit3: boolean; clean?: boolean; empty?: boolean } {
  if (q.kind === "negative") {
    const top = list.slice(0, 3).concat(block ? [block] : []);
    return { hit1: false, hit3: false, clean: !top.some((s) => has(s, q.bad ?? [])), empty: list.length === 0 };
  }
  return { hit1: list.length > 0 && has(list[0], q.expect), hit3: list.slice(0, 3).some((s) => has(s, q.expect)) };
}

// ---- the baseline -----------------------------------------------------------------------
function grams(s: string): string[] {
  const out: string[] = [];
  const cs = Array.from(s.toLowerCase()).filter((c) => /[\p{L}\p{N}]/u.test(c));
  for (let i = 0; i < cs.length; i++) {
    out.push(cs[i]);
    if (i + 1 < cs.length) out.push(cs[i] + cs[i + 1]);
  }
  return out;
}
function textsOf(life: Life): string[] {
  const docs: string[] = [];
  for (const d of life.plan) {
    for (const c of d.calls) {
      const parts = [c.type, c.relation, c.name, c.memory, c.content, c.datetime].filter((x) => typeof x === "string" && x) as string[];
      docs.push(parts.join(" "));
    }
    for (const h of d.hear ?? []) docs.push(h);
  }
  return docs;
}
function bm25(docs: string[], q: string, k = 3): string[] {
  const toks = docs.map(grams);
  const avg = toks.reduce((a, t) => a + t.length, 0) / toks.length;
  const df = new Map<string, number>();
  for (const t of toks) for (const g of new Set(t)) df.set(g, (df.get(g) ?? 0) + 1);
  const N = docs.length;
  const qs = grams(q);
  const scores = toks.map((t, i) => {
    const tf = new Map<string, number>();
    for (const g of t) tf.set(g, (tf.get(g) ?? 0) + 1);
    let s = 0;
    for (const g of qs) {
      const f = tf.get(g);
      if (!f) continue;
      const n = df.get(g)!;
      const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
      s += (idf * f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * t.length) / avg));
    }
    return { i, s };
  });
  return scores.filter((x) => x.s > 0).sort((a, b) => b.s - a.s).slice(0, k).map((x) => docs[x.i]);
}

// ---- a life on the device ---------------------------------------------------------------
function live(life: Life, outcomes: Outcome[]): void {
  const dev = new SimDevice({ now: life.start - 4 * 3600000 }).install();
  const booted = bootDevice();
  const svc = booted.service;
  booted.maintenance?.stop();
  let id = 0;
  const call = (args: Call): { isError: boolean; text: string; json: any } => {
    const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "memory", arguments: args } }))!);
    const text: string = r.result.content[0].text;
    let json: any;
    if (!r.result.isError) json = JSON.parse(text);
    return { isError: !!r.result.isError, text, json };
  };
  const plan = new Map(life.plan.map((d) => [d.day, d]));
  for (let day = 0; day < life.days; day++) {
    const noon = life.start + day * DAY;
    // the early morning: the archive's moves and the episodes' upkeep
    dev.clock.now = noon - 9 * 3600000;
    try {
      booted.archiver?.maintenance(dev.clock.now);
    } catch {}
    for (let s = 0; s < 50 && booted.episodes; s++) if (!booted.episodes.maintain(dev.clock.now).more) break;
    dev.clock.now = noon;
    const d = plan.get(day);
    if (!d) continue;
    for (const c of d.calls) {
      const r = call(c);
      if (r.isError && show) process.stderr.write(`${life.id} day ${day}: ${JSON.stringify(c)} → ${r.text}\n`);
    }
    if (d.hear && d.hear.length) {
      dev.clock.now += 3600000;
      for (const h of d.hear) svc.hear("user", h);
      svc.listener.end("explicit");
    }
  }
  dev.clock.now = life.start + (life.days - 1) * DAY + 8 * 3600000; // 20:00 of the last day
  const split = life.heldOut ? "held-out" : "tuning";
  const docs = textsOf(life);
  for (const q of life.questions) {
    for (const action of ACTIONS) {
      const args: Call =
        action === "search" ? { action, keyword: q.kw } : action === "context" ? { action, message: q.q } : q.rtype === "episode" ? { action, type: "episode", message: q.q } : { action, type: q.rtype, keyword: q.kw };
      const before = dev.flash.partition("storage").bytesRead;
      const r = call(args);
      const bytes = dev.flash.partition("storage").bytesRead - before;
      const list = r.isError ? [] : ranked(action, r.json);
      const j = judge(q, list, action === "context" && !r.isError ? String(r.json.context ?? "") : "");
      outcomes.push({ split, action, kind: q.kind, bytes, ...j });
      if (show && (q.kind === "negative" ? !j.clean : !j.hit3)) process.stderr.write(`MISS ${life.id} ${action} [${q.kind}] ${q.q} kw=${q.kw} expect=${q.expect.join("|")} bad=${(q.bad ?? []).join("|")}\n   → ${r.isError ? r.text : list.slice(0, 3).join("\n     ")}\n`);
    }
    const top = bm25(docs, q.q);
    outcomes.push({ split, action: "baseline", kind: q.kind, bytes: 0, ...judge(q, top) });
  }
}

const outcomes: Outcome[] = [];
for (const life of LIVES) {
  if (only === "held-out" && !life.heldOut) continue;
  if (only === "tuning" && life.heldOut) continue;
  if (lifeArg && life.id.indexOf(lifeArg) < 0) continue;
  live(life, outcomes);
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const line = (o: object) => process.stdout.write(JSON.stringify(o) + "\n");
const summary: Record<string, unknown> = { lives: 0, questions: 0 };
const splits = Array.from(new Set(outcomes.map((o) => o.split)));
summary.lives = LIVES.filter((l) => (!only || (only === "held-out") === l.heldOut) && (!lifeArg || l.id.indexOf(lifeArg) >= 0)).length;
summary.questions = outcomes.filter((o) => o.action === "baseline").length;
for (const split of splits) {
  const mine = outcomes.filter((o) => o.split === split);
  const sum: Record<string, unknown> = {};
  for (const action of [...ACTIONS, "baseline"] as Action[]) {
    const a = mine.filter((o) => o.action === action);
    const pos = a.filter((o) => o.kind !== "negative");
    const neg = a.filter((o) => o.kind === "negative");
    for (const kind of Array.from(new Set(pos.map((o) => o.kind)))) {
      const k = pos.filter((o) => o.kind === kind);
      line({ split, action, kind, n: k.length, hit1: r3(k.filter((o) => o.hit1).length / k.length), hit3: r3(k.filter((o) => o.hit3).length / k.length) });
    }
    const bytes = a.map((o) => o.bytes);
    const s = {
      answerable: pos.length,
      hit1: r3(pos.filter((o) => o.hit1).length / pos.length),
      hit3: r3(pos.filter((o) => o.hit3).length / pos.length),
      negatives: neg.length,
      negatives_clean: r3(neg.filter((o) => o.clean).length / neg.length),
      negatives_empty: r3(neg.filter((o) => o.empty).length / neg.length),
      bytes_read_mean: Math.round(bytes.reduce((x, y) => x + y, 0) / bytes.length),
      bytes_read_max: Math.max(...bytes),
    };
    line({ split, action, kind: "all", ...s });
    sum[action] = { hit1: s.hit1, hit3: s.hit3, negatives_clean: s.negatives_clean, bytes_read_mean: s.bytes_read_mean, bytes_read_max: s.bytes_read_max };
  }
  summary[split] = sum;
}
line({ summary });

// The absolute oracle. After a fault and a reboot, through the memory tool
// only (`read`, `recall`, `search`, `status` when the tool has it):
//
//   acked_lost    a ledger record whose acknowledged value (or one of the
//                 values attempted after it) is not what the device shows;
//                 a deleted record that is back counts too (its delete was
//                 acknowledged). Facts never leave (a prefilled archive's
//                 too). A moment may leave the flash only oldest first and
//                 only into a digest: an absent moment is excused when every
//                 older moment is absent too and recall of its month returns a
//                 digest item; any other gap counts.
//   wrong_replies a reply that serves damaged data as if whole: a successful
//                 reply (isError false, no top-level `damaged` key) holding a
//                 record whose value was never acknowledged nor attempted for
//                 its kind, the same record twice (in one list, or both in NVS
//                 memory and in the archive), a reminder delivered again after
//                 the reboot although the user already got it, or a `read`
//                 that is not JSON. A reply that carries `damaged` has said so.
//   boot_failures boot (src/main.ts's sequence) threw.
//
// It never compares with another run.
import { Ledger, type Entry, type Kind } from "./ledger";
import { callTool, value, type Ai, type Booted, type Reply } from "./device";
import { byteLength } from "../../src/text/utf8";
import { parseLocal, formatDate } from "../../src/time/local";
import { DEFAULT_CLEANUP_DAYS } from "../../src/schedule/schedules";

const CLEANUP_MS = DEFAULT_CLEANUP_DAYS * 86400000;

export interface Verdict {
  ackedLost: number;
  wrongReplies: number;
  checked: number; // ledger records checked
  failures: string[]; // what went wrong, for a human (the first few)
}

export function blankVerdict(): Verdict {
  return { ackedLost: 0, wrongReplies: 0, checked: 0, failures: [] };
}

const MAX_FAILURES = 6;
function fail(v: Verdict, msg: string): void {
  if (v.failures.length < MAX_FAILURES) v.failures.push(msg);
}

type Seen = Map<string, string[]>; // key -> values shown (more than one: shown twice)

interface Observed {
  hot: Map<Kind, Seen>; // from read (NVS memory)
  archived: Map<Kind, Seen>; // from recall (its items marked archived)
  schedules: { content: string; datetime: string }[]; // read's upcoming open schedules
}

function put(m: Map<Kind, Seen>, kind: Kind, key: string, val: string): void {
  let s = m.get(kind);
  if (!s) m.set(kind, (s = new Map()));
  const l = s.get(key);
  if (l) l.push(val);
  else s.set(key, [val]);
}

const said = (r: Reply) => !!r.json && r.json.damaged !== undefined;

// Options of one check.
export interface CheckOptions {
  // records the device may have lost without blame (mount_failure formats the
  // archive): kind\u0000key
  excused?: Set<string>;
}

// Checks the booted device against the ledger.
export function check(ai: Ai, b: Booted, v: Verdict, opts: CheckOptions = {}): void {
  const L = ai.ledger;
  const svc = b.service;
  const obs: Observed = { hot: new Map(), archived: new Map(), schedules: [] };
  const wrong = (r: Reply, what: string) => {
    if (said(r)) return;
    v.wrongReplies++;
    fail(v, what);
  };

  // ---- read: the hot memory ------------------------------------------------------
  const read = callTool(svc, { action: "read" });
  let readOk = false;
  if (!read.ok || !read.json) fail(v, `read failed: ${read.text.slice(0, 160)}`);
  else {
    readOk = true;
    const j = read.json as Record<string, any>;
    const p = j.profile ?? {};
    for (const f of ["name", "age", "gender", "location", "birthday"]) if (p[f] !== undefined) put(obs.hot, "profile", f, String(p[f]));
    for (const x of j.preferences?.likes ?? []) put(obs.hot, "like", x, x);
    for (const x of j.preferences?.dislikes ?? []) put(obs.hot, "dislike", x, x);
    for (const f of j.family ?? []) put(obs.hot, "family", f.name || f.relation, value.family(f.relation, f.name, f.closeness, f.memory ?? ""));
    for (const x of j.facts ?? []) put(obs.hot, "fact", x, x);
    for (const x of j.traits ?? []) {
      const i = x.indexOf(": ");
      put(obs.hot, "trait", i >= 0 ? x.slice(i + 2) : x, x);
    }
    for (const x of j.habits ?? []) put(obs.hot, "habit", x.slice(0, x.lastIndexOf(" (")), x);
    for (const x of j.moments ?? []) put(obs.hot, "moment", x.content, value.moment(x.topic, x.content));
    for (const x of j.goals ?? []) put(obs.hot, "goal", x.content, value.goal(x.content, x.priority));
    for (const s of j.schedules ?? []) {
      obs.schedules.push({ content: s.content, datetime: s.datetime });
      if (!L.get("schedule", s.content) && !heardOf(ai, "schedule", s.content)) wrong(read, `read shows a schedule never written: ${JSON.stringify(s.content)}`);
    }
    if (j.truncated) fail(v, "read was truncated: the workload must stay within the read budget");
    // what the device said was confirmed is stored by boot (Listener.recover)
    for (const p of j.pending ?? [])
      if (p.confirmed && p.type !== "schedule") {
        v.ackedLost++;
        fail(v, `a confirmed ${p.type} ${JSON.stringify(p.content)} is still pending after boot`);
      }
    // never written, or shown twice
    obs.hot.forEach((seen, kind) =>
      seen.forEach((vals, key) => {
        for (const x of vals) if (!L.known(kind, x) && !heardOf(ai, kind, x)) wrong(read, `read shows a ${kind} never written: ${JSON.stringify(x)}`);
        if (vals.length > 1) wrong(read, `read shows the ${kind} ${JSON.stringify(key)} ${vals.length} times`);
      }),
    );
  }

  // ---- episodes (when the workload kept some): every active one, streamed from flash -------
  let episodesOk = true;
  if (L.all().some((e) => e.kind === "episode")) {
    // a page at a time, by id (a prefilled store holds hundreds; a reply
    // holds at most 50 rows and fewer long texts: `more`, `truncated`)
    let after = 0;
    for (let page = 0; page < 400; page++) {
      const q = callTool(svc, { action: "query", from: "episode", select: "id, content", where: `id > ${after}`, order_by: "id asc", limit: 50 });
      if (!q.ok || !q.json || !Array.isArray(q.json.rows) || q.json.partial) {
        episodesOk = false;
        fail(v, `query of episodes failed or is partial: ${q.text.slice(0, 160)}`);
        break;
      }
      const rows = q.json.rows as { id: number; content: string }[];
      for (const row of rows) {
        put(obs.hot, "episode", row.content, row.content);
        if (!L.known("episode", row.content)) wrong(q, `an episode never written: ${JSON.stringify(row.content)}`);
        if (!(row.id > after)) {
          wrong(q, `episodes out of order: id ${row.id} after ${after}`);
          page = 400;
          break;
        }
        after = row.id;
      }
      if (!rows.length || !(rows.length >= 50 || q.json.more || q.json.truncated)) break;
    }
    obs.hot.get("episode")?.forEach((vals, key) => {
      if (vals.length > 1) wrong(read, `the episode ${JSON.stringify(key)} is there ${vals.length} times`);
    });
    // the newest few found again by a word of their text: the first text query
    // after boot takes its candidates from the slot index (FORMAT.md §4.9) when
    // it is current, and one that wrongly rules a slot out loses that episode
    if (episodesOk) {
      const newest = [...(obs.hot.get("episode")?.keys() ?? [])].slice(-6);
      for (const c of newest) {
        const cs = [...c];
        const word = cs.slice(Math.max(0, cs.length - 4)).join("");
        if (cs.length < 2 || word.indexOf("'") >= 0) continue;
        const q = callTool(svc, { action: "query", from: "episode", select: "id, content", where: `content CONTAINS '${word}'`, limit: 50 });
        const rows = q.ok && q.json && Array.isArray(q.json.rows) ? (q.json.rows as { content: string }[]) : undefined;
        if (!rows || !rows.some((r) => r.content === c)) {
          v.ackedLost++;
          fail(v, `the episode ${JSON.stringify(c)} is shown by id but not found by a word of it (${JSON.stringify(word)}): ${q.text.slice(0, 160)}`);
        }
      }
    }
  }

  // ---- status (when the tool has it): answers after any fault ---------------------------
  const st = callTool(svc, { action: "status" });
  if (!(!st.ok && /action must be one of/.test(st.text)) && (!st.ok || !st.json)) {
    v.wrongReplies++;
    fail(v, `status failed: ${st.text.slice(0, 160)}`);
  }

  // ---- recall: NVS and the archive, newest first; the archived items -------------------
  for (const type of ["fact", "moment", "event"] as const) {
    const r = callTool(svc, { action: "recall", type, limit: 50 });
    if (!r.ok || !r.json) {
      fail(v, `recall ${type} failed: ${r.text.slice(0, 160)}`);
      continue;
    }
    const items = (r.json.items ?? []) as Record<string, any>[];
    const ids = new Set<string>();
    for (const it of items) {
      if (ids.has(it.id)) wrong(r, `recall ${type} shows id ${it.id} twice`);
      ids.add(it.id);
      if (it.digest === true) {
        checkDigest(ai, r, it, wrong);
        continue;
      }
      // recall sees NVS too: its records are read's (a record in both comes back
      // once, marked archived, so the check below still sees it in both)
      if (it.archived !== true) continue;
      if (type === "event") {
        if (!L.get("schedule", String(it.content)) && !heardOf(ai, "schedule", String(it.content))) wrong(r, `recall shows an event never written: ${JSON.stringify(it.content)}`);
        // an archived event must have left the events store (resolveAtBoot)
        const f = callTool(svc, { action: "search", keyword: keywordOf(String(it.content)), limit: 50 });
        const hits = ((f.json ?? {}) as Record<string, any>).items ?? [];
        if (hits.some((h: any) => h.where === "schedule" && h.text === `${it.content} at ${it.date} ${it.time}`)) wrong(r, `the event ${JSON.stringify(it.content)} is both in memory and in the archive`);
        continue;
      }
      const kind: Kind = type;
      const val = type === "fact" ? it.content : value.moment(it.topic ?? "", it.content);
      if (!L.known(kind, val) && !heardOf(ai, kind, val)) wrong(r, `recall shows a ${type} never written: ${JSON.stringify(val)}`);
      if (obs.hot.get(kind)?.has(it.content)) wrong(r, `the ${type} ${JSON.stringify(it.content)} is both in memory and in the archive`);
      put(obs.archived, kind, it.content, val);
    }
  }

  // ---- the archive swept by time: every archived fact and moment, a window at a time --------
  const swept = sweep(ai, svc, obs, v, wrong);

  // ---- every ledger record -----------------------------------------------------------------
  const nowMs = ai.dev.clock.now;
  const moments: { e: Entry; present: boolean; excusable: boolean }[] = [];
  for (const e of L.all()) {
    if (e.acked === undefined) continue;
    v.checked++;
    if (e.kind === "schedule") {
      checkSchedule(svc, e, obs, nowMs, v, readOk, opts.excused?.has("schedule\u0000" + e.key) ?? false);
      continue;
    }
    let shown = lookup(obs, e);
    // the sweep read every archived record of its range: a search would find nothing more
    if (shown === undefined && (e.kind === "fact" || e.kind === "moment") && !(e.ts !== undefined && swept.has(e.kind, e.ts))) shown = searchFor(svc, e, v);
    const allowed = [e.acked].concat(e.maybe);
    const got = shown === undefined ? null : shown;
    if (e.kind === "moment" && e.acked !== null && e.ts !== undefined) moments.push({ e, present: got !== null, excusable: got === null && allowed.indexOf(got) < 0 });
    if (allowed.indexOf(got) >= 0) continue;
    if ((!readOk && e.kind !== "fact" && e.kind !== "moment") || (!episodesOk && e.kind === "episode")) {
      v.ackedLost++;
      continue;
    }
    if (opts.excused?.has(e.kind + "\u0000" + e.key) && got === null) continue;
    if (e.kind === "moment" && got === null && e.ts !== undefined) continue; // retired? decided below
    v.ackedLost++;
    fail(v, `${e.kind} ${JSON.stringify(e.key)}${e.background !== undefined ? " (prefilled)" : ""}: acknowledged ${JSON.stringify(e.acked)}${e.maybe.length ? ` (or ${JSON.stringify(e.maybe)})` : ""}, the device shows ${JSON.stringify(got)}`);
  }
  // retire takes the oldest moments first, whole segments at a time, and folds
  // them into monthly digests: an absent moment with a present older one is
  // lost, and so is one whose month has no digest
  moments.sort((x, y) => x.e.ts! - y.e.ts!);
  let oldestPresent = moments.length;
  for (let i = 0; i < moments.length; i++)
    if (moments[i].present) {
      oldestPresent = i;
      break;
    }
  const months = new Map<string, number>(); // month of retired moments -> newest of them (unix s)
  for (let i = 0; i < moments.length; i++) {
    const m = moments[i];
    if (!m.excusable || opts.excused?.has("moment\u0000" + m.e.key)) continue;
    if (i > oldestPresent) {
      v.ackedLost++;
      fail(v, `moment ${JSON.stringify(m.e.key)}${m.e.background !== undefined ? " (prefilled)" : ""} is gone although an older one is still there`);
      continue;
    }
    const month = formatDate(m.e.ts! * 1000).slice(0, 7);
    months.set(month, Math.max(months.get(month) ?? 0, m.e.ts!));
  }
  months.forEach((newest, month) => {
    const r = callTool(svc, { action: "recall", type: "moment", start_date: month + "-01", end_date: formatDate(newest * 1000), limit: 50 });
    const items = ((r.json ?? {}).items ?? []) as Record<string, any>[];
    let found = false;
    for (const it of items) {
      if (it.digest !== true) continue;
      checkDigest(ai, r, it, wrong);
      found = true;
    }
    if (!found) {
      const lost = moments.filter((m) => m.excusable && formatDate(m.e.ts! * 1000).slice(0, 7) === month).length;
      v.ackedLost += lost;
      fail(v, `${lost} moments of ${month} left the flash and recall of the month shows no digest of them${r.ok ? "" : `: ${r.text.slice(0, 120)}`}`);
    }
  });

  // ---- reminders: at most once ------------------------------------------------------------
  for (const r of b.reminded)
    if (countOf(ai.delivered, r) > 1) {
      v.wrongReplies++;
      fail(v, `reminder ${r} delivered again after the reboot`);
    }
}

function countOf(l: string[], x: string): number {
  let n = 0;
  for (const y of l) if (y === x) n++;
  return n;
}

// Listened memories: the listener's own reply (what it heard) is their universe.
function heardOf(ai: Ai, kind: Kind, val: string): boolean {
  if (!ai.heard.length) return false;
  const core = kind === "family" ? val.split("|")[1] || val.split("|")[0] : kind === "moment" ? val.split("|")[1] : val;
  for (const h of ai.heard) if (h === core || (core && h.indexOf(core) >= 0) || (h && core.indexOf(h) >= 0)) return true;
  return false;
}

function lookup(obs: Observed, e: Entry): string | undefined {
  const hot = obs.hot.get(e.kind)?.get(e.key);
  if (hot) return hot[0];
  const arc = obs.archived.get(e.kind)?.get(e.key);
  if (arc) return arc[0];
  return undefined;
}

// A keyword for search: the record's key, or its first characters.
function keywordOf(key: string): string {
  if (byteLength(key) <= 60) return key;
  let k = "";
  for (const ch of key) {
    if (byteLength(k + ch) > 60) break;
    k += ch;
  }
  return k;
}

function searchFor(svc: Booted["service"], e: Entry, v: Verdict): string | undefined {
  const r = callTool(svc, { action: "search", keyword: keywordOf(e.key), limit: 50 });
  if (!r.ok || !r.json) {
    fail(v, `search failed: ${r.text.slice(0, 120)}`);
    return undefined;
  }
  const j = r.json as Record<string, any>;
  for (const h of j.items ?? []) {
    if (e.kind === "fact" && h.where === "fact" && h.text === e.key) return h.text;
    if (e.kind === "moment" && h.where === "moment" && String(h.text).endsWith(": " + e.key)) return value.moment(String(h.text).slice(0, String(h.text).length - e.key.length - 2), e.key);
  }
  const arc = (j.archived ?? {})[e.kind] ?? [];
  for (const it of arc) if (it.content === e.key && it.digest !== true) return e.kind === "fact" ? it.content : value.moment(it.topic ?? "", it.content);
  // a search that spent its flash read budget (issue 25: 32 KB a call) did not
  // read the older archive: the record's own day is recalled instead
  if (j.archive_cut !== undefined && e.ts !== undefined) {
    const day = formatDate(e.ts * 1000);
    const d = callTool(svc, { action: "recall", type: e.kind, start_date: day, end_date: day, limit: 50 });
    for (const it of ((d.json ?? {}) as Record<string, any>).items ?? []) if (it.content === e.key && it.digest !== true) return e.kind === "fact" ? it.content : value.moment(it.topic ?? "", it.content);
    // still past the budget (look-alike records of that day came first): the
    // record must be readable all the same, so the archive itself is asked,
    // without a budget (what a later call, or the export, reads)
    const a = svc.tool.archive;
    if (a && (e.kind === "fact" || e.kind === "moment"))
      for (const it of a.recall(e.kind, { keyword: keywordOf(e.key), start: day, end: day, limit: 50 }) as Record<string, any>[])
        if (it.content === e.key && it.digest !== true) return e.kind === "fact" ? it.content : value.moment(it.topic ?? "", it.content);
  }
  return undefined;
}

// Schedules: a series ("open") has exactly one open occurrence among the
// upcoming ones; a one-off "open@dt" is upcoming, or, once past, still found
// by search (or archived); "done@dt" is no longer open; null is gone.
function checkSchedule(svc: Booted["service"], e: Entry, obs: Observed, nowMs: number, v: Verdict, readOk: boolean, excused: boolean): void {
  const mine = obs.schedules.filter((s) => s.content === e.key);
  let searched: { hits: string[]; archived: boolean } | undefined;
  const search = () => {
    if (searched) return searched;
    const r = callTool(svc, { action: "search", keyword: keywordOf(e.key), limit: 50 });
    const j = (r.json ?? {}) as Record<string, any>;
    const hits: string[] = [];
    for (const h of j.items ?? []) if (h.where === "schedule") hits.push(String(h.text));
    const archived = ((j.archived ?? {}).event ?? []).some((it: any) => it.content === e.key);
    return (searched = { hits, archived });
  };
  const holds = (s: string | null): boolean => {
    if (s === null) return mine.length === 0 && !search().hits.some((h) => h.indexOf(e.key + " at ") === 0);
    // a series whose open occurrence is not upcoming (it moves on only when
    // the next one enters the reminder window) is found by search
    if (s === "open") return mine.length === 1 || (mine.length === 0 && search().hits.some((h) => h.indexOf(e.key + " at ") === 0));
    const dt = s.slice(s.indexOf("@") + 1);
    const at = parseLocal(dt) ?? 0;
    // a one-off more than 30 days past may be cleaned up (Schedules.cleanup)
    const kept = () => excused || at < nowMs - CLEANUP_MS || search().hits.indexOf(`${e.key} at ${dt}`) >= 0 || search().archived;
    if (s.indexOf("done@") === 0) return !mine.some((x) => x.datetime === dt) && kept();
    if (at >= nowMs - 3600000 + 60000) return mine.some((x) => x.datetime === dt);
    if (at >= nowMs - 3600000 - 60000) return true; // at the edge of read's window
    return kept();
  };
  if (mine.length > 1 && e.acked === "open") {
    v.wrongReplies++;
    fail(v, `schedule ${JSON.stringify(e.key)} is open ${mine.length} times`);
    return;
  }
  const allowed = [e.acked as string | null].concat(e.maybe);
  for (const s of allowed) if (holds(s)) return;
  v.ackedLost++;
  if (!readOk) return;
  fail(v, `schedule ${JSON.stringify(e.key)}: acknowledged ${JSON.stringify(e.acked)}${e.maybe.length ? ` (or ${JSON.stringify(e.maybe)})` : ""}, open: ${JSON.stringify(mine.map((x) => x.datetime))}`);
}

export type { Ledger };

// A digest item (a month of moments that left the flash): it speaks of a month
// in which the ledger knows moments, and of a positive number of them.
function checkDigest(ai: Ai, r: Reply, it: Record<string, any>, wrong: (r: Reply, what: string) => void): void {
  if (!(Number(it.count) > 0)) wrong(r, `a digest of ${JSON.stringify(it.month)} counts ${JSON.stringify(it.count)} moments`);
  const month = typeof it.month === "string" ? it.month : "";
  if (!/^\d{4}-\d{2}$/.test(month)) return; // (the placeholder digest on main has none)
  let known = false;
  for (const e of ai.ledger.all()) if (e.kind === "moment" && e.ts !== undefined && formatDate(e.ts * 1000).slice(0, 7) === month) known = true;
  if (!known) wrong(r, `recall shows a digest of ${month}, a month without moments`);
}

// The windows of days whose recall came back whole, per kind (unix s, inclusive).
class Swept {
  windows = new Map<Kind, { lo: number; hi: number }[]>();
  add(kind: Kind, from: string, to: string): void {
    let l = this.windows.get(kind);
    if (!l) this.windows.set(kind, (l = []));
    l.push({ lo: parseLocal(from + "T00:00:00")! / 1000, hi: parseLocal(to + "T23:59:59")! / 1000 });
  }
  has(kind: Kind, ts: number): boolean {
    for (const w of this.windows.get(kind) ?? []) if (ts >= w.lo && ts <= w.hi) return true;
    return false;
  }
}

const DAY_S = 86400;

// Reads every archived fact and moment whose time lies within the ledger's
// records of that kind, by recall over windows of dates (a window that
// returns a full page is split), into obs.archived. One recall per window
// instead of one search per record: a prefilled archive holds hundreds. A
// window whose recall does not come back whole (damage the device says it
// met, a page full at the last split) is not swept: its records are searched
// one by one; the other windows stay swept.
function sweep(ai: Ai, svc: Booted["service"], obs: Observed, v: Verdict, wrong: (r: Reply, what: string) => void): Swept {
  const out = new Swept();
  for (const kind of ["fact", "moment"] as const) {
    let lo = Infinity, hi = -Infinity, n = 0;
    for (const e of ai.ledger.all())
      if (e.kind === kind && e.ts !== undefined) {
        lo = Math.min(lo, e.ts);
        hi = Math.max(hi, e.ts);
        n++;
      }
    if (n < 20) continue; // a search each is cheaper
    const loDay = formatDate(lo * 1000), hiDay = formatDate(hi * 1000);
    let incomplete = 0;
    // windows to look at, depth first as a recursion would take them, on a
    // list: in XS the lane's stack is the device's 1,024 slots, and a split
    // 5 deep under the MCP call and the harness had overflowed it
    const todo: [string, string, number][] = [[loDay, hiDay, 0]];
    const window = (from: string, to: string, depth: number): void => {
      const r = callTool(svc, { action: "recall", type: kind, start_date: from, end_date: to, limit: 50 });
      // a window whose recall spent its flash read budget (issue 25: 32 KB a call) is split too
      const spent = !!r.json && r.json.partial === true && r.json.archive_cut !== undefined && from !== to && depth < 24;
      if (!r.ok || !r.json || !Array.isArray(r.json.items) || (r.json.partial && !spent)) {
        incomplete++;
        return;
      }
      const items = r.json.items as Record<string, any>[];
      const records = items.filter((it) => it.digest !== true);
      if ((spent || items.length >= 50) && from !== to && depth < 24) {
        // a full page: split the window in two halves of days
        const a = parseLocal(from + "T12:00:00")!, b = parseLocal(to + "T12:00:00")!;
        const mid = formatDate(a + Math.floor((b - a) / DAY_S / 1000 / 2) * DAY_S * 1000);
        todo.push([formatDate(parseLocal(mid + "T12:00:00")! + DAY_S * 1000), to, depth + 1], [from, mid, depth + 1]);
        return;
      }
      if (items.length >= 50) incomplete++;
      else out.add(kind, from, to);
      for (const it of items) if (it.digest === true) checkDigest(ai, r, it, wrong);
      for (const it of records) {
        const content = String(it.content);
        const val = kind === "fact" ? content : value.moment(it.topic ?? "", content);
        if (!ai.ledger.known(kind, val) && !heardOf(ai, kind, val)) wrong(r, `recall shows a ${kind} never written: ${JSON.stringify(val)}`);
        if (obs.hot.get(kind)?.has(content)) continue; // NVS's (recall sees both): read showed it
        if (!obs.archived.get(kind)?.has(content)) put(obs.archived, kind, content, val);
      }
    };
    while (todo.length) window(...todo.pop()!);
    if (incomplete) fail(v, `the ${kind} archive could not be swept by recall in ${incomplete} windows (searched instead)`);
  }
  return out;
}

// Devices from before issue 29's formats, for the tests of the update: an
// archive of format 2 (UTF-8 lines, written with setWriteFormat(2)) and an
// episode store of version 1 (two 672-byte text slots per episode, FORMAT.md
// §4.2 version 1 and §4.3's text records). Built through the old-format code
// paths on a device of their own and handed out as files, loaded without
// writes (SimDevice.spiffs.load). No Node APIs: both lanes use it.
import config from "mc/config";
import { Archive } from "../../src/archive/archive";
import { ArchiveError } from "../../src/archive/file";
import { setWriteFormat, VERSION } from "../../src/archive/codec";
import { HEADER_BYTES, TEXT_BYTES, TOMB_BYTES, checkEpisode, encodeHeader, encodeText, put32 } from "../../src/episode/record";
import { crc32 } from "../../src/nvs/crc32";
import { signature } from "../../src/episode/sig";
import type { Episode } from "../../src/episode/types";
import type { ArchiveRecord, ArchiveType } from "../../src/archive/line";
import { SimDevice, type DeviceOptions } from "../../host-sim/device";
import type { Ai } from "./device";
import { Life, START } from "../../tools/bench/data";
import { formatDate, fromLocal, toLocal } from "../../src/time/local";
import { byteLength, decode } from "../../src/text/utf8";

export interface Image {
  name: string;
  bytes: Uint8Array;
}

// Every file of a device's storage partition.
export function imageOf(dev: SimDevice): Image[] {
  return dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name) }));
}

// Files onto a device, without writes (copies: a workload may change them).
export function loadImage(dev: SimDevice, files: readonly Image[]): void {
  for (const f of files) dev.spiffs.load(f.name, f.bytes.slice());
}

// Runs `build` on a device of its own with the archive writing format 2 (as a
// device from before compact text did) and returns its storage files; the
// device to go on with (`back`) is installed again.
export function formatTwo<T>(opts: DeviceOptions, build: (a: Archive, dev: SimDevice) => T, back: SimDevice | undefined): { files: Image[]; out: T } {
  const other = new SimDevice(opts).install();
  setWriteFormat(2);
  try {
    const a = new Archive(config.file.root, opts.storageBytes ? { partitionBytes: opts.storageBytes } : {});
    a.check();
    const out = build(a, other);
    return { files: imageOf(other), out };
  } finally {
    setWriteFormat(VERSION as 4);
    back?.install();
  }
}

// Writes a version-1 episode store (both copies of headers and text slots)
// with `tombs` tombstones (ids 900…, deleted at `deletedAt`, unix s).
export function writeV1Episodes(dev: SimDevice, eps: readonly Episode[], slots: number, tombs = 2, deletedAt = 1767225600): void {
  const h = new Uint8Array(slots * HEADER_BYTES), t = new Uint8Array(slots * TEXT_BYTES);
  const bySlot: (Episode | undefined)[] = [];
  for (const e of eps) bySlot[e.slot] = e;
  for (let s = 0; s < slots; s++) {
    const ep = bySlot[s] ?? ({ slot: s, state: "free" } as Episode);
    const c = checkEpisode(ep);
    const tc = encodeText(t, s * TEXT_BYTES, ep.state === "free" ? 0 : ep.id, 1, c);
    encodeHeader(h, s * HEADER_BYTES, ep, 1, tc, 1, ep.state === "free" ? undefined : signature(ep.content, ep.keywords));
  }
  const x = new Uint8Array(tombs * TOMB_BYTES);
  for (let i = 0; i < tombs; i++) {
    const at = i * TOMB_BYTES;
    put32(x, at, 900 + i);
    x[at + 4] = 2;
    put32(x, at + 8, deletedAt);
    put32(x, at + 12, 7);
    put32(x, at + 16, crc32(x, at, at + 16));
  }
  for (let k = 0; k < 2; k++) {
    dev.spiffs.load(`/ep.h${k}`, h.slice());
    dev.spiffs.load(`/ep.t${k}`, t.slice());
    dev.spiffs.load(`/ep.x${k}`, x.slice());
  }
}

// ---- a whole pet of the old formats ------------------------------------------------------

const EP_THINGS = ["和主人一起去公园散步", "下雨天在家拼乐高", "第一次学游泳", "奶奶包的饺子", "学校的运动会", "生日那天的蛋糕", "去海边捡贝壳", "和小狗豆豆赛跑", "看星星数流星", "在图书馆读恐龙书"];
const EP_FILL = "那天的风很轻，主人一边走一边给我讲学校里发生的事，我们笑了好久，回家的路上还唱了歌，主人说以后还要再来。";

// An episode of the old pet: about 200 characters (600 bytes of UTF-8, nearly
// the 672-byte slot), five keywords, distinct from every other.
export function oldEpisode(k: number, created: number): Episode {
  const thing = EP_THINGS[k % EP_THINGS.length];
  const tail = `#${k}`;
  let content = `第${k}段回忆：${thing}。`;
  for (let i = 0; byteLength(content) + 3 + tail.length <= 600 && content.length + tail.length < 200; i++) content += EP_FILL[i % EP_FILL.length];
  return {
    slot: k,
    id: k + 1,
    state: k % 50 === 7 ? "trash" : "active",
    content: content + tail,
    keywords: [thing.slice(0, 4), `回忆${k}`, "主人", "开心", `第${k % 12}月`],
    emotion: "happy",
    // strong enough not to be forgotten (strength ≥ 0.2, src/episode/score.ts):
    // the 400 a pet keeps are the ones it uses
    e: 90,
    i: 90,
    p: k % 9 === 0 ? 100 : 90,
    j: 90,
    useCount: 10 + (k % 20),
    createdAt: created,
    lastActiveAt: created,
    purgeAt: k % 50 === 7 ? created + 30 * 86400 : 0,
    source: "ai",
    sig: new Uint8Array(0),
  } as Episode;
}

export interface OldRecord {
  kind: "fact" | "moment" | "event";
  key: string; // content (an event's: content at date time)
  value: string; // the ledger's value (a moment: topic|content)
  ts: number; // unix s
  topic?: string;
  date?: string;
  time?: string;
}

export interface OldPet {
  files: Image[]; // the storage partition
  records: OldRecord[]; // every fact, moment and event the old device appended
  episodes: Episode[]; // in slot order
  usedPercent: number;
  refused: number; // records the old format had no room for (ArchiveError "full": on the old device they stayed in NVS)
  fullFrom: string; // the first day a batch was refused, or ""
}

// `months` of a pet at the seed's rate (tools/bench/data.ts: about 4,000 facts
// and 2,000 moments a year, 2 events a week) archived by format 2 on a
// `storageBytes` partition, with `episodes` version-1 episodes of full size
// beside it (their files there from the start, as the old device had them:
// retire counted them). Facts, moments and events carry a run-unique tail so
// that each is one ledger record.
export function buildOldPet(months: number, episodes: number, storageBytes: number, back?: SimDevice): OldPet {
  const s = toLocal(START);
  const end = fromLocal(s.year, s.month + months, s.day);
  const days = Math.round((end - START) / 86400000);
  const records: OldRecord[] = [];
  let refused = 0, fullFrom = "";
  const eps: Episode[] = [];
  for (let k = 0; k < episodes; k++) eps.push(oldEpisode(k, Math.floor(START / 1000) + Math.floor((k * days * 86400) / Math.max(1, episodes))));
  const built = formatTwo({ now: START, storageBytes }, (a, dev) => {
    if (episodes) writeV1Episodes(dev, eps, episodes);
    const pending: Record<ArchiveType, ArchiveRecord[]> = { fact: [], moment: [], event: [] };
    const batch: Record<ArchiveType, OldRecord[]> = { fact: [], moment: [], event: [] };
    let n = 0, day0 = "";
    const stopped: Record<string, boolean> = {};
    const flush = (t: ArchiveType) => {
      if (!pending[t].length) return;
      // refused once: the partition holds only facts and digests (FORMAT.md §1's
      // line); the old device kept the rest in NVS (its rolling stores)
      if (stopped[t]) refused += pending[t].length;
      else try {
        a.append(t, pending[t]);
        for (const r of batch[t]) records.push(r);
      } catch (e) {
        if (!(e instanceof ArchiveError) || e.code !== "full") throw e;
        refused += pending[t].length;
        stopped[t] = true;
        fullFrom ||= day0;
      }
      pending[t] = [];
      batch[t] = [];
    };
    for (const day of new Life().days(days)) {
      dev.clock.now = day.start + 22 * 3600000;
      day0 = formatDate(day.start);
      for (const f of day.facts) {
        const content = `${f.content}〔${(n++).toString(36)}〕`;
        pending.fact.push({ ...f, content });
        batch.fact.push({ kind: "fact", key: content, value: content, ts: f.timestamp });
        if (pending.fact.length === 5) flush("fact");
      }
      for (const m of day.moments) {
        const content = `${m.content}〔${(n++).toString(36)}〕`;
        pending.moment.push({ ...m, content });
        batch.moment.push({ kind: "moment", key: content, value: `${m.topic}|${content}`, ts: m.timestamp, topic: m.topic });
        if (pending.moment.length === 3) flush("moment");
      }
      if (day.events.length) {
        for (const e of day.events) {
          const ev = { ...e, content: `${e.content}〔${(n++).toString(36)}〕`, completed: true };
          pending.event.push(ev);
          batch.event.push({ kind: "event", key: ev.content, value: `done@${ev.date} ${ev.time}`, ts: Math.floor(dev.clock.now / 1000), date: ev.date, time: ev.time });
        }
        flush("event");
      }
      for (let i = 0; i < 10000; i++) {
        const r = a.step();
        if (!r || r.did.indexOf("failed") === 0) break;
      }
    }
    flush("fact");
    flush("moment");
    a.settle();
    return dev.spiffs.stats().percent;
  }, back);
  return { files: built.files, records, episodes: eps, usedPercent: built.out, refused, fullFrom };
}


// The archive's segments by stream letter (f, m, e, d), in number order, each
// with the format its header line names (`v`).
export function segmentFormats(dev: SimDevice): Record<string, { name: string; v: number }[]> {
  const out: Record<string, { name: string; v: number }[]> = {};
  const names = dev.spiffs.list().map((e) => e.name).filter((n) => /^\/[fmed]\d{6}\.jsonl$/.test(n)).sort();
  for (const n of names) {
    const b = dev.spiffs.content(n);
    const nl = b.indexOf(10);
    let v = 0;
    try {
      v = Number(JSON.parse(decode(b.subarray(0, nl < 0 ? Math.min(b.length, 64) : nl))).v);
    } catch {
      v = 0; // unreadable header
    }
    (out[n[1]] ??= []).push({ name: n, v });
  }
  return out;
}

// What is left of the formats from before issue 29: version-1 episode text
// files (and the migration's marker), and sealed archive segments of format 2
// (every segment of a stream but its last, the open one, which takes format-3
// lines after its format-2 ones and is recoded once sealed: docs/design/recode.md).
export function oldFormatLeft(dev: SimDevice): string[] {
  const out: string[] = [];
  for (const n of ["/ep.t0", "/ep.t1", "/ep.t0.n", "/ep.t1.n", "/ep.m", "/ep.t1.d"]) if (dev.spiffs.exists(n)) out.push(n);
  const f = segmentFormats(dev);
  for (const s in f) for (let i = 0; i < f[s].length - 1; i++) if (f[s][i].v < 3) out.push(`${f[s][i].name} (format ${f[s][i].v})`);
  return out;
}

// Appends `n` records to a stream, `per` an append: the k-th is make(k) on
// the ledger's side and as(make(k)) on the archive's; the made ones go to `out`.
export function appendEach<P>(a: Archive, type: ArchiveType, n: number, per: number, make: (k: number) => P, as: (p: P) => ArchiveRecord, out: P[]): void {
  for (let i = 0; i < n; i += per) {
    const batch: ArchiveRecord[] = [];
    for (let k = i; k < Math.min(n, i + per); k++) {
      const p = make(k);
      batch.push(as(p));
      out.push(p);
    }
    a.append(type, batch);
  }
}

// The first days of a device updated from an old format, as the migration
// and recode workloads drive it: an old fact forgotten before the first
// step, a fact written, a few steps; a busy minute (21 facts: the store rolls
// its oldest into the archive mid-migration) and a recall; time for the
// steps (`mid`: a moment recall on the way); an old moment forgotten once
// they are over; then a moment and a recall of an old month each morning.
export interface UpdateDays {
  oldFact: string; // forgotten before the first step
  first: string; // the first fact after the update
  stepsMs: number; // then this long: the first steps
  busy: string; // the busy minute's facts: `${busy}${k}件事：${word}`
  keyword: string; // the fact recall after it
  mid?: { at: number; keyword: string }; // a moment recall at start + at
  oldMoment: string; // forgotten an hour after the start
  days: number; // mornings after the update, 1 … days - 1
  morning: string; // each morning's moment: `${morning}${day}天的时刻`
  month: [string, string]; // the old month each morning recalls
}

export function updateDays(ai: Ai, words: readonly string[], o: UpdateDays): void {
  const start = ai.dev.clock.now;
  ai.call({ action: "delete", type: "fact", content: o.oldFact });
  ai.call({ action: "write", type: "fact", content: o.first });
  ai.advanceTo(start + o.stepsMs);
  for (let k = 0; k < 21; k++) ai.call({ action: "write", type: "fact", content: `${o.busy}${k}件事：${words[k % words.length]}` });
  ai.call({ action: "recall", type: "fact", keyword: o.keyword, limit: 5 });
  if (o.mid) {
    ai.advanceTo(start + o.mid.at);
    ai.call({ action: "recall", type: "moment", keyword: o.mid.keyword, limit: 5 });
  }
  ai.advanceTo(start + 3600000); // the migration is over
  ai.call({ action: "delete", type: "moment", content: o.oldMoment });
  const d = toLocal(start);
  for (let day = 1; day < o.days; day++) {
    ai.advanceTo(fromLocal(d.year, d.month, d.day + day, 9, 0));
    ai.call({ action: "write", type: "moment", topic: words[day], content: `${o.morning}${day}天的时刻`, emotion: "happy", intensity: 3, importance: 3 });
    ai.call({ action: "recall", type: "moment", start_date: o.month[0], end_date: o.month[1], limit: 5 });
  }
}

// After the reboot: four facts, an old fact forgotten, a day of steps.
export function updateAfter(ai: Ai, oldFact: string): void {
  for (let i = 0; i < 4; i++) ai.call({ action: "write", type: "fact", content: `断电之后的第${i}条` });
  ai.call({ action: "delete", type: "fact", content: oldFact });
  ai.advanceTo(ai.dev.clock.now + 86400000);
}

// The slot index /ep.i (src/episode/slot-index.ts, docs/FORMAT.md §4.9): the
// few header fields the first recall or text query after boot asks, read
// instead of every header. Derived data: whenever the store hands it out it
// must say exactly what the headers say (state, createdAt, one-line text,
// folded signature) for every slot, whatever batches, reboots, cuts and
// damage came before; when it cannot say so it is not handed out and the
// header scan answers.
import type { SimDevice } from "../../host-sim/device";
import { EpisodeStore } from "../../src/episode/store";
import { Episodes } from "../../src/episode/episodes";
import { signature } from "../../src/episode/sig";
import { foldSig, IDX_SIG, type SlotTable } from "../../src/episode/slot-index";
import { MAX_LINE } from "../../src/archive/codec";
import { encode } from "../../src/text/utf8";
import type { Episode } from "../../src/episode/types";
import { freshDevice, episode, settle, cutAtEveryWrite } from "./episode-store.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const T0 = 1767225600;
const TOPICS = ["恐龙", "公园", "奶奶", "钢琴", "足球", "下雨", "生日", "小猫"];

// slot k's episode in round r: a text of 1 or 2 passage lines, its topic by k and r
function ep(k: number, id: number, r: number, more: Partial<Episode> = {}): Episode {
  const topic = TOPICS[(k * 3 + r) % TOPICS.length];
  let content = `第${r}轮：和主人聊了${topic}，他说第${k}次最开心`;
  if ((k + r) % 5 === 0) while (encode(content).length < MAX_LINE + 40) content += "，还有很多话";
  const keywords = [topic];
  return episode(k, id, content, { keywords, sig: signature(content, keywords), createdAt: T0 + id * 60, lastActiveAt: T0 + id * 60, ...more });
}

function hex(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
  return s;
}

// What the headers say, slot by slot (a header scan), as the index holds it.
function truth(st: EpisodeStore): { active: number[]; created: number[]; short: number[]; sig: string[] } {
  const n = st.slots;
  const out = { active: new Array(n).fill(0), created: new Array(n).fill(0), short: new Array(n).fill(0), sig: new Array(n).fill("0".repeat(32)) };
  st.scan((e, _w, len) => {
    out.active[e.slot] = e.state === "active" ? 1 : e.state === "trash" ? 2 : 0;
    out.created[e.slot] = e.createdAt;
    out.short[e.slot] = len !== undefined && len > 0 && len <= MAX_LINE ? 1 : 0;
    const f = new Uint8Array(IDX_SIG);
    foldSig(e.sig, f, 0);
    out.sig[e.slot] = hex(f);
  });
  return out;
}

function asTruth(t: SlotTable, n: number): ReturnType<typeof truth> {
  const out = { active: [] as number[], created: [] as number[], short: [] as number[], sig: [] as string[] };
  for (let s = 0; s < n; s++) {
    out.active.push(t.active[s]);
    out.created.push(t.active[s] ? t.created[s] : 0);
    out.short.push(t.active[s] ? t.short[s] : 0);
    out.sig.push(t.active[s] ? hex(t.sig.subarray(s * IDX_SIG, (s + 1) * IDX_SIG)) : "0".repeat(32));
  }
  return out;
}

// The index, when the store hands it out, is the headers' truth.
function agrees(st: EpisodeStore, what: string): boolean {
  const t = st.slotTable();
  if (!t) return false;
  deepEqual(asTruth(t, st.slots), truth(st), `${what}: the slot index says what the headers say`);
  return true;
}

// Rounds of batches: new episodes, texts changed, some to the trash, some
// freed, and use counts (a batch that changes no entry of the index).
function rounds(st: EpisodeStore, from: number, to: number, onRound?: (r: number) => void): void {
  let id = st.nextId();
  for (let r = from; r < to; r++) {
    const batch: Episode[] = [];
    const slots = st.slots;
    if (r % 4 === 3 && slots >= 8) {
      for (let k = r % 3; k < slots && batch.length < 3; k += 3) {
        const e = st.read(k);
        if (e && e.state === "active") batch.push({ ...e, useCount: e.useCount + 1, lastActiveAt: e.lastActiveAt + 60 });
      }
      if (!batch.length) continue;
    } else if (r % 3 === 0 || slots < 8) {
      // new ones (the files grow)
      for (let i = 0; i < 5; i++) batch.push(ep(slots + i, id++, r));
    } else if (r % 3 === 1) {
      for (let k = r % 4; k < slots && batch.length < 6; k += 4) batch.push(ep(k, id++, r));
    } else {
      for (let k = r % 5; k < slots && batch.length < 4; k += 7)
        batch.push(k % 2 ? ep(k, id++, r, { state: "trash", purgeAt: T0 + 7 * 86400 }) : { ...ep(k, 0, r), state: "free", id: 0, content: "", keywords: [], sig: new Uint8Array(64) });
    }
    st.write(batch);
    onRound?.(r);
  }
}

// A store of five rounds, its index written by steps (what the cut sweeps start from).
function fiveRounds(): { dev: SimDevice; state: EpisodeStore } {
  const dev = freshDevice();
  const st = new EpisodeStore();
  rounds(st, 0, 5);
  settle(st);
  return { dev, state: st };
}

function reopen(dev: SimDevice): EpisodeStore {
  dev.reboot();
  return new EpisodeStore();
}

export const scenarios: Scenario[] = [
  {
    name: "episode index: written by steps, each batch appends its record, and after every reboot it says exactly what the headers say",
    run() {
      const dev = freshDevice();
      let st = new EpisodeStore();
      rounds(st, 0, 6);
      equal(st.slotTable(), undefined, "none before steps have written it");
      settle(st);
      ok(dev.spiffs.exists("/ep.i"), "written by steps");
      ok(agrees(st, "after the steps"), "handed out");
      const base = dev.spiffs.length("/ep.i");
      equal(base, 16 + st.slots * 24 + 8, "a 16-byte head, 24 bytes a slot, an 8-byte trailer");
      let rewrites = 0;
      for (let r = 6; r < 70; r += 4) {
        rounds(st, r, r + 4);
        ok(agrees(st, `round ${r + 3}`), `round ${r + 3}: current without steps`);
        st = reopen(dev);
        ok(agrees(st, `round ${r + 3}, rebooted`), `round ${r + 3}: current after a reboot`);
        if (r % 8 === 2) {
          const before = dev.spiffs.length("/ep.i");
          settle(st);
          if (dev.spiffs.length("/ep.i") < before) rewrites++;
          ok(agrees(st, `round ${r + 3}, steps`), `round ${r + 3}: current after steps`);
        }
      }
      // the records grow it; steps write it again when they outweigh its base
      settle(st);
      const b = 16 + st.slots * 24 + 8;
      ok(dev.spiffs.length("/ep.i") <= b + Math.max(b >> 2, 4096), `its records are bounded by steps (${dev.spiffs.length("/ep.i")} bytes, base ${b})`);
      ok(rewrites > 0, "written again by steps once its records outweighed a quarter of its base");
      // a batch of use counts appends a record of 12 bytes (no entry changed)
      const before = dev.spiffs.length("/ep.i");
      const e = st.read(1) ?? st.read(2);
      ok(!!e, "an episode to use");
      st.write([{ ...(e as Episode), useCount: (e as Episode).useCount + 1 }]);
      equal(dev.spiffs.length("/ep.i") - before, 12, "a batch of use counts: a 12-byte record");
      ok(agrees(st, "after a batch of use counts"), "current after it");
    },
  },
  {
    name: "episode index: the first text query and the first recall after a reboot read it instead of every header, with the same rows as a header scan",
    run() {
      const dev = freshDevice();
      const st0 = new EpisodeStore();
      rounds(st0, 0, 60);
      settle(st0);
      const ask = (withIndex: boolean) => {
        const st = reopen(dev);
        if (!withIndex) dev.spiffs.load("/ep.i", new Uint8Array(8)); // not an index: the header scan answers
        const eps = new Episodes(st, { now: () => (T0 + 200000) * 1000 });
        const r0 = st.stats.bytesRead;
        const rows: number[] = [];
        eps.forEach((e) => void rows.push(e.id), { text: true, words: [encode("恐龙")] });
        const bytes = st.stats.bytesRead - r0;
        const recalled = eps.lookup((sig, off) => (sig[off] | sig[off + 5]) & 1, 5).map((e) => e.id);
        return { rows, bytes, recalled };
      };
      const a = ask(true);
      const b = ask(false);
      ok(a.rows.length > 3, `rows found (${a.rows.length})`);
      deepEqual(a.rows, b.rows, "the same rows, in the same order");
      deepEqual(a.recalled, b.recalled, "the same recall");
      ok(a.bytes < b.bytes, `fewer bytes read with the index (${a.bytes} < ${b.bytes})`);
    },
  },
  {
    name: "episode index: a cut at every write of batches and of its writing never leaves it handed out and wrong; steps make it current again",
    run() {
      let cuts = 0, batchFirst = 0, firstCuts = 0;
      cuts += cutAtEveryWrite(
        fiveRounds,
        (st) => {
          rounds(st, 5, 8);
          settle(st); // its records outweigh nothing yet: the batches' records alone
          rounds(st, 8, 9);
        },
        (dev, at) => {
          const st = new EpisodeStore();
          // a batch first: it checks the index before its record goes after
          // the last one (one behind: the missing record first)
          rounds(st, 20, 21);
          if (agrees(st, `cut at write ${at}`)) batchFirst++;
          firstCuts++;
          settle(st);
          ok(agrees(st, `cut at write ${at}, steps after`), `cut at write ${at}: current after steps`);
          void dev;
        },
      );
      // the same cuts, the index asked first: a batch cut after /ep.w named it
      // leaves it one behind, still handed out; the next batch appends both
      let behind = 0;
      cuts += cutAtEveryWrite(
        fiveRounds,
        (st) => rounds(st, 5, 9),
        (dev, at) => {
          const st = new EpisodeStore();
          const len = dev.spiffs.exists("/ep.i") ? dev.spiffs.length("/ep.i") : 0;
          const was = agrees(st, `cut at write ${at}, asked first`) && (st as unknown as { ix: { state: string } }).ix.state === "behind";
          if (was) behind++;
          rounds(st, 20, 21);
          const after = agrees(st, `cut at write ${at}, a batch after`);
          if (was) ok(after, `cut at write ${at}: the batch after appended the missing record and its own`);
          ok(!dev.spiffs.exists("/ep.i") || dev.spiffs.length("/ep.i") >= len, "never shortened by a batch");
          settle(st);
          ok(agrees(st, `cut at write ${at}, steps after`), `cut at write ${at}: current after steps`);
          void dev;
        },
      );
      // and cuts inside the writing of a new index (a stale one is written again)
      cuts += cutAtEveryWrite(
        () => {
          const dev = freshDevice();
          const st = new EpisodeStore();
          rounds(st, 0, 12);
          dev.spiffs.load("/ep.i", new Uint8Array(40)); // stale: steps write it again
          dev.reboot();
          return { dev, state: new EpisodeStore() };
        },
        (st) => void settle(st),
        (dev, at) => {
          const st = new EpisodeStore();
          agrees(st, `index writing cut at write ${at}`);
          ok(!dev.spiffs.exists("/ep.i.n"), "the unfinished one deleted at open");
          settle(st);
          ok(agrees(st, `index writing cut at write ${at}, steps after`), `cut at ${at}: current after steps`);
        },
      );
      ok(cuts > 20, `cuts: ${cuts}`);
      ok(behind >= 3, `cuts that left it one batch behind and handed out: ${behind}`);
      // (before a batch checked it first: 10 of 38)
      ok(batchFirst * 10 >= firstCuts * 9, `a batch right after the reboot kept it current: ${batchFirst} of ${firstCuts}`);
    },
  },
  {
    name: "episode index: a flipped bit before its last record, two missing records or a file left not finalized is never used; the header scan answers and steps write it again",
    run() {
      const make = () => {
        const dev = freshDevice();
        const st = new EpisodeStore();
        rounds(st, 0, 10);
        settle(st);
        rounds(st, 10, 13); // three records after the base
        return dev;
      };
      const cases: [string, (dev: SimDevice) => void][] = [
        ["a flipped bit in an entry", (dev) => flipAt(dev, 16 + 24 * 3 + 9)],
        ["a flipped bit in the head", (dev) => flipAt(dev, 9)],
        ["a flipped bit in the record before the last", (dev) => flipAt(dev, recordStarts(dev).slice(-2)[0] + 9)],
        ["the last record torn, and a batch's record after it", (dev) => tornThenMore(dev)],
        ["the last two records missing", (dev) => (dropLast(dev), dropLast(dev))],
        ["not finalized", (dev) => void dev.spiffs.notFinalized.add("/ep.i")],
      ];
      for (const [what, hurt] of cases) {
        const dev = make();
        hurt(dev);
        dev.reboot();
        const st = new EpisodeStore();
        equal(st.slotTable(), undefined, `${what}: not handed out`);
        const eps = new Episodes(st);
        const rows: number[] = [];
        eps.forEach((e) => void rows.push(e.slot), { text: true, words: [encode("钢琴")] });
        const want: number[] = [];
        st.scan((e) => void (e.state === "active" && e.content.indexOf("钢琴") >= 0 && want.push(e.slot)), true);
        deepEqual(rows, want, `${what}: the query answers from the headers`);
        settle(st);
        ok(agrees(st, `${what}, steps after`), `${what}: written again by steps`);
      }
    },
  },
  {
    name: "episode index: one batch behind (its record cut), the slots /ep.w names are read from their headers: handed out right, and the next step or batch appends the missing record",
    run() {
      for (const then of ["step", "batch", "reboot"] as const) {
        const dev = freshDevice();
        let st = new EpisodeStore();
        rounds(st, 0, 10);
        settle(st);
        rounds(st, 10, 13); // the last (round 12) adds 5 new slots: the index must grow by them
        const whole = dev.spiffs.content("/ep.i");
        dropLast(dev);
        const cut = dev.spiffs.length("/ep.i");
        st = reopen(dev);
        st.open();
        const r0 = st.stats.bytesRead, c0 = st.stats.reads;
        ok(!!st.slotTable(), `${then}: handed out one batch behind`);
        const headers = st.stats.bytesRead - r0 - cut;
        ok(agrees(st, `${then}: one behind`), `${then}: right`);
        ok(headers > 0 && headers <= 5 * 128, `${then}: only the last batch's headers read beyond the index (${headers} bytes, ${st.stats.reads - c0} reads)`);
        if (then === "step") {
          ok(st.step(), "a step");
          deepEqual([...dev.spiffs.content("/ep.i")], [...whole], "the step appended exactly the record the cut took");
        } else if (then === "batch") {
          rounds(st, 13, 14);
          ok(dev.spiffs.length("/ep.i") > whole.length, "the batch's record after the missing one");
        }
        st = reopen(dev);
        if (then === "reboot") {
          // nothing appended yet: behind again, and still right
          equal(dev.spiffs.length("/ep.i"), cut, "nothing written without a step or a batch");
          ok(agrees(st, "rebooted again"), "one behind again after a reboot");
        } else {
          ok(agrees(st, `${then}, rebooted`), `${then}: current after a reboot`);
          const before = dev.spiffs.length("/ep.i");
          settle(st);
          equal(dev.spiffs.length("/ep.i"), before, `${then}: no rewrite needed`);
        }
      }
    },
  },
  {
    name: "episode index: a batch that fails part way (a write refused) leaves it one behind at most: the next batch appends the missing record and its own",
    run() {
      let threw = 0, current = 0;
      for (let at = 1; at <= 12; at++) {
        const dev = freshDevice();
        let st = new EpisodeStore();
        rounds(st, 0, 10);
        settle(st);
        ok(agrees(st, `full at ${at}: before`), "current before");
        dev.inject("full", { at, partition: "storage" });
        let failed = false;
        try {
          rounds(st, 10, 11);
        } catch {
          failed = true;
        }
        dev.spiffs.disarm("full");
        if (!failed) continue;
        threw++;
        rounds(st, 11, 12);
        st = reopen(dev);
        if (agrees(st, `full at ${at}, a batch after, rebooted`)) current++;
      }
      ok(threw >= 4, `batches that threw: ${threw}`);
      equal(current, threw, "after every failed batch the next one kept the index current");
    },
  },
  {
    name: "episode index: damage in its last record only (torn by a cut, a flipped bit) is harmless: the slots /ep.w names stand in, it is handed out right, nothing is appended after the damage, and steps write it again",
    run() {
      const cases: [string, (dev: SimDevice) => void][] = [
        ["the last record torn", (dev) => dev.spiffs.load("/ep.i", dev.spiffs.content("/ep.i").subarray(0, dev.spiffs.length("/ep.i") - 7))],
        ["the last record torn after its head", (dev) => dev.spiffs.load("/ep.i", dev.spiffs.content("/ep.i").subarray(0, recordStarts(dev).slice(-1)[0] + 8))],
        ["a flipped bit in the last record's entries", (dev) => flipAt(dev, dev.spiffs.length("/ep.i") - 30)],
        ["a flipped bit in the last record's seq", (dev) => flipAt(dev, recordStarts(dev).slice(-1)[0] + 1)],
        ["0xFF where the last record's pages did not reach flash", (dev) => {
          const b = dev.spiffs.content("/ep.i");
          b.fill(0xff, recordStarts(dev).slice(-1)[0] + 4);
          dev.spiffs.load("/ep.i", b);
        }],
      ];
      for (const [what, hurt] of cases) {
        const dev = freshDevice();
        let st = new EpisodeStore();
        rounds(st, 0, 10);
        settle(st);
        rounds(st, 10, 13);
        hurt(dev);
        st = reopen(dev);
        ok(agrees(st, what), `${what}: handed out`);
        const len = dev.spiffs.length("/ep.i");
        rounds(st, 13, 14);
        equal(dev.spiffs.length("/ep.i"), len, `${what}: a batch appends nothing after the damage`);
        st = reopen(dev);
        ok(!agrees(st, `${what}, a batch after`), `${what}: two batches past its last good record: not handed out`);
        settle(st);
        ok(agrees(st, `${what}, steps after`), `${what}: written again by steps`);
        const b = 16 + st.slots * 24 + 8;
        equal(dev.spiffs.length("/ep.i"), b, `${what}: a new base, no record`);
      }
    },
  },
  {
    name: "episode index: not written on a partition with no room for it, and a stale one deleted there",
    run() {
      const dev = freshDevice(160 * 1024);
      const st = new EpisodeStore();
      rounds(st, 0, 6);
      settle(st);
      ok(dev.spiffs.exists("/ep.i"), "written while there is room");
      rounds(st, 6, 7);
      // fill the partition past the episodes' line
      let i = 0;
      const pad = new Uint8Array(4096);
      for (;;) {
        const info = dev.spiffs.stats();
        if (info.used + 4096 > info.total * 0.76) break;
        dev.spiffs.load(`/pad${i++}`, pad);
      }
      dev.spiffs.load("/ep.i", new Uint8Array(40)); // stale
      dev.reboot();
      const st2 = new EpisodeStore();
      settle(st2);
      ok(!dev.spiffs.exists("/ep.i") && !dev.spiffs.exists("/ep.i.n"), "no index written, the stale one deleted");
      const rows: number[] = [];
      new Episodes(st2).forEach((e) => void rows.push(e.slot), { text: true, words: [encode("公园")] });
      ok(rows.length > 0, "queries answer from the headers");
    },
  },
];

// Where each record of the index starts.
function recordStarts(dev: SimDevice): number[] {
  const b = dev.spiffs.content("/ep.i");
  const n = b[4] | (b[5] << 8);
  const out: number[] = [];
  for (let pos = 16 + n * 24 + 8; pos < b.length; pos += 12 + b[pos + 4] * 26) out.push(pos);
  return out;
}

// The last record torn by a cut, then a batch made before anything read the
// index: its record follows the torn bytes.
function tornThenMore(dev: SimDevice): void {
  const at = recordStarts(dev).slice(-1)[0];
  dev.spiffs.load("/ep.i", dev.spiffs.content("/ep.i").subarray(0, at + 9));
  dev.reboot();
  rounds(new EpisodeStore(), 30, 31);
}

function flipAt(dev: SimDevice, at: number): void {
  const b = dev.spiffs.content("/ep.i");
  b[at] ^= 0x20;
  dev.spiffs.load("/ep.i", b);
}

// The last record dropped (as if its batch was cut before it was appended).
function dropLast(dev: SimDevice): void {
  const b = dev.spiffs.content("/ep.i");
  const n = b[4] | (b[5] << 8);
  let pos = 16 + n * 24 + 8, last = pos;
  while (pos < b.length) {
    last = pos;
    pos += 12 + b[pos + 4] * 26;
  }
  dev.spiffs.load("/ep.i", b.subarray(0, last));
}


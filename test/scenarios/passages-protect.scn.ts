// The passages' collection and the open segment's twin (docs/FORMAT.md
// §4.3.1, docs/design/ghosts.md): before a collected segment's group parity
// goes, the open segment's twin XORed with that parity is made plain by
// steps (a .twn beside it, then the keyed .par deleted), so the open segment
// keeps a whole second copy at every stage; the group's parity is made again
// by steps after, and a damaged segment is then rebuilt from it.
import { SimDevice } from "../../host-sim/device";
import { EpisodeStore } from "../../src/episode/store";
import { type Episode } from "../../src/episode/types";
import { HEADER_BYTES, headerValid, headerState, headerRef } from "../../src/episode/record";
import { ok, deepEqual, equal } from "./assert";
import { episode, freshDevice } from "./episode-store.scn";
import type { Scenario } from "./types";

// texts the compact table does not shorten (130 emoji, 520 bytes): about 100 a segment
const long = (k: number, v: string) => `${k}${v}` + "🐟🌊🎣⛵🐚".repeat(26);

type Image = { name: string; bytes: Uint8Array }[];
const imageOf = (dev: SimDevice): Image => dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name).slice() }));

function texts(st: EpisodeStore): string[] {
  const got: string[] = [];
  st.scan((e) => void got.push(e.content), true);
  return got;
}

// On a copy of the device: `name` left not finalized, a reboot, every text
// read back. (The device in use is installed again after.)
function damagedReadsWhole(img: Image, name: string, want: string[], what: string): void {
  const was = SimDevice.current;
  try {
    const dev = freshDevice();
    for (const f of img) dev.spiffs.load(f.name, f.bytes.slice());
    dev.spiffs.notFinalized.add(name);
    deepEqual(texts(new EpisodeStore()), want, `${what}: ${name} not finalized, every text`);
  } finally {
    was.install();
  }
}

const pFiles = (dev: SimDevice) =>
  dev.spiffs
    .list()
    .filter((e) => /^\/p\d{6}\.(jsonl|par|twn)$/.test(e.name))
    .map((e) => `${e.name.slice(1)}:${e.length}`)
    .sort()
    .join(" ");

// Episodes 0..n-1 made by `make`, written 8 a batch; eps[slot] kept as written.
function writeEach(st: EpisodeStore, eps: Episode[], n: number, make: (k: number) => Episode): void {
  for (let i = 0; i < n; i += 8) {
    const b: Episode[] = [];
    for (let k = i; k < Math.min(n, i + 8); k++) b.push(make(k));
    st.write(b);
    for (const e of b) eps[e.slot] = e;
  }
}


// The slots whose text (both header copies agree on copy 0's) is in segment `seq`.
function slotsIn(dev: SimDevice, seq: number): number[] {
  const h = dev.spiffs.content("/ep.h0");
  const out: number[] = [];
  for (let s = 0; (s + 1) * HEADER_BYTES <= h.length; s++) {
    const at = s * HEADER_BYTES;
    if (headerValid(h, at) && headerState(h, at) !== 0 && headerRef(h, at).seq === seq) out.push(s);
  }
  return out;
}

// Steps until a scrub pass ends, `passes` times (a census rides on each pass;
// one deferred is tried again at the next); a step that throws fails the test.
function settle(st: EpisodeStore, passes: number, what: string): void {
  for (let p = 0; p < passes; p++)
    for (let n = 0; st.step(); n++) if (n > 20000) throw new Error(`${what}: step() never ends`);
}

// Two sealed segments of texts and an open one; most texts of p2 forgotten
// (slots freed: p2 is then the collection's victim, under half live); `bad`
// left not finalized at rest; a reboot (the stream does not know the damage
// until a read meets it), the steps. The absolute oracle: every text not
// forgotten reads whole, none forgotten comes back, the steps settle without
// throwing, every sealed segment has a second source after, and again after a
// reboot.
function collectAfterReboot(bad: string, readFirst: boolean, keep: number, wipe = false): void {
  const dev = freshDevice();
  let st = new EpisodeStore();
  const eps: Episode[] = [];
  writeEach(st, eps, 230, (k) => episode(k, k + 1, long(k, "旧")));
  settle(st, 2, "before");
  const inP2 = slotsIn(dev, 2);
  ok(inP2.length > 20 && slotsIn(dev, 1).length > 20 && (st.texts.stream.open?.seq ?? 0) > 2, `p1, p2 sealed: ${pFiles(dev)}`);
  // all but `keep` of p2's texts forgotten: it holds little else than garbage
  const gone = inP2.slice(keep);
  // (wipe: deleted by the owner, the trash's wipe bit first: p2 is then the census's forced victim)
  if (wipe) for (let i = 0; i < gone.length; i += 8) st.write(gone.slice(i, i + 8).map((s) => ({ ...eps[s], state: "trash" as const, wipe: true })));
  for (let i = 0; i < gone.length; i += 8) st.write(gone.slice(i, i + 8).map((s) => ({ ...eps[s], state: "free" as const })));
  const want = eps.filter((e) => gone.indexOf(e.slot) < 0).map((e) => e.content);
  deepEqual(texts(st), want, "the texts before the fault");
  dev.spiffs.notFinalized.add(bad);
  dev.reboot();
  st = new EpisodeStore();
  const check = (s: EpisodeStore, what: string) => {
    deepEqual(texts(s), want, `${what}: every text not forgotten, whole`);
    for (const slot of gone) equal(s.read(slot), undefined, `${what}: forgotten slot ${slot} stays free`);
  };
  if (readFirst) check(st, `${bad} not finalized, before the steps`);
  settle(st, 4, "after the reboot");
  const notes = st.notes.filter((x) => x.indexOf("texts") === 0).join("; ");
  if (wipe) ok(notes.indexOf("p2 holds an owner-deleted text") >= 0, `the case under test: p2 collected as an owner-deleted text's segment: ${notes}`);
  check(st, `${bad} not finalized, after the steps (${notes})`);
  ok(!dev.spiffs.exists("/p000002.jsonl"), `p2 collected in the end: ${pFiles(dev)}; ${notes}`);
  // the rule (FORMAT.md §4.6): the parity that can restore it is not dropped first
  const seg = `p${Number(bad.slice(2, 8))}`;
  ok(st.texts.stream.repaired.indexOf(`${seg}: damaged, restored by steps`) >= 0, `${seg} restored from its group's parity before it was collected or its parity dropped: ${st.texts.stream.repaired.join("; ")}; ${notes}`);
  // every sealed segment has a second source again (its group's parity)
  const stream = st.texts.stream;
  stream.segs.forEach((_l, seq) => {
    if (seq === stream.open?.seq) return;
    const f = stream.fallback(seq);
    ok(f !== undefined, `p${seq} protected after the steps: ${pFiles(dev)}; ${notes}`);
    f?.close();
  });
  dev.reboot();
  st = new EpisodeStore();
  check(st, "after another reboot");
  settle(st, 2, "after another reboot");
  check(st, "after another reboot and its steps");
}

export const scenarios: Scenario[] = [
  {
    name: "passages protect: a collection makes the open segment's twin plain by steps before its group's parity goes; the open segment left not finalized reads back whole at every stage; a damaged segment is rebuilt after",
    run() {
      const dev = freshDevice();
      let st = new EpisodeStore();
      // 110 texts (two segments), then 100 of the first ones changed: the first segment is mostly garbage
      const eps: Episode[] = [];
      writeEach(st, eps, 110, (k) => episode(k, k + 1, long(k, "旧")));
      writeEach(st, eps, 100, (k) => ({ ...eps[k], content: long(k, "新") }));
      for (let n = 0; st.texts.step(true); n++) if (n > 1000) throw new Error("the texts' upkeep never ends");
      const want = eps.map((e) => e.content);
      const open = () => st.texts.stream.open?.seq ?? -1;
      const o0 = open();
      ok(o0 >= 3 && dev.spiffs.exists(`/p${String(o0).padStart(6, "0")}.par`) && dev.spiffs.exists(`/p${String(o0 - 1).padStart(6, "0")}.par`), `the open segment's twin XORed with its group's parity: ${pFiles(dev)}`);
      // the collection, a step at a time; each new state of the texts' files checked
      let last = "";
      let plain = false;
      const stages: string[] = [];
      // (a new stage: the protection files there, and how much of a plain twin is written)
      const stage = () =>
        dev.spiffs
          .list()
          .filter((e) => /^\/p\d{6}\.(par|twn)$/.test(e.name) || e.name === "/p000001.jsonl")
          .map((e) => (/twn$/.test(e.name) ? `${e.name}:${e.length}` : e.name))
          .sort()
          .join(" ");
      for (let n = 0; n < 5000 && dev.spiffs.exists("/p000001.jsonl"); n++) {
        if (!st.step()) break;
        const now = stage();
        if (now === last) continue;
        last = now;
        stages.push(now);
        const name = `/p${String(open()).padStart(6, "0")}`;
        if (dev.spiffs.exists(`${name}.twn`) && !dev.spiffs.exists(`${name}.par`) && dev.spiffs.exists("/p000001.jsonl")) plain = true;
        damagedReadsWhole(imageOf(dev), `${name}.jsonl`, want, `stage ${stages.length}`);
      }
      ok(!dev.spiffs.exists("/p000001.jsonl"), `p1 collected: ${st.notes.filter((x) => x.indexOf("texts") === 0).join("; ")}`);
      ok(plain, `the open segment's twin made plain before the collection ended: ${stages.join(" | ")}`);
      ok(stages.length >= 3, `stages checked: ${stages.length}`);
      for (let n = 0; st.step(); n++) if (n > 20000) throw new Error("step() never ends");
      deepEqual(texts(st), want, "after the collection");
      // the group's parity made again by steps: a sealed segment left not finalized is served and rebuilt
      const sealed = "/p000002.jsonl";
      ok(dev.spiffs.exists(sealed) && dev.spiffs.list().some((e) => /^\/p\d{6}\.par$/.test(e.name) && e.name !== `/p${String(open()).padStart(6, "0")}.par`), `parity again: ${pFiles(dev)}`);
      const good = dev.spiffs.content(sealed).slice();
      dev.spiffs.notFinalized.add(sealed);
      dev.reboot();
      st = new EpisodeStore();
      deepEqual(texts(st), want, `${sealed} not finalized: every text served`);
      for (let n = 0; st.step(); n++) if (n > 20000) throw new Error("step() never ends");
      const b = dev.spiffs.content(sealed);
      ok(!dev.spiffs.notFinalized.has(sealed) && b.length === good.length && b.every((x, i) => x === good[i]), `${sealed} rebuilt byte for byte`);
      // the collected segment keeps its catalog entry; once the group's parity
      // covers its length (a member sealed closer to 56 KB: short lines), a
      // boot must not take it for a damaged member to restore
      for (let round = 0; round < 6; round++)
        writeEach(st, eps, 80, (k) => ({ ...eps[k], content: `${k}短${round}` + "🐟".repeat(20) }));
      for (let n = 0; st.step(); n++) if (n > 20000) throw new Error("step() never ends");
      want.splice(0, want.length, ...eps.map((e) => e.content));
      const entry = st.texts.stream.cat.entries.get(1);
      const parLen = Math.max(...dev.spiffs.list().filter((e) => /^\/p\d{6}\.par$/.test(e.name) && e.name !== `/p${String(open()).padStart(6, "0")}.par`).map((e) => e.length));
      ok(entry !== undefined && parLen >= entry.bytes, `the case under test: p1's entry (${entry?.bytes} B) under its group's parity (${parLen} B)`);
      dev.reboot();
      st = new EpisodeStore();
      texts(st); // (the stream loads at its first use)
      deepEqual(st.texts.stream.restoring.entries(), [], "collected segments are not members to restore");
      for (let n = 0; st.step(); n++) if (n > 20000) throw new Error("step() never ends");
      ok(!dev.spiffs.exists("/p000001.jsonl"), "p1 not written again");
      deepEqual(texts(st), want, "after a reboot and the steps");
    },
  },
  {
    name: "passages protect: a segment the collection picks while it is damaged at rest (not finalized: it will not rename) keeps its group's parity: it is marked damaged, restored from that parity, and collected at the next census; the steps never throw",
    run() {
      const dev = freshDevice();
      const st = new EpisodeStore();
      const eps: Episode[] = [];
      writeEach(st, eps, 110, (k) => episode(k, k + 1, long(k, "旧")));
      for (let n = 0; st.texts.step(true); n++) if (n > 1000) throw new Error("the texts' upkeep never ends");
      ok(dev.spiffs.exists("/p000001.jsonl") && dev.spiffs.exists("/p000002.jsonl"), `two segments: ${pFiles(dev)}`);
      dev.spiffs.notFinalized.add("/p000001.jsonl");
      writeEach(st, eps, 100, (k) => ({ ...eps[k], content: long(k, "新") }));
      const want = eps.map((e) => e.content);
      settle(st, 3, "the collection");
      const notes = st.notes.filter((x) => x.indexOf("texts") === 0).join("; ");
      ok(notes.indexOf("p1 not collected yet") >= 0, `the collection waited for p1's restore: ${notes}`);
      ok(!dev.spiffs.exists("/p000001.jsonl"), `p1 collected: ${notes}`);
      deepEqual(texts(st), want, "every text after the collection");
      dev.reboot();
      deepEqual(texts(new EpisodeStore()), want, "every text after a reboot");
    },
  },
  {
    name: "passages protect: a collection's victim left not finalized at rest (found after a reboot) keeps its group's parity until it is restored, never fails a step; every text not forgotten whole, none forgotten back, every sealed segment protected after",
    run() {
      collectAfterReboot("/p000002.jsonl", false, 3);
      collectAfterReboot("/p000002.jsonl", true, 3);
      collectAfterReboot("/p000002.jsonl", false, 0);
      collectAfterReboot("/p000002.jsonl", false, 0, true);
    },
  },
  {
    name: "passages protect: a collection whose victim's group holds a member left not finalized at rest (found after a reboot) keeps the group's parity until that member is restored; every text whole, none forgotten back, every sealed segment protected after",
    run() {
      collectAfterReboot("/p000001.jsonl", false, 3);
      collectAfterReboot("/p000001.jsonl", true, 3);
    },
  },
];

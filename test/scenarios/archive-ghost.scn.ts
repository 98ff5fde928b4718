// Ghosts (docs/FORMAT.md §3.15, docs/design/ghosts.md): when the older member
// of a moment or event pair is retired while the newer one takes appends, its
// .par (a copy of its bytes) is the key the open segment's twin is XORed
// with: a ghost. Steps drop it without leaving the open segment without a
// whole second copy at any cut: a plain twin (.twn) of the mate written 4 KB a
// step beside the keyed one, the keyed file deleted once the plain one is
// whole, then the ghost. An append with no room deletes what is XORed with a
// ghost first, then the ghost.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive } from "../../src/archive/archive";
import type { ArchiveStream } from "../../src/archive/stream";
import { fresh } from "./archive.scn";
import { monthOf } from "./archive-retire.scn";
import { segments, segName, PAD } from "./archive-segments.scn";
import { contents } from "./archive-faults.scn";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const STORAGE = 384 * 1024;
const momentsOf = (m: number, n: number) => monthOf(m, n).map((x) => ({ ...x, content: x.content + PAD.slice(0, 40) }));

type Image = { name: string; bytes: Uint8Array }[];
const imageOf = (dev: SimDevice): Image => dev.spiffs.list().map((e) => ({ name: e.name, bytes: dev.spiffs.content(e.name).slice() }));
function load(img: Image): SimDevice {
  const dev = fresh(STORAGE);
  for (const f of img) dev.spiffs.load(f.name, f.bytes.slice());
  return dev;
}
const moments = (a: Archive): ArchiveStream => (a as unknown as { streams: Record<string, ArchiveStream> }).streams.moment;

// A ghost of the moment stream on `dev`: the .par of a retired segment below the newest one, or -1.
function ghostOn(dev: SimDevice): number {
  const ms = segments(dev, "m");
  const top = ms[ms.length - 1];
  if (top === undefined || top % 2 === 1) return -1;
  return !dev.spiffs.exists(segName("m", top - 1)) && dev.spiffs.exists(segName("m", top - 1, "par")) ? top - 1 : -1;
}

// A device with a ghost: moments a month at a time until the newer member of
// the first pair has started; upkeep; then the oldest segment retired at once
// (as the retire line would: the room is left for the mate to fill). Built
// once (an image), then loaded and booted for each use.
let built: { img: Image; ghost: number; m: number } | undefined;
function build(): { img: Image; ghost: number; m: number } {
  const dev = fresh(STORAGE);
  const a = new Archive(root);
  for (let m = 0; m < 30; m++) {
    a.append("moment", momentsOf(m, 40));
    if (segments(dev, "m").length === 2) {
      for (let r = a.step(), n = 0; r && n < 200; r = a.step(), n++);
      ok((a as unknown as { retireOne(): boolean }).retireOne(), "a retire");
      const g = ghostOn(dev);
      if (g >= 0) return { img: imageOf(dev), ghost: g, m: m + 1 };
    }
  }
  throw new Error("no ghost");
}
function withGhost(): { dev: SimDevice; a: Archive; ghost: number; m: number; img: Image } {
  const b = (built ??= build());
  const dev = load(b.img);
  const a = new Archive(root);
  a.check();
  ok(ghostOn(dev) === b.ghost, "the ghost after a boot");
  return { dev, a, ghost: b.ghost, m: b.m, img: b.img };
}

// On a copy of the device: the segment left not finalized, a reboot; every
// moment read back as `all`.
// (The device in use is installed again after.)
function damagedReadsWhole(img: Image, name: string, all: string[], what: string): void {
  const was = SimDevice.current;
  try {
    const dev = load(img);
    dev.spiffs.notFinalized.add(name);
    const a = new Archive(root);
    a.check();
    deepEqual(contents(a, "moment"), all, `${what}: ${name} not finalized, every moment read back`);
  } finally {
    was.install();
  }
}

export const scenarios: Scenario[] = [
  {
    name: "archive ghost: a ghost goes by steps (a plain twin of its open mate first, then the keyed twin, then the ghost); the open segment left not finalized reads back whole at every stage",
    run() {
      const { dev, a, ghost } = withGhost();
      const mate = ghost + 1;
      const all = contents(a, "moment");
      const stages: string[] = [];
      damagedReadsWhole(imageOf(dev), segName("m", mate), all, "the ghost and the keyed twin");
      for (let r = a.step(), n = 0; r && n < 100; r = a.step(), n++) {
        stages.push(r.did);
        damagedReadsWhole(imageOf(dev), segName("m", mate), all, `after "${r.did}"`);
        if (!dev.spiffs.exists(segName("m", ghost, "par"))) break;
      }
      ok(stages.some((d) => d.indexOf("plain twin") >= 0), `a plain twin by steps: ${stages.join("; ")}`);
      ok(!dev.spiffs.exists(segName("m", ghost, "par")), `the ghost is gone: ${stages.join("; ")} ${dev.spiffs.list().filter((e) => /^\/m/.test(e.name)).map((e) => e.name + ":" + e.length).join(" ")}`);
      ok(!dev.spiffs.exists(segName("m", mate, "par")), "the twin XORed with it is gone");
      const seg = dev.spiffs.content(segName("m", mate)), twn = dev.spiffs.content(segName("m", mate, "twn"));
      ok(seg.length === twn.length && seg.every((x, i) => x === twn[i]), "the open segment's twin is its plain copy");
      // appends go on to the plain twin; a reboot keeps it
      a.append("moment", momentsOf(40, 3));
      const more = contents(a, "moment");
      dev.reboot();
      const b = new Archive(root);
      b.check();
      const seg2 = dev.spiffs.content(segName("m", mate)), twn2 = dev.spiffs.content(segName("m", mate, "twn"));
      ok(seg2.length === twn2.length && seg2.every((x, i) => x === twn2[i]), "appends reach the plain twin");
      damagedReadsWhole(imageOf(dev), segName("m", mate), more, "after appends and a reboot");
    },
  },
  {
    name: "archive ghost: a cut at any write of the ghost's steps keeps every moment, and the open segment then left not finalized reads back whole",
    run() {
      const { a, ghost, img } = withGhost();
      const mate = ghost + 1;
      const all = contents(a, "moment");
      let cuts = 0;
      for (let at = 1; at < 200; at++) {
        const d = load(img);
        let b = new Archive(root);
        b.check();
        d.inject("power_cut", { at, seed: at });
        const cut = SimDevice.survive(() => {
          for (let r = b.step(), n = 0; r && n < 100 && d.spiffs.exists(segName("m", ghost, "par")); r = b.step(), n++);
        });
        d.flash.disarm();
        if (!cut) break;
        cuts++;
        d.reboot();
        b = new Archive(root);
        b.check();
        deepEqual(contents(b, "moment"), all, `cut at write ${at}: every moment`);
        damagedReadsWhole(imageOf(d), segName("m", mate), all, `cut at write ${at}`);
        for (let r = b.step(), n = 0; r && n < 100; r = b.step(), n++);
        ok(!d.spiffs.exists(segName("m", ghost, "par")), `cut at write ${at}: the ghost goes in the end`);
        deepEqual(contents(b, "moment"), all, `cut at write ${at}, after the steps`);
      }
      ok(cuts >= 4, `cut points: ${cuts}`);
    },
  },
  {
    name: "archive ghost: a ghost whose mate is sealed (its parity XORed with the ghost) goes by steps: a plain twin of the mate, then its parity, then the ghost; the mate reads back whole at every stage",
    run() {
      const { dev, a, ghost, m } = withGhost();
      const mate = ghost + 1;
      // appends with no steps between (as a device from before this left it): the mate is sealed with its ghost
      for (let k = 0; k < 12 && segments(dev, "m").indexOf(mate + 1) < 0; k++) a.append("moment", momentsOf(m + k, 40));
      ok(segments(dev, "m").indexOf(mate + 1) >= 0, "the next segment started");
      ok(dev.spiffs.exists(segName("m", ghost, "par")) && dev.spiffs.exists(segName("m", mate, "par")), `the ghost and the mate's parity XORed with it: ${dev.spiffs.list().filter((e) => /^\/m/.test(e.name)).map((e) => e.name + ":" + e.length).join(" ")} ${(dev.spiffs.usedPages() / dev.spiffs.totalPages).toFixed(3)}`);
      const all = contents(a, "moment");
      const stages: string[] = [];
      for (let r = a.step(), n = 0; r && n < 200; r = a.step(), n++) {
        stages.push(r.did);
        if (r.did.indexOf(`m${mate}`) >= 0 || r.did.indexOf(`m${ghost}`) >= 0) damagedReadsWhole(imageOf(dev), segName("m", mate), all, `after "${r.did}"`);
        if (!dev.spiffs.exists(segName("m", ghost, "par"))) break;
      }
      ok(!dev.spiffs.exists(segName("m", ghost, "par")), `the ghost is gone: ${stages.join("; ")}`);
      ok(!dev.spiffs.exists(segName("m", mate, "par")), "the mate's parity XORed with it is gone");
      const seg = dev.spiffs.content(segName("m", mate)), twn = dev.spiffs.content(segName("m", mate, "twn"));
      ok(seg.length === twn.length && seg.every((x, i) => x === twn[i]), "the mate keeps a plain twin");
    },
  },
  {
    name: "archive ghost: an append with no room drops a ghost and what is XORed with it (the keyed files first: a cut between leaves no twin read back without its key)",
    run() {
      // the open mate: its keyed twin goes, then the ghost
      {
        const { a, ghost, img } = withGhost();
        const mate = ghost + 1;
        const all = contents(a, "moment");
        for (let at = 1; at <= 3; at++) {
          const d = load(img);
          let b = new Archive(root);
          b.check();
          d.inject("power_cut", { at, seed: at });
          const cut = SimDevice.survive(() => void moments(b).dropGhost());
          d.flash.disarm();
          d.reboot();
          b = new Archive(root);
          b.check();
          deepEqual(contents(b, "moment"), all, `dropGhost cut at ${at} (${cut}): every moment`);
          ok(!d.spiffs.exists(segName("m", mate, "par")) || d.spiffs.exists(segName("m", ghost, "par")), `cut at ${at}: no keyed twin without its ghost`);
          for (let r = b.step(), n = 0; r && n < 100; r = b.step(), n++);
          ok(!d.spiffs.exists(segName("m", ghost, "par")), `cut at ${at}: no ghost after the steps`);
          damagedReadsWhole(imageOf(d), segName("m", mate), all, `dropGhost cut at ${at}, then steps`);
        }
      }
      // the sealed mate: its parity XORed with the ghost goes too (made again plain by steps)
      {
        const { dev, a, ghost, m } = withGhost();
        const mate = ghost + 1;
        for (let k = 0; k < 12 && segments(dev, "m").indexOf(mate + 1) < 0; k++) a.append("moment", momentsOf(m + k, 40));
        ok(dev.spiffs.exists(segName("m", mate, "par")), "the sealed mate's parity XORed with the ghost");
        ok(moments(a).dropGhost(), "a ghost dropped");
        ok(!dev.spiffs.exists(segName("m", ghost, "par")) && !dev.spiffs.exists(segName("m", mate, "par")), "the ghost and the parity XORed with it");
        const all = contents(a, "moment");
        for (let r = a.step(), n = 0; r && n < 200; r = a.step(), n++);
        const par = dev.spiffs.exists(segName("m", mate, "par")) ? dev.spiffs.content(segName("m", mate, "par")) : dev.spiffs.content(segName("m", mate, "twn"));
        const seg = dev.spiffs.content(segName("m", mate));
        equal(par.length, seg.length, "the mate protected again by steps");
        ok(seg.every((x, i) => x === par[i]), "by its own bytes (a pair with one member: its parity is its copy)");
        damagedReadsWhole(imageOf(dev), segName("m", mate), all, "the sealed mate");
      }
    },
  },
];

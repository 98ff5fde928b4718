// Space (docs/FORMAT.md §3.9, DESIGN.md "When space runs out"): on a small
// partition, steps keep the file system under 75% by retiring the oldest
// moment segments whole after folding them into digests; facts never retire;
// an append at the limit makes room the same way and succeeds; when only
// facts are left it fails with ArchiveError("full") and changes nothing.
import config from "mc/config";
import { SimDevice } from "../../host-sim/device";
import { Archive, ArchiveError } from "../../src/archive/archive";
import type { Fact, Moment } from "../../src/memory/types";
import { fromLocal, formatIso } from "../../src/time/local";
import { fresh, image, sameImage, sec } from "./archive.scn";
import { segments } from "./archive-segments.scn";
import { ok, equal } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;
const MB = 1024 * 1024;

// The moments of one month (day by day from the 1st, 20:00 local), 360+ bytes each.
export function monthOf(m: number, n: number): Moment[] {
  const y = 2024 + Math.floor(m / 12), mo = (m % 12) + 1;
  const out: Moment[] = [];
  for (let i = 0; i < n; i++)
    out.push({
      timestamp: sec(fromLocal(y, mo, 1 + (i % 28), 20, i)),
      topic: `第${m}月的日常`,
      content: `第${m}月第${i}个时刻：主人放学回家，和我讲了学校里发生的事情，我们一起看了动画片，又去楼下散步，看到了很多小狗和小猫，主人很开心。`,
      emotion: "happy",
      intensity: 3,
      importance: 3,
    });
  return out;
}

function factsOf(m: number, n: number): Fact[] {
  const out: Fact[] = [];
  const t = sec(fromLocal(2024 + Math.floor(m / 12), (m % 12) + 1, 2, 9, 0));
  for (let i = 0; i < n; i++) out.push({ timestamp: t + i * 60, content: `第${m}月的第${i}个事实：主人喜欢的东西又多了一样，要一直记住。` });
  return out;
}

function use(dev: SimDevice): number {
  const s = dev.spiffs.stats();
  return s.used / s.total;
}

export const scenarios: Scenario[] = [
  {
    name: "archive v2 retire: on a small partition steps keep use under 75%, retire moment segments oldest first into digests, and never retire a fact",
    run() {
      const dev = fresh(MB / 2);
      const a = new Archive(root);
      a.check();
      let facts = 0, peak = 0, retired = 0, months = 0;
      const alive = new Set<number>();
      for (let m = 0; m < 60 && retired < 4; m++, months++) {
        const ms = monthOf(m, 60);
        for (let i = 0; i < ms.length; i += 10) {
          a.append("moment", ms.slice(i, i + 10));
          peak = Math.max(peak, use(dev));
          a.settle();
        }
        a.append("fact", factsOf(m, 5));
        facts += 5;
        a.settle();
        peak = Math.max(peak, use(dev));
        // moment segments leave oldest first
        const now = segments(dev, "m");
        const gone = [...alive].filter((s) => now.indexOf(s) < 0);
        for (const g of gone) {
          ok(now.length === 0 || now[0] > g, `segment ${g} retired while an older one (${now[0]}) stays`);
          alive.delete(g);
          retired++;
        }
        for (const s of now) alive.add(s);
      }
      ok(retired >= 4, `moment segments retired: ${retired} in ${months} months`);
      ok(peak <= 0.75, `the file system's use peaked at ${Math.round(peak * 1000) / 10}%`);
      equal(a.count("fact"), facts, "every fact kept");
      ok(segments(dev, "d").length >= 1, "digest lines were written");
      // the first month has left the flash; a range recall of it finds its digest
      equal(a.recallByKeyword("moment", "第0月第5个时刻", 5).filter((x) => !x.digest).length, 0, "its moments are gone");
      const jan = a.recallByTimeRange("moment", "2024-01-01", "2024-01-31", 50);
      ok(jan.length >= 1 && jan.every((x) => x.digest === true), `a digest answers for January 2024: ${JSON.stringify(jan.map((x) => x.month))}`);
      ok((jan[0].count ?? 0) >= 1, "it counts what it folded");
      ok(jan.some((x) => x.month === "2024-01"), `January's digest: ${JSON.stringify(jan.map((x) => x.month))}`);
      // its span ends with the month's last moment (the 28th, 20:59): an evening range that day still finds it
      const late = a.recallByTimeRange("moment", "2024-01-28T20:30", "2024-01-28T23:59", 50);
      ok(late.some((x) => x.digest === true && x.month === "2024-01"), `the digest's span reaches its last moment: ${JSON.stringify(late.map((x) => [x.month, x.until]))}`);
      // the newest month is whole
      equal(a.recallByKeyword("moment", `第${months - 1}月`, 100).filter((x) => !x.digest).length, 60);
      // after a reboot too
      dev.reboot();
      const b = new Archive(root);
      b.check();
      equal(b.count("fact"), facts);
      ok(b.recallByTimeRange("moment", "2024-01-01", "2024-01-31", 50).some((x) => x.digest === true));
      void formatIso;
    },
  },
  {
    name: "archive v2 retire: an append at the partition's limit retires the oldest moment segment first and succeeds",
    run() {
      const dev = fresh(MB);
      const a = new Archive(root);
      a.check();
      let retiredBy = 0, appended = 0;
      // no steps: full segments keep their twins until an append short of room seals them, then retires
      for (let m = 0; m < 160 && retiredBy < 2; m++) {
        const ms = monthOf(m, 60);
        for (let i = 0; i < ms.length; i += 10) {
          const r = a.append("moment", ms.slice(i, i + 10)); // no steps: the append makes room itself
          appended += r.appended;
          if (r.retired) retiredBy += r.retired;
          ok(use(dev) <= 0.75, `use ${use(dev)}`);
        }
      }
      ok(retiredBy >= 2, `appends retired ${retiredBy} segments`);
      ok(segments(dev, "m")[0] > 1, "the oldest went first");
      ok(segments(dev, "d").length >= 1, "folded into digests first");
      // a fact at the limit makes room the same way
      const r = a.append("fact", factsOf(99, 20));
      equal(r.appended, 20);
      equal(a.count("fact"), 20);
      ok(appended > 0);
    },
  },
  {
    name: "archive v2 retire: when only facts are left, an append that would pass the limit fails with ArchiveError full and changes nothing",
    run() {
      const dev = fresh(MB / 2);
      const a = new Archive(root);
      a.check();
      let err: unknown, n = 0;
      for (let m = 0; m < 400 && !err; m++) {
        const batch = factsOf(m, 25).map((f) => ({ ...f, content: f.content + "这是一段很长的补充说明，让每一条事实都更长一些。".repeat(4) }));
        const before = image(dev);
        try {
          a.append("fact", batch);
          n += 25;
        } catch (e) {
          err = e;
          equal(sameImage(before, image(dev)), undefined, "a refused append writes nothing");
        }
        if (m % 4 === 3) a.settle(20);
      }
      ok(err instanceof ArchiveError && err.code === "full", `refused as full: ${String(err)}`);
      ok(use(dev) <= 0.75);
      equal(a.count("fact"), n, "every acknowledged fact is there");
      // tried again, after steps: still refused, still nothing changed
      a.settle(20);
      const before = image(dev);
      let e2: unknown;
      try {
        a.append("fact", factsOf(500, 25).map((f) => ({ ...f, content: f.content + "这是一段很长的补充说明，让每一条事实都更长一些。".repeat(4) })));
      } catch (e) {
        e2 = e;
      }
      ok(e2 instanceof ArchiveError && e2.code === "full", `again: ${String(e2)}`);
      equal(sameImage(before, image(dev)), undefined, "nothing written");
      dev.reboot();
      const b = new Archive(root);
      b.check();
      equal(b.count("fact"), n);
    },
  },
];

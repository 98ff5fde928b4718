// Tombstones (docs/FORMAT.md §3.7), beside archive-forget.scn.ts (the
// rewrite that takes the bytes off the flash): forget(type, ids) hides a
// record from every kind of recall at once; either copy, tomb.a or tomb.b,
// alone keeps it hidden after a reboot; ids of another type hide nothing;
// bad ids or types are refused and change nothing.
import config from "mc/config";
import { Archive, ArchiveError } from "../../src/archive/archive";
import { recordId } from "../../src/archive/line";
import { fresh, fillFacts, moment, image, sameImage } from "./archive.scn";
import { ok, equal, deepEqual, throws } from "./assert";
import type { Scenario } from "./types";

const root = config.file.root;

export const scenarios: Scenario[] = [
  {
    name: "archive v2 forget: hidden at once from recent, range and keyword recall; a second forget of it counts 0; another type's id hides nothing",
    run() {
      fresh();
      const a = new Archive(root);
      const facts = fillFacts(a, 200);
      a.settle();
      a.append("moment", [moment(0, "秘密", "主人的小秘密"), moment(1, "日常", "看书")]);
      const last = facts[199], old = facts[3];
      const ids = [recordId("fact", last), recordId("fact", old)];
      equal(a.forget("fact", ids), 2);
      ok(a.recallRecent("fact", 5).every((x) => ids.indexOf(x.id) < 0), "recent");
      equal(a.recallRecent("fact", 1)[0].content, facts[198].content);
      equal(a.recallByKeyword("fact", "第3条", 10).length, 0, "keyword");
      equal(a.recallByKeyword("fact", "第199条", 10).length, 0);
      equal(a.recallByTimeRange("fact", undefined, undefined, 1000).length, 198, "range");
      let seen = 0;
      a.forEach("fact", (x) => {
        if (ids.indexOf(x.id) >= 0) seen++;
      });
      equal(seen, 0, "forEach");
      equal(a.forget("fact", [ids[0]]), 0, "already forgotten");
      equal(a.report().forgotten, 2);
      // a moment's id given as a fact hides nothing; as a moment it does
      const mid = recordId("moment", moment(0, "秘密", "主人的小秘密"));
      equal(a.forget("fact", [mid]), 1, "a tombstone of the fact stream");
      equal(a.recallByKeyword("moment", "秘密").length, 1, "the moment is not hidden by a fact's tombstone");
      equal(a.forget("moment", [mid]), 1);
      equal(a.recallByKeyword("moment", "秘密").length, 0);
      equal(a.recallRecent("moment").length, 1);
      deepEqual(a.forget("fact", []), 0);
    },
  },
  {
    name: "archive v2 forget: survives a reboot, and tomb.a or tomb.b alone keeps it hidden",
    run() {
      const dev = fresh();
      let a = new Archive(root);
      const facts = fillFacts(a, 50);
      const id = recordId("fact", facts[10]);
      equal(a.forget("fact", [id]), 1);
      const later = recordId("fact", facts[20]);
      equal(a.forget("fact", [later]), 1);
      ok(dev.spiffs.exists("/tomb.a") && dev.spiffs.exists("/tomb.b"), "two copies");
      const both = image(dev);
      for (const gone of ["", "/tomb.a", "/tomb.b"]) {
        const d = fresh();
        for (const [n, b] of both) if (n !== gone) d.spiffs.load(n, b.slice());
        a = new Archive(root);
        equal(a.check().forgotten, 2, `without ${gone || "nothing"}`);
        equal(a.recallByKeyword("fact", "第10条").length, 0, `hidden without ${gone || "nothing"}`);
        equal(a.recallByKeyword("fact", "第20条").length, 0);
        equal(a.recallByKeyword("fact", "第11条").length, 1);
      }
      // a damaged copy: the other one holds
      for (const bad of ["/tomb.a", "/tomb.b"]) {
        const d = fresh();
        for (const [n, b] of both) d.spiffs.load(n, b.slice());
        const b = d.spiffs.content(bad);
        b[16 + 5] ^= 0x10; // the first tombstone's id
        d.spiffs.load(bad, b);
        a = new Archive(root);
        a.check();
        equal(a.recallByKeyword("fact", "第10条").length, 0, `${bad} damaged: still hidden`);
        equal(a.recallByKeyword("fact", "第20条").length, 0);
        // the next forget writes the damaged copy again whole
        equal(a.forget("fact", [recordId("fact", facts[30])]), 1);
        const c = new Archive(root);
        c.check();
        equal(c.report().forgotten, 3);
      }
    },
  },
  {
    name: "archive v2 forget: bad ids and types are refused and change nothing",
    run() {
      const dev = fresh();
      const a = new Archive(root);
      const facts = fillFacts(a, 20);
      const good = recordId("fact", facts[1]);
      const before = image(dev);
      for (const ids of [["XYZ"], [good.toUpperCase()], [good, "123"], [good + "0"], [12345678 as unknown as string], [null as unknown as string], [" " + good.slice(1)]]) {
        throws(() => a.forget("fact", ids), { name: "ArchiveError", message: "8 lowercase hex" }, `ids ${JSON.stringify(ids)}`);
      }
      throws(() => a.forget("trait", [good]), { name: "ArchiveError", message: "type must be" });
      equal(sameImage(before, image(dev)), undefined, "nothing written");
      equal(a.report().forgotten, 0);
      equal(a.recallByKeyword("fact", "第1条").length, 1, "nothing hidden");
      ok(new ArchiveError("invalid", "x") instanceof Error);
    },
  },
];

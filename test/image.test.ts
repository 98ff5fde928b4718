// Real device dumps: the SPIFFS image reader and writer (desktop/image/spiffs.ts),
// `petmem image` and `petmem inspect` (desktop/commands/image.ts, inspect.ts).

import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { Layout, readSpiffs, writeSpiffs, SpiffsImageError, FLAGS_DATA_FINAL, type ImageFile } from "../desktop/image/spiffs";
import { boardLayout, esptoolLines, NVS_BYTES, STORAGE_BYTES } from "../desktop/image/boards";
import { inspectImages, ImageError } from "../desktop/image/inspect";
import { openHost } from "../desktop/host";
import { runCli } from "../desktop/cli";

const MB3 = 3 * 1024 * 1024;
const L = new Layout(MB3);

function bytesOf(k: number, size: number): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + k * 13) & 0xff;
  return b;
}

const u16 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8);
const put16 = (b: Uint8Array, o: number, v: number) => ((b[o] = v & 0xff), (b[o + 1] = v >> 8));
const luAddr = (pix: number) => Math.floor(pix / L.pagesPerBlock) * 4096 + ((pix % L.pagesPerBlock) - L.luPages) * 2;

// every page of an object (index pages with the 0x8000 flag), in lookup order
function pagesOf(img: Uint8Array, objId: number): { pix: number; index: boolean; span: number }[] {
  const out: { pix: number; index: boolean; span: number }[] = [];
  for (let b = 0; b < L.blocks; b++)
    for (let e = 0; e < L.luEntries; e++) {
      const lu = u16(img, b * 4096 + e * 2);
      if ((lu & 0x7fff) !== objId || lu === 0xffff || lu === 0) continue;
      const pix = L.entryPage(b, e);
      out.push({ pix, index: (lu & 0x8000) !== 0, span: u16(img, pix * 256 + 2) });
    }
  return out;
}

// what SPIFFS does to delete a page: its lookup entry to 0, then its flags' DELET bit
function deletePage(img: Uint8Array, pix: number): void {
  put16(img, luAddr(pix), 0);
  img[pix * 256 + 4] &= 0x7f;
}

// the first free page after `from` (SPIFFS allocates the same way, from a cursor)
function freePage(img: Uint8Array, from = 0): number {
  for (let pix = from; pix < L.pages; pix++) if (!L.isLookupPage(pix) && u16(img, luAddr(pix)) === 0xffff) return pix;
  throw new Error("full");
}

// SPIFFS's page move: the page copied to a free page (lookup entry first), then the old one deleted
function movePage(img: Uint8Array, pix: number, edit?: (page: Uint8Array) => void, deleteOld = true): number {
  const to = freePage(img, pix + 1);
  put16(img, luAddr(to), u16(img, luAddr(pix)));
  const page = img.slice(pix * 256, pix * 256 + 256);
  edit?.(page);
  img.set(page, to * 256);
  if (deleteOld) deletePage(img, pix);
  return to;
}

// the index entry (in its index page) that points at the data page of `span`
function indexEntryAddr(img: Uint8Array, objId: number, span: number): number {
  const at = L.indexOf(span);
  const ix = pagesOf(img, objId).find((p) => p.index && p.span === at.ixSpan)!;
  return ix.pix * 256 + L.entriesAt(at.ixSpan) + at.entry * 2;
}

const FILES: ImageFile[] = [
  ["/a", 0],
  ["/pm_conf.1", 19],
  ["/f000001", 251],
  ["/f000002", 252],
  ["/ep.h0", 25853],
  ["/ep.t0", 25854],
  ["/big", 80000],
  ["/abcdefghijklmnopqrstuvwxyz0123", 3000],
].map(([name, size], k) => ({ name: name as string, bytes: bytesOf(k, size as number) }));

function objIdOf(img: Uint8Array, name: string): number {
  return readSpiffs(img).files.find((f) => f.name === name)!.objId;
}

describe("SPIFFS partition images", () => {
  it("has ESP-IDF's layout for 256-byte pages, 4 KB blocks, 32-byte names and 4 bytes of meta on 3 MB", () => {
    assert.deepEqual(
      { ppb: L.pagesPerBlock, lu: L.luPages, entries: L.luEntries, data: L.dataLen, hdr: L.ixHeaderLen, hdrEntries: L.hdrEntries, ixEntries: L.ixEntries, blocks: L.blocks },
      { ppb: 16, lu: 1, entries: 15, data: 251, hdr: 49, hdrEntries: 103, ixEntries: 124, blocks: 768 },
    );
    assert.equal(L.magic(0), (0x20140529 ^ 256 ^ 768) & 0xffff);
    assert.equal(L.magic(767), (0x20140529 ^ 256 ^ 1) & 0xffff);
  });

  it("writes byte for byte what ESP-IDF's spiffsgen.py writes for the same files", () => {
    // spiffsgen.py (esp-idf master, Nov 2026) run on these eight files, in the order
    // its os.walk gave them, with --page-size 256 --block-size 4096 --obj-name-len 32
    // --meta-len 4 --use-magic --use-magic-len: sha256 of its 3 MB image
    const order = ["/f000002", "/ep.t0", "/ep.h0", "/abcdefghijklmnopqrstuvwxyz0123", "/f000001", "/a", "/big", "/pm_conf.1"];
    const img = writeSpiffs(order.map((n) => FILES.find((f) => f.name === n)!), MB3);
    assert.equal(crypto.createHash("sha256").update(img).digest("hex"), "0938f62e3faa995d0aa58fd217bea6fd59d28c1969ad0c2e44321a1118261933");
  });

  it("reads back every file it writes, whole, with no damage", () => {
    const img = writeSpiffs(FILES, MB3);
    const r = readSpiffs(img);
    assert.equal(r.format, "spiffs");
    assert.equal(r.mountable, true);
    assert.deepEqual(r.damage, []);
    assert.deepEqual(r.leftovers, { unfinished: 0, orphans: 0, dirtyFree: 0 });
    assert.deepEqual(r.files.map((f) => f.name), FILES.map((f) => f.name).sort());
    for (const f of FILES) assert.deepEqual(r.files.find((x) => x.name === f.name)!.bytes, f.bytes, f.name);
    // /big spans a header and 3 index pages: 319 data pages = 103 + 124 + 92
    assert.equal(pagesOf(img, objIdOf(img, "/big")).filter((p) => p.index).length, 3);
  });

  it("refuses a name over 31 bytes, two files of one name, and files that do not fit", () => {
    assert.throws(() => writeSpiffs([{ name: "/abcdefghijklmnopqrstuvwxyz01234", bytes: new Uint8Array(1) }], MB3), SpiffsImageError);
    assert.throws(() => writeSpiffs([{ name: "/x", bytes: new Uint8Array(1) }, { name: "/x", bytes: new Uint8Array(1) }], MB3), SpiffsImageError);
    assert.throws(() => writeSpiffs([{ name: "/x", bytes: new Uint8Array(64 * 1024) }], 64 * 1024), /do not fit/);
  });

  it("reads a live file system: deleted files, moved headers and index pages, a rewritten data page", () => {
    const img = writeSpiffs(FILES, MB3);
    // /f000001 deleted: every page of it
    for (const p of pagesOf(img, objIdOf(img, "/f000001"))) deletePage(img, p.pix);
    // /big: its header moved (SPIFFS rewrites the header on every size change), then its second index page
    const big = objIdOf(img, "/big");
    const hdr = pagesOf(img, big).find((p) => p.index && p.span === 0)!;
    movePage(img, hdr.pix);
    const ix2 = pagesOf(img, big).find((p) => p.index && p.span === 2)!;
    movePage(img, ix2.pix);
    // /ep.t0: data page 5 rewritten elsewhere, its index entry pointed at the copy, the old one deleted
    const ep = objIdOf(img, "/ep.t0");
    const at = indexEntryAddr(img, ep, 5);
    const old = u16(img, at);
    const copy = movePage(img, old, (page) => page.fill(0x41, 5, 15));
    put16(img, at, copy & old); // bits only go from 1 to 0: a real move rewrites the index page; this keeps the test short
    if ((copy & old) !== copy) {
      const ixPage = Math.floor(at / 256);
      movePage(img, ixPage, (page) => put16(page, at % 256, copy));
    }
    const r = readSpiffs(img);
    assert.deepEqual(r.damage, []);
    assert.equal(r.files.some((f) => f.name === "/f000001"), false);
    assert.deepEqual(r.files.find((f) => f.name === "/big")!.bytes, FILES.find((f) => f.name === "/big")!.bytes);
    const want = FILES.find((f) => f.name === "/ep.t0")!.bytes.slice();
    want.fill(0x41, 5 * 251, 5 * 251 + 10);
    assert.deepEqual(r.files.find((f) => f.name === "/ep.t0")!.bytes, want);
    assert.ok(r.stats.deleted >= 4);
    assert.equal(r.files.length, FILES.length - 1);
  });

  it("names a torn page and a move a power cut interrupted, and reads the rest", () => {
    const img = writeSpiffs(FILES, MB3);
    // a page allocated and half written, never finalized (flags 0xFE): SPIFFS ignores it
    const torn = freePage(img);
    put16(img, luAddr(torn), 0x0077);
    img.set([0x77, 0x00, 0x00, 0x00, 0xfe, 1, 2, 3], torn * 256);
    // a header moved but the old copy not yet deleted: two headers of /pm_conf.1
    const conf = objIdOf(img, "/pm_conf.1");
    movePage(img, pagesOf(img, conf).find((p) => p.index)!.pix, undefined, false);
    // /f000002: its second data page never finalized (a write cut before its flags were set)
    const f2 = objIdOf(img, "/f000002");
    const second = u16(img, indexEntryAddr(img, f2, 1));
    img[second * 256 + 4] = FLAGS_DATA_FINAL | 2;
    const r = readSpiffs(img);
    assert.equal(r.leftovers.unfinished, 2);
    assert.deepEqual(r.damage.map((d) => [d.kind, d.name]).sort(), [["duplicate_name", "/pm_conf.1"], ["unreadable_file", "/f000002"]]);
    assert.match(r.unreadable[0].reason, /never finished/);
    assert.equal(r.unreadable[0].readable.length, 251); // the first page is readable
    assert.deepEqual(r.files.find((f) => f.name === "/pm_conf.1")!.bytes, FILES[1].bytes);
    assert.equal(r.files.length, FILES.length - 1);
  });

  it("names a flipped bit in an index header (a page of another object, a size beyond the data, a name) and reads the others", () => {
    const img = writeSpiffs(FILES, MB3);
    const h0 = objIdOf(img, "/ep.h0");
    const other = u16(img, indexEntryAddr(img, objIdOf(img, "/ep.t0"), 0));
    // /ep.h0: its entry for span 3 now points at /ep.t0's first page
    put16(img, indexEntryAddr(img, h0, 3), other);
    // /f000001: size 251 → 251 + 1024, beyond its one data page
    const f1 = pagesOf(img, objIdOf(img, "/f000001")).find((p) => p.index)!.pix;
    img[f1 * 256 + 9] ^= 0x04;
    // /a: a bit of its name flipped into a byte that is not UTF-8
    const a = pagesOf(img, objIdOf(img, "/a")).find((p) => p.index)!.pix;
    img[a * 256 + 14] ^= 0x80;
    const r = readSpiffs(img);
    const by = (n: string) => r.damage.find((d) => d.name === n);
    assert.match(by("/ep.h0")!.message, /page of another object/);
    assert.match(by("/f000001")!.message, /size 1275 bytes, but its data ends at byte 251/);
    assert.ok(r.damage.some((d) => d.kind === "unreadable_name" && d.page === a));
    assert.deepEqual(r.unreadable.map((u) => u.name).sort(), ["/ep.h0", "/f000001"]);
    assert.deepEqual(r.files.map((f) => f.name).sort(), ["/abcdefghijklmnopqrstuvwxyz0123", "/big", "/ep.t0", "/f000002", "/pm_conf.1"]);
  });

  it("says what the device does with blocks lacking their magic, an erased partition and one that is not SPIFFS", () => {
    const img = writeSpiffs(FILES, MB3);
    const one = img.slice();
    one[0 * 4096 + L.magicOffset] ^= 1; // block 0 holds /a, /abc…, /big's first pages
    const r1 = readSpiffs(one);
    assert.equal(r1.mountable, true);
    assert.equal(r1.damage[0].kind, "bad_magic");
    assert.ok(r1.files.some((f) => f.name === "/ep.t0"));
    assert.equal(r1.files.some((f) => f.name === "/a"), false);
    const two = one.slice();
    two[5 * 4096 + L.magicOffset] ^= 1;
    const r2 = readSpiffs(two);
    assert.equal(r2.mountable, false);
    assert.equal(r2.damage[0].kind, "not_mountable");
    assert.equal(readSpiffs(new Uint8Array(MB3).fill(0xff)).format, "erased");
    assert.equal(readSpiffs(new Uint8Array(MB3).fill(0x5a)).format, "unknown");
  });
});

// A data folder filled through the tool over three months: facts and moments
// past the NVS caps (the archiver moves the oldest), events the weekly move
// archived, schedules, episodes.
function fillDataFolder(dir: string): void {
  const kinds = ["霸王龙", "三角龙", "剑龙", "翼龙", "迅猛龙", "甲龙", "腕龙", "棘龙"];
  for (let month = 1; month <= 3; month++) {
    const host = openHost({ data: dir, command: "test", now: Date.parse(`2026-0${month}-05T09:00:00+08:00`), tz: 480 });
    try {
      const c = (a: Record<string, unknown>) => host.service.tool.call(a);
      if (month === 1) {
        c({ action: "write", type: "name", content: "小明" });
        c({ action: "write", type: "like", content: "恐龙" });
      }
      for (let i = 0; i < 12; i++) c({ action: "write", type: "fact", content: `${month}月小明学会了画第${i + 1}只${kinds[i % 8]}`, force: true });
      for (let i = 0; i < 6; i++) c({ action: "write", type: "moment", content: `${month}月第${i + 1}次一起搭积木城堡`, force: true });
      c({ action: "write", type: "event", content: `${month}月去医院体检`, datetime: `2026-0${month}-02`, force: true });
      c({ action: "write", type: "schedule", content: `${month}月底去动物园`, datetime: `2026-0${month}-28 10:00`, force: true });
      c({ action: "write", type: "episode", content: `${["春节", "元宵", "植树"][month - 1]}那天小明和爷爷一起${["放鞭炮", "吃汤圆", "种小树"][month - 1]}`, e: 0.6, i: 0.5, p: 0.9, j: 0.5 });
      host.booted.archiver!.weekly();
    } finally {
      host.close();
    }
  }
}

function quietTrace<T>(fn: () => T): T {
  const g = globalThis as unknown as { process: NodeJS.Process };
  const write = g.process.stderr.write;
  g.process.stderr.write = (() => true) as typeof write;
  try {
    return fn();
  } finally {
    g.process.stderr.write = write;
  }
}

describe("petmem image and inspect", () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-image-"));
    quietTrace(() => fillDataFolder(path.join(dir, "data")));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const io = () => {
    const o = { out: "", err: "" };
    return { o, io: { out: (t: string) => void (o.out += t), err: (t: string) => void (o.err += t), errIsTty: false } };
  };

  it("the boards' partition tables place nvs and storage where the images fit", () => {
    for (const b of ["esp32s3", "esp32"] as const) {
      const l = boardLayout(b);
      assert.equal(l.nvs.size, NVS_BYTES);
      assert.equal(l.storage.size, STORAGE_BYTES);
    }
    assert.match(esptoolLines(boardLayout("esp32s3"), "/o").write, /write_flash 0x9000 \/o\/nvs\.bin 0xC20000 \/o\/storage\.bin$/);
    assert.match(esptoolLines(boardLayout("esp32"), "/o").write, /0x4E0000 \/o\/storage\.bin$/);
  });

  it("image → inspect gives the same memory: the same read reply, schedules and archive records", async () => {
    const data = path.join(dir, "data");
    const out = path.join(dir, "img");
    const snapshot = () => ["nvs.bin", ...fs.readdirSync(path.join(data, "storage")).map((f) => path.join("storage", f))].map((f) => [f, crypto.createHash("sha256").update(fs.readFileSync(path.join(data, f))).digest("hex")]);
    const before = snapshot();
    const c = io();
    assert.equal(await quietTrace(() => runCli(["image", "--out", out, "--data", data], c.io)), 0, c.o.err);
    assert.deepEqual(snapshot(), before, "image changes nothing in the data folder");
    // the data folder's files as `image` left them (a later boot writes its health mirror again)
    const files = fs.readdirSync(path.join(data, "storage")).map((f) => ({ name: "/" + decodeURIComponent(f), bytes: new Uint8Array(fs.readFileSync(path.join(data, "storage", f))) }));
    assert.match(c.o.out, /esptool\.py --chip esp32s3 write_flash 0x9000 .*nvs\.bin 0xC20000 .*storage\.bin/);
    const nvs = new Uint8Array(fs.readFileSync(path.join(out, "nvs.bin")));
    const storage = new Uint8Array(fs.readFileSync(path.join(out, "storage.bin")));
    assert.equal(nvs.length, 49152);
    assert.equal(storage.length, MB3);

    const now = Date.parse("2026-03-06T10:00:00+08:00");
    // the data folder's own memory, read the same way
    const host = quietTrace(() => openHost({ data, command: "test", now }));
    let want: { read: unknown; schedules: unknown; records: Record<string, unknown[]> };
    try {
      const call = (a: Record<string, unknown>) => JSON.parse(host.service.tool.call(a)) as unknown;
      const records: Record<string, unknown[]> = {};
      for (const t of ["fact", "moment", "event"] as const) {
        records[t] = [];
        host.booted.archive!.forEach(t, (item) => void records[t].push(item));
      }
      want = { read: call({ action: "read" }), schedules: call({ action: "read", type: "schedule" }), records };
    } finally {
      host.close();
    }
    const r = inspectImages(nvs, storage, { now, records: true });
    assert.equal(r.booted, true);
    assert.deepEqual(r.nvs.damage, []);
    assert.deepEqual(r.storage!.damage, []);
    assert.deepEqual(r.memory!.read, want.read);
    assert.deepEqual(r.memory!.schedules, want.schedules);
    assert.deepEqual(r.memory!.archive!.records, want.records);
    assert.ok(want.records.fact.length >= 20 && want.records.moment.length >= 9 && want.records.event.length === 3, JSON.stringify(r.memory!.archive!.counts));
    assert.deepEqual(r.memory!.archive!.months.map((m) => m.month), ["2026-01", "2026-02", "2026-03"]);
    assert.equal((r.memory!.status as { episodes: { active: number } }).episodes.active, 3);
    // the SPIFFS image holds exactly the data folder's files
    const sp = readSpiffs(storage);
    assert.deepEqual(sp.files.map((f) => [f.name, Buffer.from(f.bytes).toString("hex")]), files.sort((x, y) => (x.name < y.name ? -1 : 1)).map((f) => [f.name, Buffer.from(f.bytes).toString("hex")]));
  });

  it("inspect names NVS damage (an entry's CRC, init's repair) and a damaged archive file, and still reads the rest", () => {
    const out = path.join(dir, "img");
    const nvs = new Uint8Array(fs.readFileSync(path.join(out, "nvs.bin")));
    const storage = new Uint8Array(fs.readFileSync(path.join(out, "storage.bin")));
    // a bit of the key of the first blob index written (a store's copy: boot repairs it from the other)
    let at = -1;
    for (let p = 0; p < 12 && at < 0; p++)
      for (let i = 0; i < 126; i++) {
        const state = (nvs[p * 4096 + 32 + (i >> 4) * 4 + ((i % 16) >> 2)] >> ((i % 4) * 2)) & 3;
        const e = p * 4096 + 64 + i * 32;
        if (state === 2 && nvs[e + 1] === 0x48 && nvs[e + 2] === 1) {
          at = e;
          break;
        }
      }
    assert.ok(at > 0);
    nvs[at + 10] ^= 0x01;
    // a storage file's index entry flipped to point at another file's page
    const sp = readSpiffs(storage);
    const victim = sp.files.find((f) => f.bytes.length > 300)!;
    const donor = sp.files.find((f) => f !== victim && f.bytes.length > 0)!;
    const donorPage = u16(storage, indexEntryAddr(storage, donor.objId, 0));
    put16(storage, indexEntryAddr(storage, victim.objId, 1), donorPage);
    const r = quietTrace(() => inspectImages(nvs, storage, { now: Date.parse("2026-03-06T10:00:00+08:00") }));
    assert.equal(r.booted, true);
    assert.ok(r.nvs.damage.some((d) => d.kind === "entry_crc"), JSON.stringify(r.nvs.damage));
    assert.ok(r.nvs.repaired.some((d) => /erased by nvs_flash_init: its CRC fails/.test(d.message)), JSON.stringify(r.nvs.repaired));
    assert.deepEqual(r.storage!.unreadable.map((u) => u.name), [victim.name]);
    assert.match(r.storage!.unreadable[0].reason, /a page of span 0, not 1|a page of another object/);
    assert.ok(r.memory, "the memory is read");
  });

  it("the CLI: inspect prints text or one JSON document and exits 0; a wrong size, a file that is not an image, no --out: one line, exit 1 or 2", () => {
    const out = path.join(dir, "img");
    const cli = (...args: string[]) => spawnSync(process.execPath, ["desktop/petmem.mjs", ...args], { encoding: "utf8" });
    const t = cli("inspect", path.join(out, "nvs.bin"), path.join(out, "storage.bin"), "--now", "2026-03-06T10:00+08:00");
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /^NVS .*nvs\.bin: 12 pages .*no damage\nstorage .*storage\.bin: SPIFFS, \d+ files/);
    assert.match(t.stdout, /archive: fact \d+, moment \d+, event 3\n {2}2026-01 /);
    const j = cli("inspect", path.join(out, "nvs.bin"), "--json");
    assert.equal(j.status, 0, j.stderr);
    const doc = JSON.parse(j.stdout) as { booted: boolean; storage?: unknown };
    assert.equal(doc.booted, true);
    assert.equal(doc.storage, undefined);
    const swapped = cli("inspect", path.join(out, "storage.bin"));
    assert.equal(swapped.status, 1);
    assert.equal(swapped.stderr.trim().split("\n").length, 1);
    assert.match(swapped.stderr, /3145728 bytes \(the size of a storage image: NVS\.bin comes first\)/);
    const junk = path.join(dir, "junk.bin");
    fs.writeFileSync(junk, new Uint8Array(MB3).fill(0x5a));
    const notSpiffs = cli("inspect", path.join(out, "nvs.bin"), junk);
    assert.equal(notSpiffs.status, 1);
    assert.match(notSpiffs.stderr, /^petmem: .*junk\.bin: not a SPIFFS partition/);
    assert.equal(notSpiffs.stderr.trim().split("\n").length, 1);
    const noOut = cli("image", "--data", path.join(dir, "data"));
    assert.equal(noOut.status, 2);
    assert.match(noOut.stderr, /--out DIR is required/);
  });

  it("inspect refuses an NVS image that is no NVS partition, and image refuses --out on the data folder", async () => {
    assert.throws(() => inspectImages(new Uint8Array(49152).fill(0x5a), undefined), ImageError);
    const c = io();
    const data = path.join(dir, "data");
    assert.equal(await runCli(["image", "--out", data, "--data", data], c.io), 2);
    assert.match(c.o.err, /must not be the data folder/);
  });
});

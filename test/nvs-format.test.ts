// host-sim's NVS image checked byte for byte against ESP-IDF's layout, with a
// parser written here from the format (docs/FORMAT.md §2.5) and zlib's CRC32,
// independent of host-sim/nvs.ts: page headers and their CRC, the entry state
// bitmap, entry CRCs, string and blob data CRCs, blob indexes (version 2), page
// states and seq numbers, garbage collection, recovery after torn writes, the
// NVS fault kinds, and the data folder (nvs.bin, conversion of an old nvs.json).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import Preference from "preference";
import "../host-sim/trace";
import { SimDevice } from "../host-sim/device";
import { tearSeeded, tearNone, tearHalf } from "../host-sim/flash";
import { persist, legacyValues } from "../desktop/persist";

const crc = (b: Uint8Array) => zlib.crc32(b, 0xffffffff) >>> 0; // esp_rom_crc32_le(0xFFFFFFFF, ...)
const le32 = (b: Uint8Array, o: number) => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
const le16 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8);
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const STATE = { 0xffffffff: "EMPTY", 0xfffffffe: "ACTIVE", 0xfffffffc: "FULL", 0xfffffff8: "FREEING", 0xfffffff0: "CORRUPT" } as Record<number, string>;

interface Entry {
  page: number;
  index: number;
  ns: number;
  type: number;
  span: number;
  chunk: number;
  key: string;
  raw: Uint8Array;
  data?: Uint8Array; // variable length: the data, checked against its CRC
}

// Parses an image as nvs_tool.py would and throws on anything ESP-IDF would not
// have written: a bad header or entry CRC, a span running past the page, a
// variable-length item whose data entries are not all written or whose data CRC
// fails, a blob index whose chunks do not add up, a chunk without an index.
//
// After torn writes (strict = false) the image may also hold what nvs_flash_init
// leaves for later: a page that says empty but is not all 0xFF, or whose header
// CRC fails (both corrupt: skipped, erased when next needed), and bytes of a torn
// write in entries the bitmap still calls empty.
function parse(img: Uint8Array, strict = true) {
  const pages: { sector: number; state: string; seq?: number }[] = [];
  const entries: Entry[] = [];
  for (let p = 0; p < img.length / 4096; p++) {
    const pg = img.subarray(p * 4096, (p + 1) * 4096);
    const state = le32(pg, 0);
    if (state === 0xffffffff) {
      const clean = pg.every((b) => b === 0xff);
      if (strict) assert.ok(clean, `page ${p}: an empty page is all 0xFF`);
      pages.push({ sector: p, state: clean ? "EMPTY" : "CORRUPT" });
      continue;
    }
    if (!strict && (le32(pg, 28) !== crc(pg.subarray(4, 28)) || !STATE[state])) {
      pages.push({ sector: p, state: "CORRUPT" });
      continue;
    }
    assert.equal(le32(pg, 28), crc(pg.subarray(4, 28)), `page ${p}: header CRC over bytes 4..27`);
    assert.equal(pg[8], 0xfe, `page ${p}: version byte 0xFE (format version 2)`);
    assert.ok(pg.subarray(9, 28).every((b) => b === 0xff), `page ${p}: reserved bytes 0xFF`);
    assert.ok(STATE[state], `page ${p}: state ${state.toString(16)}`);
    pages.push({ sector: p, state: STATE[state], seq: le32(pg, 4) });
    const st = (i: number) => (le32(pg, 32 + (i >> 4) * 4) >>> ((i & 15) * 2)) & 3;
    assert.equal(le32(pg, 32 + 7 * 4) >>> 28, 0xf, `page ${p}: the bitmap's last 2 states (entries 126, 127) are unused`);
    for (let i = 0; i < 126; ) {
      if (st(i) !== 2) {
        if (st(i) === 3 && strict) assert.ok(pg.subarray(64 + i * 32, 96 + i * 32).every((b) => b === 0xff), `page ${p} entry ${i}: an empty entry is all 0xFF`);
        i++;
        continue;
      }
      const raw = pg.slice(64 + i * 32, 96 + i * 32);
      assert.equal(le32(raw, 4), crc(cat(raw.subarray(0, 4), raw.subarray(8, 32))), `page ${p} entry ${i}: entry CRC`);
      const type = raw[1], span = raw[2];
      const keyEnd = raw.indexOf(0, 8);
      assert.ok(keyEnd > 8 && keyEnd < 24, `page ${p} entry ${i}: key NUL terminated`);
      assert.ok(raw.subarray(keyEnd, 24).every((b) => b === 0), `page ${p} entry ${i}: key zero padded`);
      const e: Entry = { page: p, index: i, ns: raw[0], type, span, chunk: raw[3], key: Buffer.from(raw.subarray(8, keyEnd)).toString("utf8"), raw };
      if (type === 0x21 || type === 0x42) {
        const size = le16(raw, 24);
        assert.equal(le16(raw, 26), 0xffff, "reserved 0xFFFF");
        assert.equal(span, 1 + Math.ceil(size / 32), `page ${p} entry ${i}: span of ${size} bytes`);
        assert.ok(i + span <= 126, "span within the page");
        for (let j = i + 1; j < i + span; j++) assert.equal(st(j), 2, `page ${p} entry ${j}: data entries written`);
        e.data = pg.slice(64 + (i + 1) * 32, 64 + (i + 1) * 32 + size);
        assert.equal(le32(raw, 28), crc(e.data), `page ${p} entry ${i}: data CRC`);
        if (type === 0x42) assert.notEqual(e.chunk, 0xff, "a chunk has a chunk index");
      } else {
        assert.equal(span, 1);
        assert.equal(e.chunk, 0xff, "chunk index 0xFF outside blob data");
        if (type === 0x48) assert.ok(raw[29] === 0 || raw[29] === 0x80, "blob version offset 0x00 or 0x80");
        else assert.ok([0x01, 0x14, 0x11, 0x02, 0x12, 0x04, 0x08, 0x18].includes(type), `type ${type}`);
      }
      entries.push(e);
      i += span;
    }
  }
  // live values: namespaces, then per (ns, key) exactly one item; blobs from index + chunks
  const nsName = new Map<number, string>();
  for (const e of entries) if (e.ns === 0) nsName.set(e.raw[24], e.key);
  const values = new Map<string, { type: string; value: unknown }>();
  for (const e of entries) {
    if (e.ns === 0 || e.type === 0x42) continue;
    const name = `${nsName.get(e.ns)}:${e.key}`;
    assert.ok(!values.has(name), `one live item per key: ${name}`);
    if (e.type === 0x01) values.set(name, { type: "u8", value: e.raw[24] });
    else if (e.type === 0x14) values.set(name, { type: "i32", value: le32(e.raw, 24) | 0 });
    else if (e.type === 0x21) values.set(name, { type: "str", value: Buffer.from(e.data!.subarray(0, e.data!.length - 1)).toString("utf8") });
    else if (e.type === 0x48) {
      const size = le32(e.raw, 24), count = e.raw[28], start = e.raw[29];
      const chunks = [];
      for (let c = 0; c < count; c++) {
        const d = entries.filter((x) => x.type === 0x42 && x.ns === e.ns && x.key === e.key && x.chunk === start + c);
        assert.equal(d.length, 1, `${name}: chunk ${start + c} exactly once`);
        chunks.push(d[0].data!);
      }
      const value = cat(...chunks);
      assert.equal(value.length, size, `${name}: chunk sizes add up to the index's size`);
      values.set(name, { type: "blob", value });
    }
  }
  for (const d of entries.filter((x) => x.type === 0x42)) {
    const idx = entries.find((x) => x.type === 0x48 && x.ns === d.ns && x.key === d.key && d.chunk >= x.raw[29] && d.chunk < x.raw[29] + x.raw[28]);
    assert.ok(idx, `chunk ${d.chunk} of ${d.key} has its index`);
  }
  const active = pages.filter((p) => p.state === "ACTIVE");
  assert.ok(active.length <= 1, "at most one active page");
  const seqs = pages.filter((p) => p.seq !== undefined).map((p) => p.seq!);
  assert.equal(new Set(seqs).size, seqs.length, "seq numbers are unique");
  if (active.length) assert.equal(active[0].seq, Math.max(...seqs), "the active page has the newest seq");
  return { pages, entries, values, nsName };
}

// Entries the bitmap calls empty on the active page that are not all 0xFF.
function tornButEmpty(img: Uint8Array): boolean {
  for (let p = 0; p < img.length / 4096; p++) {
    const pg = img.subarray(p * 4096, (p + 1) * 4096);
    if (le32(pg, 0) !== 0xfffffffe) continue;
    for (let i = 0; i < 126; i++)
      if (((le32(pg, 32 + (i >> 4) * 4) >>> ((i & 15) * 2)) & 3) === 3 && !pg.subarray(64 + i * 32, 96 + i * 32).every((b) => b === 0xff)) return true;
  }
  return false;
}

const fresh = () => new SimDevice({ now: Date.UTC(2026, 1, 5, 5, 0) }).install();
const buf = (n: number, fill: number) => new Uint8Array(n).fill(fill).buffer as ArrayBuffer;

describe("NVS image, byte for byte (ESP-IDF v6.0 layout)", () => {
  it("page header, bitmap, namespace, u8, i32, string and blob entries are laid out as ESP-IDF writes them", () => {
    const dev = fresh();
    Preference.set("pm", "b", true);
    Preference.set("pm", "i", -2);
    Preference.set("pm", "s", "héllo");
    Preference.set("pm", "blob", buf(40, 7));
    const img = dev.nvs.image;
    assert.equal(img.length, 48 * 1024);
    const { pages, entries, values } = parse(img);
    assert.deepEqual(pages[0], { sector: 0, state: "ACTIVE", seq: 0 });
    assert.ok(pages.slice(1).every((p) => p.state === "EMPTY"));
    // entry 0: namespace "pm" -> index 1
    assert.deepEqual([...img.subarray(64, 72)].slice(0, 4), [0, 0x01, 1, 0xff]);
    assert.equal(Buffer.from(img.subarray(72, 88)).toString("latin1"), "pm" + "\0".repeat(14));
    assert.deepEqual([...img.subarray(88, 96)], [1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    // entry 1: u8 b = 1, entry 2: i32 i = -2 (little-endian, then 0xFF padding)
    assert.deepEqual([...img.subarray(96, 100)], [1, 0x01, 1, 0xff]);
    assert.equal(img[96 + 24], 1);
    assert.deepEqual([...img.subarray(128 + 24, 128 + 32)], [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    // the string: header entry (size 7 with NUL, data CRC) + one data entry
    const s = entries.find((e) => e.key === "s")!;
    assert.equal(s.type, 0x21);
    assert.equal(le16(s.raw, 24), 7);
    assert.deepEqual([...s.data!], [...Buffer.from("héllo\0")]);
    // the blob: a data chunk (index 0) and an index (size 40, 1 chunk, version 0x00)
    const chunk = entries.find((e) => e.key === "blob" && e.type === 0x42)!;
    const index = entries.find((e) => e.key === "blob" && e.type === 0x48)!;
    assert.equal(chunk.chunk, 0);
    assert.equal(chunk.span, 1 + 2);
    assert.deepEqual([...index.raw.subarray(24, 32)], [40, 0, 0, 0, 1, 0x00, 0xff, 0xff]);
    // bitmap: 1 + 1 + 1 + 2 + 3 + 1 = 9 entries written (0b10 each), the rest empty (0b11)
    assert.equal(le32(img, 32), 0b11111111111111101010101010101010 >>> 0);
    assert.deepEqual(Object.fromEntries([...values].map(([k, v]) => [k, v.value instanceof Uint8Array ? v.value.length : v.value])), {
      "pm:b": 1, "pm:i": -2, "pm:s": "héllo", "pm:blob": 40,
    });
  });

  it("a blob rewritten without a delete toggles its version offset (0x00 <-> 0x80), as nvs_set_blob does", () => {
    const dev = fresh();
    dev.nvs.set("pm", "x", "blob", new Uint8Array(100).fill(1));
    dev.nvs.set("pm", "x", "blob", new Uint8Array(100).fill(2));
    let { entries } = parse(dev.nvs.image);
    assert.deepEqual(entries.filter((e) => e.key === "x").map((e) => [e.type, e.chunk, e.type === 0x48 ? e.raw[29] : -1]), [[0x42, 0x80, -1], [0x48, 0xff, 0x80]]);
    dev.nvs.set("pm", "x", "blob", new Uint8Array(100).fill(2)); // same content: nothing written
    const w = dev.flash.writes;
    dev.nvs.set("pm", "x", "blob", new Uint8Array(100).fill(2));
    assert.equal(dev.flash.writes, w, "an unchanged blob is not rewritten");
    dev.nvs.set("pm", "x", "blob", new Uint8Array(100).fill(3));
    ({ entries } = parse(dev.nvs.image));
    assert.deepEqual(entries.filter((e) => e.key === "x" && e.type === 0x48).map((e) => e.raw[29]), [0x00]);
  });

  it("a blob larger than the active page's room is split in chunks over pages (multi-page blob)", () => {
    const dev = fresh();
    Preference.set("pm", "pad", "p".repeat(2000));
    const big = new Uint8Array(6000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 255;
    dev.nvs.set("pm", "big", "blob", big); // over Moddable's documented 4000, not over NVS's limit
    const { entries, values } = parse(dev.nvs.image);
    const chunks = entries.filter((e) => e.key === "big" && e.type === 0x42);
    assert.ok(chunks.length >= 2, "at least two chunks");
    assert.equal(new Set(chunks.map((c) => c.page)).size, chunks.length, "one chunk per page");
    assert.deepEqual([...(values.get("pm:big")!.value as Uint8Array)], [...big]);
    assert.deepEqual(new Uint8Array(Preference.get("pm", "big") as ArrayBuffer), big);
  });

  it("garbage collection after many updates: pages are freed, one page stays empty, the image stays valid", () => {
    const dev = fresh();
    const last = new Map<string, string>();
    for (let i = 0; i < 400; i++) {
      const k = "k" + (i % 9);
      const v = "v".repeat(50 + ((i * 37) % 900)) + i;
      Preference.set("gc", k, v);
      last.set(k, v);
    }
    assert.ok(dev.flash.partition("nvs").sectorErases >= 5, "pages were erased by garbage collection");
    const { pages, values } = parse(dev.nvs.image);
    assert.ok(pages.some((p) => p.state === "EMPTY"), "a free page is kept");
    for (const [k, v] of last) {
      assert.equal(values.get("gc:" + k)!.value, v);
      assert.equal(Preference.get("gc", k), v);
    }
    dev.reboot();
    for (const [k, v] of last) assert.equal(Preference.get("gc", k), v, "after nvs_flash_init");
    parse(dev.nvs.image);
  });

  it("a power cut at any program or erase, torn anywhere, leaves each key old or new and a valid image after nvs_flash_init", () => {
    // nvs_set_* alone (no erase first) keeps old or new of one key
    const size = (i: number) => 1200 + i * 20;
    const script = (dev: SimDevice, upTo: number) => {
      for (let i = 0; i < upTo; i++) dev.nvs.set("t", "k" + (i % 3), "blob", new Uint8Array(size(i)).fill(i));
    };
    const probe = fresh();
    const w0 = probe.flash.writes;
    script(probe, 24);
    const prefix = probe.flash.writes - w0;
    const clean = fresh();
    const c0 = clean.flash.writes;
    script(clean, 36);
    const total = clean.flash.writes - c0;
    assert.ok(total > 150 && clean.flash.partition("nvs").sectorErases > 0, "the script runs into garbage collection");
    let cuts = 0, hazards = 0;
    for (let n = prefix + 1; n <= total; n += 3) {
      for (const [tname, tear] of [["none", tearNone], ["half", tearHalf], ["word", tearSeeded(n, "word")], ["bit", tearSeeded(n * 7, "bit")]] as const) {
        const dev = fresh();
        dev.cutAfter(n, tear);
        assert.ok(SimDevice.survive(() => script(dev, 36)));
        cuts++;
        dev.reboot();
        for (let k = 0; k < 3; k++) {
          const v = dev.nvs.get("t", "k" + k)!;
          assert.ok(v && v.value instanceof Uint8Array, `cut ${n}: k${k} present`);
          const fill = (v.value as Uint8Array)[0];
          assert.equal((v.value as Uint8Array).length, size(fill), `cut ${n}: k${k} whole`);
          assert.ok((v.value as Uint8Array).every((b) => b === fill));
        }
        parse(dev.nvs.image, false);
        // ESP-IDF finds a write torn before its bitmap bits by the entry's first word
        // (not 0xFFFFFFFF). A tear that leaves that word erased but later bytes
        // programmed goes unseen: the next item is programmed over those bytes, its
        // CRC fails and it is erased when met, so a write acknowledged after the
        // reboot is lost. Only a tear that is not a prefix can do this.
        const unseen = tornButEmpty(dev.nvs.image);
        if (unseen) {
          assert.ok(tname === "word" || tname === "bit", `cut ${n} ${tname}: a prefix tear is always seen`);
          hazards++;
          continue;
        }
        dev.nvs.set("t", "after", "i32", 1); // and it still writes, where the torn write was
        dev.nvs.set("t", "after2", "str", "x".repeat(40));
        dev.reboot();
        assert.equal(dev.nvs.get("t", "after")?.value, 1, `cut ${n} ${tname}: a write after recovery is kept`);
        assert.equal(dev.nvs.get("t", "after2")?.value, "x".repeat(40), `cut ${n} ${tname}: a write after recovery is kept`);
      }
    }
    assert.ok(cuts > 100);
    assert.ok(hazards < cuts / 20, `${hazards} of ${cuts} cuts left a torn write unseen`);
  });

  it("nvs_crc: a string whose data CRC fails is read once as stored (the device copies, then reports not found) and erased", () => {
    const dev = fresh();
    Preference.set("pm", "keep", 5);
    Preference.set("pm", "s", "x".repeat(100));
    const msg = dev.inject("nvs_crc", { seed: 3 });
    assert.match(msg, /data of s/);
    const first = Preference.get("pm", "s") as string;
    assert.notEqual(first, "x".repeat(100), "the damaged bytes come back once");
    assert.equal(Preference.get("pm", "s"), undefined, "then the item is gone");
    assert.equal(Preference.get("pm", "keep"), 5);
    parse(dev.nvs.image);
  });

  it("nvs_crc on a blob chunk: damaged data once, then `nvs get fail` (a chunk is missing), then undefined", () => {
    let dev: SimDevice;
    for (let seed = 1; ; seed++) {
      dev = fresh();
      Preference.set("pm", "b", buf(300, 9));
      if (/data of b/.test(dev.inject("nvs_crc", { seed }))) break;
    }
    const got = new Uint8Array(Preference.get("pm", "b") as ArrayBuffer);
    assert.equal(got.length, 300);
    assert.ok(!got.every((b) => b === 9), "the damaged chunk is returned");
    assert.throws(() => Preference.get("pm", "b"), /nvs get fail/);
    assert.equal(Preference.get("pm", "b"), undefined);
    parse(dev.nvs.image);
  });

  it("nvs_crc on a one-entry item: its entry CRC fails and nvs_flash_init erases it; the rest is kept", () => {
    let seed = 1;
    for (;;) {
      const dev = fresh();
      Preference.set("pm", "a", 1);
      Preference.set("pm", "s", "long string ".repeat(10));
      const msg = dev.inject("nvs_crc", { seed });
      if (/entry CRC of a /.test(msg)) {
        dev.reboot();
        assert.equal(Preference.get("pm", "a"), undefined, "the item vanished at init");
        assert.equal(Preference.get("pm", "s"), "long string ".repeat(10));
        parse(dev.nvs.image);
        return;
      }
      seed++;
    }
  });

  it("bit_flip anywhere in the 48 KB: the device always boots, undamaged keys are kept, the image stays parseable", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const dev = fresh();
      for (let i = 0; i < 12; i++) Preference.set("pm", "k" + i, i % 2 ? buf(500, i) : "v" + i);
      dev.inject("bit_flip", { seed });
      dev.reboot();
      let readable = 0;
      for (let i = 0; i < 12; i++) {
        let v;
        try {
          v = Preference.get("pm", "k" + i);
        } catch {
          continue;
        }
        if (v !== undefined) readable++;
      }
      assert.ok(readable >= 10, `seed ${seed}: ${readable} of 12 keys readable`);
      Preference.set("pm", "after", 1);
      dev.reboot();
      assert.equal(Preference.get("pm", "after"), 1);
    }
  });

  it("full: another namespace fills NVS; petmem's next write fails with NOT_ENOUGH_SPACE, boot still works", () => {
    const dev = fresh();
    Preference.set("petmem", "a", "before");
    assert.match(dev.inject("full"), /filled/);
    assert.throws(() => Preference.set("petmem", "b", buf(200, 1)), (e: Error & { reason?: string }) => e.message === "nvs set fail" && e.reason === "ESP_ERR_NVS_NOT_ENOUGH_SPACE");
    assert.equal(Preference.get("petmem", "a"), "before");
    dev.reboot();
    assert.equal(Preference.get("petmem", "a"), "before");
    assert.ok(parse(dev.nvs.image).pages.some((p) => p.state === "EMPTY"), "NVS itself keeps its free page");
    // armed: fills at the 3rd set from now
    const d2 = fresh();
    d2.inject("full", { at: 3 });
    Preference.set("petmem", "x", 1);
    Preference.set("petmem", "y", 2);
    assert.throws(() => Preference.set("petmem", "z", buf(100, 1)), /nvs set fail/);
  });

  it("nvs_init_cut: a power cut inside nvs_flash_init's own repair (finishing a garbage collection) loses nothing", () => {
    // keys written once stay on the early pages, so garbage collection has items to copy
    const script = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        Preference.set("gc", "k" + (i % 4), "v".repeat(1500) + i);
        if (i % 3 === 0) Preference.set("gc", "keep" + i, "kept " + i);
      }
    };
    const keeps = (upTo: number) => [...Array(upTo).keys()].filter((i) => i % 3 === 0);
    for (let n = 1; ; n += 2) {
      assert.ok(n < 4000, "a cut inside a garbage collection that copies items");
      const dev = fresh();
      script(0, 20);
      dev.cutAfter(n, tearNone);
      assert.ok(SimDevice.survive(() => script(20, 40)), "the cut lands inside the script");
      // a page whose state word says FREEING (the image is torn: not parsed whole before init)
      const freeing = [...Array(12).keys()].some((p) => le32(dev.nvs.image, p * 4096) === 0xfffffff8);
      if (!freeing) continue;
      let repairs = 0;
      for (let at = 1; at < 600; at++) {
        const copy = new SimDevice().install();
        copy.nvs.image.set(dev.nvs.image);
        copy.inject("nvs_init_cut", { at });
        let fired = false;
        try {
          copy.reboot();
        } catch (e) {
          fired = (e as Error).name === "PowerCut";
          if (!fired) throw e;
        }
        if (!fired) break;
        repairs++;
        copy.reboot(); // power back again: init repairs from where the cut left it
        parse(copy.nvs.image, false);
        const present = [0, 1, 2, 3].filter((k) => typeof Preference.get("gc", "k" + k) === "string");
        assert.ok(present.length >= 3, `init cut at ${at}: ${present.length} of 4 keys (only the one in flight may go)`);
        for (const i of keeps(20)) assert.equal(Preference.get("gc", "keep" + i), "kept " + i, `init cut at ${at}: keep${i}`);
      }
      // a freeing page with nothing left to copy is only erased: look further
      if (repairs >= 5) return;
    }
  });
});

describe("the data folder keeps NVS as nvs.bin", () => {
  const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "petmem-nvs-"));

  it("writes a 48 KB nvs.bin through on every change and loads it at the next start", () => {
    const dir = tmp();
    const a = fresh();
    persist(a, dir);
    Preference.set("pm", "k", "v1");
    Preference.set("pm", "b", buf(3000, 4));
    const bin = new Uint8Array(fs.readFileSync(path.join(dir, "nvs.bin")));
    assert.equal(bin.length, 48 * 1024);
    assert.deepEqual(bin, a.nvs.image);
    const b = fresh();
    persist(b, dir);
    assert.equal(Preference.get("pm", "k"), "v1");
    assert.equal((Preference.get("pm", "b") as ArrayBuffer).byteLength, 3000);
  });

  it("loads a partition read from a real pet with other namespaces and preserves them", () => {
    // an image with xiaozhi's own namespaces, as written by its firmware
    const other = fresh();
    other.nvs.set("wifi", "ssid", "str", "home");
    other.nvs.set("wifi", "force_ap", "u8", 0);
    other.nvs.set("board", "uuid", "str", "0c3e-11");
    other.nvs.set("board", "volume", "i32", 70);
    const dir = tmp();
    fs.writeFileSync(path.join(dir, "nvs.bin"), other.nvs.image);
    const dev = fresh();
    persist(dev, dir);
    assert.deepEqual(dev.nvs.image, other.nvs.image, "nvs_flash_init of a clean image changes nothing");
    Preference.set("petmem", "x", 1);
    const { values } = parse(new Uint8Array(fs.readFileSync(path.join(dir, "nvs.bin"))));
    assert.equal(values.get("wifi:ssid")!.value, "home");
    assert.equal(values.get("board:volume")!.value, 70);
    assert.equal(values.get("petmem:x")!.value, 1);
    assert.deepEqual(Preference.keys("wifi").sort(), ["force_ap", "ssid"]);
  });

  it("what nvs_flash_init repairs at start is written back to nvs.bin", () => {
    const dir = tmp();
    const a = fresh();
    Preference.set("pm", "k", "v");
    a.cutAfter(1, tearNone);
    assert.ok(SimDevice.survive(() => Preference.set("pm", "k2", "x".repeat(100))));
    // the entry of k2 was programmed but the cut kept its bitmap bits (a torn write init erases)
    const torn = a.nvs.image.slice();
    torn[64 + 3 * 32] &= 0x00;
    fs.writeFileSync(path.join(dir, "nvs.bin"), torn);
    const b = fresh();
    persist(b, dir);
    assert.equal(Preference.get("pm", "k"), "v");
    assert.deepEqual(new Uint8Array(fs.readFileSync(path.join(dir, "nvs.bin"))), b.nvs.image);
    parse(b.nvs.image, false);
    assert.notDeepEqual(b.nvs.image, torn, "the torn entry was marked erased");
  });

  it("refuses an nvs.bin of the wrong size with a clear error", () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, "nvs.bin"), new Uint8Array(4096));
    assert.throws(() => persist(fresh(), dir), /must be exactly 49152 bytes/);
  });

  it("converts an old nvs.json once, with nothing lost, and keeps it aside", () => {
    const b64 = (s: string | Uint8Array) => ({ b64: Buffer.from(s).toString("base64") });
    const big = new Uint8Array(4500).map((_, i) => i & 255);
    const item = (id: number, ns: number, key: string, kind: string, value: unknown, extra: Record<string, unknown> = {}) => ({
      id, ns, key, kind, value, chunk: 0, size: 0, span: 1, complete: true, origin: 0, ...extra,
    });
    const snap = {
      nextId: 20,
      pages: [
        { state: "full", next: 10, erased: 2, items: [
          item(1, 0, "petmem", "ns", 1),
          item(2, 1, "n", "i32", 5), // older value of n
          item(3, 1, "s", "str", b64("héllo")),
          item(4, 1, "big", "blob_data", b64(big.subarray(0, 3968)), { chunk: 0 }),
        ] },
        { state: "active", next: 8, erased: 0, items: [
          item(5, 1, "big", "blob_data", b64(big.subarray(3968)), { chunk: 1 }),
          item(6, 1, "big", "blob_idx", 0, { chunk: 2, size: 4500 }),
          item(7, 1, "n", "i32", 6),
          item(8, 1, "flag", "u8", 1),
          item(9, 0, "wifi", "ns", 2),
          item(10, 2, "ssid", "str", b64("home")),
          item(11, 1, "torn", "str", b64("half"), { complete: false }),
        ] },
        ...Array.from({ length: 10 }, () => ({ state: "empty", next: 0, erased: 0, items: [] })),
      ],
    };
    assert.equal(legacyValues(snap).length, 5);
    const dir = tmp();
    fs.writeFileSync(path.join(dir, "nvs.json"), JSON.stringify(snap));
    const dev = fresh();
    persist(dev, dir);
    assert.ok(!fs.existsSync(path.join(dir, "nvs.json")));
    assert.ok(fs.existsSync(path.join(dir, "nvs.json.converted")), "the old snapshot is kept aside");
    assert.equal(fs.statSync(path.join(dir, "nvs.bin")).size, 48 * 1024);
    const check = () => {
      assert.equal(Preference.get("petmem", "n"), 6);
      assert.equal(Preference.get("petmem", "s"), "héllo");
      assert.equal(Preference.get("petmem", "flag"), true);
      assert.deepEqual(new Uint8Array(Preference.get("petmem", "big") as ArrayBuffer), big);
      assert.equal(Preference.get("wifi", "ssid"), "home");
      assert.equal(Preference.get("petmem", "torn"), undefined);
    };
    check();
    parse(dev.nvs.image);
    // converted once: the next start reads nvs.bin
    const again = fresh();
    persist(again, dir);
    check();
  });
});

// The timeline page in a real browser: Debian's chromium, headless, driven
// by puppeteer-core (which downloads no browser), against `petmem web` on a
// data folder holding two months of memory. It asserts what a person sees:
// the owner's name, a fact under its month, a schedule, storage use, a search
// that finds a fact and one that finds nothing and says so. It saves a
// screenshot in a temporary folder (its path is printed; nothing is committed).
//
// Where no chromium is found (PUPPETEER_EXECUTABLE_PATH, /usr/bin/chromium,
// chromium, chromium-browser, google-chrome on PATH) the test is skipped and
// says so on stderr; .ci/chromium installs it on CI.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startWebProcess, tempData, request, converse, type WebProcess } from "./web-server";

export function findChromium(): string | undefined {
  const env = process.env.PUPPETEER_EXECUTABLE_PATH;
  if (env && fs.existsSync(env)) return env;
  const names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];
  const dirs = ["/usr/bin", ...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean)];
  for (const n of names)
    for (const d of dirs) {
      const p = path.join(d, n);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        if (fs.statSync(p).isFile()) return p;
      } catch {
        /* not here */
      }
    }
  return undefined;
}

describe("petmem web: the timeline page in chromium", function () {
  this.timeout(120000);
  let chromium: string | undefined;
  let data: string;
  let w: WebProcess | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let browser: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let page: any;
  const problems: string[] = [];

  before(async function () {
    chromium = findChromium();
    if (!chromium) {
      process.stderr.write("browser test skipped: no chromium found (apt-get install chromium)\n");
      this.skip();
    }
    data = tempData("petmem-browser-");
    // January: a fact; March: the owner's name, a like, a schedule
    const jan = await startWebProcess(data, ["--now", "2026-01-10T09:00", "--tz", "+08:00"]);
    const r1 = await converse(jan, [
      ["user", "我对花生过敏"],
      ["assistant", "记住了，不吃花生"],
    ]);
    assert.equal(r1.status, 200, r1.text);
    assert.equal(await jan.stop(), 0, jan.stderr());
    w = await startWebProcess(data, ["--now", "2026-03-05T10:00", "--tz", "+08:00"]);
    const r2 = await converse(w);
    assert.equal(r2.status, 200, r2.text);
    const puppeteer = (await import("puppeteer-core")).default;
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      // root on CI has no user namespace for the sandbox
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=zh-CN"],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    page.on("pageerror", (e: Error) => problems.push(`page error: ${e.message}`));
    page.on("console", (m: { type(): string; text(): string }) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("requestfailed", (r: { url(): string }) => problems.push(`request failed: ${r.url()}`));
    await page.goto(w.url + "/", { waitUntil: "networkidle2" /* the Reminders stream stays open */ });
    await page.waitForFunction('document.querySelector("#timeline section.month") !== null', { timeout: 20000 });
  });

  after(async () => {
    if (browser) await browser.close();
    if (w) assert.equal(await w.stop(), 0, w.stderr());
    if (data) fs.rmSync(data, { recursive: true, force: true });
  });

  const text = (selector: string): Promise<string> => page.evaluate(`(document.querySelector(${JSON.stringify(selector)}) || {}).innerText || ""`);

  it("shows the owner's name, in the title and the profile", async () => {
    assert.match(await text("#title"), /小明的记忆/);
    assert.match(await text("#profile"), /Name 名字\s+小明/);
    assert.match(await page.title(), /小明/);
    assert.match(await text("#family"), /朋友 小红/);
    assert.match(await text("#likes"), /恐龙/);
  });

  it("puts each fact under its month, and the schedule on its day", async () => {
    const months: string[] = await page.evaluate('[...document.querySelectorAll("#timeline section.month")].map((s) => s.dataset.month)');
    assert.deepEqual(months, ["2026-03", "2026-01"], "newest month first");
    const jan = await text('#timeline section[data-month="2026-01"]');
    assert.match(jan, /January 2026 · 2026年1月/);
    assert.match(jan, /2026-01-10 09:00\s+fact 事实\s+主人对花生过敏/);
    const mar = await text('#timeline section[data-month="2026-03"]');
    assert.doesNotMatch(mar, /花生/);
    assert.match(mar, /2026-03-06 15:00\s+schedule 日程\s+去公园/);
  });

  it("shows the storage use the device reports", async () => {
    const t = (await request(w!, "GET", "/api/timeline")).json;
    const nvs = await text("#nvs-use");
    assert.match(nvs, new RegExp(`^NVS ${t.storage.nvs.percent}% used`));
    assert.ok(t.storage.nvs.percent > 0);
    assert.match(await text("#spiffs-use"), new RegExp(`^Storage \\(SPIFFS\\) ${t.storage.storage.percent}% used`));
  });

  it("searches through the AI's search: a fact is found, and nothing found says so", async () => {
    await page.click("#q");
    await page.type("#q", "花生");
    await page.keyboard.press("Enter");
    await page.waitForFunction('document.querySelector("#results").innerText.includes("主人对花生过敏")', { timeout: 20000 });
    assert.match(await text("#results"), /found for “花生”/);
    await page.evaluate('document.querySelector("#q").value = ""');
    await page.type("#q", "火星探险");
    await page.click("#search-form button");
    await page.waitForFunction('document.querySelector("#no-results") !== null', { timeout: 20000 });
    assert.equal(await text("#no-results"), "Nothing found for “火星探险” · 没有找到");
  });

  // the layout as boxes: where each part starts and how wide the text column is
  const layout = (): Promise<{ search: number; timeline: number; storage: number; storageLeft: number; timelineLeft: number; storageWidth: number; timelineWidth: number; textChars: number; viewport: number; overflow: boolean }> =>
    page.evaluate(`(() => {
      const r = (s) => document.querySelector(s).getBoundingClientRect();
      const body = [...document.querySelectorAll("#timeline .item .body")];
      const px = parseFloat(getComputedStyle(document.querySelector("#timeline .item")).fontSize);
      const narrowest = Math.min(...body.map((b) => b.getBoundingClientRect().width));
      return { search: r("#searchbox").top + scrollY, timeline: r("#timeline").top + scrollY, storage: r("#storage").top + scrollY,
               storageLeft: r("#storage").left, timelineLeft: r("#timeline").left, storageWidth: r("#storage").width, timelineWidth: r("#timeline").width,
               textChars: narrowest / px, viewport: innerWidth, overflow: document.documentElement.scrollWidth > innerWidth + 1 };
    })()`);

  async function shoot(name: string): Promise<string> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-screenshot-"));
    const file = path.join(dir, name);
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(fs.statSync(file).size > 10000);
    process.stderr.write(`browser test: screenshot at ${file}\n`);
    return file;
  }

  it("on a screen: the cards beside search and the timeline, whose text column is wide", async () => {
    const l = await layout();
    assert.ok(l.storageLeft < l.timelineLeft, "two columns: the cards on the left");
    assert.ok(l.search < 200, `search near the top (${l.search})`);
    assert.ok(l.textChars >= 20, `timeline text ${l.textChars.toFixed(1)} characters wide`);
    assert.equal(l.overflow, false);
  });

  it("on a phone (390×844): one column, search at the top, the timeline readable", async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.reload({ waitUntil: "networkidle2" /* the Reminders stream stays open */ });
    await page.waitForFunction('document.querySelector("#timeline section.month") !== null', { timeout: 20000 });
    try {
      const l = await layout();
      assert.equal(l.viewport, 390);
      assert.ok(l.search < 200, `search starts ${l.search} px down`);
      assert.ok(l.timeline < l.storage, "the timeline before the storage card");
      assert.ok(Math.abs(l.storageLeft - l.timelineLeft) < 2 && Math.abs(l.storageWidth - l.timelineWidth) < 2, "one column");
      assert.ok(l.timelineWidth > 330, `the column fills the screen (${l.timelineWidth})`);
      assert.ok(l.textChars >= 20, `timeline text ${l.textChars.toFixed(1)} characters wide`);
      assert.equal(l.overflow, false, "nothing wider than the screen");
      await shoot("timeline-phone.png");
    } finally {
      await page.setViewport({ width: 1280, height: 1000 });
      await page.reload({ waitUntil: "networkidle2" /* the Reminders stream stays open */ });
      await page.waitForFunction('document.querySelector("#timeline section.month") !== null', { timeout: 20000 });
    }
  });

  it("an empty pet's page says how memory gets there", async () => {
    const empty = tempData("petmem-browser-empty-");
    const e = await startWebProcess(empty);
    const p2 = await browser.newPage();
    try {
      await p2.setViewport({ width: 390, height: 844, isMobile: true });
      await p2.goto(e.url + "/", { waitUntil: "networkidle2" /* the Reminders stream stays open */ });
      await p2.waitForFunction('!document.querySelector("#empty-help").hidden', { timeout: 20000 });
      const help: string = await p2.evaluate('document.querySelector("#empty-help").innerText');
      assert.match(help, /petmem client-config/);
      assert.match(help, /petmem dialog FILE/);
      assert.match(help, /petmem demo --data DIR/);
      assert.equal(await page.evaluate('document.querySelector("#empty-help").hidden'), true, "a pet with memory does not show it");
    } finally {
      await p2.close();
      assert.equal(await e.stop(), 0, e.stderr());
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("loads without an error and saves a screenshot", async () => {
    await page.evaluate('document.querySelector("#q").value = "花生"');
    await page.click("#search-form button");
    await page.waitForFunction('document.querySelector("#results").innerText.includes("主人对花生过敏")', { timeout: 20000 });
    await shoot("timeline.png");
    assert.deepEqual(problems, []);
  });
});

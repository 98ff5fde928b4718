import assert from "node:assert/strict";
import fs from "node:fs";
import { parsePartitions, flashSizeFromSdkconfig, type Partition } from "../tools/partitions";

const manifest = JSON.parse(fs.readFileSync("manifest.json", "utf8"));
const KB = 1024, MB = 1024 * 1024;

// every table the manifest builds with, with the flash it needs
const tables = Object.entries(manifest.platforms as Record<string, { build?: Record<string, string> }>)
  .filter(([, p]) => p.build?.PARTITIONS_FILE)
  .map(([platform, p]) => ({ platform, csv: p.build!.PARTITIONS_FILE, sdkconfig: p.build!.SDKCONFIGPATH }));

const expectFlash: Record<string, number> = { "esp32/esp32s3": 16 * MB, esp32: 8 * MB };
const expectOta: Record<string, number> = { "esp32/esp32s3": 3 * MB, esp32: 2 * MB };

describe("partition tables", () => {
  it("the manifest gives a table and flash size to esp32/esp32s3 and esp32", () => {
    assert.deepEqual(tables.map((t) => t.platform).sort(), ["esp32", "esp32/esp32s3"]);
  });

  for (const t of tables) {
    describe(t.platform, () => {
      const parts: Partition[] = parsePartitions(fs.readFileSync(t.csv, "utf8"));
      const sdk = fs.readFileSync(`${t.sdkconfig}/sdkconfig.defaults`, "utf8");
      const flash = flashSizeFromSdkconfig(sdk)!;
      const by = (name: string) => {
        const p = parts.find((x) => x.name === name);
        assert.ok(p, `partition ${name}`);
        return p;
      };

      it("the sdkconfig selects the flash size the table needs", () => {
        assert.equal(flash, expectFlash[t.platform]);
      });

      it("names and subtypes as ESP-IDF and Moddable expect, sizes as specified", () => {
        assert.deepEqual(
          parts.map((p) => `${p.name}:${p.type}:${p.subtype}`),
          ["nvs:data:nvs", "otadata:data:ota", "phy_init:data:phy", "ota_0:app:ota_0", "ota_1:app:ota_1", "storage:data:spiffs"],
        );
        assert.equal(by("nvs").size, 48 * KB);
        assert.equal(by("storage").size, 3 * MB);
        assert.equal(by("otadata").size, 8 * KB, "otadata is two sectors");
        assert.ok(by("ota_0").size >= expectOta[t.platform] && by("ota_1").size === by("ota_0").size, "two equal OTA slots, large enough");
      });

      it("alignment: app on 64 KB, data on 4 KB; after the partition table at 0x8000", () => {
        for (const p of parts) {
          const align = p.type === "app" ? 64 * KB : 4 * KB;
          assert.equal(p.offset % align, 0, `${p.name} offset aligned`);
          assert.equal(p.size % 4096, 0, `${p.name} size in whole sectors`);
          assert.ok(p.offset >= 0x9000, `${p.name} after the table`);
        }
      });

      it("no overlap, and everything fits the flash", () => {
        const sorted = [...parts].sort((a, b) => a.offset - b.offset);
        for (let i = 1; i < sorted.length; i++)
          assert.ok(sorted[i - 1].offset + sorted[i - 1].size <= sorted[i].offset, `${sorted[i - 1].name} overlaps ${sorted[i].name}`);
        const last = sorted[sorted.length - 1];
        assert.ok(last.offset + last.size <= flash, `${last.name} ends past the flash`);
      });
    });
  }

  it("the checker rejects a bad table", () => {
    assert.throws(() => parsePartitions("nvs, data, nvs, 0x9000, lots"), /not a size/);
    assert.throws(() => parsePartitions("nvs, data, nvs,, 0x6000"), /every offset/);
  });
});

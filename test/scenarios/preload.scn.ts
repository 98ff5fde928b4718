// What preloading asks of device code (manifest.json preloads every module but
// main; docs/DESIGN.md, "Targets"): nothing native at a module's top level, and
// no module constant handed to JSON.stringify, which on the device refuses an
// object that lives in flash ("read only value").
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { ACTIONS, inputSchema } from "../../src/mcp/memory-tool";
import { crc32 } from "../../src/nvs/crc32";
import { ascii, decode, encode, truncate } from "../../src/text/utf8";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";

export const scenarios: Scenario[] = [
  {
    name: "the memory tool's input schema is a new object at each use, and tools/list shows it whole",
    run() {
      new SimDevice().install();
      const svc = new Service({ sink: { remind() {} } });
      const a = svc.tool.inputSchema as { properties: Record<string, { enum?: string[] }> };
      const b = svc.tool.inputSchema as typeof a;
      ok(a !== b && a.properties !== b.properties && a.properties.action !== b.properties.action, "a module constant would be in flash on the device");
      deepEqual(a, b);
      deepEqual(a, inputSchema());
      const r = JSON.parse(svc.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }))!);
      equal(r.result.tools.length, 1);
      deepEqual(r.result.tools[0].inputSchema.properties.action.enum, [...ACTIONS]);
      deepEqual(r.result.tools[0].inputSchema, JSON.parse(JSON.stringify(a)));
    },
  },
  {
    name: "byte constants made without the native encoder; the decoder made at first use; CRC table made at load",
    run() {
      deepEqual(Array.from(ascii('{"id":"')), Array.from(encode('{"id":"')));
      equal(decode(encode("王浩宇😀")), "王浩宇😀");
      equal(truncate("王浩宇", 7), "王浩");
      equal(crc32(ascii("123456789")), 0xcbf43926);
    },
  },
];

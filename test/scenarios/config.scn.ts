// Presets and the config store (src/config/presets.ts): the build's default,
// action=config showing and setting the preset, a bad one refused with
// nothing changed, the choice kept across a reboot, the listener's window
// following it from the next conversation, status showing it.
import Preference from "preference";
import { SimDevice } from "../../host-sim/device";
import { Service } from "../../src/app/service";
import { SPECS } from "../../src/memory/types";
import { DOMAIN } from "../../src/nvs/store";
import { PRESET_TABLE, buildPreset, presetOf, setTimeZone } from "../../src/config/presets";
import { bootDevice } from "../../src/app/boot";
import { utcOffset, setUtcOffset, formatDateTime } from "../../src/time/local";
import { ok, equal, deepEqual } from "./assert";
import type { Scenario } from "./types";
import { toolCaller } from "./tool-call";

const T0 = Date.UTC(2026, 1, 5, 5, 0); // 2026-02-05 13:00 +08:00

function boot(dev = new SimDevice({ now: T0 }).install()) {
  const svc = new Service({ sink: { remind() {} } });
  const call = toolCaller(svc);
  return { dev, svc, call };
}

export const scenarios: Scenario[] = [
  {
    name: "config: the time zone kept in the config store is in force after a reboot: dates and reminders follow it",
    run() {
      const saved = utcOffset();
      try {
        const dev = new SimDevice({ now: T0 }).install();
        const a = bootDevice(undefined, { sink: { remind() {} } });
        equal(formatDateTime(T0), "2026-02-05 13:00", "the build's +08:00 before anything is set");
        let refused = false;
        try {
          setTimeZone(a.service.memory, 900);
        } catch (e) {
          refused = e instanceof RangeError;
        }
        ok(refused, "+15:00 is no offset");
        equal(a.service.memory.stores.config.count, 0, "a refused zone changes nothing");
        equal(setTimeZone(a.service.memory, -300), 480, "returns the zone before");
        a.service.flush();
        a.service.stop();
        setUtcOffset(480); // what a fresh device's RAM holds before boot
        dev.reboot();
        const b = bootDevice(undefined, { sink: { remind() {} } });
        equal(utcOffset(), -300, "boot put the stored zone in force");
        equal(formatDateTime(T0), "2026-02-05 00:00");
        const call = toolCaller(b.service);
        equal(call({ action: "config" }).json.utc_offset_minutes, -300);
        // a schedule at 09:00 local is due at 14:00 UTC
        const reminded: string[] = [];
        b.service.stop();
        dev.reboot();
        const c = bootDevice(undefined, { sink: { remind: (r) => reminded.push(r.datetime) } });
        const w = toolCaller(c.service)({ action: "write", type: "schedule", content: "看牙医", datetime: "2026-02-05 09:00" }).json;
        equal(w.result, "added", JSON.stringify(w));
        dev.clock.advanceTo(T0 + 20 * 60000);
        deepEqual(reminded, [], "at 00:20 local nothing is due (at +08:00 09:00 would have passed at 01:00 UTC)");
        dev.clock.advanceTo(Date.UTC(2026, 1, 5, 14, 1));
        ok(reminded.length > 0 && reminded.every((d) => d.indexOf("09:00") >= 0), `reminded ${JSON.stringify(reminded)} by 14:01 UTC (09:01 local)`);
        c.service.stop();
      } finally {
        setUtcOffset(saved);
      }
    },
  },
  {
    name: "config: tz sets the owner's UTC offset before the reply; a bad one is refused with nothing changed; it survives a reboot",
    run() {
      const saved = utcOffset();
      try {
        const dev = new SimDevice({ now: T0 }).install();
        const a = bootDevice(undefined, { sink: { remind() {} } });
        const call = toolCaller(a.service);
        equal(call({ action: "config" }).json.tz, "+08:00");
        const writes = dev.flash.writes;
        for (const bad of ["8", "+15:00", "+08:60", "UTC", 8, "+08:00:00"]) {
          const r = call({ action: "config", tz: bad });
          ok(r.isError && r.text.indexOf("tz must be a UTC offset") >= 0 && r.text.indexOf("nothing changed") >= 0, `${String(bad)}: ${r.text}`);
        }
        const both = call({ action: "config", preset: "full", tz: "nope" });
        ok(both.isError, "a bad tz refuses the whole call");
        equal(dev.flash.writes, writes, "refused: nothing written");
        equal(presetOf(a.service.memory).name, "balanced", "the preset of a refused call is not set");
        equal(utcOffset(), 480);
        const r = call({ action: "config", tz: "-05:30" }).json;
        deepEqual([r.result, r.tz, r.was_tz], ["updated", "-05:30", "+08:00"]);
        equal(utcOffset(), -330, "in force now");
        equal(a.service.memory.dirty, false, "on flash before the reply");
        equal(call({ action: "config", tz: "-05:30" }).json.result, "no_change");
        a.service.stop();
        setUtcOffset(480);
        dev.reboot();
        const b = bootDevice(undefined, { sink: { remind() {} } });
        equal(utcOffset(), -330);
        equal(toolCaller(b.service)({ action: "config" }).json.tz, "-05:30");
        b.service.stop();
      } finally {
        setUtcOffset(saved);
      }
    },
  },
  {
    name: "config: presets select window rounds 5/10/15, episode cap 160/400/800, recall 1/3/5; the build's preset is the default",
    run() {
      deepEqual(
        Object.keys(PRESET_TABLE).map((k) => PRESET_TABLE[k as "full"]).map((p) => [p.name, p.rounds, p.episodeCap, p.recall]),
        [["minimal", 5, 160, 1], ["balanced", 10, 400, 3], ["full", 15, 800, 5]],
      );
      equal(buildPreset({}), "balanced", "no preset in the manifest: balanced");
      equal(buildPreset({ preset: "full" }), "full");
      equal(buildPreset({ preset: "huge" }), "balanced", "a wrong name in the manifest is ignored");
      equal(buildPreset(undefined), "balanced");
      const { svc, call } = boot();
      equal(presetOf(svc.memory).name, "balanced");
      const c = call({ action: "config" }).json;
      deepEqual(c.preset, { name: "balanced", window_rounds: 10, episode_cap: 400, recall: 3 });
      equal(c.source, "the build's default");
      equal(c.utc_offset_minutes, 480);
      equal(c.presets.length, 3);
      equal(svc.memory.stores.config.count, 0, "nothing stored until the owner chooses");
      deepEqual(call({ action: "status" }).json.preset, { name: "balanced", window_rounds: 10, episode_cap: 400, recall: 3 });
    },
  },
  {
    name: "config: preset=full is written before the reply, says what changed and when it applies, and survives a reboot",
    run() {
      const { dev, svc, call } = boot();
      const r = call({ action: "config", preset: "full" }).json;
      equal(r.result, "updated");
      equal(r.was, "balanced");
      deepEqual(r.changed, { window_rounds: [10, 15], episode_cap: [400, 800], recall: [3, 5] });
      ok(r.applies.indexOf("next conversation") >= 0 && r.applies.indexOf("now") >= 0, r.applies);
      equal(r.note, undefined, "a larger cap drops nothing");
      equal(svc.memory.dirty, false, "on flash before the reply");
      ok(Preference.get(DOMAIN, "conf.a0") instanceof ArrayBuffer);
      equal(call({ action: "config", preset: "full" }).json.result, "no_change");
      const writes = dev.flash.writes;
      call({ action: "config", preset: "full" });
      equal(dev.flash.writes, writes, "no change, no write");
      dev.reboot();
      const again = boot(dev);
      equal(presetOf(again.svc.memory).name, "full");
      const c = again.call({ action: "config" }).json;
      equal(c.preset.name, "full");
      equal(c.source, "set by action=config");
      equal(again.call({ action: "status" }).json.preset.name, "full");
      const m = again.call({ action: "config", preset: "minimal" }).json;
      ok(m.note && m.note.indexOf("160") >= 0, "a smaller cap says what goes");
      equal(SPECS.config.layout.size, 3);
    },
  },
  {
    name: "config: a bad preset is refused with the choices and changes nothing",
    run() {
      const { dev, svc, call } = boot();
      call({ action: "config", preset: "minimal" });
      const writes = dev.flash.writes;
      for (const bad of ["huge", "", 3, "FULL"]) {
        const r = call({ action: "config", preset: bad });
        if (bad === "") {
          equal(r.json.preset.name, "minimal", "an empty preset shows the config");
          continue;
        }
        ok(r.isError || r.text.startsWith("error"), r.text);
        ok(r.text.indexOf("minimal, balanced, full") >= 0, r.text);
        ok(r.text.indexOf("nothing changed") >= 0, r.text);
      }
      equal(dev.flash.writes, writes, "nothing written");
      equal(presetOf(svc.memory).name, "minimal");
    },
  },
  {
    name: "config: the listener's window follows the preset from the next conversation",
    run() {
      const { svc, call } = boot();
      const l = svc.listener;
      equal(l.window.rounds, 10);
      for (let i = 0; i < 12; i++) {
        svc.hear("user", `第${i}句`);
        svc.hear("assistant", `好${i}`);
      }
      equal(l.window.length, 20, "balanced: 10 rounds");
      call({ action: "config", preset: "minimal" });
      svc.hear("user", "还在聊");
      equal(l.window.length, 20, "the conversation under way keeps its window");
      svc.endConversation();
      for (let i = 0; i < 12; i++) {
        svc.hear("user", `第${i}句`);
        svc.hear("assistant", `好${i}`);
      }
      equal(l.window.rounds, 5);
      equal(l.window.length, 10, "minimal: 5 rounds");
      svc.endConversation();
    },
  },
];

// action=status: storage use (NVS, the archive, the episode files), records
// per type, boots, the last repair, write errors, the preset.

import type { StoreName } from "../memory/types";
import { blobEntries, NVS_ENTRY_BYTES, NVS_USABLE_BYTES } from "../nvs/budget";
import { DOMAINS } from "../nvs/store";
import { formatDateTime } from "../time/local";
import { presetOf, presetView } from "../config/presets";
import { out, RECALL_TYPES, archiveFailed, type ToolState } from "./tool-state";

export function statusAction(tool: ToolState): string {
  const m = tool.memory;
  const u = m.usage();
  let entries = DOMAINS.length; // one namespace entry each
  const records: Record<string, number> = {};
  for (const name of Object.keys(u.records) as StoreName[]) {
    for (const b of u.blobBytes[name]) entries += blobEntries(b) * u.copies[name];
    if (name !== "health") records[name] = u.records[name];
  }
  const used = entries * NVS_ENTRY_BYTES;
  const h = m.healthRecord();
  const b = m.bootReport;
  const doc: Record<string, unknown> = {
    // second_copies: "given back" while NVS (shared with the firmware) is short of room
    nvs: { used_bytes: used, usable_bytes: NVS_USABLE_BYTES, percent: pct(used, NVS_USABLE_BYTES), second_copies: m.room.single ? "given back" : "kept", ...(m.roomNote ? { note: m.roomNote } : {}) },
    archive: "not available",
    records,
    boots: h.boots,
    last_repair: h.lastProblem === "none" ? "none" : { store: h.lastStore, problem: h.lastProblem, at: formatDateTime((h.lastSeen as number) * 1000) },
    this_boot: b ? { repaired: b.repaired, set_aside: b.setAside.map((e) => `${e.key} (${e.problem})`), lost: b.lost } : "not booted",
    write_errors: m.health.writeErrors,
    preset: presetView(presetOf(m)), // src/config/presets.ts
  };
  if (m.health.lastWriteError) doc.last_write_error = m.health.lastWriteError;
  const a = tool.archive;
  if (a) {
    const rec: Record<string, number> = {};
    for (const t of RECALL_TYPES) rec[t] = a.count(t);
    const bytes = a.footprint ? a.footprint() : undefined;
    doc.archive = bytes !== undefined && a.budget ? { used_bytes: bytes, budget_bytes: a.budget, percent: pct(bytes, a.budget), records: rec } : { records: rec };
  }
  // the episode files (src/episode): counts from one header scan at most
  const eps = tool.episodes;
  if (!eps) doc.episodes = "not available";
  else
    try {
      const c = eps.counts();
      doc.episodes = { active: c.active, core: c.core, trash: c.trash, tombstones: c.tombs, cap: eps.cap, used_bytes: eps.store.footprint() };
    } catch (e) {
      if (!archiveFailed(e)) throw e;
      doc.episodes = `cannot be read now (${(e as Error).message})`;
    }
  return out(doc);
}

function pct(n: number, of: number): number {
  return Math.round((n / of) * 1000) / 10;
}

// How long ago an episode happened, phrased as seed 001 §6.3 asks ("3天前的对话摘要“…”"):
// 今天 (the same local day), n天前 (1 to 30 days), n个月前 (past 30 days: whole
// months of 30 days), n年前 (past 365 days: whole years of 365 days). Days are
// counted between local calendar dates (src/time/local.ts), so yesterday
// evening is 1天前 at one in the morning. Pure: no clock, no flash.

import { toLocal } from "../time/local";

const DAY_MS = 86400000;

// Whole local calendar days from `thenMs` to `nowMs` (0 on the same day; 0 for a future time).
export function daysBetween(thenMs: number, nowMs: number): number {
  const a = toLocal(thenMs), b = toLocal(nowMs);
  const d = Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / DAY_MS);
  return d > 0 ? d : 0;
}

export function agePhrase(thenMs: number, nowMs: number): string {
  const d = daysBetween(thenMs, nowMs);
  if (d === 0) return "今天";
  if (d <= 30) return `${d}天前`;
  if (d <= 365) return `${Math.floor(d / 30)}个月前`;
  return `${Math.floor(d / 365)}年前`;
}

// One recalled episode as the prompt shows it (S1 28): 3天前的对话摘要“…”.
export function summaryLine(content: string, thenMs: number, nowMs: number): string {
  return `${agePhrase(thenMs, nowMs)}的对话摘要“${content}”`;
}

// How much an episode matters, and how strongly it is still remembered.
// Pure functions of an episode's header (scores in hundredths, times in unix
// seconds); docs/DESIGN.md "Episodes" says why each weight is what it is.
//
// importance = info_importance × time_coef (seed 001 §5.1; its formula
// document was not provided, so petmem defines it):
//   info_importance = 0.35·J + 0.25·I + 0.2·E + 0.2·P
//     J, the writer's overall judgement, is the seed's "综合兜底" and weighs most;
//     I (information) and E (emotion; the writer already weighs negatives more)
//     next; P adds persistence, so a core memory (P = 1) is at least 0.2.
//   time_coef = 1 for a core memory (P = 1), else 1 − 0.2·min(1, days/90),
//     days since last_active_at: from 1 to 0.8 over three months without use.
// strength (seed 004 §46) = importance × (0.7·max(0, 1 − days/30) + 0.3·min(1, uses/10));
// an episode below FORGET_BELOW is forgotten (core never).

export const CORE_P = 100; // hundredths: P = 1
export const FORGET_BELOW = 0.2;
export const DECAY_DAYS = 30; // seed 004: memory_decay_days
export const TIME_COEF_DAYS = 90;
const DAY = 86400;

export interface Scored {
  e: number;
  i: number;
  p: number;
  j: number;
  useCount: number;
  lastActiveAt: number; // unix seconds
}

export function isCore(p: number): boolean {
  return p >= CORE_P;
}

export function infoImportance(s: Scored): number {
  return (35 * s.j + 25 * s.i + 20 * s.e + 20 * s.p) / 10000;
}

function days(s: Scored, nowSecs: number): number {
  const d = (nowSecs - s.lastActiveAt) / DAY;
  return d > 0 ? d : 0;
}

export function timeCoef(s: Scored, nowSecs: number): number {
  if (isCore(s.p)) return 1;
  return 1 - 0.2 * Math.min(1, days(s, nowSecs) / TIME_COEF_DAYS);
}

export function importance(s: Scored, nowSecs: number): number {
  return infoImportance(s) * timeCoef(s, nowSecs);
}

export function strength(s: Scored, nowSecs: number): number {
  return importance(s, nowSecs) * (0.7 * Math.max(0, 1 - days(s, nowSecs) / DECAY_DAYS) + 0.3 * Math.min(1, s.useCount / 10));
}

// A score 0..1 (number or numeric string) in hundredths, or an error message.
export function hundredths(v: unknown): number | string {
  const n = typeof v === "string" && /^\s*[0-9.]+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !(n >= 0 && n <= 1)) return "must be a number from 0 to 1";
  return Math.round(n * 100);
}

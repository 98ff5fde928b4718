// Document ids and their 9-byte keys (docs/SYNC.md). Every id is
// `<type>:<8 hex>` (a CRC-32 of the item's key fields, the same on every
// device), `profile:<field>`, or `<episode|digest>:<pet 8 hex>-<number>` for
// items only one device can name (its episode ids, its digests).

import { hex8 } from "../archive/line";
import { PROFILE_FIELDS } from "../memory/memory";

export const TYPES = ["", "profile", "like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "event", "episode", "digest"];
export const CORE_TYPES = ["profile", "family"]; // core memories: a concurrent change keeps the loser as a dated note

export interface Key {
  code: number;
  k1: number;
  k2: number;
}

export function keyOf(id: string): Key | undefined {
  const c = id.indexOf(":");
  if (c < 0) return undefined;
  const code = TYPES.indexOf(id.slice(0, c));
  if (code <= 0) return undefined;
  const rest = id.slice(c + 1);
  if (TYPES[code] === "profile") {
    const f = (PROFILE_FIELDS as readonly string[]).indexOf(rest);
    return f < 0 ? undefined : { code, k1: f, k2: 0 };
  }
  if (TYPES[code] === "episode" || TYPES[code] === "digest") {
    const m = /^([0-9a-f]{8})-([0-9a-f]{8}|\d{1,10})$/.exec(rest);
    if (!m) return undefined;
    const k2 = TYPES[code] === "digest" ? parseInt(m[2], 16) : Number(m[2]);
    if (TYPES[code] === "digest" && m[2].length !== 8) return undefined;
    if (!(k2 >= 0 && k2 <= 0xffffffff)) return undefined;
    return { code, k1: parseInt(m[1], 16), k2 };
  }
  if (!/^[0-9a-f]{8}$/.test(rest)) return undefined;
  return { code, k1: parseInt(rest, 16), k2: 0 };
}

export function idOf(code: number, k1: number, k2: number): string {
  const t = TYPES[code];
  if (t === "profile") return `profile:${PROFILE_FIELDS[k1]}`;
  if (t === "episode") return `episode:${hex8(k1)}-${k2}`;
  if (t === "digest") return `digest:${hex8(k1)}-${hex8(k2)}`;
  return `${t}:${hex8(k1)}`;
}

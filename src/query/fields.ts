// The query language's sources and their fields (issue 16 item 7; docs/DESIGN.md
// "The query language"). Plain data: the parser checks names and kinds
// against it, the runner reads values by name.

export const SOURCES = ["episode", "fact", "event", "digest"] as const;
export type Source = (typeof SOURCES)[number];

// number: compared as numbers; text: folded (src/archive/fold.ts), in UTF-8
// byte order; date: "YYYY-MM-DD HH:MM" local (or a prefix), compared on the
// value's own length; list: a list of texts, true when any item holds; bool.
export type Kind = "number" | "text" | "date" | "list" | "bool";

export interface FieldDef {
  name: string; // as the query names it (and the row shows it)
  field: string; // the canonical field it reads (itself, or what an alias stands for)
  kind: Kind;
  text?: boolean; // an episode's content or keywords: needs the text file read
  alias?: boolean; // not in the default select
}

function f(name: string, kind: Kind, extra?: { text?: boolean; alias?: string }): FieldDef {
  const d: FieldDef = { name, field: extra?.alias ?? name, kind };
  if (extra?.text) d.text = true;
  if (extra?.alias) d.alias = true;
  return d;
}

export const FIELDS: Record<Source, readonly FieldDef[]> = {
  episode: [
    f("id", "number"),
    f("content", "text", { text: true }),
    f("keywords", "list", { text: true }),
    f("emotion", "text"),
    f("e", "number"),
    f("i", "number"),
    f("p", "number"),
    f("j", "number"),
    f("importance", "number"),
    f("use_count", "number"),
    f("created_at", "date"),
    f("last_active_at", "date"),
    f("state", "text"),
  ],
  fact: [f("id", "text"), f("content", "text"), f("date", "date"), f("timestamp", "date", { alias: "date" }), f("archived", "bool")],
  event: [
    f("id", "text"),
    f("date", "date"),
    f("time", "text"),
    f("content", "text"),
    f("event_type", "text"),
    f("significance", "number"),
    f("priority", "number"),
    f("archived", "bool"),
  ],
  digest: [
    f("id", "text"),
    f("month", "date"),
    f("type", "text"),
    f("count", "number"),
    f("keywords", "list"),
    f("points", "text"),
    f("content", "text", { alias: "points" }),
    f("until", "date"),
  ],
};

export function fieldOf(source: Source, name: string): FieldDef | undefined {
  const fs = FIELDS[source];
  const n = name.toLowerCase();
  for (let i = 0; i < fs.length; i++) if (fs[i].name === n) return fs[i];
  return undefined;
}

// "id, content, …" (aliases after a slash: "date/timestamp")
export function fieldList(source: Source): string {
  const fs = FIELDS[source];
  const out: string[] = [];
  for (const d of fs) {
    if (d.alias) continue;
    let s = d.name;
    for (const a of fs) if (a.alias && a.field === d.name) s += "/" + a.name;
    out.push(s);
  }
  return out.join(", ");
}

// Every source with its fields, for the tool's description:
// "episode (id, content, …); fact (id, content, date/timestamp, archived); …"
export function sourcesHelp(): string {
  const out: string[] = [];
  for (const s of SOURCES) out.push(`${s} (${fieldList(s)})`);
  return out.join("; ");
}

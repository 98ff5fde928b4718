// The export's items as CSV (RFC 4180: fields separated by commas, a field
// holding a comma, a double quote, CR or LF enclosed in double quotes with its
// quotes doubled, lines ended by CRLF; UTF-8, no byte-order mark). One table
// per item type (`only`), or every section of the document as its own table
// after a `# section` line, tables separated by an empty line
// (docs/EXPORT.md, "CSV").

import { SPECS } from "../memory/types";
import type { Layout } from "../nvs/layout";
import { fieldNames, itemKey, DIGEST_FIELDS, ARCHIVE_TOMB_FIELDS, EPISODE_FIELDS, EPISODE_TOMB_FIELDS, PREF_FIELDS, type Item } from "./schema";
import type { ExportSink, SectionName } from "./export";

const fieldsOf = (store: keyof typeof SPECS) => fieldNames(SPECS[store].layout as Layout<object>).map(itemKey);

// Columns of each type, in order: id and type first.
export function csvColumns(type: string): string[] {
  const head = ["id", "type"];
  switch (type) {
    case "config":
      return head.concat(fieldsOf("config"));
    case "profile":
      return head.concat(fieldsOf("profile"));
    case "like":
    case "dislike":
      return head.concat(PREF_FIELDS);
    case "family":
      return head.concat(fieldsOf("family"));
    case "fact":
      return head.concat(["archived"], fieldsOf("facts"));
    case "trait":
      return head.concat(fieldsOf("traits"));
    case "habit":
      return head.concat(fieldsOf("habits"));
    case "moment":
      return head.concat(["archived"], fieldsOf("moments"));
    case "goal":
      return head.concat(fieldsOf("goals"));
    case "event": {
      // an NVS event has no timestamp; an archived one keeps fewer fields
      return head.concat(["archived", "timestamp"], fieldsOf("events"));
    }
    case "chat":
      return head.concat(fieldsOf("chat"));
    case "relationship":
      return head.concat(fieldsOf("affection"));
    case "pending":
      return head.concat(fieldsOf("pending"));
    case "health":
      return head.concat(fieldsOf("health"));
    case "digest":
      return head.concat(DIGEST_FIELDS);
    case "archive_tombstone":
      return head.concat(ARCHIVE_TOMB_FIELDS);
    case "episode":
      return head.concat(EPISODE_FIELDS);
    case "episode_tombstone":
      return head.concat(EPISODE_TOMB_FIELDS);
  }
  throw new RangeError(`no CSV table for type ${type}`);
}

export const CSV_TYPES = ["config", "profile", "like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "event", "chat", "relationship", "pending", "health", "digest", "archive_tombstone", "episode", "episode_tombstone"];

// The item type of each section of the document.
export const SECTION_TYPE: Record<SectionName, string> = {
  config: "config",
  profile: "profile",
  likes: "like",
  dislikes: "dislike",
  family: "family",
  facts: "fact",
  traits: "trait",
  habits: "habit",
  moments: "moment",
  goals: "goal",
  events: "event",
  chat: "chat",
  relationship: "relationship",
  pending: "pending",
  health: "health",
  "archive.facts": "fact",
  "archive.moments": "moment",
  "archive.events": "event",
  "archive.digests": "digest",
  "archive.tombstones": "archive_tombstone",
  episodes: "episode",
  episode_tombstones: "episode_tombstone",
};

// One field, RFC 4180. Lists are joined by commas (then quoted); booleans are
// true/false; a missing value is empty.
export function csvField(v: unknown): string {
  let s: string;
  if (v === undefined || v === null) s = "";
  else if (Array.isArray(v)) s = v.map((x) => String(x)).join(",");
  else s = String(v);
  if (!/[",\r\n]/.test(s)) return s;
  return '"' + s.split('"').join('""') + '"';
}

export function csvRow(fields: readonly unknown[]): string {
  return fields.map(csvField).join(",") + "\r\n";
}

export class CsvSink implements ExportSink {
  private columns: string[] | undefined;
  private tables = 0;
  rows = 0;
  // only: one table of this item type (its header even when it has no rows)
  constructor(private readonly write: (chunk: string) => void, private readonly only?: string) {
    if (only !== undefined) {
      this.columns = csvColumns(only);
      this.write(csvRow(this.columns));
    }
  }

  head(): void {}

  private table(section: SectionName): void {
    if (this.only !== undefined) return;
    this.columns = csvColumns(SECTION_TYPE[section]);
    this.write(`${this.tables++ ? "\r\n" : ""}# ${section}\r\n` + csvRow(this.columns));
  }

  single(section: SectionName, item: Item | null): void {
    this.table(section);
    if (item) this.item(item);
  }

  list(section: SectionName): void {
    this.table(section);
  }

  item(it: Item): void {
    if (this.only !== undefined && it.type !== this.only) return;
    const cols = this.columns as string[];
    this.write(csvRow(cols.map((c) => (c === "archived" ? it[c] === true : it[c]))));
    this.rows++;
  }

  endList(): void {}
  absent(): void {}
  end(): void {}
}

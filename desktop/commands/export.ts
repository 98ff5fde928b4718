// `petmem export`: the pet's whole memory on stdout, as the versioned JSON
// document of docs/EXPORT.md (what `petmem import` takes back), or as CSV
// tables. Reads the device through the device's own export (src/backup),
// one item at a time, so a big archive is never held whole.

import { DATA, UsageError, type Command } from "../command.js";
import { openHost } from "../host.js";
import { exportTo, JsonSink, type ExportSink, type SectionName } from "../../src/backup/export.js";
import { CsvSink, CSV_TYPES } from "../../src/backup/csv.js";
import type { Item } from "../../src/backup/schema.js";

// Pieces gathered into writes of about 64 KB.
function buffered(out: (s: string) => void): { write(s: string): void; flush(): void; bytes: number } {
  let parts: string[] = [];
  let n = 0;
  const b = {
    bytes: 0,
    write(s: string) {
      parts.push(s);
      n += s.length;
      b.bytes += Buffer.byteLength(s);
      if (n >= 65536) b.flush();
    },
    flush() {
      if (parts.length) out(parts.join(""));
      parts = [];
      n = 0;
    },
  };
  return b;
}

// --format json --type T: the items of one type as a JSON list, one a line.
class JsonListSink implements ExportSink {
  private first = true;
  constructor(private readonly write: (s: string) => void, private readonly only: string) {
    write("[");
  }
  head(): void {}
  single(_s: SectionName, item: Item | null): void {
    if (item) this.item(item);
  }
  list(): void {}
  item(it: Item): void {
    if (it.type !== this.only) return;
    this.write((this.first ? "\n" : ",\n") + JSON.stringify(it));
    this.first = false;
  }
  endList(): void {}
  absent(): void {}
  end(): void {
    this.write(this.first ? "]\n" : "\n]\n");
  }
}

export const exportCmd: Command = {
  name: "export",
  summary: "print the pet's whole memory as a JSON document (or CSV tables) on stdout",
  usage: "export [--format json|csv] [--type T] [--data DIR]",
  options: [
    { name: "--format", value: "json|csv", help: "the document (json) or CSV tables", default: "json" },
    { name: "--type", value: "T", help: `only items of type T: ${CSV_TYPES.join(", ")}` },
    DATA,
  ],
  details: [
    "json: one versioned document (docs/EXPORT.md) with every store, the archive, the episodes;",
    "  `petmem import` takes it back. With --type: a JSON list of that type's items (not importable).",
    "csv: RFC 4180, UTF-8, CRLF. With --type: one table (facts, moments and events include the",
    "  archived ones, with archived=true). Without: every section of the document as its own table",
    "  after a line `# SECTION`, tables separated by an empty line.",
    "The device is only read; opening it counts a boot, as every command does.",
  ].join("\n"),
  run(ctx) {
    const format = (ctx.opts.format as string | undefined) ?? "json";
    if (format !== "json" && format !== "csv") throw new UsageError(`--format: json or csv, not ${JSON.stringify(format)}`);
    const type = ctx.opts.type as string | undefined;
    if (type !== undefined && CSV_TYPES.indexOf(type) < 0) throw new UsageError(`--type: one of ${CSV_TYPES.join(", ")}; not ${JSON.stringify(type)}`);
    const host = openHost({ data: (ctx.opts.data as string) ?? ".petmem", command: "export", mustExist: true });
    const out = buffered(ctx.out);
    const started = Date.now();
    try {
      const sink: ExportSink = format === "csv" ? new CsvSink(out.write, type) : type ? new JsonListSink(out.write, type) : new JsonSink(out.write);
      exportTo(host.booted, sink, { progress: (section, n) => ctx.progress(`export: ${n} items (${section})`) });
      out.flush();
    } finally {
      host.close();
    }
    if (Date.now() - started > 1000) ctx.progress(`export: ${out.bytes} bytes in ${Date.now() - started} ms`);
  },
};

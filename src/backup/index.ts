// Export and import of the whole memory as one versioned JSON document
// (docs/EXPORT.md): the contract the desktop commands and the HTTP API call.
//
//   exportMemory(booted, (chunk) => out.write(chunk));   // streams the document
//   importMemory(booted, JSON.parse(text), { replace: false });
//
// An import checks the whole document first: a bad one throws an ImportError
// whose `path` names the first error ("$.facts[3].content"), and nothing
// changes. src/backup/csv.ts writes the same items as CSV tables.

export { EXPORT_FORMAT, EXPORT_VERSION, ImportError, type Item } from "./schema";
export { exportMemory, exportTo, JsonSink, ExportError, SECTIONS, type ExportSink, type ExportOptions, type SectionName } from "./export";
export { CsvSink, csvColumns, csvField, csvRow, CSV_TYPES, SECTION_TYPE } from "./csv";
export { importMemory, checkDocument, holdsMemory, type ImportReport, type Plan } from "./import";

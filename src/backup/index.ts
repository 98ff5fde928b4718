// Export and import of the whole memory as one versioned JSON document
// (docs/EXPORT.md). Not built yet: the signatures are the contract the
// desktop commands and the HTTP API call.

import type { Booted } from "../app/boot";

export const EXPORT_FORMAT = "petmem-export";
export const EXPORT_VERSION = 1;

export class ImportError extends Error {
  readonly path: string; // where in the document the first error is ("$.facts[3].date")
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
    Object.defineProperty(this, "name", { value: "ImportError", configurable: true, writable: true });
  }
}

export interface ImportReport {
  counts: Record<string, number>; // items imported per type
}

// Streams the document in pieces through `write` (never the whole archive in RAM).
export function exportMemory(booted: Booted, write: (chunk: string) => void): void {
  void booted;
  void write;
  throw new Error("export is not built yet");
}

// Checks the whole document first: a bad one throws an ImportError naming the
// first error's path, and nothing changes. The device must hold no memory
// unless `replace`.
export function importMemory(booted: Booted, doc: unknown, opts: { replace: boolean }): ImportReport {
  void booted;
  void doc;
  void opts;
  throw new Error("import is not built yet");
}

// Stub: the episodes domain (helper epmind builds it).
import type { Episode, EpisodeReader } from "./types";

export class Episodes implements EpisodeReader {
  forEach(_fn: (ep: Episode) => boolean | void, _opts?: { trash?: boolean; text?: boolean }): void {}
}

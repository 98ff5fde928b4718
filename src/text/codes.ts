// The compact text's 1-byte codes (docs/FORMAT.md §3.16), apart from src/text/compact.ts so
// that the table's builder can read them without loading a table.

// The 1-byte codes, in code order: capitals and the ASCII punctuation Chinese
// speech does not use. Digits, lower case, space and the punctuation of times,
// dates and amounts (`:-./%,+()!?`) stay themselves: a text with an English
// word or an acronym in it pays 3 bytes a capital (or is written plain).
export const ONE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ#$&'*;<=>@^_`|~";

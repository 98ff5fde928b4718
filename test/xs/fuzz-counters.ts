// The counters the XS fuzz worker reports before every input (test/xs/fuzz-entry.ts),
// in this order, so the driver (test/xs/fuzz.ts) keeps them across a crash.
// All are sums over the run but `deepest`, a maximum.
export const COUNTERS = [
  "inputs", "bad_responses", "crashes", "state_changed_on_reject", "valid_calls", "accepted", "rejected", "no_reply", "flash_writes",
  "over_16k", "too_deep", "too_many_items", "deepest", "surrogates", "huge_numbers",
] as const;

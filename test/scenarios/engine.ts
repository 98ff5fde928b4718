// Which engine runs the scenarios: the XS lane (xsnap, built like a device)
// or Node (mocha). Scenarios that check engine facts branch on this.
export function engine(): "xs" | "node" {
  const g = globalThis as { process?: { versions?: { node?: string } }; print?: unknown };
  if (g.process?.versions?.node) return "node";
  return "xs";
}

// Where `trace` output goes on the host. Tests capture it; the default sink
// writes to stderr where one exists (Node) and to `print` in XS.

type Sink = (text: string) => void;
const g = globalThis as unknown as { trace?: (...items: unknown[]) => void; print?: (s: string) => void; process?: { stderr: { write(s: string): void } } };
let sink: Sink = (s) => (g.process ? g.process.stderr.write(s) : g.print?.(s.replace(/\n$/, "")));
export const traced: string[] = [];

export function setTraceSink(s: Sink): void {
  sink = s;
}

export function installTrace(): void {
  g.trace = (...items: unknown[]) => {
    const text = items.map(String).join("");
    traced.push(text);
    if (traced.length > 1000) traced.splice(0, 500);
    sink(text);
  };
}

// The oracle's ledger: what the device acknowledged and what it was asked to
// do, built only from the workload's own calls and the device's replies,
// never from flash or from another run.
//
// A record is (kind, key) -> value. `acked` is the value the last
// acknowledged change gave it (null: deleted; undefined: never acknowledged).
// `maybe` holds the values of changes attempted since that acknowledgement
// whose reply never came or did not say "stored" (a fault hit them): after a
// reboot the record may hold any of them, or the acknowledged value, and
// nothing else. The universe of a kind is every value ever acknowledged or
// attempted: a value outside it was never written, so a reply that shows it
// serves damaged data.

export type Kind = "profile" | "like" | "dislike" | "family" | "fact" | "trait" | "habit" | "moment" | "goal" | "schedule" | "episode";
export const KINDS: readonly Kind[] = ["profile", "like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "schedule", "episode"];

export interface Entry {
  kind: Kind;
  key: string;
  acked: string | null | undefined;
  maybe: (string | null)[];
  // a record that was on flash before the workload began (a prefilled
  // archive), with its time (unix s): checked like any other (facts are never
  // retired), but moments may leave oldest first into a monthly digest
  background?: number;
  // unix seconds of the record (its acknowledged value's time on the device):
  // orders moments for the oldest-first rule of retire
  ts?: number;
}

export class Ledger {
  private entries = new Map<string, Entry>();
  private universe = new Map<string, Set<string>>();
  acks = 0;
  attempts = 0;

  private entry(kind: Kind, key: string): Entry {
    const id = kind + "\u0000" + key;
    let e = this.entries.get(id);
    if (!e) this.entries.set(id, (e = { kind, key, acked: undefined, maybe: [] }));
    return e;
  }

  private know(kind: Kind, value: string | null): void {
    if (value === null) return;
    let u = this.universe.get(kind);
    if (!u) this.universe.set(kind, (u = new Set()));
    u.add(value);
  }

  // A change the device was asked to make (before its reply).
  attempt(kind: Kind, key: string, value: string | null): void {
    this.attempts++;
    const e = this.entry(kind, key);
    e.maybe.push(value);
    this.know(kind, value);
  }

  // A change the device said it stored: supersedes everything before it.
  // `ts`: the record's time on the device (unix s), for a new value. A
  // prefilled record that is changed (forgotten) is one of the workload's now.
  ack(kind: Kind, key: string, value: string | null, ts?: number): void {
    this.acks++;
    const e = this.entry(kind, key);
    e.acked = value;
    e.maybe = [];
    if (value !== null && ts !== undefined) e.ts = ts;
    if (e.background !== undefined) {
      e.ts ??= e.background;
      e.background = undefined;
    }
    this.know(kind, value);
  }

  // The device answered that it changed nothing (not_found, conflict): the
  // attempt is withdrawn.
  withdraw(kind: Kind, key: string, value: string | null): void {
    const e = this.get(kind, key);
    if (!e) return;
    const i = e.maybe.lastIndexOf(value);
    if (i >= 0) e.maybe.splice(i, 1);
  }

  // A record already on flash when the workload began.
  background(kind: Kind, key: string, value: string, ts: number): void {
    const e = this.entry(kind, key);
    e.acked = value;
    e.background = ts;
    e.ts = ts;
    this.know(kind, value);
  }

  // Whether `value` was ever acknowledged or attempted for this kind.
  known(kind: Kind, value: string): boolean {
    return this.universe.get(kind)?.has(value) ?? false;
  }

  get(kind: Kind, key: string): Entry | undefined {
    return this.entries.get(kind + "\u0000" + key);
  }

  all(): Entry[] {
    const out: Entry[] = [];
    this.entries.forEach((e) => out.push(e));
    return out;
  }
}

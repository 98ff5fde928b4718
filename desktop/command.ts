// What every `petmem` command is: a name, one line of summary, its options,
// and a run function. The dispatcher (desktop/cli.ts) parses the command line
// against the options, prints `--help` from them, and turns the two errors
// below into exit codes: a UsageError exits 2, a Failure (or anything else
// thrown) exits 1, each as one line on stderr (`--debug`: with the stack).

export interface OptionSpec {
  name: string; // "--data"
  value?: string; // the placeholder of its value ("DIR"); absent: a flag
  help: string;
  default?: string; // shown in --help
}

export interface Command {
  name: string;
  summary: string; // one line, for `petmem --help`
  usage: string; // after "petmem ": "export [--format json|csv] [--data DIR]"
  positionals?: { name: string; help: string; optional?: boolean }[];
  options: OptionSpec[];
  details?: string; // free text after the options in --help
  run(ctx: Context): Promise<number | void> | number | void;
}

export interface Context {
  command: string;
  opts: Record<string, string | true | undefined>; // keyed by option name without dashes ("data", "now")
  args: string[]; // positionals
  debug: boolean;
  quiet: boolean;
  out(text: string): void; // stdout, as is
  err(text: string): void; // stderr, as is
  // a line for a person on stderr (what was done, where it is served); silent
  // under --quiet, which prints nothing but what was asked for
  info(text: string): void;
  // the device's own trace lines (the boot line, repairs) go to stderr from
  // here on, those held since the start first; before it (and in commands
  // that never call it) they are held, and shown only with --debug, so a
  // failure is one line. A serving command calls it once it is up.
  live(): void;
  // one progress line on stderr (anything that takes more than a second says
  // where it is); silent under --quiet and when stderr is not read by a person
  progress(text: string): void;
}

// Exit 2: the command line is wrong. The message says what is wrong and what is right.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

// Exit 1: the command line was right but the work failed (a corrupt data
// folder, a file that cannot be read, a refused import...).
export class Failure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Failure";
  }
}

// Options every command that works on a data folder takes.
export const DATA: OptionSpec = { name: "--data", value: "DIR", help: "the pet's data folder", default: "./.petmem" };
export const NOW: OptionSpec = { name: "--now", value: "T", help: "start the device clock at T (2026-02-05T13:00, local time of --tz, or with a zone)" };
export const TZ: OptionSpec = { name: "--tz", value: "±HH:MM", help: "the device's UTC offset, kept in its configuration (default: this machine's)" };
export const YES: OptionSpec = { name: "--yes", help: "do it without asking (replaces what the device holds)" };

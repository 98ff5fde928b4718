// `petmem`: the pet's memory on the desktop. Parses the command line against
// each command's options (desktop/command.ts), prints help from them, and
// turns errors into exit codes: 0 done, 1 failed (one line on stderr; the
// stack with --debug), 2 the command line is wrong (one line saying what is
// wrong and what is right).

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Failure, UsageError, type Command, type Context, type OptionSpec } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { setTraceSink } from "../host-sim/trace-sink.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export function version(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(here, "..", "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

const GLOBAL: OptionSpec[] = [
  { name: "--help", help: "show this help" },
  { name: "--version", help: "print the version" },
  { name: "--quiet", help: "nothing on stderr but a failure: no log lines, boot line or progress" },
  { name: "--debug", help: "show the stack of a failure" },
];

function optionLine(o: OptionSpec): string {
  const left = `  ${o.name}${o.value ? " " + o.value : ""}`;
  return `${left.padEnd(26)} ${o.help}${o.default ? ` (default: ${o.default})` : ""}`;
}

export function mainHelp(): string {
  const lines = [
    "petmem: the long-term memory of an AI companion pet, on the desktop",
    "",
    "usage: petmem [COMMAND] [OPTIONS]",
    "",
    "commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}${c.name === "serve" ? " (the default)" : ""}`),
    "",
    "options of every command:",
    ...GLOBAL.map(optionLine),
    "",
    "`petmem COMMAND --help` lists a command's options.",
  ];
  return lines.join("\n") + "\n";
}

export function commandHelp(c: Command): string {
  const lines = [`petmem ${c.name}: ${c.summary}`, "", `usage: petmem ${c.usage}`];
  if (c.positionals?.length) {
    lines.push("", "arguments:");
    for (const p of c.positionals) lines.push(`  ${p.name.padEnd(24)} ${p.help}`);
  }
  lines.push("", "options:", ...c.options.map(optionLine), ...GLOBAL.map(optionLine));
  if (c.details) lines.push("", c.details.replace(/\n+$/, ""));
  return lines.join("\n") + "\n";
}

interface Parsed {
  command: Command;
  opts: Record<string, string | true | undefined>;
  args: string[];
  help: boolean;
  version: boolean;
  debug: boolean;
  quiet: boolean;
}

export function parseArgs(argv: string[]): Parsed {
  let i = 0;
  let command = COMMANDS.find((c) => c.name === "serve")!;
  if (argv[0] !== undefined && !argv[0].startsWith("-")) {
    const named = COMMANDS.find((c) => c.name === argv[0]);
    if (!named) throw new UsageError(`unknown command ${JSON.stringify(argv[0])}; the commands are ${COMMANDS.map((c) => c.name).join(", ")} (petmem --help)`);
    command = named;
    i = 1;
  }
  const p: Parsed = { command, opts: {}, args: [], help: false, version: false, debug: false, quiet: false };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") p.help = true;
    else if (a === "--version" || a === "-V") p.version = true;
    else if (a === "--debug") p.debug = true;
    else if (a === "--quiet" || a === "-q") p.quiet = true;
    else if (a === "--") {
      p.args.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(0, eq) : a;
      const spec = command.options.find((o) => o.name === name);
      if (!spec) throw new UsageError(`${command.name}: unknown option ${name}; \`petmem ${command.name} --help\` lists its options`);
      const key = name.slice(2);
      if (!spec.value) {
        if (eq > 0) throw new UsageError(`${name} takes no value`);
        p.opts[key] = true;
      } else {
        const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined || (eq < 0 && v.startsWith("--"))) throw new UsageError(`${name} needs a value: ${name} ${spec.value}`);
        p.opts[key] = v;
      }
    } else if (a.startsWith("-") && a !== "-") throw new UsageError(`${command.name}: unknown option ${a}; \`petmem ${command.name} --help\` lists its options`);
    else p.args.push(a);
  }
  if (!p.help && !p.version) {
    const pos = command.positionals ?? [];
    const required = pos.filter((x) => !x.optional).length;
    if (p.args.length < required) throw new UsageError(`${command.name}: missing ${pos[p.args.length].name}; usage: petmem ${command.usage}`);
    if (p.args.length > pos.length) throw new UsageError(`${command.name}: unexpected argument ${JSON.stringify(p.args[pos.length])}; usage: petmem ${command.usage}`);
  }
  return p;
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  errIsTty: boolean;
}

const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  errIsTty: Boolean(process.stderr.isTTY),
};

// Runs one command line; resolves to the exit code (a serving command resolves
// when it is done serving).
export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  let debug = argv.includes("--debug");
  const held: string[] = [];
  setTraceSink((t) => void held.push(t));
  const release = (show: boolean) => {
    if (show) for (const t of held.splice(0)) io.err(t);
    held.length = 0;
  };
  try {
    const p = parseArgs(argv);
    debug = p.debug;
    if (p.version) {
      io.out(`petmem ${version()}\n`);
      return 0;
    }
    if (p.help) {
      io.out(argv[0] === p.command.name ? commandHelp(p.command) : mainHelp());
      return 0;
    }
    let lastProgress = 0;
    const ctx: Context = {
      command: p.command.name,
      opts: p.opts,
      args: p.args,
      debug: p.debug,
      quiet: p.quiet,
      out: io.out,
      err: io.err,
      info(text) {
        if (!p.quiet) io.err(text);
      },
      live() {
        release(!p.quiet || p.debug);
        setTraceSink(p.quiet && !p.debug ? () => {} : io.err);
      },
      progress(text) {
        if (p.quiet) return;
        const t = Date.now();
        if (t - lastProgress < 250) return; // a line a quarter second at most
        lastProgress = t;
        io.err(`petmem: ${text}\n`);
      },
    };
    const code = await p.command.run(ctx);
    release(debug);
    return code ?? 0;
  } catch (e) {
    release(debug);
    if (e instanceof UsageError) {
      io.err(`petmem: ${e.message}\n`);
      return 2;
    }
    // one line; the stack (and what the device traced) only with --debug
    const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, "; ");
    const hint = e instanceof Failure || debug ? "" : " (--debug shows where)";
    io.err(`petmem: ${e instanceof Failure ? "" : "failed: "}${message}${hint}\n`);
    if (debug && e instanceof Error && e.stack) io.err(e.stack + "\n");
    return 1;
  } finally {
    setTraceSink((t) => void process.stderr.write(t));
  }
}

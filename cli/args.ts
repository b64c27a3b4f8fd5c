import { readFileSync } from "node:fs";
import type { LooseInput } from "../shared/contract/admin-client.ts";
import { type Command, commandNamed, commandsOf, type Flag, nearestCommand } from "./commands.ts";

/** A mistake on the command line: one line for the user, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** Print the command list after the message. */
    readonly showUsage = false,
    /** Only this group's commands in that list. */
    readonly group?: string,
  ) {
    super(message);
  }
}

export type Invocation =
  | { help: true; command?: Command; group?: string }
  | { help: false; command: Command; input: LooseInput; json: boolean };

const helpWords = new Set(["help", "--help", "-h"]);

function readJsonFile(flag: Flag, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`--${flag.name}: cannot read ${path}`);
  }
}

function convert(flag: Flag, raw: string): unknown {
  if (flag.choices && !flag.choices.includes(raw)) {
    throw new UsageError(`--${flag.name}: expected one of ${flag.choices.join(", ")}, got ${JSON.stringify(raw)}`);
  }
  if (flag.kind === "integer") {
    if (!/^-?\d+$/.test(raw))
      throw new UsageError(`--${flag.name}: expected a whole number, got ${JSON.stringify(raw)}`);
    return Number(raw);
  }
  if (flag.kind === "number") {
    if (raw.trim() === "" || !Number.isFinite(Number(raw)))
      throw new UsageError(`--${flag.name}: expected a number, got ${JSON.stringify(raw)}`);
    return Number(raw);
  }
  if (flag.kind === "json") {
    const text = raw.startsWith("@") ? readJsonFile(flag, raw.slice(1)) : raw;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UsageError(
        `--${flag.name}: expected a JSON object or @file.json, got ${JSON.stringify(raw.slice(0, 40))}`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new UsageError(`--${flag.name}: expected a JSON object`);
    return value;
  }
  if (flag.kind === "boolean") {
    if (raw !== "true" && raw !== "false")
      throw new UsageError(`--${flag.name}: expected true or false, got ${JSON.stringify(raw)}`);
    return raw === "true";
  }
  return raw;
}

/** `<noun> <verb> [--flag value | --flag=value ...] [--json]` into the request to send. */
export function parseCommandLine(argv: string[]): Invocation {
  if (argv.length === 0) throw new UsageError("no command given", true);
  if (helpWords.has(argv[0]!)) return { help: true };
  // `key --help` (or `key` alone): the commands of that group.
  if (commandsOf(argv[0]!).length > 0 && (argv.length === 1 || helpWords.has(argv[1]!))) {
    if (argv.length === 1) throw new UsageError(`${argv[0]}: which one?`, true, argv[0]);
    return { help: true, group: argv[0] };
  }
  const name = argv.slice(0, 2).join(" ");
  const command = commandNamed(name);
  if (!command) {
    const near = nearestCommand(name);
    throw new UsageError(
      `unknown command ${JSON.stringify(name)}${near ? `: did you mean ${JSON.stringify(near)}?` : ""}`,
      true,
    );
  }

  const values = new Map<Flag, unknown>();
  let json = false;
  const rest = argv.slice(2);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === "--help" || arg === "-h") return { help: true, command };
    if (arg === "--json") {
      json = true;
      continue;
    }
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new UsageError(`unexpected argument ${JSON.stringify(arg)} (flags are --name value)`);
    const flag = command.flags.find((f) => f.name === match[1]);
    if (!flag) throw new UsageError(`${command.name}: unknown flag --${match[1]} (see --help)`);
    // `--label=--x` passes a value that starts with dashes; `--label --x` is a forgotten value.
    const raw = match[2] ?? (rest[i + 1]?.startsWith("--") ? undefined : rest[++i]);
    if (raw === undefined) throw new UsageError(`--${flag.name}: missing value (${flag.hint})`);
    values.set(flag, convert(flag, raw));
  }

  for (const flag of command.flags) {
    if (flag.required && !values.has(flag))
      throw new UsageError(`${command.name}: missing --${flag.name} ${flag.hint}`);
  }
  // A change that names no field would write (and audit) nothing new; a `--note` says why, it changes nothing.
  const fields = command.flags.filter((f) => f.in === "body" && f.name !== "note");
  const changes = command.route.method === "PUT" || command.route.method === "PATCH";
  if (changes && fields.length > 0 && fields.every((f) => !values.has(f))) {
    throw new UsageError(
      `${command.name}: nothing to change: give at least one of ${fields.map((f) => `--${f.name}`).join(", ")} (see --help)`,
    );
  }
  const input: Record<Flag["in"], Record<string, unknown>> = { path: {}, query: {}, body: {} };
  for (const [flag, value] of values) input[flag.in][flag.field] = value;
  const { path: params, query, body } = input;
  return { help: false, command, input: { params, query, body: command.route.body ? body : undefined }, json };
}

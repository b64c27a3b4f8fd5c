import { type Command, commands } from "./commands.ts";

const program = "npx savepoint";
const width = 100;

/** `--a X [--b Y]`, wrapped to the terminal's usual width under the command's summary. */
function flagLines(command: Command, indent: string): string[] {
  const words = command.flags.map((f) => (f.required ? `--${f.name} ${f.hint}` : `[--${f.name} ${f.hint}]`));
  const lines: string[] = [];
  let line = indent;
  for (const word of words) {
    if (line.length + word.length + 1 > width && line.trim() !== "") {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${word} `;
  }
  if (line.trim() !== "") lines.push(line.trimEnd());
  return lines;
}

const describe = (c: Command) => [`  ${c.name.padEnd(18)} ${c.route.summary}`, ...flagLines(c, "      ")];

/** The whole command list, one group's commands (`key`), or one command's flags. */
export function usage(command?: Command, group?: string): string {
  const inGroup = group ? commands.filter((c) => c.name.startsWith(`${group} `)) : commands;
  const head = command
    ? [`usage: ${program} ${command.name} [flags] [--json]`, "", ...describe(command)]
    : [
        `usage: ${program} ${group ?? "<command>"}${group ? " <command>" : ""} [flags] [--json]`,
        "",
        "commands:",
        ...inGroup.flatMap(describe),
      ];
  return [
    ...head,
    "",
    "  --json    print the server's JSON answer and nothing else on stdout (for scripts)",
    "  --help    this text",
    "",
    `  secrets init       writes the shared secrets once to a file (no server needed; see: ${program} secrets init --help)`,
    `  backup --out DIR   an online backup of the embedded deployment's data folder (see: ${program} backup --help)`,
    `  restore DIR --data-dir DIR   a backup verified and restored into a new folder (no server needed)`,
    "",
    "environment: SAVEPOINT_URL (default http://localhost:8080), SAVEPOINT_OPERATOR_TOKEN (your own, spo_...) or SAVEPOINT_ADMIN_TOKEN",
    "exit codes: 0 done, 1 error answer or server unreachable, 2 bad command line or environment",
  ].join("\n");
}

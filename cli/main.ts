#!/usr/bin/env bun
import { adminClient } from "../shared/contract/admin-client.ts";
import { parseCommandLine, UsageError } from "./args.ts";
import { backupCommand } from "./backup.ts";
import { errorLine, render, safeJsonText, visible } from "./format.ts";
import { httpTransport, UnreachableError } from "./http.ts";
import { secretsCommand } from "./secrets.ts";
import { usage } from "./usage.ts";

/**
 * `npx savepoint <command> [--flag value ...] [--json]`: the operator API from a terminal. Talks to
 * SAVEPOINT_URL with SAVEPOINT_OPERATOR_TOKEN or SAVEPOINT_ADMIN_TOKEN. Prints a readable answer, or with `--json` the server's
 * answer alone on stdout; every failure is one line on stderr.
 */
async function main(argv: string[]): Promise<number> {
  // Local: no server to call yet when an operator makes the deployment's secrets.
  if (argv[0] === "secrets") return secretsCommand(argv);
  // Local too: they read and write the embedded deployment's files on this machine.
  if (argv[0] === "backup" || argv[0] === "restore") return backupCommand(argv);
  const invocation = parseCommandLine(argv);
  if (invocation.help) {
    console.log(usage(invocation.command, invocation.group));
    return 0;
  }
  // An operator's own token names them in the audit log (docs/api-rules.md#operators); the admin token is the owner's.
  const token = process.env.SAVEPOINT_OPERATOR_TOKEN || process.env.SAVEPOINT_ADMIN_TOKEN;
  if (!token)
    throw new UsageError(
      "Neither SAVEPOINT_OPERATOR_TOKEN nor SAVEPOINT_ADMIN_TOKEN is set: export your operator token (spo_...)",
    );
  const base = process.env.SAVEPOINT_URL || "http://localhost:8080";
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    throw new UsageError(`SAVEPOINT_URL: expected an http(s) URL, got ${JSON.stringify(base)}`);
  }

  const { command, input, json } = invocation;
  const answer = await adminClient(httpTransport(base, token)).allPagesLoose(command.op, input);
  if (json) console.log(safeJsonText(answer.text, answer.body !== undefined));
  if (!answer.ok) {
    console.error(errorLine(answer));
    return 1;
  }
  if (!json) console.log(render(answer.body ?? answer.text) + (command.note ? `\n\n${command.note}` : ""));
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) {
    console.error(visible(err.message));
    if (err.showUsage) console.error(`\n${usage(undefined, err.group)}`);
    process.exitCode = 2;
  } else if (err instanceof UnreachableError) {
    console.error(visible(err.message));
    process.exitCode = 1;
  } else {
    throw err;
  }
}

import { defaultSecretsFile, initSecretsFile } from "../shared/process/secrets-file.ts";
import { UsageError } from "./args.ts";

export const secretsUsage = `usage: npx savepoint secrets init [--file ${defaultSecretsFile}]

  Writes SAVEPOINT_LINK_SECRET and SAVEPOINT_TRANSFER_SECRET once into the file (mode 600); an existing
  file is never overwritten. Start every service with it: bun --env-file=${defaultSecretsFile} services/standalone.ts <name>`;

/** `secrets init`: runs here, without a server or an admin token. Returns the exit code. */
export function secretsCommand(argv: string[]): number {
  if (argv[1] !== "init")
    throw new UsageError(`unknown command ${JSON.stringify(argv.slice(0, 2).join(" "))}\n\n${secretsUsage}`);
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(secretsUsage);
    return 0;
  }
  const rest = argv.slice(2);
  let file = defaultSecretsFile;
  for (let i = 0; i < rest.length; i++) {
    const match = /^--file(?:=(.*))?$/.exec(rest[i]!);
    if (!match) throw new UsageError(`secrets init: unexpected argument ${JSON.stringify(rest[i])}\n\n${secretsUsage}`);
    const value = match[1] ?? rest[++i];
    if (!value) throw new UsageError("--file: missing value (a path)");
    file = value;
  }
  try {
    initSecretsFile(file);
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
  console.log(`Wrote SAVEPOINT_LINK_SECRET and SAVEPOINT_TRANSFER_SECRET to ${file} (mode 600).`);
  console.log("Keep it and back it up: every copy of every service needs these values, for as long as the data lives.");
  return 0;
}

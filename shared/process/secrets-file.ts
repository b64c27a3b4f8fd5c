import { chmodSync, writeFileSync } from "node:fs";
import { randomBase62 } from "../util/ids.ts";

/** Where `npx savepoint secrets init` writes when no `--file` is given. */
export const defaultSecretsFile = ".savepoint-secrets.env";

/** The HMAC keys every copy of a distributed service must share, in the order they are written. */
export const sharedSecrets = ["SAVEPOINT_LINK_SECRET", "SAVEPOINT_TRANSFER_SECRET"] as const;

/**
 * Writes a new link secret and transfer secret to `path` as `NAME=value` lines (owner-only), once: an
 * existing file is never overwritten, because a new link secret orphans every identity link
 * (docs/distributed.md). Throws when the file exists.
 */
export function initSecretsFile(path: string): Record<(typeof sharedSecrets)[number], string> {
  const values = Object.fromEntries(sharedSecrets.map((name) => [name, randomBase62(43)])) as Record<
    (typeof sharedSecrets)[number],
    string
  >;
  const text = [
    "# Savepoint's shared secrets, written once by `npx savepoint secrets init`. Keep this file and back it up:",
    "# a service started with another SAVEPOINT_LINK_SECRET refuses to start (every identity link would be orphaned).",
    ...sharedSecrets.map((name) => `${name}=${values[name]}`),
    "",
  ].join("\n");
  try {
    writeFileSync(path, text, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Error(
        `${path} already exists: not overwritten (new secrets would orphan every identity link). Keep using it, or move it away first.`,
      );
    }
    throw err;
  }
  // The umask may have cleared bits of the mode; never more than owner-only.
  chmodSync(path, 0o600);
  return values;
}

/** The `NAME=value` lines of a secrets file (comments and blank lines skipped). */
export function parseSecretsFile(text: string): Record<string, string> {
  const pairs = text.split("\n").flatMap((line) => {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    return match && !line.trimStart().startsWith("#") ? [[match[1]!, match[2]!] as const] : [];
  });
  return Object.fromEntries(pairs);
}

import { backupOrder } from "../services/backup-order.ts";
import type { Manifest } from "../shared/backup/manifest.ts";
import { restoreBackup } from "../shared/backup/restore.ts";
import { takeBackup } from "../shared/backup/take-backup.ts";
import { UsageError } from "./args.ts";

export const backupUsage = `usage: npx savepoint backup --out DIR [--data-dir DIR] [--json]
       npx savepoint restore DIR --data-dir DIR [--json]

  backup    copies the embedded deployment's stores while it serves (SQLite's VACUUM INTO, one read
            transaction each), the secrets their data needs, and a manifest (versions, row counts, SHA-256
            of every file) into --out, a new or empty folder. --data-dir defaults to SAVEPOINT_DATA_DIR, else ./data.
  restore   verifies every file of the backup against its manifest and copies it into --data-dir, a new or
            empty folder; start the server with SAVEPOINT_DATA_DIR set to it.

  Both run here, on the server's machine, without the admin API. The distributed deployment is backed up
  with its database's own tools (docs/backups.md).`;

/** `--name value` and `--name=value` pairs, and the words that are neither. */
function flags(args: string[], allowed: string[]): { values: Map<string, string>; words: string[]; json: boolean } {
  const values = new Map<string, string>();
  const words: string[] = [];
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--json") json = true;
    else if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (!allowed.includes(name)) throw new UsageError(`unknown flag --${name}\n\n${backupUsage}`);
      const value = inline ?? args[++i];
      if (!value || value.startsWith("--")) throw new UsageError(`--${name}: missing value (a folder)`);
      values.set(name, value);
    } else words.push(arg);
  }
  return { values, words, json };
}

const size = (bytes: number) => (bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MiB` : `${bytes} bytes`);
const rowsOf = (tables: Record<string, number>) => Object.values(tables).reduce((a, b) => a + b, 0);
const rows = (m: Manifest) =>
  m.databases.map(
    (d) => `  ${d.file.padEnd(20)} schema ${d.schemaVersion}  ${rowsOf(d.tables)} rows  ${size(d.bytes)}`,
  );

/** `backup` and `restore`: local commands, no server call. Returns the exit code. */
export function backupCommand(argv: string[]): number {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(backupUsage);
    return 0;
  }
  const backup = argv[0] === "backup";
  const { values, words, json } = flags(argv.slice(1), backup ? ["out", "data-dir"] : ["data-dir"]);
  if (backup ? words.length > 0 : words.length !== 1)
    throw new UsageError(`${argv[0]}: unexpected arguments\n\n${backupUsage}`);
  const dataDir = values.get("data-dir") ?? (backup ? process.env.SAVEPOINT_DATA_DIR || "./data" : undefined);
  const out = values.get("out");
  if (backup && !out) throw new UsageError(`backup: missing --out DIR (a new or empty folder)`);
  if (!dataDir) throw new UsageError(`restore: missing --data-dir DIR (a new or empty folder for the server's data)`);
  try {
    const manifest = backup
      ? takeBackup({ dataDir, outDir: out!, order: backupOrder })
      : restoreBackup(words[0]!, dataDir);
    if (json) console.log(JSON.stringify(manifest));
    else if (backup) {
      console.log(
        `Backed up ${manifest.databases.length} stores and ${manifest.secrets.length} secrets (${size(manifest.totalBytes)}) to ${out}:`,
      );
      const next = `Keep it somewhere else than this disk. Restore with: npx savepoint restore ${out} --data-dir <new folder>`;
      console.log([...rows(manifest), "", next].join("\n"));
    } else {
      console.log(
        `Restored the backup of ${manifest.finishedAt} (Savepoint ${manifest.server.version}) into ${dataDir}; every file matched its manifest:`,
      );
      console.log(
        [...rows(manifest), "", `Start the server on it: SAVEPOINT_DATA_DIR=${dataDir} npm start`].join("\n"),
      );
    }
    return 0;
  } catch (err) {
    // A refusal, or the file system's own error (no space left, no such folder): one line either way.
    console.error(`${argv[0]}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

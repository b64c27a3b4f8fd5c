import { Database } from "bun:sqlite";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { secretFingerprint } from "../process/secret-fingerprint.ts";
import { sharedSecrets } from "../process/secrets-file.ts";
import { makePrivateDir } from "../util/private-files.ts";
import {
  BackupError,
  type DatabaseEntry,
  type Manifest,
  type SecretEntry,
  sha256Of,
  syncToDisk,
  writeManifest,
} from "./manifest.ts";
import { snapshotDatabase } from "./snapshot.ts";

const serverVersion = (
  JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8")) as { version: string }
).version;

/** `dir` made owner-only, refused when it holds anything: a backup never mixes with other files. */
export function claimEmptyDir(dir: string, what: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new BackupError(`${what} ${dir} is not a folder`);
    if (readdirSync(dir).length > 0) throw new BackupError(`${what} ${dir} is not empty: name a new or empty folder`);
  }
  makePrivateDir(dir);
}

/** The fingerprint a store recorded for `variable`, in whichever copy holds one. */
function recordedFingerprint(copies: string[], variable: string): string | undefined {
  for (const file of copies) {
    const db = new Database(file, { readonly: true });
    try {
      const has = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'secretFingerprints'").get();
      const row = has
        ? db.query<{ doc: string }, [string]>("SELECT doc FROM secretFingerprints WHERE _id = ?").get(variable)
        : null;
      if (row) return (JSON.parse(row.doc) as { fingerprint: string }).fingerprint;
    } finally {
      db.close();
    }
  }
  return undefined;
}

/**
 * The secrets the copied data was hashed with travel with it: the embedded server's files in the data
 * folder, or the variables it was started with. Each must be the one the stores recorded, or a restore
 * would start with every identity link orphaned; a secret no store recorded is copied when present.
 */
function copySecrets(
  dataDir: string,
  outDir: string,
  copies: string[],
  env: Record<string, string | undefined>,
): SecretEntry[] {
  const entries: SecretEntry[] = [];
  for (const variable of sharedSecrets) {
    const file = variable.toLowerCase() as SecretEntry["file"];
    const inData = join(dataDir, file);
    // The server prefers the variable to the file (shared/process/service-secret.ts); the stores say which it used.
    const found = [env[variable]?.trim(), existsSync(inData) ? readFileSync(inData, "utf8").trim() : undefined].filter(
      (v): v is string => Boolean(v),
    );
    const recorded = recordedFingerprint(copies, variable);
    const value = recorded ? found.find((v) => secretFingerprint(v) === recorded) : found[0];
    if (!value) {
      if (!recorded) continue;
      const seen = found.length
        ? `the one found (fingerprint ${found.map(secretFingerprint).join(", ")}) is not it`
        : `neither ${inData} nor the variable holds it`;
      throw new BackupError(
        `${variable}: the stores were written with fingerprint ${recorded} and ${seen}: set ${variable} as the server has it`,
      );
    }
    const dest = join(outDir, file);
    writeFileSync(dest, value, { mode: 0o600, flag: "wx" });
    syncToDisk(dest);
    entries.push({
      variable,
      file,
      bytes: statSync(dest).size,
      sha256: sha256Of(dest),
      ...(recorded ? { fingerprint: recorded } : {}),
    });
  }
  return entries;
}

export interface BackupOptions {
  /** The embedded deployment's SAVEPOINT_DATA_DIR. */
  dataDir: string;
  /** A new or empty folder. */
  outDir: string;
  /** Services in the order their stores are copied (services/backup-order.ts). */
  order: readonly string[];
  /** Where a secret not kept in the data folder is read from (the server's own variables). */
  env?: Record<string, string | undefined>;
}

/** An online backup of the embedded deployment's data folder into `outDir`; returns its manifest (docs/backups.md). */
export function takeBackup({ dataDir, outDir, order, env = process.env }: BackupOptions): Manifest {
  const present = order.filter((service) => existsSync(join(dataDir, `${service}.sqlite`)));
  if (present.length === 0) {
    const hint = env.MONGODB_URL
      ? " (with MONGODB_URL the data is in MongoDB: back it up with mongodump, docs/backups.md)"
      : "";
    throw new BackupError(
      `${dataDir} holds no Savepoint store (${order[0]}.sqlite, ...): set SAVEPOINT_DATA_DIR or --data-dir${hint}`,
    );
  }
  const created = !existsSync(outDir);
  claimEmptyDir(outDir, "--out");
  try {
    const startedAt = new Date().toISOString();
    const databases: DatabaseEntry[] = present.map((s) =>
      snapshotDatabase(join(dataDir, `${s}.sqlite`), join(outDir, `${s}.sqlite`), s),
    );
    const secrets = copySecrets(
      dataDir,
      outDir,
      databases.map((d) => join(outDir, d.file)),
      env,
    );
    const totalBytes = [...databases, ...secrets].reduce((sum, f) => sum + f.bytes, 0);
    const manifest: Manifest = {
      format: "savepoint-backup",
      formatVersion: 1,
      server: { version: serverVersion },
      startedAt,
      finishedAt: new Date().toISOString(),
      databases,
      secrets,
      totalBytes,
    };
    writeManifest(outDir, manifest);
    return manifest;
  } catch (err) {
    // The folder was empty: whatever is in it now is this backup's, unfinished.
    for (const name of readdirSync(outDir)) rmSync(join(outDir, name), { force: true });
    if (created) rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
}

import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { BackupError, type Manifest, readManifest, sha256Of, syncToDisk } from "./manifest.ts";
import { inspectDatabase } from "./snapshot.ts";
import { claimEmptyDir } from "./take-backup.ts";

/** Every file the manifest lists, as it was written: size and SHA-256, then each store's integrity and row counts. */
export function verifyBackup(dir: string): Manifest {
  const manifest = readManifest(dir);
  for (const entry of [...manifest.databases, ...manifest.secrets]) {
    const path = join(dir, entry.file);
    if (!existsSync(path)) throw new BackupError(`${entry.file} is missing from the backup`);
    const bytes = statSync(path).size;
    const sha256 = sha256Of(path);
    if (bytes !== entry.bytes || sha256 !== entry.sha256) {
      const found = `sha256 ${sha256}, ${bytes} bytes; expected ${entry.sha256}, ${entry.bytes}`;
      throw new BackupError(
        `${entry.file} does not match the manifest (${found}): the backup was changed or damaged, not restored`,
      );
    }
  }
  for (const db of manifest.databases) {
    const { tables } = inspectDatabase(join(dir, db.file), db.service);
    if (JSON.stringify(tables) !== JSON.stringify(db.tables))
      throw new BackupError(`${db.file}: its row counts differ from the manifest's`);
  }
  return manifest;
}

/**
 * Restores the backup in `dir` into `dataDir`, a new or empty folder, after verifying every file
 * (docs/backups.md). The files land under temporary names and are renamed into place once copied and
 * checked again; a failure removes what was written. The server then starts on `dataDir` as it is.
 */
export function restoreBackup(dir: string, dataDir: string): Manifest {
  const manifest = verifyBackup(dir);
  claimEmptyDir(dataDir, "--data-dir");
  const written: string[] = [];
  try {
    for (const entry of [...manifest.databases, ...manifest.secrets]) {
      const dest = join(dataDir, entry.file);
      const partial = `${dest}.restoring`;
      written.push(partial, dest);
      copyFileSync(join(dir, entry.file), partial);
      chmodSync(partial, 0o600);
      syncToDisk(partial);
      if (sha256Of(partial) !== entry.sha256) {
        throw new BackupError(
          `${entry.file}: the copy in ${dataDir} differs from the backup (a disk fault?): not restored`,
        );
      }
      renameSync(partial, dest);
    }
    syncToDisk(dataDir);
  } catch (err) {
    for (const path of written) rmSync(path, { force: true });
    throw err;
  }
  return manifest;
}

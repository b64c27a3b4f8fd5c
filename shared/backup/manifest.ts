import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** A backup's one description, written last: a folder without it is not a finished backup. */
export const manifestFile = "manifest.json";

/** Names a manifest may give its files: plain names in the backup's own folder, never a path. */
const DatabaseFile = z.string().regex(/^[a-z0-9-]+\.sqlite$/, "a store's file name");
const SecretFile = z.enum(["savepoint_link_secret", "savepoint_transfer_secret"]);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const DatabaseEntry = z.object({
  service: z.string(),
  file: DatabaseFile,
  bytes: z.int().min(0),
  sha256: Sha256,
  /** When its read transaction began: every write committed before this is in the copy. */
  snapshotAt: z.iso.datetime(),
  /** The store's schema version (its `_meta` record); 0 when the store records none. */
  schemaVersion: z.int().min(0),
  /** SQLite's own `PRAGMA user_version` of the file. */
  userVersion: z.int(),
  /** Rows per table in the copy. */
  tables: z.record(z.string(), z.int().min(0)),
});
export type DatabaseEntry = z.infer<typeof DatabaseEntry>;

export const SecretEntry = z.object({
  variable: z.enum(["SAVEPOINT_LINK_SECRET", "SAVEPOINT_TRANSFER_SECRET"]),
  file: SecretFile,
  bytes: z.int().min(0),
  sha256: Sha256,
  /** The fingerprint the stores recorded for it (shared/process/secret-fingerprint.ts), never the secret. */
  fingerprint: z.string().optional(),
});
export type SecretEntry = z.infer<typeof SecretEntry>;

export const Manifest = z.object({
  format: z.literal("savepoint-backup"),
  formatVersion: z.literal(1),
  server: z.object({ version: z.string() }),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  /** The stores in the order they were copied (services/backup-order.ts). */
  databases: z.array(DatabaseEntry),
  secrets: z.array(SecretEntry),
  /** Bytes of every file the manifest lists. */
  totalBytes: z.int().min(0),
});
export type Manifest = z.infer<typeof Manifest>;

/** SHA-256 of a file, read in pieces: a store may be far larger than memory should hold. */
export function sha256Of(path: string): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, buffer, 0, buffer.length, null); n > 0; n = readSync(fd, buffer, 0, buffer.length, null))
      hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** Flushes a file or folder to disk: a backup that a power cut can undo is not one. */
export function syncToDisk(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes the manifest under a temporary name, then renames it into place: it appears whole or not at all. */
export function writeManifest(dir: string, manifest: Manifest): void {
  const partial = join(dir, `${manifestFile}.partial`);
  writeFileSync(partial, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  syncToDisk(partial);
  renameSync(partial, join(dir, manifestFile));
  syncToDisk(dir);
}

/** The manifest of the backup in `dir`, checked; throws a message for the operator. */
export function readManifest(dir: string): Manifest {
  let text: string;
  try {
    text = readFileSync(join(dir, manifestFile), "utf8");
  } catch {
    throw new BackupError(`${dir} has no ${manifestFile}: not a finished Savepoint backup`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BackupError(`${join(dir, manifestFile)} is not JSON: the backup is damaged`);
  }
  const manifest = Manifest.safeParse(parsed);
  if (!manifest.success) {
    const issue = manifest.error.issues[0]!;
    throw new BackupError(
      `${join(dir, manifestFile)} is not a Savepoint backup manifest (${issue.path.join(".") || "top"}: ${issue.message})`,
    );
  }
  return manifest.data;
}

/** A backup or restore refused, with one line saying why: the CLI prints it and exits 1. */
export class BackupError extends Error {
  override name = "BackupError";
}

import { Database } from "bun:sqlite";
import { chmodSync, chownSync, existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import { BackupError, type DatabaseEntry, sha256Of, syncToDisk } from "./manifest.ts";

/** What a copy holds: checked with SQLite's own integrity check, then counted table by table. */
export function inspectDatabase(
  file: string,
  service: string,
): Pick<DatabaseEntry, "schemaVersion" | "userVersion" | "tables"> {
  const db = new Database(file, { readonly: true, strict: true });
  try {
    const problems = db
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((r) => r.integrity_check);
    if (problems.join() !== "ok")
      throw new BackupError(`${basename(file)} fails SQLite's integrity check: ${problems.slice(0, 3).join("; ")}`);
    const names = db
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
      .map((r) => r.name);
    const tables: Record<string, number> = {};
    for (const name of names)
      tables[name] = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get()!.n;
    const userVersion = db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version;
    // The schema version each store records beside its data (docs/operating.md#upgrading); none before versions began.
    const meta = names.includes("_meta")
      ? db.query<{ doc: string }, [string]>("SELECT doc FROM _meta WHERE _id = ?").get(`schema:${service}`)
      : null;
    const schemaVersion = meta ? Number((JSON.parse(meta.doc) as { version?: number }).version ?? 0) : 0;
    return { schemaVersion, userVersion, tables };
  } finally {
    db.close();
  }
}

/**
 * Copies the live store `source` to `dest` with SQLite's VACUUM INTO: one read transaction, so the copy
 * is the database as of one commit, taken while the server goes on writing (WAL lets a reader and the
 * writer run together). The connection is read-only: the backup can never write to the live store.
 */
export function snapshotDatabase(source: string, dest: string, service: string): DatabaseEntry {
  const companions = [`${source}-wal`, `${source}-shm`].filter((f) => !existsSync(f));
  const db = new Database(source, { readonly: true, strict: true });
  let snapshotAt: string;
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    snapshotAt = new Date().toISOString();
    db.query("VACUUM INTO ?").run(dest);
  } finally {
    db.close();
    // With the server stopped, the read-only connection leaves the -wal and -shm files it made: run as
    // root, they must still be the data's owner's, or the server could not open its own store.
    const owner = statSync(source);
    for (const f of companions) if (existsSync(f) && process.getuid?.() === 0) chownSync(f, owner.uid, owner.gid);
  }
  // VACUUM INTO does not sync what it wrote.
  chmodSync(dest, 0o600);
  syncToDisk(dest);
  return {
    service,
    file: basename(dest),
    bytes: statSync(dest).size,
    sha256: sha256Of(dest),
    snapshotAt,
    ...inspectDatabase(dest, service),
  };
}

import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";

/**
 * The data directory and its files hold every player's saves and the services' secrets: only their
 * owner may read them. Modes are set with chmod after creation, so a permissive umask cannot widen
 * them; a directory or file that already exists keeps the mode its operator gave it.
 */
export function makePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created) chmodSync(dir, 0o700);
}

/** Creates `file` empty and owner-only (600) unless it exists. */
export function makePrivateFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return;
    throw err;
  }
  closeSync(fd);
  chmodSync(file, 0o600);
}

import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/** The login name of `uid` from /etc/passwd; undefined where there is none. */
function passwdName(uid: number): string | undefined {
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.split(":")[2] === String(uid));
    return line?.split(":")[0] || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who the audit log names for a CLI change (docs/console.md): `cli:<login>`. $USER is unset in cron
 * jobs and many containers, and Bun's os.userInfo() reads it too, so the account is looked up by uid,
 * and named by uid and host where it has no name.
 */
export function cliActor(): string {
  const uid = process.getuid?.();
  const name = process.env.USER || process.env.LOGNAME || (uid === undefined ? undefined : passwdName(uid));
  return `cli:${name ?? `uid ${uid ?? "?"}@${hostname()}`}`;
}

import { readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readManifest } from "../shared/backup/manifest.ts";
import type { BackupStatus } from "../shared/contract/operations.ts";
import type { Logger } from "../shared/observe/log.ts";
import { metrics } from "../shared/observe/metrics.ts";
import type { Env } from "../shared/process/env.ts";
import { makePrivateDir } from "../shared/util/private-files.ts";

const cli = join(import.meta.dir, "..", "cli", "main.ts");
/** A finished scheduled backup's folder: its name sorts by time. */
const finished = /^savepoint-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;
const nameAt = (at: Date) => `savepoint-${at.toISOString().replace(/[:.]/g, "-")}`;

/**
 * Backups for self-hosters who forget cron (docs/backups.md): with SAVEPOINT_BACKUP_DIR set, the
 * embedded server backs its data folder up every SAVEPOINT_BACKUP_INTERVAL_MINUTES and keeps the newest
 * SAVEPOINT_BACKUP_KEEP. Each runs `npx savepoint backup` in a child process: VACUUM INTO is synchronous,
 * and in this process it would stop every request while it copies. A backup goes to a `.partial` folder
 * renamed when whole, so a crash never leaves one that looks finished. The first is due one interval after
 * start: a server restarting in a loop must not rotate the good backups out.
 */
export function startBackupSchedule(env: Env, log: Logger) {
  const dir = env.SAVEPOINT_BACKUP_DIR;
  if (!dir) return undefined;
  if (env.MONGODB_URL) {
    throw new Error(
      "SAVEPOINT_BACKUP_DIR: scheduled backups copy the embedded SQLite files; back MongoDB up with its own tools (docs/backups.md)",
    );
  }
  makePrivateDir(dir);
  const status: BackupStatus = {
    intervalMinutes: env.SAVEPOINT_BACKUP_INTERVAL_MINUTES,
    keep: env.SAVEPOINT_BACKUP_KEEP,
    ok: 0,
    failed: 0,
  };
  let child: Bun.Subprocess<"ignore", "ignore", "pipe"> | undefined;
  let stopped = false;

  const rotate = () => {
    const kept = readdirSync(dir)
      .filter((name) => finished.test(name))
      .sort();
    for (const name of kept.slice(0, Math.max(0, kept.length - status.keep)))
      rmSync(join(dir, name), { recursive: true, force: true });
    // A backup cut short by a crash or a stop: never finished, never restorable.
    for (const name of readdirSync(dir))
      if (name.endsWith(".partial")) rmSync(join(dir, name), { recursive: true, force: true });
  };

  const runOnce = async () => {
    const name = nameAt(new Date());
    const partial = join(dir, `${name}.partial`);
    const args = [process.execPath, cli, "backup", "--out", partial, "--data-dir", env.SAVEPOINT_DATA_DIR];
    child = Bun.spawn(args, { stdout: "ignore", stderr: "pipe", env: process.env });
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    child = undefined;
    if (stopped) return;
    try {
      if (code !== 0) throw new Error(stderr.trim().split("\n").at(-1) || `exit code ${code}`);
      renameSync(partial, join(dir, name));
      const manifest = readManifest(join(dir, name));
      status.ok++;
      status.lastAt = manifest.finishedAt;
      status.lastBytes = manifest.totalBytes;
      metrics.backups.inc({ outcome: "ok" });
      metrics.backupLastSuccess.set(Date.parse(manifest.finishedAt) / 1000);
      metrics.backupLastBytes.set(manifest.totalBytes);
      log.info("backup written", { backup: name, bytes: manifest.totalBytes, stores: manifest.databases.length });
    } catch (err) {
      status.failed++;
      status.lastFailureAt = new Date().toISOString();
      metrics.backups.inc({ outcome: "failed" });
      metrics.backupLastFailure.set(Date.now() / 1000);
      log.error("backup failed", { backup: name, err: err instanceof Error ? err.message : String(err) });
    }
    try {
      rotate();
    } catch (err) {
      log.error("backup rotation failed", { err: err instanceof Error ? err.message : String(err) });
    }
  };

  // One at a time: the next is due an interval after the last one ended, never while it runs.
  let timer: Timer | undefined;
  const schedule = () => {
    if (!stopped) timer = setTimeout(() => void runOnce().finally(schedule), status.intervalMinutes * 60_000);
  };
  schedule();
  log.info("scheduled backups on", { intervalMinutes: status.intervalMinutes, keep: status.keep });

  return {
    status: (): BackupStatus => ({ ...status }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      const running = child;
      if (running) {
        running.kill();
        await running.exited;
      }
      try {
        rotate();
      } catch {}
    },
  };
}

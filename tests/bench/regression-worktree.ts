import { mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The baseline of BENCH_BASELINE=<git ref>: that commit checked out in a temporary git worktree, with this
 * checkout's node_modules linked in (the baseline is only the server; it runs on the installed packages).
 * The worktree is removed when `use` ends, when it throws, and when the process exits early (a signal:
 * tests/helpers/infra.ts turns SIGINT and SIGTERM into an exit, after stopping the servers it started).
 */
export async function withBaselineCheckout<T>(
  root: string,
  ref: string,
  use: (dir: string, commit: string) => Promise<T>,
): Promise<T> {
  const git = (...args: string[]) => {
    const run = Bun.spawnSync(["git", "-C", root, ...args], { stdout: "pipe", stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString().trim()}`);
    return run.stdout.toString().trim();
  };
  const commit = git("rev-parse", "--verify", "--quiet", `${ref}^{commit}`);
  const parent = mkdtempSync(join(tmpdir(), "savepoint-bench-baseline-"));
  const dir = join(parent, "checkout");
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    // The link first: the worktree's removal must not reach the shared install behind it.
    try {
      unlinkSync(join(dir, "node_modules"));
    } catch {}
    Bun.spawnSync(["git", "-C", root, "worktree", "remove", "--force", dir], { stdout: "ignore", stderr: "ignore" });
    Bun.spawnSync(["git", "-C", root, "worktree", "prune"], { stdout: "ignore", stderr: "ignore" });
    rmSync(parent, { recursive: true, force: true });
  };
  process.on("exit", remove);
  try {
    git("worktree", "add", "--detach", dir, commit);
    symlinkSync(realpathSync(join(root, "node_modules")), join(dir, "node_modules"));
    return await use(dir, commit);
  } finally {
    remove();
    process.off("exit", remove);
  }
}

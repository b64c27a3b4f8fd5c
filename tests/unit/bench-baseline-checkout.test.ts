import { expect, test } from "bun:test";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { withBaselineCheckout } from "../bench/regression-worktree.ts";

/**
 * BENCH_BASELINE's checkout (tests/bench/regression-worktree.ts): the commit in a temporary git worktree
 * with this checkout's node_modules linked in, and gone afterwards, also when the run fails.
 */
const root = join(import.meta.dir, "..", "..");
const worktrees = () => Bun.spawnSync(["git", "-C", root, "worktree", "list", "--porcelain"]).stdout.toString();

test("the baseline is checked out with node_modules linked, and removed when its use throws", async () => {
  const head = Bun.spawnSync(["git", "-C", root, "rev-parse", "HEAD~1"]).stdout.toString().trim();
  let seen = "";
  const failed = withBaselineCheckout(root, "HEAD~1", async (dir, commit) => {
    seen = dir;
    expect(commit).toBe(head);
    expect(existsSync(join(dir, "services", "main.ts"))).toBe(true);
    expect(lstatSync(join(dir, "node_modules")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "node_modules"))).toBe(realpathSync(join(root, "node_modules")));
    expect(worktrees()).toContain(dir);
    throw new Error("the measuring failed");
  });
  await expect(failed).rejects.toThrow("the measuring failed");
  expect(seen).not.toBe("");
  expect(existsSync(seen)).toBe(false);
  expect(worktrees()).not.toContain(seen);
  // The shared install behind the link is untouched.
  expect(existsSync(join(root, "node_modules", "typescript"))).toBe(true);
}, 60_000);

test("a ref that names no commit stops the run before any checkout", async () => {
  let used = false;
  const run = withBaselineCheckout(root, "no-such-ref-30", async () => {
    used = true;
    return 0;
  });
  await expect(run).rejects.toThrow(/rev-parse .*no-such-ref-30/);
  expect(used).toBe(false);
});

import { FollowerFailedError, type Write } from "../../shared/store/port.ts";
import { byteLength, type Counted, countBytes, gone } from "./account-bytes.ts";
import type { Deps } from "./deps.ts";
import { giveBackSpare, keptSpare } from "./environment-budget.ts";
import type { SnapshotDoc } from "./repo.ts";

/**
 * Deletes one snapshot and gives its bytes back to its account. Only the delete that removed it
 * counts them, so concurrent evictions, trims, pruning and cleanup never count one twice. An account
 * not counted yet (written before counts) is left so: its first write counts what is left.
 */
export async function dropSnapshot(deps: Deps, s: SnapshotDoc): Promise<number> {
  const account = await deps.repo.accounts.get(s.accountId);
  return (await drop(deps, s, account?.storedBytes != null ? account : null)) === null ? 0 : byteLength(s.payload);
}

/** As dropSnapshot (`account` null when not counted); the account's count after it, or null when another delete was first. */
export async function drop(deps: Deps, s: SnapshotDoc, account: Counted | null): Promise<number | null> {
  if ((await deps.repo.snapshots.delete({ _id: s._id })) === 0) return null;
  if (!account) return 0;
  // Its bytes stay reserved from the environment, unless the account now holds too many unused.
  const after = await deps.repo.accounts.increment(s.accountId, "storedBytes", -byteLength(s.payload), gone);
  if ((after.envReserved ?? 0) - (after.storedBytes ?? 0) > 2 * keptSpare) await giveBackSpare(deps, s.accountId);
  return after.storedBytes ?? 0;
}

/** What an eviction frees beyond the write that needed it: a full account then writes on a while before the next one. */
const slackOf = (budget: number) => Math.floor(budget / 16);
/** The most restore points one eviction step deletes, in one commit on SQLite. */
const evictBatch = 16;

/**
 * Deletes the account's oldest restore points, across its slots and accountData, until what its
 * count (`stored`) plus `adding` passed `budget` by is freed, and a sixteenth of the budget more;
 * false when none is left before the write fits. What concurrent writes add meanwhile is left to
 * their own `settle`, so one eviction never chases them. Each step's deletes ride on one write to
 * the account (its `evictedAt`), each counted only if it removed its snapshot, so a concurrent
 * eviction elsewhere never counts one twice.
 */
async function evictUntilFits(
  deps: Deps,
  account: Counted,
  budget: number,
  adding: number,
  stored: number,
): Promise<boolean> {
  const accountId = account._id;
  const { snapshots } = deps.repo;
  let excess = stored + adding - (budget - slackOf(budget));
  while (excess > 0) {
    const oldest = await snapshots.find(
      { accountId },
      { sort: { field: "createdAt", direction: 1 }, limit: evictBatch },
    );
    if (oldest.length === 0) return ((await deps.repo.accounts.get(accountId))?.storedBytes ?? 0) + adding <= budget;
    const batch = oldest.filter((s) => {
      const take = excess > 0;
      excess -= byteLength(s.payload);
      return take;
    });
    const deletes = batch.map(
      (s): Write => ({
        delete: { _id: s._id },
        from: snapshots,
        ifDeleted: countBytes(deps, account, -byteLength(s.payload)),
      }),
    );
    await deps.repo.accounts
      .update({ _id: accountId }, { evictedAt: deps.now().toISOString() }, deletes)
      .catch((err) => {
        // MongoDB: the deletes after the one that failed wait for the next eviction.
        if (!(err instanceof FollowerFailedError)) throw err;
      });
  }
  return true;
}

/** Evictions under way in this process, by account: one at a time. */
const evicting = new Map<string, Promise<boolean>>();

/**
 * evictUntilFits, one at a time per account in this process. A write about to be made does not wait
 * for a running one (its `settle` will look again); a settling write waits, then looks again.
 */
export async function evict(
  deps: Deps,
  account: Counted,
  budget: number,
  adding: number,
  stored: number,
  settling = false,
): Promise<boolean> {
  const accountId = account._id;
  const running = evicting.get(accountId);
  if (running && !settling) return true;
  if (running) {
    await running.catch(() => {});
    stored = (await deps.repo.accounts.get(accountId))?.storedBytes ?? 0;
    if (evicting.has(accountId)) return true; // another settling write went first
  }
  if (stored + adding <= budget) return true;
  const run = evictUntilFits(deps, account, budget, adding, stored).finally(() => evicting.delete(accountId));
  evicting.set(accountId, run);
  return run;
}

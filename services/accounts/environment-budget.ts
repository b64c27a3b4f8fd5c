import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { BudgetExceededError, DuplicateKeyError, type Write } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";

/**
 * What one environment's accounts store together: the sum of their `storedBytes` and `currentBytes`
 * (storage.ts), moved by the same followers, in the same commits, as each account's own counts.
 */
export type AccountUsageDoc = { _id: string; storedBytes: number; currentBytes: number };

/**
 * The follower that moves the environment's count with an account's. With `atMost` (a write that grows
 * what the accounts store), the write happens only while the count stays within it (port.ts, Write).
 */
export const envCount = (deps: Deps, envId: string, stored: number, current: number, atMost?: number): Write => ({
  increment: envId,
  by: current === 0 ? { storedBytes: stored } : { storedBytes: stored, currentBytes: current },
  init: {},
  in: deps.repo.usage,
  ...(atMost === undefined ? {} : { atMost: { storedBytes: atMost } }),
});

/** Environments whose count each service instance (by its repo) has seen: each costs one read, once. */
const seen = new WeakMap<object, Set<string>>();

/**
 * An environment counted from before this count existed gets it from its accounts' own counts, once
 * (an account not counted yet adds itself when its count starts). Then the followers move it.
 */
export async function ensureEnvCount(deps: Deps, envId: string): Promise<void> {
  let known = seen.get(deps.repo);
  if (!known) seen.set(deps.repo, (known = new Set()));
  if (known.has(envId)) return;
  if (!(await deps.repo.usage.get(envId))) {
    const sum = { storedBytes: 0, currentBytes: 0 };
    for (let skip = 0; ; skip += 100) {
      const page = await deps.repo.accounts.find({ envId }, { sort: { field: "_id", direction: 1 }, skip, limit: 100 });
      for (const a of page) {
        sum.storedBytes += a.storedBytes ?? 0;
        sum.currentBytes += a.currentBytes ?? 0;
      }
      if (page.length < 100) break;
    }
    await deps.repo.usage.insert({ _id: envId, ...sum }).catch((err) => {
      if (!(err instanceof DuplicateKeyError)) throw err; // another copy counted first
    });
  }
  known.add(envId);
}

/** The 409 of a write the environment's accounts have no room for (README, Storage budgets). */
export function environmentRefusal(deps: Deps, plan: PlanName, err: BudgetExceededError) {
  const used = Number(err.counter.storedBytes ?? 0);
  const current = Number(err.counter.currentBytes ?? 0);
  const budgetBytes = deps.plans[plan].storage.bytesPerEnvironmentAccounts;
  const details = { budgetBytes, usedBytes: used, currentStateBytes: current, historyBytes: used - current, requiredBytes: used + (err.by.storedBytes ?? 0) };
  return fail.storageQuotaExceeded({ scope: "environment_accounts", ...details });
}

/**
 * A write under the environment's budget: first with its restore points; when they do not fit, again
 * without them (the player's state matters more than its history); when even that does not fit, the
 * 409. `write` builds and commits the whole write each time, so a refused attempt left nothing behind.
 */
export async function withinEnvironment<R>(deps: Deps, plan: PlanName, write: (noHistory: boolean) => Promise<R>): Promise<R> {
  try {
    return await write(false);
  } catch (err) {
    if (!(err instanceof BudgetExceededError)) throw err;
  }
  try {
    return await write(true);
  } catch (err) {
    throw err instanceof BudgetExceededError ? environmentRefusal(deps, plan, err) : err;
  }
}

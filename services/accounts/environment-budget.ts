import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { BudgetExceededError, DuplicateKeyError, type Write } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import type { AccountDoc } from "./repo.ts";

/**
 * What one environment's accounts hold reserved from its budget together: the sum of their
 * `envReserved` (docs/plans-and-limits.md#storage-budgets). An account's writes spend its own reservation and touch this
 * document only to reserve more, a chunk at a time, or to give back. `storedBytes` and `currentBytes`
 * on documents written before reservations are no longer moved.
 */
export type AccountUsageDoc = { _id: string; reservedBytes?: number };

const KiB = 1024;
/**
 * The most an account reserves beyond what a write needs: growths within it cost no write to the
 * environment's document (on FerretDB a lease and three commands, and one writer at a time per
 * environment). A thousandth of a small budget at most, so a few hundred accounts' unused reservations
 * never hold most of it.
 */
export const chunkOf = (deps: Deps, plan: PlanName) =>
  Math.min(64 * KiB, Math.floor(deps.plans[plan].storage.bytesPerEnvironmentAccounts / 1024));
/** An account holding more than twice this unused (after a shrink) gives back down to this. */
export const keptSpare = 64 * KiB;

/** The follower that moves the environment's reservations; with `atMost`, only while they stay within it (port.ts, Write). */
export const envReserve = (deps: Deps, envId: string, by: number, atMost?: number): Write => ({
  increment: envId,
  by: { reservedBytes: by },
  init: {},
  in: deps.repo.usage,
  ...(atMost === undefined ? {} : { atMost: { reservedBytes: atMost } }),
});

/** Environments whose count each service instance (by its repo) has seen: each costs one read, once. */
const seen = new WeakMap<object, Set<string>>();

/**
 * An environment counted before reservations gets its count from its accounts, once: each holds its
 * `envReserved`, or its `storedBytes` until its first write after the upgrade reserves them (adopt).
 * An account not counted at all yet adds itself when its count starts (account-bytes.ts). The conditional
 * write leaves a count another copy set meanwhile in place.
 */
export async function ensureEnvCount(deps: Deps, envId: string): Promise<void> {
  let known = seen.get(deps.repo);
  if (!known) {
    known = new Set();
    seen.set(deps.repo, known);
  }
  if (known.has(envId)) return;
  const doc = await deps.repo.usage.get(envId);
  if (doc?.reservedBytes == null) {
    let sum = 0;
    for (let skip = 0; ; skip += 100) {
      const page = await deps.repo.accounts.find({ envId }, { sort: { field: "_id", direction: 1 }, skip, limit: 100 });
      for (const a of page) sum += a.envReserved ?? a.storedBytes ?? 0;
      if (page.length < 100) break;
    }
    const set = () => deps.repo.usage.update({ _id: envId, reservedBytes: null }, { reservedBytes: sum });
    if (doc) await set();
    else
      await deps.repo.usage.insert({ _id: envId, reservedBytes: sum }).catch(async (err) => {
        if (!(err instanceof DuplicateKeyError)) throw err;
        await set(); // another copy wrote it first
      });
  }
  known.add(envId);
}

/**
 * An account counted before reservations holds its `storedBytes` (ensureEnvCount counted them): its
 * first write after the upgrade records that, once. Bytes it dropped between the recount and this stay
 * reserved in the environment's count (high, never low).
 */
export async function adopt(deps: Deps, account: AccountDoc): Promise<AccountDoc> {
  for (let a: AccountDoc | null = account, round = 0; a && round < 10; round++) {
    if (a.envReserved != null || a.storedBytes == null) return a;
    const set = await deps.repo.accounts.update(
      { _id: a._id, envReserved: null, storedBytes: a.storedBytes },
      { envReserved: a.storedBytes },
    );
    a = set ?? (await deps.repo.accounts.get(a._id));
  }
  throw new Error(`account ${account._id}: its count kept changing while its reservation was recorded`);
}

/**
 * A shrink keeps its bytes reserved unless the account then holds more than twice `keptSpare` unused:
 * it gives back down to `keptSpare`, conditional on the counts read, so a write counted meanwhile
 * leaves it for the next shrink. Rare: costs a read and a write.
 */
export async function giveBackSpare(deps: Deps, accountId: string): Promise<void> {
  const a = await deps.repo.accounts.get(accountId);
  if (!a || a.envReserved == null || a.storedBytes == null || a.envReserved - a.storedBytes <= 2 * keptSpare) return;
  await ensureEnvCount(deps, a.envId);
  const back = a.envReserved - a.storedBytes - keptSpare;
  const filter = { _id: accountId, envReserved: a.envReserved, storedBytes: a.storedBytes };
  await deps.repo.accounts.update(filter, { envReserved: a.envReserved - back }, [envReserve(deps, a.envId, -back)]);
}

/**
 * The 409 of a write the environment has no room for (docs/plans-and-limits.md#storage-budgets). Its count holds
 * reservations, not what is stored, so `usedBytes` is the bytes reserved, all of them counted as
 * current state, as for saves: the split into history is not known per environment.
 */
export function environmentRefusal(deps: Deps, plan: PlanName, err: BudgetExceededError) {
  const used = Number(err.counter.reservedBytes ?? 0);
  const budgetBytes = deps.plans[plan].storage.bytesPerEnvironmentAccounts;
  const details = {
    budgetBytes,
    usedBytes: used,
    currentStateBytes: used,
    historyBytes: 0,
    requiredBytes: used + (err.by.reservedBytes ?? 0),
  };
  return fail.storageQuotaExceeded({ scope: "environment_accounts", ...details });
}

/**
 * How a write reserves from its environment: a chunk ahead with its restore points; when that does not
 * fit, exactly what it needs; then exactly what it needs without its restore points.
 */
export type EnvTry = "chunk" | "exact" | "noHistory";

/**
 * A write under the environment's budget, tried as EnvTry says until one fits (the player's state
 * matters more than its history); when none does, the 409. `write` builds and commits the whole write
 * each time, so a refused attempt left nothing behind.
 */
export async function withinEnvironment<R>(
  deps: Deps,
  plan: PlanName,
  write: (envTry: EnvTry) => Promise<R>,
): Promise<R> {
  for (const envTry of ["chunk", "exact"] as const) {
    try {
      return await write(envTry);
    } catch (err) {
      if (!(err instanceof BudgetExceededError)) throw err;
    }
  }
  try {
    return await write("noHistory");
  } catch (err) {
    throw err instanceof BudgetExceededError ? environmentRefusal(deps, plan, err) : err;
  }
}

import type { z } from "zod";
import type { AccountsOverviewRequest } from "../../../shared/contract/overview.ts";
import type { Deps } from "../deps.ts";
import type { AccountDoc } from "../repo.ts";

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * An account's day marks (docs/api-rules.md#overview): `activeDay` moves to today at the first session
 * resolve of the day (one conditional write per account and day, of concurrent resolves one writes),
 * `createdDay` is set once. Indexed with the environment, the dashboard counts them without a scan.
 */
export const dayMarksOf = (at: Date) => ({ activeDay: dayOf(at), createdDay: dayOf(at) });

export async function markActive(deps: Deps, account: AccountDoc, at: Date): Promise<void> {
  const today = dayOf(at);
  if (account.activeDay === today) return;
  await deps.repo.accounts.update({ _id: account._id, activeDay: account.activeDay ?? null }, { activeDay: today });
}

/** `accounts.overview`: an environment's players today and since yesterday, its largest accounts, the dead letters. */
export async function accountsOverview(deps: Deps, q: z.infer<typeof AccountsOverviewRequest>) {
  const { accounts, deadLetters } = deps.repo;
  const now = deps.now();
  const today = dayOf(now);
  const yesterday = dayOf(new Date(now.getTime() - 86_400_000));
  const [activeToday, activeYesterday, newToday, newYesterday, largest, dead] = await Promise.all([
    accounts.count({ envId: q.envId, activeDay: today }),
    accounts.count({ envId: q.envId, activeDay: yesterday }),
    accounts.count({ envId: q.envId, createdDay: today }),
    accounts.count({ envId: q.envId, createdDay: yesterday }),
    accounts.find({ envId: q.envId }, { sort: { field: "storedBytes", direction: -1 }, limit: q.top }),
    deadLetters.count({}),
  ]);
  return {
    activeToday,
    activeSinceYesterday: activeToday + activeYesterday,
    newToday,
    newSinceYesterday: newToday + newYesterday,
    largestAccounts: largest
      .filter((a) => (a.storedBytes ?? 0) > 0)
      .map((a) => ({
        accountId: a._id,
        ...(a.playerRef !== undefined ? { playerRef: a.playerRef } : {}),
        storedBytes: a.storedBytes ?? 0,
        currentBytes: a.currentBytes ?? 0,
      })),
    deadLetters: dead,
  };
}

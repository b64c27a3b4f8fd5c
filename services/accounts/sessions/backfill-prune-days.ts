import type { Deps } from "../deps.ts";
import { keptForever } from "./prune-sessions.ts";
import { deadlineOf, revokedPruneDay } from "./sessions.ts";

/** Sessions stored before prune days existed, given theirs per round: a large backlog never loads at once. */
const backfillPage = 100;

/**
 * Gives sessions stored before prune days existed theirs (the hourly pruning runs this first): a
 * revoked one 30 days from its revocation, or kept for good when its account is deleted; a live one
 * from its last use and the longest `sessionIdleDays`, its project's setting being unknown here (kept
 * too long is the safe mistake). Returns how many it dated.
 */
export async function backfillPruneDays(deps: Deps): Promise<number> {
  const { repo } = deps;
  let dated = 0;
  let previous: string | undefined;
  for (;;) {
    const legacy = await repo.sessions.find({ pruneDay: null }, { limit: backfillPage });
    // The same first one again means the store did not take the update: stop rather than loop.
    if (legacy.length === 0 || legacy[0]!._id === previous) return dated;
    previous = legacy[0]!._id;
    for (const s of legacy) {
      const deleted = s.revokedAt && (await repo.accounts.get(s.accountId))?.status === "deleted";
      const lastUse = new Date(s.lastUsedAt ?? s.createdAt);
      const day = deleted
        ? keptForever
        : s.revokedAt
          ? revokedPruneDay(new Date(s.revokedAt))
          : deadlineOf(lastUse, undefined).pruneDay;
      await repo.sessions.update({ _id: s._id, pruneDay: null }, { pruneDay: day });
    }
    dated += legacy.length;
  }
}

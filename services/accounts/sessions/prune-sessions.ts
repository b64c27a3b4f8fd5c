import type { Collection } from "../../../shared/store/port.ts";
import { deleteDaysBefore } from "../../../shared/store/prune-days.ts";
import type { SessionDoc } from "../repo.ts";

/** A deleted account's sessions: never pruned, so they answer 410 (a day no today reaches). */
export const keptForever = "9999-12-31";

// The first session opened each day (per collection and process) prunes; the accounts service's
// hourly pruning does too (prune-snapshots.ts), for days when nobody signs in.
const prunedOn = new WeakMap<Collection<SessionDoc>, string>();

/**
 * Deletes the sessions whose prune day has passed: each was signed out, revoked or expired at least
 * `sessionRetentionDays` before (sessions.ts), and its token has answered so since; from now on it is
 * unknown (401 `unauthorized`). A deleted account's sessions stay (`keptForever`).
 */
export async function pruneSessions(sessions: Collection<SessionDoc>, now: Date): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  prunedOn.set(sessions, today);
  return deleteDaysBefore(sessions, "pruneDay", today);
}

export async function pruneSessionsOncePerDay(sessions: Collection<SessionDoc>, now: Date): Promise<void> {
  if (prunedOn.get(sessions) !== now.toISOString().slice(0, 10)) await pruneSessions(sessions, now);
}

import { DuplicateKeyError } from "../../shared/store/port.ts";
import { dayAfter, deleteDaysBefore } from "../../shared/store/prune-days.ts";
import type { Deps } from "./deps.ts";

/**
 * Records a console sign-out (docs/console.md). The cookie is signed, not stored, so a copy of it
 * would stay valid until it expires: this list makes every gateway copy refuse it at once. Entries
 * outlive the cookie by a day and are then pruned, a day at a time.
 */
export async function consoleSignOut(deps: Deps, sid: string, expiresAt: number) {
  await deps.repo.consoleSignOuts.insert({ _id: sid, day: dayAfter(new Date(expiresAt)) }).catch((err) => {
    if (!(err instanceof DuplicateKeyError)) throw err; // signed out twice: once is enough
  });
  await deleteDaysBefore(deps.repo.consoleSignOuts, "day", deps.now().toISOString().slice(0, 10));
  return { signedOut: true as const };
}

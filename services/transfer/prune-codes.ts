import type { Collection } from "../../shared/store/port.ts";
import { deleteDaysBefore } from "../../shared/store/prune-days.ts";
import type { TransferCodeDoc } from "./repo.ts";

// The first code created each day (per collection and process) prunes: a scan per create is not needed.
const prunedOn = new WeakMap<Collection<TransferCodeDoc>, string>();

/**
 * Deletes the codes whose prune day has passed: by then each is consumed, expired or retired, and a
 * day past its expiry, so "already consumed" has been answered for at least 24 h (docs/using-the-api.md#what-the-api-accepts).
 */
export async function pruneCodesOncePerDay(codes: Collection<TransferCodeDoc>, now: Date): Promise<void> {
  const today = now.toISOString().slice(0, 10);
  if (prunedOn.get(codes) === today) return;
  prunedOn.set(codes, today);
  await deleteDaysBefore(codes, "pruneDay", today);
}

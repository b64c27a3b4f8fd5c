import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import { DuplicateKeyError, type Write } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import type { SaveUsageDoc } from "./repo.ts";

/** Stored bytes of a save (its metadata and state): what the environment's budget counts. */
export const saveBytes = (d: { metadata: string; state: string }) =>
  Buffer.byteLength(d.metadata, "utf8") + Buffer.byteLength(d.state, "utf8");

/**
 * The plan's budget for one environment's saves (docs/plans-and-limits.md#storage-budgets): a write that grows them
 * past it is refused with `storage_quota_exceeded`; one that shrinks them always passes. Returns the
 * follower that counts the write's bytes in its commit. Concurrent writers checked against the same
 * count may pass the budget by their own sizes together.
 */
export function saveBudget(
  deps: Deps,
  plan: PlanName,
  envId: string,
  usage: SaveUsageDoc | null,
  growth: number,
): Write {
  const budget = deps.plans[plan].storage.bytesPerEnvironmentSaves;
  const used = usage?.bytes ?? 0;
  if (growth > 0 && used + growth > budget) {
    // The budget counts current states; restore points are bounded by the plan's count and days.
    const details = {
      budgetBytes: budget,
      usedBytes: used,
      currentStateBytes: used,
      historyBytes: 0,
      requiredBytes: used + growth,
    };
    throw fail.storageQuotaExceeded({ scope: "environment", ...details });
  }
  return { increment: envId, by: { bytes: growth }, init: {}, in: deps.repo.usage };
}

/**
 * The environment's count; one whose saves were written before saves were counted gets it from a
 * recount, once (the first write of a new environment counts nothing).
 */
export async function usageOf(deps: Deps, envId: string, usage: SaveUsageDoc | null): Promise<SaveUsageDoc> {
  if (usage) return usage;
  let bytes = 0;
  for (let skip = 0; ; skip += 100) {
    const page = await deps.repo.saves.find({ envId }, { sort: { field: "_id", direction: 1 }, skip, limit: 100 });
    for (const s of page) bytes += saveBytes(s);
    if (page.length < 100) break;
  }
  try {
    await deps.repo.usage.insert({ _id: envId, bytes });
    return { _id: envId, bytes };
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    return (await deps.repo.usage.get(envId)) ?? { _id: envId, bytes };
  }
}

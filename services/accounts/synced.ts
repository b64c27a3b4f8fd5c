import { type History, mostGenerous } from "../../shared/synced/restore-points.ts";
import type { Deps } from "./deps.ts";
import type { SnapshotDoc } from "./repo.ts";

/**
 * accountData and slots as synced documents (shared/synced/): their restore points share one collection,
 * each recorded with its account, and a history that recorded no plan is kept under the most generous.
 * Their budget rule is the account's and its environment's (storage.ts, environment-budget.ts).
 */
export const accountPoints = (deps: Deps): History<SnapshotDoc> => ({
  points: deps.repo.snapshots,
  plans: deps.plans,
  now: deps.now,
  unrecordedPlan: mostGenerous(deps.plans),
});

import type { z } from "zod";
import type { SnapshotList } from "../../shared/contract/admin.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { PlanCatalog, PlanName } from "../../shared/plans.ts";
import type { Deps } from "./deps.ts";
import type { SnapshotDoc } from "./repo.ts";

/** The operator's history answer (admin.ts declares the schema only). */
export type SnapshotListing = z.infer<typeof SnapshotList>;

/** Whose restore points: an account (its accountData) or a slot document, with its snapshot sequence. */
export type HistoryOwner = { _id: string; snapshotSeq: number };

/** Snapshots read per page: payloads can be 272 KiB each, so never a whole history at once. */
const pageSize = 50;

/** The catalog's plan that keeps the most: it never hides or trims a restore point another plan keeps. */
function mostGenerous(plans: PlanCatalog): PlanName {
  const names = Object.keys(plans) as PlanName[];
  return names.reduce((best, name) => (plans[name].snapshot.keptPerSlot > plans[best].snapshot.keptPerSlot ? name : best));
}

/**
 * The plan an owner's history is kept under. Operator routes carry no tenant, so the plan recorded on
 * the newest snapshot stands in for the workspace's (a plan change shows from the next write on).
 */
export async function historyPlan(deps: Deps, ownerId: string): Promise<PlanName> {
  const newest = await deps.repo.snapshots.findOne({ ownerId }, { field: "seq", direction: -1 });
  return newest?.plan ?? mostGenerous(deps.plans);
}

/**
 * Whether a stored snapshot is a restore point: one of the plan's newest `keptPerSlot` and not past
 * its retention. Storage may briefly hold more (a trim that failed, a smaller plan, pruning not yet
 * run); those are neither listed nor restorable.
 */
function isKept(deps: Deps, plan: PlanName, owner: HistoryOwner, s: SnapshotDoc, now: string): boolean {
  const inCount = s.seq > owner.snapshotSeq - deps.plans[plan].snapshot.keptPerSlot;
  return inCount && (s.expiresAt === undefined || s.expiresAt > now);
}

/** The owner's restore points, newest first, complete: every page is read, each snapshot listed once. */
export async function listRestorePoints(deps: Deps, owner: HistoryOwner): Promise<SnapshotListing["snapshots"]> {
  const plan = await historyPlan(deps, owner._id);
  const now = deps.now().toISOString();
  const oldestKept = owner.snapshotSeq - deps.plans[plan].snapshot.keptPerSlot;
  const seen = new Set<number>();
  const points: SnapshotListing["snapshots"] = [];
  for (let skip = 0; ; skip += pageSize) {
    const page = await deps.repo.snapshots.find({ ownerId: owner._id }, { sort: { field: "seq", direction: -1 }, skip, limit: pageSize });
    for (const s of page) {
      // A sync meanwhile shifts later pages down by one: the repeat is skipped, nothing is missed.
      if (seen.has(s.seq) || !isKept(deps, plan, owner, s, now)) continue;
      seen.add(s.seq);
      points.push({ version: s.version, createdAt: s.createdAt, sizeBytes: Buffer.byteLength(s.payload, "utf8") });
    }
    if (page.length < pageSize || page.at(-1)!.seq <= oldestKept) return points;
  }
}

/** The content of restore point `version` and the plan to record the restore under; 404 when not kept. */
export async function restorePoint(deps: Deps, owner: HistoryOwner, version: number): Promise<{ payload: Record<string, unknown>; plan: PlanName }> {
  const plan = await historyPlan(deps, owner._id);
  const snapshot = await deps.repo.snapshots.findOne({ ownerId: owner._id, version });
  if (!snapshot || !isKept(deps, plan, owner, snapshot, deps.now().toISOString())) throw fail.notFound(`Restore point ${version}`);
  return { payload: JSON.parse(snapshot.payload), plan };
}

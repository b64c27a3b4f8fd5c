import { fail } from "../contract/errors.ts";
import type { PlanCatalog, PlanName } from "../contract/plans.ts";
import { expiryOf, pointId, replacedNeedsKeeping, restorePointDue, restorePointWrites } from "../store/history-ring.ts";
import type { Collection, Filter, Write } from "../store/port.ts";

/** A restore point as every synced document stores it: `<ownerId>:<seq>`, its content as JSON in `payload`. */
export type Point = {
  _id: string;
  ownerId: string;
  seq: number;
  version: number;
  payload: string;
  createdAt: string;
  /** The workspace's plan at the write: operator routes carry no tenant to ask. */
  plan?: PlanName;
  expiresAt?: string;
};

/** What every restore point records; a kind of document stores it as its own shape (History.shape). */
export type PointRecord = Required<Point> & { expiresDay: string };

/** Whose restore points: the history's id and how far its numbering has gone. */
export type Owner = { _id: string; snapshotSeq: number };

/** Where one kind of synced document keeps its restore points, and under which plans. */
export interface History<P extends Point> {
  points: Collection<P>;
  plans: PlanCatalog;
  now: () => Date;
  /** The plan of a history whose newest point records none (written before plans were recorded). */
  unrecordedPlan: PlanName;
}

/**
 * An owner's points: their ids begin with `<ownerId>:`, so the ids' own index finds them and no index of
 * owners is kept up to date on every write (issue 30). The owner is named too, for an id that holds a colon.
 */
export const pointsOf = <P extends Point>(ownerId: string, more: Filter<P> = {}): Filter<P> =>
  ({ ...more, _id: { startsWith: pointId(ownerId, "") }, ownerId }) as Filter<P>;

/** Points read per page: a payload can be hundreds of KiB, so never a whole history at once. */
const pageSize = 50;

/** The catalog's plan that keeps the most: it never hides or trims a restore point another plan keeps. */
export function mostGenerous(plans: PlanCatalog): PlanName {
  const names = Object.keys(plans) as PlanName[];
  return names.reduce((best, name) =>
    plans[name].snapshot.keptPerSlot > plans[best].snapshot.keptPerSlot ? name : best,
  );
}

/** Whether an accepted write becomes a restore point under the plan's snapshot interval. */
export const pointDue = (plans: PlanCatalog, plan: PlanName, lastSnapshotAt: string | undefined, now: Date) =>
  restorePointDue(plans[plan].snapshot.everySeconds, lastSnapshotAt, now);

/**
 * The writes that record point `seq` of an owner: the point, and the removal of the one that falls out
 * of the plan's count. They ride with the write they record (shared/store/port.ts, Write). The plan is
 * recorded with its expiry: operator routes carry no tenant, and pruning needs no plan.
 */
export function pointWrites<P extends Point>(
  history: History<P>,
  plan: PlanName,
  point: { ownerId: string; seq: number; version: number; json: string; at: Date },
  shape: (record: PointRecord) => P,
): Write[] {
  const rules = history.plans[plan].snapshot;
  const record: PointRecord = {
    _id: pointId(point.ownerId, point.seq),
    ownerId: point.ownerId,
    seq: point.seq,
    version: point.version,
    payload: point.json,
    createdAt: point.at.toISOString(),
    plan,
    ...expiryOf(point.at, rules.retentionDays),
  };
  return restorePointWrites(history.points, shape(record), rules.keptPerSlot);
}

/**
 * The plan an owner's history is kept under. Operator routes carry no tenant, so the plan recorded on
 * the newest point stands in for the workspace's (a plan change shows from the next write on).
 */
export async function historyPlan<P extends Point>(history: History<P>, ownerId: string): Promise<PlanName> {
  const newest = await history.points.findOne(pointsOf(ownerId), { field: "seq", direction: -1 });
  return newest?.plan ?? history.unrecordedPlan;
}

/**
 * Whether a stored point is a restore point: one of the plan's newest `keptPerSlot` and not past its
 * retention. Storage may briefly hold more (a trim that failed, a smaller plan, pruning not yet run);
 * those are neither listed nor restorable.
 */
function isKept<P extends Point>(history: History<P>, plan: PlanName, owner: Owner, p: P, now: string): boolean {
  const inCount = p.seq > owner.snapshotSeq - history.plans[plan].snapshot.keptPerSlot;
  return inCount && (p.expiresAt === undefined || p.expiresAt > now);
}

/**
 * The owner's kept points, newest first, each once, from seq `before` down (exclusive). A write
 * meanwhile shifts later pages down by one: the repeat is skipped, nothing is missed.
 */
export async function* keptPoints<P extends Point>(
  history: History<P>,
  owner: Owner,
  before = Number.POSITIVE_INFINITY,
): AsyncGenerator<P> {
  const plan = await historyPlan(history, owner._id);
  const now = history.now().toISOString();
  const oldestKept = owner.snapshotSeq - history.plans[plan].snapshot.keptPerSlot;
  const seen = new Set<number>();
  for (let skip = 0; ; skip += pageSize) {
    const page = await history.points.find(pointsOf(owner._id), {
      sort: { field: "seq", direction: -1 },
      skip,
      limit: pageSize,
    });
    for (const p of page) {
      if (p.seq >= before || seen.has(p.seq) || !isKept(history, plan, owner, p, now)) continue;
      seen.add(p.seq);
      yield p;
    }
    if (page.length < pageSize || page.at(-1)!.seq <= oldestKept) return;
  }
}

/** A kept point with this version (the newest such), or null; `plan` when the caller read it already. */
export async function keptVersion<P extends Point>(
  history: History<P>,
  owner: Owner,
  version: number,
  plan?: PlanName,
): Promise<P | null> {
  const kept = plan ?? (await historyPlan(history, owner._id));
  const filter = pointsOf<P>(owner._id, { version } as Filter<P>);
  const point = await history.points.findOne(filter, { field: "seq", direction: -1 });
  return point && isKept(history, kept, owner, point, history.now().toISOString()) ? point : null;
}

/** Restore point `version` and the plan to record the restore under; 404 when it is not kept. */
export async function restoreSource<P extends Point>(history: History<P>, owner: Owner, version: number) {
  const plan = await historyPlan(history, owner._id);
  const point = await keptVersion(history, owner, version, plan);
  if (!point) throw fail.notFound(`Restore point ${version}`);
  return { point, plan };
}

/**
 * Whether a restore also records the content it replaces (at `current`) as a restore point, so that
 * every restore can be undone: not when a kept point already holds it and survives the restore's trim.
 */
export async function replacedNeedsPoint<P extends Point>(
  history: History<P>,
  owner: Owner,
  current: number,
  plan: PlanName,
): Promise<boolean> {
  const held = await keptVersion(history, owner, current, plan);
  return replacedNeedsKeeping(held?.seq, owner.snapshotSeq, history.plans[plan].snapshot.keptPerSlot);
}

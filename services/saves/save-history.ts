import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import type { SaveRestorePointList } from "../../shared/contract/save-history.ts";
import { expiryOf, restorePointDue, restorePointWrites } from "../../shared/store/history-ring.ts";
import type { Write } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { historyIdOf, type SaveDoc, type SaveSnapshotDoc } from "./repo.ts";

/** Snapshots read per page: a save's state can be 256 KiB, so never a whole history at once. */
const pageSize = 50;

export type SaveContent = { metadata: unknown; state: unknown };

/**
 * Restore points of saves follow the plan's snapshot rules, as slots do (docs/api-rules.md#the-save-based-model):
 * an accepted sync is one when the newest is older than the plan's interval (every sync on
 * `self_hosted`), at most `keptPerSlot` are kept, none past the retention days.
 */
export const snapshotDue = (
  deps: Deps,
  plan: PlanName,
  doc: Pick<SaveDoc, "lastSnapshotAt"> | null,
  now: Date,
): boolean => restorePointDue(deps.plans[plan].snapshot.everySeconds, doc?.lastSnapshotAt, now);

/** The insert of snapshot `seq` and the removal of the one that falls out of the plan's count; they ride with the save's write. */
export function snapshotWrites(
  deps: Deps,
  plan: PlanName,
  snap: { ownerId: string; seq: number; version: number; content: SaveContent; at: Date },
): Write[] {
  const { snapshots } = deps.repo;
  const doc: SaveSnapshotDoc = {
    _id: `${snap.ownerId}:${snap.seq}`,
    ownerId: snap.ownerId,
    seq: snap.seq,
    version: snap.version,
    payload: JSON.stringify(snap.content),
    createdAt: snap.at.toISOString(),
    plan,
    expiresAt: expiryOf(snap.at, deps.plans[plan].snapshot.retentionDays).expiresAt,
  };
  return restorePointWrites(snapshots, doc, deps.plans[plan].snapshot.keptPerSlot);
}

/**
 * Where the store writes a save's restore point after the save (MongoDB, port.ts), a delete may land
 * between the two and erase the history before the point arrives: a point left behind so is erased
 * here, once this write's followers are done. Either the delete still sees it, or this check sees the delete.
 */
export async function dropPointsIfErased(deps: Deps, written: SaveDoc): Promise<void> {
  const now = await deps.repo.saves.get(written._id);
  if (now && historyIdOf(now) === historyIdOf(written)) return;
  await deps.repo.snapshots.delete({ ownerId: historyIdOf(written) });
}

/** The plan recorded on the newest snapshot: operator routes carry no tenant. */
async function historyPlan(deps: Deps, ownerId: string): Promise<PlanName> {
  return (await deps.repo.snapshots.findOne({ ownerId }, { field: "seq", direction: -1 }))?.plan ?? "self_hosted";
}

const isKept = (deps: Deps, plan: PlanName, save: SaveDoc, s: SaveSnapshotDoc, now: string) =>
  s.seq > (save.snapshotSeq ?? 0) - deps.plans[plan].snapshot.keptPerSlot && s.expiresAt > now;

/** The save's restore points, newest first, complete (the plan's count bounds them). */
export async function listSavePoints(deps: Deps, save: SaveDoc): Promise<SaveRestorePointList["restorePoints"]> {
  const ownerId = historyIdOf(save);
  const plan = await historyPlan(deps, ownerId);
  const now = deps.now().toISOString();
  const seen = new Set<number>();
  const points: SaveRestorePointList["restorePoints"] = [];
  for (let skip = 0; ; skip += pageSize) {
    const page = await deps.repo.snapshots.find(
      { ownerId },
      { sort: { field: "seq", direction: -1 }, skip, limit: pageSize },
    );
    for (const s of page) {
      if (seen.has(s.seq) || !isKept(deps, plan, save, s, now)) continue;
      seen.add(s.seq);
      points.push({
        version: s.version,
        createdAt: s.createdAt,
        sizeBytes: Buffer.byteLength(JSON.stringify(JSON.parse(s.payload).state), "utf8"),
      });
    }
    if (page.length < pageSize) return points;
  }
}

/** A kept restore point of the save (the newest with that version), or null. */
export async function keptSavePoint(
  deps: Deps,
  save: SaveDoc,
  version: number,
): Promise<{ doc: SaveSnapshotDoc; plan: PlanName } | null> {
  const ownerId = historyIdOf(save);
  const plan = await historyPlan(deps, ownerId);
  const doc = await deps.repo.snapshots.findOne({ ownerId, version }, { field: "seq", direction: -1 });
  return doc && isKept(deps, plan, save, doc, deps.now().toISOString()) ? { doc, plan } : null;
}

export async function savePoint(deps: Deps, save: SaveDoc, version: number) {
  const point = await keptSavePoint(deps, save, version);
  if (!point) throw fail.notFound(`Restore point ${version}`);
  return { content: JSON.parse(point.doc.payload) as SaveContent, plan: point.plan };
}

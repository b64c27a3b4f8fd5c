import type { PlanName } from "../../shared/contract/plans.ts";
import type { SaveRestorePointList } from "../../shared/contract/save-history.ts";
import type { Filter, Write } from "../../shared/store/port.ts";
import { updateKeepingWrite } from "../../shared/synced/keep-write.ts";
import {
  type History,
  keptPoints,
  keptVersion,
  type PointRecord,
  pointDue,
  pointsOf,
  pointWrites,
  replacedNeedsPoint,
  restoreSource,
} from "../../shared/synced/restore-points.ts";
import type { Deps } from "./deps.ts";
import { historyIdOf, type SaveDoc, type SaveSnapshotDoc } from "./repo.ts";

export type SaveContent = { metadata: unknown; state: unknown };

/**
 * Saves as synced documents (shared/synced/): their restore points, under the plan each recorded (a
 * history that recorded none is kept as on `self_hosted`). Their budget rule is the environment's (budget.ts).
 */
const savePoints = (deps: Deps): History<SaveSnapshotDoc> => ({
  points: deps.repo.snapshots,
  plans: deps.plans,
  now: deps.now,
  unrecordedPlan: "self_hosted",
});

/** A save's history: its history id, numbered up to its `snapshotSeq`. */
const ownerOf = (save: SaveDoc) => ({ _id: historyIdOf(save), snapshotSeq: save.snapshotSeq ?? 0 });

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
): boolean => pointDue(deps.plans, plan, doc?.lastSnapshotAt, now);

/** The insert of snapshot `seq` and the removal of the one that falls out of the plan's count; they ride with the save's write. */
export function snapshotWrites(
  deps: Deps,
  plan: PlanName,
  snap: { ownerId: string; seq: number; version: number; content: SaveContent; at: Date },
): Write[] {
  const { content, ...point } = snap;
  // A save's restore point records its expiry instant only: nothing prunes saves by day.
  const shape = ({ expiresDay: _, ...record }: PointRecord): SaveSnapshotDoc => record;
  return pointWrites(savePoints(deps), plan, { ...point, json: JSON.stringify(content) }, shape);
}

/**
 * The conditional update of a save with its byte count and restore point (shared/synced/keep-write.ts):
 * where the store cannot commit them together (MongoDB) and a follower fails, the write stands and
 * only the count or history misses it.
 */
export async function updateSave(
  deps: Deps,
  filter: Filter<SaveDoc>,
  changes: Partial<SaveDoc>,
  followers: Write[],
): Promise<SaveDoc | null> {
  const write = { filter, changes, followers };
  const { updated } = await updateKeepingWrite(deps.log, deps.repo.saves, write, "save count or snapshot not written");
  if (updated && followers.some((w) => "insert" in w)) await dropPointsIfErased(deps, updated);
  return updated;
}

/**
 * Where the store writes a save's restore point after the save (MongoDB, port.ts), a delete may land
 * between the two and erase the history before the point arrives: a point left behind so is erased
 * here, once this write's followers are done. Either the delete still sees it, or this check sees the delete.
 */
export async function dropPointsIfErased(deps: Deps, written: SaveDoc): Promise<void> {
  const now = await deps.repo.saves.get(written._id);
  if (now && historyIdOf(now) === historyIdOf(written)) return;
  await deps.repo.snapshots.delete(pointsOf(historyIdOf(written)));
}

/** The save's restore points, newest first, complete (the plan's count bounds them). */
export async function listSavePoints(deps: Deps, save: SaveDoc): Promise<SaveRestorePointList["restorePoints"]> {
  const points: SaveRestorePointList["restorePoints"] = [];
  for await (const s of keptPoints(savePoints(deps), ownerOf(save))) {
    const sizeBytes = Buffer.byteLength(JSON.stringify(JSON.parse(s.payload).state), "utf8");
    points.push({ version: s.version, createdAt: s.createdAt, sizeBytes });
  }
  return points;
}

/** A kept restore point of the save (the newest with that version), or null. */
export const keptSavePoint = (deps: Deps, save: SaveDoc, version: number): Promise<SaveSnapshotDoc | null> =>
  keptVersion(savePoints(deps), ownerOf(save), version);

/** Restore point `version` of the save, the plan to record a restore under, and whether the replaced content needs a point. */
export async function restoreOf(deps: Deps, save: SaveDoc, version: number) {
  const history = savePoints(deps);
  const owner = ownerOf(save);
  const { point, plan } = await restoreSource(history, owner, version);
  const keepReplaced = await replacedNeedsPoint(history, owner, save.version, plan);
  return { content: JSON.parse(point.payload) as SaveContent, plan, keepReplaced };
}

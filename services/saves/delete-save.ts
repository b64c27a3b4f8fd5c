import { fail } from "../../shared/contract/errors.ts";
import type { DeleteSaveResponse } from "../../shared/contract/save-history.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import { inRounds, lostRound } from "../../shared/store/versioned.ts";
import { pointsOf } from "../../shared/synced/restore-points.ts";
import { saveBytes } from "./budget.ts";
import type { Deps } from "./deps.ts";
import { historyIdOf, type SaveDoc } from "./repo.ts";

/**
 * Lost rounds before a delete answers 503. A round is lost only when a sync of the same save was
 * accepted between its read and its delete, one store round trip apart: a device would have to sync
 * this often without pause to starve it.
 */
const rounds = 50;

/**
 * Erases a save and its restore points (docs/api-rules.md#the-save-based-model). The tombstone is written first, so
 * a crash midway still answers the next delete with `alreadyDeleted`; it holds no player data. The
 * id can be created again at version 1: a new save gets a new history id, and never sees this one's.
 */
export async function deleteSave(deps: Deps, _id: string, saveId: string): Promise<DeleteSaveResponse> {
  const { repo } = deps;
  const first = await repo.saves.get(_id);
  if (!first) {
    const tombstone = await repo.tombstones.get(_id);
    if (!tombstone) throw fail.notFound("Save");
    return { saveId, deletedAt: tombstone.deletedAt, alreadyDeleted: true };
  }
  const deletedAt = deps.now().toISOString();
  try {
    await repo.tombstones.insert({ _id, deletedAt });
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    await repo.tombstones.update({ _id }, { deletedAt }); // an earlier generation of this id was deleted too
  }
  const removed = await removeGeneration(deps, first);
  await repo.snapshots.delete(pointsOf(historyIdOf(first)));
  if (!removed)
    return { saveId, deletedAt: (await repo.tombstones.get(_id))?.deletedAt ?? deletedAt, alreadyDeleted: true };
  // Only the delete that removed it gives its bytes back to the environment's budget (budget.ts).
  await repo.usage.increment(first.envId, "bytes", -saveBytes(removed), {});
  return { saveId, deletedAt, alreadyDeleted: false };
}

/**
 * Deletes the generation of `first` (a save re-created meanwhile has another history id and stays),
 * conditional on the version read, so the bytes given back are those of what was removed, also when a
 * sync lands in between. The save as removed, or null when another delete removed it.
 */
async function removeGeneration(deps: Deps, first: SaveDoc): Promise<SaveDoc | null> {
  const { saves } = deps.repo;
  let current: SaveDoc | null = first;
  return inRounds({ rounds }, async (n) => {
    if (n > 0) current = await saves.get(first._id);
    if (!current || historyIdOf(current) !== historyIdOf(first)) return null;
    const deleted = await saves.delete({
      _id: first._id,
      historyId: first.historyId ?? null,
      version: current.version,
    });
    return deleted > 0 ? current : lostRound;
  });
}

import { fail } from "../../shared/contract/errors.ts";
import type { DeleteSaveResponse } from "../../shared/contract/save-history.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { saveBytes } from "./budget.ts";
import { historyIdOf } from "./repo.ts";

/**
 * Erases a save and its restore points (docs/api-rules.md#the-save-based-model). The tombstone is written first, so
 * a crash midway still answers the next delete with `alreadyDeleted`; it holds no player data. The
 * id can be created again at version 1: a new save gets a new history id, and never sees this one's.
 */
export async function deleteSave(deps: Deps, _id: string, saveId: string): Promise<DeleteSaveResponse> {
  const { repo } = deps;
  const current = await repo.saves.get(_id);
  if (!current) {
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
  // Only this generation: a save re-created meanwhile has another history id and stays.
  const deleted = await repo.saves.delete({ _id, historyId: current.historyId ?? null });
  await repo.snapshots.delete({ ownerId: historyIdOf(current) });
  if (deleted === 0) return { saveId, deletedAt: (await repo.tombstones.get(_id))?.deletedAt ?? deletedAt, alreadyDeleted: true };
  // Only the delete that removed it gives its bytes back to the environment's budget (budget.ts).
  await repo.usage.increment(current.envId, "bytes", -saveBytes(current), {});
  return { saveId, deletedAt, alreadyDeleted: false };
}

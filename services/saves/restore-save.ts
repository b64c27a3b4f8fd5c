import type { Environment } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import { envIdOf } from "../../shared/contract/tenant.ts";
import { inRounds, lostRound } from "../../shared/store/versioned.ts";
import { saveBudget, saveBytes, usageOf } from "./budget.ts";
import type { Deps } from "./deps.ts";
import { historyIdOf, type SaveDoc, saveDocId, toSave } from "./repo.ts";
import { keptSavePoint, listSavePoints, restoreOf, snapshotWrites, updateSave } from "./save-history.ts";

type AdminSave = { projectId: string; env: Environment; saveId: string };

/** Lost races before giving up with 503: each one means a device synced in between. */
const rounds = 5;

export const adminSaveDocId = (p: AdminSave) => saveDocId(envIdOf(p.projectId, p.env), p.saveId);

async function loadSave(deps: Deps, p: AdminSave): Promise<SaveDoc> {
  const save = await deps.repo.saves.get(adminSaveDocId(p));
  if (!save) throw fail.notFound("Save");
  return save;
}

/** Operators: a save's restore points, newest first. */
export async function adminSaveHistory(deps: Deps, p: AdminSave) {
  return { saveId: p.saveId, restorePoints: await listSavePoints(deps, await loadSave(deps, p)) };
}

/** Operators: one kept restore point's content, for the console's diff; 404 when it is not kept. */
export async function adminSaveVersion(deps: Deps, p: AdminSave, version: number) {
  const point = await keptSavePoint(deps, await loadSave(deps, p), version);
  if (!point) throw fail.notFound(`Restore point ${version}`);
  const { metadata, state } = JSON.parse(point.payload);
  return { saveId: p.saveId, version: point.version, createdAt: point.createdAt, metadata, state };
}

/**
 * Operators: restore point `version` becomes the save's next version in one conditional update, as a
 * slot's restore does (docs/api-rules.md#the-save-based-model): the replaced content stays a restore point (unless
 * one already holds it) and the restored one becomes one, so the restore can be undone.
 */
export async function adminRestoreSave(deps: Deps, p: AdminSave, version: number) {
  return inRounds({ rounds }, async () => {
    const save = await loadSave(deps, p);
    const { content, plan, keepReplaced } = await restoreOf(deps, save, version);
    const now = deps.now();
    const ownerId = historyIdOf(save);
    const seq = save.snapshotSeq ?? 0;
    const replaced = { metadata: JSON.parse(save.metadata), state: JSON.parse(save.state) };
    const last = seq + (keepReplaced ? 2 : 1);
    const writes = [
      ...(keepReplaced
        ? snapshotWrites(deps, plan, { ownerId, seq: last - 1, version: save.version, content: replaced, at: now })
        : []),
      ...snapshotWrites(deps, plan, { ownerId, seq: last, version: save.version + 1, content, at: now }),
    ];
    const at = now.toISOString();
    const stored = { metadata: JSON.stringify(content.metadata), state: JSON.stringify(content.state) };
    const changes = { ...stored, version: save.version + 1, updatedAt: at, snapshotSeq: last, lastSnapshotAt: at };
    const usage = await usageOf(deps, save.envId, await deps.repo.usage.get(save.envId));
    const count = saveBudget(deps, plan, save.envId, usage, saveBytes(stored) - saveBytes(save));
    const filter = { _id: save._id, version: save.version, historyId: save.historyId ?? null }; // this generation (sync-save.ts)
    const updated = await updateSave(deps, filter, changes, [count, ...writes]);
    return updated ? { save: toSave(updated) } : lostRound;
  });
}

import { fail } from "../../shared/contract/errors.ts";
import type { PlanName } from "../../shared/contract/plans.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Save } from "../../shared/contract/runtime.ts";
import { limitPerMinute } from "../../shared/limits/window-counter.ts";
import type { IdempotencyRecordId } from "../../shared/serving/idempotency.ts";
import { type Conflict, conflict as conflictReply, type Replayed, replayed } from "../../shared/serving/reply.ts";
import { ownStamp, stampChanges } from "../../shared/serving/write-stamp.ts";
import { DuplicateKeyError, FollowerFailedError } from "../../shared/store/port.ts";
import { inRounds, type LostRound, lostRound } from "../../shared/store/versioned.ts";
import { syncFrom } from "../../shared/synced/sync-flow.ts";
import { requestJson } from "../../shared/util/json.ts";
import { saveBudget, saveBytes, usageOf } from "./budget.ts";
import type { Deps } from "./deps.ts";
import { historyIdOf, type SaveDoc, type SaveUsageDoc, saveDocId, toSave } from "./repo.ts";
import { dropPointsIfErased, type SaveContent, snapshotDue, snapshotWrites, updateSave } from "./save-history.ts";

type Message = RouteMessage<typeof contractRoutes.syncSave>;
type Accepted = { status: "accepted"; save: Save };
type Stale = {
  status: "conflict";
  save: Save;
  details: { reason: "base_version_mismatch"; clientBaseVersion: number };
};
type Answer = Accepted | Conflict<Stale> | Replayed<Accepted>;
/** Whether this request's creation was counted already: a create that goes again is still one creation. */
type Creation = { counted: boolean };

const conflict = (doc: SaveDoc, clientBaseVersion: number): Conflict<Stale> =>
  conflictReply({
    status: "conflict",
    save: toSave(doc),
    details: { reason: "base_version_mismatch", clientBaseVersion },
  });

// A keyed write stamps itself on the save; a retry after a crash between the write and its recorded
// answer recognises the current version as its own (shared/serving/write-stamp.ts).
const markOf = (recordId: IdempotencyRecordId, version: number) => stampChanges(recordId, version, undefined);

/** Rounds of one sync: a round is lost only when its create lost to another whose save was deleted before it was read. */
const rounds = 5;

/**
 * Route 18 (docs/api-rules.md#the-save-based-model): `baseVersion` 0 creates the save at version 1; the
 * current version is accepted as the next one; anything else is the 409 with the canonical save. The
 * version check is inside the one conditional write (or the unique insert), so of concurrent writers
 * from one base exactly one is accepted. An omitted `metadata` or `state` keeps the stored one. A save
 * deleted while a sync runs is what it is for any later request: a base above 0 finds no save (404),
 * base 0 creates it again.
 */
export async function syncSave(deps: Deps, msg: Message, key?: IdempotencyRecordId): Promise<Answer> {
  const creation = { counted: false };
  return inRounds({ rounds }, () => syncRound(deps, msg, key, creation));
}

async function syncRound(
  deps: Deps,
  msg: Message,
  key: IdempotencyRecordId | undefined,
  creation: Creation,
): Promise<Answer | LostRound> {
  const { repo } = deps;
  const { body } = msg;
  const _id = saveDocId(msg.tenant.envId, msg.params.saveId);
  const now = deps.now();
  const [current, usage] = await Promise.all([repo.saves.get(_id), repo.usage.get(msg.tenant.envId)]);
  if (!current) return createSave(deps, msg, key, { usage, now, creation });

  // A stale writer (a lost create race included) gets the canonical save, whatever else it sent.
  return syncFrom(current, body.baseVersion, {
    commit: () => commitSave(deps, msg, key, { current, usage, now }),
    // Another writer won between the read and the write: answer with the state that won. None left
    // means it was deleted meanwhile, and a base above 0 for a save that does not exist is 404.
    async reread() {
      const won = await repo.saves.get(_id);
      if (!won) throw fail.notFound("Save");
      return won;
    },
    own: (doc) => (ownStamp(doc, key) ? replayed<Accepted>({ status: "accepted", save: toSave(doc) }) : undefined),
    conflict: (doc) => conflict(doc, body.baseVersion),
  });
}

/** The accepted sync of `current` at the next version, in one conditional write; null when another writer won. */
async function commitSave(
  deps: Deps,
  msg: Message,
  key: IdempotencyRecordId | undefined,
  { current, usage, now }: { current: SaveDoc; usage: SaveUsageDoc | null; now: Date },
): Promise<Accepted | null> {
  const { body } = msg;
  const { envId, plan } = msg.tenant;
  if (body.externalUserId !== undefined && body.externalUserId !== current.externalUserId) {
    throw fail.invalidRequest([{ path: "body.externalUserId", message: "a save's externalUserId cannot change" }]);
  }
  const next = body.baseVersion + 1;
  const stored = {
    // The texts the body's schema measured (shared/util/json.ts, requestJson): not encoded again.
    metadata: body.metadata !== undefined ? requestJson(body.metadata) : current.metadata,
    state: body.state !== undefined ? requestJson(body.state) : current.state,
  };
  const count = saveBudget(
    deps,
    plan,
    envId,
    await usageOf(deps, envId, usage),
    saveBytes(stored) - saveBytes(current),
  );
  const content = { metadata: JSON.parse(stored.metadata), state: JSON.parse(stored.state) };
  const snapshot = point(deps, plan, current, next, content, now);
  const changes = { ...stored, version: next, updatedAt: now.toISOString(), ...markOf(key, next), ...snapshot.changes };
  // The generation too: a save deleted and created again since the read is at version 1 as well.
  const filter = { _id: current._id, version: body.baseVersion, historyId: current.historyId ?? null };
  const updated = await updateSave(deps, filter, changes, [count, ...snapshot.writes]);
  return updated ? { status: "accepted", save: toSave(updated) } : null;
}

/** Due for a restore point under the plan (docs/using-the-api.md#the-save-based-model): it rides in the same write. */
function point(deps: Deps, plan: PlanName, save: SaveDoc, version: number, content: SaveContent, now: Date) {
  if (!snapshotDue(deps, plan, save, now)) return { changes: {}, writes: [] };
  const seq = (save.snapshotSeq ?? 0) + 1;
  const writes = snapshotWrites(deps, plan, { ownerId: historyIdOf(save), seq, version, content, at: now });
  return { changes: { snapshotSeq: seq, lastSnapshotAt: now.toISOString() }, writes };
}

/** `baseVersion` 0 and no such save: created at version 1, counted once per request in the IP's save creations. */
async function createSave(
  deps: Deps,
  msg: Message,
  key: IdempotencyRecordId | undefined,
  { usage, now, creation }: { usage: SaveUsageDoc | null; now: Date; creation: Creation },
): Promise<Answer | LostRound> {
  const { repo } = deps;
  const { body } = msg;
  const { envId, plan } = msg.tenant;
  if (body.baseVersion !== 0) throw fail.notFound("Save");
  if (!body.externalUserId)
    throw fail.invalidRequest([{ path: "body.externalUserId", message: "required when creating a save" }]);
  if (!creation.counted) {
    await limitPerMinute(repo.creations, now.getTime(), msg.tenant, msg.client.ip, {
      setting: "saveCreationsPerIpPerMinute",
      counted: "save creations",
    });
    creation.counted = true;
  }
  const at = now.toISOString();
  const _id = saveDocId(envId, msg.params.saveId);
  const doc: SaveDoc = {
    _id,
    envId,
    saveId: msg.params.saveId,
    externalUserId: body.externalUserId,
    metadata: requestJson(body.metadata ?? {}),
    state: requestJson(body.state ?? {}),
    version: 1,
    createdAt: at,
    updatedAt: at,
    ...markOf(key, 1),
    historyId: `${_id}@${crypto.randomUUID()}`,
    snapshotSeq: 1,
    lastSnapshotAt: at,
  };
  const content = { metadata: body.metadata ?? {}, state: body.state ?? {} };
  const first = snapshotWrites(deps, plan, { ownerId: doc.historyId!, seq: 1, version: 1, content, at: now });
  const count = saveBudget(deps, plan, envId, await usageOf(deps, envId, usage), saveBytes(doc));
  try {
    await repo.saves.insert(doc, [count, ...first]);
    await dropPointsIfErased(deps, doc);
  } catch (err) {
    if (err instanceof DuplicateKeyError) {
      // A concurrent create won: its save is the canonical one, unless it was deleted already (go again).
      const won = await repo.saves.get(_id);
      return won ? conflict(won, 0) : lostRound;
    }
    if (!(err instanceof FollowerFailedError)) throw err;
    // MongoDB: the save stands without its count or its first restore point.
    deps.log.warn("save count or snapshot not written", { err: err.cause });
  }
  return { status: "accepted", save: toSave(doc) };
}

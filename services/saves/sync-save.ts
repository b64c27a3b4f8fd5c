import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Save } from "../../shared/contract/runtime.ts";
import { type Conflict, type Replayed, conflict as conflictReply, replayed } from "../../shared/serving/reply.ts";
import type { IdempotencyRecordId } from "../../shared/serving/idempotency.ts";
import { ownStamp, stampChanges } from "../../shared/serving/write-stamp.ts";
import { DuplicateKeyError, type Filter, FollowerFailedError, type Write } from "../../shared/store/port.ts";
import { limitPerMinute } from "../../shared/serving/window-counter.ts";
import { saveBudget, saveBytes, usageOf } from "./budget.ts";
import type { Deps } from "./deps.ts";
import { type SaveDoc, historyIdOf, saveDocId, toSave } from "./repo.ts";
import { snapshotDue, snapshotWrites } from "./save-history.ts";

type Message = RouteMessage<typeof contractRoutes.syncSave>;
type Accepted = { status: "accepted"; save: Save };
type Stale = { status: "conflict"; save: Save; details: { reason: "base_version_mismatch"; clientBaseVersion: number } };

const conflict = (doc: SaveDoc, clientBaseVersion: number): Conflict<Stale> =>
  conflictReply({ status: "conflict", save: toSave(doc), details: { reason: "base_version_mismatch", clientBaseVersion } });

// A keyed write stamps itself on the save; a retry after a crash between the write and its recorded
// answer recognises the current version as its own (shared/serving/write-stamp.ts).
const markOf = (recordId: IdempotencyRecordId, version: number) => stampChanges(recordId, version, undefined);
const staleOrOwn = (doc: SaveDoc, clientBaseVersion: number, recordId: IdempotencyRecordId) =>
  ownStamp(doc, recordId) ? replayed<Accepted>({ status: "accepted", save: toSave(doc) }) : conflict(doc, clientBaseVersion);

/**
 * Route 18 (docs/api-rules.md#the-save-based-model): `baseVersion` 0 creates the save at version 1; the
 * current version is accepted as the next one; anything else is the 409 with the canonical save. The
 * version check is inside the one conditional write (or the unique insert), so of concurrent writers
 * from one base exactly one is accepted. An omitted `metadata` or `state` keeps the stored one.
 */
export async function syncSave(deps: Deps, msg: Message, key?: IdempotencyRecordId): Promise<Accepted | Conflict<Stale> | Replayed<Accepted>> {
  const { repo } = deps;
  const { body } = msg;
  const _id = saveDocId(msg.tenant.envId, msg.params.saveId);
  const now = deps.now();
  const at = now.toISOString();
  const { envId, plan } = msg.tenant;
  const [current, usage] = await Promise.all([repo.saves.get(_id), repo.usage.get(envId)]);
  // Due for a restore point under the plan (README, The save-based model): it rides in the same write.
  const point = (save: SaveDoc, version: number, content: { metadata: unknown; state: unknown }) => {
    if (!snapshotDue(deps, plan, save, now)) return { changes: {}, writes: [] };
    const seq = (save.snapshotSeq ?? 0) + 1;
    const writes = snapshotWrites(deps, plan, { ownerId: historyIdOf(save), seq, version, content, at: now });
    return { changes: { snapshotSeq: seq, lastSnapshotAt: at }, writes };
  };

  if (!current) {
    if (body.baseVersion !== 0) throw fail.notFound("Save");
    if (!body.externalUserId) throw fail.invalidRequest([{ path: "body.externalUserId", message: "required when creating a save" }]);
    await limitPerMinute(repo.creations, now.getTime(), msg.tenant, msg.client.ip, { setting: "saveCreationsPerIpPerMinute", counted: "save creations" });
    const doc: SaveDoc = {
      _id,
      envId: msg.tenant.envId,
      saveId: msg.params.saveId,
      externalUserId: body.externalUserId,
      metadata: JSON.stringify(body.metadata ?? {}),
      state: JSON.stringify(body.state ?? {}),
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
    } catch (err) {
      // MongoDB: the save stands without its count or its first restore point.
      if (err instanceof FollowerFailedError) deps.log.warn("save count or snapshot not written", { err: err.cause });
      else if (err instanceof DuplicateKeyError) return conflict((await repo.saves.get(_id))!, 0); // a concurrent create won
      else throw err;
    }
    return { status: "accepted", save: toSave(doc) };
  }

  // A stale writer (a lost create race included) gets the canonical save, whatever else it sent.
  if (current.version !== body.baseVersion) return staleOrOwn(current, body.baseVersion, key);
  if (body.externalUserId !== undefined && body.externalUserId !== current.externalUserId) {
    throw fail.invalidRequest([{ path: "body.externalUserId", message: "a save's externalUserId cannot change" }]);
  }
  const next = body.baseVersion + 1;
  const stored = {
    metadata: body.metadata !== undefined ? JSON.stringify(body.metadata) : current.metadata,
    state: body.state !== undefined ? JSON.stringify(body.state) : current.state,
  };
  const count = saveBudget(deps, plan, envId, await usageOf(deps, envId, usage), saveBytes(stored) - saveBytes(current));
  const content = { metadata: JSON.parse(stored.metadata), state: JSON.parse(stored.state) };
  const snapshot = point(current, next, content);
  const changes = { ...stored, version: next, updatedAt: at, ...markOf(key, next), ...snapshot.changes };
  const updated = await updateKeepingWrite(deps, { _id, version: body.baseVersion }, changes, [count, ...snapshot.writes]);
  // Another writer won between the read and the write: answer with the state that won.
  if (!updated) return staleOrOwn((await repo.saves.get(_id))!, body.baseVersion, key);
  return { status: "accepted", save: toSave(updated) };
}

/**
 * A conditional update of a save with its byte count and restore point. Where the store cannot commit
 * them together (MongoDB) and a follower fails after the write, the write stands and only the count or
 * history misses it.
 */
export async function updateKeepingWrite(deps: Deps, filter: Filter<SaveDoc>, changes: Partial<SaveDoc>, then: Write[] | undefined): Promise<SaveDoc | null> {
  try {
    return await deps.repo.saves.update(filter, changes, then);
  } catch (err) {
    if (!(err instanceof FollowerFailedError)) throw err;
    deps.log.warn("save count or snapshot not written", { err: err.cause });
    return err.updated as SaveDoc | null;
  }
}

import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Save } from "../../shared/contract/runtime.ts";
import { Replayed } from "../../shared/bus/reply.ts";
import type { WriteKey } from "../../shared/idempotency.ts";
import { DuplicateKeyError } from "../../shared/store/port.ts";
import type { Deps } from "./deps.ts";
import { type SaveDoc, saveDocId, toSave } from "./repo.ts";

type Message = RouteMessage<typeof contractRoutes.syncSave>;
type Answer = { status: "accepted"; save: Save } | { status: "conflict"; save: Save; details: { reason: "base_version_mismatch"; clientBaseVersion: number } };

const conflict = (doc: SaveDoc, clientBaseVersion: number): Answer => ({ status: "conflict", save: toSave(doc), details: { reason: "base_version_mismatch", clientBaseVersion } });

// A keyed write stamps itself on the save; a retry after a crash between the write and its recorded
// answer recognises the current version as its own (shared/idempotency.ts).
const markOf = (key: WriteKey, version: number) => (key ? { lastWrite: `${key}@${version}` } : {});
const staleOrOwn = (doc: SaveDoc, clientBaseVersion: number, key: WriteKey) =>
  key && doc.lastWrite === `${key}@${doc.version}` ? new Replayed({ status: "accepted", save: toSave(doc) }) : conflict(doc, clientBaseVersion);

/**
 * Route 18 (decisions.md, Save-based model): `baseVersion` 0 creates the save at version 1; the
 * current version is accepted as the next one; anything else is the 409 with the canonical save. The
 * version check is inside the one conditional write (or the unique insert), so of concurrent writers
 * from one base exactly one is accepted. An omitted `metadata` or `state` keeps the stored one.
 */
export async function syncSave(deps: Deps, msg: Message, key?: WriteKey): Promise<Answer | Replayed> {
  const { repo } = deps;
  const { body } = msg;
  const _id = saveDocId(msg.tenant.envId, msg.params.saveId);
  const at = deps.now().toISOString();
  const current = await repo.saves.get(_id);

  if (!current) {
    if (body.baseVersion !== 0) throw fail.notFound("Save");
    if (!body.externalUserId) throw fail.invalidRequest([{ path: "body.externalUserId", message: "required when creating a save" }]);
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
    };
    try {
      await repo.saves.insert(doc);
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      return conflict((await repo.saves.get(_id))!, 0); // a concurrent create won
    }
    return { status: "accepted", save: toSave(doc) };
  }

  // A stale writer (a lost create race included) gets the canonical save, whatever else it sent.
  if (current.version !== body.baseVersion) return staleOrOwn(current, body.baseVersion, key);
  if (body.externalUserId !== undefined && body.externalUserId !== current.externalUserId) {
    throw fail.invalidRequest([{ path: "body.externalUserId", message: "a save's externalUserId cannot change" }]);
  }
  const updated = await repo.saves.update(
    { _id, version: body.baseVersion },
    {
      ...(body.metadata !== undefined ? { metadata: JSON.stringify(body.metadata) } : {}),
      ...(body.state !== undefined ? { state: JSON.stringify(body.state) } : {}),
      version: body.baseVersion + 1,
      updatedAt: at,
      ...markOf(key, body.baseVersion + 1),
    },
  );
  // Another writer won between the read and the write: answer with the state that won.
  if (!updated) return staleOrOwn((await repo.saves.get(_id))!, body.baseVersion, key);
  return { status: "accepted", save: toSave(updated) };
}

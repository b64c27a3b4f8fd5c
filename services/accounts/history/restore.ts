import type { SyncAcceptedResponse } from "../../../shared/contract/accounts.ts";
import type { IdempotencyRecordId } from "../../../shared/serving/idempotency.ts";
import type { Replayed } from "../../../shared/serving/reply.ts";
import { stampChanges } from "../../../shared/serving/write-stamp.ts";
import type { Collection, Filter } from "../../../shared/store/port.ts";
import { inRounds, lostRound } from "../../../shared/store/versioned.ts";
import { replacedNeedsPoint, restoreSource } from "../../../shared/synced/restore-points.ts";
import type { Deps } from "../deps.ts";
import { withinEnvironment } from "../environment-budget.ts";
import type { AccountDoc, SlotDoc } from "../repo.ts";
import { writeWithinBudget } from "../storage.ts";
import { accountPoints } from "../synced.ts";
import { earlierAnswer } from "../write-mark.ts";
import { acceptedSync, updateWithHistory } from "./history.ts";

type Owner = AccountDoc | SlotDoc;

/** What is restored: a slot or an account's data, how to load it now, and how its content is stored. */
export interface RestoreTarget<T extends Owner> {
  collection: Collection<T>;
  accountId: string;
  /** The owner as it is now; throws the route's 404, 409 or 410 when it cannot be written. */
  load(): Promise<T>;
  /** The snapshot payload of the owner's current content. */
  contentOf(doc: T): Record<string, unknown>;
  /** The stored fields that hold a snapshot payload's content. */
  fieldsOf(payload: Record<string, unknown>): Partial<T>;
  /** Stored bytes of a current state: what the account's storage budget counts (account-bytes.ts). */
  bytesOf(fields: Partial<T>): number;
  /** The account whose budget the write counts against (the owner itself for accountData). */
  account(doc: T): Promise<AccountDoc>;
}

export type RestoreOutcome<T extends Owner> =
  | { status: "accepted"; updated: T; at: string; historyRetained: boolean }
  | { status: "stale"; current: T; restored: Record<string, unknown> };

/** Lost races before an operator's restore gives up with 503: each one means a device synced in between. */
const rounds = 5;

/**
 * The one restore of the service, for players and operators (docs/using-the-api.md#restoring-a-slot): restore point
 * `version`'s content becomes the owner's next version in one conditional update on the current
 * version, so history is never rewritten and a stale device gets the usual 409. Both the replaced
 * content (unless a kept restore point already holds it) and the restored content are recorded as
 * restore points in the same write, so every restore can be undone on every plan, within the account's
 * storage budget like any write (storage.ts). With `baseVersion`
 * (a player) a stale base or a lost race is `stale`; without (an operator) it restores on top of what won.
 */
export async function restoreVersion<T extends Owner>(
  deps: Deps,
  target: RestoreTarget<T>,
  version: number,
  baseVersion?: number,
  key?: IdempotencyRecordId,
): Promise<RestoreOutcome<T>> {
  return inRounds({ rounds }, async () => {
    const doc = await target.load();
    const history = accountPoints(deps);
    const { point, plan } = await restoreSource(history, doc, version);
    const payload = JSON.parse(point.payload) as Record<string, unknown>;
    if (baseVersion !== undefined && doc.version !== baseVersion)
      return { status: "stale", current: doc, restored: payload };
    const keepReplaced = await replacedNeedsPoint(history, doc, doc.version, plan);
    const next = doc.version + 1;
    const fields = target.fieldsOf(payload);
    const replaced = keepReplaced ? { payload: target.contentOf(doc), version: doc.version } : undefined;
    const change = {
      kind: "restore",
      owner: doc,
      before: target.bytesOf(doc),
      after: target.bytesOf(fields),
      payload,
      version: next,
      replaced,
    } as const;
    const account = await target.account(doc);
    const accepted = await withinEnvironment(deps, plan, async (envTry) => {
      const { stamp, writes, settle } = await writeWithinBudget(deps, plan, account, change, envTry);
      const filter = { _id: doc._id, version: doc.version, status: doc.status } as Filter<T>;
      const changes = {
        ...fields,
        version: next,
        ...stamp.changes,
        ...stampChanges(key, next, undefined),
      } as Partial<T>;
      const { updated, historyRetained } = await updateWithHistory(
        deps,
        target.collection,
        { filter, changes, followers: writes },
        stamp.snapshot,
      );
      if (!updated) return null;
      await settle();
      return { status: "accepted" as const, updated, at: stamp.at, historyRetained };
    });
    if (accepted) return accepted;
    // A player's lost race is the usual 409; an operator's restore goes again on top of what won.
    if (baseVersion !== undefined) return { status: "stale", current: await target.load(), restored: payload };
    return lostRound;
  });
}

/**
 * A player's restore from `baseVersion`, like a sync (docs/using-the-api.md#restoring-a-slot): accepted, or on a stale
 * base this request's own earlier restore again, else the route's 409 with the restored content as the
 * client side (`conflictOf`).
 */
export async function playerRestore<T extends Owner, C>(
  deps: Deps,
  target: RestoreTarget<T>,
  body: { version: number; baseVersion: number },
  key: IdempotencyRecordId,
  conflictOf: (current: T, restored: Record<string, unknown>) => C | Promise<C>,
): Promise<SyncAcceptedResponse | Replayed<SyncAcceptedResponse> | C> {
  const outcome = await restoreVersion(deps, target, body.version, body.baseVersion, key);
  if (outcome.status === "accepted")
    return acceptedSync(outcome.updated.version, outcome, outcome.historyRetained, undefined);
  const { current, restored } = outcome;
  return (await earlierAnswer(deps, current, current._id, key)) ?? (await conflictOf(current, restored));
}

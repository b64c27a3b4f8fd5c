import type { SlotConflictWire, SyncAcceptedResponse } from "../../../shared/contract/accounts.ts";
import { fail } from "../../../shared/contract/errors.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import type { IdempotencyRecordId } from "../../../shared/serving/idempotency.ts";
import { type Conflict, conflict as conflictReply, type Replayed } from "../../../shared/serving/reply.ts";
import { syncFrom } from "../../../shared/synced/sync-flow.ts";
import { requestJson } from "../../../shared/util/json.ts";
import { slotFieldBytes } from "../account-bytes.ts";
import type { Deps } from "../deps.ts";
import { commitSync } from "../history/commit-sync.ts";
import { activeSlotForWrite } from "../load.ts";
import { type SlotDoc, toSlotAnswer } from "../repo.ts";
import { earlierAnswer } from "../write-mark.ts";

/**
 * Route 15. The version check lives in the store's single conditional update, so of N concurrent
 * syncs from one base version exactly one is accepted.
 */
export async function syncSlot(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.syncSlot>,
  key?: IdempotencyRecordId,
): Promise<SyncAcceptedResponse | Conflict<SlotConflictWire> | Replayed<SyncAcceptedResponse>> {
  const { repo } = deps;
  const { tenant, body } = msg;
  const { accountId } = msg.session;
  const slot = await activeSlotForWrite(repo, accountId, msg.params.slotId);
  return syncFrom(slot, body.baseVersion, {
    // The account holds the storage count: read only for a write, so a stale base costs one read (issue 30).
    async commit() {
      const account = await repo.accounts.get(accountId);
      if (!account) throw fail.notFound("Account");
      const slotInfo = body.slotInfo ?? JSON.parse(slot.slotInfo);
      const changes = {
        // The texts the body's schema measured (shared/util/json.ts, requestJson): not encoded again.
        slotInfo: body.slotInfo ? requestJson(body.slotInfo) : slot.slotInfo,
        data: requestJson(body.data),
      };
      return commitSync(deps, tenant, account, key, {
        collection: repo.slots,
        doc: slot,
        changes,
        payload: { slotInfo, data: body.data },
        // The restore point's JSON from the texts just made: the data is not encoded a second time.
        json: `{"slotInfo":${changes.slotInfo},"data":${changes.data}}`,
        bytesOf: slotFieldBytes,
      });
    },
    // Another write won after the read (perhaps this key's own earlier attempt, still running when the
    // gateway gave up on it): answer with the state that won.
    reread: () => activeSlotForWrite(repo, accountId, msg.params.slotId),
    own: (current) => earlierAnswer(deps, current, current._id, key),
    conflict,
  });
}

function conflict(slot: SlotDoc): Conflict<SlotConflictWire> {
  const details = { reason: "base_version_mismatch" } as const;
  return conflictReply({
    status: "conflict",
    slot: toSlotAnswer(slot),
    version: slot.version,
    updatedAt: slot.updatedAt,
    details,
  });
}

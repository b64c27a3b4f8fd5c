import type { SlotConflictWire, SyncAcceptedResponse } from "../../shared/contract/accounts.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { Deps } from "./deps.ts";
import type { Replayed } from "../../shared/bus/reply.ts";
import type { WriteKey } from "../../shared/idempotency.ts";
import { acceptedSync, intervalWarnings, snapshotWrites, syncStamp, updateWithHistory } from "./history.ts";
import { activeSlotForWrite } from "./load.ts";
import { type SlotDoc, toSlotResponse } from "./repo.ts";
import { earlierAnswer, writeMark } from "./write-mark.ts";

/**
 * Route 15. The version check lives in the store's single conditional update, so of N concurrent
 * syncs from one base version exactly one is accepted.
 */
export async function syncSlot(
  deps: Deps,
  msg: RouteMessage<typeof contractRoutes.syncSlot>,
  key?: WriteKey,
): Promise<SyncAcceptedResponse | SlotConflictWire | Replayed> {
  const { repo } = deps;
  const { tenant, body } = msg;
  const { accountId } = msg.session;
  const slot = await activeSlotForWrite(repo, accountId, msg.params.slotId);
  if (slot.version !== body.baseVersion) return (await earlierAnswer(deps, slot, slot._id, key)) ?? conflict(slot);

  const stamp = syncStamp(deps, tenant.plan, slot);
  const warnings = intervalWarnings(slot.lastSyncAt, tenant.syncPolicy.minRemoteSyncIntervalSeconds, stamp.now);
  const slotInfo = body.slotInfo ?? JSON.parse(slot.slotInfo);
  const version = body.baseVersion + 1;
  const snapshot = stamp.snapshot ? snapshotWrites(deps, tenant.plan, { ownerId: slot._id, accountId, seq: stamp.seq, version, payload: { slotInfo, data: body.data }, at: stamp.now }) : undefined;
  // One commit: the new version, its snapshot and the trim of the oldest.
  const { updated, historyRetained } = await updateWithHistory(
    deps,
    repo.slots,
    { _id: slot._id, version: body.baseVersion, status: "active" },
    { slotInfo: JSON.stringify(slotInfo), data: JSON.stringify(body.data), version, ...stamp.changes, ...writeMark(key, version, warnings) },
    snapshot,
  );
  if (!updated) {
    // Another write won between the read and the update (perhaps this key's own earlier attempt,
    // still running when the gateway gave up on it): answer with the state that won.
    const current = await activeSlotForWrite(repo, accountId, msg.params.slotId);
    return (await earlierAnswer(deps, current, current._id, key)) ?? conflict(current);
  }

  return acceptedSync(version, stamp, historyRetained, warnings);
}

function conflict(slot: SlotDoc): SlotConflictWire {
  return { status: "conflict", slot: toSlotResponse(slot), version: slot.version, updatedAt: slot.updatedAt, details: { reason: "base_version_mismatch" } };
}

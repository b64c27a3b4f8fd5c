import { fail } from "../../../shared/contract/errors.ts";
import type { DataRestorePointList, SlotRestorePointList } from "../../../shared/contract/restore-points.ts";
import type { RouteMessage } from "../../../shared/contract/route.ts";
import type { contractRoutes } from "../../../shared/contract/routes.ts";
import { jsonByteLength } from "../../../shared/util/json.ts";
import type { Deps } from "../deps.ts";
import { loadAccount } from "../load.ts";
import { activeKeyOf, type SlotDoc } from "../repo.ts";
import { keptVersion, restorePointsPage } from "./restore-points.ts";

type Routes = typeof contractRoutes;

/** The player's active slot with this id; reads of history answer 404 for any other (docs/using-the-api.md#restoring-a-slot). */
async function activeSlot(
  deps: Deps,
  msg: RouteMessage<Routes["slotHistory"]> | RouteMessage<Routes["slotVersion"]>,
): Promise<SlotDoc> {
  await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  const slot = await deps.repo.slots.findOne({ activeKey: activeKeyOf(msg.session.accountId, msg.params.slotId) });
  if (!slot) throw fail.notFound("Slot");
  return slot;
}

/** A page of the slot's restore points, newest first, each with the `slotInfo` of its version. */
export async function slotHistory(deps: Deps, msg: RouteMessage<Routes["slotHistory"]>): Promise<SlotRestorePointList> {
  const slot = await activeSlot(deps, msg);
  const { page, next } = await restorePointsPage(deps, slot, msg.query.limit, msg.query.cursor);
  const restorePoints = page.map(({ payload, ...p }) => ({
    ...p,
    sizeBytes: jsonByteLength(payload.data),
    slotInfo: payload.slotInfo as Record<string, unknown>,
  }));
  return { accountId: slot.accountId, slotId: slot.slotId, restorePoints, ...(next ? { next } : {}) };
}

/** One kept version of the slot, in full; 404 when it is not kept. */
export async function slotVersion(deps: Deps, msg: RouteMessage<Routes["slotVersion"]>) {
  const slot = await activeSlot(deps, msg);
  const snapshot = await keptVersion(deps, slot, msg.params.version);
  if (!snapshot) throw fail.notFound(`Restore point ${msg.params.version}`);
  const { slotInfo, data } = JSON.parse(snapshot.payload);
  return { slotId: slot.slotId, version: snapshot.version, createdAt: snapshot.createdAt, slotInfo, data };
}

/** A page of the restore points of the account's data, newest first. */
export async function dataHistory(deps: Deps, msg: RouteMessage<Routes["dataHistory"]>): Promise<DataRestorePointList> {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  const { page, next } = await restorePointsPage(deps, account, msg.query.limit, msg.query.cursor);
  const restorePoints = page.map(({ payload, ...p }) => ({ ...p, sizeBytes: jsonByteLength(payload.accountData) }));
  return { accountId: account._id, restorePoints, ...(next ? { next } : {}) };
}

/** One kept version of the account's data; 404 when it is not kept. */
export async function dataVersion(deps: Deps, msg: RouteMessage<Routes["dataVersion"]>) {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  const snapshot = await keptVersion(deps, account, msg.params.version);
  if (!snapshot) throw fail.notFound(`Restore point ${msg.params.version}`);
  return {
    version: snapshot.version,
    createdAt: snapshot.createdAt,
    accountData: JSON.parse(snapshot.payload).accountData,
  };
}

import type { EditAccountDataRequest, EditSlotRequest } from "../../../shared/contract/desk.ts";
import type { Tenant } from "../../../shared/contract/tenant.ts";
import type { Deps } from "../deps.ts";
import { historyPlan } from "../history/restore-points.ts";
import { activeSlotForWrite } from "../load.ts";
import { syncSlot } from "../slots/sync-slot.ts";
import { syncAccountData } from "../sync-account-data.ts";
import { adminAccount } from "./admin-target.ts";

/**
 * What an operator's edit stands in for a runtime key's tenant: operator routes carry none, so the
 * plan is the one the owner's history is kept under (restore-points.ts), and no interval warning
 * applies (an operator is not a device).
 */
async function operatorTenant(deps: Deps, envId: string, ownerId: string): Promise<Tenant> {
  const plan = await historyPlan(deps, ownerId);
  return { envId, plan, syncPolicy: { minRemoteSyncIntervalSeconds: 0 } } as unknown as Tenant;
}

/**
 * An operator's edit of a slot (docs/operators.md#a-player-says-their-save-is-gone) is a device's sync
 * (sync-slot.ts): the same conditional write on `baseVersion`, so a stale edit gets the 409 with what
 * is stored, and a device still on an older version gets the 409 with the edit on its next sync.
 */
export async function adminEditSlot(deps: Deps, accountId: string, slotId: string, body: EditSlotRequest) {
  const account = await adminAccount(deps, accountId);
  const slot = await activeSlotForWrite(deps.repo, accountId, slotId);
  const tenant = await operatorTenant(deps, account.envId, slot._id);
  const { reason: _, ...sync } = body;
  const msg = { tenant, session: { accountId }, params: { accountId, slotId }, body: sync } as unknown as Parameters<
    typeof syncSlot
  >[1];
  return syncSlot(deps, msg, undefined);
}

/** The same for accountData, through route 8's write (sync-account-data.ts). */
export async function adminEditAccountData(deps: Deps, accountId: string, body: EditAccountDataRequest) {
  const account = await adminAccount(deps, accountId);
  const tenant = await operatorTenant(deps, account.envId, account._id);
  const msg = {
    tenant,
    session: { accountId },
    params: { accountId },
    body: { baseVersion: body.baseVersion, accountData: body.accountData },
  } as unknown as Parameters<typeof syncAccountData>[1];
  return syncAccountData(deps, msg, undefined);
}

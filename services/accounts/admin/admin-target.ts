import { fail } from "../../../shared/contract/errors.ts";
import type { Deps } from "../deps.ts";
import { newestWithStatus } from "../load.ts";
import { type AccountDoc, activeKeyOf, type SlotDoc } from "../repo.ts";

/**
 * The account an operator's history or restore acts on, in any environment. Suspended accounts are
 * fine (support may repair a save while a player is locked out); a deleted one is 410, its history
 * already queued for erasure.
 */
export async function adminAccount(deps: Deps, accountId: string): Promise<AccountDoc> {
  const account = await deps.repo.accounts.get(accountId);
  if (!account) throw fail.notFound("Account");
  if (account.status === "deleted") throw fail.accountDeleted();
  return account;
}

/**
 * Whose history a slot id names: the active slot, else the newest archived one (its restore points
 * can still be read, though a restore needs it active). A deleted slot's history is erased: 404.
 */
export async function slotWithHistory(deps: Deps, accountId: string, slotId: string): Promise<SlotDoc> {
  const slot =
    (await deps.repo.slots.findOne({ activeKey: activeKeyOf(accountId, slotId) })) ??
    (await newestWithStatus(deps.repo, accountId, slotId, "archived"));
  if (!slot) throw fail.notFound("Slot");
  return slot;
}

import { fail } from "../../shared/contract/errors.ts";
import type { Deps } from "./deps.ts";
import { type AccountDoc, activeKeyOf, type Repo, type SlotDoc, type SlotStatus } from "./repo.ts";

/** The caller's account, usable for reads and writes: deleted is 410, suspended 403, foreign 404. */
export async function loadAccount({ repo }: Deps, envId: string, accountId: string): Promise<AccountDoc> {
  const account = await repo.accounts.get(accountId);
  if (!account || account.envId !== envId) throw fail.notFound("Account");
  return usable(account);
}

/** What a slot route works on: the caller's account (loadAccount) and the slot id in its path. */
export async function slotRoute(
  deps: Deps,
  msg: { tenant: { envId: string }; session: { accountId: string }; params: { slotId: string } },
) {
  const account = await loadAccount(deps, msg.tenant.envId, msg.session.accountId);
  return { account, accountId: account._id, slotId: msg.params.slotId };
}

export function usable(account: AccountDoc): AccountDoc {
  if (account.status === "deleted") throw fail.accountDeleted();
  if (account.status === "suspended") throw fail.accountSuspended();
  return account;
}

/** The active slot with this id, or the error a write to a missing one gets (docs/api-rules.md#slots). */
export async function activeSlotForWrite(repo: Repo, accountId: string, slotId: string): Promise<SlotDoc> {
  const slot = await repo.slots.findOne({ activeKey: activeKeyOf(accountId, slotId) });
  if (slot) return slot;
  throw await whyNoActiveSlot(repo, accountId, slotId);
}

/** The newest generation of a slot id in one status, however many generations the id has had. */
export const newestWithStatus = (repo: Repo, accountId: string, slotId: string, status: SlotStatus) =>
  repo.slots.findOne({ accountId, slotId, status }, { field: "createdAt", direction: -1 });

/** Archived wins over deleted when both exist: the player can still see and restore it. */
export async function whyNoActiveSlot(repo: Repo, accountId: string, slotId: string) {
  if (await newestWithStatus(repo, accountId, slotId, "archived")) return fail.slotArchived(slotId);
  if (await newestWithStatus(repo, accountId, slotId, "deleted")) return fail.slotDeleted(slotId);
  return fail.notFound("Slot");
}

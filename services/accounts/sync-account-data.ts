import type { AccountConflictWire, SyncAcceptedResponse } from "../../shared/contract/accounts.ts";
import { Limits } from "../../shared/contract/common.ts";
import { fail } from "../../shared/contract/errors.ts";
import type { RouteMessage } from "../../shared/contract/route.ts";
import type { contractRoutes } from "../../shared/contract/routes.ts";
import type { IdempotencyRecordId } from "../../shared/serving/idempotency.ts";
import { type Conflict, conflict as conflictReply, type Replayed } from "../../shared/serving/reply.ts";
import { syncFrom } from "../../shared/synced/sync-flow.ts";
import { jsonByteLength } from "../../shared/util/json.ts";
import { accountDataBytes } from "./account-bytes.ts";
import type { Deps } from "./deps.ts";
import { commitSync } from "./history/commit-sync.ts";
import { loadAccount, usable } from "./load.ts";
import { type AccountDoc, activeSlotsOf, toAccountResponse } from "./repo.ts";
import { earlierAnswer } from "./write-mark.ts";

type Message = RouteMessage<typeof contractRoutes.syncAccountData>;

/**
 * Shallow top-level merge; a null value removes the key. Keys are defined, not assigned: assigning
 * `__proto__` would set the prototype instead of storing the key.
 */
export function applyPatch(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return next;
}

type Answer = SyncAcceptedResponse | Conflict<AccountConflictWire> | Replayed<SyncAcceptedResponse>;

/** Route 8: replace or patch accountData when `baseVersion` is current; otherwise answer the conflict. */
export async function syncAccountData(deps: Deps, msg: Message, key?: IdempotencyRecordId): Promise<Answer> {
  const { repo } = deps;
  const { tenant, body } = msg;
  const account = await loadAccount(deps, tenant.envId, msg.session.accountId);
  return syncFrom(account, body.baseVersion, {
    async commit() {
      const next = body.accountData ?? applyPatch(JSON.parse(account.accountData), body.accountDataPatch!);
      const size = jsonByteLength(next);
      if (size > Limits.accountDataBytes) throw fail.payloadTooLarge("accountData", Limits.accountDataBytes, size);
      return commitSync(deps, tenant, account, key, {
        collection: repo.accounts,
        doc: account,
        changes: { accountData: JSON.stringify(next) },
        payload: { accountData: next },
        bytesOf: accountDataBytes,
      });
    },
    // Lost a race after the read: answer with whatever won.
    async reread() {
      const current = await repo.accounts.get(account._id);
      if (!current) throw fail.notFound("Account");
      return current;
    },
    own: (current) => earlierAnswer(deps, current, current._id, key),
    conflict: (current) => conflict(deps, usable(current)),
  });
}

async function conflict(deps: Deps, account: AccountDoc): Promise<Conflict<AccountConflictWire>> {
  const view = toAccountResponse(account, await activeSlotsOf(deps.repo, account._id));
  const details = { reason: "base_version_mismatch" } as const;
  return conflictReply({
    status: "conflict",
    account: view,
    version: account.version,
    updatedAt: account.updatedAt,
    details,
  });
}

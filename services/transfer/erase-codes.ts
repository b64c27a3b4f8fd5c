import type { Deps } from "./deps.ts";

/**
 * A deleted account's codes are spent for good. Each keeps only its hash and expiry, so that a code
 * typed later still answers 410 `account_deleted` rather than looking like a guess. Idempotent: the
 * cleanup worker may ask twice.
 */
export async function eraseCodes(deps: Deps, accountId: string): Promise<{ erased: number }> {
  // And the records of its consumes, which would hand out a session again (docs/api-rules.md#idempotent-retries).
  await deps.idempotency.forget(accountId);
  return { erased: await deps.repo.codes.updateMany({ accountId }, { status: "accountDeleted", deviceLabel: null }) };
}

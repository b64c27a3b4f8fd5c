import type { AccountResponse, AccountSlotSummary } from "../../shared/contract/accounts.ts";
import { defaultSyncPolicy, Limits } from "../../shared/contract/common.ts";
import type { PlanCatalog } from "../../shared/contract/plans.ts";
import { accepted, onWire } from "../../shared/serving/reply.ts";
import { jsonByteLength } from "../../shared/util/json.ts";

/** Room for the reply envelope's headers (request id and the like). */
const headerRoom = 1024;
const sized = (bytes: number) => ({ s: "x".repeat(bytes - 8) }); // JSON exactly `bytes` long
const maxVersion = Number.MAX_SAFE_INTEGER;

/**
 * Bytes of the largest reply the accounts service can send under `plans`: the account view with the
 * biggest plan's full slot cap, every field at its contract limit. The account view rides in GET
 * account, the account-data 409, archive, delete-slot and create-slot answers (the last with the new
 * slot's summary beside it; the gateway adds its data); the create envelope carries one full slot besides it.
 */
export function largestReplyBytes(plans: PlanCatalog): number {
  const cap = Math.max(...Object.values(plans).map((p) => p.maxActiveSlots));
  const at = new Date().toISOString();
  const accountId = `acc_${"a".repeat(124)}`;
  const summary = (n: number): AccountSlotSummary => ({
    slotId: String(n).padStart(64, "s"),
    slotInfo: sized(Limits.slotInfoBytes),
    version: maxVersion,
    status: "active",
    updatedAt: at,
  });
  const view = (slots: number): AccountResponse => ({
    accountId,
    accountData: sized(Limits.accountDataBytes),
    slots: Array.from({ length: slots }, (_, n) => summary(n)),
    version: maxVersion,
  });
  const syncPolicy = { ...defaultSyncPolicy, minRemoteSyncIntervalSeconds: maxVersion };
  const replies = [
    {
      status: "conflict",
      account: view(cap),
      version: maxVersion,
      updatedAt: at,
      details: { reason: "base_version_mismatch" },
    },
    {
      accountId,
      slotId: "s".repeat(64),
      deletedAt: at,
      alreadyDeleted: false,
      cleanupQueued: true,
      account: view(cap),
    },
    { ...summary(0), accountId, account: view(cap), syncPolicy },
    {
      accountId,
      accountSessionToken: `sps_${"t".repeat(43)}`,
      account: view(1),
      slot: { ...summary(0), data: sized(Limits.slotDataBytes) },
      syncPolicy,
    },
  ];
  // Each rides as a reply (its kind beside it) inside the bus's envelope.
  return Math.max(...replies.map((value) => jsonByteLength({ ok: true, value: onWire(accepted(value)) }))) + headerRoom;
}

/** Stops start-up when a reply the plans allow could not cross the bus. */
export function checkPayloadBudget(plans: PlanCatalog, maxPayload: number): void {
  const needed = largestReplyBytes(plans);
  if (needed <= maxPayload) return;
  const cap = Math.max(...Object.values(plans).map((p) => p.maxActiveSlots));
  throw new Error(
    `SAVEPOINT_PLANS: a plan allows ${cap} active slots per account, so an account view can be ${needed} bytes, ` +
      `more than the NATS server's max_payload of ${maxPayload} bytes. Lower maxActiveSlots or raise max_payload in the NATS server's configuration.`,
  );
}

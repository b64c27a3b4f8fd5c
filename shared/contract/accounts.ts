import { z } from "zod";
import { requestJson } from "../util/json.ts";
import { JsonText } from "../util/json-text.ts";
import { AccountId, DeviceLabel, freeForm, Limits, SlotId, SyncPolicy, Timestamp, Version } from "./common.ts";

/** An active slot without its `data`: what listings carry, so an account view stays small. */
export const AccountSlotSummary = z
  .object({
    slotId: z.string().describe("The slot's name, unique among the account's active slots."),
    slotInfo: freeForm().describe(
      "The small summary a slot picker shows (level, play time, ...), exactly as last synced.",
    ),
    version: Version.describe("The slot's version: send it as `baseVersion` on the next sync of this slot."),
    status: z.literal("active").describe("Always `active`: archived and deleted slots are not listed."),
    updatedAt: Timestamp.describe("When the slot was last written."),
  })
  .meta({ id: "AccountSlotSummary" });
export type AccountSlotSummary = z.infer<typeof AccountSlotSummary>;

export const SlotResponse = AccountSlotSummary.extend({
  data: freeForm().describe("The slot's full playable state, exactly as last synced."),
}).meta({ id: "SlotResponse" });
export type SlotResponse = z.infer<typeof SlotResponse>;

/** The account view: `accountData` at its `version` and every active slot's summary, never cut off (docs/api-rules.md#slots). */
export const AccountResponse = z
  .object({
    accountId: AccountId.describe("The account's id, `acc_...`: the `{accountId}` of every account route."),
    accountData: freeForm().describe(
      "Account-wide private game data (currencies, unlocks, settings), shared by all slots.",
    ),
    slots: z
      .array(AccountSlotSummary)
      .describe("Every active slot, without `data`. Complete: the plan's active-slot cap bounds it."),
    version: Version.describe("The version of `accountData`: send it as `baseVersion` when syncing account data."),
  })
  .meta({ id: "AccountResponse" });
export type AccountResponse = z.infer<typeof AccountResponse>;

/** What opens a session on a device (routes 3 and 10): the token, shown only here, with the account and sync policy (docs/api-rules.md#sessions). */
export const AccountEnvelopeResponse = z
  .object({
    accountId: AccountId.describe("The account's id."),
    accountSessionToken: z
      .string()
      .describe(
        "This device's new session token, shown only in this answer: keep it on the device, send it as `X-Service-Account-Session`, never log it.",
      ),
    account: AccountResponse.describe("The account view."),
    slot: SlotResponse.optional().describe("The first slot, when the account was created with one."),
    syncPolicy: SyncPolicy,
  })
  .meta({ id: "AccountEnvelopeResponse" });
export type AccountEnvelopeResponse = z.infer<typeof AccountEnvelopeResponse>;

/**
 * Route 12's 201: the contract's `SlotResponse` at the top level and, beside it, the account envelope
 * the Persistly SDK's `createAccountSlot` reads: the account view after the create, the same slot
 * under `slot`, and the sync policy. Clients of either shape work unchanged.
 */
export const CreateSlotResponse = SlotResponse.extend({
  accountId: AccountId,
  account: AccountResponse,
  slot: SlotResponse,
  syncPolicy: SyncPolicy,
}).meta({ id: "CreateSlotResponse" });
export type CreateSlotResponse = z.infer<typeof CreateSlotResponse>;

export const ExternalAccountRef = z
  .strictObject({ provider: z.string().min(1).max(64), subject: z.string().min(1).max(256) })
  .meta({ id: "ExternalAccountRef" });

export const CreateAccountSlotRequest = z
  .strictObject({
    slotId: SlotId,
    slotInfo: freeForm(Limits.slotInfoBytes).optional(),
    data: freeForm(Limits.slotDataBytes),
  })
  .meta({ id: "CreateAccountSlotRequest" });
export type CreateAccountSlotRequest = z.infer<typeof CreateAccountSlotRequest>;

/** Route 3's body, every field optional; `playerRef` and `externalAccountRef` are no lookup keys (docs/api-rules.md#credentials). */
export const CreateAccountRequest = z
  .strictObject({
    playerRef: z.string().max(256).optional(),
    externalAccountRef: ExternalAccountRef.optional(),
    accountData: freeForm(Limits.accountDataBytes).optional(),
    slot: CreateAccountSlotRequest.optional(),
    /** The first session's device, as on transfer and sign-in (docs/using-the-api.md#sessions-and-devices). */
    deviceLabel: DeviceLabel.optional(),
  })
  .meta({ id: "CreateAccountRequest" });
export type CreateAccountRequest = z.infer<typeof CreateAccountRequest>;

export const SyncAccountDataRequest = z
  .strictObject({
    baseVersion: Version.describe(
      "The account `version` this change was made on: the write is accepted only while it is still current.",
    ),
    accountData: freeForm(Limits.accountDataBytes)
      .optional()
      .describe("The whole new `accountData`, at most 262,144 bytes as JSON."),
    accountDataPatch: freeForm(Limits.accountDataBytes)
      .optional()
      .describe(
        "Top-level keys to set; a `null` value removes that key. At most 262,144 bytes, and so is the merged result.",
      ),
  })
  .refine((b) => (b.accountData === undefined) !== (b.accountDataPatch === undefined), {
    message: "send exactly one of accountData and accountDataPatch",
    path: ["accountData"],
  })
  .meta({ id: "SyncAccountDataRequest" });
export type SyncAccountDataRequest = z.infer<typeof SyncAccountDataRequest>;

export const SyncAccountSlotRequest = z
  .strictObject({
    baseVersion: Version.describe(
      "The slot `version` this change was made on: the write is accepted only while it is still current.",
    ),
    slotInfo: freeForm(Limits.slotInfoBytes)
      .optional()
      .describe("The new summary, at most 16,384 bytes as JSON; omitted, the stored one is kept."),
    data: freeForm(Limits.slotDataBytes).describe("The slot's whole new state, at most 262,144 bytes as JSON."),
  })
  .meta({ id: "SyncAccountSlotRequest" });
export type SyncAccountSlotRequest = z.infer<typeof SyncAccountSlotRequest>;

/** An accepted write: the new version, one more than `baseVersion`; small, as the client holds what it sent (docs/api-rules.md#versions-and-conflicts). */
export const SyncAcceptedResponse = z
  .object({
    status: z.literal("accepted").describe("The write is durable."),
    version: Version.describe("The new version (the `baseVersion` plus 1): send it as `baseVersion` next time."),
    updatedAt: Timestamp.describe("When the write was accepted."),
    historyRetained: z
      .boolean()
      .describe(
        "True when this version was kept as a restore point. The plan decides how often: one per snapshot interval, every sync on `self_hosted`.",
      ),
    warnings: z
      .array(z.string())
      .optional()
      .meta({
        description:
          "Advice that did not stop the write. `sync_interval_below_policy`: this sync came sooner than the sync policy's " +
          "`minRemoteSyncIntervalSeconds` after the previous accepted one; save locally and sync less often.",
        examples: [["sync_interval_below_policy"]],
      }),
  })
  .meta({ id: "SyncAcceptedResponse" });
export type SyncAcceptedResponse = z.infer<typeof SyncAcceptedResponse>;

export const AccountConflictResponse = z
  .object({
    status: z.literal("conflict").describe("Nothing was written: `baseVersion` was not the current version."),
    account: AccountResponse.describe("The account as the server holds it now."),
    version: Version.describe("The current version of `accountData`: the `baseVersion` of the retry after merging."),
    updatedAt: Timestamp.describe("When `accountData` was last written."),
    details: z
      .object({
        reason: z.literal("base_version_mismatch"),
        serverAccountData: freeForm().describe("The server's `accountData`, the other side of the merge."),
        clientAccountData: freeForm().optional().describe("The replacement you sent, when you sent `accountData`."),
        clientAccountDataPatch: freeForm().optional().describe("The patch you sent, when you sent `accountDataPatch`."),
      })
      .describe("Both sides of the conflict: merge them (or pick one) and sync again from `version`."),
  })
  .meta({ id: "AccountConflictResponse" });
export type AccountConflictResponse = z.infer<typeof AccountConflictResponse>;

export const SlotConflictResponse = z
  .object({
    status: z.literal("conflict").describe("Nothing was written: `baseVersion` was not the slot's current version."),
    slot: SlotResponse.describe("The slot as the server holds it now."),
    version: Version.describe("The slot's current version: the `baseVersion` of the retry after merging."),
    updatedAt: Timestamp.describe("When the slot was last written."),
    details: z
      .object({
        reason: z.literal("base_version_mismatch"),
        serverSlot: z
          .object({ slotInfo: freeForm(), data: freeForm() })
          .describe("The server's `slotInfo` and `data`, the other side of the merge."),
        clientSlot: z
          .object({ slotInfo: freeForm().optional(), data: freeForm() })
          .describe("What you sent: `data`, and `slotInfo` when you sent it."),
      })
      .describe("Both sides of the conflict: merge them (or pick one) and sync again from `version`."),
  })
  .meta({ id: "SlotConflictResponse" });
export type SlotConflictResponse = z.infer<typeof SlotConflictResponse>;

/**
 * A 409 as the accounts service sends it over the bus: without `details`' copies of the server's and
 * the client's data. The gateway already holds both (the server's is in `account` or `slot`, the
 * client's is the request it validated) and adds them back, so the largest conflict still fits one
 * bus message.
 */
type Wire<T extends { details: object }> = Omit<T, "details"> & { details: { reason: "base_version_mismatch" } };
export type AccountConflictWire = Wire<AccountConflictResponse>;
export type SlotConflictWire = Wire<SlotConflictResponse>;

/** What the client sent, as the text its schema measured: spliced into the answer, not encoded again (json-text.ts). */
const asSent = <T extends object>(value: T): T => new JsonText(requestJson(value)) as unknown as T;

export const completeAccountConflict = (
  wire: AccountConflictWire,
  body: SyncAccountDataRequest,
): AccountConflictResponse => ({
  ...wire,
  details: {
    ...wire.details,
    serverAccountData: wire.account.accountData,
    ...(body.accountData !== undefined
      ? { clientAccountData: asSent(body.accountData) }
      : { clientAccountDataPatch: body.accountDataPatch }),
  },
});

export const completeSlotConflict = (wire: SlotConflictWire, body: SyncAccountSlotRequest): SlotConflictResponse => ({
  ...wire,
  details: {
    ...wire.details,
    serverSlot: { slotInfo: wire.slot.slotInfo, data: wire.slot.data },
    clientSlot: { ...(body.slotInfo !== undefined ? { slotInfo: body.slotInfo } : {}), data: asSent(body.data) },
  },
});

/**
 * Route 12's answer as the accounts service sends it over the bus: without the slot's `data`, which
 * the gateway holds (it is the request's) and adds back twice, so the answer beside a full account
 * view still fits one bus message.
 */
/** `data` only when it is no longer the request's: a replay of a slot synced since its creation. */
export type CreatedSlotWire = Omit<CreateSlotResponse, "data" | "slot"> & { data?: SlotResponse["data"] };

export const completeCreatedSlot = (
  wire: CreatedSlotWire | SlotResponse,
  body: CreateAccountSlotRequest,
): CreateSlotResponse | SlotResponse => {
  if (!("account" in wire)) return wire; // a replay recorded before the envelope was answered
  const { accountId, account, syncPolicy, data, ...summary } = wire;
  const slot = { ...summary, data: data ?? body.data };
  return { ...slot, accountId, account, slot, syncPolicy };
};

export const SlotListResponse = z
  .object({ accountId: AccountId, slots: z.array(AccountSlotSummary) })
  .meta({ id: "SlotListResponse" });
export type SlotListResponse = z.infer<typeof SlotListResponse>;

/** A slot delete: unreadable before this answer, erasure queued, a repeat says `alreadyDeleted` (docs/api-rules.md#slots). */
export const DeleteSlotResponse = z
  .object({
    accountId: AccountId,
    slotId: z.string(),
    deletedAt: Timestamp,
    alreadyDeleted: z.boolean(),
    cleanupQueued: z.boolean(),
    account: AccountResponse.optional(),
  })
  .meta({ id: "DeleteSlotResponse" });
export type DeleteSlotResponse = z.infer<typeof DeleteSlotResponse>;

export const DeleteAccountResponse = z
  .object({
    accountId: AccountId,
    deletedAt: Timestamp,
    deletedSlotCount: z.int().min(0),
    alreadyDeleted: z.boolean(),
    cleanupQueued: z.boolean(),
  })
  .meta({ id: "DeleteAccountResponse" });
export type DeleteAccountResponse = z.infer<typeof DeleteAccountResponse>;

export const AccountPath = z.strictObject({ accountId: AccountId });
export const SlotPath = z.strictObject({ accountId: AccountId, slotId: SlotId });

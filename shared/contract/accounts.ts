import { z } from "zod";
import { AccountId, Limits, SlotId, SyncPolicy, Timestamp, Version, freeForm } from "./common.ts";

/** Contract 2.2: a slot without its `data`. */
export const AccountSlotSummary = z
  .object({
    slotId: z.string(),
    slotInfo: freeForm(),
    version: Version,
    status: z.literal("active"),
    updatedAt: Timestamp,
  })
  .meta({ id: "AccountSlotSummary" });
export type AccountSlotSummary = z.infer<typeof AccountSlotSummary>;

export const SlotResponse = AccountSlotSummary.extend({ data: freeForm() }).meta({ id: "SlotResponse" });
export type SlotResponse = z.infer<typeof SlotResponse>;

/** Contract 2.1. */
export const AccountResponse = z
  .object({
    accountId: AccountId,
    accountData: freeForm(),
    slots: z.array(AccountSlotSummary),
    version: Version,
  })
  .meta({ id: "AccountResponse" });
export type AccountResponse = z.infer<typeof AccountResponse>;

/** Contract 2.3. */
export const AccountEnvelopeResponse = z
  .object({
    accountId: AccountId,
    accountSessionToken: z.string(),
    account: AccountResponse,
    slot: SlotResponse.optional(),
    syncPolicy: SyncPolicy,
  })
  .meta({ id: "AccountEnvelopeResponse" });
export type AccountEnvelopeResponse = z.infer<typeof AccountEnvelopeResponse>;

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

/** Contract 4.1; all fields optional. */
export const CreateAccountRequest = z
  .strictObject({
    playerRef: z.string().max(256).optional(),
    externalAccountRef: ExternalAccountRef.optional(),
    accountData: freeForm(Limits.accountDataBytes).optional(),
    slot: CreateAccountSlotRequest.optional(),
  })
  .meta({ id: "CreateAccountRequest" });
export type CreateAccountRequest = z.infer<typeof CreateAccountRequest>;

export const SyncAccountDataRequest = z
  .strictObject({
    baseVersion: Version,
    accountData: freeForm(Limits.accountDataBytes).optional(),
    accountDataPatch: freeForm(Limits.accountDataBytes).optional(),
  })
  .refine((b) => (b.accountData === undefined) !== (b.accountDataPatch === undefined), {
    message: "send exactly one of accountData and accountDataPatch",
    path: ["accountData"],
  })
  .meta({ id: "SyncAccountDataRequest" });
export type SyncAccountDataRequest = z.infer<typeof SyncAccountDataRequest>;

export const SyncAccountSlotRequest = z
  .strictObject({
    baseVersion: Version,
    slotInfo: freeForm(Limits.slotInfoBytes).optional(),
    data: freeForm(Limits.slotDataBytes),
  })
  .meta({ id: "SyncAccountSlotRequest" });
export type SyncAccountSlotRequest = z.infer<typeof SyncAccountSlotRequest>;

/** Contract 2.10. */
export const SyncAcceptedResponse = z
  .object({
    status: z.literal("accepted"),
    version: Version,
    updatedAt: Timestamp,
    historyRetained: z.boolean(),
    warnings: z.array(z.string()).optional(),
  })
  .meta({ id: "SyncAcceptedResponse" });
export type SyncAcceptedResponse = z.infer<typeof SyncAcceptedResponse>;

export const AccountConflictResponse = z
  .object({
    status: z.literal("conflict"),
    account: AccountResponse,
    version: Version,
    updatedAt: Timestamp,
    details: z.object({
      reason: z.literal("base_version_mismatch"),
      serverAccountData: freeForm(),
      clientAccountData: freeForm().optional(),
      clientAccountDataPatch: freeForm().optional(),
    }),
  })
  .meta({ id: "AccountConflictResponse" });
export type AccountConflictResponse = z.infer<typeof AccountConflictResponse>;

export const SlotConflictResponse = z
  .object({
    status: z.literal("conflict"),
    slot: SlotResponse,
    version: Version,
    updatedAt: Timestamp,
    details: z.object({
      reason: z.literal("base_version_mismatch"),
      serverSlot: z.object({ slotInfo: freeForm(), data: freeForm() }),
      clientSlot: z.object({ slotInfo: freeForm().optional(), data: freeForm() }),
    }),
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

export const completeAccountConflict = (wire: AccountConflictWire, body: SyncAccountDataRequest): AccountConflictResponse => ({
  ...wire,
  details: {
    ...wire.details,
    serverAccountData: wire.account.accountData,
    ...(body.accountData !== undefined ? { clientAccountData: body.accountData } : { clientAccountDataPatch: body.accountDataPatch }),
  },
});

export const completeSlotConflict = (wire: SlotConflictWire, body: SyncAccountSlotRequest): SlotConflictResponse => ({
  ...wire,
  details: {
    ...wire.details,
    serverSlot: { slotInfo: wire.slot.slotInfo, data: wire.slot.data },
    clientSlot: { ...(body.slotInfo !== undefined ? { slotInfo: body.slotInfo } : {}), data: body.data },
  },
});

export const SlotListResponse = z
  .object({ accountId: AccountId, slots: z.array(AccountSlotSummary) })
  .meta({ id: "SlotListResponse" });
export type SlotListResponse = z.infer<typeof SlotListResponse>;

/** Contract 2.11. */
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

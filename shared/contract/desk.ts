import { z } from "zod";
import { WorkspacePath } from "./admin.ts";
import { AccountId, Environment, freeForm, Limits, Timestamp, Version } from "./common.ts";
import { AdminSavePath } from "./save-history.ts";

/** Why an operator changed a player's data: kept in the audit entry of the change (docs/operators.md#a-player-says-their-save-is-gone). */
const Reason = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .describe("Why the operator made this change, in a sentence: kept in the audit entry.");

/** An operator's edit of a slot: a sync from `baseVersion` written as the next version, with the reason. */
export const EditSlotRequest = z
  .strictObject({
    baseVersion: Version.describe(
      "The slot version the edit was made on: a newer one is the usual 409 with the slot as it is now.",
    ),
    slotInfo: freeForm(Limits.slotInfoBytes).optional().describe("The new summary; omitted, the stored one is kept."),
    data: freeForm(Limits.slotDataBytes).describe("The slot's whole new state."),
    reason: Reason,
  })
  .meta({ id: "EditSlotRequest" });
export type EditSlotRequest = z.infer<typeof EditSlotRequest>;

/** An operator's edit of accountData, the same way. */
export const EditAccountDataRequest = z
  .strictObject({
    baseVersion: Version.describe("The accountData version the edit was made on: a newer one is the usual 409."),
    accountData: freeForm(Limits.accountDataBytes).describe("The whole new `accountData`."),
    reason: Reason,
  })
  .meta({ id: "EditAccountDataRequest" });
export type EditAccountDataRequest = z.infer<typeof EditAccountDataRequest>;

export const DataVersionPath = z.strictObject({ accountId: AccountId, version: z.coerce.number().int().min(1) });
export const DataRestorePointContent = z
  .object({ accountId: AccountId, version: z.int(), createdAt: Timestamp, accountData: freeForm() })
  .meta({ id: "DataRestorePointContent" });

export const SaveVersionPath = AdminSavePath.extend({ version: z.coerce.number().int().min(1) });
export const SaveRestorePointContent = z
  .object({ saveId: z.string(), version: z.int(), createdAt: Timestamp, metadata: freeForm(), state: freeForm() })
  .meta({ id: "SaveRestorePointContent" });

/** A player by any of their references, in every project and environment of the deployment. */
export const FindPlayersQuery = z
  .object({
    accountId: AccountId.optional(),
    playerRef: z.string().min(1).max(128).optional(),
    provider: z.string().min(1).max(32).optional(),
    subject: z.string().min(1).max(256).optional(),
    workspaceId: WorkspacePath.shape.workspaceId.optional().describe("Only accounts of this workspace's projects."),
  })
  .refine(
    (q) =>
      q.accountId !== undefined || q.playerRef !== undefined || (q.provider !== undefined && q.subject !== undefined),
    {
      message: "give accountId, playerRef, or provider and subject",
    },
  );
export const FoundPlayers = z
  .object({
    accounts: z.array(
      z.object({
        accountId: AccountId,
        projectId: z.string(),
        environment: Environment,
        status: z.enum(["active", "suspended", "deleted"]),
        playerRef: z.string().optional(),
        externalAccountRef: z.object({ provider: z.string(), subject: z.string() }).optional(),
        createdAt: Timestamp,
      }),
    ),
  })
  .meta({ id: "FoundPlayers" });
export type FoundPlayers = z.infer<typeof FoundPlayers>;

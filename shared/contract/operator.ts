import { z } from "zod";
import { gameConfigMaxBytes } from "./admin.ts";
import { AccountId, Environment, freeForm, SlotId, Timestamp } from "./common.ts";
import { SaveId, SaveResponse } from "./runtime.ts";

/** Reads the operator console needs besides the admin API's writes (docs/console.md). */

/** One kept game config version; `rolledBackFrom` names the version a rollback copied. */
export const GameConfigVersion = z
  .object({
    environment: Environment,
    version: z.int().min(1),
    enabled: z.boolean(),
    checksum: z.string(),
    sizeBytes: z.int().min(0),
    publishedAt: Timestamp,
    rolledBackFrom: z.int().optional(),
  })
  .meta({ id: "GameConfigVersion" });
export const GameConfigVersionList = z
  .object({ environment: Environment, activeVersion: z.int().min(0), versions: z.array(GameConfigVersion) })
  .meta({ id: "GameConfigVersionList" });
export const GameConfigContent = GameConfigVersion.extend({ data: freeForm(gameConfigMaxBytes) }).meta({
  id: "GameConfigContent",
});
/** The live config: version 0 and no data until something is published. */
export const ActiveGameConfig = z
  .object({
    environment: Environment,
    version: z.int().min(0),
    enabled: z.boolean(),
    data: freeForm(gameConfigMaxBytes).optional(),
  })
  .meta({ id: "ActiveGameConfig" });
export const GameConfigVersionPath = z.strictObject({
  projectId: z.string().regex(/^prj_[A-Za-z0-9]+$/),
  env: Environment,
  version: z.coerce.number().int().min(1),
});
export const RollbackGameConfigRequest = z
  .strictObject({ version: z.int().min(1) })
  .meta({ id: "RollbackGameConfigRequest" });

/** Operators only (never a runtime route): accounts of one environment by a player's references. */
export const FindAccountsQuery = z
  .object({
    playerRef: z.string().min(1).max(128).optional(),
    provider: z.string().min(1).max(32).optional(),
    subject: z.string().min(1).max(256).optional(),
  })
  .refine((q) => q.playerRef !== undefined || (q.provider !== undefined && q.subject !== undefined), {
    message: "give playerRef, or provider and subject",
  });
export const FoundAccounts = z
  .object({
    accounts: z.array(
      z.object({
        accountId: AccountId,
        status: z.enum(["active", "suspended", "deleted"]),
        playerRef: z.string().optional(),
        createdAt: Timestamp,
      }),
    ),
  })
  .meta({ id: "FoundAccounts" });

/** One restore point's content. */
export const RestorePointPath = z.strictObject({
  accountId: AccountId,
  slotId: SlotId,
  version: z.coerce.number().int().min(1),
});
export const RestorePointContent = z
  .object({
    accountId: AccountId,
    slotId: SlotId,
    version: z.int(),
    createdAt: Timestamp,
    slotInfo: freeForm(),
    data: freeForm(),
  })
  .meta({ id: "RestorePointContent" });

/** A slot as stored now, whatever its status (the newest generation of that id). */
export const AdminSlot = z
  .object({
    accountId: AccountId,
    slotId: SlotId,
    status: z.enum(["active", "archived", "deleted"]),
    version: z.int(),
    slotInfo: freeForm(),
    data: freeForm(),
    updatedAt: Timestamp,
  })
  .meta({ id: "AdminSlot" });

export const AdminSavePath = z.strictObject({
  projectId: z.string().regex(/^prj_[A-Za-z0-9]+$/),
  env: Environment,
  saveId: SaveId,
});
export const AdminSave = SaveResponse;

/** The audit log (docs/console.md): every admin change, who made it, and the target before and after. */
export const AuditEntry = z
  .object({
    auditId: z.string(),
    at: Timestamp,
    actor: z.string(),
    action: z.string(),
    method: z.string(),
    path: z.string(),
    target: z.string(),
    targets: z.record(z.string(), z.string()),
    status: z.int(),
    before: z.unknown(),
    after: z.unknown(),
    reason: z
      .string()
      .optional()
      .describe("Why the operator made the change, where its route takes one (an edit of a player's data)."),
  })
  .meta({ id: "AuditEntry" });
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AuditPath = z.strictObject({ auditId: z.string().regex(/^aud_[A-Za-z0-9_]+$/) });
export const AuditQuery = z.object({
  target: z.string().min(1).max(200).optional(),
  action: z
    .string()
    .regex(/^admin[A-Za-z]+$/, "must be an admin operationId such as adminSetSyncPolicy")
    .optional(),
  since: Timestamp.optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const AuditList = z.object({ entries: z.array(AuditEntry), next: z.int().optional() }).meta({ id: "AuditList" });

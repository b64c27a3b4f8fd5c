import { z } from "zod";
import { SyncPolicy, Timestamp } from "./common.ts";

/** Why a sync policy change was made, in the operator's words (docs/api-rules.md#sync-policy-and-game-config). */
export const PolicyNote = z.string().trim().min(1).max(500);

/**
 * One version of a project's sync policy: every change is the next version, with who made it (the
 * request's `X-Savepoint-Actor`) and an optional note. A rollback is a new version that names the one it copied.
 */
export const SyncPolicyVersion = z
  .object({
    version: z.int().min(1),
    author: z.string(),
    note: z.string().optional(),
    createdAt: Timestamp,
    rolledBackFrom: z.int().min(1).optional(),
    policy: SyncPolicy,
  })
  .meta({ id: "SyncPolicyVersion" });
export const SyncPolicyVersionList = z
  .object({ projectId: z.string(), currentVersion: z.int().min(1), versions: z.array(SyncPolicyVersion) })
  .meta({ id: "SyncPolicyVersionList" });
export const SyncPolicyVersionPath = z.strictObject({
  projectId: z.string().regex(/^prj_[A-Za-z0-9]+$/),
  version: z.coerce.number().int().min(1),
});
export const RollbackSyncPolicyRequest = z
  .strictObject({ version: z.int().min(1), note: PolicyNote.optional() })
  .meta({ id: "RollbackSyncPolicyRequest" });

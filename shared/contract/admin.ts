import { z } from "zod";
import { AccountId, Environment, SlotId, SyncPolicy, Timestamp, freeForm } from "./common.ts";
import { PlanName } from "../plans.ts";

const Name = z.string().trim().min(1).max(100);

export const CreateWorkspaceRequest = z.strictObject({ name: Name, plan: PlanName.optional() }).meta({ id: "CreateWorkspaceRequest" });
export const WorkspaceResponse = z.object({ workspaceId: z.string(), plan: PlanName }).meta({ id: "WorkspaceResponse" });

export const WorkspacePath = z.strictObject({ workspaceId: z.string().regex(/^wsp_[A-Za-z0-9]+$/) });
export const CreateProjectRequest = z.strictObject({ name: Name }).meta({ id: "CreateProjectRequest" });
export const ProjectResponse = z
  .object({ projectId: z.string(), environments: z.array(Environment) })
  .meta({ id: "ProjectResponse" });

export const ProjectPath = z.strictObject({ projectId: z.string().regex(/^prj_[A-Za-z0-9]+$/) });
export const ProjectEnvPath = ProjectPath.extend({ env: Environment });
export const CreateRuntimeKeyRequest = z.strictObject({ label: z.string().max(100).optional() }).meta({ id: "CreateRuntimeKeyRequest" });
export const RuntimeKeyResponse = z.object({ keyId: z.string(), runtimeKey: z.string() }).meta({ id: "RuntimeKeyResponse" });

export const KeyPath = z.strictObject({ keyId: z.string().regex(/^key_[A-Za-z0-9]+$/) });
export const RevokeRuntimeKeyResponse = z.object({ keyId: z.string(), revokedAt: Timestamp }).meta({ id: "RevokeRuntimeKeyResponse" });

export const SyncPolicyPatch = SyncPolicy.partial().strict().meta({ id: "SyncPolicyPatch" });

export const AdminAccountPath = z.strictObject({ accountId: AccountId });
export const AdminSlotPath = AdminAccountPath.extend({ slotId: SlotId });

/** Operator view of one account: archived slots and sessions too, never a token or hash. */
export const AdminAccountResponse = z
  .object({
    account: z.object({
      accountId: AccountId,
      projectId: z.string(),
      environment: Environment,
      status: z.enum(["active", "suspended", "deleted"]),
      accountData: freeForm(),
      version: z.int(),
      playerRef: z.string().optional(),
      externalAccountRef: z.object({ provider: z.string(), subject: z.string() }).optional(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
    slots: z.array(
      z.object({
        slotId: z.string(),
        status: z.enum(["active", "archived", "deleted"]),
        version: z.int(),
        slotInfo: freeForm(),
        createdAt: Timestamp,
        updatedAt: Timestamp,
      }),
    ),
    sessions: z.array(
      z.object({ sessionId: z.string(), createdAt: Timestamp, revokedAt: Timestamp.optional(), deviceLabel: z.string().optional() }),
    ),
  })
  .meta({ id: "AdminAccountResponse" });
export type AdminAccountResponse = z.infer<typeof AdminAccountResponse>;

export const AccountStatusResponse = z
  .object({ accountId: AccountId, status: z.enum(["active", "suspended", "deleted"]) })
  .meta({ id: "AccountStatusResponse" });

import { z } from "zod";
import * as A from "./accounts.ts";
import * as Admin from "./admin.ts";
import * as I from "./identity.ts";
import * as R from "./runtime.ts";
import { SyncPolicy } from "./common.ts";
import { route } from "./route.ts";

const session = [401, 402, 403, 410, 429, 500] as const;

/** The 18 routes of the API contract (section 4), in its order. */
export const contractRoutes = {
  health: route({ number: 1, operationId: "health", method: "GET", path: "/healthz", summary: "Health check", tag: "runtime", auth: "none", ok: [200, R.HealthResponse], errors: [] }),
  runtimeConfig: route({ number: 2, operationId: "getRuntimeConfig", method: "GET", path: "/api/v1/runtime-config", summary: "Sync policy and game config", tag: "runtime", auth: "runtimeKey", query: R.RuntimeConfigQuery, ok: [200, R.RuntimeConfigResponse], errors: [401, 402, 429, 500] }),
  createAccount: route({ number: 3, operationId: "createAccount", method: "POST", path: "/api/v1/accounts", summary: "Create an account (and optionally its first slot)", tag: "accounts", auth: "runtimeKey", body: A.CreateAccountRequest, bodyOptional: true, ok: [201, A.AccountEnvelopeResponse], errors: [400, 401, 402, 413, 429, 500], subject: "accounts.account.create" }),
  authSession: route({ number: 4, operationId: "exchangeAuthSession", method: "POST", path: "/api/v1/accounts/auth/session", summary: "Exchange an identity-provider token for a session", tag: "auth", auth: "runtimeKey", body: I.AuthSessionRequest, ok: [200, I.AuthSessionResponse], errors: [400, 401, 402, 403, 409, 429, 500] }),
  authProviders: route({ number: 5, operationId: "listLinkedProviders", method: "GET", path: "/api/v1/accounts/auth/providers", summary: "Providers linked to the account", tag: "auth", auth: "runtimeKey", ok: [200, z.array(I.LinkedAuthProvider)], errors: [401, 402, 429, 500] }),
  getAccount: route({ number: 6, operationId: "getAccount", method: "GET", path: "/api/v1/accounts/:accountId", summary: "Read an account", tag: "accounts", auth: "session", params: A.AccountPath, ok: [200, A.AccountResponse], errors: session, subject: "accounts.account.get" }),
  deleteAccount: route({ number: 7, operationId: "deleteAccount", method: "DELETE", path: "/api/v1/accounts/:accountId", summary: "Delete an account permanently", tag: "accounts", auth: "session", params: A.AccountPath, ok: [200, A.DeleteAccountResponse], errors: [401, 402, 403, 429, 500], subject: "accounts.account.delete" }),
  syncAccountData: route({ number: 8, operationId: "syncAccountData", method: "POST", path: "/api/v1/accounts/:accountId/data/sync", summary: "Replace or patch accountData", tag: "accounts", auth: "session", params: A.AccountPath, body: A.SyncAccountDataRequest, ok: [200, A.SyncAcceptedResponse], conflict: A.AccountConflictResponse, completeConflict: A.completeAccountConflict, errors: [400, 401, 402, 403, 409, 410, 413, 429, 500], subject: "accounts.data.sync" }),
  createTransferCode: route({ number: 9, operationId: "createTransferCode", method: "POST", path: "/api/v1/accounts/:accountId/transfer-codes", summary: "Create a one-time transfer code", tag: "transfer", auth: "session", params: A.AccountPath, body: I.CreateTransferCodeRequest, bodyOptional: true, ok: [201, I.CreateTransferCodeResponse], errors: [400, 401, 402, 403, 410, 429, 500] }),
  consumeTransferCode: route({ number: 10, operationId: "consumeTransferCode", method: "POST", path: "/api/v1/account-transfer-codes/consume", summary: "Consume a transfer code on a new device", tag: "transfer", auth: "runtimeKey", body: I.ConsumeTransferCodeRequest, ok: [200, A.AccountEnvelopeResponse], errors: [400, 401, 402, 410, 429, 500] }),
  listSlots: route({ number: 11, operationId: "listSlots", method: "GET", path: "/api/v1/accounts/:accountId/slots", summary: "List active slots", tag: "slots", auth: "session", params: A.AccountPath, ok: [200, A.SlotListResponse], errors: session, subject: "accounts.slot.list" }),
  createSlot: route({ number: 12, operationId: "createSlot", method: "POST", path: "/api/v1/accounts/:accountId/slots", summary: "Create a named slot", tag: "slots", auth: "session", params: A.AccountPath, body: A.CreateAccountSlotRequest, ok: [201, A.SlotResponse], errors: [400, 401, 402, 403, 409, 410, 413, 429, 500], subject: "accounts.slot.create" }),
  getSlot: route({ number: 13, operationId: "getSlot", method: "GET", path: "/api/v1/accounts/:accountId/slots/:slotId", summary: "Read a slot with its data", tag: "slots", auth: "session", params: A.SlotPath, ok: [200, A.SlotResponse], errors: session, subject: "accounts.slot.get" }),
  deleteSlot: route({ number: 14, operationId: "deleteSlot", method: "DELETE", path: "/api/v1/accounts/:accountId/slots/:slotId", summary: "Delete a slot permanently", tag: "slots", auth: "session", params: A.SlotPath, ok: [200, A.DeleteSlotResponse], errors: [401, 402, 403, 429, 500], subject: "accounts.slot.delete" }),
  syncSlot: route({ number: 15, operationId: "syncSlot", method: "POST", path: "/api/v1/accounts/:accountId/slots/:slotId/sync", summary: "Sync a slot under optimistic concurrency", tag: "slots", auth: "session", params: A.SlotPath, body: A.SyncAccountSlotRequest, ok: [200, A.SyncAcceptedResponse], conflict: A.SlotConflictResponse, completeConflict: A.completeSlotConflict, errors: [400, 401, 402, 403, 409, 410, 413, 429, 500], subject: "accounts.slot.sync" }),
  archiveSlot: route({ number: 16, operationId: "archiveSlot", method: "POST", path: "/api/v1/accounts/:accountId/slots/:slotId/archive", summary: "Archive an active slot", tag: "slots", auth: "session", params: A.SlotPath, ok: [200, A.AccountResponse], errors: [401, 402, 403, 429, 500], subject: "accounts.slot.archive" }),
  stripeWebhook: route({ number: 17, operationId: "stripeWebhook", method: "POST", path: "/webhooks/stripe", summary: "Signed Stripe events", tag: "billing", auth: "none", body: R.WebhookEvent, ok: [200, R.WebhookResponse], errors: [400, 500] }),
  syncSave: route({ number: 18, operationId: "syncSave", method: "POST", path: "/api/v1/saves/:saveId/sync", summary: "Sync a save (save-based model)", tag: "saves", auth: "runtimeKey", params: z.strictObject({ saveId: R.SaveId }), body: R.SaveSyncRequest, ok: [200, R.SaveSyncResponse], conflict: R.SaveConflictResponse, errors: [400, 401, 402, 409, 413, 429, 500] }),
};

const admin = [400, 401, 404, 409, 500] as const;

/** Operator routes (decisions.md, Operators) this build serves. */
export const adminRoutes = {
  createWorkspace: route({ operationId: "adminCreateWorkspace", method: "POST", path: "/admin/v1/workspaces", summary: "Create a workspace", tag: "admin", auth: "admin", body: Admin.CreateWorkspaceRequest, ok: [201, Admin.WorkspaceResponse], errors: admin, subject: "config.workspace.create" }),
  createProject: route({ operationId: "adminCreateProject", method: "POST", path: "/admin/v1/workspaces/:workspaceId/projects", summary: "Create a project with stage and prod environments", tag: "admin", auth: "admin", params: Admin.WorkspacePath, body: Admin.CreateProjectRequest, ok: [201, Admin.ProjectResponse], errors: admin, subject: "config.project.create" }),
  createRuntimeKey: route({ operationId: "adminCreateRuntimeKey", method: "POST", path: "/admin/v1/projects/:projectId/environments/:env/runtime-keys", summary: "Create a runtime key (shown once)", tag: "admin", auth: "admin", params: Admin.ProjectEnvPath, body: Admin.CreateRuntimeKeyRequest, bodyOptional: true, ok: [201, Admin.RuntimeKeyResponse], errors: admin, subject: "config.runtime-key.create" }),
  revokeRuntimeKey: route({ operationId: "adminRevokeRuntimeKey", method: "DELETE", path: "/admin/v1/runtime-keys/:keyId", summary: "Revoke a runtime key at once", tag: "admin", auth: "admin", params: Admin.KeyPath, ok: [200, Admin.RevokeRuntimeKeyResponse], errors: admin, subject: "config.runtime-key.revoke" }),
  setSyncPolicy: route({ operationId: "adminSetSyncPolicy", method: "PUT", path: "/admin/v1/projects/:projectId/sync-policy", summary: "Change the project's sync policy", tag: "admin", auth: "admin", params: Admin.ProjectPath, body: Admin.SyncPolicyPatch, ok: [200, SyncPolicy], errors: admin, subject: "config.sync-policy.set" }),
  getAccount: route({ operationId: "adminGetAccount", method: "GET", path: "/admin/v1/accounts/:accountId", summary: "Operator view of an account", tag: "admin", auth: "admin", params: Admin.AdminAccountPath, query: Admin.AdminAccountQuery, ok: [200, Admin.AdminAccountResponse], errors: admin, subject: "accounts.admin.get" }),
  suspendAccount: route({ operationId: "adminSuspendAccount", method: "POST", path: "/admin/v1/accounts/:accountId/suspend", summary: "Suspend an account", tag: "admin", auth: "admin", params: Admin.AdminAccountPath, ok: [200, Admin.AccountStatusResponse], errors: admin, subject: "accounts.admin.suspend" }),
  unsuspendAccount: route({ operationId: "adminUnsuspendAccount", method: "POST", path: "/admin/v1/accounts/:accountId/unsuspend", summary: "Lift a suspension", tag: "admin", auth: "admin", params: Admin.AdminAccountPath, ok: [200, Admin.AccountStatusResponse], errors: admin, subject: "accounts.admin.unsuspend" }),
};

export const allRoutes = [...Object.values(contractRoutes), ...Object.values(adminRoutes)];

import * as A from "./accounts.ts";
import * as Admin from "./admin.ts";
import * as Op from "./operator.ts";
import { SyncPolicy } from "./common.ts";
import { adminDocs } from "./docs/admin.ts";
import { route } from "./route.ts";
import { operatorRoutes } from "./operator-routes.ts";
import { adminSaveRoutes } from "./restore-routes.ts";
import { adminDeskRoutes } from "./desk-routes.ts";
import * as S from "./settings.ts";
import { Overview, OverviewQuery } from "./overview.ts";
import * as SP from "./sync-policy-versions.ts";

// Each admin route adds the statuses of its own error cases (400 where it takes input, 409 and 410 where they apply).
const admin = [401, 404, 500] as const;
const accountAdmin = (p: string) => `/admin/v1/accounts/:accountId${p}`;
const envAdmin = (p: string) => `/admin/v1/projects/:projectId/environments/:env${p}`;

/** Operator routes (docs/api-rules.md#operators) this build serves. */
export const adminRoutes = {
  listWorkspaces: route({
    operationId: "adminListWorkspaces", method: "GET", path: "/admin/v1/workspaces", summary: "Every workspace, oldest first, a page at a time",
    tag: "admin", auth: "admin", role: "viewer", query: Admin.ListQuery, ok: [200, Admin.WorkspaceList], errors: admin, subject: "config.workspace.list",
    ...adminDocs.listWorkspaces,
  }),
  getWorkspace: route({
    operationId: "adminGetWorkspace", method: "GET", path: "/admin/v1/workspaces/:workspaceId", summary: "Read a workspace", tag: "admin",
    auth: "admin", role: "viewer", params: Admin.WorkspacePath, ok: [200, Admin.Workspace], errors: admin, subject: "config.workspace.get",
    ...adminDocs.getWorkspace,
  }),
  listProjects: route({
    operationId: "adminListProjects", method: "GET", path: "/admin/v1/workspaces/:workspaceId/projects",
    summary: "A workspace's projects, oldest first, a page at a time", tag: "admin", auth: "admin", role: "viewer", params: Admin.WorkspacePath,
    query: Admin.ListQuery, ok: [200, Admin.ProjectList], errors: admin, subject: "config.project.list", ...adminDocs.listProjects,
  }),
  getProject: route({
    operationId: "adminGetProject", method: "GET", path: "/admin/v1/projects/:projectId", summary: "Read a project with its sync policy and settings",
    tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectPath, ok: [200, Admin.Project], errors: admin, subject: "config.project.get",
    ...adminDocs.getProject,
  }),
  createWorkspace: route({
    operationId: "adminCreateWorkspace", method: "POST", path: "/admin/v1/workspaces", summary: "Create a workspace", tag: "admin", auth: "admin",
    role: "owner",
    body: Admin.CreateWorkspaceRequest, ok: [201, Admin.WorkspaceResponse], errors: admin, auditRead: "adminGetWorkspace", subject: "config.workspace.create",
    ...adminDocs.createWorkspace,
  }),
  updateWorkspace: route({
    operationId: "adminUpdateWorkspace", method: "PATCH", path: "/admin/v1/workspaces/:workspaceId",
    summary: "Change a workspace's plan or billing status", tag: "admin", auth: "admin", role: "owner",
    params: Admin.WorkspacePath, body: Admin.UpdateWorkspaceRequest, ok: [200, Admin.Workspace], errors: admin,
    auditRead: "adminGetWorkspace", subject: "config.workspace.update",
    ...adminDocs.updateWorkspace,
  }),
  createProject: route({
    operationId: "adminCreateProject", method: "POST", path: "/admin/v1/workspaces/:workspaceId/projects",
    summary: "Create a project with stage and prod environments", tag: "admin", auth: "admin", role: "owner",
    params: Admin.WorkspacePath, body: Admin.CreateProjectRequest, ok: [201, Admin.ProjectResponse], errors: admin,
    auditRead: "adminGetProject", subject: "config.project.create",
    ...adminDocs.createProject,
  }),
  createRuntimeKey: route({
    operationId: "adminCreateRuntimeKey", method: "POST", path: "/admin/v1/projects/:projectId/environments/:env/runtime-keys",
    summary: "Create a runtime key (shown once)", tag: "admin", auth: "admin", role: "owner",
    params: Admin.ProjectEnvPath, body: Admin.CreateRuntimeKeyRequest, bodyOptional: true, ok: [201, Admin.RuntimeKeyResponse],
    errors: admin, auditRead: "adminGetRuntimeKey", subject: "config.runtime-key.create", ...adminDocs.createRuntimeKey,
  }),
  listRuntimeKeys: route({
    operationId: "adminListRuntimeKeys", method: "GET", path: "/admin/v1/projects/:projectId/runtime-keys",
    summary: "A project's runtime keys, never the keys themselves", tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectPath,
    ok: [200, Admin.RuntimeKeyList], errors: admin, subject: "config.runtime-key.list", ...adminDocs.listRuntimeKeys,
  }),
  // Also the audit's read of a key's writes: one key, so a creation's entry costs the same at any key count.
  getRuntimeKey: route({
    operationId: "adminGetRuntimeKey", method: "GET", path: "/admin/v1/runtime-keys/:keyId",
    summary: "One runtime key by id, never the key itself", tag: "admin", auth: "admin", role: "viewer", params: Admin.KeyPath, ok: [200, Admin.RuntimeKeyView],
    errors: admin, subject: "config.runtime-key.get", ...adminDocs.getRuntimeKey,
  }),
  revokeRuntimeKey: route({
    operationId: "adminRevokeRuntimeKey", method: "DELETE", path: "/admin/v1/runtime-keys/:keyId",
    summary: "Revoke a runtime key at once", tag: "admin", auth: "admin", role: "owner", params: Admin.KeyPath, ok: [200, Admin.RevokeRuntimeKeyResponse],
    errors: admin, auditRead: "adminGetRuntimeKey", subject: "config.runtime-key.revoke", ...adminDocs.revokeRuntimeKey,
  }),
  setSyncPolicy: route({
    operationId: "adminSetSyncPolicy", method: "PUT", path: "/admin/v1/projects/:projectId/sync-policy",
    summary: "Change the project's sync policy", tag: "admin", auth: "admin", role: "owner", params: Admin.ProjectPath, body: Admin.SyncPolicyPatch,
    ok: [200, SyncPolicy], errors: admin, auditRead: "adminGetSyncPolicy", subject: "config.sync-policy.set", ...adminDocs.setSyncPolicy,
  }),
  setSettings: route({
    operationId: "adminSetSettings", method: "PUT", path: "/admin/v1/projects/:projectId/settings",
    summary: "Change the project's transfer-code lifetime, rate limits, allowed origins and session idle days", tag: "admin", auth: "admin", role: "owner",
    params: Admin.ProjectPath, body: S.ProjectSettingsPatch, ok: [200, S.ProjectSettings], errors: admin,
    auditRead: "adminGetSettings", subject: "config.settings.set",
    ...adminDocs.setSettings,
  }),
  publishGameConfig: route({
    operationId: "adminPublishGameConfig", method: "POST", path: "/admin/v1/projects/:projectId/environments/:env/game-config",
    summary: "Publish a new game config version", tag: "admin", auth: "admin", role: "owner", params: Admin.ProjectEnvPath,
    body: Admin.PublishGameConfigRequest,
    ok: [201, Admin.PublishedGameConfig], errors: admin, auditRead: "adminGetGameConfig", subject: "config.game-config.publish", ...adminDocs.publishGameConfig,
  }),
  exportAccount: route({
    operationId: "adminExportAccount", method: "GET", path: accountAdmin("/export"),
    summary: "Every record stored for an account (data-subject access request)", tag: "admin", auth: "admin", role: "support", auditAccess: true,
    params: Admin.AdminAccountPath, query: Admin.AccountExportQuery, ok: [200, Admin.AccountExport], errors: admin, subject: "accounts.admin.export",
    ...adminDocs.exportAccount,
  }),
  accountDataHistory: route({
    operationId: "adminAccountDataHistory", method: "GET", path: accountAdmin("/history"),
    summary: "Restore points of accountData", tag: "admin", auth: "admin", role: "viewer", params: Admin.AdminAccountPath, ok: [200, Admin.SnapshotList],
    errors: admin, subject: "accounts.admin.data-history", ...adminDocs.accountDataHistory,
  }),
  restoreAccountData: route({
    operationId: "adminRestoreAccountData", method: "POST", path: accountAdmin("/restore"),
    summary: "Restore accountData from a restore point (a new version)", tag: "admin", auth: "admin", role: "support",
    params: Admin.AdminAccountPath, body: Admin.RestoreRequest, ok: [200, A.AccountResponse], errors: admin,
    auditRead: "adminGetAccount", subject: "accounts.admin.data-restore",
    ...adminDocs.restoreAccountData,
  }),
  slotHistory: route({
    operationId: "adminSlotHistory", method: "GET", path: accountAdmin("/slots/:slotId/history"),
    summary: "Restore points of a slot", tag: "admin", auth: "admin", role: "viewer", params: Admin.AdminSlotPath, ok: [200, Admin.SnapshotList],
    errors: admin, subject: "accounts.admin.slot-history", ...adminDocs.slotHistory,
  }),
  restoreSlot: route({
    operationId: "adminRestoreSlot", method: "POST", path: accountAdmin("/slots/:slotId/restore"),
    summary: "Restore a slot from a restore point (a new version)", tag: "admin", auth: "admin", role: "support",
    params: Admin.AdminSlotPath, body: Admin.RestoreRequest, ok: [200, A.SlotResponse], errors: admin,
    auditRead: "adminGetSlot", subject: "accounts.admin.slot-restore",
    ...adminDocs.restoreSlot,
  }),
  ...adminSaveRoutes,
  ...adminDeskRoutes,
  ...operatorRoutes,
  getAccount: route({
    operationId: "adminGetAccount", method: "GET", path: "/admin/v1/accounts/:accountId",
    summary: "Operator view of an account", tag: "admin", auth: "admin", role: "viewer", params: Admin.AdminAccountPath, query: Admin.AdminAccountQuery,
    ok: [200, Admin.AdminAccountResponse], errors: admin, subject: "accounts.admin.get", ...adminDocs.getAccount,
  }),
  suspendAccount: route({
    operationId: "adminSuspendAccount", method: "POST", path: "/admin/v1/accounts/:accountId/suspend",
    summary: "Suspend an account", tag: "admin", auth: "admin", role: "owner", params: Admin.AdminAccountPath, ok: [200, Admin.AccountStatusResponse],
    errors: admin, auditRead: "adminGetAccount", subject: "accounts.admin.suspend", ...adminDocs.suspendAccount,
  }),
  revokeSession: route({
    operationId: "adminRevokeSession", method: "DELETE", path: "/admin/v1/accounts/:accountId/sessions/:sessionId",
    summary: "Revoke one device's session at once", tag: "admin", auth: "admin", role: "support", params: Admin.AdminSessionPath,
    ok: [200, Admin.RevokeSessionResponse], errors: admin, auditRead: "adminGetAccount", subject: "accounts.admin.revoke-session", ...adminDocs.revokeSession,
  }),
  setAuthProvider: route({
    operationId: "adminSetAuthProvider", method: "PUT", path: "/admin/v1/projects/:projectId/environments/:env/auth-providers/:provider",
    summary: "Configure an identity provider for an environment", tag: "admin", auth: "admin", role: "owner",
    params: Admin.AuthProviderPath, body: Admin.AuthProviderConfigRequest, ok: [200, Admin.AuthProviderConfig],
    errors: admin, subject: "auth-bridge.provider.set", ...adminDocs.setAuthProvider,
  }),
  unlinkProvider: route({
    operationId: "adminUnlinkProvider", method: "DELETE", path: "/admin/v1/accounts/:accountId/links/:provider",
    summary: "Unlink an identity; it can sign in again, to a new account", tag: "admin", auth: "admin", role: "owner", params: Admin.AdminLinkPath,
    ok: [200, Admin.UnlinkResponse], errors: admin, auditRead: "adminGetAccount", subject: "auth-bridge.link.delete", ...adminDocs.unlinkProvider,
  }),
  listDeadLetters: route({
    operationId: "adminListDeadLetters", method: "GET", path: "/admin/v1/dead-letters",
    summary: "Cleanup jobs that ran out of deliveries", tag: "admin", auth: "admin", role: "viewer", ok: [200, Admin.DeadLetterList],
    errors: admin, subject: "accounts.admin.dead-letters.list", ...adminDocs.listDeadLetters,
  }),
  retryDeadLetter: route({
    operationId: "adminRetryDeadLetter", method: "POST", path: "/admin/v1/dead-letters/:deadLetterId/retry",
    summary: "Queue a dead-lettered cleanup job again", tag: "admin", auth: "admin", role: "owner", params: Admin.DeadLetterPath,
    ok: [200, Admin.RetryDeadLetterResponse], errors: admin, subject: "accounts.admin.dead-letters.retry", ...adminDocs.retryDeadLetter,
  }),
  discardDeadLetter: route({
    operationId: "adminDiscardDeadLetter", method: "DELETE", path: "/admin/v1/dead-letters/:deadLetterId",
    summary: "Drop a dead-lettered cleanup job", tag: "admin", auth: "admin", role: "owner", params: Admin.DeadLetterPath,
    ok: [200, Admin.DiscardDeadLetterResponse], errors: admin, subject: "accounts.admin.dead-letters.discard", ...adminDocs.discardDeadLetter,
  }),
  unsuspendAccount: route({
    operationId: "adminUnsuspendAccount", method: "POST", path: "/admin/v1/accounts/:accountId/unsuspend",
    summary: "Lift a suspension", tag: "admin", auth: "admin", role: "owner", params: Admin.AdminAccountPath, ok: [200, Admin.AccountStatusResponse],
    errors: admin, auditRead: "adminGetAccount", subject: "accounts.admin.unsuspend", ...adminDocs.unsuspendAccount,
  }),
  getSyncPolicy: route({
    operationId: "adminGetSyncPolicy", method: "GET", path: "/admin/v1/projects/:projectId/sync-policy", summary: "The project's sync policy",
    tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectPath, ok: [200, SyncPolicy], errors: admin, subject: "config.sync-policy.get",
    ...adminDocs.getSyncPolicy,
  }),
  listSyncPolicyVersions: route({
    operationId: "adminListSyncPolicyVersions", method: "GET", path: "/admin/v1/projects/:projectId/sync-policy/versions",
    summary: "Every version of the project's sync policy, newest first", tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectPath,
    ok: [200, SP.SyncPolicyVersionList], errors: admin, subject: "config.sync-policy.versions", ...adminDocs.listSyncPolicyVersions,
  }),
  getSyncPolicyVersion: route({
    operationId: "adminGetSyncPolicyVersion", method: "GET", path: "/admin/v1/projects/:projectId/sync-policy/versions/:version",
    summary: "One version of the project's sync policy", tag: "admin", auth: "admin", role: "viewer", params: SP.SyncPolicyVersionPath,
    ok: [200, SP.SyncPolicyVersion], errors: admin, subject: "config.sync-policy.version", ...adminDocs.getSyncPolicyVersion,
  }),
  rollbackSyncPolicy: route({
    operationId: "adminRollbackSyncPolicy", method: "POST", path: "/admin/v1/projects/:projectId/sync-policy/rollback",
    summary: "Make an earlier sync policy version current again, as a new version", tag: "admin", auth: "admin", role: "owner", params: Admin.ProjectPath,
    body: SP.RollbackSyncPolicyRequest, ok: [201, SP.SyncPolicyVersion], errors: admin, auditRead: "adminGetSyncPolicy",
    subject: "config.sync-policy.rollback", ...adminDocs.rollbackSyncPolicy,
  }),
  getSettings: route({
    operationId: "adminGetSettings", method: "GET", path: "/admin/v1/projects/:projectId/settings", summary: "The project's settings",
    tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectPath, ok: [200, S.ProjectSettings], errors: admin, subject: "config.settings.get",
    ...adminDocs.getSettings,
  }),
  getGameConfig: route({
    operationId: "adminGetGameConfig", method: "GET", path: envAdmin("/game-config"), summary: "The live game config", tag: "admin", auth: "admin",
    role: "viewer",
    params: Admin.ProjectEnvPath, ok: [200, Op.ActiveGameConfig], errors: admin, subject: "config.game-config.get", ...adminDocs.getGameConfig,
  }),
  listGameConfigVersions: route({
    operationId: "adminListGameConfigVersions", method: "GET", path: envAdmin("/game-config/versions"),
    summary: "Every published game config version, newest first", tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectEnvPath,
    ok: [200, Op.GameConfigVersionList], errors: admin, subject: "config.game-config.versions", ...adminDocs.listGameConfigVersions,
  }),
  getGameConfigVersion: route({
    operationId: "adminGetGameConfigVersion", method: "GET", path: envAdmin("/game-config/versions/:version"),
    summary: "One game config version's content", tag: "admin", auth: "admin", role: "viewer", params: Op.GameConfigVersionPath,
    ok: [200, Op.GameConfigContent], errors: admin, subject: "config.game-config.version", ...adminDocs.getGameConfigVersion,
  }),
  rollbackGameConfig: route({
    operationId: "adminRollbackGameConfig", method: "POST", path: envAdmin("/game-config/rollback"),
    summary: "Publish an earlier version's content again, as a new version", tag: "admin", auth: "admin", role: "owner", params: Admin.ProjectEnvPath,
    body: Op.RollbackGameConfigRequest, ok: [201, Admin.PublishedGameConfig], errors: admin, auditRead: "adminGetGameConfig",
    subject: "config.game-config.rollback", ...adminDocs.rollbackGameConfig,
  }),
  findAccounts: route({
    operationId: "adminFindAccounts", method: "GET", path: envAdmin("/accounts"),
    summary: "Accounts of an environment by player or external account reference", tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectEnvPath,
    query: Op.FindAccountsQuery, ok: [200, Op.FoundAccounts], errors: admin, subject: "accounts.admin.find", ...adminDocs.findAccounts,
  }),
  getSlot: route({
    operationId: "adminGetSlot", method: "GET", path: accountAdmin("/slots/:slotId"), summary: "A slot as stored now, archived ones too",
    tag: "admin", auth: "admin", role: "viewer", params: Admin.AdminSlotPath, ok: [200, Op.AdminSlot], errors: admin, subject: "accounts.admin.slot-get",
    ...adminDocs.getSlot,
  }),
  getRestorePoint: route({
    operationId: "adminGetRestorePoint", method: "GET", path: accountAdmin("/slots/:slotId/history/:version"),
    summary: "One restore point's content", tag: "admin", auth: "admin", role: "viewer", params: Op.RestorePointPath, ok: [200, Op.RestorePointContent],
    errors: admin, subject: "accounts.admin.restore-point", ...adminDocs.getRestorePoint,
  }),
  deleteAccount: route({
    operationId: "adminDeleteAccount", method: "DELETE", path: "/admin/v1/accounts/:accountId", summary: "Delete an account permanently",
    tag: "admin", auth: "admin", role: "owner", params: Admin.AdminAccountPath, ok: [200, A.DeleteAccountResponse], errors: admin, auditRead: "adminGetAccount",
    subject: "accounts.admin.delete", ...adminDocs.deleteAccount,
  }),
  getSave: route({
    operationId: "adminGetSave", method: "GET", path: envAdmin("/saves/:saveId"), summary: "A save of the save-based model", tag: "admin",
    auth: "admin", role: "viewer", params: Op.AdminSavePath, ok: [200, Op.AdminSave], errors: admin, subject: "saves.admin.get", ...adminDocs.getSave,
  }),
  getOverview: route({
    operationId: "adminGetOverview", method: "GET", path: envAdmin("/overview"),
    summary: "An environment's traffic, players, largest accounts and plan usage", tag: "admin", auth: "admin", role: "viewer", params: Admin.ProjectEnvPath,
    query: OverviewQuery, ok: [200, Overview], errors: admin, subject: "config.overview.get", ...adminDocs.getOverview,
  }),
  listAudit: route({
    operationId: "adminListAudit", method: "GET", path: "/admin/v1/audit", summary: "Changes made through the admin API, newest first",
    tag: "admin", auth: "admin", role: "viewer", query: Op.AuditQuery, ok: [200, Op.AuditList], errors: admin, subject: "config.audit.list",
    ...adminDocs.listAudit,
  }),
};

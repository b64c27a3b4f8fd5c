import * as A from "./accounts.ts";
import { AdminAccountPath, AdminSlotPath } from "./admin.ts";
import { accountAdmin } from "./admin-paths.ts";
import * as D from "./desk.ts";
import { route } from "./route.ts";

const admin = [400, 401, 404, 500] as const;
const stale = {
  code: "conflict",
  when: "`baseVersion` is not the current version: the answer is the usual 409 with what is stored now.",
} as const;
const deleted = { code: "account_deleted", when: "The account has been deleted." } as const;
const missing = (what: string) =>
  ({ code: "not_found", when: `No ${what} has this id, or this version is not kept.` }) as const;

/**
 * The player desk's routes (docs/operators.md#a-player-says-their-save-is-gone): an operator's edit of a
 * player's data as a new version with a reason, the contents of accountData and save restore points
 * for diffs, and a lookup of a player across every project and environment.
 */
export const adminDeskRoutes = {
  editSlot: route({
    operationId: "adminEditSlot",
    method: "POST",
    path: accountAdmin("/slots/:slotId/edit"),
    summary: "Write new slot content as the next version, with a reason",
    tag: "admin",
    auth: "admin",
    role: "support",
    params: AdminSlotPath,
    body: D.EditSlotRequest,
    ok: [200, A.SyncAcceptedResponse],
    conflict: A.SlotConflictResponse,
    completeConflict: A.completeSlotConflict,
    errors: [...admin, 409, 410, 413],
    auditRead: "adminGetSlot",
    subject: "accounts.admin.slot-edit",
    description:
      "Writes the operator's content as the slot's next version through the same conditional write as a device's sync (route 15): a device " +
      "still on an older version gets the usual 409 with it on its next sync, and a `baseVersion` that is no longer current gets that 409 " +
      "itself. The `reason` is kept in the change's audit entry.",
    errorCases: [stale, deleted, missing("account or active slot")],
  }),
  editAccountData: route({
    operationId: "adminEditAccountData",
    method: "POST",
    path: accountAdmin("/data/edit"),
    summary: "Write new accountData as the next version, with a reason",
    tag: "admin",
    auth: "admin",
    role: "support",
    params: AdminAccountPath,
    body: D.EditAccountDataRequest,
    ok: [200, A.SyncAcceptedResponse],
    conflict: A.AccountConflictResponse,
    completeConflict: A.completeAccountConflict,
    errors: [...admin, 409, 410, 413],
    auditRead: "adminGetAccount",
    subject: "accounts.admin.data-edit",
    description:
      "Writes the operator's `accountData` as the account's next version through the same conditional write as route 8; a stale `baseVersion` " +
      "is the usual 409, and devices on an older version get it on their next sync. The `reason` is kept in the audit entry.",
    errorCases: [stale, deleted, missing("account")],
  }),
  getDataRestorePoint: route({
    operationId: "adminGetDataRestorePoint",
    method: "GET",
    path: accountAdmin("/history/:version"),
    summary: "One accountData restore point's content",
    tag: "admin",
    auth: "admin",
    role: "viewer",
    params: D.DataVersionPath,
    ok: [200, D.DataRestorePointContent],
    errors: [...admin, 410],
    subject: "accounts.admin.data-version",
    description: "The `accountData` of one kept restore point, for a diff against another version or the current one.",
    errorCases: [deleted, missing("account")],
  }),
  getSaveRestorePoint: route({
    operationId: "adminGetSaveRestorePoint",
    method: "GET",
    path: "/admin/v1/projects/:projectId/environments/:env/saves/:saveId/history/:version",
    summary: "One save restore point's content (save-based model)",
    tag: "admin",
    auth: "admin",
    role: "viewer",
    params: D.SaveVersionPath,
    ok: [200, D.SaveRestorePointContent],
    errors: admin,
    subject: "saves.admin.version",
    description:
      "The `metadata` and `state` of one kept restore point of a save, for a diff against another version or the current one.",
    errorCases: [missing("save in this project's environment")],
  }),
  findPlayers: route({
    operationId: "adminFindPlayers",
    method: "GET",
    path: "/admin/v1/accounts",
    summary: "A player by account id, player reference or external reference, in every project and environment",
    tag: "admin",
    auth: "admin",
    role: "viewer",
    query: D.FindPlayersQuery,
    ok: [200, D.FoundPlayers],
    errors: admin,
    subject: "accounts.admin.find-players",
    description:
      "Looks a player up without knowing their project or environment: every account with this id, player reference or external " +
      "(provider, subject) reference, with the project and environment it lives in, oldest first, at most 50. With `workspaceId`, " +
      "only that workspace's projects.",
    errorCases: [{ code: "not_found", when: "`workspaceId` names no workspace." }],
  }),
};

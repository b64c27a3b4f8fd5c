import * as A from "./accounts.ts";
import * as Admin from "./admin.ts";
import { accountDocs } from "./docs/accounts.ts";
import { adminDocs } from "./docs/admin.ts";
import { runtimeDocs } from "./docs/runtime.ts";
import { slotDocs } from "./docs/slots.ts";
import * as H from "./restore-points.ts";
import { route } from "./route.ts";
import * as R from "./runtime.ts";
import * as SH from "./save-history.ts";

/** The errors of the routes that read restore points: input, session, a version not kept. */
const history = [400, 401, 402, 403, 404, 410, 429, 500] as const;
const session = [401, 402, 403, 410, 429, 500] as const;
const admin = [400, 401, 404, 500] as const;

/** Players' restore points of their slots and account data, and the save-based model's erasure (docs/using-the-api.md#restoring-a-slot). */
export const restorePointRoutes = {
  slotHistory: route({
    operationId: "listSlotRestorePoints",
    method: "GET",
    path: "/api/v1/accounts/:accountId/slots/:slotId/history",
    summary: "A slot's restore points, newest first",
    tag: "slots",
    auth: "session",
    params: A.SlotPath,
    query: H.HistoryQuery,
    ok: [200, H.SlotRestorePointList],
    errors: history,
    subject: "accounts.slot.history",
    ...slotDocs.slotHistory,
  }),
  slotVersion: route({
    operationId: "getSlotRestorePoint",
    method: "GET",
    path: "/api/v1/accounts/:accountId/slots/:slotId/history/:version",
    summary: "One restore point of a slot, in full",
    tag: "slots",
    auth: "session",
    params: H.SlotVersionPath,
    ok: [200, H.SlotVersionResponse],
    errors: history,
    subject: "accounts.slot.version",
    ...slotDocs.slotVersion,
  }),
  restoreSlot: route({
    operationId: "restoreSlot",
    method: "POST",
    path: "/api/v1/accounts/:accountId/slots/:slotId/restore",
    summary: "Restore a slot to a restore point (a new version)",
    tag: "slots",
    auth: "session",
    params: A.SlotPath,
    body: H.PlayerRestoreRequest,
    ok: [200, A.SyncAcceptedResponse],
    conflict: A.SlotConflictResponse,
    completeConflict: H.completeRestoreSlotConflict,
    errors: [...history, 409],
    subject: "accounts.slot.restore",
    ...slotDocs.restoreSlot,
  }),
  dataHistory: route({
    operationId: "listAccountDataRestorePoints",
    method: "GET",
    path: "/api/v1/accounts/:accountId/data/history",
    summary: "The restore points of accountData, newest first",
    tag: "accounts",
    auth: "session",
    params: A.AccountPath,
    query: H.HistoryQuery,
    ok: [200, H.DataRestorePointList],
    errors: [400, ...session],
    subject: "accounts.data.history",
    ...accountDocs.dataHistory,
  }),
  dataVersion: route({
    operationId: "getAccountDataRestorePoint",
    method: "GET",
    path: "/api/v1/accounts/:accountId/data/history/:version",
    summary: "One restore point of accountData, in full",
    tag: "accounts",
    auth: "session",
    params: H.DataVersionPath,
    ok: [200, H.DataVersionResponse],
    errors: history,
    subject: "accounts.data.version",
    ...accountDocs.dataVersion,
  }),
  restoreAccountData: route({
    operationId: "restoreAccountData",
    method: "POST",
    path: "/api/v1/accounts/:accountId/data/restore",
    summary: "Restore accountData to a restore point (a new version)",
    tag: "accounts",
    auth: "session",
    params: A.AccountPath,
    body: H.PlayerRestoreRequest,
    ok: [200, A.SyncAcceptedResponse],
    conflict: A.AccountConflictResponse,
    completeConflict: H.completeRestoreDataConflict,
    errors: [...history, 409],
    subject: "accounts.data.restore",
    ...accountDocs.restoreAccountData,
  }),
  deleteSave: route({
    operationId: "deleteSave",
    method: "DELETE",
    path: "/api/v1/saves/:saveId",
    summary: "Erase a save and its history (save-based model)",
    tag: "saves",
    auth: "runtimeKey",
    params: SH.SavePath,
    ok: [200, SH.DeleteSaveResponse],
    errors: [400, 401, 402, 404, 429, 500],
    subject: "saves.save.delete",
    ...runtimeDocs.deleteSave,
  }),
};

/** Operators' routes for the save-based model's restore points and erasure (docs/using-the-api.md#the-save-based-model). */
export const adminSaveRoutes = {
  saveHistory: route({
    operationId: "adminSaveHistory",
    method: "GET",
    path: "/admin/v1/projects/:projectId/environments/:env/saves/:saveId/history",
    summary: "Restore points of a save (save-based model)",
    tag: "admin",
    auth: "admin",
    role: "viewer",
    params: SH.AdminSavePath,
    ok: [200, SH.SaveRestorePointList],
    errors: admin,
    subject: "saves.admin.history",
    ...adminDocs.saveHistory,
  }),
  restoreSave: route({
    operationId: "adminRestoreSave",
    method: "POST",
    path: "/admin/v1/projects/:projectId/environments/:env/saves/:saveId/restore",
    summary: "Restore a save from a restore point (a new version)",
    tag: "admin",
    auth: "admin",
    role: "support",
    params: SH.AdminSavePath,
    body: Admin.RestoreRequest,
    ok: [200, R.SaveResponse],
    errors: admin,
    auditRead: "adminGetSave",
    subject: "saves.admin.restore",
    ...adminDocs.restoreSave,
  }),
  deleteSave: route({
    operationId: "adminDeleteSave",
    method: "DELETE",
    path: "/admin/v1/projects/:projectId/environments/:env/saves/:saveId",
    summary: "Erase a save and its history (a player's erasure request)",
    tag: "admin",
    auth: "admin",
    role: "owner",
    params: SH.AdminSavePath,
    ok: [200, SH.DeleteSaveResponse],
    errors: admin,
    auditRead: "adminGetSave",
    subject: "saves.admin.delete",
    ...adminDocs.deleteSave,
  }),
};

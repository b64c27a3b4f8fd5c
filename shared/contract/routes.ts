import { z } from "zod";
import * as A from "./accounts.ts";
import * as I from "./identity.ts";
import * as R from "./runtime.ts";
import { accountDocs } from "./docs/accounts.ts";
import { identityDocs } from "./docs/identity.ts";
import { runtimeDocs } from "./docs/runtime.ts";
import { slotDocs } from "./docs/slots.ts";
import { route } from "./route.ts";
import { restorePointRoutes } from "./restore-routes.ts";
import { adminRoutes } from "./admin-routes.ts";
import * as Ses from "./sessions.ts";
import * as S from "./settings.ts";

const session = [401, 402, 403, 410, 429, 500] as const;

/** The 18 routes of the API contract (section 4), in its order. */
export const contractRoutes = {
  health: route({
    number: 1, operationId: "health", method: "GET", path: "/healthz", summary: "Health check", tag: "runtime", auth: "none", gatewayOnly: true,
    ok: [200, R.HealthResponse], errors: [], ...runtimeDocs.health,
  }),
  runtimeConfig: route({
    number: 2, operationId: "getRuntimeConfig", method: "GET", path: "/api/v1/runtime-config",
    summary: "Sync policy and game config", tag: "runtime", auth: "runtimeKey", query: R.RuntimeConfigQuery,
    ok: [200, R.RuntimeConfigResponse], etag: true, errors: [401, 402, 429, 500], subject: "config.runtime-config.get", ...runtimeDocs.runtimeConfig,
  }),
  createAccount: route({
    number: 3, operationId: "createAccount", method: "POST", path: "/api/v1/accounts",
    summary: "Create an account (and optionally its first slot)", tag: "accounts", auth: "runtimeKey",
    body: A.CreateAccountRequest, bodyOptional: true, ok: [201, A.AccountEnvelopeResponse],
    errors: [400, 401, 402, 410, 413, 429, 500], subject: "accounts.account.create", ...accountDocs.createAccount,
  }),
  authSession: route({
    number: 4, operationId: "exchangeAuthSession", method: "POST", path: "/api/v1/accounts/auth/session",
    summary: "Exchange an identity-provider token for a session", tag: "auth", auth: "optionalSession", body: I.AuthSessionRequest,
    ok: [200, I.AuthSessionResponse], errors: [400, 401, 402, 403, 409, 410, 429, 500], subject: "auth-bridge.session.exchange",
    ...identityDocs.authSession,
  }),
  authProviders: route({
    number: 5, operationId: "listLinkedProviders", method: "GET", path: "/api/v1/accounts/auth/providers",
    summary: "Providers linked to the account", tag: "auth", auth: "session", ok: [200, I.LinkedProviderList],
    errors: [401, 402, 429, 500], subject: "auth-bridge.links.list", ...identityDocs.authProviders,
  }),
  getAccount: route({
    number: 6, operationId: "getAccount", method: "GET", path: "/api/v1/accounts/:accountId",
    summary: "Read an account", tag: "accounts", auth: "session", params: A.AccountPath, ok: [200, A.AccountResponse],
    errors: session, subject: "accounts.account.get", ...accountDocs.getAccount,
  }),
  deleteAccount: route({
    number: 7, operationId: "deleteAccount", method: "DELETE", path: "/api/v1/accounts/:accountId",
    summary: "Delete an account permanently", tag: "accounts", auth: "session", params: A.AccountPath, ok: [200, A.DeleteAccountResponse],
    errors: [401, 402, 403, 429, 500], subject: "accounts.account.delete", ...accountDocs.deleteAccount,
  }),
  syncAccountData: route({
    number: 8, operationId: "syncAccountData", method: "POST", path: "/api/v1/accounts/:accountId/data/sync",
    summary: "Replace or patch accountData", tag: "accounts", auth: "session", params: A.AccountPath, body: A.SyncAccountDataRequest,
    ok: [200, A.SyncAcceptedResponse], conflict: A.AccountConflictResponse, completeConflict: A.completeAccountConflict,
    errors: [400, 401, 402, 403, 409, 410, 413, 429, 500], subject: "accounts.data.sync", ...accountDocs.syncAccountData,
  }),
  createTransferCode: route({
    number: 9, operationId: "createTransferCode", method: "POST", path: "/api/v1/accounts/:accountId/transfer-codes",
    summary: "Create a one-time transfer code", tag: "transfer", auth: "session",
    params: A.AccountPath, body: I.CreateTransferCodeRequest, bodyOptional: true, ok: [201, I.CreateTransferCodeResponse],
    errors: [400, 401, 402, 403, 410, 429, 500], subject: "transfer.code.create", ...identityDocs.createTransferCode,
  }),
  consumeTransferCode: route({
    number: 10, operationId: "consumeTransferCode", method: "POST", path: "/api/v1/account-transfer-codes/consume",
    summary: "Consume a transfer code on a new device", tag: "transfer", auth: "runtimeKey", body: I.ConsumeTransferCodeRequest,
    ok: [200, A.AccountEnvelopeResponse], errors: [400, 401, 402, 410, 429, 500], subject: "transfer.code.consume",
    ...identityDocs.consumeTransferCode,
  }),
  listSlots: route({
    number: 11, operationId: "listSlots", method: "GET", path: "/api/v1/accounts/:accountId/slots",
    summary: "List active slots", tag: "slots", auth: "session", params: A.AccountPath, ok: [200, A.SlotListResponse],
    errors: session, subject: "accounts.slot.list", ...slotDocs.listSlots,
  }),
  createSlot: route({
    number: 12, operationId: "createSlot", method: "POST", path: "/api/v1/accounts/:accountId/slots",
    summary: "Create a named slot", tag: "slots", auth: "session", params: A.AccountPath, body: A.CreateAccountSlotRequest,
    ok: [201, A.CreateSlotResponse], completeOk: A.completeCreatedSlot,
    errors: [400, 401, 402, 403, 409, 410, 413, 429, 500], subject: "accounts.slot.create", ...slotDocs.createSlot,
  }),
  getSlot: route({
    number: 13, operationId: "getSlot", method: "GET", path: "/api/v1/accounts/:accountId/slots/:slotId",
    summary: "Read a slot with its data", tag: "slots", auth: "session", params: A.SlotPath, ok: [200, A.SlotResponse],
    errors: session, subject: "accounts.slot.get", ...slotDocs.getSlot,
  }),
  deleteSlot: route({
    number: 14, operationId: "deleteSlot", method: "DELETE", path: "/api/v1/accounts/:accountId/slots/:slotId",
    summary: "Delete a slot permanently", tag: "slots", auth: "session", params: A.SlotPath, ok: [200, A.DeleteSlotResponse],
    errors: [401, 402, 403, 429, 500], subject: "accounts.slot.delete", ...slotDocs.deleteSlot,
  }),
  syncSlot: route({
    number: 15, operationId: "syncSlot", method: "POST", path: "/api/v1/accounts/:accountId/slots/:slotId/sync",
    summary: "Sync a slot under optimistic concurrency", tag: "slots", auth: "session", params: A.SlotPath, body: A.SyncAccountSlotRequest,
    ok: [200, A.SyncAcceptedResponse], conflict: A.SlotConflictResponse, completeConflict: A.completeSlotConflict,
    errors: [400, 401, 402, 403, 409, 410, 413, 429, 500], subject: "accounts.slot.sync", ...slotDocs.syncSlot,
  }),
  archiveSlot: route({
    number: 16, operationId: "archiveSlot", method: "POST", path: "/api/v1/accounts/:accountId/slots/:slotId/archive",
    summary: "Archive an active slot", tag: "slots", auth: "session", params: A.SlotPath, ok: [200, A.AccountResponse],
    errors: [401, 402, 403, 429, 500], subject: "accounts.slot.archive", ...slotDocs.archiveSlot,
  }),
  stripeWebhook: route({
    number: 17, operationId: "stripeWebhook", method: "POST", path: "/webhooks/stripe", summary: "Signed Stripe events", tag: "billing", auth: "none",
    body: R.WebhookEvent, raw: { signatureHeader: "stripe-signature" }, ok: [200, R.WebhookResponse],
    errors: [400, 429, 500, 503], subject: "billing.stripe.webhook", ...runtimeDocs.stripeWebhook,
  }),
  syncSave: route({
    number: 18, operationId: "syncSave", method: "POST", path: "/api/v1/saves/:saveId/sync",
    summary: "Sync a save (save-based model)", tag: "saves", auth: "runtimeKey",
    params: z.strictObject({ saveId: R.SaveId }), body: R.SaveSyncRequest, ok: [200, R.SaveSyncResponse], conflict: R.SaveConflictResponse,
    errors: [400, 401, 402, 404, 409, 413, 429, 500], subject: "saves.save.sync", ...runtimeDocs.syncSave,
  }),
  getSave: route({
    operationId: "getSave", method: "GET", path: "/api/v1/saves/:saveId", summary: "Load a save (save-based model)", tag: "saves", auth: "runtimeKey",
    params: z.strictObject({ saveId: R.SaveId }), ok: [200, R.SaveResponse], errors: [400, 401, 402, 404, 429, 500], subject: "saves.save.get",
    ...runtimeDocs.getSave,
  }),
  listSessions: route({
    operationId: "listSessions", method: "GET", path: "/api/v1/accounts/:accountId/sessions", summary: "The account's signed-in devices",
    tag: "accounts", auth: "session", params: A.AccountPath, ok: [200, Ses.SessionListResponse], errors: session,
    subject: "accounts.sessions.list", ...accountDocs.listSessions,
  }),
  signOutCurrent: route({
    operationId: "signOutCurrentSession", method: "DELETE", path: "/api/v1/accounts/:accountId/sessions/current", summary: "Sign this device out",
    tag: "accounts", auth: "session", params: A.AccountPath, ok: [200, Ses.SignOutResponse], errors: session,
    subject: "accounts.sessions.sign-out-current", ...accountDocs.signOutCurrent,
  }),
  signOutSession: route({
    operationId: "signOutSession", method: "DELETE", path: "/api/v1/accounts/:accountId/sessions/:sessionId", summary: "Sign another device out",
    tag: "accounts", auth: "session", params: Ses.SessionPath, ok: [200, Ses.SignOutResponse], errors: [400, 401, 402, 403, 404, 410, 429, 500],
    subject: "accounts.sessions.sign-out", ...accountDocs.signOutSession,
  }),
  ...restorePointRoutes,
};

export { adminRoutes };

export const allRoutes = [...Object.values(contractRoutes), ...Object.values(adminRoutes)];

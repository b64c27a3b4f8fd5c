using System.Collections.Generic;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    // Every runtime route, typed, by its number in the API contract (README, API).
    public sealed partial class SavepointApi
    {
        /// <summary>1</summary>
        public Task<HealthResponse> Health() { return Run<HealthResponse>(Routes.Health, In("-")); }

        /// <summary>2: null config with NotModified true means "keep your cached copy" (ETag).</summary>
        public async Task<RuntimeConfigAnswer> RuntimeConfig(int? gameConfigVersion = null, string etag = null)
        {
            var c = In("-");
            if (gameConfigVersion != null) c.Query["gameConfigVersion"] = gameConfigVersion.Value.ToString();
            if (etag != null) c.Headers["if-none-match"] = etag;
            var a = await Call(Routes.GetRuntimeConfig, c).ConfigureAwait(false);
            return new RuntimeConfigAnswer { NotModified = a.Status == 304, Config = a.Status == 304 ? null : a.As<RuntimeConfigResponse>(),
                ETag = a.Raw.Header("etag") };
        }

        /// <summary>3</summary>
        public Task<AccountEnvelopeResponse> CreateAccount(JObject body = null, string idempotencyKey = null)
        {
            return Run<AccountEnvelopeResponse>(Routes.CreateAccount, In("-", body ?? new JObject(), idempotencyKey));
        }

        /// <summary>4: links to the current session's account when there is one.</summary>
        public Task<AuthSessionResponse> ExchangeAuthSession(string provider, string token, string deviceLabel = null, bool withSession = true)
        {
            var c = In("-", Obj("provider", provider, "token", token, "deviceLabel", deviceLabel));
            if (!withSession) c.OverrideSession = true;
            return Run<AuthSessionResponse>(Routes.ExchangeAuthSession, c);
        }

        /// <summary>5</summary>
        public Task<List<LinkedAuthProvider>> ListLinkedProviders() { return Run<List<LinkedAuthProvider>>(Routes.ListLinkedProviders, In("-")); }
        /// <summary>6</summary>
        public Task<AccountResponse> GetAccount(string accountId = null, Session session = null)
        {
            var c = In(accountId ?? session?.AccountId);
            if (session != null)
            {
                c.Session = session;
                c.OverrideSession = true;
            }
            return Run<AccountResponse>(Routes.GetAccount, c);
        }
        /// <summary>7</summary>
        public Task<DeleteAccountResponse> DeleteAccount(string accountId = null) { return Run<DeleteAccountResponse>(Routes.DeleteAccount, In(accountId)); }

        /// <summary>8</summary>
        public Task<WriteResult<AccountConflictResponse>> SyncAccountData(int baseVersion, JObject accountData, string idempotencyKey = null,
            string accountId = null)
        {
            return Write<AccountConflictResponse>(Routes.SyncAccountData, In(accountId, Obj("baseVersion", baseVersion, "accountData", accountData),
                idempotencyKey));
        }

        /// <summary>9</summary>
        public Task<CreateTransferCodeResponse> CreateTransferCode(int? ttlSeconds = null, string deviceLabel = null, string accountId = null)
        {
            return Run<CreateTransferCodeResponse>(Routes.CreateTransferCode, In(accountId, Obj("ttlSeconds", ttlSeconds, "deviceLabel", deviceLabel)));
        }

        /// <summary>10: needs no session; the answer carries the new device's session.</summary>
        public Task<AccountEnvelopeResponse> ConsumeTransferCode(string transferCode, string deviceLabel = null)
        {
            var c = In("-", Obj("transferCode", transferCode, "deviceLabel", deviceLabel));
            c.OverrideSession = true;
            return Run<AccountEnvelopeResponse>(Routes.ConsumeTransferCode, c);
        }

        /// <summary>11</summary>
        public Task<SlotListResponse> ListSlots(string accountId = null) { return Run<SlotListResponse>(Routes.ListSlots, In(accountId)); }

        /// <summary>12</summary>
        public Task<CreateSlotResponse> CreateSlot(string slotId, JObject data, JObject slotInfo = null, string idempotencyKey = null, string accountId = null)
        {
            return Run<CreateSlotResponse>(Routes.CreateSlot, In(accountId, Obj("slotId", slotId, "data", data, "slotInfo", slotInfo), idempotencyKey));
        }

        /// <summary>13</summary>
        public Task<SlotResponse> GetSlot(string slotId, string accountId = null)
        {
            return Run<SlotResponse>(Routes.GetSlot, In(accountId, null, null, "slotId", slotId));
        }
        /// <summary>14</summary>
        public Task<DeleteSlotResponse> DeleteSlot(string slotId, string accountId = null)
        {
            return Run<DeleteSlotResponse>(Routes.DeleteSlot, In(accountId, null, null, "slotId", slotId));
        }

        /// <summary>15</summary>
        public Task<WriteResult<SlotConflictResponse>> SyncSlot(string slotId, int baseVersion, JObject data, JObject slotInfo = null,
            string idempotencyKey = null, string accountId = null)
        {
            var body = Obj("baseVersion", baseVersion, "data", data, "slotInfo", slotInfo);
            return Write<SlotConflictResponse>(Routes.SyncSlot, In(accountId, body, idempotencyKey, "slotId", slotId));
        }

        /// <summary>16</summary>
        public Task<AccountResponse> ArchiveSlot(string slotId, string accountId = null)
        {
            return Run<AccountResponse>(Routes.ArchiveSlot, In(accountId, null, null, "slotId", slotId));
        }

        /// <summary>17: for servers relaying signed Stripe events; a game never calls it.</summary>
        public Task<StripeWebhookResponse> StripeWebhook(string payload, string signature)
        {
            var c = In("-", Json.Parse(payload));
            c.Headers["stripe-signature"] = signature;
            return Run<StripeWebhookResponse>(Routes.StripeWebhook, c);
        }

        /// <summary>18: the save-based model's write; a conflict comes back with Status "conflict".</summary>
        public async Task<SaveWriteResult> SyncSave(string saveId, int baseVersion, JObject state, JObject metadata = null,
            string externalUserId = null, string idempotencyKey = null)
        {
            var c = In("-", Obj("baseVersion", baseVersion, "state", state, "metadata", metadata, "externalUserId", externalUserId), idempotencyKey,
                "saveId", saveId);
            var a = await Call(Routes.SyncSave, c).ConfigureAwait(false);
            return a.Status == 409 ? new SaveWriteResult { Conflict = a.As<SaveConflictResponse>() }
                : new SaveWriteResult { Accepted = a.As<SaveSyncResponse>() };
        }

        public Task<SaveResponse> GetSave(string saveId) { return Run<SaveResponse>(Routes.GetSave, In("-", null, null, "saveId", saveId)); }
        public Task<DeleteSaveResponse> DeleteSave(string saveId) { return Run<DeleteSaveResponse>(Routes.DeleteSave, In("-", null, null, "saveId", saveId)); }

        // Player self-service: restore points, devices, sign-out.
        public Task<SlotRestorePointList> SlotHistory(string slotId, int? limit = null, string cursor = null, string accountId = null)
        {
            var c = In(accountId, null, null, "slotId", slotId);
            if (limit != null) c.Query["limit"] = limit.Value.ToString();
            if (cursor != null) c.Query["cursor"] = cursor;
            return Run<SlotRestorePointList>(Routes.ListSlotRestorePoints, c);
        }

        public Task<SlotVersionResponse> SlotHistoryVersion(string slotId, int version, string accountId = null)
        {
            return Run<SlotVersionResponse>(Routes.GetSlotRestorePoint, In(accountId, null, null, "slotId", slotId, "version", version.ToString()));
        }

        /// <summary>A new version with that restore point's content; a stale baseVersion answers the conflict body.</summary>
        public Task<WriteResult<SlotConflictResponse>> RestoreSlot(string slotId, int version, int baseVersion, string accountId = null)
        {
            return Write<SlotConflictResponse>(Routes.RestoreSlot, In(accountId, Obj("version", version, "baseVersion", baseVersion), null, "slotId", slotId));
        }

        public Task<DataRestorePointList> AccountDataHistory(int? limit = null, string cursor = null, string accountId = null)
        {
            var c = In(accountId);
            if (limit != null) c.Query["limit"] = limit.Value.ToString();
            if (cursor != null) c.Query["cursor"] = cursor;
            return Run<DataRestorePointList>(Routes.ListAccountDataRestorePoints, c);
        }

        public Task<DataVersionResponse> AccountDataHistoryVersion(int version, string accountId = null)
        {
            return Run<DataVersionResponse>(Routes.GetAccountDataRestorePoint, In(accountId, null, null, "version", version.ToString()));
        }

        public Task<WriteResult<AccountConflictResponse>> RestoreAccountData(int version, int baseVersion, string accountId = null)
        {
            return Write<AccountConflictResponse>(Routes.RestoreAccountData, In(accountId, Obj("version", version, "baseVersion", baseVersion)));
        }

        /// <summary>The account's signed-in devices; Current marks this one.</summary>
        public Task<SessionListResponse> ListSessions(string accountId = null) { return Run<SessionListResponse>(Routes.ListSessions, In(accountId)); }

        /// <summary>This device signs out: its session is revoked on the server.</summary>
        public Task<SignOutResponse> SignOutCurrent(string accountId = null, Session session = null)
        {
            var c = In(accountId ?? session?.AccountId);
            if (session != null)
            {
                c.Session = session;
                c.OverrideSession = true;
            }
            return Run<SignOutResponse>(Routes.SignOutCurrentSession, c);
        }

        public Task<SignOutResponse> RevokeSession(string sessionId, string accountId = null)
        {
            return Run<SignOutResponse>(Routes.SignOutSession, In(accountId, null, null, "sessionId", sessionId));
        }
    }
}

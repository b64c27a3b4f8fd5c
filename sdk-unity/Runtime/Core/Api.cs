using System;
using System.Collections.Generic;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>This device's session: stored with the saves, so a restart resumes it.</summary>
    [Preserve] public sealed class Session
    {
        [Newtonsoft.Json.JsonProperty("accountId")] public string AccountId;
        [Newtonsoft.Json.JsonProperty("token")] public string Token;
    }

    public sealed class ApiOptions
    {
        /// <summary>Where the API is, e.g. https://saves.example.com (no trailing /api/v1).</summary>
        public string BaseUrl;
        public string RuntimeKey;
        public IHttpTransport Transport;
        public IClock Clock;
        public RetryOptions Retry;
        public int TimeoutMs = 15000;
        /// <summary>The device's session, read on every call (it changes on sign-in and transfer).</summary>
        public Func<Session> Session;
        /// <summary>Sees every answer's Date header with the device times around it (the server clock offset).</summary>
        public Action<string, long, long> OnAnswer;
    }

    /// <summary>Route 2's answer: NotModified (304) means "keep your cached copy".</summary>
    public sealed class RuntimeConfigAnswer
    {
        public bool NotModified;
        public RuntimeConfigResponse Config;
        public string ETag;
    }

    /// <summary>Per-call extras.</summary>
    public sealed class CallInput
    {
        public Dictionary<string, string> Params = new Dictionary<string, string>();
        public Dictionary<string, string> Query = new Dictionary<string, string>();
        public JToken Body;
        /// <summary>Sent on writes; one per logical write, reused by every retry of it (README, Retries).</summary>
        public string IdempotencyKey;
        public Dictionary<string, string> Headers = new Dictionary<string, string>();
        /// <summary>Overrides the device session (null: none). Unset: the device's.</summary>
        public Session Session;
        public bool OverrideSession;
    }

    public sealed class ApiAnswer
    {
        public int Status;
        public JToken Body;
        public HttpAnswer Raw;

        public T As<T>()
        {
            return Json.ToObject<T>(Body);
        }
    }

    /// <summary>
    /// Every runtime route, typed (README, API). Account routes act on the device's session unless an
    /// accountId is given; conflicts come back as values, every other failure throws a SavepointException.
    /// </summary>
    public sealed class SavepointApi
    {
        public readonly ApiOptions Options;

        public SavepointApi(ApiOptions options)
        {
            Options = options;
            if (options.Transport == null) options.Transport = new HttpClientTransport();
            if (options.Clock == null) options.Clock = SystemClock.Instance;
            if (options.Retry == null) options.Retry = new RetryOptions();
        }

        /// <summary>128 bits of randomness as 32 hex digits: keys on routes without a session must be unguessable.</summary>
        public static string NewIdempotencyKey()
        {
            var bytes = new byte[16];
            using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(bytes);
            return string.Concat(bytes.Select(b => b.ToString("x2")));
        }

        static readonly Regex param = new Regex(@"\{([A-Za-z]+)\}");

        /// <summary>One route, retried while retrying may help, with the same Idempotency-Key each time.</summary>
        public Task<ApiAnswer> Call(RouteSpec route, CallInput input = null)
        {
            input = input ?? new CallInput();
            var key = route.Idempotent ? (input.IdempotencyKey ?? NewIdempotencyKey()) : null;
            return Retry.Run(Options.Clock, Options.Retry, n => Once(route, input, key));
        }

        async Task<ApiAnswer> Once(RouteSpec route, CallInput input, string key)
        {
            var path = param.Replace(route.Path, m =>
            {
                string v;
                if (!input.Params.TryGetValue(m.Groups[1].Value, out v)) throw new SavepointException("invalid_request", "missing path parameter " + m.Groups[1].Value, 0);
                return Uri.EscapeDataString(v);
            });
            var url = new StringBuilder(Options.BaseUrl.TrimEnd('/')).Append(path);
            var sep = '?';
            foreach (var q in input.Query.Where(q => q.Value != null))
            {
                url.Append(sep).Append(Uri.EscapeDataString(q.Key)).Append('=').Append(Uri.EscapeDataString(q.Value));
                sep = '&';
            }
            var req = new HttpRequest { Method = route.Method, Url = url.ToString(), TimeoutMs = Options.TimeoutMs };
            req.Headers["accept"] = "application/json";
            foreach (var h in input.Headers) req.Headers[h.Key] = h.Value;
            if (route.Auth != "none") req.Headers["authorization"] = "Bearer " + Options.RuntimeKey;
            var session = input.OverrideSession ? input.Session : Options.Session?.Invoke();
            if (session != null && (route.Auth == "session" || route.Auth == "optionalSession"))
            {
                req.Headers["x-service-account-session"] = session.Token;
                if (!route.Path.Contains("{accountId}")) req.Headers["x-service-account-id"] = session.AccountId;
            }
            if (key != null) req.Headers["idempotency-key"] = key;
            if (input.Body != null)
            {
                req.Body = input.Body.ToString(Newtonsoft.Json.Formatting.None);
                req.Headers["content-type"] = "application/json";
            }
            HttpAnswer res;
            var sentAt = Options.Clock.Now();
            try
            {
                res = await Options.Transport.SendAsync(req).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                throw new SavepointException("network_error", "no answer from " + Options.BaseUrl + ": " + e.Message, 0);
            }
            Options.OnAnswer?.Invoke(res.Header("date"), sentAt, Options.Clock.Now());
            JToken body = null;
            try
            {
                if (!string.IsNullOrEmpty(res.Body)) body = Json.Parse(res.Body);
            }
            catch (Exception)
            {
                // A proxy's HTML page: typed below by its status.
            }
            if (res.Status == route.Ok || res.Status == 304) return new ApiAnswer { Status = res.Status, Body = body, Raw = res };
            if (res.Status == 409 && body is JObject o && (string)o["status"] == "conflict") return new ApiAnswer { Status = 409, Body = body, Raw = res };
            throw Errors.FromAnswer(res.Status, body, res.Header, DateTimeOffset.FromUnixTimeMilliseconds(Options.Clock.Now()));
        }

        string Acc(string accountId)
        {
            var id = accountId ?? Options.Session?.Invoke()?.AccountId;
            if (id == null) throw new SavepointException("unauthorized", "no account: create one, sign in or consume a transfer code first", 0);
            return id;
        }

        CallInput In(string accountId = null, JToken body = null, string key = null, params string[] pairs)
        {
            var c = new CallInput { Body = body, IdempotencyKey = key };
            if (accountId != "-") c.Params["accountId"] = Acc(accountId);
            for (var i = 0; i + 1 < pairs.Length; i += 2) c.Params[pairs[i]] = pairs[i + 1];
            return c;
        }

        static JObject Obj(params object[] pairs)
        {
            var o = new JObject();
            for (var i = 0; i + 1 < pairs.Length; i += 2) if (pairs[i + 1] != null) o[(string)pairs[i]] = Json.From(pairs[i + 1]);
            return o;
        }

        async Task<T> Run<T>(RouteSpec r, CallInput c)
        {
            return (await Call(r, c).ConfigureAwait(false)).As<T>();
        }

        async Task<WriteResult<TC>> Write<TC>(RouteSpec r, CallInput c) where TC : class
        {
            var a = await Call(r, c).ConfigureAwait(false);
            return a.Status == 409 ? new WriteResult<TC> { Conflict = a.As<TC>() } : new WriteResult<TC> { Accepted = a.As<SyncAcceptedResponse>() };
        }

        /// <summary>1</summary>
        public Task<HealthResponse> Health() { return Run<HealthResponse>(Routes.Health, In("-")); }

        /// <summary>2: null config with NotModified true means "keep your cached copy" (ETag).</summary>
        public async Task<RuntimeConfigAnswer> RuntimeConfig(int? gameConfigVersion = null, string etag = null)
        {
            var c = In("-");
            if (gameConfigVersion != null) c.Query["gameConfigVersion"] = gameConfigVersion.Value.ToString();
            if (etag != null) c.Headers["if-none-match"] = etag;
            var a = await Call(Routes.GetRuntimeConfig, c).ConfigureAwait(false);
            return new RuntimeConfigAnswer { NotModified = a.Status == 304, Config = a.Status == 304 ? null : a.As<RuntimeConfigResponse>(), ETag = a.Raw.Header("etag") };
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
        public Task<AccountResponse> GetAccount(string accountId = null) { return Run<AccountResponse>(Routes.GetAccount, In(accountId)); }
        /// <summary>7</summary>
        public Task<DeleteAccountResponse> DeleteAccount(string accountId = null) { return Run<DeleteAccountResponse>(Routes.DeleteAccount, In(accountId)); }

        /// <summary>8</summary>
        public Task<WriteResult<AccountConflictResponse>> SyncAccountData(int baseVersion, JObject accountData, string idempotencyKey = null, string accountId = null)
        {
            return Write<AccountConflictResponse>(Routes.SyncAccountData, In(accountId, Obj("baseVersion", baseVersion, "accountData", accountData), idempotencyKey));
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
        public Task<SlotResponse> GetSlot(string slotId, string accountId = null) { return Run<SlotResponse>(Routes.GetSlot, In(accountId, null, null, "slotId", slotId)); }
        /// <summary>14</summary>
        public Task<DeleteSlotResponse> DeleteSlot(string slotId, string accountId = null) { return Run<DeleteSlotResponse>(Routes.DeleteSlot, In(accountId, null, null, "slotId", slotId)); }

        /// <summary>15</summary>
        public Task<WriteResult<SlotConflictResponse>> SyncSlot(string slotId, int baseVersion, JObject data, JObject slotInfo = null, string idempotencyKey = null, string accountId = null)
        {
            var body = Obj("baseVersion", baseVersion, "data", data, "slotInfo", slotInfo);
            return Write<SlotConflictResponse>(Routes.SyncSlot, In(accountId, body, idempotencyKey, "slotId", slotId));
        }

        /// <summary>16</summary>
        public Task<AccountResponse> ArchiveSlot(string slotId, string accountId = null) { return Run<AccountResponse>(Routes.ArchiveSlot, In(accountId, null, null, "slotId", slotId)); }

        /// <summary>17: for servers relaying signed Stripe events; a game never calls it.</summary>
        public Task<StripeWebhookResponse> StripeWebhook(string payload, string signature)
        {
            var c = In("-", Json.Parse(payload));
            c.Headers["stripe-signature"] = signature;
            return Run<StripeWebhookResponse>(Routes.StripeWebhook, c);
        }

        /// <summary>18: the save-based model's write; a conflict comes back with Status "conflict".</summary>
        public async Task<SaveWriteResult> SyncSave(string saveId, int baseVersion, JObject state, JObject metadata = null, string externalUserId = null, string idempotencyKey = null)
        {
            var c = In("-", Obj("baseVersion", baseVersion, "state", state, "metadata", metadata, "externalUserId", externalUserId), idempotencyKey, "saveId", saveId);
            var a = await Call(Routes.SyncSave, c).ConfigureAwait(false);
            return a.Status == 409 ? new SaveWriteResult { Conflict = a.As<SaveConflictResponse>() } : new SaveWriteResult { Accepted = a.As<SaveSyncResponse>() };
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

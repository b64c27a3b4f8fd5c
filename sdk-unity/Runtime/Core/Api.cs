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
    public sealed partial class SavepointApi
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
                if (!input.Params.TryGetValue(m.Groups[1].Value, out v)) throw new SavepointException("invalid_request",
                    "missing path parameter " + m.Groups[1].Value, 0);
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

        /// <summary>A call's input: <paramref name="accountId"/> "-" for routes without one, null for the session's; then path parameters as pairs.</summary>
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
    }
}

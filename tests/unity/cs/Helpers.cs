using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Text;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The embedded server the bun test started (SAVEPOINT_URL), and its operator API for fresh tenants.</summary>
    public static class TestServer
    {
        public static readonly string Url = Environment.GetEnvironmentVariable("SAVEPOINT_URL");
        static readonly HttpClient http = new HttpClient();

        public static async Task<JToken> Admin(string method, string path, JObject body = null)
        {
            var m = new HttpRequestMessage(new HttpMethod(method), Url + path);
            m.Headers.TryAddWithoutValidation("authorization", "Bearer " + Environment.GetEnvironmentVariable("SAVEPOINT_ADMIN_TOKEN"));
            if (body != null) m.Content = new StringContent(body.ToString(), Encoding.UTF8, "application/json");
            var r = await http.SendAsync(m);
            var text = await r.Content.ReadAsStringAsync();
            if ((int)r.StatusCode >= 300) throw new Exception(method + " " + path + ": " + (int)r.StatusCode + " " + text);
            return string.IsNullOrEmpty(text) ? null : Json.Parse(text);
        }

        /// <summary>A fresh workspace, project and stage runtime key, with the given sync policy.</summary>
        public static async Task<(string Key, string ProjectId)> Tenant(JObject policy = null)
        {
            var ws = await Admin("POST", "/admin/v1/workspaces", new JObject { ["name"] = "cs", ["plan"] = "self_hosted" });
            var project = await Admin("POST", "/admin/v1/workspaces/" + ws["workspaceId"] + "/projects", new JObject { ["name"] = "game" });
            var pid = (string)project["projectId"];
            var key = await Admin("POST", "/admin/v1/projects/" + pid + "/environments/stage/runtime-keys", new JObject { ["label"] = "t" });
            if (policy != null) await Admin("PUT", "/admin/v1/projects/" + pid + "/sync-policy", policy);
            return ((string)key["runtimeKey"], pid);
        }

        /// <summary>A client with a manual clock, no config polling, one attempt per request.</summary>
        public static SavepointClient Client(string key, IStorage storage = null, IClock clock = null, Action<ClientOptions> more = null)
        {
            var o = new ClientOptions
            {
                BaseUrl = Url,
                RuntimeKey = key,
                Storage = storage ?? new MemoryStorage(),
                Clock = clock ?? new ManualClock(),
                ConfigRefreshSeconds = 0,
                Retry = new RetryOptions { Attempts = 1, Random = () => 0 },
                Dispatcher = new ContextDispatcher(null),
            };
            more?.Invoke(o);
            return new SavepointClient(o);
        }

        /// <summary>A raw API on one account's session, to read what the server holds.</summary>
        public static SavepointApi Api(string key, Session session)
        {
            return new SavepointApi(new ApiOptions { BaseUrl = Url, RuntimeKey = key, Session = () => session, Retry = new RetryOptions { Attempts = 1 } });
        }

        public static Session SessionOf(SavepointClient c)
        {
            return Json.ToObject<Session>(c.Store.GetValue("session"));
        }

        public static string TempDir()
        {
            var root = Environment.GetEnvironmentVariable("SAVEPOINT_CS_TMP") ?? System.IO.Path.GetTempPath();
            var d = System.IO.Path.Combine(root, "savepoint-cs-" + Guid.NewGuid().ToString("N"));
            System.IO.Directory.CreateDirectory(d);
            return d;
        }
    }

    /// <summary>A network the test can take away: requests fail as a dropped connection would; the server stays up.</summary>
    public sealed class SwitchableTransport : IHttpTransport
    {
        readonly IHttpTransport inner = new HttpClientTransport();
        public volatile bool Online = true;
        public int Requests;
        public readonly List<HttpRequest> Sent = new List<HttpRequest>();

        public Task<HttpAnswer> SendAsync(HttpRequest request)
        {
            lock (Sent)
            {
                Requests++;
                Sent.Add(request);
            }
            if (!Online) throw new System.Net.Http.HttpRequestException("network is offline");
            return inner.SendAsync(request);
        }
    }
}

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>
    /// The shared cases of sdk-vectors/ (its README gives the formats), run by the C# client: one NUnit case
    /// per vector. A file of a kind this runner does not know, or a case field it would ignore, fails.
    /// </summary>
    [TestFixture]
    public class VectorTests
    {
        static readonly string Dir = Environment.GetEnvironmentVariable("SAVEPOINT_VECTORS_DIR") ?? "sdk-vectors";

        internal static JObject File_(string name)
        {
            var path = Path.Combine(Dir, name);
            if (!File.Exists(path)) return null;
            // Newtonsoft repairs a lone surrogate escape while parsing: each \uD800-\uDFFF escape is kept as a marker, made a char again
            // where the case's value is built (VectorScenarioTests.Build), as sdk-vectors/README.md asks of such parsers.
            var text = System.Text.RegularExpressions.Regex.Replace(File.ReadAllText(path), @"\\u([dD][89a-fA-F][0-9a-fA-F]{2})", "@@SURR$1@@");
            return JObject.Parse(text);
        }

        internal static IEnumerable<TestCaseData> Cases(string file, string kind)
        {
            var f = File_(file);
            if (f == null)
            {
                yield return new TestCaseData(null).SetName(kind + ": " + Path.Combine(Dir, file) + " is missing");
                yield break;
            }
            foreach (JObject c in (JArray)f["cases"]) yield return new TestCaseData(c).SetName(kind + ": " + (string)c["name"]);
        }

        internal static void Known(JObject c, params string[] fields)
        {
            Assert.IsNotNull(c, "the vectors folder is missing: " + Dir);
            var unknown = c.Properties().Select(p => p.Name).Except(fields).ToList();
            Assert.IsEmpty(unknown, "fields this runner does not read");
        }

        public static IEnumerable<TestCaseData> MergeCases() { return Cases("merge.json", "merge"); }
        public static IEnumerable<TestCaseData> PolicyCases() { return Cases("policy.json", "policy"); }
        public static IEnumerable<TestCaseData> ErrorCases() { return Cases("errors.json", "errors"); }

        [Test]
        public void EveryFileIsOfAKindThisRunnerKnows()
        {
            Assert.IsTrue(Directory.Exists(Dir), "no shared vectors at " + Dir);
            var kinds = new Dictionary<string, string>
            {
                ["merge.json"] = "merge", ["policy.json"] = "policy", ["errors.json"] = "errors", ["idempotency.json"] = "idempotency",
                    ["json-refusal.json"] = "json-refusal", ["sync-result.json"] = "sync-result", ["server-clock.json"] = "server-clock",
                    ["reattach.json"] = "reattach",
            };
            foreach (var f in Directory.GetFiles(Dir, "*.json"))
            {
                var name = Path.GetFileName(f);
                Assert.IsTrue(kinds.ContainsKey(name), "a vector file this runner does not know: " + name);
                Assert.AreEqual(kinds[name], (string)JObject.Parse(File.ReadAllText(f))["kind"], name);
            }
        }

        [TestCaseSource("MergeCases")]
        public void Merge(JObject c)
        {
            Known(c, "name", "resolution", "rules", "otherwise", "context", "base", "server", "local", "merged");
            var resolution = (string)c["resolution"] ?? "rules";
            var context = new MergeContext { Target = "main", ServerUpdatedAt = (long?)c["context"]?["serverUpdatedAt"] ?? 0,
                LocalSavedAt = (long?)c["context"]?["localSavedAt"] ?? 0 };
            Resolution r;
            if (resolution == "server") r = Resolution.Server;
            else if (resolution == "local") r = Resolution.Local;
            else
            {
                var rules = (c["rules"] as JObject ?? new JObject()).Properties().ToDictionary(p => p.Name, p => Rule.Named((string)p.Value));
                r = Resolution.With(MergeRules.Create(rules, c["otherwise"] != null ? Rule.Named((string)c["otherwise"]) : null));
            }
            var merged = r.Resolve((JObject)c["base"], (JObject)c["server"], (JObject)c["local"], context);
            Assert.IsTrue(Json.Same(c["merged"], merged),
                "expected " + c["merged"].ToString(Newtonsoft.Json.Formatting.None) + " got " + merged.ToString(Newtonsoft.Json.Formatting.None));
        }

        static JObject Over(JToken defaults, JToken mine)
        {
            var o = (JObject)(defaults?.DeepClone() ?? new JObject());
            if (mine is JObject m) foreach (var p in m.Properties()) o[p.Name] = p.Value;
            return o;
        }

        [TestCaseSource("PolicyCases")]
        public void Policy(JObject c)
        {
            Known(c, "name", "event", "now", "policy", "state", "options", "decision");
            var defaults = File_("policy.json")["defaults"];
            var policy = Over(defaults["policy"], c["policy"]).ToObject<SyncPolicy>();
            var s = Over(defaults["state"], c["state"]);
            var o = Over(defaults["options"], c["options"]);
            var state = new PolicyState
            {
                Pending = (bool)s["pending"], HasSession = (bool)s["hasSession"], Stopped = (bool)s["stopped"], LastRemoteSyncAt = (long?)s["lastRemoteSyncAt"],
                LastForcedAt = (long?)s["lastForcedAt"], Failures = (int?)s["failures"] ?? 1, RetryAfterSeconds = (double?)s["retryAfterSeconds"] ?? 0,
                NetworkDown = (bool?)s["networkDown"] ?? false,
            };
            var random = (double)o["random"];
            var d = PolicyDecide.Decide(policy, state, (string)c["event"], (long)c["now"], (string)o["onCooldown"], (long)o["retryBaseMs"],
                (long)o["retryMaxMs"], () => random);
            var got = new JObject { ["action"] = d.Action };
            if (d.Keepalive) got["keepalive"] = true;
            if (d.Until != null) got["until"] = d.Until.Value;
            if (d.RetryAt != null) got["retryAt"] = d.RetryAt.Value;
            Assert.IsTrue(Json.Same(c["decision"], got),
                "expected " + c["decision"].ToString(Newtonsoft.Json.Formatting.None) + " got " + got.ToString(Newtonsoft.Json.Formatting.None));
        }

        /// <summary>Answers every request with one scripted answer.</summary>
        sealed class Scripted : IHttpTransport
        {
            public HttpAnswer Answer;
            public Task<HttpAnswer> SendAsync(HttpRequest r) { return Task.FromResult(Answer); }
        }

        [TestCaseSource("ErrorCases")]
        public async Task Errors_(JObject c)
        {
            Known(c, "name", "status", "headers", "body", "bodyText", "now", "error", "conflict");
            var answer = new HttpAnswer { Status = (int)c["status"], Body = c["bodyText"] != null ? (string)c["bodyText"] : c["body"]?.ToString() };
            foreach (var h in (c["headers"] as JObject ?? new JObject()).Properties()) answer.Headers[h.Name] = (string)h.Value;
            var clock = new ManualClock(c["now"] != null ? DateTimeOffset.Parse((string)c["now"]).ToUnixTimeMilliseconds() : 1893456000000);
            var api = new SavepointApi(new ApiOptions
            {
                BaseUrl = "http://vectors", RuntimeKey = "k", Transport = new Scripted { Answer = answer }, Clock = clock,
                Retry = new RetryOptions { Attempts = 1 }, Session = () => new Session { AccountId = "acc_vectors", Token = "t" },
            });
            SavepointException e = null;
            ApiAnswer ok = null;
            try
            {
                ok = await api.Call(Routes.SyncSlot, new CallInput { Params = { ["accountId"] = "acc_vectors", ["slotId"] = "main" }, Body = new JObject() });
            }
            catch (SavepointException x)
            {
                e = x;
            }
            if ((bool?)c["conflict"] == true)
            {
                Assert.IsNull(e, "a conflict body is a value, not an error");
                Assert.AreEqual(409, ok.Status);
                return;
            }
            var want = (JObject)c["error"];
            Assert.IsNotNull(e, "an error is raised");
            Assert.AreEqual((string)want["code"], e.Code);
            Assert.AreEqual((int)want["status"], e.Status);
            Assert.IsTrue(Json.Same(want["details"], e.Details), "details " + e.Details);
            Assert.AreEqual((bool)want["retryable"], Savepoint.Errors.IsRetryable(e), "retryable");
            if (want["message"] != null) Assert.AreEqual((string)want["message"], e.Message);
            Assert.AreEqual((double?)want["retryAfterSeconds"], e.RetryAfterSeconds, "retryAfterSeconds");
            Assert.AreEqual((string)want["requestId"], e.RequestId, "requestId");
        }

        [Test]
        public void IdempotencyRoutesMatchTheTable()
        {
            var f = File_("idempotency.json");
            Assert.IsNotNull(f, "the vectors folder is missing: " + Dir);
            var want = ((JObject)f["routes"]).Properties().ToDictionary(p => p.Name, p => (bool)p.Value);
            CollectionAssert.AreEquivalent(want.Keys.ToList(), Routes.All.Select(r => r.OperationId).ToList());
            foreach (var r in Routes.All) Assert.AreEqual(want[r.OperationId], r.Idempotent, r.OperationId);
        }
    }
}

using System;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;
using System.Text.RegularExpressions;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The shared json-refusal cases and idempotency scenarios (sdk-vectors/README.md), run by the C# client.</summary>
    [TestFixture]
    public class VectorScenarioTests
    {
        /// <summary>Markers whose value a C# JSON value (a JToken) cannot hold: a game cannot hand one to the client, so there is nothing to refuse.</summary>
        static readonly string[] NoCSharpValue = { "$function", "$cycle", "$map" };

        /// <summary>The json-refusal cases that do not apply to C#, by name, with the marker that makes them so.</summary>
        static readonly Dictionary<string, string> NotApplicable = new Dictionary<string, string>
        {
            ["a function"] = "$function", ["an object that contains itself"] = "$cycle", ["a map object"] = "$map",
        };

        static IEnumerable<string> Markers(JToken v)
        {
            if (v is JObject o)
            {
                var only = o.Count == 1 ? o.Properties().First() : null;
                if (only != null && only.Name.StartsWith("$")) yield return only.Name;
            }
            if (v is JContainer c) foreach (var x in c.Children()) foreach (var m in Markers(x)) yield return m;
        }

        static string Inapplicable(JObject c)
        {
            return Markers(c["value"]).FirstOrDefault(m => NoCSharpValue.Contains(m));
        }

        /// <summary>Every case but the ones C# cannot even build (NotApplicable, checked by NotApplicableCasesAreExactlyTheListedOnes).</summary>
        public static IEnumerable<TestCaseData> RefusalCases()
        {
            return VectorTests.Cases("json-refusal.json", "json-refusal").Where(d => !(d.Arguments[0] is JObject c) || Inapplicable(c) == null);
        }

        [Test]
        public void NotApplicableCasesAreExactlyTheListedOnes()
        {
            var f = VectorTests.File_("json-refusal.json");
            Assert.IsNotNull(f, "the vectors folder is missing");
            var found = ((JArray)f["cases"]).Cast<JObject>().Where(c => Inapplicable(c) != null).ToDictionary(c => (string)c["name"], Inapplicable);
            CollectionAssert.AreEquivalent(NotApplicable, found, "json-refusal cases that a C# JSON value cannot hold: " + string.Join(", ", found));
            foreach (JObject c in (JArray)f["cases"])
            {
                if (found.ContainsKey((string)c["name"])) Assert.IsNotNull(c["refused"], (string)c["name"] + ": a value C# cannot hold must be refused in JS");
            }
        }

        public static IEnumerable<TestCaseData> Scenarios()
        {
            var f = VectorTests.File_("idempotency.json");
            if (f == null)
            {
                yield return new TestCaseData(null).SetName("idempotency: the vectors folder is missing");
                yield break;
            }
            foreach (JObject c in (JArray)f["scenarios"]) yield return new TestCaseData(c).SetName("idempotency: " + (string)c["name"]);
        }

        /// <summary>Lone surrogates as the file spelled them (VectorTests.File_ keeps their escapes as markers).</summary>
        static string Chars(string s)
        {
            return Regex.Replace(s, "@@SURR([0-9a-fA-F]{4})@@", m => ((char)Convert.ToInt32(m.Groups[1].Value, 16)).ToString());
        }

        /// <summary>A marker's C# value; null when C# has none (a delegate, a map, a cycle cannot be in a JToken).</summary>
        static JToken Build(JToken v, out string none)
        {
            none = null;
            if (v is JArray a)
            {
                var r = new JArray();
                foreach (var x in a)
                {
                    var b = Build(x, out none);
                    if (none != null) return null;
                    r.Add(b);
                }
                return r;
            }
            if (v != null && v.Type == JTokenType.String) return new JValue(Chars((string)v));
            if (!(v is JObject o)) return v?.DeepClone();
            var marker = o.Count == 1 ? o.Properties().First() : null;
            if (marker != null && marker.Name.StartsWith("$"))
            {
                switch (marker.Name)
                {
                    case "$number":
                        var n = (string)marker.Value;
                        return new JValue(n == "NaN" ? double.NaN : n == "Infinity" ? double.PositiveInfinity : n == "-Infinity"
                            ? double.NegativeInfinity : -0.0);
                    case "$undefined":
                        return JValue.CreateUndefined();
                    case "$bigint":
                        return new JValue(BigInteger.Parse((string)marker.Value));
                    case "$date":
                        return new JValue(DateTime.Parse((string)marker.Value).ToUniversalTime());
                    case "$nest":
                        JToken nest = new JValue(0);
                        for (var i = 0; i < (int)marker.Value; i++) nest = new JArray(nest);
                        return nest;
                    case "$zeros":
                        return new JArray(Enumerable.Repeat(0, (int)marker.Value));
                    case "$function":
                    case "$cycle":
                    case "$map":
                        none = marker.Name;
                        return null;
                    default:
                        throw new AssertionException("cannot run: unknown marker " + marker.Name);
                }
            }
            var result = new JObject();
            foreach (var p in o.Properties())
            {
                var b = Build(p.Value, out none);
                if (none != null) return null;
                result[Chars(p.Name)] = b;
            }
            return result;
        }

        [TestCaseSource("RefusalCases")]
        public void JsonRefusal(JObject c)
        {
            VectorTests.Known(c, "name", "value", "object", "accepted", "refused");
            string none;
            var value = Build(c["value"], out none);
            Assert.IsNull(none, "RefusalCases leaves out the cases C# cannot build");
            var r = JsonCheck.Refusal(value, (bool?)c["object"] == true);
            if ((bool?)c["accepted"] == true)
            {
                Assert.IsNull(r, r == null ? "" : "refused " + r.Reason + " at " + new JArray(r.Path));
                return;
            }
            Assert.IsNotNull(r, "accepted, but the case refuses it");
            Assert.AreEqual((string)c["refused"]["reason"], r.Reason);
            var want = Build(c["refused"]["path"], out none);
            Assert.IsTrue(Json.Same(want, new JArray(r.Path)), "path " + new JArray(r.Path).ToString(Newtonsoft.Json.Formatting.None));
        }

        [Test]
        public void SaveRefusesBeforeAnythingIsWritten()
        {
            var storage = new MemoryStorage();
            var c = TestServer.Client("k", storage);
            var e = Assert.Throws<SavepointException>(() => c.Save("main", new JObject { ["hp"] = new JArray(1, double.NaN) }));
            Assert.AreEqual("invalid_json", e.Code);
            Assert.AreEqual("[\"hp\",1]", e.Details["path"].ToString(Newtonsoft.Json.Formatting.None));
            Assert.AreEqual("not_finite", (string)e.Details["reason"]);
            Assert.IsEmpty(storage.Keys(""), "nothing was written");
            Assert.IsNull(c.Load("main"));
        }

        /// <summary>The scripted server: answers in order, records every request with its route, body and key.</summary>
        sealed class Script : IHttpTransport
        {
            public readonly List<JObject> Answers;
            public readonly List<JObject> Requests = new List<JObject>();
            public string Problem;
            int next;

            public Script(JArray answers) { Answers = answers.Cast<JObject>().ToList(); }
            public int Unused { get { return Answers.Count - next; } }

            static string RouteOf(HttpRequest r)
            {
                var path = new Uri(r.Url).AbsolutePath;
                return Routes.All.Where(x => x.Method == r.Method && Regex.IsMatch(path, "^" + Regex.Replace(x.Path, @"\{[A-Za-z]+\}", "[^/]+") + "$"))
                    .OrderBy(x => x.Path.Count(ch => ch == '{')).Select(x => x.OperationId).FirstOrDefault();
            }

            public Task<HttpAnswer> SendAsync(HttpRequest r)
            {
                var route = RouteOf(r);
                if (route == "getRuntimeConfig")
                {
                    var policy = "{\"minRemoteSyncIntervalSeconds\":3600,\"forceSyncCooldownSeconds\":0,\"syncOnAppBackground\":true,"
                        + "\"syncOnAppForeground\":true,\"syncOnReconnect\":false,\"maxQueuedLocalSnapshots\":25}";
                    return Task.FromResult(new HttpAnswer { Status = 200, Body = "{\"syncPolicy\":" + policy + "}" });
                }
                string key;
                r.Headers.TryGetValue("idempotency-key", out key);
                lock (Requests) Requests.Add(new JObject { ["route"] = route, ["body"] = r.Body == null ? null : JToken.Parse(r.Body), ["key"] = key });
                if (next >= Answers.Count || (string)Answers[next]["route"] != route)
                {
                    Problem = Problem ?? "request " + Requests.Count + " is " + route + ", the script expected " + (next < Answers.Count
                        ? (string)Answers[next]["route"] : "none");
                    throw new System.Net.WebException("unscripted");
                }
                var a = Answers[next++];
                if ((bool?)a["lost"] == true) throw new System.Net.WebException("connection dropped before the answer");
                var answer = new HttpAnswer { Status = (int)a["status"], Body = a["bodyText"] != null ? (string)a["bodyText"] : a["body"]?.ToString() };
                foreach (var h in (a["headers"] as JObject ?? new JObject()).Properties()) answer.Headers[h.Name] = (string)h.Value;
                return Task.FromResult(answer);
            }
        }

        [TestCaseSource("Scenarios")]
        public async Task Idempotency(JObject c)
        {
            VectorTests.Known(c, "name", "replay", "retryAttempts", "steps", "answers", "requests");
            var storage = new MemoryStorage();
            storage.Set("savepoint:session", "{\"accountId\":\"acc_vectors\",\"token\":\"t\"}");
            var script = new Script((JArray)c["answers"]);
            Func<SavepointClient> open = () => TestServer.Client("k", storage, new ManualClock(), o =>
            {
                o.Transport = script;
                o.Replay = (string)c["replay"] == "all" ? Replay.All : Replay.Latest;
                o.Retry = new RetryOptions { Attempts = (int?)c["retryAttempts"] ?? 1, Random = () => 0 };
            });
            var client = open();
            await client.ReadyAsync();
            foreach (JObject step in (JArray)c["steps"])
            {
                if (step["save"] != null) client.Save((string)step["save"]["slot"], (JObject)step["save"]["data"]);
                else if (step["saveAccountData"] != null) client.SaveAccountData((JObject)step["saveAccountData"]);
                else if (step["sync"] != null)
                {
                    await client.SyncAsync(true);
                    await client.SettledAsync();
                }
                else if (step["restart"] != null)
                {
                    client.Dispose();
                    client = open();
                    await client.ReadyAsync();
                }
                else Assert.Fail("a step this runner does not know: " + step);
            }
            Assert.IsNull(script.Problem, script.Problem);
            Assert.AreEqual(0, script.Unused, "scripted answers left unused");
            var want = (JArray)c["requests"];
            Assert.AreEqual(want.Count, script.Requests.Count, "requests: " + new JArray(script.Requests));
            var labels = new Dictionary<string, string>();
            for (var i = 0; i < want.Count; i++)
            {
                var w = (JObject)want[i];
                var got = script.Requests[i];
                Assert.AreEqual((string)w["route"], (string)got["route"], "request " + i);
                Assert.IsTrue(Json.Same(w["body"], got["body"]), "request " + i + " body " + got["body"]);
                var label = (string)w["key"];
                var key = (string)got["key"];
                if (label == null)
                {
                    Assert.IsNull(key, "request " + i + " carries no key");
                    continue;
                }
                Assert.IsNotNull(key, "request " + i + " carries a key");
                string seen;
                if (labels.TryGetValue(label, out seen)) Assert.AreEqual(seen, key, "request " + i + ": the same key as before (" + label + ")");
                else
                {
                    CollectionAssert.DoesNotContain(labels.Values.ToList(), key, "request " + i + ": a new key (" + label + ")");
                    labels[label] = key;
                }
            }
        }
    }
}

using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The engine against the real server: offline then online, two devices racing, a dropped answer.</summary>
    [TestFixture]
    public class SyncTests
    {
        static JObject O(string json) { return JObject.Parse(json); }

        [Test]
        public async Task OfflineSavesAllReachTheServerWhenTheNetworkIsBack()
        {
            var (key, _) = await TestServer.Tenant(O("{\"minRemoteSyncIntervalSeconds\":1,\"forceSyncCooldownSeconds\":1}"));
            var net = new SwitchableTransport();
            var clock = new ManualClock();
            var c = TestServer.Client(key, clock: clock, more: o => { o.Transport = net; o.Replay = Replay.All; });
            await c.EnsureAccountAsync();
            net.Online = false;
            for (var i = 1; i <= 5; i++) c.Save("main", new JObject { ["n"] = i });
            var offline = await c.SyncAsync(true);
            Assert.AreEqual(SyncOutcome.Offline, offline.Status);
            Assert.AreEqual(SyncState.Offline, c.Status.State);
            Assert.AreEqual(5, (int)c.Load("main")["n"]);
            net.Online = true;
            await c.ReconnectedAsync();
            await c.SettledAsync();
            Assert.AreEqual(0, c.Status.Pending.Count);
            var server = await TestServer.Api(key, TestServer.SessionOf(c)).GetSlot("main");
            // Replay All: each offline save is its own version on the server, in order.
            Assert.AreEqual(5, server.Version);
            Assert.AreEqual(5, (int)server.Data["n"]);
            var history = await TestServer.Api(key, TestServer.SessionOf(c)).SlotHistory("main");
            CollectionAssert.AreEquivalent(new[] { 1, 2, 3, 4, 5 }, history.RestorePoints.Select(p => p.Version).ToArray());
        }

        [Test]
        public async Task SavesBetweenTwoSyncsCoalesceIntoOneVersion()
        {
            var (key, _) = await TestServer.Tenant(O("{\"minRemoteSyncIntervalSeconds\":1,\"forceSyncCooldownSeconds\":1}"));
            var c = TestServer.Client(key);
            await c.EnsureAccountAsync();
            for (var i = 1; i <= 4; i++) c.Save("main", new JObject { ["n"] = i });
            var r = await c.SyncAsync(true);
            Assert.AreEqual(SyncOutcome.Synced, r.Status);
            Assert.AreEqual(1, r.Targets["main"].Version);
            Assert.AreEqual(4, (int)(await TestServer.Api(key, TestServer.SessionOf(c)).GetSlot("main")).Data["n"]);
        }

        static IEnumerable<TestCaseData> Races()
        {
            // rule, base, device A's save (reaches the server first), device B's save, what both end with
            yield return new TestCaseData("max", "{\"best\":10}", "{\"best\":30}", "{\"best\":20}", "{\"best\":30}");
            yield return new TestCaseData("sum", "{\"coins\":100}", "{\"coins\":130}", "{\"coins\":90}", "{\"coins\":120}");
            yield return new TestCaseData("union", "{\"items\":[\"a\"]}", "{\"items\":[\"a\",\"b\"]}", "{\"items\":[\"a\",\"c\"]}",
                "{\"items\":[\"a\",\"b\",\"c\"]}");
            yield return new TestCaseData("latest", "{\"name\":\"x\"}", "{\"name\":\"server\"}", "{\"name\":\"local\"}", "{\"name\":\"local\"}");
            yield return new TestCaseData("server", "{\"v\":1}", "{\"v\":2}", "{\"v\":3}", "{\"v\":2}");
            yield return new TestCaseData("local", "{\"v\":1}", "{\"v\":2}", "{\"v\":3}", "{\"v\":3}");
            yield return new TestCaseData("delegate", "{\"v\":1}", "{\"v\":2}", "{\"v\":3}", "{\"v\":23}");
        }

        [TestCaseSource("Races")]
        public async Task TwoDevicesRacingMergeWithTheRule(string rule, string baseJson, string aJson, string bJson, string expected)
        {
            var (key, _) = await TestServer.Tenant(O("{\"minRemoteSyncIntervalSeconds\":1,\"forceSyncCooldownSeconds\":1}"));
            var path = O(baseJson).Properties().First().Name;
            Resolution resolution;
            if (rule == "server") resolution = Resolution.Server;
            else if (rule == "local") resolution = Resolution.Local;
            else if (rule == "delegate") resolution = Resolution.With((bs, s, l, ctx) => new JObject { ["v"] = (int)s["v"] * 10 + (int)l["v"] });
            else resolution = Resolution.With(MergeRules.Create(new Dictionary<string, Rule> { [path] = Rule.Named(rule) }));
            var aClock = new ManualClock();
            var a = TestServer.Client(key, clock: aClock);
            await a.EnsureAccountAsync();
            a.Save("main", O(baseJson));
            Assert.AreEqual(SyncOutcome.Synced, (await a.SyncAsync(true)).Status);
            var bClock = new ManualClock();
            var b = TestServer.Client(key, clock: bClock, more: o => o.Resolve = resolution);
            await b.ReadyAsync();
            Assert.IsTrue(await b.Account.AttachTransferCodeAsync((await a.Account.CreateTransferCodeAsync()).TransferCode, p => Task.FromResult(true)));
            Assert.AreEqual(O(baseJson).ToString(), b.Load("main").ToString());
            a.Save("main", O(aJson));
            // Past the forced sync's cooldown (1 s, the server's minimum).
            aClock.Advance(1000);
            Assert.AreEqual(SyncOutcome.Synced, (await a.SyncAsync(true)).Status);
            var conflicts = new List<ConflictEvent>();
            b.Conflict += e => conflicts.Add(e);
            // latest compares save times on the server's clock (estimated from whole-second Date headers): B saves 2 s after its last answer.
            if (rule == "latest") bClock.Advance(2000);
            b.Save("main", O(bJson));
            var r = await b.SyncAsync(true);
            Assert.AreEqual(SyncOutcome.Synced, r.Status);
            Assert.AreEqual(1, conflicts.Count);
            Assert.IsTrue(Json.Same(O(aJson), conflicts[0].Server), "the conflict event carries the server side");
            Assert.IsTrue(Json.Same(O(bJson), conflicts[0].Local), "and the local side");
            Assert.IsTrue(Json.Same(O(expected), b.Load("main")), "merged: " + b.Load("main"));
            var server = await TestServer.Api(key, TestServer.SessionOf(a)).GetSlot("main");
            Assert.IsTrue(Json.Same(O(expected), server.Data), "server: " + server.Data);
            // base (1), A (2), and the merge (3) unless the server's state won as it was.
            Assert.AreEqual(Json.Same(O(expected), O(aJson)) ? 2 : 3, server.Version);
        }

        [Test]
        public async Task AnAnswerDroppedByTheProxyAddsOneVersion()
        {
            var (key, _) = await TestServer.Tenant(O("{\"minRemoteSyncIntervalSeconds\":1,\"forceSyncCooldownSeconds\":1}"));
            using (var proxy = new DroppingProxy(TestServer.Url))
            {
                var clock = new ManualClock();
                var c = TestServer.Client(key, clock: clock, more: o =>
                {
                    o.BaseUrl = proxy.Url;
                    o.Retry = new RetryOptions { Attempts = 3, Random = () => 0 };
                });
                await c.EnsureAccountAsync();
                c.Save("main", new JObject { ["n"] = 1 });
                Assert.AreEqual(SyncOutcome.Synced, (await c.SyncAsync(true)).Status);
                var conflicts = 0;
                c.Conflict += e => conflicts++;
                proxy.DropNext("/sync");
                clock.Advance(1000);
                c.Save("main", new JObject { ["n"] = 2 });
                var r = await c.SyncAsync(true);
                Assert.AreEqual(1, proxy.Dropped, "the proxy dropped one answer");
                // The same key: the server answers the retry with the first write's answer, not a conflict with it.
                Assert.AreEqual(0, conflicts, "the retry conflicted with its own first attempt");
                Assert.AreEqual(SyncOutcome.Synced, r.Status);
                Assert.AreEqual(2, r.Targets["main"].Version);
                var server = await TestServer.Api(key, TestServer.SessionOf(c)).GetSlot("main");
                Assert.AreEqual(2, server.Version, "the retry with the same key added no version");
                Assert.AreEqual(2, (int)server.Data["n"]);
                Assert.AreEqual(2, (await TestServer.Api(key, TestServer.SessionOf(c)).SlotHistory("main")).RestorePoints.Count);
            }
        }
    }

    /// <summary>The wall clock for tests that wait on real retries.</summary>
    public sealed class SystemClockLike : IClock
    {
        public long Now() { return SystemClock.Instance.Now(); }
        public object SetTimeout(Action run, long ms) { return SystemClock.Instance.SetTimeout(run, ms); }
        public void ClearTimeout(object h) { SystemClock.Instance.ClearTimeout(h); }
    }
}

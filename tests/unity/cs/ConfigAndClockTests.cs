using System.Collections.Generic;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The policy read again (foreground, timer, ETag) and save times on the server's clock.</summary>
    [TestFixture]
    public class ConfigAndClockTests
    {
        static JObject P(string json) { return JObject.Parse(json); }

        [Test]
        public async Task ThePolicyIsReadOnForegroundAndOnATimerAndAnUnchangedOneIsNoNews()
        {
            var (key, project) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":60}"));
            var clock = new ManualClock();
            var net = new SwitchableTransport();
            var c = TestServer.Client(key, clock: clock, more: o => { o.ConfigRefreshSeconds = 300; o.Transport = net; });
            var events = 0;
            c.ConfigChanged += e => events++;
            await c.ReadyAsync();
            Assert.AreEqual(1, events, "once per run");
            await c.ForegroundAsync();
            Assert.AreEqual(1, events, "a 304 is no news");
            var etagged = net.Sent.FindAll(r => r.Url.EndsWith("/runtime-config") && r.Headers.ContainsKey("if-none-match")).Count;
            Assert.AreEqual(1, etagged, "the foreground read was conditional");

            await TestServer.Admin("PUT", "/admin/v1/projects/" + project + "/sync-policy", P("{\"minRemoteSyncIntervalSeconds\":120}"));
            await c.ForegroundAsync();
            Assert.AreEqual(120, c.Config.Policy.MinRemoteSyncIntervalSeconds, "read on foreground");
            Assert.AreEqual(2, events);

            await TestServer.Admin("PUT", "/admin/v1/projects/" + project + "/sync-policy", P("{\"minRemoteSyncIntervalSeconds\":30}"));
            var reads = net.Sent.FindAll(r => r.Url.EndsWith("/runtime-config")).Count;
            clock.Advance(299000);
            Assert.AreEqual(reads, net.Sent.FindAll(r => r.Url.EndsWith("/runtime-config")).Count, "not before the timer");
            clock.Advance(1000);
            for (var i = 0; i < 300 && c.Config.Policy.MinRemoteSyncIntervalSeconds != 30; i++) await Task.Delay(10);
            Assert.AreEqual(30, c.Config.Policy.MinRemoteSyncIntervalSeconds, "read on the timer");
            c.Dispose();
        }

        [Test]
        public async Task LatestComparesSaveTimesOnTheServersClockNotTheDevices()
        {
            var (key, _) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":1,\"forceSyncCooldownSeconds\":1}"));
            var rules = new Dictionary<string, Rule> { ["name"] = Rule.Latest };
            var aClock = new ManualClock();
            var a = TestServer.Client(key, clock: aClock);
            await a.EnsureAccountAsync();
            a.Save("main", P("{\"name\":\"base\"}"));
            await a.SyncAsync(true);
            // B's clock is 25 years slow: on its own time every save of it would lose to the server's.
            var bClock = new ManualClock(946684800000);
            var b = TestServer.Client(key, clock: bClock, more: o => o.Resolve = Resolution.With(MergeRules.Create(rules)));
            await b.ReadyAsync();
            Assert.IsTrue(await b.Account.AttachTransferCodeAsync((await a.Account.CreateTransferCodeAsync()).TransferCode, p => Task.FromResult(true)));
            aClock.Advance(1000);
            a.Save("main", P("{\"name\":\"from a\"}"));
            await a.SyncAsync(true);
            bClock.Advance(2000);
            b.Save("main", P("{\"name\":\"from b, later\"}"));
            Assert.Greater(b.LocalSnapshots("main")[b.LocalSnapshots("main").Count - 1].SavedAt, 1700000000000, "saved on the server's clock");
            Assert.AreEqual(SyncOutcome.Synced, (await b.SyncAsync(true)).Status);
            Assert.AreEqual("from b, later", (string)(await TestServer.Api(key, TestServer.SessionOf(a)).GetSlot("main")).Data["name"]);
        }

        [Test]
        public void TheOffsetIsTakenFromTheMiddleOfTheDateHeadersSecondAndTheRoundTrip()
        {
            // Sent at 1000, answered at 1200 (device time); the server's Date says 10:00:00, so it answered in [D, D + 1 s).
            var d = System.DateTimeOffset.Parse("2030-01-01T10:00:00Z").ToUnixTimeMilliseconds();
            Assert.AreEqual(d + 500 - 1100, ServerClock.OffsetFromDate("Tue, 01 Jan 2030 10:00:00 GMT", 1000, 1200));
            Assert.IsNull(ServerClock.OffsetFromDate(null, 1000, 1200));
            Assert.IsNull(ServerClock.OffsetFromDate("soon", 1000, 1200));
        }

        /// <summary>Which answer's Date the clock keeps: the TypeScript SDK's rule (sdk-vectors/README.md, server-clock.json).</summary>
        [Test]
        public void ASlowAnswerThatAgreesKeepsTheSharperOffsetOneThatDisagreesIsTaken()
        {
            const string date = "Thu, 26 Nov 2026 20:00:00 GMT";
            var server = System.DateTimeOffset.Parse("2026-11-26T20:00:00Z").ToUnixTimeMilliseconds();
            var slow = new ServerClock(new ManualClock(0), _ => { });
            slow.Observe(date, server - 50, server + 50); // 100 ms round trip: offset 500 +- 550
            slow.Observe(date, server - 3000, server + 1000); // 4 s round trip (a loaded machine): offset 1500 +- 2500
            Assert.AreEqual(500, slow.OffsetMs, "a slow answer that agrees does not replace a sharper one");

            var changed = new ServerClock(new ManualClock(0), _ => { });
            changed.Observe(date, server - 50, server + 50);
            changed.Observe(date, server - 3600000 - 1000, server - 3600000 + 1000); // the device went back an hour, slow answer
            Assert.AreEqual(3600500, changed.OffsetMs, "one that disagrees beyond both uncertainties: the device clock was changed");

            var restored = new ServerClock(new ManualClock(0), _ => { });
            restored.Restore(10000);
            restored.Observe(date, server - 3000, server + 1000);
            Assert.AreEqual(1500, restored.OffsetMs, "an offset from storage gives way to the first answer");
        }
    }
}

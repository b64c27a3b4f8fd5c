using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>Each of the six sync-policy flags, set on the server, followed by the client on a manual clock.</summary>
    [TestFixture]
    public class PolicyTests
    {
        static JObject P(string json) { return JObject.Parse(json); }

        static async Task<(SavepointClient C, ManualClock Clock, string Key)> Signed(string policy, System.Action<ClientOptions> more = null)
        {
            var (key, _) = await TestServer.Tenant(P(policy));
            var clock = new ManualClock();
            var c = TestServer.Client(key, clock: clock, more: more);
            await c.EnsureAccountAsync();
            return (c, clock, key);
        }

        static async Task<int> ServerVersion(SavepointClient c, string key)
        {
            try
            {
                return (await TestServer.Api(key, TestServer.SessionOf(c)).GetSlot("main")).Version;
            }
            catch (SavepointException e) when (e.Status == 404)
            {
                return 0;
            }
        }

        static async Task Advance(SavepointClient c, ManualClock clock, long ms)
        {
            clock.Advance(ms);
            await c.SettledAsync();
        }

        [Test]
        public async Task MinRemoteSyncIntervalCoalescesSavesUntilTheIntervalEnds()
        {
            var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":30}");
            Assert.AreEqual(30, c.Config.Policy.MinRemoteSyncIntervalSeconds);
            c.Save("main", new JObject { ["n"] = 1 });
            await Advance(c, clock, 0);
            Assert.AreEqual(1, await ServerVersion(c, key), "the first save goes at once");
            for (var i = 2; i <= 4; i++) c.Save("main", new JObject { ["n"] = i });
            await Advance(c, clock, 29000);
            Assert.AreEqual(1, await ServerVersion(c, key), "inside the interval nothing is sent");
            var held = await c.SyncAsync();
            Assert.AreEqual(SyncOutcome.Deferred, held.Status);
            Assert.AreEqual(clock.Now() + 1000, held.RetryAt);
            await Advance(c, clock, 1000);
            Assert.AreEqual(2, await ServerVersion(c, key), "three saves, one version");
            Assert.AreEqual(4, (int)(await TestServer.Api(key, TestServer.SessionOf(c)).GetSlot("main")).Data["n"]);
        }

        [Test]
        public async Task ForceSyncCooldownDefersOrRefusesTheSecondForcedSync()
        {
            var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":3600,\"forceSyncCooldownSeconds\":20}");
            c.Save("main", new JObject { ["n"] = 1 });
            Assert.AreEqual(SyncOutcome.Synced, (await c.SyncAsync(true)).Status);
            c.Save("main", new JObject { ["n"] = 2 });
            await Advance(c, clock, 5000);
            var deferred = await c.SyncAsync(true);
            Assert.AreEqual(SyncOutcome.Deferred, deferred.Status);
            Assert.AreEqual(clock.Now() + 15000, deferred.RetryAt);
            Assert.AreEqual(1, await ServerVersion(c, key));
            await Advance(c, clock, 15000);
            Assert.AreEqual(2, await ServerVersion(c, key), "the deferred sync ran when the cooldown ended");

            var (r, rclock, rkey) = await Signed("{\"minRemoteSyncIntervalSeconds\":3600,\"forceSyncCooldownSeconds\":20}", o => o.OnCooldown = "refuse");
            r.Save("main", new JObject { ["n"] = 1 });
            await r.SyncAsync(true);
            r.Save("main", new JObject { ["n"] = 2 });
            var refused = await r.SyncAsync(true);
            Assert.AreEqual(SyncOutcome.Refused, refused.Status);
            Assert.AreEqual("sync_cooldown", refused.Targets["main"].Error.Code);
            await Advance(r, rclock, 30000);
            Assert.AreEqual(1, await ServerVersion(r, rkey), "a refused sync is not planned");
        }

        [Test]
        public async Task SyncOnAppBackgroundPushesWhenTheAppIsPaused()
        {
            foreach (var on in new[] { true, false })
            {
                var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":3600,\"syncOnAppBackground\":" + (on ? "true" : "false") + "}");
                c.Save("main", new JObject { ["n"] = 1 });
                await c.SyncAsync(true);
                c.Save("main", new JObject { ["n"] = 2 });
                await c.BackgroundAsync();
                await c.SettledAsync();
                Assert.AreEqual(on ? 2 : 1, await ServerVersion(c, key), "syncOnAppBackground " + on);
            }
        }

        [Test]
        public async Task SyncOnAppForegroundPullsWhatAnotherDeviceWrote()
        {
            foreach (var on in new[] { true, false })
            {
                var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":1,\"syncOnAppForeground\":" + (on ? "true" : "false") + "}");
                c.Save("main", new JObject { ["n"] = 1 });
                await c.SyncAsync(true);
                await TestServer.Api(key, TestServer.SessionOf(c)).SyncSlot("main", 1, new JObject { ["n"] = 7 });
                await c.ForegroundAsync();
                Assert.AreEqual(on ? 7 : 1, (int)c.Load("main")["n"], "syncOnAppForeground " + on);
            }
        }

        [Test]
        public async Task ForegroundReadsThePolicyWhateverTheCachedFlagSays()
        {
            var (key, pid) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":3600,\"syncOnAppForeground\":false}"));
            var c = TestServer.Client(key, clock: new ManualClock());
            await c.EnsureAccountAsync();
            c.Save("main", new JObject { ["n"] = 1 });
            await c.SyncAsync(true);
            Assert.IsFalse(c.Config.Policy.SyncOnAppForeground);
            await TestServer.Api(key, TestServer.SessionOf(c)).SyncSlot("main", 1, new JObject { ["n"] = 7 });
            await c.ForegroundAsync();
            Assert.AreEqual(1, (int)c.Load("main")["n"], "flag off: no pull");

            await TestServer.Admin("PUT", "/admin/v1/projects/" + pid + "/sync-policy", P("{\"syncOnAppForeground\":true,\"minRemoteSyncIntervalSeconds\":5}"));
            await c.ForegroundAsync();
            Assert.AreEqual(5, c.Config.Policy.MinRemoteSyncIntervalSeconds, "the cached flag off did not keep the policy from being read");
            Assert.AreEqual(7, (int)c.Load("main")["n"], "the flag back on: the same foreground pulls");
        }

        [Test]
        public async Task SyncOnReconnectRetriesAFailedSyncWithBackoff()
        {
            foreach (var on in new[] { true, false })
            {
                var net = new SwitchableTransport();
                var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":1,\"syncOnReconnect\":" + (on ? "true" : "false") + "}", o =>
                {
                    o.Transport = net;
                    o.ReconnectBaseMs = 1000;
                    o.Retry = new RetryOptions { Attempts = 1, Random = () => 0.5 };
                });
                net.Online = false;
                c.Save("main", new JObject { ["n"] = 1 });
                await Advance(c, clock, 0);
                Assert.AreEqual(SyncState.Offline, c.Status.State);
                // Full jitter: random 0.5 of the first ceiling (1000 ms).
                if (on) Assert.AreEqual(clock.Now() + 500, c.NextPushAt);
                else Assert.IsNull(c.NextPushAt, "no retry planned without syncOnReconnect");
                net.Online = true;
                await Advance(c, clock, 500);
                await c.ReconnectedAsync();
                await c.SettledAsync();
                Assert.AreEqual(on ? 1 : 0, await ServerVersion(c, key), "syncOnReconnect " + on);
            }
        }

        [Test]
        public async Task AfterDisconnectedAFailedSyncWaitsForReconnected()
        {
            var net = new SwitchableTransport();
            var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":1}", o =>
            {
                o.Transport = net;
                o.ReconnectBaseMs = 1000;
                o.Retry = new RetryOptions { Attempts = 1, Random = () => 0.5 };
            });
            net.Online = false;
            c.Disconnected();
            c.Save("main", new JObject { ["n"] = 1 });
            await Advance(c, clock, 0);
            Assert.AreEqual(SyncState.Offline, c.Status.State);
            Assert.IsNull(c.NextPushAt, "no retry timer while the network is known to be gone");
            net.Online = true;
            await c.ReconnectedAsync();
            await c.SettledAsync();
            Assert.AreEqual(1, await ServerVersion(c, key));
            Assert.AreEqual(SyncState.Idle, c.Status.State);
        }

        [Test]
        public async Task MaxQueuedLocalSnapshotsBoundsTheLocalRing()
        {
            var (c, clock, key) = await Signed("{\"maxQueuedLocalSnapshots\":3,\"minRemoteSyncIntervalSeconds\":3600}");
            Assert.AreEqual(3, c.Config.Policy.MaxQueuedLocalSnapshots);
            for (var i = 1; i <= 5; i++) c.Save("main", new JObject { ["n"] = i });
            CollectionAssert.AreEqual(new[] { 3, 4, 5 }, c.LocalSnapshots("main").Select(s => (int)s.Data["n"]).ToArray());
            Assert.AreEqual(4, (int)c.Undo("main").Data["n"]);
            Assert.AreEqual(4, (int)c.Load("main")["n"]);
        }

        [Test]
        public async Task RetryAfterIsHonouredByTheEnginesBackoff()
        {
            var net = new SwitchableTransport();
            var (c, clock, key) = await Signed("{\"minRemoteSyncIntervalSeconds\":1}", o => o.Transport = new RetryAfterOnce(net, 40));
            c.Save("main", new JObject { ["n"] = 1 });
            await Advance(c, clock, 0);
            Assert.AreEqual(SyncState.Offline, c.Status.State);
            Assert.AreEqual(40, c.Status.LastError.RetryAfterSeconds);
            Assert.AreEqual(clock.Now() + 40000, c.NextPushAt, "never sooner than Retry-After");
            await Advance(c, clock, 40000);
            Assert.AreEqual(1, await ServerVersion(c, key));
        }
    }

    /// <summary>Answers the first write with 503 and Retry-After, then passes requests on.</summary>
    public sealed class RetryAfterOnce : IHttpTransport
    {
        readonly IHttpTransport inner;
        readonly int seconds;
        bool done;

        public RetryAfterOnce(IHttpTransport inner, int seconds)
        {
            this.inner = inner;
            this.seconds = seconds;
        }

        public Task<HttpAnswer> SendAsync(HttpRequest request)
        {
            if (!done && request.Method == "POST" && request.Url.Contains("/slots"))
            {
                done = true;
                var a = new HttpAnswer { Status = 503, Body = "{\"error\":{\"code\":\"service_unavailable\",\"message\":\"busy\"}}" };
                a.Headers["retry-after"] = seconds.ToString();
                return Task.FromResult(a);
            }
            return inner.SendAsync(request);
        }
    }
}

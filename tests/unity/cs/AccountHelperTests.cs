using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The account helpers against the real server: transfer codes, devices, sign-out, history and restore.</summary>
    [TestFixture]
    public class AccountHelperTests
    {
        static JObject P(string json) { return JObject.Parse(json); }

        [Test]
        public async Task ReattachingToItsOwnAccountKeepsAndPushesPendingSaves()
        {
            var (key, _) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":3600,\"forceSyncCooldownSeconds\":1}"));
            var clock = new ManualClock();
            var a = TestServer.Client(key, clock: clock);
            await a.EnsureAccountAsync();
            a.Save("main", P("{\"n\":1}"));
            await a.SyncAsync(true);
            // Another device of the player signs this one out; this one keeps playing and saving.
            var b = TestServer.Client(key);
            await b.ReadyAsync();
            Assert.IsTrue(await b.Account.AttachTransferCodeAsync((await a.Account.CreateTransferCodeAsync()).TransferCode, p => Task.FromResult(true)));
            var aSession = (await b.Account.DevicesAsync()).Single(d => !d.Current);
            await b.Account.SignOutDeviceAsync(aSession.SessionId);
            a.Save("main", P("{\"n\":2}"));
            clock.Advance(1000);
            var refused = await a.SyncAsync(true);
            Assert.AreEqual(SyncOutcome.Refused, refused.Status);
            Assert.IsTrue(a.Status.Stopped, "a revoked session stops the engine");
            var asked = 0;
            var code = (await b.Account.CreateTransferCodeAsync()).TransferCode;
            Assert.IsTrue(await a.Account.AttachTransferCodeAsync(code, p => { asked++; return Task.FromResult(true); }));
            await a.SettledAsync();
            Assert.AreEqual(0, asked, "its own account: nothing to ask");
            Assert.IsFalse(a.Status.Stopped);
            Assert.AreEqual(2, (int)a.Load("main")["n"], "the unsynced save is kept");
            Assert.AreEqual(2, (int)(await TestServer.Api(key, TestServer.SessionOf(a)).GetSlot("main")).Data["n"], "and pushed");
        }

        [Test]
        public async Task AnotherAccountsCodeAsksWithWhatWouldBeLostAndOnlyAYesReplacesIt()
        {
            var (key, _) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":3600}"));
            var mine = TestServer.Client(key);
            await mine.EnsureAccountAsync();
            var mineId = mine.AccountId;
            var other = TestServer.Client(key);
            await other.EnsureAccountAsync();
            other.Save("theirs", P("{\"x\":1}"));
            await other.SyncAsync(true);
            mine.Save("main", P("{\"n\":5}"));
            // Route 10 answers; the push tried before the prompt does not, so the save stays unsynced.
            var real = mine.Api.Options.Transport;
            mine.Api.Options.Transport = new BlockSyncs(real);
            TransferPrompt seen = null;
            var code = (await other.Account.CreateTransferCodeAsync()).TransferCode;
            Assert.IsFalse(await mine.Account.AttachTransferCodeAsync(code, p => { seen = p; return Task.FromResult(false); }));
            Assert.AreEqual(other.AccountId, seen.Incoming.AccountId);
            Assert.AreEqual(mineId, seen.CurrentAccountId);
            Assert.AreEqual(1, seen.Unsynced.Count, "the unsynced save is shown as what would be lost");
            Assert.AreEqual("main", seen.Unsynced[0].Target);
            Assert.AreEqual(5, (int)seen.Unsynced[0].Data["n"]);
            Assert.AreEqual(mineId, mine.AccountId, "declined: the account stays");
            Assert.AreEqual(5, (int)mine.Load("main")["n"], "declined: nothing local changed");
            code = (await other.Account.CreateTransferCodeAsync()).TransferCode;
            Assert.IsTrue(await mine.Account.AttachTransferCodeAsync(code, p => Task.FromResult(true)));
            Assert.AreEqual(other.AccountId, mine.AccountId);
            Assert.AreEqual(1, (int)mine.Load("theirs")["x"], "the incoming account's slots are pulled");
            Assert.IsNull(mine.Load("main"));
            mine.Api.Options.Transport = real;
        }

        sealed class BlockSyncs : IHttpTransport
        {
            readonly IHttpTransport inner;
            public BlockSyncs(IHttpTransport inner) { this.inner = inner; }
            public Task<HttpAnswer> SendAsync(HttpRequest r)
            {
                if (r.Method == "POST" && r.Url.Contains("/slots")) throw new System.Net.Http.HttpRequestException("offline");
                return inner.SendAsync(r);
            }
        }

        [Test]
        public async Task SignOutRefusesWhileSavesAreUnsyncedThenForgetsTheAccount()
        {
            var (key, _) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":3600}"));
            var net = new SwitchableTransport();
            var c = TestServer.Client(key, more: o => o.Transport = net);
            await c.EnsureAccountAsync();
            var session = TestServer.SessionOf(c);
            Assert.AreEqual(1, (await c.Account.DevicesAsync()).Count);
            net.Online = false;
            c.Save("main", P("{\"n\":1}"));
            var e = Assert.Throws<SavepointException>(() => c.Account.SignOutAsync().GetAwaiter().GetResult());
            Assert.AreEqual("unsynced_saves", e.Code);
            CollectionAssert.AreEqual(new[] { "main" }, e.Details["pending"].Select(x => (string)x).ToArray());
            Assert.AreEqual(1, (int)c.Load("main")["n"]);
            net.Online = true;
            await c.Account.SignOutAsync();
            Assert.IsNull(c.AccountId);
            Assert.IsNull(c.Load("main"));
            SavepointException revoked = null;
            try
            {
                await TestServer.Api(key, session).GetAccount();
            }
            catch (SavepointException x)
            {
                revoked = x;
            }
            Assert.AreEqual(401, revoked?.Status, "the device's session is revoked on the server");
        }

        [Test]
        public async Task HistoryAndRestoreMakeANewVersionAndReadItBack()
        {
            var (key, _) = await TestServer.Tenant(P("{\"minRemoteSyncIntervalSeconds\":1,\"forceSyncCooldownSeconds\":1}"));
            var clock = new ManualClock();
            var c = TestServer.Client(key, clock: clock);
            await c.EnsureAccountAsync();
            for (var n = 1; n <= 3; n++)
            {
                c.Save("main", P("{\"n\":" + n + "}"));
                Assert.AreEqual(SyncOutcome.Synced, (await c.SyncAsync(true)).Status);
                clock.Advance(1000);
            }
            var history = await c.Account.HistoryAsync("main");
            CollectionAssert.IsSubsetOf(new[] { 1, 2, 3 }, history.RestorePoints.Select(p => p.Version).ToArray());
            var changes = 0;
            c.Changed += e => changes++;
            Assert.AreEqual(4, await c.Account.RestoreAsync("main", 1));
            Assert.AreEqual(1, (int)c.Load("main")["n"], "the restored state is the local copy");
            Assert.AreEqual(1, changes);
            var server = await TestServer.Api(key, TestServer.SessionOf(c)).GetSlot("main");
            Assert.AreEqual(4, server.Version);
            Assert.AreEqual(1, (int)server.Data["n"]);
        }
    }
}

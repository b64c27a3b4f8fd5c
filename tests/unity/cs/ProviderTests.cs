using System;
using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>
    /// Provider sign-in and linking through the helpers, with Firebase-style tokens the bun side minted for two
    /// users against a key set it serves (SAVEPOINT_PROVIDER_TOKENS, on the tenant SAVEPOINT_PROVIDER_KEY).
    /// </summary>
    [TestFixture]
    public class ProviderTests
    {
        sealed class NoWrites : IHttpTransport
        {
            readonly IHttpTransport inner;
            public NoWrites(IHttpTransport inner) { this.inner = inner; }
            public Task<HttpAnswer> SendAsync(HttpRequest r)
            {
                if (r.Method == "POST" && r.Url.Contains("/slots")) throw new System.Net.Http.HttpRequestException("offline");
                return inner.SendAsync(r);
            }
        }

        [Test]
        public async Task LinkOnOneDeviceThenSignInOnAnotherFindsTheSameAccountAndItsSaves()
        {
            var key = Environment.GetEnvironmentVariable("SAVEPOINT_PROVIDER_KEY");
            var tokens = JObject.Parse(Environment.GetEnvironmentVariable("SAVEPOINT_PROVIDER_TOKENS") ?? "{}");
            Assert.IsNotNull(key, "the bun side set up a provider");
            var first = TestServer.Client(key);
            await first.EnsureAccountAsync();
            first.Save("main", new JObject { ["n"] = 1 });
            Assert.AreEqual(SyncOutcome.Synced, (await first.SyncAsync(true)).Status);
            Assert.IsTrue(await first.Account.LinkProviderAsync("firebase", (string)tokens["a1"]), "new for the account");
            CollectionAssert.AreEqual(new[] { "firebase" }, (await first.Account.ProvidersAsync()).Select(p => p.Provider).ToArray());

            var second = TestServer.Client(key);
            await second.ReadyAsync();
            var signedIn = await second.Account.SignInAsync("firebase", (string)tokens["a2"]);
            Assert.AreEqual(first.AccountId, signedIn.AccountId);
            Assert.IsFalse(signedIn.IsNewAccount);
            Assert.AreEqual(1, (int)second.Load("main")["n"], "the account's saves are pulled");
            var devices = await second.Account.DevicesAsync();
            Assert.AreEqual(1, devices.Count(d => d.Current), "this device is marked");
            Assert.GreaterOrEqual(devices.Count, 2, "both devices are signed in");

            var other = await second.Account.SignInAsync("firebase", (string)tokens["b1"]);
            Assert.IsTrue(other.IsNewAccount);
            Assert.AreNotEqual(first.AccountId, other.AccountId);
            Assert.AreEqual(other.AccountId, second.AccountId);
            Assert.IsNull(second.Load("main"), "another account replaced the local one");

            // Another account while a save is not on the server: refused unless the player says yes.
            var blocked = second.Api.Options.Transport;
            second.Save("main", new JObject { ["n"] = 9 });
            second.Api.Options.Transport = new NoWrites(blocked);
            var kept = Assert.Throws<SavepointException>(() => second.Account.SignInAsync("firebase", (string)tokens["a3"]).GetAwaiter().GetResult());
            Assert.AreEqual("unsynced_saves", kept.Code);
            CollectionAssert.AreEqual(new[] { "main" }, kept.Details["pending"].Select(x => (string)x).ToArray());
            Assert.AreEqual(other.AccountId, second.AccountId, "nothing local changed");
            Assert.AreEqual(9, (int)second.Load("main")["n"]);
            TransferPrompt asked = null;
            var yes = await second.Account.SignInAsync("firebase", (string)tokens["a3"], p => { asked = p; return Task.FromResult(true); });
            Assert.AreEqual(first.AccountId, yes.AccountId);
            Assert.AreEqual(first.AccountId, asked.Incoming.AccountId);
            Assert.AreEqual(9, (int)asked.Unsynced.Single().Data["n"]);
            Assert.AreEqual(1, (int)second.Load("main")["n"], "said yes: the incoming account's save");
            second.Api.Options.Transport = blocked;

            var refused = Assert.Throws<SavepointException>(() => second.Account.SignInAsync("firebase", "not-a-token").GetAwaiter().GetResult());
            Assert.That(refused.Status, Is.InRange(400, 401), refused.Code);
            Assert.AreEqual(first.AccountId, second.AccountId, "a refused sign-in changes nothing");
        }
    }
}

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

            var refused = Assert.Throws<SavepointException>(() => second.Account.SignInAsync("firebase", "not-a-token").GetAwaiter().GetResult());
            Assert.That(refused.Status, Is.InRange(400, 401), refused.Code);
            Assert.AreEqual(other.AccountId, second.AccountId, "a refused sign-in changes nothing");
        }
    }
}

using System;
using System.Linq;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>Every runtime route through the typed API against the real embedded server.</summary>
    [TestFixture]
    public class LiveRouteTests
    {
        static async Task<SavepointException> Caught(Task t)
        {
            try
            {
                await t;
            }
            catch (SavepointException e)
            {
                return e;
            }
            return null;
        }

        [Test]
        public async Task EveryRouteAnswersTypedValuesAndTypedErrors()
        {
            var (key, _) = await TestServer.Tenant();
            Session session = null;
            var api = new SavepointApi(new ApiOptions { BaseUrl = TestServer.Url, RuntimeKey = key, Session = () => session,
                Retry = new RetryOptions { Attempts = 1 } });
            Assert.IsTrue((await api.Health()).Ok);
            var config = await api.RuntimeConfig();
            Assert.AreEqual(25, config.Config.SyncPolicy.MaxQueuedLocalSnapshots);
            Assert.IsTrue((await api.RuntimeConfig(null, config.ETag)).NotModified);

            var created = await api.CreateAccount(new JObject { ["accountData"] = new JObject { ["coins"] = 1 },
                ["slot"] = new JObject { ["slotId"] = "main", ["data"] = new JObject { ["level"] = 1 } } });
            Assert.AreEqual(1, created.Slot.Version);
            session = new Session { AccountId = created.AccountId, Token = created.AccountSessionToken };
            Assert.AreEqual(1, (int)(await api.GetAccount()).AccountData["coins"]);
            Assert.AreEqual(2, (await api.SyncAccountData(1, new JObject { ["coins"] = 2 })).Accepted.Version);
            var stale = await api.SyncAccountData(1, new JObject { ["coins"] = 9 });
            Assert.IsTrue(stale.IsConflict);
            Assert.AreEqual(2, (int)stale.Conflict.Account.AccountData["coins"]);

            var side = await api.CreateSlot("side", new JObject { ["a"] = 1 }, new JObject { ["label"] = "B" });
            Assert.AreEqual(1, side.Version);
            CollectionAssert.AreEquivalent(new[] { "main", "side" }, (await api.ListSlots()).Slots.Select(s => s.SlotId).ToArray());
            Assert.AreEqual("accepted", (await api.SyncSlot("main", 1, new JObject { ["level"] = 2 })).Accepted.Status);
            var conflict = await api.SyncSlot("main", 1, new JObject { ["level"] = 9 });
            Assert.AreEqual(2, conflict.Conflict.Slot.Version);
            Assert.AreEqual(2, (int)(await api.GetSlot("main")).Data["level"]);
            CollectionAssert.AreEqual(new[] { "main" }, (await api.ArchiveSlot("side")).Slots.Select(s => s.SlotId).ToArray());
            var archived = await Caught(api.SyncSlot("side", 1, new JObject()));
            Assert.AreEqual("slot_archived", archived.Code);
            Assert.AreEqual(409, archived.Status);
            Assert.AreEqual("side", (string)archived.Details["slotId"]);
            Assert.IsFalse((await api.DeleteSlot("side")).AlreadyDeleted);

            var history = await api.SlotHistory("main");
            Assert.GreaterOrEqual(history.RestorePoints.Count, 1);
            Assert.AreEqual(1, (int)(await api.SlotHistoryVersion("main", 1)).Data["level"]);
            Assert.AreEqual(3, (await api.RestoreSlot("main", 1, 2)).Accepted.Version);
            Assert.IsTrue((await api.RestoreSlot("main", 1, 2)).IsConflict);
            Assert.GreaterOrEqual((await api.AccountDataHistory()).RestorePoints.Count, 1);
            Assert.AreEqual(1, (int)(await api.AccountDataHistoryVersion(1)).AccountData["coins"]);
            Assert.AreEqual(3, (await api.RestoreAccountData(1, 2)).Accepted.Version);

            var moved = await api.ConsumeTransferCode((await api.CreateTransferCode(600, "old phone")).TransferCode, "new phone");
            var third = await api.ConsumeTransferCode((await api.CreateTransferCode()).TransferCode);
            Assert.AreEqual(created.AccountId, moved.AccountId);
            Assert.AreEqual(3, (await api.ListSessions()).Sessions.Count);
            var thirdApi = TestServer.Api(key, new Session { AccountId = third.AccountId, Token = third.AccountSessionToken });
            var thirdId = (await thirdApi.ListSessions()).Sessions.Single(s => s.Current).SessionId;
            Assert.IsNotNull((await api.RevokeSession(thirdId)).RevokedAt);
            Assert.AreEqual(401, (await Caught(thirdApi.GetAccount())).Status);
            CollectionAssert.IsEmpty(await api.ListLinkedProviders());
            var badToken = await Caught(api.ExchangeAuthSession("firebase", "not-a-jwt"));
            Assert.IsNotNull(badToken);
            Assert.That(badToken.Status, Is.InRange(400, 499));

            var saved = await api.SyncSave("save-1", 0, new JObject { ["hp"] = 3 }, null, "user-1");
            Assert.AreEqual("accepted", saved.Accepted.Status);
            Assert.AreEqual(3, (int)(await api.GetSave("save-1")).Save.State["hp"]);
            var saveConflict = await api.SyncSave("save-1", 0, new JObject { ["hp"] = 4 }, null, "user-1");
            Assert.AreEqual(3, (int)saveConflict.Conflict.Save.State["hp"]);
            Assert.IsFalse((await api.DeleteSave("save-1")).AlreadyDeleted);
            var webhook = await Caught(api.StripeWebhook("{\"id\":\"evt_1\"}", "t=1,v1=bad"));
            Assert.AreEqual(400, webhook.Status);

            var movedSession = new Session { AccountId = moved.AccountId, Token = moved.AccountSessionToken };
            Assert.IsNotNull((await api.SignOutCurrent(null, movedSession)).RevokedAt);
            var revoked = await Caught(TestServer.Api(key, movedSession).GetAccount());
            Assert.AreEqual(401, revoked.Status);
            Assert.IsTrue(Errors.RefusesSession(revoked));
            Assert.IsFalse((await api.DeleteAccount()).AlreadyDeleted);
        }
    }
}

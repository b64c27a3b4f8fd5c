using System;
using System.Collections.Generic;
using System.Linq;
using System.Net.Http;
using System.Reflection;
using System.Threading.Tasks;
using NUnit.Framework;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The hand-kept route table and answer types against the server's own /openapi.json.</summary>
    [TestFixture]
    public class RouteTests
    {
        static readonly Dictionary<string, Type> okTypes = new Dictionary<string, Type>
        {
            ["health"] = typeof(HealthResponse), ["getRuntimeConfig"] = typeof(RuntimeConfigResponse), ["createAccount"] = typeof(AccountEnvelopeResponse),
            ["exchangeAuthSession"] = typeof(AuthSessionResponse), ["listLinkedProviders"] = typeof(LinkedAuthProvider),
                ["getAccount"] = typeof(AccountResponse),
            ["deleteAccount"] = typeof(DeleteAccountResponse), ["syncAccountData"] = typeof(SyncAcceptedResponse),
                ["createTransferCode"] = typeof(CreateTransferCodeResponse),
            ["consumeTransferCode"] = typeof(AccountEnvelopeResponse), ["listSlots"] = typeof(SlotListResponse), ["createSlot"] = typeof(CreateSlotResponse),
            ["getSlot"] = typeof(SlotResponse), ["deleteSlot"] = typeof(DeleteSlotResponse), ["syncSlot"] = typeof(SyncAcceptedResponse),
                ["archiveSlot"] = typeof(AccountResponse),
            ["stripeWebhook"] = typeof(StripeWebhookResponse), ["syncSave"] = typeof(SaveSyncResponse), ["getSave"] = typeof(SaveResponse),
                ["deleteSave"] = typeof(DeleteSaveResponse),
            ["listSessions"] = typeof(SessionListResponse), ["signOutCurrentSession"] = typeof(SignOutResponse), ["signOutSession"] = typeof(SignOutResponse),
            ["listSlotRestorePoints"] = typeof(SlotRestorePointList), ["getSlotRestorePoint"] = typeof(SlotVersionResponse),
                ["restoreSlot"] = typeof(SyncAcceptedResponse),
            ["listAccountDataRestorePoints"] = typeof(DataRestorePointList), ["getAccountDataRestorePoint"] = typeof(DataVersionResponse),
                ["restoreAccountData"] = typeof(SyncAcceptedResponse),
        };

        static JObject doc;

        static async Task<JObject> Doc()
        {
            if (doc == null) doc = JObject.Parse(await new HttpClient().GetStringAsync(TestServer.Url + "/openapi.json"));
            return doc;
        }

        static JObject Resolve(JObject d, JToken schema)
        {
            var s = schema as JObject;
            while (s != null && s["$ref"] != null) s = (JObject)d.SelectToken(((string)s["$ref"]).TrimStart('#', '/').Replace('/', '.'));
            if (s != null && s["type"]?.ToString() == "array") return Resolve(d, s["items"]);
            if (s != null && s["allOf"] is JArray all)
            {
                var merged = new JObject { ["properties"] = new JObject() };
                foreach (var part in all) foreach (var p in (Resolve(d,
                    part)?["properties"] as JObject ?? new JObject()).Properties()) ((JObject)merged["properties"])[p.Name] = p.Value;
                return merged;
            }
            return s;
        }

        [Test]
        public async Task EveryRuntimeRouteOfTheServerIsInTheTableWithItsMethodStatusAndKey()
        {
            var d = await Doc();
            var seen = new HashSet<string>();
            var operator_ = new List<string>();
            foreach (var path in ((JObject)d["paths"]).Properties())
            {
                if (path.Name.StartsWith("/admin/")) continue;
                foreach (var op in ((JObject)path.Value).Properties())
                {
                    var id = (string)op.Value["operationId"];
                    if (id == null) continue;
                    // The gateway's own endpoints for balancers and Prometheus (tag operations): no game calls them,
                    // as the TypeScript SDK's generated table leaves them out too.
                    if ((op.Value["tags"] as JArray)?.Any(t => (string)t == "operations") == true)
                    {
                        Assert.IsEmpty(op.Value["security"] as JArray ?? new JArray(), id + " needs no credentials");
                        operator_.Add(op.Name.ToUpperInvariant() + " " + path.Name);
                        continue;
                    }
                    var r = Routes.All.FirstOrDefault(x => x.OperationId == id);
                    Assert.IsNotNull(r, "the C# table lacks " + id + " " + op.Name.ToUpper() + " " + path.Name);
                    Assert.AreEqual(op.Name.ToUpperInvariant(), r.Method, id);
                    Assert.AreEqual(path.Name, r.Path, id);
                    Assert.IsNotNull(op.Value["responses"][r.Ok.ToString()], id + " answers " + r.Ok);
                    var keyed = (op.Value["parameters"] as JArray ?? new JArray()).Any(p => (string)p["name"] == "Idempotency-Key");
                    Assert.AreEqual(keyed, r.Idempotent, id + " Idempotency-Key");
                    seen.Add(id);
                }
            }
            CollectionAssert.AreEquivalent(Routes.All.Select(r => r.OperationId).ToList(), seen.ToList(), "routes of the C# table the server does not have");
            // A new operator endpoint is looked at here before it is left out of the client's table.
            CollectionAssert.AreEquivalent(new[] { "GET /readyz", "GET /metrics" }, operator_, "the server's operator endpoints");
        }

        [Test]
        public async Task EveryAnswerTypeNamesOnlyFieldsOfTheServersSchema()
        {
            var d = await Doc();
            foreach (var r in Routes.All)
            {
                var path = r.Path;
                var op = d["paths"][path][r.Method.ToLowerInvariant()];
                var schema = Resolve(d, op["responses"][r.Ok.ToString()]["content"]["application/json"]["schema"]);
                var props = schema?["properties"] as JObject;
                Assert.IsNotNull(props, r.OperationId + " has an object answer");
                var fields = okTypes[r.OperationId].GetFields(BindingFlags.Public | BindingFlags.Instance)
                    .Select(f => f.GetCustomAttribute<JsonPropertyAttribute>()?.PropertyName).Where(n => n != null).ToList();
                Assert.IsNotEmpty(fields, r.OperationId);
                foreach (var f in fields) Assert.IsNotNull(props[f],
                    r.OperationId + ": " + okTypes[r.OperationId].Name + "." + f + " is not in the server's answer");
                foreach (var required in (schema["required"] as JArray ?? new JArray()).Select(x => (string)x))
                    CollectionAssert.Contains(fields, required, r.OperationId + ": the server's required " + required + " has no field");
            }
        }
    }
}

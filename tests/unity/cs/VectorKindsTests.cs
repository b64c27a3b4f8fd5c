using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Savepoint.Tests
{
    /// <summary>The shared sync-result, server-clock and reattach cases (sdk-vectors/README.md), run by the C# client's own functions.</summary>
    [TestFixture]
    public class VectorKindsTests
    {
        public static IEnumerable<TestCaseData> SyncResultCases() { return VectorTests.Cases("sync-result.json", "sync-result"); }
        public static IEnumerable<TestCaseData> ServerClockCases() { return VectorTests.Cases("server-clock.json", "server-clock"); }
        public static IEnumerable<TestCaseData> ReattachCases() { return VectorTests.Cases("reattach.json", "reattach"); }

        static void Same(JToken want, JToken got)
        {
            Assert.IsTrue(Json.Same(want, got), "expected " + want?.ToString(Formatting.None) + " got " + got?.ToString(Formatting.None));
        }

        /// <summary>An error is compared by code only (messages are each client's own).</summary>
        static SavepointException Error(JToken e)
        {
            return e == null ? null : new SavepointException((string)e["code"], "vector", 0);
        }

        static JObject Written(TargetResult r)
        {
            var names = new[] { "synced", "deferred", "offline", "conflict", "refused" };
            var o = new JObject { ["status"] = names[(int)r.Status] };
            if (r.Version != null) o["version"] = r.Version.Value;
            if (r.Error != null) o["error"] = new JObject { ["code"] = r.Error.Code };
            if (r.RetryAt != null) o["retryAt"] = r.RetryAt.Value;
            return o;
        }

        [TestCaseSource("SyncResultCases")]
        public void SyncResult_(JObject c)
        {
            VectorTests.Known(c, "name", "engine", "targets", "result");
            var e = (JObject)c["engine"];
            VectorTests.Known(e, "stopped", "hasSession", "offline", "lastError", "retryAt");
            var engine = new EngineState { Stopped = (bool)e["stopped"], HasSession = (bool)e["hasSession"], Offline = (bool)e["offline"],
                LastError = Error(e["lastError"]), RetryAt = (long?)e["retryAt"] };
            var targets = new Dictionary<string, TargetResult>();
            foreach (var p in ((JObject)c["targets"]).Properties())
            {
                var t = (JObject)p.Value;
                VectorTests.Known(t, "seqAtCall", "syncedSeq", "inflightSeq", "version", "refused");
                targets[p.Name] = SyncResult.Of(new TargetState { SeqAtCall = (long)t["seqAtCall"], SyncedSeq = (long)t["syncedSeq"],
                    InflightSeq = (long?)t["inflightSeq"], Version = (int?)t["version"], Refused = Error(t["refused"]) }, engine);
            }
            var r = SyncResult.Summarize(targets);
            var got = (JObject)Written(new TargetResult { Status = r.Status, RetryAt = r.RetryAt });
            got["targets"] = new JObject(r.Targets.Select(t => new JProperty(t.Key, Written(t.Value))));
            Same(c["result"], got);
        }

        [TestCaseSource("ServerClockCases")]
        public void ServerClock_(JObject c)
        {
            VectorTests.Known(c, "name", "date", "sentAt", "receivedAt", "offsetMs");
            var offset = ServerClock.OffsetFromDate((string)c["date"], (long)c["sentAt"], (long)c["receivedAt"]);
            Same(c["offsetMs"], offset == null ? JValue.CreateNull() : new JValue(offset.Value));
        }

        static JObject Snap(JToken s)
        {
            return s == null ? null : (JObject)s;
        }

        [TestCaseSource("ReattachCases")]
        public void Reattach_(JObject c)
        {
            VectorTests.Known(c, "name", "via", "currentAccountId", "incomingAccountId", "isNewAccount", "records", "decision");
            var records = new List<LocalRecord>();
            foreach (JObject r in (JArray)c["records"])
            {
                VectorTests.Known(r, "target", "syncedSeq", "snapshots", "inflight");
                var record = new LocalRecord { Target = (string)r["target"], SyncedSeq = (long)r["syncedSeq"] };
                foreach (JObject s in (JArray)r["snapshots"])
                {
                    VectorTests.Known(s, "seq", "data", "slotInfo");
                    record.Snapshots.Add(new Snapshot { Seq = (long)s["seq"], Data = (JObject)s["data"], SlotInfo = Snap(s["slotInfo"]) });
                }
                if (r["inflight"] is JObject i)
                {
                    VectorTests.Known(i, "seq", "data", "slotInfo");
                    record.Inflight = new Inflight { Seq = (long)i["seq"], Data = (JObject)i["data"], SlotInfo = Snap(i["slotInfo"]) };
                }
                records.Add(record);
            }
            var d = Reattach.Decide((string)c["via"], (string)c["currentAccountId"], (string)c["incomingAccountId"], (bool?)c["isNewAccount"] == true,
                Reattach.UnsyncedOf(records));
            var got = new JObject { ["action"] = d.Action };
            if (d.Unsynced != null)
            {
                got["unsynced"] = new JArray(d.Unsynced.Select(u =>
                {
                    var o = new JObject { ["target"] = u.Target, ["data"] = u.Data };
                    if (u.SlotInfo != null) o["slotInfo"] = u.SlotInfo;
                    o["saves"] = u.Saves;
                    return o;
                }));
            }
            if (d.Declined != null) got["declined"] = d.Declined;
            Same(c["decision"], got);
        }
    }
}

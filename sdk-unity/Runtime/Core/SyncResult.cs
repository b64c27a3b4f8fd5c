using System.Collections.Generic;
using System.Linq;

namespace Savepoint
{
    /// <summary>What became of one record's changes pending when SyncAsync was called (README, Sync results).</summary>
    public enum SyncOutcome { Synced = 0, Deferred = 1, Offline = 2, Conflict = 3, Refused = 4 }

    public sealed class TargetResult
    {
        public SyncOutcome Status;
        /// <summary>The server's version (Synced).</summary>
        public int? Version;
        public SavepointException Error;
        /// <summary>When the engine tries again (Deferred, Offline, Refused by the cooldown).</summary>
        public long? RetryAt;
    }

    /// <summary>One record as the engine left it: the newest change pending at the call, and what is known now.</summary>
    public sealed class TargetState
    {
        /// <summary>Seq of the newest local change when SyncAsync was called.</summary>
        public long SeqAtCall;
        public long SyncedSeq;
        /// <summary>Seq of a write begun but not answered, if any.</summary>
        public long? InflightSeq;
        /// <summary>The server's version the record is on.</summary>
        public int? Version;
        /// <summary>The server refused this record's newest change for good (conflict: the merges ran out).</summary>
        public SavepointException Refused;
    }

    /// <summary>The engine as it is when SyncAsync answers.</summary>
    public sealed class EngineState
    {
        /// <summary>The server refused the session: nothing is sent until a new sign-in.</summary>
        public bool Stopped;
        public bool HasSession;
        /// <summary>The last sync got no answer.</summary>
        public bool Offline;
        public SavepointException LastError;
        /// <summary>When the engine plans its next push, if it does.</summary>
        public long? RetryAt;
    }

    /// <summary>
    /// One result per record that had changes pending at the call, and the overall status: Synced only when
    /// every one is; else the most serious, Refused > Conflict > Offline > Deferred. RetryAt: the earliest.
    /// </summary>
    public sealed class SyncResult
    {
        public SyncOutcome Status;
        public Dictionary<string, TargetResult> Targets = new Dictionary<string, TargetResult>();
        public long? RetryAt;

        /// <summary>A record's result, from its state and the engine's (the shared cases of sdk-vectors/sync-result.json).</summary>
        public static TargetResult Of(TargetState t, EngineState e)
        {
            var acknowledged = t.SyncedSeq >= t.SeqAtCall && !(t.InflightSeq != null && t.InflightSeq <= t.SeqAtCall);
            if (acknowledged && t.Version != null) return new TargetResult { Status = SyncOutcome.Synced, Version = t.Version };
            if (t.Refused != null)
                return new TargetResult { Status = t.Refused.Code == "conflict" ? SyncOutcome.Conflict : SyncOutcome.Refused, Error = t.Refused };
            if (e.Stopped) return new TargetResult { Status = SyncOutcome.Refused, Error = e.LastError ?? NoSession() };
            if (!e.HasSession) return new TargetResult { Status = SyncOutcome.Refused, Error = NoSession() };
            if (e.Offline)
                return new TargetResult { Status = SyncOutcome.Offline, Error = e.LastError ?? new SavepointException("network_error", "offline", 0),
                    RetryAt = e.RetryAt };
            return new TargetResult { Status = SyncOutcome.Deferred, RetryAt = e.RetryAt };
        }

        static SavepointException NoSession()
        {
            return new SavepointException("unauthorized", "this device has no account: create one, sign in or attach a transfer code", 0);
        }

        public static SyncResult Summarize(Dictionary<string, TargetResult> targets)
        {
            var r = new SyncResult { Targets = targets, Status = SyncOutcome.Synced };
            foreach (var t in targets.Values) if (t.Status > r.Status) r.Status = t.Status;
            var times = targets.Values.Where(t => t.RetryAt != null).Select(t => t.RetryAt.Value).ToList();
            if (times.Count > 0) r.RetryAt = times.Min();
            return r;
        }
    }
}

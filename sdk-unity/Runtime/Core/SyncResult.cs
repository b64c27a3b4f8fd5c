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

    /// <summary>
    /// One result per record that had changes pending at the call, and the overall status: Synced only when
    /// every one is; else the most serious, Refused > Conflict > Offline > Deferred. RetryAt: the earliest.
    /// </summary>
    public sealed class SyncResult
    {
        public SyncOutcome Status;
        public Dictionary<string, TargetResult> Targets = new Dictionary<string, TargetResult>();
        public long? RetryAt;

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

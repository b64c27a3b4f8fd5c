using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    // SyncAsync and its answer (README, Sync results): what became of every change pending at the call.
    internal sealed partial class SyncEngine
    {
        /// <summary>
        /// SyncAsync: pushes now if the interval allows (force: ignores the interval, not the cooldown), and
        /// answers what happened to every change pending at the call.
        /// </summary>
        public async Task<SyncResult> Sync(bool force)
        {
            List<(string Target, long Seq)> atCall;
            lock (gate)
            {
                atCall = Store.All().Where(r => r.IsPending).Select(r => (r.Target, r.NewestSeq)).ToList();
                var now = d.Clock.Now();
                if (force)
                {
                    var decision = PolicyDecisions.ForceDecision(now, lastForcedAt, d.Policy().ForceSyncCooldownSeconds, d.OnCooldown);
                    if (decision.Action == "refuse")
                    {
                        var wait = (decision.RetryAt - now) / 1000.0;
                        var error = new SavepointException("sync_cooldown", "a forced sync is allowed again in " + wait + " s (forceSyncCooldownSeconds)", 0,
                            new JObject { ["retryAt"] = decision.RetryAt }, wait);
                        return SyncResult.Summarize(atCall.ToDictionary(t => t.Target, t => new TargetResult { Status = SyncOutcome.Refused,
                            Error = error, RetryAt = decision.RetryAt }));
                    }
                    if (decision.Action == "defer") return Held(atCall, decision.RetryAt);
                    lastForcedAt = now;
                }
                else
                {
                    var due = DueAt();
                    if (due > now) return Held(atCall, due);
                }
            }
            await Flush().ConfigureAwait(false);
            return Outcome(atCall, null);
        }

        SyncResult Held(List<(string, long)> atCall, long retryAt)
        {
            Schedule(retryAt);
            return Outcome(atCall, Math.Min(retryAt, timerAt));
        }

        SyncResult Outcome(List<(string Target, long Seq)> atCall, long? retryAt)
        {
            lock (gate)
            {
                var at = retryAt ?? timerAt;
                long? when = at == long.MaxValue ? (long?)null : at;
                var targets = new Dictionary<string, TargetResult>();
                foreach (var t in atCall)
                {
                    var r = Store.Get(t.Target);
                    var acknowledged = r != null && r.SyncedSeq >= t.Seq && !(r.Inflight != null && r.Inflight.Seq <= t.Seq);
                    SavepointException refused = null;
                    if (r != null && blocked.TryGetValue(t.Target, out var b) && b.Seq == r.NewestSeq) refused = b.Error;
                    TargetResult result;
                    if (acknowledged && r.Base != null) result = new TargetResult { Status = SyncOutcome.Synced, Version = r.Base.Version };
                    else if (refused != null) result = new TargetResult { Status = refused.Code == "conflict" ? SyncOutcome.Conflict
                        : SyncOutcome.Refused, Error = refused };
                    else if (stopped) result = new TargetResult { Status = SyncOutcome.Refused, Error = lastError ?? NoSession() };
                    else if (!d.HasSession()) result = new TargetResult { Status = SyncOutcome.Refused, Error = NoSession() };
                    else if (state == SyncState.Offline)
                        result = new TargetResult { Status = SyncOutcome.Offline, Error = lastError ?? new SavepointException("network_error",
                            "offline", 0), RetryAt = when };
                    else result = new TargetResult { Status = SyncOutcome.Deferred, RetryAt = when };
                    targets[t.Target] = result;
                }
                return SyncResult.Summarize(targets);
            }
        }

        static SavepointException NoSession()
        {
            return new SavepointException("unauthorized", "this device has no account: create one, sign in or attach a transfer code", 0);
        }
    }
}

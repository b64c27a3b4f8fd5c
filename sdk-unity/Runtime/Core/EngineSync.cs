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
                var decision = Decide(force ? "force" : "sync", now);
                if (decision.Action == "refuse")
                {
                    var retryAt = decision.RetryAt.Value;
                    var wait = (retryAt - now) / 1000.0;
                    var error = new SavepointException("sync_cooldown", "a forced sync is allowed again in " + wait + " s (forceSyncCooldownSeconds)", 0,
                        new JObject { ["retryAt"] = retryAt }, wait);
                    return SyncResult.Summarize(atCall.ToDictionary(t => t.Target, t => new TargetResult { Status = SyncOutcome.Refused,
                        Error = error, RetryAt = retryAt }));
                }
                // A plain SyncAsync inside the interval, or a forced one inside the cooldown: deferred until it ends.
                if (decision.Action == "defer") return Held(atCall, decision.Until.Value);
                if (force) lastForcedAt = now;
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
                var engine = new EngineState { Stopped = stopped, HasSession = d.HasSession(), Offline = state == SyncState.Offline, LastError = lastError,
                    RetryAt = when };
                var targets = new Dictionary<string, TargetResult>();
                foreach (var t in atCall)
                {
                    var r = Store.Get(t.Target);
                    var target = new TargetState { SeqAtCall = t.Seq, SyncedSeq = r?.SyncedSeq ?? 0, InflightSeq = r?.Inflight?.Seq,
                        Version = r?.Base?.Version };
                    if (r != null && blocked.TryGetValue(t.Target, out var b) && b.Seq == r.NewestSeq) target.Refused = b.Error;
                    targets[t.Target] = SyncResult.Of(target, engine);
                }
                return SyncResult.Summarize(targets);
            }
        }

        /// <summary>
        /// The policy decision (PolicyDecide, the shared vectors' rules) on the engine's own state; <paramref name="failure"/>: the
        /// "failed" event's error, counted as one more failure in a row.
        /// </summary>
        public PolicyDecision Decide(string ev, long now, SavepointException failure = null)
        {
            lock (gate)
            {
                var s = new PolicyState
                {
                    LastRemoteSyncAt = lastRemoteSyncAt == long.MinValue ? (long?)null : lastRemoteSyncAt,
                    LastForcedAt = lastForcedAt == long.MinValue ? (long?)null : lastForcedAt, Pending = Pending(), HasSession = d.HasSession(),
                    Stopped = stopped, Failures = failure != null ? failures + 1 : System.Math.Max(1, failures),
                    RetryAfterSeconds = failure?.RetryAfterSeconds ?? 0, NetworkDown = networkDown,
                };
                return PolicyDecide.Decide(d.Policy(), s, ev, now, d.OnCooldown, d.RetryBaseMs, d.RetryMaxMs, d.Random);
            }
        }
    }
}

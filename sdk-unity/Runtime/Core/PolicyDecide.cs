using System;

namespace Savepoint
{
    /// <summary>The engine's state as the policy decision reads it.</summary>
    public sealed class PolicyState
    {
        /// <summary>Ms of the last push's start; null before the first.</summary>
        public long? LastRemoteSyncAt;
        /// <summary>Ms of the last forced sync that ran; null before the first.</summary>
        public long? LastForcedAt;
        public bool Pending;
        public bool HasSession;
        public bool Stopped;
        /// <summary>Failed syncs in a row, this one included ("failed").</summary>
        public int Failures = 1;
        public double RetryAfterSeconds;
        /// <summary>The platform said the network is gone (Disconnected) and has not said it is back.</summary>
        public bool NetworkDown;
    }

    /// <summary>push (Keepalive: the app may be closing), defer (Until), refuse (RetryAt), refresh (read the policy), pull (then push) or nothing.</summary>
    public sealed class PolicyDecision
    {
        public string Action;
        public bool Keepalive;
        public long? Until;
        public long? RetryAt;
    }

    public static partial class PolicyDecide
    {
        /// <summary>
        /// What the engine does on each trigger (saved, sync, force, background, foreground, policyRead, reconnected, failed), as a
        /// pure function: the TypeScript SDK's policy decision, checked by both against sdk-vectors/policy.json.
        /// </summary>
        public static PolicyDecision Decide(SyncPolicy p, PolicyState s, string ev, long now, string onCooldown, long retryBaseMs, long retryMaxMs,
            Func<double> random)
        {
            switch (ev)
            {
                case "saved":
                    // Saves between two pushes coalesce: no push sooner than the interval after the last one.
                    if (s.Stopped || !s.HasSession || !s.Pending) return new PolicyDecision { Action = "nothing" };
                    var due = PolicyDecisions.PushDueAt(now, s.LastRemoteSyncAt ?? long.MinValue, p.MinRemoteSyncIntervalSeconds);
                    return due <= now ? new PolicyDecision { Action = "push" } : new PolicyDecision { Action = "defer", Until = due };
                case "sync":
                    // A plain SyncAsync keeps the interval too; its answer says the changes are deferred, and until when.
                    var next = PolicyDecisions.PushDueAt(now, s.LastRemoteSyncAt ?? long.MinValue, p.MinRemoteSyncIntervalSeconds);
                    return next <= now ? new PolicyDecision { Action = "push" } : new PolicyDecision { Action = "defer", Until = next };
                case "force":
                    var f = PolicyDecisions.ForceDecision(now, s.LastForcedAt ?? long.MinValue, p.ForceSyncCooldownSeconds, onCooldown);
                    if (f.Action == "push") return new PolicyDecision { Action = "push" };
                    return f.Action == "refuse" ? new PolicyDecision { Action = "refuse", RetryAt = f.RetryAt }
                        : new PolicyDecision { Action = "defer", Until = f.RetryAt };
                case "background":
                    return p.SyncOnAppBackground ? new PolicyDecision { Action = "push", Keepalive = true } : new PolicyDecision { Action = "nothing" };
                case "foreground":
                    // The policy is read whatever the cached flags say: a flag turned off must be able to come back on.
                    return new PolicyDecision { Action = "refresh" };
                case "policyRead":
                    // Asked with the policy just read (the cached one when the read failed): the flag governs pull and push.
                    return p.SyncOnAppForeground ? new PolicyDecision { Action = "pull" } : new PolicyDecision { Action = "nothing" };
                case "reconnected":
                    return p.SyncOnReconnect ? new PolicyDecision { Action = "push" } : new PolicyDecision { Action = "nothing" };
                case "failed":
                    // Full jitter under a doubling ceiling, never sooner than Retry-After; off: the next trigger retries. With
                    // the network known to be gone, a timer would only fail again: the platform's Reconnected retries instead.
                    if (!p.SyncOnReconnect || s.NetworkDown) return new PolicyDecision { Action = "nothing" };
                    var e = new SavepointException("network_error", "failed", 0, null, s.RetryAfterSeconds);
                    return new PolicyDecision { Action = "defer", Until = now + Retry.Backoff(s.Failures, retryBaseMs, retryMaxMs, random(), e) };
                default:
                    throw new ArgumentException("unknown policy event " + ev);
            }
        }
    }
}

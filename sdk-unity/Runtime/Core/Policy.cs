using System;

namespace Savepoint
{
    /// <summary>
    /// The sync policy's decisions as pure functions of plain numbers (README, Policy flags), the same as the
    /// TypeScript SDK's policy-decisions.ts, so both clients run the same shared cases. Times in ms.
    /// </summary>
    public static class PolicyDecisions
    {
        /// <summary>The earliest a push may start: at once, or minRemoteSyncIntervalSeconds after the previous one.</summary>
        public static long PushDueAt(long now, long lastPushAt, double minRemoteSyncIntervalSeconds)
        {
            return Math.Max(now, Sat(lastPushAt + minRemoteSyncIntervalSeconds * 1000));
        }

        /// <summary>A forced sync: "push" at once, else "defer" or "refuse" (onCooldown) until retryAt.</summary>
        public static (string Action, long RetryAt) ForceDecision(long now, long lastForcedAt, double forceSyncCooldownSeconds, string onCooldown)
        {
            var retryAt = Sat(lastForcedAt + forceSyncCooldownSeconds * 1000);
            if (now >= retryAt) return ("push", 0);
            return (onCooldown, retryAt);
        }

        /// <summary>When the runtime config is read again: everyMs after the last read (never when everyMs is 0).</summary>
        public static long ConfigRefreshDueAt(long lastReadAt, long everyMs)
        {
            return everyMs > 0 ? lastReadAt + everyMs : long.MaxValue;
        }

        /// <summary>"Never" is long.MinValue / MaxValue: sums with it stay there.</summary>
        static long Sat(double v)
        {
            if (v >= long.MaxValue) return long.MaxValue;
            if (v <= long.MinValue) return long.MinValue;
            return (long)v;
        }
    }

    /// <summary>The offset of the server's clock from the device's, from answers' Date headers (the latest rule).</summary>
    public sealed class ServerClock
    {
        readonly IClock clock;
        readonly Action<long> persist;
        long offset;
        long persisted;
        /// <summary>How far the offset may be from the truth: half its round trip plus the Date's half second (MaxValue: a guess).</summary>
        long uncertainty = long.MaxValue;
        /// <summary>A new answer this much less certain than the kept one still replaces it: the offset follows a drifting clock.</summary>
        const long SharperByMs = 250;

        public ServerClock(IClock clock, Action<long> persist)
        {
            this.clock = clock;
            this.persist = persist;
        }

        public long OffsetMs { get { return offset; } }

        public void Restore(long? offsetMs)
        {
            if (offsetMs != null) offset = persisted = offsetMs.Value;
        }

        public long Now()
        {
            return clock.Now() + offset;
        }

        /// <summary>
        /// The header has whole seconds, so the server answered somewhere in [D, D + 1000): its middle is set
        /// against the middle of the round trip. Unreadable or missing headers change nothing.
        /// </summary>
        public static long? OffsetFromDate(string date, long sentAt, long receivedAt)
        {
            DateTimeOffset at;
            if (string.IsNullOrEmpty(date) || receivedAt < sentAt) return null;
            if (!DateTimeOffset.TryParse(date, System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.AssumeUniversal,
                out at)) return null;
            return at.ToUnixTimeMilliseconds() + 500 - (sentAt + receivedAt) / 2;
        }

        public void Observe(string date, long sentAt, long receivedAt)
        {
            var o = OffsetFromDate(date, sentAt, receivedAt);
            if (o == null) return;
            // A slow answer (a loaded machine, a congested network) knows the server's time less well: it does not
            // replace a sharper offset it agrees with. One that disagrees beyond both error bars means the device
            // clock was changed: it is taken at once.
            var mine = (receivedAt - sentAt) / 2 + 500;
            var agrees = uncertainty != long.MaxValue && Math.Abs(o.Value - offset) <= mine + uncertainty;
            if (agrees && mine > uncertainty + SharperByMs) return;
            offset = o.Value;
            uncertainty = mine;
            // A change smaller than the Date header's grain is not a new clock: not worth a storage write.
            if (Math.Abs(offset - persisted) < 2000) return;
            persisted = offset;
            persist(offset);
        }
    }
}

using System;
using System.Threading.Tasks;

namespace Savepoint
{
    public sealed class RetryOptions
    {
        /// <summary>Attempts in all, the first included.</summary>
        public int Attempts = 5;
        /// <summary>First backoff ceiling in ms; it doubles each attempt up to MaxDelayMs.</summary>
        public long BaseDelayMs = 250;
        public long MaxDelayMs = 30000;
        /// <summary>For tests: a source of [0, 1) numbers.</summary>
        public Func<double> Random;
    }

    /// <summary>
    /// Full-jitter backoff (a random wait between 0 and the doubling ceiling), never shorter than the server's
    /// Retry-After. Only what may succeed unchanged is retried (README, Retries).
    /// </summary>
    public static class Retry
    {
        static readonly Random shared = new Random();

        public static double NextRandom()
        {
            lock (shared) return shared.NextDouble();
        }

        /// <summary>The wait before attempt n + 1, after attempt n failed with <paramref name="e"/>.</summary>
        public static long Backoff(int n, long baseMs, long maxMs, double random, SavepointException e)
        {
            var ceiling = Math.Min(maxMs, baseMs * Math.Pow(2, n - 1));
            return (long)Math.Max(random * ceiling, (e?.RetryAfterSeconds ?? 0) * 1000);
        }

        public static async Task<T> Run<T>(IClock clock, RetryOptions o, Func<int, Task<T>> attempt)
        {
            for (var n = 1; ; n++)
            {
                try
                {
                    return await attempt(n).ConfigureAwait(false);
                }
                catch (SavepointException e) when (n < o.Attempts && Errors.IsRetryable(e))
                {
                    var wait = Backoff(n, o.BaseDelayMs, o.MaxDelayMs, (o.Random ?? NextRandom)(), e);
                    if (wait > 0) await clock.Delay(wait).ConfigureAwait(false);
                }
            }
        }
    }
}

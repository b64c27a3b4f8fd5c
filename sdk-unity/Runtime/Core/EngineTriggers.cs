using System.Threading.Tasks;

namespace Savepoint
{
    // What the app tells the engine: background, the network, a new session, a new policy (README, Policy flags).
    internal sealed partial class SyncEngine
    {
        /// <summary>Completes when no push is running (one that starts meanwhile is awaited too).</summary>
        public async Task Settled()
        {
            for (;;)
            {
                Task t;
                lock (gate) t = running;
                if (t == null) return;
                await t.ConfigureAwait(false);
            }
        }

        /// <summary>The app goes to the background: the last saves leave now, if the policy says so.</summary>
        public Task Background()
        {
            return Decide("background", d.Clock.Now()).Action == "push" ? Flush() : Task.CompletedTask;
        }

        /// <summary>The network is back.</summary>
        public Task Reconnected()
        {
            lock (gate) networkDown = false;
            return Decide("reconnected", d.Clock.Now()).Action == "push" ? Flush() : Task.CompletedTask;
        }

        public void Disconnected()
        {
            lock (gate) networkDown = true;
            SetState(SyncState.Offline);
        }

        /// <summary>When the next push is planned (long.MaxValue: none).</summary>
        public long TimerAt { get { lock (gate) return timerAt; } }

        /// <summary>A new policy: the next push is planned on its interval (a backoff after a failure stays as it is).</summary>
        public void Replan()
        {
            lock (gate)
            {
                if (state != SyncState.Offline && timer != null)
                {
                    d.Clock.ClearTimeout(timer);
                    timer = null;
                    timerAt = long.MaxValue;
                }
            }
            Schedule();
        }

        /// <summary>A new session (sign-in, transfer): a stopped engine may run again.</summary>
        public void Resume()
        {
            lock (gate)
            {
                stopped = false;
                lastError = null;
            }
            SetState(Pending() ? SyncState.Dirty : SyncState.Idle);
            Schedule();
        }

        public void Dispose()
        {
            lock (gate)
            {
                disposed = true;
                if (timer != null) d.Clock.ClearTimeout(timer);
                timer = null;
            }
        }
    }
}

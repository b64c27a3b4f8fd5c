using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    internal sealed class EngineDeps
    {
        public PushDeps Push;
        public IClock Clock;
        public Func<SyncPolicy> Policy;
        /// <summary>"defer" or "refuse": what a forced sync inside the cooldown does.</summary>
        public string OnCooldown;
        public long RetryBaseMs;
        public long RetryMaxMs;
        public Func<double> Random;
        public Func<bool> HasSession;
        public Action<SyncStatus> StatusChanged;
        public Action<ErrorEvent> Error;
        public Action<SavepointException> Stopped;
    }

    /// <summary>
    /// When to push: never more often than minRemoteSyncIntervalSeconds (saves in between coalesce), at once
    /// when forced outside the cooldown, on background, and again after a failure when syncOnReconnect
    /// allows it, with full-jitter backoff never shorter than Retry-After. The TypeScript SDK's engine.ts.
    /// </summary>
    internal sealed partial class SyncEngine
    {
        readonly EngineDeps d;
        readonly object gate;
        object timer;
        long timerAt = long.MaxValue;
        long lastRemoteSyncAt = long.MinValue;
        long lastForcedAt = long.MinValue;
        Task running;
        bool again;
        int failures;
        bool networkDown;
        SyncState state = SyncState.Idle;
        SavepointException lastError;
        long? lastSyncAt;
        bool stopped;
        bool disposed;
        /// <summary>Records the server refused for good (413, 400, merges exhausted), until the game saves them again.</summary>
        readonly Dictionary<string, (long Seq, SavepointException Error)> blocked = new Dictionary<string, (long, SavepointException)>();

        public SyncEngine(EngineDeps deps)
        {
            d = deps;
            gate = deps.Push.Store.Gate;
        }

        LocalStore Store { get { return d.Push.Store; } }

        public SyncStatus Status()
        {
            lock (gate)
            {
                var s = new SyncStatus { State = state, LastSyncAt = lastSyncAt, LastError = lastError, Stopped = stopped };
                s.Pending = Store.All().Where(r => r.IsPending).Select(r => r.Target).ToList();
                foreach (var b in blocked) s.Refused[b.Key] = b.Value.Error;
                return s;
            }
        }

        void SetState(SyncState s)
        {
            SyncStatus now;
            lock (gate)
            {
                state = s;
                now = Status();
            }
            d.StatusChanged(now);
        }

        bool Pushable(LocalRecord r)
        {
            return r.IsPending && !(blocked.TryGetValue(r.Target, out var b) && b.Seq == r.NewestSeq);
        }

        bool Pending()
        {
            lock (gate) return Store.All().Any(Pushable);
        }

        /// <summary>A save happened: the engine pushes when the interval allows.</summary>
        public void Saved()
        {
            bool change;
            lock (gate) change = state == SyncState.Idle || state == SyncState.Error || state == SyncState.Conflict;
            if (change) SetState(stopped ? SyncState.Error : SyncState.Dirty);
            Schedule();
        }

        long DueAt()
        {
            return PolicyDecisions.PushDueAt(d.Clock.Now(), lastRemoteSyncAt, d.Policy().MinRemoteSyncIntervalSeconds);
        }

        /// <summary>Plans the next push at the earliest moment the policy allows (or at <paramref name="at"/>).</summary>
        public void Schedule(long? at = null)
        {
            lock (gate)
            {
                if (stopped || disposed || !d.HasSession() || !Pending()) return;
                var due = at ?? DueAt();
                if (due >= timerAt) return;
                if (timer != null) d.Clock.ClearTimeout(timer);
                timerAt = due;
                timer = d.Clock.SetTimeout(() =>
                {
                    lock (gate)
                    {
                        timer = null;
                        timerAt = long.MaxValue;
                    }
                    Flush();
                }, due - d.Clock.Now());
            }
        }

        /// <summary>Pushes every pending record now; concurrent calls share one run (and one more if saves came meanwhile).</summary>
        public Task Flush()
        {
            TaskCompletionSource<bool> done;
            lock (gate)
            {
                if (running != null)
                {
                    again = true;
                    return running;
                }
                // Continuations run where the push ends (Unity's main thread on WebGL): never queued to a thread pool.
                done = new TaskCompletionSource<bool>();
                running = done.Task;
            }
            Loop(done);
            return done.Task;
        }

        async void Loop(TaskCompletionSource<bool> done)
        {
            try
            {
                for (;;)
                {
                    lock (gate) again = false;
                    await PushAll().ConfigureAwait(false);
                    lock (gate) if (!(again && !stopped && state != SyncState.Offline && state != SyncState.Error)) break;
                }
            }
            catch (Exception)
            {
                // PushAll reports its failures itself.
            }
            finally
            {
                lock (gate) running = null;
                done.TrySetResult(true);
            }
        }

        async Task PushAll()
        {
            lock (gate)
            {
                if (stopped || !d.HasSession() || !Pending()) return;
                if (timer != null)
                {
                    d.Clock.ClearTimeout(timer);
                    timer = null;
                    timerAt = long.MaxValue;
                }
                lastRemoteSyncAt = d.Clock.Now();
            }
            SetState(SyncState.Syncing);
            SavepointException refused = null;
            try
            {
                foreach (var r in Store.All())
                {
                    lock (gate) if (!Pushable(r)) continue;
                    try
                    {
                        await Push.Record(d.Push, r).ConfigureAwait(false);
                    }
                    catch (Exception e)
                    {
                        var error = Errors.AsSavepoint(e);
                        if (Errors.RefusesSession(error) || Errors.IsRetryable(error)) throw error;
                        // The server will refuse this save again: report it, keep it, and let the other records
                        // sync. The refused write changed nothing, so the next save goes with a new write.
                        lock (gate)
                        {
                            blocked[r.Target] = (r.NewestSeq, error);
                            r.Inflight = null;
                            Store.Put(r);
                        }
                        d.Error(new ErrorEvent { Target = r.Target, Error = error });
                        refused = error;
                    }
                }
                SyncState next;
                lock (gate)
                {
                    failures = 0;
                    // An answer came: whatever the platform said, the network is there.
                    networkDown = false;
                    lastError = refused;
                    lastSyncAt = d.Clock.Now();
                    next = refused != null ? (refused.Code == "conflict" ? SyncState.Conflict : SyncState.Error) : Pending() ? SyncState.Dirty : SyncState.Idle;
                }
                SetState(next);
                Schedule();
            }
            catch (Exception e)
            {
                Failed(Errors.AsSavepoint(e));
            }
        }

        void Failed(SavepointException error)
        {
            lock (gate) lastError = error;
            if (Errors.RefusesSession(error))
            {
                // Looping on a refused session only burns requests: stop until the game signs in again.
                lock (gate) stopped = true;
                SetState(SyncState.Error);
                d.Stopped(error);
                return;
            }
            d.Error(new ErrorEvent { Error = error });
            SetState(SyncState.Offline);
            // A failed sync is retried on the syncOnReconnect flag's terms: with backoff, or on the next trigger.
            var next = Decide("failed", d.Clock.Now(), error);
            if (next.Action != "defer") return;
            lock (gate) failures++;
            Schedule(next.Until.Value);
        }
    }
}

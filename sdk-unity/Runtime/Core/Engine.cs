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
    internal sealed class SyncEngine
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
                        return SyncResult.Summarize(atCall.ToDictionary(t => t.Target, t => new TargetResult { Status = SyncOutcome.Refused, Error = error, RetryAt = decision.RetryAt }));
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
                    else if (refused != null) result = new TargetResult { Status = refused.Code == "conflict" ? SyncOutcome.Conflict : SyncOutcome.Refused, Error = refused };
                    else if (stopped) result = new TargetResult { Status = SyncOutcome.Refused, Error = lastError ?? NoSession() };
                    else if (!d.HasSession()) result = new TargetResult { Status = SyncOutcome.Refused, Error = NoSession() };
                    else if (state == SyncState.Offline)
                        result = new TargetResult { Status = SyncOutcome.Offline, Error = lastError ?? new SavepointException("network_error", "offline", 0), RetryAt = when };
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
                done = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
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
            if (!d.Policy().SyncOnReconnect) return;
            long wait;
            lock (gate)
            {
                failures++;
                wait = Retry.Backoff(failures, d.RetryBaseMs, d.RetryMaxMs, d.Random(), error);
            }
            Schedule(d.Clock.Now() + wait);
        }

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
            return d.Policy().SyncOnAppBackground ? Flush() : Task.CompletedTask;
        }

        /// <summary>The network is back.</summary>
        public Task Reconnected()
        {
            return d.Policy().SyncOnReconnect ? Flush() : Task.CompletedTask;
        }

        public void Disconnected()
        {
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

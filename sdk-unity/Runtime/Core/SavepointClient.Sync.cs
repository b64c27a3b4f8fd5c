using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace Savepoint
{
    public sealed partial class SavepointClient
    {
        /// <summary>Pushes if the interval (force: the cooldown) allows; answers what became of each pending change (README, Sync results).</summary>
        public Task<SyncResult> SyncAsync(bool force = false)
        {
            Start();
            return engine.Sync(force);
        }

        /// <summary>Pushes what is pending now, whatever the interval and cooldown (before a transfer decides what would be lost).</summary>
        public Task FlushNowAsync()
        {
            Start();
            return engine.Flush();
        }

        /// <summary>The app goes to the background (Unity: OnApplicationPause(true)): the last saves leave now, if the policy says so.</summary>
        public Task BackgroundAsync()
        {
            Start();
            return engine.Background();
        }

        /// <summary>
        /// The app comes back: reads the policy whatever the cached flags say (a flag turned off must be able to come
        /// back on), then pulls and pushes if the policy it now holds (the cached one when the read failed) allows.
        /// </summary>
        public async Task ForegroundAsync()
        {
            Start();
            if (engine.Decide("foreground", Clock.Now()).Action == "refresh") await RefreshConfig().ConfigureAwait(false);
            if (engine.Decide("policyRead", Clock.Now()).Action != "pull") return;
            try
            {
                await PullAsync().ConfigureAwait(false);
            }
            catch (Exception e)
            {
                var error = Errors.AsSavepoint(e);
                Emit(() => Error?.Invoke(new ErrorEvent { Error = error }));
            }
            await engine.Flush().ConfigureAwait(false);
        }

        /// <summary>The network came back.</summary>
        public Task ReconnectedAsync()
        {
            Start();
            return engine.Reconnected();
        }

        /// <summary>
        /// The network went away: the status says offline, and a failed sync waits for <see cref="ReconnectedAsync"/> instead of
        /// retrying on a timer (a save still tries, in case the platform was wrong).
        /// </summary>
        public void Disconnected()
        {
            engine.Disconnected();
        }

        /// <summary>Reads the server's state of the account data and every slot; records with unsent saves keep them (a push will merge).</summary>
        public async Task PullAsync()
        {
            Start();
            if (AccountId == null) return;
            var account = await Api.GetAccount().ConfigureAwait(false);
            Update(LocalStore.AccountTarget, account.Version, account.AccountData, null, ServerClock.Now());
            foreach (var slot in account.Slots)
            {
                var r = Store.Get(slot.SlotId);
                lock (Store.Gate) if (r != null && (r.IsPending || (r.Base != null && r.Base.Version >= slot.Version))) continue;
                var s = await Api.GetSlot(slot.SlotId).ConfigureAwait(false);
                Update(slot.SlotId, s.Version, s.Data, s.SlotInfo, DateTimeOffset.Parse(s.UpdatedAt).ToUnixTimeMilliseconds());
            }
        }

        void Update(string target, int version, Newtonsoft.Json.Linq.JObject data, Newtonsoft.Json.Linq.JObject slotInfo, long updatedAt)
        {
            lock (Store.Gate)
            {
                var r = Store.GetOrCreate(target);
                if (r.IsPending || (r.Base != null && r.Base.Version >= version)) return;
                r.Base = new BaseState { Version = version, Data = data, SlotInfo = slotInfo, UpdatedAt = updatedAt };
                r.SyncedSeq = r.NewestSeq;
                Store.Put(r);
            }
            var copy = Json.Copy(data);
            Emit(() => Changed?.Invoke(new ChangeEvent { Target = target, Data = copy, SlotInfo = Json.Copy(slotInfo) }));
        }

        public SyncStatus Status
        {
            get { return engine.Status(); }
        }

        /// <summary>When the engine plans its next push (null: none planned).</summary>
        public long? NextPushAt
        {
            get
            {
                var at = engine.TimerAt;
                return at == long.MaxValue ? (long?)null : at;
            }
        }

        /// <summary>Completes when no push is running: what a timer started has been answered.</summary>
        public Task SettledAsync()
        {
            return engine.Settled();
        }

        /// <summary>Stops timers; local saves stay on the storage.</summary>
        public void Dispose()
        {
            lock (Store.Gate)
            {
                disposed = true;
                if (pollTimer != null) Clock.ClearTimeout(pollTimer);
            }
            engine.Dispose();
        }
    }
}

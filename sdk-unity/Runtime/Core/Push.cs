using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    /// <summary>"Latest": saves made between two syncs go as one write. "All": each queued save is its own version.</summary>
    public enum Replay { Latest, All }

    /// <summary>What pushing a record needs from the client.</summary>
    internal sealed class PushDeps
    {
        public SavepointApi Api;
        public LocalStore Store;
        public Func<long> SaveTime;
        public Func<string, Resolution> Resolution;
        public int MaxConflictRetries;
        public Func<int> MaxSnapshots;
        public Replay Replay;
        public Action<SyncedEvent> Synced;
        public Action<ChangeEvent> Changed;
        public Action<ConflictEvent> Conflicted;
    }

    /// <summary>
    /// Sends a record's pending saves. A 409 is merged against the common base with the server state it carries
    /// (no extra read) and the result is sent on the server's version, at most MaxConflictRetries times
    /// (README, Conflicts). Errors other than conflicts are thrown to the engine.
    /// </summary>
    internal static class Push
    {
        sealed class Server
        {
            public int Version;
            public JObject Data;
            public JObject SlotInfo;
            public long UpdatedAt;
        }

        static long Ms(string iso)
        {
            return DateTimeOffset.Parse(iso, System.Globalization.CultureInfo.InvariantCulture).ToUnixTimeMilliseconds();
        }

        /// <summary>
        /// The next write: the one already begun (same key), else the next save to send, stored with its key
        /// before it is sent so that after a crash the retry is the same request.
        /// </summary>
        static Inflight Next(PushDeps d, LocalRecord r)
        {
            lock (d.Store.Gate)
            {
                if (r.Inflight != null) return r.Inflight;
                var pending = r.Snapshots.Where(s => s.Seq > r.SyncedSeq).ToList();
                var s0 = d.Replay == Replay.All ? pending[0] : pending[pending.Count - 1];
                string queued = null;
                if (r.QueuedKeys != null) r.QueuedKeys.TryGetValue(s0.Seq, out queued);
                if (queued == null && d.Replay == Replay.All) r.QueuedKeys = pending.ToDictionary(p => p.Seq, p => SavepointApi.NewIdempotencyKey());
                var key = queued ?? (r.QueuedKeys != null && r.QueuedKeys.TryGetValue(s0.Seq, out var k) ? k : SavepointApi.NewIdempotencyKey());
                r.Inflight = new Inflight { Key = key, Seq = s0.Seq, BaseVersion = r.Base?.Version, Data = s0.Data, SlotInfo = s0.SlotInfo };
                // A write whose key was stored with the queue needs no write of its own: its body follows from the stored state.
                if (queued == null) d.Store.Put(r);
                return r.Inflight;
            }
        }

        static async Task<(SyncAcceptedResponse Accepted, Server Conflict)> Send(PushDeps d, LocalRecord r, Inflight w)
        {
            if (r.Target == LocalStore.AccountTarget)
            {
                var a = await d.Api.SyncAccountData(w.BaseVersion ?? 1, w.Data, w.Key).ConfigureAwait(false);
                if (!a.IsConflict) return (a.Accepted, null);
                return (null, new Server { Version = a.Conflict.Version, Data = a.Conflict.Account.AccountData, UpdatedAt = Ms(a.Conflict.UpdatedAt) });
            }
            if (w.BaseVersion == null)
            {
                try
                {
                    var created = await d.Api.CreateSlot(r.Target, w.Data, w.SlotInfo, w.Key).ConfigureAwait(false);
                    return (new SyncAcceptedResponse { Status = "accepted", Version = created.Version, UpdatedAt = created.UpdatedAt }, null);
                }
                catch (SavepointException e) when (e.Code == "slot_already_exists")
                {
                    // Another device made this slot first: merge against its state as with any conflict.
                    var s = await d.Api.GetSlot(r.Target).ConfigureAwait(false);
                    return (null, new Server { Version = s.Version, Data = s.Data, SlotInfo = s.SlotInfo, UpdatedAt = Ms(s.UpdatedAt) });
                }
            }
            var answer = await d.Api.SyncSlot(r.Target, w.BaseVersion.Value, w.Data, w.SlotInfo, w.Key).ConfigureAwait(false);
            if (!answer.IsConflict) return (answer.Accepted, null);
            var slot = answer.Conflict.Slot;
            return (null, new Server { Version = slot.Version, Data = slot.Data, SlotInfo = slot.SlotInfo, UpdatedAt = Ms(slot.UpdatedAt) });
        }

        public static async Task Record(PushDeps d, LocalRecord r)
        {
            var conflicts = 0;
            for (;;)
            {
                lock (d.Store.Gate) if (!r.IsPending) return;
                var w = Next(d, r);
                var outcome = await Send(d, r, w).ConfigureAwait(false);
                if (outcome.Accepted != null)
                {
                    var a = outcome.Accepted;
                    lock (d.Store.Gate)
                    {
                        r.Base = new BaseState { Version = a.Version, Data = w.Data, SlotInfo = w.SlotInfo, UpdatedAt = Ms(a.UpdatedAt) };
                        r.SyncedSeq = Math.Max(r.SyncedSeq, w.Seq);
                        r.Inflight = null;
                        r.QueuedKeys?.Remove(w.Seq);
                        // The next queued save's key is stored already: a crash before its answer replays this one's state.
                        var next = r.Snapshots.FirstOrDefault(x => x.Seq > r.SyncedSeq);
                        if (!(next != null && r.QueuedKeys != null && r.QueuedKeys.ContainsKey(next.Seq)))
                        {
                            if (r.QueuedKeys != null && r.QueuedKeys.Count == 0) r.QueuedKeys = null;
                            d.Store.Put(r);
                        }
                    }
                    d.Synced(new SyncedEvent { Target = r.Target, Version = a.Version, Warnings = a.Warnings });
                    continue;
                }
                conflicts++;
                var server = outcome.Conflict;
                ConflictEvent ev;
                bool serverWins;
                lock (d.Store.Gate)
                {
                    var newest = r.Snapshots[r.Snapshots.Count - 1];
                    var local = newest.Seq > w.Seq ? newest.Data : w.Data;
                    var localSlotInfo = newest.Seq > w.Seq ? newest.SlotInfo : w.SlotInfo;
                    var baseData = r.Base?.Data ?? new JObject();
                    var context = new MergeContext { Target = r.Target, ServerUpdatedAt = server.UpdatedAt, LocalSavedAt = newest.SavedAt };
                    var merged = Json.Copy(d.Resolution(r.Target).Resolve(Json.Copy(baseData), Json.Copy(server.Data), Json.Copy(local), context));
                    ev = new ConflictEvent
                    {
                        Target = r.Target, ServerUpdatedAt = server.UpdatedAt, LocalSavedAt = newest.SavedAt, Base = Json.Copy(baseData),
                            Server = Json.Copy(server.Data),
                        Local = Json.Copy(local), Merged = Json.Copy(merged), ServerVersion = server.Version, Attempt = conflicts,
                    };
                    r.Base = new BaseState { Version = server.Version, Data = server.Data, SlotInfo = server.SlotInfo, UpdatedAt = server.UpdatedAt };
                    r.Inflight = null;
                    r.QueuedKeys = null;
                    serverWins = Json.Same(merged, server.Data);
                    if (serverWins)
                    {
                        // The server's state wins as it is: nothing to send, the local copy follows it.
                        r.SyncedSeq = newest.Seq;
                        d.Store.Put(r);
                    }
                    else
                    {
                        var slotInfo = localSlotInfo ?? server.SlotInfo;
                        var s = r.Add(merged, slotInfo, d.SaveTime(), d.MaxSnapshots());
                        r.Inflight = new Inflight { Key = SavepointApi.NewIdempotencyKey(), Seq = s.Seq, BaseVersion = server.Version, Data = merged,
                            SlotInfo = slotInfo };
                        d.Store.Put(r);
                    }
                }
                d.Conflicted(ev);
                var changedInfo = serverWins ? server.SlotInfo : r.Inflight?.SlotInfo;
                d.Changed(new ChangeEvent { Target = r.Target, Data = Json.Copy(serverWins ? server.Data : ev.Merged), SlotInfo = changedInfo });
                if (serverWins) return;
                if (conflicts > d.MaxConflictRetries)
                    throw new SavepointException("conflict", r.Target + ": still conflicting after " + d.MaxConflictRetries + " merges", 409,
                        new JObject { ["target"] = r.Target });
            }
        }
    }
}

using System;
using System.Collections.Generic;
using Newtonsoft.Json.Linq;

namespace Savepoint
{
    public enum SyncState { Idle, Dirty, Syncing, Offline, Conflict, Error }

    /// <summary>A snapshot a game can show as a cloud icon.</summary>
    public sealed class SyncStatus
    {
        public SyncState State;
        /// <summary>Slots (and "accountData") with saves the server does not have yet.</summary>
        public List<string> Pending = new List<string>();
        public long? LastSyncAt;
        public SavepointException LastError;
        /// <summary>Records whose newest save the server refused (too large, invalid, merges exhausted), by target.</summary>
        public Dictionary<string, SavepointException> Refused = new Dictionary<string, SavepointException>();
        /// <summary>True once the server refused this device's session: nothing syncs until a new sign-in.</summary>
        public bool Stopped;
    }

    public sealed class SavedEvent { public string Target; public long Seq; }
    public sealed class SyncedEvent { public string Target; public int Version; public List<string> Warnings; }
    /// <summary>The local copy changed from the server side (a pull or a merge): re-read it.</summary>
    public sealed class ChangeEvent { public string Target; public JObject Data; public JObject SlotInfo; }
    public sealed class ErrorEvent { public string Target; public SavepointException Error; }

    /// <summary>A 409 and how it was merged, with both sides.</summary>
    public sealed class ConflictEvent
    {
        public string Target;
        public long ServerUpdatedAt;
        public long LocalSavedAt;
        public JObject Base;
        public JObject Server;
        public JObject Local;
        public JObject Merged;
        public int ServerVersion;
        /// <summary>1 for the first conflict of this write, more when a merged write conflicted again.</summary>
        public int Attempt;
    }

    /// <summary>
    /// Where events reach the game. Unity's must be its main thread (the Unity layer's dispatcher); the
    /// default posts to the SynchronizationContext the client was made on, else calls at once.
    /// </summary>
    public interface IDispatcher
    {
        void Post(Action action);
    }

    public sealed class ContextDispatcher : IDispatcher
    {
        readonly System.Threading.SynchronizationContext context;

        public ContextDispatcher(System.Threading.SynchronizationContext context)
        {
            this.context = context;
        }

        public void Post(Action action)
        {
            if (context == null) action();
            else context.Post(_ => action(), null);
        }
    }
}
